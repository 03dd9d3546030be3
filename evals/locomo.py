"""LoCoMo evidence recall: does recall put a question's evidence turns in its top k?

    python -m evals.locomo --data ../shared/data/locomo/locomo10-dev.json

Each conversation goes into its own fresh memory (turn = "Speaker: text", its session date
as ``when``, converted to ISO here by ``iso_date``, its turn id as ``source``). Questions
of categories 1-4 are asked; a hit list of facts is mapped to turn ids (first occurrence
wins) and scored: frac@k (share of the evidence turns in the top k), all@k (all of them).
The same turns are also ranked by a BM25 baseline (FTS5, same tokenizer) and a dense-only
baseline (same embedder), in this run.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.read.recall import RECIPES

from evals.common import require, shared_embedder, table

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


_DATE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I
)
_MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()


def iso_date(value: str | None) -> str | None:
    """A LoCoMo session date ("1:56 pm on 8 May, 2023") as the ISO date-time the engine
    reads (``2023-05-08T13:56:00Z``); anything else is passed on as it is."""
    match = _DATE.match(value) if value else None
    if match is None:
        return value
    hour, minute, ampm, day, month_name, year = match.groups()
    month = _MONTHS.index(month_name[:3].lower()) + 1  # ValueError: not a month
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    moment = datetime(int(year), month, int(day), h, int(minute), tzinfo=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def turns_of(conv: dict) -> list[tuple[str, str, str, str]]:
    """(session name, ISO date, turn id, text) for every turn in order."""
    c = conv["conversation"]
    out = []
    n = 1
    while f"session_{n}" in c:
        date = iso_date(c.get(f"session_{n}_date_time"))
        for t in c[f"session_{n}"]:
            text = f"{t['speaker']}: {t['text']}"
            if t.get("blip_caption"):
                text += f" [shares a photo: {t['blip_caption']}]"
            out.append((f"session_{n}", date, t["dia_id"], text))
        n += 1
    return out


def dedupe_sources(ids: list[str | None], k: int) -> list[str]:
    out: list[str] = []
    for s in ids:
        if s and s not in out:
            out.append(s)
        if len(out) == k:
            break
    return out


def score(ranked: list[str], evidence: list[str], k: int) -> tuple[float, float]:
    top = set(ranked[:k])
    found = sum(1 for e in evidence if e in top)
    return found / len(evidence), float(found == len(evidence))


def bm25_rank(turns, query: str, k: int) -> list[str]:  # type: ignore[no-untyped-def]
    import apsw
    from reasongraph_mcp.memory.read.recall import fts_query

    conn = bm25_rank.cache.get(id(turns))  # type: ignore[attr-defined]
    if conn is None:
        conn = apsw.Connection(":memory:")
        conn.execute(
            "CREATE VIRTUAL TABLE t USING fts5(tid UNINDEXED, text, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
        conn.executemany("INSERT INTO t(tid, text) VALUES (?, ?)", [(x[2], x[3]) for x in turns])
        bm25_rank.cache[id(turns)] = conn  # type: ignore[attr-defined]
    match = fts_query(query)
    if not match:
        return []
    rows = conn.execute("SELECT tid FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?", (match, k))
    return [r[0] for r in rows]


bm25_rank.cache = {}  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    ap.add_argument("--recipe", default="hybrid", choices=sorted(RECIPES))
    ap.add_argument("--keep", help="folder to keep (and reuse) the built memories in")
    args = ap.parse_args(argv)
    convs = json.loads(require(args.data).read_text())
    if args.limit:
        convs = convs[: args.limit]
    emb = shared_embedder()
    systems = ("engine", "bm25", "dense")
    res: dict[str, dict[int, list[tuple[float, float, float]]]] = {
        s: defaultdict(list) for s in systems
    }
    ingest_s = 0.0
    n_turns = 0
    query_s = 0.0
    n_q = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for conv in convs:
            turns = turns_of(conv)
            path = folder / f"{conv['sample_id']}.db"
            reuse = path.exists()
            mem = Memory(path, embedder=emb)
            t0 = time.perf_counter()
            if not reuse:
                n_turns += len(turns)
                for session, date, tid, text in turns:
                    mem.remember(text, session=session, when=date, source=tid, role="user")
            ingest_s += time.perf_counter() - t0
            turn_vecs = np.asarray(emb.embed_batch([t[3] for t in turns]), dtype=np.float32)
            for qa in conv["qa"]:
                cat = qa.get("category")
                if cat not in CATEGORIES or not qa.get("evidence"):
                    continue
                q = qa["question"]
                ev = [e.strip() for e in qa["evidence"] if e.strip()]
                t0 = time.perf_counter()
                hits = mem.recall(q, k=40, recipe=args.recipe)
                query_s += time.perf_counter() - t0
                n_q += 1
                ranked = {"engine": dedupe_sources([h.source for h in hits], 10)}
                ranked["bm25"] = bm25_rank(turns, q, 10)
                qv = np.asarray(emb.embed_batch([q])[0], dtype=np.float32)
                order = np.argsort(-(turn_vecs @ qv))[:10]
                ranked["dense"] = [turns[i][2] for i in order]
                for s in systems:
                    f5, _ = score(ranked[s], ev, 5)
                    f10, a10 = score(ranked[s], ev, 10)
                    res[s][cat].append((f5, f10, a10))
            mem.close()
    rows = []
    for s in systems:
        for cat in sorted(CATEGORIES):
            vals = res[s][cat]
            if vals:
                mean = np.mean(vals, axis=0).tolist()
                rows.append([s, f"{cat} {CATEGORIES[cat]}", len(vals), *mean])
        allv = [v for cat in res[s] for v in res[s][cat]]
        rows.append([s, "overall", len(allv), *np.mean(allv, axis=0).tolist()])
    n_all = sum(len(turns_of(c)) for c in convs)
    print(f"LoCoMo evidence recall: {len(convs)} conversations, {n_all} turns, "
          f"{n_q} questions (categories 1-4)")
    print(table(["system", "category", "n", "frac@5", "frac@10", "all@10"], rows))
    if n_turns:
        print(f"engine ingest: {n_turns / ingest_s:.1f} turns/s")
    print(f"engine recall: mean {1000 * query_s / max(n_q, 1):.1f} ms per question")


if __name__ == "__main__":
    main()
