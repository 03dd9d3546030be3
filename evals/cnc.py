"""Evaluate the rule-based causal extractor on the Causal News Corpus (CNC) dev split.

Run from the repository root:

    python -m evals.cnc --data ../shared/data/causal-news-corpus

Two systems are scored in the same run: ours (`memory.extract.causal.RuleCausalExtractor`) and a
naive cue baseline that splits a sentence at the first cue word of a small list and assigns the
sides by a fixed direction table. Only the standard library and our module are used, so the
numbers are reproducible anywhere the package imports.

Subtask 1 (sentence classification): a sentence is predicted causal iff the system returns at
least one span; precision, recall and F1 of the causal class against `label`.

Subtask 2 (span extraction), on the gold causal relations of dev_subtask2.csv: see METRICS below
(also printed with the results).
"""

from __future__ import annotations

import argparse
import csv
import re
import string
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from reasongraph_mcp.memory.causal.cues import RuleCausalExtractor

METRICS = """\
Metric definitions (subtask 2)
  tokens     lowercase, split on whitespace, punctuation-only tokens dropped
  token F1   2PR/(P+R) over the token multisets of a predicted and a gold span
  matching   each gold relation (ARG0 cause, ARG1 effect; <SIGx> tags removed) is matched to the
             predicted (cause, effect) pair of the same sentence that maximises
             (F1_cause + F1_effect) / 2; a gold relation with no prediction scores 0
  cause/effect/mean F1   averages over all gold relations of the per-span token F1
  mean|pred  the same mean F1, only over gold relations whose sentence got >= 1 prediction
  coverage   share of gold relations whose sentence got >= 1 prediction
  exact P/R/F1  a predicted pair is exact when both spans equal a gold pair of its sentence
             after lowercasing and stripping punctuation; P = exact predictions / predictions
             on causal sentences, R = gold relations matched exactly / gold relations
"""

Span = tuple[str, str]  # (cause, effect)
System = Callable[[str], list[Span]]

_TAG = re.compile(r"</?(?:ARG0|ARG1|SIG\d+)>")
_PUNCT = set(string.punctuation) | set("“”‘’«»„–—…")


@dataclass(frozen=True)
class Relation:
    """One gold relation of a CNC sentence."""

    cause: str
    effect: str


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def _between(text: str, tag: str) -> str:
    m = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.S)
    return _TAG.sub("", m.group(1)).strip() if m else ""


def tokens(text: str) -> list[str]:
    """Lowercased whitespace tokens, punctuation stripped, punctuation-only tokens dropped."""
    out = []
    for tok in text.lower().split():
        tok = tok.strip("".join(_PUNCT))
        if tok:
            out.append(tok)
    return out


def token_f1(pred: str, gold: str) -> float:
    """Token-multiset F1 between two spans (0 when either is empty)."""
    p, g = Counter(tokens(pred)), Counter(tokens(gold))
    common = sum((p & g).values())
    if not common:
        return 0.0
    precision, recall = common / sum(p.values()), common / sum(g.values())
    return 2 * precision * recall / (precision + recall)


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


# -- systems -----------------------------------------------------------------------------------

def ours() -> System:
    extractor = RuleCausalExtractor()

    def run(sentence: str) -> list[Span]:
        return [(s.cause, s.effect) for s in extractor.extract(sentence)]

    return run


_BASELINE_CUES: tuple[tuple[str, str], ...] = (
    # (cue, direction): "fwd" = text before is the cause, "bwd" = text before is the effect.
    ("because of", "bwd"), ("because", "bwd"), ("due to", "bwd"), ("as a result of", "bwd"),
    ("since", "bwd"), ("after", "bwd"), ("following", "bwd"), ("as", "bwd"), ("for", "bwd"),
    ("led to", "fwd"), ("leading to", "fwd"), ("caused", "fwd"), ("causing", "fwd"),
    ("resulted in", "fwd"), ("triggered", "fwd"), ("so", "fwd"), ("therefore", "fwd"),
)
_BASELINE_RE = re.compile(
    r"\b(" + "|".join(re.escape(c) for c, _ in _BASELINE_CUES) + r")\b", re.IGNORECASE
)
_BASELINE_DIR = dict(_BASELINE_CUES)


def baseline(sentence: str) -> list[Span]:
    """Split at the first cue word; direction from a fixed table."""
    m = _BASELINE_RE.search(sentence)
    if m is None:
        return []
    before, after = sentence[: m.start()].strip(), sentence[m.end() :].strip()
    if not before or not after:
        return []
    if _BASELINE_DIR[m.group(1).lower()] == "fwd":
        return [(before, after)]
    return [(after, before)]


