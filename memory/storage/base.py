"""What the aggregate modules of the store share: the row types they return, the one way an
id list is passed to SQL, and ``Base``, the attributes every part reads."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import apsw

FACT_COLUMNS = (
    "id, text, kind, project, session, role, source, harness, turn, stated_at, recorded_at, "
    "valid_from, valid_to, status, superseded_by, retired_at"
)
F_FACT_COLUMNS = ", ".join("f." + c.strip() for c in FACT_COLUMNS.split(","))  # on alias f


class FactRow(NamedTuple):
    """One row of ``facts`` as stored (a named tuple: the write path reads tens per new
    fact, and a frozen dataclass of 16 fields costs 6x as much to build)."""

    id: int
    text: str
    kind: str
    project: str | None
    session: str | None
    role: str | None
    source: str | None
    harness: str | None
    turn: str | None
    stated_at: str
    recorded_at: str
    valid_from: str | None
    valid_to: str | None
    status: str
    superseded_by: int | None
    retired_at: str | None


@dataclass(frozen=True)
class AssertionRow:
    """One stored cause -> effect span pair of a fact."""

    id: int
    fact_id: int
    cause: str
    effect: str
    cue: str
    confidence: float
    backref: str | None
    cause_vec: bytes | None
    effect_vec: bytes | None


@dataclass(frozen=True)
class LinkRow:
    """One causal link seen from the walk's side: ``near`` is the fact being expanded."""

    near: int
    far: int
    score: float
    via: str
    cue: str | None


# Lists go to SQL one way: as ONE parameter, a JSON array, read back with
# ``x IN (SELECT value FROM json_each(?))`` (or joined to ``json_each(?)``). The statement
# text is then the same for every length (one cached plan, no 32,766-variable limit), and
# SQLite seeks the index once per listed value, exactly as for an ``IN (?, ?, ...)`` list.


def id_list(ids: Iterable[int]) -> str:
    """The JSON array parameter of a list of ids."""
    return "[" + ",".join(str(int(i)) for i in ids) + "]"


def text_list(values: Iterable[str]) -> str:
    """The JSON array parameter of a list of strings (names, terms, sources)."""
    return json.dumps(list(values), ensure_ascii=False)


def marks(n: int) -> str:
    """``?, ?, ...`` for the ``n`` columns of one inserted row (not for lists)."""
    return ",".join("?" * n)


class Base:
    """The state every aggregate module of ``Store`` reads (set by ``Store.__init__``), and
    the file's settings (``meta``: the embedding model and its width)."""

    path: Path
    conn: apsw.Connection
    vec_dim: int | None

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
