"""Optional model backends for the pure extractors, chosen per call through a ``ContextVar``.

``split_sentences`` and ``extract_entities`` keep their signatures and, with no backend
active, behave exactly as the rules and pysbd do. A ``Memory`` whose model slots loaded a
GLiNER model or a SaT splitter activates them around its write calls (``with using(...)``);
the context is per thread, so two memories in one process never see each other's models.

Batching: ``split_sentences`` hands every sentence it produced to the entity backend's
``prime``, which runs the model once over the whole batch; ``extract_entities`` then reads
the cached answer for each sentence.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .mentions import EntityMention

__all__ = ["Backends", "EntityModel", "Splitter", "current", "local_folder", "using"]


class EntityModel(Protocol):
    """Entities of a text from a model, merged with the rules by the backend itself."""

    name: str

    def prime(self, texts: Sequence[str]) -> None: ...

    def entities(self, text: str, rules: list[EntityMention]) -> list[EntityMention]: ...


class Splitter(Protocol):
    """Sentences of one paragraph (pieces that are substrings of it, in order)."""

    name: str

    def split(self, paragraph: str) -> list[str]: ...


@dataclass(frozen=True)
class Backends:
    """The models active for the current write: either may be None (rules / pysbd)."""

    entities: EntityModel | None = None
    splitter: Splitter | None = None


_ACTIVE: ContextVar[Backends | None] = ContextVar("reasongraph_backends", default=None)


def current() -> Backends | None:
    """The backends active in this context, or None."""
    return _ACTIVE.get()


@contextmanager
def using(backends: Backends | None) -> Iterator[None]:
    """Activate ``backends`` for the calls inside the block (None or empty: no change)."""
    if backends is None or (backends.entities is None and backends.splitter is None):
        yield
        return
    token = _ACTIVE.set(backends)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def local_folder(spec: str) -> Path | None:
    """The model folder ``spec`` names, or None for a hub name.

    An existing path, or one written as a path (absolute, ``~``, ``./``, ``../``), is a
    folder; a missing folder raises ``FileNotFoundError`` instead of being tried as a name.
    """
    path = Path(spec).expanduser()
    if path.exists():
        if not path.is_dir():
            raise NotADirectoryError(f"{path} is not a model folder")
        return path
    if spec.startswith(("/", "~", "./", "../", ".\\", "..\\")) or path.is_absolute():
        raise FileNotFoundError(f"model folder {path} does not exist")
    return None
