"""Revisions as append-only events: supersede, retract, revive; history; erasure.
(Scaffold: records and entry points; the implementation is being written.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import GraphMemoryError

if TYPE_CHECKING:
    from .embed import Embedder
    from .store import Store


@dataclass(frozen=True)
class Event:
    """One entry of a fact's timeline."""

    fact_id: int
    action: str
    at: str
    reason: str | None = None
    other_id: int | None = None
    session: str | None = None
    role: str | None = None
    text: str | None = None


def _unavailable() -> GraphMemoryError:
    return GraphMemoryError("revisions are not available in this version")


def revise(store: Store, embedder: Embedder | None, fact: int, new_text: str, *, reason: str, session: str | None, role: str | None) -> int:
    raise _unavailable()


def retract(store: Store, fact: int, *, reason: str, session: str | None, role: str | None) -> None:
    raise _unavailable()


def forget(store: Store, *, fact: int | None, project: str | None, session: str | None) -> int:
    raise _unavailable()


def history(store: Store, fact_or_entity: int | str) -> list[Event]:
    raise _unavailable()
