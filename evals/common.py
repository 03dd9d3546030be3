"""Helpers shared by the evals: argument parsing, one embedder for a whole run, tables."""

from __future__ import annotations

import resource
import sys
from collections.abc import Sequence
from pathlib import Path


def shared_embedder(spec: str | None = None):  # type: ignore[no-untyped-def]
    """Load the embedder once for a whole run (each fresh Memory reuses it)."""
    from reasongraph_mcp.memory.config import Settings, default_cache_dir
    from reasongraph_mcp.memory.ml.embed import load_embedder

    settings = Settings.from_env()
    return load_embedder(spec or settings.embed_model, settings.cache_dir or default_cache_dir())


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """An aligned plain-text table; floats with three decimals."""
    cells = [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    for r in cells:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    return "\n".join(out)


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def require(path: str) -> Path:
    p = Path(path)
    if not p.exists():
        raise SystemExit(f"data not found: {path}")
    return p
