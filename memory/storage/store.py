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
import functools
import inspect
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import apsw

from . import connection as db
from .base import FACT_COLUMNS, AssertionRow, FactRow, LinkRow
from .causal import Causal
from .entities import Entities
from .facts import Facts
from .history import History
from .migrations import applied_count, migrate, newer_schema_message, unknown_migrations
from .search import Search
from .transfer import Transfer
from .vectors import Vectors

__all__ = ["FACT_COLUMNS", "AssertionRow", "FactRow", "LinkRow", "Store"]


class Store(Facts, Entities, Search, Vectors, Causal, History, Transfer):
    """The memory file: facts, statements, entities, events, vectors and causal rows."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.conn = db.connect(self.path, readonly=readonly)
        try:
            self._open(readonly)
        except BaseException:
            self.conn.close()
            raise
        self._vocab_ready = False
        self._docs: dict[str, int] = {}  # word -> facts containing it (term_docs)
        self._docs_size = 0

    def _open(self, readonly: bool) -> None:
        with db.translated(self.conn):
            newer = unknown_migrations(self.conn)
            if newer:
                db.refuse_writes(self.conn, newer_schema_message(self.path, self.conn))
            self.read_only = readonly or db.write_refusal(self.conn) is not None
            self.schema_version = (
                applied_count(self.conn) if self.read_only else migrate(self.conn)
            )
            self.vec_dim = self._vec_dim()
            if not self.read_only:
                self.ensure_span_index()

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
        with db.translated(self.conn):
            self.conn.execute("BEGIN")
            try:
                yield
            finally:
                self.conn.execute("COMMIT")


def _translating(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except apsw.Error as exc:
            raise db.translate(exc, self.path) from None

    return call


# Every public read and write of the facade raises the engine's StoreError, never an apsw
# error (a damaged page, a read-only file): the boundary the CLI and the MCP tools rely on.
for _klass in Store.__mro__[1:]:
    for _name, _fn in vars(_klass).items():
        if not _name.startswith("_") and inspect.isfunction(_fn) and _name not in vars(Store):
            setattr(Store, _name, _translating(_fn))
