"""Wall time of the hook scripts as a harness spawns them.

``python -m evals.bench_hooks`` builds memories of 1k and 10k facts (synthetic coding-session
sentences, the packaged embedding model), then spawns ``hooks/prepare.py`` and
``hooks/capture.py`` as subprocesses with JSON on stdin, ``--runs`` times each (default 200),
with a warm server (``hook_service.HookService`` in this process, the code the MCP server
runs) and with none, and prints p50/p95 next to the floor of starting ``python3 -c pass`` in
the same run. Aims: prepare p50 < 60 ms warm and < 120 ms without a server; capture p50 < 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import shared_embedder, table

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "hooks"
PROJECT = "/home/dev/benchproj"
NOUNS = ("invoice", "ledger", "webhook", "segment", "index", "cursor", "scheduler", "worker",
         "parser", "exporter", "cache", "session", "token", "migration", "tenant", "queue",
         "bucket", "dashboard", "pipeline", "report", "account", "payment", "refund", "policy")
VERBS = ("retries", "times out", "drops rows", "leaks memory", "is slow", "double-counts",
         "needs a lock", "uses UTC", "is cached for 5 minutes", "runs nightly")
PROMPTS = [
    "Why does the {a} {v} when the {b} is busy?",
    "What did we decide about the {a} and the {b}?",
    "Add a retry to the {a} {b} and keep the old behaviour behind a flag.",
    "How is the {a} configured in production, and who owns the {b}?",
]


def sentences(n: int, rng: random.Random) -> list[str]:
    out = []
    for i in range(n):
        a, b = rng.sample(NOUNS, 2)
        v = rng.choice(VERBS)
        out.append(f"The {a} {v} because the {b} module {i} changed in release 1.{i % 97}.{i}.")
    return out


def build(db: Path, n: int, embedder: object) -> None:
    from reasongraph_mcp.memory import Memory

    rng = random.Random(n)
    texts = sentences(n, rng)
    with Memory(db, embedder=embedder) as mem:  # type: ignore[arg-type]
        for start in range(0, n, 200):
            mem.remember(" ".join(texts[start : start + 200]), project=PROJECT,
                         session=f"bench-{start // 200}")


def spawn(argv: list[str], payload: bytes | None, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, input=payload, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - t0) * 1000


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def measure(label: str, runs: int, make: object, env: dict[str, str]) -> list[object]:
    times = []
    for i in range(runs):
        argv, payload = make(i)  # type: ignore[operator]
        times.append(spawn(argv, payload, env))
    return [label, runs, round(pct(times, 0.5), 1), round(pct(times, 0.95), 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench_hooks", description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args(argv)
    from reasongraph_mcp import hook_service
    from reasongraph_mcp.install import HOOK_FLAGS
    from reasongraph_mcp.memory import Memory

    embedder = shared_embedder()
    rng = random.Random(7)
    py = sys.executable
    rows: list[list[object]] = []
    # As a harness spawns them: no REASONGRAPH_ settings, and bytecode caching on (a
    # PYTHONDONTWRITEBYTECODE in this shell would recompile the hooks on every start).
    base_env = {k: v for k, v in os.environ.items()
                if not k.startswith("REASONGRAPH_") and k != "PYTHONDONTWRITEBYTECODE"}
    rows.append(measure("python3 -c pass (floor)", args.runs,
                        lambda i: ([py, "-c", "pass"], None), base_env))
    rows.append(measure("python3 -S -c pass (the hooks' interpreter start)", args.runs,
                        lambda i: ([py, *HOOK_FLAGS, "-c", "pass"], None), base_env))

    def prompt_payload(i: int) -> tuple[list[str], bytes]:
        a, b = rng.sample(NOUNS, 2)
        text = rng.choice(PROMPTS).format(a=a, b=b, v=rng.choice(VERBS))
        event = {"session_id": f"bench-{i}-{rng.random()}", "cwd": PROJECT, "prompt": text,
                 "hook_event_name": "UserPromptSubmit", "transcript_path": None}
        return [py, *HOOK_FLAGS, str(HOOKS / "prepare.py")], json.dumps(event).encode()

    def stop_payload(i: int) -> tuple[list[str], bytes]:
        a, b = rng.sample(NOUNS, 2)
        event = {"session_id": f"cap-{i}-{rng.random()}", "cwd": PROJECT,
                 "hook_event_name": "Stop", "stop_hook_active": False, "prompt": f"Fix the {a}.",
                 "last_assistant_message": f"Fixed the {a}: the {b} no longer retries twice."}
        return [py, *HOOK_FLAGS, str(HOOKS / "capture.py")], json.dumps(event).encode()

    for size in [int(s) for s in args.sizes.split(",") if s]:
        with tempfile.TemporaryDirectory(prefix="rg-bench-") as tmp:
            db = Path(tmp) / "memory.db"
            t0 = time.perf_counter()
            build(db, size, embedder)
            print(f"built {size} facts in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
            env = {**base_env, "REASONGRAPH_DB": str(db)}
            rows.append(measure(f"prepare, no server, {size} facts", args.runs, prompt_payload,
                                env))
            rows.append(measure(f"capture, no server, {size} facts", args.runs, stop_payload, env))
            mem = Memory(db, embedder=embedder)
            service = hook_service.HookService(
                lambda mem=mem: mem, db, retry=0.05, poll=3600
            ).start()
            try:
                service.owner.wait(10)
                mem.context_for("warm up the model and caches", project=PROJECT)
                rows.append(measure(f"prepare, warm server, {size} facts", args.runs,
                                    prompt_payload, env))
                rows.append(measure(f"capture, warm server, {size} facts", args.runs,
                                    stop_payload, env))
            finally:
                service.stop()
                mem.close()
    print(table(["hook", "runs", "p50 ms", "p95 ms"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
