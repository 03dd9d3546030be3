"""Storage: the connection and its pragmas, numbered migrations, and the one
place SQL is written (``Store``)."""
