"""``Store``: the memory file, the one object the engine reads and writes it through.

It opens (and migrates) the file and offers small set-based reads that recall and the causal
walks compose: every read takes a list of ids and answers in one statement, so that a walk
costs one SQL round per level, never one per node. Reads take a typed ``Scope``
(``filters.py``), never SQL text. Storage knows nothing of extraction or ranking; keeping
the SQL in this package is what lets another backend replace it.

``Store`` is one facade over one module per aggregate, each a class of its own: ``facts``
(facts, statements, events, passages), ``entities``, ``search`` (FTS5), ``vectors``,
``causal`` (spans and links), ``history`` (past lifecycles, erasure) and ``transfer``
(export and import). ``inbox`` holds the capture queue's queries, ``base`` the row types.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from . import connection as db
from .base import FACT_COLUMNS, AssertionRow, FactRow, LinkRow
from .causal import Causal
from .entities import Entities
from .facts import Facts
from .history import History
from .migrations import migrate
from .search import Search
from .transfer import Transfer
from .vectors import Vectors

__all__ = ["FACT_COLUMNS", "AssertionRow", "FactRow", "LinkRow", "Store"]


class Store(Facts, Entities, Search, Vectors, Causal, History, Transfer):
    """The memory file: facts, statements, entities, events, vectors and causal rows."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.conn = db.connect(self.path, readonly=readonly)
        self.schema_version = migrate(self.conn) if not readonly else 0
        self.vec_dim = self._vec_dim()
        if not readonly:
            self.ensure_span_index()
        self._vocab_ready = False
        self._docs: dict[str, int] = {}  # word -> facts containing it (term_docs)
        self._docs_size = 0

    def close(self) -> None:
        self.conn.close()

    def file_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    def checkpoint(self) -> tuple[int, int, int]:
        """Copy the WAL into the file and truncate it; return (busy, wal pages, copied)."""
        busy, log, copied = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return busy, log, copied

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction: every read inside sees the same committed state."""
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")
