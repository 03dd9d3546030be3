"""Causal memory: cause -> effect links across facts, and the why / trace / chain / what-if
walks. (Scaffold: the records and entry points; the linking and walks are being written.)"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import GraphMemoryError

if TYPE_CHECKING:
    from .embed import Embedder
    from .ingest import Prepared, Provenance
    from .recall import Scope
    from .store import Store


@dataclass(frozen=True)
class Step:
    """One cited step of a causal chain."""

    id: int
    text: str
    session: str | None
    date: str | None
    cue: str | None = None


@dataclass(frozen=True)
class Cause:
    """A root cause with its chain, root first."""

    id: int
    text: str
    score: float
    chain: list[Step] = field(default_factory=list)


@dataclass(frozen=True)
class TraceNode:
    id: int
    text: str
    depth: int
    via: int | None = None


@dataclass(frozen=True)
class WhatIf:
    fact: int
    collapsed: list[TraceNode] = field(default_factory=list)
    survives: list[TraceNode] = field(default_factory=list)


def prepare_write(embedder: Embedder | None, items: list[Prepared]) -> object:
    """Work done before the write lock (extraction, span embeddings)."""
    return None


def on_write(store: Store, items: list[Prepared], prov: Provenance, ctx: object) -> None:
    """Inside the write transaction: store spans and links of the new facts."""


def _unavailable() -> GraphMemoryError:
    return GraphMemoryError("causal walks are not available in this version")


def why(store: Store, embedder: Embedder | None, target: str | int, *, k: int, scope: Scope) -> list[Cause]:
    raise _unavailable()


def trace(store: Store, embedder: Embedder | None, target: str | int, *, direction: str, depth: int, scope: Scope) -> list[TraceNode]:
    raise _unavailable()


def chain(store: Store, from_fact: int, to_fact: int) -> list[Step] | None:
    raise _unavailable()


def what_if(store: Store, fact: int) -> WhatIf:
    raise _unavailable()
