"""Replay the coding-agent memory scenarios through the real hooks and score them.

``python -m evals.scenarios --data ../shared/data/scenarios/dev.jsonl`` replays each
scenario (README.md in that folder defines the protocol and the scoring) on a fresh
temporary memory file with a warm hook service (``hook_service.HookService`` in this process,
with the packaged embedding model loaded once): for every turn it runs ``hooks/prepare.py``
then ``hooks/capture.py`` as subprocesses, exactly as a harness spawns them, with the
session's date in ``REASONGRAPH_NOW`` and its session id and cwd in the event; the service
drains the inbox; then ``prepare.py`` runs on the probe and its ``additionalContext`` is the
context that is scored. A BM25 top-K baseline over the stored turns is scored in the same
run.

``--background inprocess`` (the default for a pooled file) captures the sessions through
the same ``capture.run`` code path in this process, to keep a 150-session store short to
build; the probe always goes through the real hook subprocess. ``--fallback`` stops the
service before the probe, to score the hook's server-less FTS5 path.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from reasongraph_mcp.install import HOOK_FLAGS

from .common import require, shared_embedder, table

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "hooks"
MARKERS = ("superseded", "historical", "outdated", "obsolete", "stale", "deprecated",
           "no longer", "replaced by", "reverted", "formerly", "previously", "[old]")
STRICT = ("cross_project_isolation", "negative_no_memory")


# -- scoring (README.md of the scenario set) ---------------------------------------------------


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def score(scenario: dict[str, Any], context: str, unit: str = "line") -> dict[str, Any]:
    ctx = norm(context)
    recalled = [s for s in scenario["must_recall"] if norm(s) in ctx]
    raw_items = context.split("\n\n") if unit == "block" else context.splitlines()
    items = [norm(i) for i in raw_items if i.strip()]
    strict = scenario["kind"] in STRICT
    violations = []
    for s in scenario["must_not_recall_as_current"]:
        needle = norm(s)
        for item in items:
            if needle in item and (strict or not any(m in item for m in MARKERS)):
                violations.append(s)
                break
    return {
        "recalled": len(recalled),
        "wanted": len(scenario["must_recall"]),
        "missing": [s for s in scenario["must_recall"] if s not in recalled],
        "violations": violations,
        "passed": len(recalled) == len(scenario["must_recall"]) and not violations,
        "chars": len(context),
        "empty": not context.strip(),
    }


def report(name: str, scenarios: list[dict[str, Any]], results: list[dict[str, Any]]) -> str:
    by_kind: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for s, r in zip(scenarios, results, strict=True):
        by_kind[s["kind"]].append((s, r))
    rows = []

    def row(label: str, pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[object]:
        rs = [r for _, r in pairs]
        wanted = sum(r["wanted"] for r in rs)
        negatives = [r for s, r in pairs if s["kind"] == "negative_no_memory"]
        return [
            label, len(rs),
            sum(r["passed"] for r in rs) / len(rs),
            (sum(r["recalled"] for r in rs) / wanted) if wanted else "-",
            sum(bool(r["violations"]) for r in rs) / len(rs),
            (sum(r["empty"] for r in negatives) / len(negatives)) if negatives else "-",
            round(sum(r["chars"] for r in rs) / len(rs)),
        ]

    for kind in sorted(by_kind):
        rows.append(row(kind, by_kind[kind]))
    rows.append(row("OVERALL", [p for k in sorted(by_kind) for p in by_kind[k]]))
    headers = ["kind", "n", "pass", "recall", "violation", "neg_empty", "chars"]
    return f"{name}\n" + table(headers, rows)


# -- the BM25 baseline (top-K stored turns, no threshold, no time, no project) -----------------


def bm25_baseline(scenario: dict[str, Any], k: int = 3) -> str:
    docs = [f"{t['user']}\n{t['assistant']}" for s in scenario["sessions"] for t in s["turns"]]
    toks = [re.findall(r"\w+", d.lower()) for d in docs]
    n = len(docs)
    avg = sum(len(t) for t in toks) / max(n, 1)
    df = Counter(w for t in toks for w in set(t))
    q = re.findall(r"\w+", scenario["probe"]["prompt"].lower())
    scores = []
    for i, t in enumerate(toks):
        tf = Counter(t)
        s = 0.0
        for w in q:
            if w in tf:
                idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                s += idf * tf[w] * 2.2 / (tf[w] + 1.2 * (0.25 + 0.75 * len(t) / avg))
        scores.append((s, i))
    top = sorted(scores, reverse=True)[:k]
    return "\n\n".join(docs[i] for _, i in top)


# -- replay ------------------------------------------------------------------------------------


def hook_env(db: Path, moment: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    env.update(REASONGRAPH_DB=str(db), REASONGRAPH_NOW=moment)
    for name in ("REASONGRAPH_BUDGET", "REASONGRAPH_HOOK_SERVER_TIMEOUT"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def run_hook(script: str, event: dict[str, Any], env: dict[str, str], cwd: Path) -> str:
    proc = subprocess.run(
        [sys.executable, *HOOK_FLAGS, str(HOOKS / script)], input=json.dumps(event).encode(),
        env=env,
        cwd=cwd, capture_output=True, timeout=30,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{script} exited {proc.returncode}: {proc.stderr.decode()[:500]}")
    return proc.stdout.decode()


def context_of(stdout: str) -> str:
    if not stdout.strip():
        return ""
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"]


def replay(scenario: dict[str, Any], embedder: Any, args: argparse.Namespace) -> str:
    from reasongraph_mcp import hook_service
    from reasongraph_mcp.memory import Memory

    sys.path.insert(0, str(HOOKS))
    import capture  # the hook's own code path, for in-process background captures

    with tempfile.TemporaryDirectory(prefix="rg-scn-") as tmp:
        work = Path(tmp)
        db = work / "memory.db"
        mem = Memory(db, embedder=embedder)
        service = hook_service.HookService(lambda: mem, db, retry=0.05).start()
        try:
            if not service.owner.wait(10):
                raise RuntimeError("the hook service did not take the socket")
            for session in scenario["sessions"]:
                moment = session["date"]
                env = hook_env(db, moment)
                for turn in session["turns"]:
                    base = {"session_id": session["session_id"], "cwd": session["cwd"],
                            "transcript_path": None, "permission_mode": "default"}
                    if args.background == "inprocess":
                        # The hook's own row building (clean, redact, turn key, clock); the
                        # insert goes through this process's apsw connection, because two
                        # SQLite libraries in one process must never share a file (their
                        # POSIX locks do not see each other).
                        os.environ["REASONGRAPH_NOW"] = moment
                        try:
                            row = capture.build_row({
                                **base, "hook_event_name": "Stop", "prompt": turn["user"],
                                "last_assistant_message": turn["assistant"],
                                "stop_hook_active": False}, db)
                        finally:
                            os.environ.pop("REASONGRAPH_NOW", None)
                        if row is not None:
                            with mem._lock:
                                mem.store.conn.execute(capture.common.INBOX_INSERT, row)
                        continue
                    run_hook("prepare.py", {**base, "hook_event_name": "UserPromptSubmit",
                                            "prompt": turn["user"]}, env, work)
                    run_hook("capture.py", {**base, "hook_event_name": "Stop",
                                            "last_assistant_message": turn["assistant"],
                                            "stop_hook_active": False}, env, work)
            if args.background == "inprocess":
                mem.drain()
            if not service.wait_idle(600):
                raise RuntimeError("the inbox drain did not finish")
            if args.fallback:
                service.stop()
            probe = scenario["probe"]
            out = run_hook("prepare.py", {
                "session_id": "probe", "cwd": probe["cwd"], "prompt": probe["prompt"],
                "hook_event_name": "UserPromptSubmit", "transcript_path": None,
            }, hook_env(db, probe["date"]), work)
            return context_of(out)
        finally:
            service.stop()
            mem.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.scenarios", description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--background", choices=["hooks", "inprocess"],
                        help="how sessions are captured (default: hooks; inprocess for pooled)")
    parser.add_argument("--fallback", action="store_true", help="probe with no server running")
    parser.add_argument("--only", help="comma-separated scenario ids or kinds")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--unit", choices=["line", "block"], default="line")
    parser.add_argument("--k", type=int, default=3, help="baseline top-K (default 3)")
    parser.add_argument("--dump", help="write {id, context} JSON Lines here")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    path = require(args.data)
    scenarios = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if args.only:
        wanted = set(args.only.split(","))
        scenarios = [s for s in scenarios if s["id"] in wanted or s["kind"] in wanted]
    if args.limit:
        scenarios = scenarios[: args.limit]
    if args.background is None:
        args.background = "inprocess" if "pooled" in path.name else "hooks"
    os.environ.pop("REASONGRAPH_NOW", None)
    embedder = shared_embedder()
    results, base, dumps = [], [], []
    started = time.perf_counter()
    for i, scenario in enumerate(scenarios, 1):
        t0 = time.perf_counter()
        context = replay(scenario, embedder, args)
        r = score(scenario, context, args.unit)
        results.append(r)
        base.append(score(scenario, bm25_baseline(scenario, args.k), "block"))
        dumps.append({"id": scenario["id"], "context": context})
        flag = "PASS" if r["passed"] else "FAIL"
        print(f"[{i}/{len(scenarios)}] {flag} {scenario['id']} ({scenario['kind']}) "
              f"{r['chars']} chars, {time.perf_counter() - t0:.1f}s"
              + (f" missing={r['missing']}" if r["missing"] else "")
              + (f" violations={r['violations']}" if r["violations"] else ""), flush=True)
        if args.verbose:
            print(context + "\n")
    if args.dump:
        Path(args.dump).write_text("".join(json.dumps(d) + "\n" for d in dumps))
    mode = "fallback (no server at the probe)" if args.fallback else "warm server"
    print()
    print(report(f"reasongraph hooks, {mode}, background={args.background}, "
                 f"budget={os.environ.get('REASONGRAPH_BUDGET', '2000')}: {path.name}",
                 scenarios, results))
    print()
    print(report(f"baseline BM25 top-{args.k} turns: {path.name}", scenarios, base))
    print(f"\n{len(scenarios)} scenarios in {time.perf_counter() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
