"""Records the engine hands out: frozen dataclasses with no I/O.

Ids are the integer row ids of the ``facts`` table; they are stable for the life of the
file and survive export/import unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Hit:
    """One recalled fact with its citation and the path that reached it."""

    id: int
    text: str
    score: float
    project: str | None
    session: str | None
    source: str | None
    role: str | None
    kind: str
    recorded_at: str
    valid_from: str | None
    valid_to: str | None
    path: str  # "seed:fts+vec", "via entity 'Redis'", "near #12 in session s1", ...
    status: str = "current"  # "current", "superseded" or "retracted"
    superseded_by: int | None = None
    sessions: tuple[str, ...] = ()  # every session that stated this fact


@dataclass(frozen=True)
class RememberResult:
    """What one ``remember`` call stored: new fact ids, and restated ones that gained provenance."""

    ids: list[int]
    created: list[int] = field(default_factory=list)
    restated: list[int] = field(default_factory=list)
    superseded: list[tuple[int, int, str]] = field(default_factory=list)  # (old, new, reason)


@dataclass(frozen=True)
class Status:
    """Counts and model state, for ``stats`` and ``doctor``."""

    facts: int
    current_facts: int
    entities: int
    links: int
    sessions: int
    projects: int
    file_bytes: int
    schema_version: int
    embedder: str
    embedder_ready: bool
    notes: tuple[str, ...] = ()
