"""The read path: recall (seeds from FTS5 and vectors, fusion, walks along entities and
causes, ranking) under a ``RecallConfig``."""
