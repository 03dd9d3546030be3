"""wtpsplit SaT ("Segment any Text") sentence splitting (optional extra ``[split]``).

SaT is a small multilingual transformer that splits text without relying on punctuation,
so it copes with lower-case chat, missing full stops and mixed languages where pysbd's
rules cannot. ``load_sat(spec)`` takes a SaT model name such as ``sat-3l-sm`` (wtpsplit
fetches it on the user's machine) or a local folder holding ``model_optimized.onnx`` and
``config.json`` (run on onnxruntime, CPU) and the XLM-R tokenizer files (``tokenizer.json``
and friends, so that nothing is downloaded). wtpsplit imports transformers (seconds), so only
``load_sat`` imports it.

The splitter only replaces pysbd inside ``split_sentences``: code blocks, list items, URL
masking and the length cut stay as they are.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ..extract.backends import local_folder

__all__ = ["SatSplitter", "load_sat"]

_ORT_CPU = ["CPUExecutionProvider"]


class SatSplitter:
    """A loaded SaT model as a ``Splitter`` backend (thread-safe)."""

    def __init__(self, model: Any, name: str, threshold: float | None = None) -> None:
        self._model = model
        self.name = name
        self.threshold = threshold
        self._lock = threading.Lock()

    def split(self, paragraph: str) -> list[str]:
        """Sentences of ``paragraph``: consecutive substrings that cover it."""
        with self._lock:
            pieces = self._model.split(paragraph, threshold=self.threshold,
                                       strip_whitespace=False)
        return [str(p) for p in pieces if str(p).strip()]


def load_sat(spec: str) -> SatSplitter:
    """Load SaT from a local folder or a model name; raise on any failure."""
    folder = local_folder(spec)
    is_folder = folder is not None
    path = folder if folder is not None else Path(spec)
    if is_folder:
        for needed in ("config.json", "model_optimized.onnx", "tokenizer.json"):
            if not (path / needed).is_file():
                raise FileNotFoundError(f"model folder {path} has no {needed}")
    from wtpsplit import SaT  # deferred: imports transformers

    kwargs: dict[str, Any] = {"ort_providers": _ORT_CPU} if is_folder else {}
    if is_folder:  # the folder's own XLM-R tokenizer: no download
        kwargs["tokenizer_name_or_path"] = str(path)
    model = SaT(str(path) if is_folder else spec, **kwargs)
    model.split("probe. probe")  # fail now, not mid-write
    return SatSplitter(model, f"sat folder:{path.resolve()}" if is_folder else f"sat {spec}")
