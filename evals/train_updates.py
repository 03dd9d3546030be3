"""Fit the last update rule (``memory.updates.learned``) and measure it file by file.

Run from the repository root:

    python -m evals.train_updates            # figures only
    python -m evals.train_updates --write    # and write memory/updates/update_model.json

Every labelled pair file is a group: the project's coding pairs (``evals/data/coding_updates
*.jsonl``) and the shared 40 generic pairs. A written pair always puts a statement beside the
fact it is about; a busy memory compares a note with every fact near it. With ``--strays N``
each new statement is also paired with the N old facts of OTHER pairs nearest to it, as
negatives (retiring one of those is the stray supersession ``evals.contradictions --busy``
counts): the model then loses what it gains, since the features cannot tell a neighbour on
another subject from the fact a statement is about. So the written model is fitted without
them, and the write path asks it only about the fact nearest to a deliberate note.

Each group's figure comes from a model fitted on the OTHER groups (leave one file out), so it
measures pairs the weights never saw, beside the rules with the hand-set rule the model
replaces (``shift.change_stated``) on the same pairs. The model is fitted on the pairs no other
rule decides (where it is asked at all); the written model is fitted on every group. A
logistic regression with an L2 penalty, by gradient descent in numpy (an eval dependency only:
the product reads the weights in plain Python).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from evals.common import shared_embedder, table
from evals.contradictions import Pair, load

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILES = [
    *sorted(str(p.relative_to(ROOT))
            for p in (ROOT / "evals" / "data").glob("coding_updates*.jsonl")),
    "../shared/data/causal-cases/contradictions.jsonl",
]
MODEL = ROOT / "memory" / "updates" / "update_model.json"
L2 = 1.0
THRESHOLD = 0.8  # chosen on the left-out figures: precision first, as every update rule
STRAYS = 0  # other pairs' old facts paired with each new statement (--strays: see above)
STRAY_FLOOR = 0.25  # the write path compares nothing less similar (ingest)
STRAY_WEIGHT = 0.25  # a mined stray counts this much of a written pair: some are updates too


def _vectors(texts: list[str], embedder) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    """Unit vectors of ``texts`` by the packaged embedder."""
    out: dict[str, np.ndarray] = {}
    for i in range(0, len(texts), 64):
        batch = texts[i:i + 64]
        for text, vec in zip(batch, embedder.embed_batch(batch), strict=True):
            v = np.asarray(vec, dtype=float)
            out[text] = v / (np.linalg.norm(v) or 1.0)
    return out


def _strays(pairs: list[Pair], vec: dict[str, np.ndarray], k: int) -> list[tuple[int, str, float]]:
    """For each pair, the ``k`` old facts of other pairs nearest its new statement (pair index,
    old text, cosine), at least ``STRAY_FLOOR`` similar."""
    olds = sorted({p.old for p in pairs})
    matrix = np.stack([vec[o] for o in olds])
    out = []
    for i, p in enumerate(pairs):
        sims = matrix @ vec[p.new]
        picked = 0
        for j in np.argsort(-sims):
            if picked == k or sims[j] < STRAY_FLOOR:
                break
            if olds[j] != p.old:
                out.append((i, olds[j], float(sims[j])))
                picked += 1
    return out


def fit(
    x: np.ndarray, y: np.ndarray, weight: np.ndarray, l2: float = L2, steps: int = 4000
) -> tuple[np.ndarray, float]:
    """Weighted logistic regression on standardised features; weights on the raw scale."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    w, b = np.zeros(z.shape[1]), 0.0
    total = float(weight.sum())
    for _ in range(steps):
        err = (1.0 / (1.0 + np.exp(-(z @ w + b))) - y) * weight
        w -= 0.5 * (z.T @ err / total + l2 * w / total)
        b -= 0.5 * float(err.sum() / total)
    return w / sd, float(b - (mu / sd) @ w)


