"""Can an encoder tell a negative probe from a positive one? The measure behind issue 18's
open item, "a relevance floor that holds on unseen data".

``python -m evals.negatives --data ../shared/data/scenarios/dev.jsonl --data ...`` embeds, per
scenario, the probe and every sentence of its project's stored turns (the sentences that hold
a ``must_recall`` string are the gold, those that hold a ``must_not_recall_as_current`` string
of a negative probe the distractors) and prints:

- AUC gold against distractor: how much closer a positive probe's gold sentence is to it than
  a negative probe's distractor is to its probe (0.5: no difference at all);
- AUC of the best sentence, positives over negatives: what any floor on the best cosine of a
  project can use;
- what such a floor costs: the share of positives whose best sentence it cuts, for a floor
  that empties a quarter, half, three quarters of the negatives.

``--embed-model packaged:use-multilingual-v3`` measures the optional multilingual encoder.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from reasongraph_mcp.hooks.common import project_root

from .common import require, shared_embedder, table
from .scenarios import norm

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def _project(cwd: str) -> str:
    return project_root(cwd, env={}, cwd="/")  # the hooks' own rule


def figures(scenario: dict[str, Any], embedder: Any) -> dict[str, Any] | None:
    """The probe's best cosine to any sentence of its project, and to the gold or the
    distractor sentences; None for a project with no sentence."""
    probe = scenario["probe"]
    project = _project(probe["cwd"])
    sentences = [s.strip() for sess in scenario["sessions"] if _project(sess["cwd"]) == project
                 for turn in sess["turns"]
                 for s in _SENTENCE.split(f"{turn['user']}\n{turn['assistant']}")
                 if len(s.strip()) > 8]
    if not sentences:
        return None
    vectors = np.array(embedder.embed_batch([probe["prompt"], *sentences]))
    cos = vectors[1:] @ vectors[0]
    negative = scenario["kind"] == "negative_no_memory"
    marked = scenario["must_not_recall_as_current" if negative else "must_recall"]
    idx = [i for i, s in enumerate(sentences) if any(norm(m) in norm(s) for m in marked)]
    return {"negative": negative, "best": float(cos.max()),
            "marked": float(cos[idx].max()) if idx else None}


def auc(higher: Sequence[float], lower: Sequence[float]) -> float:
    """The chance that a value of ``higher`` exceeds one of ``lower`` (ties count half)."""
    if not higher or not lower:
        return float("nan")
    wins = sum((h > v) + 0.5 * (h == v) for h in higher for v in lower)
    return wins / (len(higher) * len(lower))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.negatives", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, action="append", help="a scenario file")
    parser.add_argument("--embed-model", help="embedding model (default: the packaged MiniLM)")
    args = parser.parse_args(argv)
    embedder = shared_embedder(args.embed_model)
    rows = []
    for path in args.data:
        for line in require(path).read_text().splitlines():
            if line.strip() and (got := figures(json.loads(line), embedder)) is not None:
                rows.append(got)
    neg = [r for r in rows if r["negative"]]
    pos = [r for r in rows if not r["negative"]]
    print(f"{len(rows)} scenarios ({len(neg)} negative); embedder {embedder.name}")
    print(table(["measure", "AUC"], [
        ["gold sentence (positives) against distractor (negatives)",
         auc([r["marked"] for r in pos if r["marked"] is not None],
             [r["marked"] for r in neg if r["marked"] is not None])],
        ["best sentence, positives over negatives",
         auc([r["best"] for r in pos], [r["best"] for r in neg])],
    ]))
    floors = sorted(r["best"] for r in neg)
    cuts = []
    for share in (0.25, 0.5, 0.75):
        floor = floors[min(len(floors) - 1, int(share * len(floors)))] if floors else 0.0
        cut = sum(r["best"] < floor for r in pos) / max(1, len(pos))
        cuts.append([f"{share:.0%}", floor, cut])
    print()
    print(table(["negatives emptied", "floor on best cosine", "positives cut"], cuts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
