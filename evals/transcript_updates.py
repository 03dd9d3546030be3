"""Evaluate the write path's supersessions where they happen: on the stored transcripts.

Run from the repository root:

    python -m evals.transcript_updates --data ../shared/data/scenarios/dev.jsonl \
        --data ../shared/data/scenarios/dev2.jsonl --labels evals/data/transcript_updates.jsonl

The pair sets (``evals.contradictions``) ask whether one new sentence retires one old one.
In use, every sentence of every captured exchange is compared with the project's current
facts, and most of what an agent says continues a story rather than changes it: a result, a
next step, a detail. This replays each scenario's sessions into a fresh store, as the hooks
capture them, and lists every fact the write path retired, with its rule and the roles and
sessions of the two sentences.

Labels (``--labels``, JSON lines ``{"scenario", "old", "new", "label", "why"}``) say whether
each retirement is right: ``update`` (the new sentence makes the old no longer current) or
``not`` (both still hold: a continuation, another attribute, an event). ``old`` and ``new``
are the first 12 hex digits of the SHA-256 of each sentence, so the file holds no text of the
data it labels. Precision is ``update / (update + not)``; a retirement with no label is
counted apart and listed with ``--show-unlabelled`` (label it before trusting a figure).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reasongraph_mcp.hooks import common as hook_common

from evals.common import require, shared_embedder, table


@dataclass(frozen=True)
class Retired:
    scenario: str
    old: str
    new: str
    reason: str
    roles: str  # "assistant->assistant"
    same_session: bool


def digest(text: str) -> str:
    """A label's key for one sentence: the first 12 hex digits of its SHA-256."""
    return hook_common.digest(text, 12)


def rule_of(reason: str) -> str:
    """The rule named by a supersession's reason ("changed (cue 'now', ...)" -> "changed")."""
    head = re.split(r"[(:'\"]", reason, maxsplit=1)[0].strip()
    return head or "?"


def replay(scenario: dict, embedder) -> list[Retired]:  # type: ignore[no-untyped-def]
    """Capture the scenario's sessions into a fresh store; every fact the write path retired."""
    from reasongraph_mcp.memory import Memory

    from evals.scenarios import capture_scenario

    with tempfile.TemporaryDirectory(prefix="rg-transcript-") as tmp:
        db = Path(tmp) / "memory.db"
        with Memory(db, embedder=embedder) as mem:
            capture_scenario(mem, db, scenario)
            rows = mem.store.conn.execute(
                "SELECT f.id, f.text, n.text, f.role, n.role, f.session, n.session "
                "FROM facts f JOIN facts n ON n.id = f.superseded_by "
                "WHERE f.status = 'superseded' ORDER BY f.id"
            ).fetchall()
            out = []
            for fid, old, new, orole, nrole, osess, nsess in rows:
                reason = next((e.reason or "" for e in mem.history(fid)
                               if e.action == "supersede" and e.fact_id == fid), "")
                out.append(Retired(scenario["id"], old, new, reason,
                                   f"{orole or '-'}->{nrole or '-'}", osess == nsess))
    return out


def load_labels(path: Path | None) -> dict[tuple[str, str, str], str]:
    if path is None:
        return {}
    out = {}
    for line in require(str(path)).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[(row["scenario"], row["old"], row["new"])] = row["label"]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", action="append", required=True, help="a scenarios file")
    parser.add_argument("--labels", type=Path, help="labels of retirements (see the docstring)")
    parser.add_argument("--show-unlabelled", action="store_true")
    args = parser.parse_args(argv)
    labels = load_labels(args.labels)
    embedder = shared_embedder()
    found: list[Retired] = []
    for path in args.data:
        for line in require(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                found += replay(json.loads(line), embedder)
    verdict = [labels.get((r.scenario, digest(r.old), digest(r.new))) for r in found]
    groups: dict[str, Counter] = {}
    for r, v in zip(found, verdict, strict=True):
        for key in ("all", f"rule {rule_of(r.reason)}", f"roles {r.roles}",
                    "same session" if r.same_session else "across sessions"):
            groups.setdefault(key, Counter())[v or "unlabelled"] += 1
    rows = []
    order = ("all", "rule", "roles", "same", "across")
    for key, c in sorted(groups.items(), key=lambda kv: (order.index(kv[0].split()[0]), kv[0])):
        judged = c["update"] + c["not"]
        rows.append([key, sum(c.values()), c["update"], c["not"], c["unsure"], c["unlabelled"],
                     c["update"] / judged if judged else float("nan")])
    pairs = len({(r.old, r.new) for r in found})
    print(f"{len(found)} facts retired on the transcripts of {len(args.data)} file(s) "
          f"({pairs} distinct pairs: a project's sessions recur across its scenarios)")
    print(table(["group", "retired", "update", "not", "unsure", "unlabelled", "precision"],
                rows))
    if args.show_unlabelled:
        for r, v in zip(found, verdict, strict=True):
            if v is None:
                print(json.dumps({"scenario": r.scenario, "old": digest(r.old),
                                  "new": digest(r.new), "reason": r.reason,
                                  "old_text": r.old[:160], "new_text": r.new[:160]},
                                 ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