def _pr(pred: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    tp = int((pred & y).sum())
    fp = int((pred & ~y).sum())
    fn = int((~pred & y).sum())
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


def main(argv: list[str] | None = None) -> int:
    from reasongraph_mcp.memory.updates import learned, shift
    from reasongraph_mcp.memory.updates.detect import FactView, detect_update

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", nargs="+", default=DEFAULT_FILES, help="labelled pair files")
    ap.add_argument("--write", action="store_true", help=f"write {MODEL.relative_to(ROOT)}")
    ap.add_argument("--threshold", type=float, default=THRESHOLD)
    ap.add_argument("--strays", type=int, default=STRAYS)
    ap.add_argument("--stray-weight", type=float, default=STRAY_WEIGHT)
    args = ap.parse_args(argv)

    pairs: list[Pair] = []
    group: list[str] = []
    for path in args.data:
        got = load(Path(path))
        pairs += got
        group += [Path(path).stem] * len(got)
    vec = _vectors(sorted({t for p in pairs for t in (p.old, p.new)}), shared_embedder())
    rows = [(p.old, p.new, p.label, g, False) for p, g in zip(pairs, group, strict=True)]
    rows += [(old, pairs[i].new, False, group[i], True)
             for i, old, _ in _strays(pairs, vec, args.strays)]
    cos = [float(vec[o] @ vec[n]) for o, n, *_ in rows]
    y = np.array([r[2] for r in rows])
    stray = np.array([r[4] for r in rows])
    weight = np.where(stray, args.stray_weight, 1.0)
    groups = np.array([r[3] for r in rows])
    ruled = np.array([detect_update(FactView(o), FactView(n), similarity=c, stated=False)
                      is not None for (o, n, *_), c in zip(rows, cos, strict=True)])
    hand = ruled | np.array([shift.change_stated(o, n, c) is not None
                             for (o, n, *_), c in zip(rows, cos, strict=True)])
    x = np.array([list(learned.features(o, n, c).values())
                  for (o, n, *_), c in zip(rows, cos, strict=True)])

    prob = np.zeros(len(rows))
    for g in dict.fromkeys(group):
        out = groups == g
        m = ~out & ~ruled
        w, b = fit(x[m], y[m].astype(float), weight[m])
        prob[out] = 1.0 / (1.0 + np.exp(-(x[out] @ w + b)))
    ours = ruled | (prob >= args.threshold)
    table_rows = []
    for g in [*dict.fromkeys(group), "all"]:
        m = (groups == g if g != "all" else np.ones(len(rows), bool))
        hp, hr = _pr(hand[m & ~stray], y[m & ~stray])
        lp, lr = _pr(ours[m & ~stray], y[m & ~stray])
        table_rows.append([g, int((m & ~stray).sum()), hp, hr, lp, lr,
                           int((hand & m & stray).sum()), int((ours & m & stray).sum())])
    print(f"{int((~stray).sum())} pairs and {int(stray.sum())} strays (other pairs' old facts "
          f"near a new statement); threshold {args.threshold}; each file by a model fitted "
          "on the others")
    print(table(["file", "pairs", "hand P", "hand R", "learned P", "learned R",
                 "hand strays", "learned strays"], table_rows))

    w, b = fit(x[~ruled], y[~ruled].astype(float), weight[~ruled])
    weights = {name: round(float(v), 4) for name, v in zip(learned.FEATURES, w, strict=True)}
    print("weights:", " ".join(f"{k}={v:+.2f}" for k, v in sorted(weights.items(),
                                                                   key=lambda kv: -abs(kv[1]))))
    if args.write:
        model = {
            "about": "memory.updates.learned: logistic weights over its features; "
                     "fitted by `python -m evals.train_updates --write`",
            "threshold": args.threshold,
            "bias": round(b, 4),
            "weights": weights,
            "fitted_on": {g: int(((groups == g) & ~stray).sum()) for g in dict.fromkeys(group)},
            "strays": int(stray.sum()),
            "left_out": {r[0]: {"precision": round(r[4], 3), "recall": round(r[5], 3),
                                "strays": r[7]} for r in table_rows},
        }
        MODEL.write_text(json.dumps(model, indent=1, ensure_ascii=False) + "\n",
                         encoding="utf-8")
        print(f"wrote {MODEL.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
