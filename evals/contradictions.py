"""Evaluate contradiction detection on write: does a newer fact supersede an older one?

Run from the repository root:

    python -m evals.contradictions --data ../shared/data/causal-cases/contradictions.jsonl
    python -m evals.contradictions --data evals/data/coding_updates.jsonl \
        ../shared/data/causal-cases/contradictions.jsonl --split dev

Each line of the data is a pair ``{"old", "new", "label", "kind"}`` with an optional
``"split"`` (``"dev"`` / ``"held_out"``); ``label`` is true (or ``"update"``) when ``new`` makes
``old`` out of date and false (or ``"complement"``) when both stay true. ``--split`` keeps the
pairs of that split; pairs without one (the shared generic set) are always kept. Scores are
printed per file and, for ours, per kind (beside the cosine baseline at ``--threshold``).

Two systems are scored in the same run, on the same embeddings:

* **ours**: the real write path. For each pair, in a fresh project of one real ``Memory``
  file with the packaged model: ``remember(old)``, then ``remember(new)``; predicted
  positive iff ``old`` is then superseded (read back from its ``history``).
* **busy** (``--busy``): every pair in ONE project, old facts first, as a long-lived
  repository holds them; a new fact that retires another pair's fact is a stray false
  positive, and the own-pair precision is reported with the strays counted.
* **baseline**: naive embedding similarity. Predicted positive iff the cosine similarity of
  the two sentences is at least ``--threshold`` (default 0.5). The best threshold in
  hindsight is printed as well; it is tuned on the test pairs, so it flatters the baseline.

Precision, recall and F1 are of the positive (update) class.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.common import require, shared_embedder, table


@dataclass(frozen=True)
class Pair:
    old: str
    new: str
    label: bool
    kind: str
    split: str = ""
    source: str = ""


@dataclass(frozen=True)
class Scores:
    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


_LABELS = {"update": True, "complement": False, "true": True, "false": False}


def _label(value: object) -> bool:
    if isinstance(value, str):
        if value.lower() not in _LABELS:
            raise ValueError(f"unknown label {value!r}")
        return _LABELS[value.lower()]
    return bool(value)


def load(path: Path, split: str | None = None) -> list[Pair]:
    """The pairs of one file; with ``split``, only that split's (and those without one)."""
    pairs = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        rec = json.loads(line)
        try:
            pair = Pair(
                rec["old"],
                rec["new"],
                _label(rec["label"]),
                rec.get("kind", ""),
                rec.get("split", ""),
                path.name,
            )
        except (KeyError, ValueError) as exc:
            raise SystemExit(f"{path}:{n}: bad field {exc}") from None
        if split is None or split == "all" or not pair.split or pair.split == split:
            pairs.append(pair)
    return pairs


def score(labels: Sequence[bool], predicted: Sequence[bool]) -> Scores:
    pairs = list(zip(labels, predicted, strict=True))
    return Scores(
        tp=sum(g and p for g, p in pairs),
        fp=sum(p and not g for g, p in pairs),
        fn=sum(g and not p for g, p in pairs),
        tn=sum(not g and not p for g, p in pairs),
    )


def run_ours(pairs: Sequence[Pair], embedder) -> list[bool]:  # type: ignore[no-untyped-def]
    """The real write path: one Memory file, one fresh project per pair."""
    from reasongraph_mcp.memory import Memory

    out = []
    with tempfile.TemporaryDirectory(prefix="reasongraph-contradictions-") as tmp:
        with Memory(Path(tmp) / "memory.db", embedder=embedder) as mem:
            for i, pair in enumerate(pairs):
                project = f"/eval/contradictions/{i}"
                old_ids = mem.remember(pair.old, project=project, session=f"s{i}-old")
                mem.remember(pair.new, project=project, session=f"s{i}-new")
                old = old_ids[0]
                events = mem.history(old)
                out.append(any(e.action == "supersede" and e.fact_id == old for e in events))
    return out


@dataclass(frozen=True)
class Busy:
    """One busy project: every old fact written first, then every new one."""

    predicted: list[bool]  # new i superseded old i
    stray: list[tuple[str, str, str]]  # (new, old it superseded that is not its pair's, reason)


def run_busy(pairs: Sequence[Pair], embedder) -> Busy:  # type: ignore[no-untyped-def]
    """The write path as a long-lived repository meets it: all pairs in ONE project, so each
    new fact is compared with every current fact its words or entities reach. A supersession
    of any fact other than its own pair's old one is a stray (a false positive)."""
    from reasongraph_mcp.memory import Memory

    project = "/eval/contradictions/busy"
    with tempfile.TemporaryDirectory(prefix="reasongraph-contradictions-") as tmp:
        with Memory(Path(tmp) / "memory.db", embedder=embedder) as mem:
            old_ids: dict[str, set[int]] = {}
            text_of: dict[int, str] = {}
            for i, pair in enumerate(pairs):
                for fid in mem.remember(pair.old, project=project, session=f"old-{i}"):
                    old_ids.setdefault(pair.old, set()).add(fid)
                    text_of[fid] = pair.old
            predicted, stray = [], []
            for i, pair in enumerate(pairs):
                res = mem.remember_detailed(pair.new, project=project, session=f"new-{i}")
                own = old_ids.get(pair.old, set())
                hit = False
                for rev in res.superseded:
                    if rev.old in own:
                        hit = True
                    else:
                        stray.append((pair.new, text_of.get(rev.old, f"#{rev.old}"), rev.reason))
                predicted.append(hit)
    return Busy(predicted, stray)


