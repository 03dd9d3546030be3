"""GLiNER zero-shot entities, merged with the code-aware rules (optional extra ``[gliner]``).

The rules are precise on code-shaped names (paths, dotted symbols, env keys, versions) and
blind to plain-language names ("the billing service", "Maria from payments"); GLiNER is the
reverse. So the rules' mentions always stay, and GLiNER adds the spans the rules did not
find, typed onto the rules' vocabulary (``LABELS`` maps each zero-shot label to a type).

``load_gliner(spec)`` takes a Hugging Face name (the library fetches it on the user's
machine; ``gliner-community/gliner_small-v2.5`` is a good choice) or a local folder written
by ``save_pretrained``. A folder holding ``model.onnx`` (or ``onnx/model.onnx``) runs on
onnxruntime; otherwise on torch (CPU). ``gliner`` and torch take seconds to import, so they
are imported only inside ``load_gliner``, which runs in the server or the drain, never in a
hook. Inference is batched: ``prime`` runs the model once over all sentences of a write.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..extract.backends import local_folder
from ..extract.entities import EntityMention, canonical

__all__ = ["LABELS", "GlinerEntities", "load_gliner"]

# Zero-shot labels suited to code work, and the entity type each one is stored as.
LABELS: dict[str, str] = {
    "file": "file",
    "function": "symbol",
    "class": "symbol",
    "module": "symbol",
    "package": "package",
    "library": "package",
    "service": "package",
    "database": "package",
    "command": "command",
    "error": "error",
    "config key": "env",
    "person": "name",
    "organisation": "name",
    "product": "name",
}
THRESHOLD = 0.5
_CACHE_SIZE = 4096
_MIN_CHARS = 2


class GlinerEntities:
    """A loaded GLiNER model as an ``EntityModel`` backend (thread-safe, batched, cached)."""

    def __init__(self, model: Any, name: str, *, threshold: float = THRESHOLD,
                 batch_size: int = 16) -> None:
        self._model = model
        self.name = name
        self.threshold = threshold
        self.batch_size = batch_size
        self._lock = threading.Lock()  # torch modules and ort sessions: one caller at a time
        self._cache: OrderedDict[str, list[tuple[str, str]]] = OrderedDict()

    def predict(self, texts: Sequence[str]) -> list[list[tuple[str, str]]]:
        """(span text, label) pairs for each text, in one batched model run."""
        if not texts:
            return []
        with self._lock:
            out = self._model.inference(
                list(texts), list(LABELS), threshold=self.threshold, flat_ner=True,
                batch_size=self.batch_size,
            )
        return [[(str(e["text"]), str(e["label"])) for e in spans] for spans in out]

    def prime(self, texts: Sequence[str]) -> None:
        """Run the model over every text not yet cached, in one batch."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for text, spans in zip(todo, self.predict(todo), strict=True):
            self._cache[text] = spans
        while len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)

    def entities(self, text: str, rules: list[EntityMention]) -> list[EntityMention]:
        """The rules' mentions, then GLiNER's spans that add a new name."""
        spans = self._cache.get(text)
        if spans is None:
            spans = self.predict([text])[0]
        return merge(rules, spans)


def merge(rules: list[EntityMention], spans: Sequence[tuple[str, str]]) -> list[EntityMention]:
    """Rules first; a model span joins when its canonical name is new and not part of (or a
    container of) a rule mention, so ``main.py`` never also yields ``in main.py``."""
    out = list(rules)
    seen = {m.name for m in rules}
    for span, label in spans:
        display = span.strip()
        key = canonical(display)
        if len(key) < _MIN_CHARS or key in seen:
            continue
        if any(key in name or name in key for name in seen if len(name) >= _MIN_CHARS):
            continue
        seen.add(key)
        out.append(EntityMention(key, display, LABELS.get(label, "name")))
    return out


def load_gliner(spec: str, *, threads: int | None = None) -> GlinerEntities:
    """Load GLiNER from a local folder or a model name; raise on any failure.

    A folder is loaded with ``local_files_only=True`` (no network); a name may download.
    """
    folder = local_folder(spec)
    is_folder = folder is not None
    path = folder if folder is not None else Path(spec)
    if is_folder and not (path / "gliner_config.json").is_file():
        raise FileNotFoundError(f"model folder {path} has no gliner_config.json")
    from gliner import GLiNER  # deferred: imports torch and transformers (seconds)

    onnx = next((p for p in (path / "model.onnx", path / "onnx" / "model.onnx")
                 if is_folder and p.is_file()), None)
    kwargs: dict[str, Any] = {"local_files_only": is_folder}
    if onnx is not None:
        kwargs.update(load_onnx_model=True, onnx_model_file=str(onnx.relative_to(path)))
    model = GLiNER.from_pretrained(str(path) if is_folder else spec, **kwargs)
    if onnx is None and threads:
        import torch

        torch.set_num_threads(threads)
    model.inference(["probe"], ["file"], threshold=0.99)  # fail now, not mid-write
    name = f"gliner folder:{path.resolve()}" if is_folder else f"gliner {spec}"
    return GlinerEntities(model, name + (" (onnx)" if onnx else ""))
