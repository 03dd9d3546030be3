"""Shared fixtures: a real memory file in tmp_path, with a fast hashing embedder for
plumbing tests and the packaged MiniLM (loaded once per run) for quality tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.ml.embed import HashEmbedder


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point every default folder at tmp_path so no test touches the user's memory."""
    monkeypatch.setenv("REASONGRAPH_DB", str(tmp_path / "default.db"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.delenv("REASONGRAPH_NOW", raising=False)
    monkeypatch.delenv("REASONGRAPH_EMBED_MODEL", raising=False)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="session")
def minilm(model_cache: Path):  # type: ignore[no-untyped-def]
    """The packaged all-MiniLM-L6-v2 int8 model, loaded once for the whole run."""
    from reasongraph_mcp.memory.ml.embed import load_embedder

    return load_embedder(None, model_cache)


@pytest.fixture(scope="session")
def similarity(minilm):  # type: ignore[no-untyped-def]
    """The cosine of two sentences under the packaged MiniLM, as the write path computes it."""
    import math

    def cosine(a: str, b: str) -> float:
        u, v = minilm.embed_batch([a, b])
        dot = sum(x * y for x, y in zip(u, v, strict=True))
        return dot / math.sqrt(sum(x * x for x in u) * sum(y * y for y in v))

    return cosine


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def memory(db_path: Path) -> Iterator[Memory]:
    """A memory on a real file with the deterministic hashing embedder (plumbing tests)."""
    mem = Memory(db_path, embedder=HashEmbedder(64))
    yield mem
    mem.close()


@pytest.fixture
def real_memory(db_path: Path, minilm) -> Iterator[Memory]:  # type: ignore[no-untyped-def]
    """A memory on a real file with the packaged MiniLM (quality and end-to-end tests)."""
    mem = Memory(db_path, embedder=minilm)
    yield mem
    mem.close()
