"""Speed and size of the engine at 1k, 10k and 100k facts.

    python -m evals.bench [--sizes 1000,10000,100000]
        [--data ../shared/data/locomo/locomo10-dev.json]
                          [--keep DIR]

Facts are LoCoMo turns recombined (each turn's sentences with another speaker, session and
time of day), so the text is realistic and no two facts are identical. Prints ingest
facts/second, recall p50/p95 (ms), database bytes per fact and peak RSS, and in the same
run the bare embedder's batched throughput (sentences/s) on the same kind of text as the
ceiling (measured again right before each ingest) and the time to embed one query alone
(the floor under every recall).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.extract.sentences import split_sentences

from evals.common import peak_rss_mb, require, shared_embedder, table

NAMES = ["Ada", "Grace", "Linus", "Guido", "Margaret", "Ken", "Barbara", "Dennis", "Anita", "Alan"]
PLACES = ["at the standup", "in the retro", "on the call", "in the design review", "over lunch"]


def corpus(data: Path) -> tuple[list[str], list[str]]:
    """(sentences, questions) from the LoCoMo file."""
    convs = json.loads(data.read_text())
    sentences: list[str] = []
    questions: list[str] = []
    for conv in convs:
        c = conv["conversation"]
        n = 1
        while f"session_{n}" in c:
            for t in c[f"session_{n}"]:
                sentences.extend(s for s in split_sentences(t["text"]) if len(s) > 20)
            n += 1
        questions.extend(q["question"] for q in conv["qa"])
    return sentences, questions


def facts(sentences: list[str], n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        s = sentences[i % len(sentences)]
        who = NAMES[rng.randrange(len(NAMES))]
        where = PLACES[rng.randrange(len(PLACES))]
        out.append(f"{who} said {where} in week {i // len(sentences) + 1}: {s}")
    return out


HEAD = ["facts", "stored", "ceiling/s", "ingest/s", "of ceiling", "embed 1 ms", "recall p50 ms",
        "p95 ms", "bytes/fact", "peak RSS MB"]


def embed_rate(emb: object, texts: list[str]) -> float:
    """The bare embedder's batched throughput on ``texts`` (sentences/s)."""
    t0 = time.perf_counter()
    for i in range(0, len(texts), 256):
        emb.embed_batch(texts[i : i + 256])  # type: ignore[attr-defined]
    return len(texts) / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="../shared/data/locomo/locomo10-dev.json")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--keep", help="write the memories into this folder and keep them (profiling)")
    args = ap.parse_args(argv)
    sentences, questions = corpus(require(args.data))
    emb = shared_embedder()
    sizes = [int(x) for x in args.sizes.split(",")]

    sample = facts(sentences, 1000, seed=1)
    rows = []
    rng = random.Random(3)
    for n in sizes:
        # The ceiling is measured right before each ingest, so that a busy machine slows both.
        ceiling = embed_rate(emb, sample)
        print(f"bare embedder ({emb.name}): {ceiling:.0f} sentences/s batched (the ceiling)")
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(args.keep) if args.keep else Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"bench-{n}.db"
            for old in folder.glob(f"bench-{n}.db*"):
                old.unlink()
            mem = Memory(target, embedder=emb)
            texts = facts(sentences, n)
            t0 = time.perf_counter()
            for i in range(0, n, 256):
                mem.remember(texts[i : i + 256], project="/bench", session=f"s{i // 2048}")
            ingest = n / (time.perf_counter() - t0)
            stored = mem.status().facts
            qs = [questions[rng.randrange(len(questions))] for _ in range(args.queries)]
            for q in qs[:5]:
                mem.recall(q, project="/bench")  # warm caches
            times, floor = [], []
            for q in qs:
                t0 = time.perf_counter()
                emb.embed_batch([q])
                floor.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                mem.recall(q, project="/bench")
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            p50 = statistics.median(times)
            p95 = times[int(0.95 * (len(times) - 1))]
            mem.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            size = mem.store.file_bytes()
            mem.close()
            rows.append(
                [n, stored, round(ceiling), round(ingest, 1), f"{100 * ingest / ceiling:.0f}%",
                 round(statistics.median(floor), 1), round(p50, 1), round(p95, 1),
                 round(size / max(stored, 1)), round(peak_rss_mb())]
            )
            print(table(HEAD, rows[-1:]), flush=True)
    print()
    print(table(HEAD, rows))
    print("targets: recall p50 <= 15 ms at 10k and <= 50 ms at 100k; ingest >= 80% of ceiling")


if __name__ == "__main__":
    main()
