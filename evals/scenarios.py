"""Replay the coding-agent memory scenarios through the real server and hooks, and score them.

``python -m evals.scenarios --data ../shared/data/scenarios/dev.jsonl --data
../shared/data/scenarios/dev2.jsonl`` replays each scenario (README.md in that folder defines
the protocol and the scoring) on its own fresh memory file, as the agents run the product:
for every session it starts a real ``reasongraph-mcp`` process (stdio, ``initialize`` sent at
once, stdin kept open), runs ``hooks/prepare.py`` then ``hooks/capture.py`` for each turn as
subprocesses with the installer's flags (the session's date in ``REASONGRAPH_NOW``, its id and
cwd in the event; the hooks reach the server over its socket or run by themselves), waits
until that server has ingested the session's exchanges, then closes its stdin and waits for it
to exit. The probe is the first prompt of one more fresh server, and its
``additionalContext`` is the context that is scored. ``--first-prompt`` says when a session's
first prompt hook fires: at spawn (default; Claude Code fires it while the server starts),
after the ``initialize`` reply (Codex with ``required = true``), or, for the probe, once the
model is loaded (the best case).

Printed per file: the product's table per kind; who answered the prompt hooks (the warm
server, the hook by itself, or its time limit) and their wall times; and the pass rate per
kind of the product beside BM25 over the stored turns with its top 3 and top 8 (no threshold,
no time, no project), with as many of its best turns as fit in the product's budget (the
last one cut; ``bm25@2000ch``), and cut to the characters the product injected for that very
scenario (``bm25@same``), computed in the same run.

``--mode inprocess`` is the old protocol (one warm ``hook_service.HookService`` in this
process for the whole scenario, the model loaded once); ``--mode both`` prints its figures
as a second line for comparison. ``--mode reuse --reuse DIR`` is for iterating on the read
side: each scenario's memory is built once in-process (captured as ``--background
inprocess`` does) and kept in ``DIR`` under a key of the scenario and of every source file of
the write path, and the probe's block is read straight from ``Memory.context_for``: all sets
in seconds once built, but neither the real server nor the hook processes, so report
figures from ``server``.
``--pool`` builds the README's pooled mode from any file (each
scenario also holds every other scenario's earlier sessions as background, about 150 for
``dev.jsonl``). ``--background inprocess`` (its default for a pooled file)
captures through ``capture.build_row`` in this process; ``--fallback`` stops its service
before the probe.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reasongraph_mcp.hooks.common import project_root
from reasongraph_mcp.install import HOOK_FLAGS

from .common import require, shared_embedder, table

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "hooks"
MARKERS = ("superseded", "historical", "outdated", "obsolete", "stale", "deprecated",
           "no longer", "replaced by", "reverted", "formerly", "previously", "[old]")
STRICT = ("cross_project_isolation", "negative_no_memory")
PROTOCOL = "2025-11-25"


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


def bm25_baseline(scenario: dict[str, Any], k: int = 3, budget: int | None = None) -> str:
    """The stored turns best first by BM25 against the probe: the top ``k``, or with
    ``budget`` as many as fit in that many characters (the last one cut), the product's own
    budget: with long turns, top 8 is several times the product's characters."""
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
    top = sorted(scores, reverse=True)[: None if budget is not None else k]
    joined = "\n\n".join(docs[i] for _, i in top)
    return joined[:budget] if budget is not None else joined


# -- hooks and the server, as a harness runs them ----------------------------------------------