def cosines(pairs: Sequence[Pair], embedder) -> list[float]:  # type: ignore[no-untyped-def]
    vecs = embedder.embed_batch([t for p in pairs for t in (p.old, p.new)])
    out = []
    for i in range(0, len(vecs), 2):
        a, b = vecs[i], vecs[i + 1]
        dot = sum(x * y for x, y in zip(a, b, strict=True))
        norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
        out.append(dot / norm if norm else 0.0)
    return out


def _breakdown(
    pairs: Sequence[Pair],
    ours: Sequence[bool],
    base: Sequence[bool],
    key: Callable[[Pair], str],
    title: str,
) -> str:
    """P / R / F1 of ours and of the baseline per group (a file, or a kind within a file)."""
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        groups.setdefault(key(p), []).append(i)
    rows = []
    for name in sorted(groups):
        idx = groups[name]
        gold = [pairs[i].label for i in idx]
        a = score(gold, [ours[i] for i in idx])
        b = score(gold, [base[i] for i in idx])
        rows.append(
            (
                name,
                len(idx),
                a.precision,
                a.recall,
                a.f1,
                a.tp,
                a.fp,
                a.fn,
                a.tn,
                b.precision,
                b.recall,
                b.f1,
            )
        )
    head = (title, "n", "P", "R", "F1", "tp", "fp", "fn", "tn", "base P", "base R", "base F1")
    return table(head, rows)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data", nargs="+", default=["../shared/data/causal-cases/contradictions.jsonl"]
    )
    ap.add_argument(
        "--split",
        default="all",
        help="dev / held_out / held_out2 / all (pairs without a split: always)",
    )
    ap.add_argument("--threshold", type=float, default=0.5, help="baseline cosine threshold")
    ap.add_argument("--model", default=None, help="embedding model (default: the packaged one)")
    ap.add_argument("--show", action="store_true", help="print every pair and both predictions")
    ap.add_argument(
        "--busy",
        action="store_true",
        help="also write every pair into ONE project and count stray supersessions",
    )
    args = ap.parse_args(argv)

    pairs = [p for path in args.data for p in load(require(path), args.split)]
    t0 = time.perf_counter()
    embedder = shared_embedder(args.model)
    load_s = time.perf_counter() - t0
    labels = [p.label for p in pairs]

    t0 = time.perf_counter()
    ours = run_ours(pairs, embedder)
    ours_s = time.perf_counter() - t0
    sims = cosines(pairs, embedder)
    base = [s >= args.threshold for s in sims]
    best_t, best = max(
        ((t, score(labels, [s >= t for s in sims])) for t in sorted(set(sims))),
        key=lambda x: (x[1].f1, -x[0]),
    )

    rows = []
    for name, sc in (
        ("ours (write path)", score(labels, ours)),
        (f"baseline cosine >= {args.threshold:.2f}", score(labels, base)),
        (f"baseline, best threshold {best_t:.3f} (hindsight)", best),
    ):
        rows.append((name, sc.precision, sc.recall, sc.f1, sc.tp, sc.fp, sc.fn, sc.tn))
    print(
        f"contradiction detection: {len(pairs)} pairs ({sum(labels)} updates, "
        f"{len(labels) - sum(labels)} complements) from {', '.join(args.data)} "
        f"(split: {args.split})"
    )
    print(f"embedder: {embedder.name} (loaded in {load_s:.1f}s); ours ran in {ours_s:.1f}s\n")
    print(table(("system", "precision", "recall", "F1", "tp", "fp", "fn", "tn"), rows))
    print()
    print(_breakdown(pairs, ours, base, lambda p: p.source, "file"))
    print()
    print(_breakdown(pairs, ours, base, lambda p: f"{p.source}: {p.kind}", "kind"))

    if args.busy:
        t0 = time.perf_counter()
        busy = run_busy(pairs, embedder)
        sc = score(labels, busy.predicted)
        n_strays = len(busy.stray)
        print(
            f"\none busy project ({time.perf_counter() - t0:.1f}s): own pair P {sc.precision:.3f} "
            f"R {sc.recall:.3f} (tp {sc.tp} fp {sc.fp} fn {sc.fn}); stray supersessions of "
            f"other pairs' facts: {n_strays}; P counting strays "
            f"{sc.tp / max(1, sc.tp + sc.fp + n_strays):.3f}"
        )
        for new, old, reason in busy.stray:
            print(f"  stray: {old!r} <- {new!r} ({reason})")

    misses = [(p, o, s) for p, o, s in zip(pairs, ours, sims, strict=True) if o != p.label]
    if misses or args.show:
        print("\nours: errors" if not args.show else "\nall pairs")
        for p, o, s in zip(pairs, ours, sims, strict=True):
            if args.show or o != p.label:
                mark = "ok " if o == p.label else ("FP " if o else "FN ")
                print(
                    f"  {mark} gold={p.label!s:5} ours={o!s:5} cos={s:.2f} [{p.kind}] "
                    f"{p.old!r} -> {p.new!r}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
