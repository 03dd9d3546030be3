"""Model slots: which optional model fills each job, read from ONE place, and why not.

Four slots, each named by a constructor argument of ``Memory`` or else an environment
variable (read when the ``Memory`` is built, never at import):

=========  ==========================  ===========================  =====================
slot       argument                    environment                  without a model
=========  ==========================  ===========================  =====================
embed      ``embedder=``               ``REASONGRAPH_EMBED_MODEL``  packaged MiniLM
entities   ``entity_model=``           ``REASONGRAPH_ENTITY_MODEL`` code-aware rules
splitter   ``split_model=``            ``REASONGRAPH_SPLIT_MODEL``  pysbd
reranker   ``rerank_model=``           ``REASONGRAPH_RERANK_MODEL`` fused ranking as is
=========  ==========================  ===========================  =====================

A value is a model name (fetched by its library on a machine with network), a local model
folder, or ``none``/``off``. The three optional slots are off unless named. A slot loads its
model once (in a background thread with ``Memory(background=True)``, else on first use) and
keeps one status line: what is loaded and from where, or why it is not (package missing,
folder missing or corrupt, download refused) and what is used instead. A model that cannot
load never breaks a write or a read: the rules, pysbd or the unreranked order take over.
(The embed slot is ``EmbedderSlot`` in ``embed.py``; both load through ``loading.LoadOnce``.)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..extract.backends import Backends
from .loading import LoadOnce, first_line

T = TypeVar("T")

ENV: dict[str, str] = {
    "embed": "REASONGRAPH_EMBED_MODEL",
    "entities": "REASONGRAPH_ENTITY_MODEL",
    "splitter": "REASONGRAPH_SPLIT_MODEL",
    "reranker": "REASONGRAPH_RERANK_MODEL",
}
EXTRA: dict[str, str] = {"entities": "gliner", "splitter": "split", "reranker": "rerank"}
FALLBACK: dict[str, str] = {
    "entities": "the code-aware rules",
    "splitter": "pysbd",
    "reranker": "the fused ranking unreranked",
}
_OFF = frozenset({"", "none", "off", "false", "0"})


@dataclass(frozen=True)
class Choice:
    """A slot's requested model and where the request came from."""

    slot: str
    spec: str | None  # None: off / default
    source: str  # "argument", "$REASONGRAPH_..." or "default"

    @property
    def off(self) -> bool:
        return self.spec is None or self.spec.strip().lower() in _OFF


def choose(slot: str, argument: str | None) -> Choice:
    """The model named for ``slot``: the argument if given, else its environment variable."""
    if argument is not None:
        return Choice(slot, argument, "argument")
    value = os.environ.get(ENV[slot])
    if value:
        return Choice(slot, value, f"${ENV[slot]}")
    return Choice(slot, None, "default")


class ModelSlot(Generic[T]):
    """One optional model: loaded once by ``loader(spec)``, with one status line."""

    def __init__(self, choice: Choice, loader: Callable[[str], T]) -> None:
        self.choice = choice
        self._once: LoadOnce[T] = LoadOnce(
            lambda: loader(choice.spec or ""), self._describe,
            f"reasongraph-{choice.slot}-load", settled=choice.off,
        )

    def _describe(self, exc: BaseException) -> str:
        if isinstance(exc, ImportError):  # the extra is not installed
            return (f"package {exc.name or 'for this model'} is not installed: "
                    f"pip install 'reasongraph-mcp[{EXTRA[self.choice.slot]}]'")
        return first_line(exc)  # missing or corrupt folder, refused download, bad weights

    def start(self) -> None:
        """Begin loading in a background thread (idempotent; nothing when off)."""
        self._once.start()

    def get(self, wait: bool = True) -> T | None:
        """The model, loading it first if needed; None when off, failed or (with
        ``wait=False``) still loading."""
        return self._once.get(wait)

    @property
    def ready(self) -> bool:
        return self._once.ready

    @property
    def error(self) -> str | None:
        return self._once.error

    @property
    def status(self) -> str:
        """One line: what fills the slot and why."""
        c = self.choice
        where = "" if c.source == "default" else f" (from {c.source})"
        if c.off:
            hint = "" if c.spec is not None else f"; set {ENV[c.slot]} to use a model"
            return f"{c.slot}: {FALLBACK[c.slot]} (no model{where}{hint})"
        if self.ready:
            return f"{c.slot}: {getattr(self._once.value, 'name', c.spec)}{where}"
        if self.error:
            return (f"{c.slot}: model {c.spec!r}{where} could not load ({self.error}); "
                    f"using {FALLBACK[c.slot]}")
        if self._once.started:
            return f"{c.slot}: loading {c.spec!r}{where}; {FALLBACK[c.slot]} until ready"
        return f"{c.slot}: {c.spec!r}{where} (loads on first use)"


def _load_entities(spec: str) -> object:
    from .gliner_entities import load_gliner

    return load_gliner(spec)


def _load_splitter(spec: str) -> object:
    from .sat import load_sat

    return load_sat(spec)


def _load_reranker(spec: str) -> object:
    from .rerank import load_reranker

    return load_reranker(spec)


def slot(name: str, argument: str | None) -> ModelSlot[object]:
    """The optional slot ``name`` for ``argument`` (else its environment variable)."""
    return ModelSlot(choose(name, argument), LOADERS[name])


# Each optional slot's loader (a name or folder -> a loaded model; raises when it cannot).
LOADERS: dict[str, Callable[[str], object]] = {
    "entities": _load_entities,
    "splitter": _load_splitter,
    "reranker": _load_reranker,
}


class ModelSlots:
    """The three optional slots of one ``Memory``: entities, splitter and reranker."""

    def __init__(self, *, entity_model: str | None = None, split_model: str | None = None,
                 rerank_model: str | None = None) -> None:
        self.entities = slot("entities", entity_model)
        self.splitter = slot("splitter", split_model)
        self.reranker = slot("reranker", rerank_model)

    def start(self) -> None:
        """Load every named model in the background."""
        for slot in (self.entities, self.splitter, self.reranker):
            slot.start()

    def backends(self) -> Backends | None:
        """The write-path models to activate (waits for any that are loading)."""
        if self.entities.choice.off and self.splitter.choice.off:
            return None
        return Backends(entities=self.entities.get(), splitter=self.splitter.get())  # type: ignore[arg-type]

    def notes(self) -> tuple[str, ...]:
        """One status line per optional slot."""
        return tuple(s.status for s in (self.entities, self.splitter, self.reranker))
