"""Where the write path's own CPU goes, per fact, with the model's work taken out.

    python -m evals.bench_write [--at 1000,8192] [--extra 1024] [--data .../locomo10-dev.json]

For each size: builds a memory of that many bench facts (``evals.bench``'s recombined LoCoMo
turns), then writes ``--extra`` more and times them. Every text is embedded once beforehand,
so the timed writes do no model work: what is left is the write path's Python and SQLite.
Prints CPU ms per fact in all and per stage (prepare: redact, split, kinds, entities, valid
time; neighbours; the rest of the inserts; causal links; update detection), the texts
embedded per fact, and the bare embedder's throughput in the same run. On a machine where
the model already keeps every core busy, ingest can reach at most about
ceiling_core_ms / (ceiling_core_ms * texts_per_fact + cpu_per_fact) of the ceiling.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.causal import links as causal
from reasongraph_mcp.memory.write import ingest

from evals.bench import corpus, embed_rate, facts
from evals.common import require, shared_embedder, table

STAGES: list[tuple[Any, str, str]] = [
    (ingest, "prepare", "prepare"),
    (ingest, "_neighbours", "neighbours"),
    (ingest, "_write_step", "inserts"),  # includes neighbours; shown without them
    (causal, "on_write", "causal"),
    (ingest, "_apply_updates", "updates"),
]


class PrecomputedEmbedder:
    """The real embedder's vectors, computed once per text: later writes cost no model time."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.vectors: dict[str, list[float]] = {}
        self.served = 0

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.inner.embed_batch(missing), strict=True))
        self.served += len(texts)
        return [self.vectors[t] for t in texts]


@contextlib.contextmanager
def stage_clock(spent: dict[str, float]) -> Iterator[None]:
    """Add the main thread's CPU seconds inside each stage function to ``spent``."""
    saved = []
    for mod, attr, label in STAGES:
        original: Callable[..., Any] = getattr(mod, attr)

        def timed(*a: Any, _f: Callable[..., Any] = original, _l: str = label, **k: Any) -> Any:
            t0 = time.thread_time()
            try:
                return _f(*a, **k)
            finally:
                spent[_l] = spent.get(_l, 0.0) + time.thread_time() - t0

        saved.append((mod, attr, original))
        setattr(mod, attr, functools.wraps(original)(timed))
    try:
        yield
    finally:
        for mod, attr, original in saved:
            setattr(mod, attr, original)


def measure(
    texts: list[str], n0: int, extra: int, emb: PrecomputedEmbedder, folder: Path
) -> dict[str, float]:
    """CPU ms per fact of writing texts[n0:n0+extra] into a memory holding texts[:n0]."""

    def write(mem: Memory, lo: int, hi: int) -> None:
        for i in range(lo, hi, 256):
            mem.remember(texts[i : min(i + 256, hi)], project="/bench", session=f"s{i // 2048}")

    out: dict[str, float] = {}
    for attempt in ("warm", "timed"):  # the first pass fills the vectors of every text
        path = folder / f"w-{n0}-{attempt}.db"
        mem = Memory(path, embedder=emb)
        write(mem, 0, n0)
        emb.served = 0
        spent: dict[str, float] = {}
        c0 = time.process_time()
        with stage_clock(spent):
            write(mem, n0, n0 + extra)
        total = time.process_time() - c0
        mem.close()
        spent["inserts"] = spent.get("inserts", 0.0) - spent.get("neighbours", 0.0)
        out = {"cpu": total, **spent, "texts": emb.served}
    return {k: (1000 * v / extra if k != "texts" else v / extra) for k, v in out.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data/locomo/locomo10-dev.json")
    ap.add_argument("--at", default="1000,8192", help="memory sizes before the timed writes")
    ap.add_argument("--extra", type=int, default=1024, help="facts timed at each size")
    args = ap.parse_args(argv)
    sentences, _ = corpus(require(args.data))
    inner = shared_embedder()
    ceiling = embed_rate(inner, facts(sentences, 1000, seed=1))
    cores = os.cpu_count() or 1
    print(f"bare embedder ({inner.name}): {ceiling:.0f} sentences/s batched on {cores} cores "
          f"= {cores * 1000 / ceiling:.2f} core-ms per sentence if it keeps them all busy")
    emb = PrecomputedEmbedder(inner)
    head = ["facts before", "cpu ms/fact", *(s[2] for s in STAGES), "texts/fact"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n0 in (int(x) for x in args.at.split(",")):
            texts = facts(sentences, n0 + args.extra)
            r = measure(texts, n0, args.extra, emb, Path(tmp))
            rows.append([n0, round(r["cpu"], 2), *(round(r.get(s[2], 0.0), 2) for s in STAGES),
                         round(r["texts"], 3)])
            print(table(head, rows[-1:]), flush=True)
    print()
    print(table(head, rows))
    print("stages are the main thread's CPU; 'inserts' excludes 'neighbours'; cpu ms/fact is "
          "the whole process")


if __name__ == "__main__":
    main()
