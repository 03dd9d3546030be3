"""The write path's records, shared with the causal linker that runs inside each write:
``Prepared`` (one sentence ready to store) and ``Provenance`` (who said it, when).

They live below both ``write`` and ``causal`` so that neither imports the other's module
for a type.
"""

from __future__ import annotations

from dataclasses import dataclass

from .extract.mentions import EntityMention

__all__ = ["Prepared", "Provenance"]


@dataclass
class Prepared:
    """One sentence ready to store."""

    text: str
    hash: str
    kind: str
    entities: list[EntityMention]
    valid_from: str | None
    valid_to: str | None
    passage: int = 0  # index into the passages of this call
    vector: list[float] | None = None
    fact_id: int | None = None
    new: bool = False
    revived: bool = False
    # Fact ids the write path found near this sentence (by entity, words or vector) while
    # checking for duplicates; the causal linker starts from them. None: not looked up.
    near: list[int] | None = None


@dataclass(frozen=True)
class Provenance:
    """Who stated the sentences of one write, where, and when (stated vs recorded)."""

    project: str | None
    session: str | None
    role: str | None
    source: str | None
    harness: str | None
    turn: str | None
    stated_at: str
    recorded_at: str
