"""Storage: the connection and its pragmas, numbered migrations, and the one place SQL is
written: ``Store`` (``store.py``, one module per aggregate behind it), the typed ``Scope``
reads take (``filters.py``) and the inbox queue's queries (``inbox.py``)."""