def hook_env(db: Path, moment: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    env.update(REASONGRAPH_DB=str(db), REASONGRAPH_NOW=moment)
    for name in ("REASONGRAPH_BUDGET", "REASONGRAPH_HOOK_SERVER_TIMEOUT",
                 "REASONGRAPH_HOOK_TIMEOUT"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


@dataclass
class HookRun:
    """One hook process: what it printed, its wall time, and who answered it: ``server``
    (the warm server over the socket), ``fallback`` (the script ran itself: it imported
    ``json``, which the relay never does) or ``timeout`` (its own time limit ended it with
    nothing printed)."""

    out: str
    wall: float
    by: str


def run_hook(script: str, event: dict[str, Any], env: dict[str, str], cwd: Path) -> HookRun:
    """Run ``hooks/<script>`` as the installer's command does (``python -S``), plus
    ``-X importtime`` (a few microseconds per import, on stderr) to tell who answered."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, *HOOK_FLAGS, "-X", "importtime", str(HOOKS / script)],
        input=json.dumps(event).encode(), env=env, cwd=cwd, capture_output=True, timeout=60,
    )
    wall = time.perf_counter() - t0
    if proc.returncode < 0:  # killed by a signal: the agent gets nothing (and an error)
        return HookRun("", wall, f"killed ({-proc.returncode})")
    if proc.returncode != 0:
        raise RuntimeError(f"{script} exited {proc.returncode}: {proc.stderr.decode()[-800:]}")
    out = proc.stdout.decode()
    ran_itself = re.search(r"\|\s+json$", proc.stderr.decode(), re.MULTILINE) is not None
    limit = float(env.get("REASONGRAPH_HOOK_TIMEOUT") or 8.0)
    if not out.strip() and wall >= limit - 0.05:
        by = "timeout"
    else:
        by = "fallback" if ran_itself else "server"
    return HookRun(out, wall, by)


def context_of(stdout: str) -> str:
    if not stdout.strip():
        return ""
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"]


class Server:
    """One ``reasongraph-mcp`` process as an agent starts it for a session: stdio, the
    ``initialize`` request sent at once (its reply read on a thread), stdin kept open until
    ``close``, which closes it and waits for the process to exit."""

    def __init__(self, env: dict[str, str], cwd: Path, log: Path) -> None:
        self.t0 = time.perf_counter()
        self._log = log.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "reasongraph_mcp"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._log, env=env, cwd=cwd,
        )
        self.initialized = threading.Event()
        self.init_time: float | None = None
        self._send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "evals.scenarios", "version": "0"}}})
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("id") == 1 and not self.initialized.is_set():
                self.init_time = time.perf_counter() - self.t0
                if "result" in msg:
                    self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
                self.initialized.set()

    def wait_initialized(self, timeout: float = 120) -> None:
        if not self.initialized.wait(timeout):
            raise RuntimeError("the server did not answer initialize")

    def close(self, timeout: float = 120) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError("the server did not exit when its stdin closed") from None
        finally:
            self._log.close()


def pending(db: Path) -> int:
    """Exchanges captured but not yet ingested (read-only, its own process's sqlite3)."""
    import sqlite3

    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute("SELECT count(*) FROM inbox WHERE state = 'pending'").fetchone()[0]
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def wait_drained(db: Path, timeout: float = 600) -> None:
    """Wait until the session's server has ingested every captured exchange. Captures the
    hooks wrote by themselves (no server yet) wait for the server's next inbox poll (30 s);
    a nudge every 2 s stands for that time passing, as it does in a real session."""
    import socket

    from reasongraph_mcp.hooks import relay

    deadline = time.monotonic() + timeout
    last = 0.0
    while pending(db):
        if time.monotonic() > deadline:
            raise RuntimeError("the session's server did not drain the inbox")
        if time.monotonic() - last > 2:
            last = time.monotonic()
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(2)
                    sock.connect(relay.socket_file(str(db)))
                    sock.sendall(b'{"op": "nudge"}\n')
            except OSError:
                pass
        time.sleep(0.1)


def model_ready(db: Path) -> bool | None:
    """Ask the warm server (``ping``) whether its embedding model is loaded; None = no
    answer."""
    import socket

    from reasongraph_mcp.hooks import relay

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(relay.socket_file(str(db)))
            sock.sendall(b'{"op": "ping"}')
            sock.shutdown(socket.SHUT_WR)
            reply = json.loads(sock.recv(65536) or b"{}")
        return reply.get("model_ready")
    except (OSError, ValueError):
        return None


@dataclass
class Replay:
    context: str
    probe: HookRun | None = None
    probe_model: bool | None = None  # the server's model loaded just after the probe?
    firsts: list[HookRun] = field(default_factory=list)  # each session's first prompt hook
    laters: list[HookRun] = field(default_factory=list)  # the other prompt hooks
    inits: list[float] = field(default_factory=list)  # spawn to the initialize reply


def replay_server(scenario: dict[str, Any], args: argparse.Namespace) -> Replay:
    """The default protocol: one ``reasongraph-mcp`` process per session, started as an
    agent starts it, the hooks run as subprocesses against it; the session ends once its
    server has ingested what the session captured (a real session lasts minutes), then
    stdin closes and the server exits. The probe is the first prompt of a fresh server."""
    with tempfile.TemporaryDirectory(prefix="rg-scn-") as tmp:
        work = Path(tmp)
        db = work / "memory.db"
        log = work / "server.log"
        result = Replay("")
        try:
            for session in scenario["sessions"]:
                env = hook_env(db, session["date"])
                server = Server(env, work, log)
                try:
                    if args.first_prompt == "initialized":
                        server.wait_initialized()
                    for n, turn in enumerate(session["turns"]):
                        base = {"session_id": session["session_id"], "cwd": session["cwd"],
                                "transcript_path": None, "permission_mode": "default"}
                        run = run_hook("prepare.py", {
                            **base, "hook_event_name": "UserPromptSubmit",
                            "prompt": turn["user"]}, env, work)
                        (result.laters if n else result.firsts).append(run)
                        run_hook("capture.py", {
                            **base, "hook_event_name": "Stop",
                            "last_assistant_message": turn["assistant"],
                            "stop_hook_active": False}, env, work)
                    server.wait_initialized()
                    result.inits.append(server.init_time or 0.0)
                    wait_drained(db)
                finally:
                    server.close()
            probe = scenario["probe"]
            env = hook_env(db, probe["date"])
            server = Server(env, work, log)
            try:
                if args.first_prompt == "initialized":
                    server.wait_initialized()
                elif args.first_prompt == "warm":
                    server.wait_initialized()
                    while model_ready(db) is not True:
                        time.sleep(0.2)
                result.probe = run_hook("prepare.py", {
                    "session_id": "probe", "cwd": probe["cwd"], "prompt": probe["prompt"],
                    "hook_event_name": "UserPromptSubmit", "transcript_path": None,
                    "permission_mode": "default"}, env, work)
                result.context = context_of(result.probe.out)
                if result.probe.by == "server":
                    result.probe_model = model_ready(db)
                server.wait_initialized()
            finally:
                server.close()
        except Exception:
            if log.exists():
                sys.stderr.write(log.read_text(errors="replace")[-2000:])
            raise
        return result


def replay_inprocess(scenario: dict[str, Any], embedder: Any, args: argparse.Namespace) -> str:
    """The old protocol, for comparison: one warm ``hook_service.HookService`` in this
    process for the whole scenario (the packaged model loaded once for the run); the hooks
    run as subprocesses against it, and the probe after the inbox is drained."""
    from reasongraph_mcp import hook_service
    from reasongraph_mcp.memory import Memory

    with tempfile.TemporaryDirectory(prefix="rg-scn-") as tmp:
        work = Path(tmp)
        db = work / "memory.db"
        mem = Memory(db, embedder=embedder)
        service = hook_service.HookService(lambda: mem, db, retry=0.05).start()
        try:
            if not service.owner.wait(10):
                raise RuntimeError("the hook service did not take the socket")
            for session in scenario["sessions"]:
                env = hook_env(db, session["date"])
                for turn in session["turns"]:
                    base = {"session_id": session["session_id"], "cwd": session["cwd"],
                            "transcript_path": None, "permission_mode": "default"}
                    if args.background == "inprocess":
                        capture_inprocess(mem, db, base, turn, session["date"])
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
            return context_of(out.out)
        finally:
            service.stop()
            mem.close()


def capture_inprocess(mem: Any, db: Path, base: dict[str, Any], turn: dict[str, Any],
                      moment: str) -> None:
    """The hook's own row building (clean, redact, turn key, clock); the insert goes through
    this process's apsw connection, because two SQLite libraries in one process must never
    share a file (their POSIX locks do not see each other)."""
    sys.path.insert(0, str(HOOKS))
    import capture  # the hook's own code path

    with _ENV_LOCK:
        os.environ["REASONGRAPH_NOW"] = moment
        try:
            row = capture.build_row({
                **base, "hook_event_name": "Stop", "prompt": turn["user"],
                "last_assistant_message": turn["assistant"], "stop_hook_active": False}, db)
        finally:
            os.environ.pop("REASONGRAPH_NOW", None)
    if row is not None:
        with mem._lock:
            mem.store.conn.execute(capture.common.INBOX_INSERT, row)


_ENV_LOCK = threading.Lock()


def capture_scenario(mem: Any, db: Path, scenario: dict[str, Any]) -> None:
    """Every turn of the scenario's sessions captured in this process, then drained."""
    for session in scenario["sessions"]:
        for turn in session["turns"]:
            base = {"session_id": session["session_id"], "cwd": session["cwd"],
                    "transcript_path": None, "permission_mode": "default"}
            capture_inprocess(mem, db, base, turn, session["date"])
    mem.drain()

# The prompt block, which nothing on the write path imports: a change to it leaves a built
# memory file valid. (Not ``memory/read/``: the write path uses its recall and gloss.)
READ_SIDE = ("memory/prompt/",)


def write_fingerprint(root: Path = ROOT) -> str:
    """A digest of every source file of the package but the prompt block's (and the evals'
    and tests'): the memory ``--reuse`` built is valid while it holds."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if (path.suffix not in (".py", ".tsv", ".npz", ".json") or not path.is_file()
                or rel.startswith(("evals/", "tests/", *READ_SIDE)) or "/." in f"/{rel}"):
            continue
        digest.update(rel.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def replay_reused(scenario: dict[str, Any], embedder: Any, cache: Path, fingerprint: str) -> str:
    """The probe's block from this scenario's memory, built once under ``cache`` (captured in
    this process, drained) and reused while the write path's code is unchanged."""
    from reasongraph_mcp.memory import Memory

    key = hashlib.sha256(json.dumps(scenario, sort_keys=True).encode()).hexdigest()[:16]
    db = cache / f"{key}-{fingerprint}.db"
    if not db.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="rg-reuse-", dir=cache) as tmp:
            work = Path(tmp) / "memory.db"
            mem = Memory(work, embedder=embedder)
            try:
                capture_scenario(mem, work, scenario)
                mem.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                mem.close()
            os.replace(work, db)  # whole or not at all: a run stopped midway leaves nothing
    probe = scenario["probe"]
    mem = Memory(db, embedder=embedder)
    try:
        project = project_root(probe["cwd"], env={}, cwd="/")  # the hooks' own rule
        return mem.context_for(probe["prompt"], project=project, now=probe["date"],
                               wait_for_model=True).text
    finally:
        mem.close()


# -- the run -----------------------------------------------------------------------------------


def quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    v = sorted(values)

    def q(p: float) -> float:
        return v[min(len(v) - 1, max(0, math.ceil(p * len(v)) - 1))]

    return f"p50 {q(0.5):.2f}s p95 {q(0.95):.2f}s max {v[-1]:.2f}s (n={len(v)})"


def hook_report(replays: list[Replay]) -> str:
    probes = [r.probe for r in replays if r.probe is not None]
    firsts = [h for r in replays for h in r.firsts]
    laters = [h for r in replays for h in r.laters]
    lines = []
    for label, runs in (("probe (first prompt of a fresh server)", probes),
                        ("first prompt of each session", firsts),
                        ("later prompts", laters)):
        by = Counter(h.by for h in runs)
        lines.append(f"  {label}: " + ", ".join(
            f"{k} {n}" for k, n in sorted(by.items(), key=lambda kv: -kv[1]))
            + f"; wall {quantiles([h.wall for h in runs])}")
    inits = [t for r in replays for t in r.inits]
    lines.append(f"  server start, spawn to the initialize reply: {quantiles(inits)}")
    warm = Counter(r.probe_model for r in replays if r.probe and r.probe.by == "server")
    if warm:
        lines.append(f"  probes the server answered: model loaded {warm[True]}, "
                     f"still loading {warm[False]}, unknown {warm[None]}")
    return "prompt hook (who answered; wall time of the hook process):\n" + "\n".join(lines)


def comparison(name: str, scenarios: list[dict[str, Any]],
               columns: dict[str, list[dict[str, Any]]]) -> str:
    """Pass rate per kind, one column per system, and the mean characters injected."""
    kinds = sorted({s["kind"] for s in scenarios})
    rows = []
    for kind in [*kinds, "OVERALL"]:
        idx = [i for i, s in enumerate(scenarios) if kind in ("OVERALL", s["kind"])]
        rows.append([kind, len(idx)] + [
            sum(col[i]["passed"] for i in idx) / len(idx) for col in columns.values()])
    rows.append(["mean chars", len(scenarios)] + [
        str(round(sum(r["chars"] for r in col) / len(col))) for col in columns.values()])
    return f"{name}\n" + table(["kind", "n", *columns], rows)


def pooled(scenarios: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each scenario with, as background, every other scenario's sessions from the same file
    dated before its probe (deduplicated; none that holds one of its ``must_not`` strings):
    the README's pooled mode, built for any file. Sessions are renumbered in date order."""
    def key(sess: dict[str, Any]) -> tuple[str, str, str]:
        return sess["cwd"], sess["date"], sess["turns"][0]["user"] if sess["turns"] else ""

    sessions: dict[tuple[str, str, str], dict[str, Any]] = {}
    for s in scenarios:
        for sess in s["sessions"]:
            sessions.setdefault(key(sess), sess)
    out = []
    for s in scenarios:
        own = {key(x) for x in s["sessions"]}
        banned = [norm(m) for m in s["must_not_recall_as_current"]]
        background = []
        for k, sess in sessions.items():
            if k in own or sess["date"] >= s["probe"]["date"]:
                continue
            text = norm(" ".join(t["user"] + " " + t["assistant"] for t in sess["turns"]))
            if any(b in text for b in banned):
                continue
            background.append(sess)
        merged = sorted([*s["sessions"], *background], key=lambda x: x["date"])
        renumbered = [{**sess, "session_id": f"s{i}"} for i, sess in enumerate(merged, 1)]
        out.append({**s, "sessions": renumbered,
                    "notes": f"{s.get('notes', '')} [pooled: {len(background)} background "
                             "sessions]"})
    return out


def run_file(path: Path, args: argparse.Namespace, embedder: Any) -> None:
    scenarios = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if args.pool:
        scenarios = pooled(scenarios)
    if args.only:
        wanted = set(args.only.split(","))
        scenarios = [s for s in scenarios if s["id"] in wanted or s["kind"] in wanted]
    if args.limit:
        scenarios = scenarios[: args.limit]
    if args.background is None:
        args.background = "inprocess" if args.pool or "pooled" in path.name else "hooks"
    modes = ["server", "inprocess"] if args.mode == "both" else [args.mode]
    started = time.perf_counter()
    done = [0]
    print_lock = threading.Lock()

    def one(scenario: dict[str, Any]) -> tuple[dict[str, Replay | str], float]:
        t0 = time.perf_counter()
        out: dict[str, Replay | str] = {}
        for mode in modes:
            if mode == "server":
                out[mode] = replay_server(scenario, args)
            elif mode == "reuse":
                out[mode] = replay_reused(scenario, embedder, Path(args.reuse),
                                          args.fingerprint)
            else:
                out[mode] = replay_inprocess(scenario, embedder, args)
        took = time.perf_counter() - t0
        with print_lock:
            done[0] += 1
            for mode, rep in out.items():
                ctx = rep.context if isinstance(rep, Replay) else rep
                r = score(scenario, ctx, args.unit)
                by = (f" probe by {rep.probe.by} in {rep.probe.wall:.2f}s"
                      if isinstance(rep, Replay) and rep.probe else "")
                print(f"[{done[0]}/{len(scenarios)}] {mode} {'PASS' if r['passed'] else 'FAIL'} "
                      f"{scenario['id']} ({scenario['kind']}) {r['chars']} chars{by}, "
                      f"{took:.0f}s"
                      + (f" missing={r['missing']}" if r["missing"] else "")
                      + (f" violations={r['violations']}" if r["violations"] else ""),
                      flush=True)
                if args.verbose:
                    print(ctx + "\n")
        return out, took

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        outs = [o for o, _ in pool.map(one, scenarios)]

    contexts = {m: [o[m].context if isinstance(o[m], Replay) else o[m] for o in outs]
                for m in modes}
    results = {m: [score(s, c, args.unit) for s, c in zip(scenarios, contexts[m], strict=True)]
               for m in modes}
    columns: dict[str, list[dict[str, Any]]] = {}
    labels = {"server": "product", "inprocess": "in-process", "reuse": "reused memory"}
    for m in modes:
        columns[labels[m]] = results[m]
    for k in (3, 8):
        columns[f"bm25@{k}"] = [score(s, bm25_baseline(s, k), "block") for s in scenarios]
    chars = int(os.environ.get("REASONGRAPH_BUDGET", "2000"))
    columns[f"bm25@{chars}ch"] = [score(s, bm25_baseline(s, budget=chars), "block")
                                  for s in scenarios]
    # The product's own characters, scenario by scenario (its block stretches past the budget
    # to hold three long exchanges; an empty block leaves BM25 nothing either).
    columns["bm25@same"] = [score(s, bm25_baseline(s, budget=len(c)), "block")
                            for s, c in zip(scenarios, contexts[modes[0]], strict=True)]
    if args.dump:
        with open(args.dump, "a") as fh:
            for s, c in zip(scenarios, contexts[modes[0]], strict=True):
                fh.write(json.dumps({"file": path.name, "id": s["id"], "context": c}) + "\n")
    budget = os.environ.get("REASONGRAPH_BUDGET", "2000")
    print()
    if "server" in modes:
        print(report(f"product: real reasongraph-mcp per session, first prompt at "
                     f"{args.first_prompt}, budget={budget}: {path.name}", scenarios,
                     results["server"]))
        print()
        print(hook_report([o["server"] for o in outs]))  # type: ignore[misc]
        print()
    if "reuse" in modes:
        print(report(f"read side only (memory built once in {args.reuse}, block from "
                     f"Memory.context_for): {path.name}", scenarios, results["reuse"]))
        print()
    if "inprocess" in modes:
        mode = "fallback at the probe" if args.fallback else "warm in-process service"
        print(report(f"old protocol ({mode}, background={args.background}): {path.name}",
                     scenarios, results["inprocess"]))
        print()
    print(comparison(f"pass rate per kind: {path.name} (BM25: top-K stored turns, block unit)",
                     scenarios, columns))
    print(f"\n{path.name}{' (pooled)' if args.pool else ''}: {len(scenarios)} scenarios in "
          f"{time.perf_counter() - started:.0f}s")
    args.background = None if args.background_default else args.background


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.scenarios", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, action="append",
                        help="a scenario file (JSON Lines); repeat for several")
    parser.add_argument("--mode", choices=["server", "inprocess", "both", "reuse"],
                        default="server",
                        help="server: a real reasongraph-mcp per session (default); inprocess: "
                             "the old warm in-process hook service; both: print both; reuse: "
                             "the read side only, from memories built once in --reuse")
    parser.add_argument("--reuse", metavar="DIR",
                        help="--mode reuse: where each scenario's built memory is kept")
    parser.add_argument("--first-prompt", choices=["spawn", "initialized", "warm"],
                        default="spawn",
                        help="when a session's first prompt hook runs: at spawn (default, as "
                             "Claude Code does), after the initialize reply (Codex with "
                             "required = true), or, for the probe only, once the model loaded")
    parser.add_argument("--jobs", type=int, default=2, help="scenarios replayed at once")
    parser.add_argument("--background", choices=["hooks", "inprocess"],
                        help="inprocess mode: how sessions are captured "
                             "(default: hooks; inprocess for pooled)")
    parser.add_argument("--fallback", action="store_true",
                        help="inprocess mode: probe with no server running")
    parser.add_argument("--pool", action="store_true",
                        help="pooled mode for any file: each scenario also holds the other "
                             "scenarios' sessions before its probe as background")
    parser.add_argument("--only", help="comma-separated scenario ids or kinds")
    parser.add_argument("--limit", type=int, help="the first N scenarios of each file")
    parser.add_argument("--unit", choices=["line", "block"], default="line")
    parser.add_argument("--dump", help="append {file, id, context} JSON Lines here")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if (args.mode == "reuse") != bool(args.reuse):
        parser.error("--mode reuse and --reuse DIR go together")
    args.background_default = args.background is None
    args.fingerprint = write_fingerprint() if args.mode == "reuse" else ""  # once per run
    paths = [require(d) for d in args.data]
    os.environ.pop("REASONGRAPH_NOW", None)
    embedder = shared_embedder() if args.mode != "server" else None
    for path in paths:
        run_file(path, args, embedder)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