# -- scoring -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scores:
    st1: tuple[float, float, float]
    cause: float
    effect: float
    mean: float
    mean_given_pred: float
    coverage: float
    exact: tuple[float, float, float]
    ms_per_sentence: float


def score(
    system: System,
    st1_rows: list[dict[str, str]],
    gold: dict[str, list[Relation]],
) -> Scores:
    tp = fp = fn = 0
    started = time.perf_counter()
    for row in st1_rows:
        predicted = bool(system(row["text"]))
        actual = row["label"].strip() == "1"
        tp += predicted and actual
        fp += predicted and not actual
        fn += actual and not predicted
    elapsed = time.perf_counter() - started

    cause_sum = effect_sum = 0.0
    covered = covered_sum = 0.0
    n_gold = exact_gold = exact_pred = n_pred = 0
    for text, relations in gold.items():
        preds = system(text)
        n_pred += len(preds)
        norm_gold = {(" ".join(tokens(r.cause)), " ".join(tokens(r.effect))) for r in relations}
        exact_pred += sum((" ".join(tokens(c)), " ".join(tokens(e))) in norm_gold for c, e in preds)
        for rel in relations:
            n_gold += 1
            best = (0.0, 0.0)
            for c, e in preds:
                pair = (token_f1(c, rel.cause), token_f1(e, rel.effect))
                if sum(pair) > sum(best):
                    best = pair
            cause_sum += best[0]
            effect_sum += best[1]
            if preds:
                covered += 1
                covered_sum += sum(best) / 2
            key = (" ".join(tokens(rel.cause)), " ".join(tokens(rel.effect)))
            exact_gold += any((" ".join(tokens(c)), " ".join(tokens(e))) == key for c, e in preds)
    ep = exact_pred / n_pred if n_pred else 0.0
    er = exact_gold / n_gold if n_gold else 0.0
    ef = 2 * ep * er / (ep + er) if ep + er else 0.0
    return Scores(
        st1=_prf(tp, fp, fn),
        cause=cause_sum / n_gold,
        effect=effect_sum / n_gold,
        mean=(cause_sum + effect_sum) / (2 * n_gold),
        mean_given_pred=covered_sum / covered if covered else 0.0,
        coverage=covered / n_gold,
        exact=(ep, er, ef),
        ms_per_sentence=1000 * elapsed / max(1, len(st1_rows)),
    )


def load_gold(rows: Iterable[dict[str, str]]) -> dict[str, list[Relation]]:
    """Gold causal relations grouped by sentence text."""
    gold: dict[str, list[Relation]] = defaultdict(list)
    for row in rows:
        if row.get("pair_label", row.get("seq_label", "1")).strip() != "1":
            continue
        marked = row["text_w_pairs"]
        cause, effect = _between(marked, "ARG0"), _between(marked, "ARG1")
        if cause and effect:
            gold[row["text"]].append(Relation(cause, effect))
    return dict(gold)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/causal-news-corpus"))
    parser.add_argument("--split", default="dev", help="dev (report) or train (tuning)")
    args = parser.parse_args(argv)

    st1_rows = _read(args.data / f"{args.split}_subtask1.csv")
    gold = load_gold(_read(args.data / f"{args.split}_subtask2.csv"))
    n_rel = sum(len(v) for v in gold.values())
    print(f"CNC {args.split}: subtask 1 = {len(st1_rows)} sentences; "
          f"subtask 2 = {len(gold)} causal sentences, {n_rel} gold relations\n")
    print(METRICS)
    systems = {"ours (rules)": ours(), "naive cue baseline": baseline}
    results = {name: score(fn, st1_rows, gold) for name, fn in systems.items()}

    header = (f"{'system':<20} {'st1 P':>6} {'st1 R':>6} {'st1 F1':>6} | {'cause':>6} "
              f"{'effect':>6} {'mean':>6} {'mean|pred':>9} {'cover':>6} | {'EM P':>6} "
              f"{'EM R':>6} {'EM F1':>6} | {'ms/sent':>7}")
    print(header)
    print("-" * len(header))
    for name, s in results.items():
        print(f"{name:<20} {s.st1[0]:>6.3f} {s.st1[1]:>6.3f} {s.st1[2]:>6.3f} | {s.cause:>6.3f} "
              f"{s.effect:>6.3f} {s.mean:>6.3f} {s.mean_given_pred:>9.3f} {s.coverage:>6.3f} | "
              f"{s.exact[0]:>6.3f} {s.exact[1]:>6.3f} {s.exact[2]:>6.3f} | "
              f"{s.ms_per_sentence:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
