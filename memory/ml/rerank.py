"""Optional cross-encoder reranking of recalled facts (fastembed ``TextCrossEncoder``).

A cross-encoder reads the query and each fact together, so it can tell "why did the deploy
fail" from "the deploy did not fail" where bi-encoder cosine and BM25 cannot; it costs one
model pass per candidate, so it reorders only the best ``depth`` hits of the fused ranking.
It is off by default: no reranker ships in any package, and ``python -m evals.models``
measures whether one helps before it should be turned on anywhere.

``load_reranker(spec)`` takes a fastembed cross-encoder name (``Xenova/ms-marco-MiniLM-L-6-v2``,
downloaded on the user's machine) or a local folder with ``onnx/model.onnx`` (or
``model.onnx``) and ``tokenizer.json``; a ``model_name.txt`` in the folder names the
fastembed base model (default ``Xenova/ms-marco-MiniLM-L-6-v2``). fastembed is imported
only inside ``load_reranker``.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..extract.backends import local_folder
from ..records import Hit
from .embed import load_named

__all__ = ["DEFAULT_BASE", "Reranker", "load_reranker"]

DEFAULT_BASE = "Xenova/ms-marco-MiniLM-L-6-v2"
DEPTH = 30


class Reranker:
    """A loaded cross-encoder: scores (query, text) pairs and reorders hits (thread-safe)."""

    def __init__(self, model: Any, name: str, depth: int = DEPTH) -> None:
        self._model = model
        self.name = name
        self.depth = depth
        self._lock = threading.Lock()

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text (higher is more relevant)."""
        if not texts:
            return []
        with self._lock:
            return [float(s) for s in self._model.rerank(query, list(texts), batch_size=32)]

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        """The first ``depth`` hits reordered by cross-encoder score (which becomes their
        ``score``), then the rest unchanged."""
        head, tail = list(hits[: self.depth]), list(hits[self.depth :])
        scored = sorted(zip(self.scores(query, [h.text for h in head]), range(len(head)),
                            head, strict=True), key=lambda x: (-x[0], x[1]))
        return [dataclasses.replace(h, score=s) for s, _, h in scored] + tail


def _folder_model(path: Path) -> tuple[str, Path]:
    """(fastembed base name, folder laid out as fastembed expects) for a local folder."""
    base_file = path / "model_name.txt"
    base = base_file.read_text().strip() if base_file.is_file() else DEFAULT_BASE
    if not (path / "tokenizer.json").is_file():
        raise FileNotFoundError(f"model folder {path} has no tokenizer.json")
    if (path / "onnx" / "model.onnx").is_file():
        return base, path
    if not (path / "model.onnx").is_file():
        raise FileNotFoundError(f"model folder {path} has no onnx/model.onnx or model.onnx")
    # fastembed reads <folder>/onnx/model.onnx: link the flat layout into that shape
    (path / "onnx").mkdir(exist_ok=True)
    try:
        (path / "onnx" / "model.onnx").symlink_to(path / "model.onnx")
    except OSError:
        shutil.copyfile(path / "model.onnx", path / "onnx" / "model.onnx")
    return base, path


def load_reranker(spec: str, *, threads: int | None = None) -> Reranker:
    """Load a cross-encoder from a local folder or a fastembed model name; raise on failure."""
    path = local_folder(spec)
    threads = threads or min(4, os.cpu_count() or 1)
    if path is not None:
        base, folder = _folder_model(path)
    from fastembed.rerank.cross_encoder import TextCrossEncoder  # deferred: ~1 s import

    if path is not None:
        model = TextCrossEncoder(base, specific_model_path=str(folder), threads=threads)
        name = f"folder:{path.resolve()}"
    else:
        model = load_named(TextCrossEncoder, spec, threads=threads)
        name = spec
    reranker = Reranker(model, name)
    reranker.scores("probe", ["probe"])  # fail now, not mid-recall
    return reranker
