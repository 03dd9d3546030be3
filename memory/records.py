"""Every result type, defined once: frozen dataclasses with no I/O.

The engine returns them, the MCP tools return them as structured output (their JSON schema,
generated from these classes, is what agents see in ``tools/list``) and the CLI's ``--json``
prints them. Import-cheap: the standard library only.

A field marked ``HIDDEN`` is the engine's own (used by walks, tests and evals) and is left
out of the tools' structured output and schema. The key is pydantic's: pydantic reads a
dataclass field's metadata as ``Field`` arguments, and ``exclude`` drops it when dumping.

Ids are the integer row ids of the ``facts`` table; they are stable for the life of the
file and survive export/import unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

HIDDEN = MappingProxyType({"exclude": True})  # not part of the tools' structured output


# -- recall ------------------------------------------------------------------------------------


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


@dataclass(frozen=True, kw_only=True)
class Fact:
    """A recalled fact as the tools cite it: a ``Hit`` with one date and a rounded score."""

    id: int
    text: str
    date: str | None = None  # when it became true, else when it was recorded
    session: str | None = None
    project: str | None = None
    kind: str | None = None
    status: str = "current"
    superseded_by: int | None = None
    via: str | None = None  # the path that reached it
    score: float | None = None

    @classmethod
    def of(cls, hit: Hit) -> Fact:
        return cls(
            id=hit.id, text=hit.text, date=hit.valid_from or hit.recorded_at,
            session=hit.session, project=hit.project, kind=hit.kind, status=hit.status,
            superseded_by=hit.superseded_by, via=hit.path, score=round(float(hit.score), 4),
        )


@dataclass(frozen=True, kw_only=True)
class RecallResult:
    facts: list[Fact]
    note: str | None = None  # why the vectors took no part, when they did not


# -- writes and revisions ----------------------------------------------------------------------


@dataclass(frozen=True)
class Revision:
    """Fact ``old`` superseded by fact ``new``, and why."""

    old: int
    new: int
    reason: str


@dataclass(frozen=True)
class RememberResult:
    """What one ``remember`` call stored: new fact ids, and restated ones that gained provenance."""

    ids: list[int]
    created: list[int] = field(default_factory=list)
    restated: list[int] = field(default_factory=list)
    superseded: list[Revision] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class ReviseResult:
    fact: int
    action: str  # "superseded" or "retracted"
    new_id: int | None = None


@dataclass(frozen=True, kw_only=True)
class ForgetResult:
    deleted: int
    pending_exchanges: int = 0
    spool_files: int = 0
    state_files: int = 0
    summary: str = ""


@dataclass(frozen=True, kw_only=True)
class Event:
    """One entry of a fact's timeline."""

    at: str
    action: str
    fact_id: int
    other_id: int | None = None
    reason: str | None = None
    session: str | None = None
    role: str | None = field(default=None, metadata=HIDDEN)
    text: str | None = None


@dataclass(frozen=True, kw_only=True)
class HistoryResult:
    events: list[Event]


# -- causes ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Step:
    """One cited step of a causal chain."""

    id: int
    text: str
    session: str | None = None
    date: str | None = None
    cue: str | None = None
    # How the link into this step was made: join, assert, backref, story (two steps told
    # close together that name the same thing, no cue between them); or precedes (no link:
    # the step was told after the one before it, about the same thing, and nobody named a
    # cause).
    via: str | None = field(default=None, metadata=HIDDEN)


@dataclass(frozen=True, kw_only=True)
class Cause:
    """A root cause with its chain, root first."""

    id: int
    text: str
    score: float
    chain: list[Step]
    session: str | None = field(default=None, metadata=HIDDEN)
    date: str | None = field(default=None, metadata=HIDDEN)


@dataclass(frozen=True, kw_only=True)
class WhyResult:
    causes: list[Cause]


@dataclass(frozen=True, kw_only=True)
class TraceNode:
    """A fact reached by a walk: ``depth`` links from the start, reached from fact ``via``."""

    id: int
    text: str
    depth: int
    via: int | None = None
    score: float = field(default=1.0, metadata=HIDDEN)  # strongest link into it on the walk
    cue: str | None = field(default=None, metadata=HIDDEN)


@dataclass(frozen=True, kw_only=True)
class WhatIf:
    """If ``fact`` were false: effects left with no other support, and those that keep one."""

    fact: int
    collapsed: list[TraceNode] = field(default_factory=list)
    survives: list[TraceNode] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class TraceResult:
    mode: str  # effects, causes, chain or what_if
    nodes: list[TraceNode] = field(default_factory=list)  # effects/causes; what_if: collapses
    chain: list[Step] = field(default_factory=list)  # chain: the steps from one fact to the other
    survives: list[TraceNode] = field(default_factory=list)  # what_if: what still stands


# -- status ------------------------------------------------------------------------------------


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
