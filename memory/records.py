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


@dataclass(frozen=True)
class Erased:
    """What one ``forget`` erased: facts (with their FTS rows, vectors and passages), captured
    exchanges not yet drained, the hooks' spool files and per-session state files."""

    facts: int = 0
    pending: int = 0  # inbox rows still waiting for a drain, deleted or cut
    spool_files: int = 0  # <db>.spool/ files deleted or cut
    state_files: int = 0  # <db>.hooks/ per-session state files deleted or cut

    def summary(self) -> str:
        """One line: "Erased 3 fact(s), 1 pending exchange(s), 2 spool file(s)." """
        parts = [f"{self.facts} fact(s)"]
        for n, what in ((self.pending, "pending exchange(s)"), (self.spool_files, "spool file(s)"),
                        (self.state_files, "session state file(s)")):
            if n:
                parts.append(f"{n} {what}")
        return "Erased " + ", ".join(parts) + "."
