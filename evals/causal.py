"""Evaluate `Memory.why` on the causal cases, against plain recall, in one busy memory.

Run from the repository root:

    python -m evals.causal --data ../shared/data/causal-cases/causal_cases.jsonl \\
        --data ../shared/data/causal-cases/causal_cases_batch2.jsonl [--sweep]

Two protocols, each building one memory file with the packaged embedding model, each fact one
``remember`` call:

- ``one project`` (the default, first): every case goes into ONE project, the busy memory of
  one long-lived repository; each case's sessions are their own sessions
  (``<case id>/<session>``). Stories share vocabulary ("the server", "the customer", "the
  bank") and the write path may link any fact to any other. ``--interleave SEED`` shuffles
  the order of sessions across cases (each case keeps its own session order; four stories
  in progress at once), so stories overlap in time as they do in a repository where several
  threads of work run at once.
- ``per project`` (the old protocol, second line): each case is its own project
  (``case:<id>``), so links never cross stories; questions asked scoped to the project and
  over all projects.

Each question is asked through ``why`` (k=3) and through plain ``recall`` (top 10; hybrid,
BM25 and dense recipes) as the baseline. Rows under each system: the non-English cases,
then each language.

Metrics, per question (then averaged, overall and over the non-English cases):
  root@1     the first root cause (why) / first hit (recall) is gold_chain[0]
  root@3     gold_chain[0] is among the first three roots / hits
  chain      share of gold_chain facts found in the returned chains (why: the steps of all
             returned chains; recall: the top-10 hits)
  ans@1      gold_answer (casefolded) is contained in the first root / first hit
  ans        gold_answer is contained anywhere in the returned output (why: all chain
             steps; recall: the top-10 hits)

``-v`` lists the cases whose gold root ``why`` does not rank first, with the gold root's rank
and the case the first root came from (another story's fact, in one project, is a link that
crossed stories).

``--sweep`` measures the join threshold: for every ordered pair of facts inside a case it
scores "A is a cause of B" exactly as the write path does (``causal_links.link_score`` on the
stored spans and vectors); pairs that are consecutive in the gold chain are positives, every
other pair (reversed, skipping a step, distractors) a negative. It prints precision, recall
and F1 of the link decision per threshold.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reasongraph_mcp.memory import Memory

from evals.common import peak_rss_mb, require, shared_embedder, table


@dataclass
class Case:
    id: str
    lang: str
    sessions: dict[str, list[str]]
    question: str
    gold_chain: list[str]
    gold_answer: str
    ids: dict[str, int] = field(default_factory=dict)  # fact text -> id

    @property
    def project(self) -> str:
        return f"case:{self.id}"


def load_cases(paths: Sequence[str], split: str | None = None) -> list[Case]:
    cases = []
    for path in paths:
        for line in require(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                if split is not None and d.get("split", "dev") != split:
                    continue
                cases.append(
                    Case(d["id"], d.get("lang", "en"), d["sessions"], d["question"],
                         d["gold_chain"], d["gold_answer"])
                )
    return cases


def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().replace("’", "'").split())


@dataclass
class Score:
    n: int = 0
    root1: float = 0.0
    root3: float = 0.0
    chain: float = 0.0
    ans1: float = 0.0
    ans: float = 0.0

    def add(self, gold: list[int], answer: str, ranked: list[int], found: set[int],
            texts: dict[int, str]) -> None:
        self.n += 1
        self.root1 += bool(ranked[:1]) and ranked[0] == gold[0]
        self.root3 += gold[0] in ranked[:3]
        self.chain += len(set(gold) & found) / len(gold)
        a = _fold(answer)
        self.ans1 += bool(ranked[:1]) and a in _fold(texts.get(ranked[0], ""))
        self.ans += any(a in _fold(texts.get(f, "")) for f in found)

    def row(self, name: str) -> list[object]:
        n = self.n or 1
        return [name, self.n, self.root1 / n, self.root3 / n, self.chain / n, self.ans1 / n,
                self.ans / n]


HEADERS = ["system", "n", "root@1", "root@3", "chain", "ans@1", "ans"]


ONE_PROJECT = "repo"
CONCURRENT = 4  # --interleave: stories in progress at once (the next session is one of theirs)


def load(mem: Memory, cases: list[Case], one_project: bool, interleave: int | None) -> None:
    """Write every fact; in one project, sessions are ``<case>/<session>`` (in file order, or
    shuffled across cases with ``interleave`` as the seed, each case keeping its order)."""
    for case in cases:
        case.ids.clear()
    order = [(case, session) for case in cases for session in case.sessions]
    if interleave is not None:
        rng = random.Random(interleave)
        pending = [[(c, s) for s in c.sessions] for c in cases]
        running: list[list[tuple[Case, str]]] = []
        order = []
        while pending or running:
            while pending and len(running) < CONCURRENT:
                running.append(pending.pop(0))
            q = rng.choice(running)
            order.append(q.pop(0))
            if not q:
                running.remove(q)
    for case, session in order:
        for fact in case.sessions[session]:
            if one_project:
                ids = mem.remember(fact, project=ONE_PROJECT, session=f"{case.id}/{session}")
            else:
                ids = mem.remember(fact, project=case.project, session=session)
            case.ids[fact] = ids[0]


def evaluate(
    mem: Memory, cases: list[Case], k: int, one_project: bool, misses: list[str] | None = None
) -> list[list[object]]:
    """The table rows; with ``misses``, one line per case whose gold root ``why`` (the first
    why system) does not rank first: case, language, the gold root's rank (``-`` = not
    returned) and the first root returned."""
    systems: dict[str, Callable[[Case], tuple[list[int], set[int]]]] = {}

    def why(scoped: bool) -> Callable[[Case], tuple[list[int], set[int]]]:
        def run(case: Case) -> tuple[list[int], set[int]]:
            project = (ONE_PROJECT if one_project else case.project) if scoped else None
            causes = mem.why(case.question, k=k, project=project)
            return [c.id for c in causes], {s.id for c in causes for s in c.chain}
        return run

    def rec(recipe: str, scoped: bool) -> Callable[[Case], tuple[list[int], set[int]]]:
        def run(case: Case) -> tuple[list[int], set[int]]:
            project = (ONE_PROJECT if one_project else case.project) if scoped else None
            hits = mem.recall(case.question, k=10, recipe=recipe, project=project)
            return [h.id for h in hits], {h.id for h in hits}
        return run

    if one_project:
        systems["why (one project)"] = why(True)
        for recipe in ("hybrid", "bm25", "dense"):
            systems[f"recall {recipe} (one project)"] = rec(recipe, True)
    else:
        systems["why (per project)"] = why(True)
        systems["why (per project, asked over all)"] = why(False)
        for recipe in ("hybrid", "bm25", "dense"):
            systems[f"recall {recipe} (per project)"] = rec(recipe, True)
    texts = {fid: text for c in cases for text, fid in c.ids.items()}
    rows: list[list[object]] = []
    for name, run in systems.items():
        overall, foreign = Score(), Score()
        langs: dict[str, Score] = {}
        start = time.perf_counter()
        for case in cases:
            gold = [case.ids[t] for t in case.gold_chain]
            ranked, found = run(case)
            if misses is not None and name == next(iter(systems)) and ranked[:1] != gold[:1]:
                rank = ranked.index(gold[0]) + 1 if gold[0] in ranked else "-"
                first = texts.get(ranked[0], f"#{ranked[0]}") if ranked else "(nothing)"
                owner = next((c.id for c in cases if ranked and ranked[0] in c.ids.values()), "?")
                misses.append(f"  {case.id} ({case.lang}) gold root at {rank}; first: "
                              f"[{owner}] {first[:70]}")
            overall.add(gold, case.gold_answer, ranked, found, texts)
            if case.lang != "en":
                foreign.add(gold, case.gold_answer, ranked, found, texts)
                langs.setdefault(case.lang, Score()).add(
                    gold, case.gold_answer, ranked, found, texts
                )
        ms = (time.perf_counter() - start) * 1000 / max(1, len(cases))
        rows.append([*overall.row(name), f"{ms:.0f}"])
        if foreign.n:
            rows.append([*foreign.row("  non-English"), ""])
        if name.startswith("why"):
            rows += [[*langs[lang].row(f"    {lang}"), ""] for lang in sorted(langs)]
    return rows


def sweep(mem: Memory, cases: list[Case]) -> list[list[object]]:
    """Precision/recall/F1 of the link decision per threshold (see the module docstring)."""
    from reasongraph_mcp.memory.causal import links as causal_links
    from reasongraph_mcp.memory.storage.connection import unpack_vector

    store = mem.store
    scored: list[tuple[float, bool]] = []
    for case in cases:
        ids = sorted(set(case.ids.values()))
        rows = store.facts(ids)
        spans = store.causal_assertions(ids)
        blobs = store.fact_vectors(ids)
        nodes = {
            f: causal_links._node(
                f, rows[f].text, unpack_vector(blobs[f]) if f in blobs else None,
                spans.get(f, []),
            )
            for f in ids
        }
        gold = [case.ids[t] for t in case.gold_chain]
        positives = set(zip(gold, gold[1:], strict=False))
        for a in ids:
            for b in ids:
                if a == b or (nodes[a].plain and nodes[b].plain):
                    if a != b and (a, b) in positives:
                        scored.append((0.0, True))  # unlinkable by design: no cue on either side
                    continue
                s_ab = causal_links.link_score(nodes[a], nodes[b])[0]
                s_ba = causal_links.link_score(nodes[b], nodes[a])[0]
                # the write path keeps only the better direction of a pair
                scored.append((s_ab if s_ab >= s_ba else 0.0, (a, b) in positives))
    total_pos = sum(p for _, p in scored)
    out = []
    for t in [x / 100 for x in range(35, 85, 5)]:
        tp = sum(1 for s, p in scored if p and s >= t)
        fp = sum(1 for s, p in scored if not p and s >= t)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / total_pos if total_pos else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        out.append([f"{t:.2f}", tp, fp, total_pos, prec, rec, f1])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", action="append", required=True, help="a causal_cases JSONL file")
    ap.add_argument("--db", help="memory file to build (default: a temporary one)")
    ap.add_argument("--k", type=int, default=3, help="root causes asked of why (default 3)")
    ap.add_argument("--sweep", action="store_true", help="also measure the join threshold")
    ap.add_argument("--embed-model", help="embedding model (default: the packaged MiniLM)")
    ap.add_argument("--protocol", choices=("both", "one", "per-project"), default="both",
                    help="one project (the default measure), per project (the old one), both")
    ap.add_argument("--interleave", type=int, metavar="SEED",
                    help="one project: shuffle sessions across cases with this seed")
    ap.add_argument("--split", help="only the cases whose 'split' is this (dev, held_out)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list the cases whose gold root why does not rank first")
    ap.add_argument("--background", action="append", default=[],
                    help="a causal_cases JSONL file whose facts are written first, not asked")
    args = ap.parse_args(argv)
    cases = load_cases(args.data, args.split)
    background = load_cases(args.background)
    emb = shared_embedder(args.embed_model)
    protocols = {"both": (True, False), "one": (True,), "per-project": (False,)}[args.protocol]
    for one_project in protocols:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(args.db) if args.db else Path(tmp) / "causal.db"
            with Memory(path, embedder=emb) as mem:
                start = time.perf_counter()
                if background:
                    load(mem, background, one_project, args.interleave if one_project else None)
                load(mem, cases, one_project, args.interleave if one_project else None)
                secs = time.perf_counter() - start
                status = mem.status()
                label = "ONE project" + (
                    f" (sessions interleaved, seed {args.interleave})"
                    if args.interleave is not None else ""
                ) if one_project else "one project PER CASE"
                print(
                    f"\n== {label}: {len(cases)} cases "
                    f"({sum(c.lang != 'en' for c in cases)} non-English), {status.facts} facts, "
                    f"{status.links} causal links, {status.projects} projects, {secs:.1f} s"
                )
                misses: list[str] | None = [] if args.verbose else None
                rows = evaluate(mem, cases, args.k, one_project, misses)
                print(table([*HEADERS, "ms/q"], rows))
                if misses:
                    print(f"\ngold root not first ({len(misses)}):")
                    print("\n".join(misses))
                if args.sweep:
                    print("\njoin threshold sweep (ordered fact pairs within each case):")
                    print(table(["threshold", "tp", "fp", "pos", "precision", "recall", "F1"],
                                sweep(mem, cases)))
            if args.db:
                break  # one file given: one protocol
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
