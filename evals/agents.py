"""Inside the real agents: Claude Code, Codex CLI and OpenCode from npm, end to end.

    python -m evals.agents [--only claude-code,codex,opencode] [--codex-runs N] [--keep]

Each agent, at a pinned npm version (``PINS``, installed once into
``~/.cache/reasongraph-agents/<agent>-<version>``), runs in a throwaway HOME against the
loopback mock model (``evals.mock_model``), wired by ``reasongraph-mcp install --harness X``
exactly as a user would wire it. One fact is seeded with ``reasongraph-mcp remember``, one
real non-interactive turn asks about it without naming it, and the columns are read from what
the agent sent to the model and from the memory file:

- context: our ``<reasongraph-memory>`` block, with the seeded fact, is in the agent's own
  first request (the first one offering tools), and in no tool-less request (a title or
  summary generator's);
- tools: that first request already offers our MCP tools (Codex: turn 1, as installed;
  Claude Code 2.1 names MCP tools as deferred ones, loaded through its ToolSearch, or says
  the server is still connecting, and ToolSearch then waits for it within the turn);
- round trip: the mock calls ``recall`` and the result sent back holds the seeded fact;
- captured: the Stop hook (OpenCode: the plugin) put the exchange in the inbox, and after
  ``reasongraph-mcp drain`` recall finds the mock's answer;
- uninstall: install then uninstall leaves HOME and the project byte-identical.

The ``reasongraph-mcp`` used is the console script next to this interpreter (or ``--bin``):
install the project (non-editable or editable) into a venv first. Codex runs hooks only
after the user trusts them in ``/hooks``, an interactive step; the turn passes Codex's
documented ``--dangerously-bypass-hook-trust`` in its place. Nothing but 127.0.0.1 and, on
the first run, the npm registry is contacted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .common import table
from .mock_model import (
    FINAL,
    MockModel,
    called_tools,
    connecting,
    deferred,
    tool_names,
    tool_results,
)

PINS = {  # agent -> (npm package, exact version, executable)
    "claude-code": ("@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": ("@openai/codex", "0.169.1", "codex"),
    "opencode": ("opencode-ai", "1.18.33", "opencode"),
}
SEED = "We set Redis maxmemory-policy to allkeys-lru in session 1."
FACT = "allkeys-lru"  # in the seeded fact, never in the prompt
PROMPT = "Which Redis maxmemory-policy did we choose for the cache, and why were users logged out?"
TAG = "<reasongraph-memory>"
COLUMNS = ("context in agent request", "tools offered", "recall round trip", "exchange captured",
           "uninstall byte-identical")
TURN_TIMEOUT = 300
SKIP = {".git", "node_modules", ".npm", ".cache"}


def cache_root() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reasongraph-agents"


def agent_bin(agent: str) -> Path:
    """The pinned agent's executable, npm-installed into the cache on first use."""
    package, version, exe = PINS[agent]
    folder = cache_root() / f"{agent}-{version}"
    path = folder / "node_modules" / ".bin" / exe
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"name": "rg-agent", "private": true}\n')
        done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix",
                               str(folder), f"{package}@{version}"],
                              capture_output=True, text=True, timeout=900)
        if done.returncode != 0 or not path.exists():
            raise RuntimeError(f"npm install {package}@{version} failed: {done.stderr[-800:]}")
    return path


# -- one agent's sandbox ---------------------------------------------------------------------


@dataclass
class Sandbox:
    """A throwaway HOME, a git project, a memory file outside both, and the environment every
    command of the run gets (nothing of the caller's HOME, no REASONGRAPH_* but the DB)."""

    root: Path
    rg: Path  # the reasongraph-mcp console script
    agent: Path
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.home, self.project = self.root / "home", self.root / "project"
        self.db = self.root / "memory" / "memory.db"
        for p in (self.home, self.project, self.db.parent):
            p.mkdir(parents=True)
        keep = ("LANG", "LC_ALL", "TERM", "TMPDIR")
        self.env = {k: os.environ[k] for k in keep if k in os.environ}
        self.env.update({
            "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local/share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_STATE_HOME": str(self.home / ".local/state"),
            "REASONGRAPH_DB": str(self.db),
            "PATH": os.pathsep.join([str(self.rg.parent), str(self.agent.parent),
                                     os.path.dirname(shutil.which("node") or "/usr/bin"),
                                     "/usr/local/bin", "/usr/bin", "/bin"]),
        })
        self.run(["git", "init", "-q"])
        (self.project / "README.md").write_text("# demo\n")

    def run(self, argv: list[str], timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=self.project, env={**self.env, **env}, text=True,
                              capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)

    def rg_run(self, *args: str) -> subprocess.CompletedProcess:
        done = self.run([str(self.rg), *args], timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"reasongraph-mcp {' '.join(args)}: {done.stderr[-800:]}")
        return done

    def snapshot(self) -> dict[str, str]:
        """sha256 of every file under HOME and the project (not .git or caches)."""
        out = {}
        for top in (self.home, self.project):
            for folder, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if d not in SKIP]
                for name in files:
                    p = Path(folder, name)
                    out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
        return out

    def inbox_rows(self, state: str | None = None) -> int:
        try:
            with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as conn:
                if state is None:
                    return conn.execute("SELECT count(*) FROM inbox").fetchone()[0]
                return conn.execute("SELECT count(*) FROM inbox WHERE state = ?",
                                    (state,)).fetchone()[0]
        except sqlite3.Error:
            return 0

    def drain(self, timeout: float = 60.0) -> None:
        """Drain the inbox; a row the agent's own server is still ingesting (claimed by a live
        process) is left to it, so wait until none is pending."""
        deadline = time.monotonic() + timeout
        while True:
            self.rg_run("drain")
            if not self.inbox_rows("pending") or time.monotonic() > deadline:
                return
            time.sleep(0.5)


# -- each agent: its provider config and its one turn ------------------------------------------


def setup_claude(box: Sandbox, mock: MockModel) -> None:
    box.env.update(ANTHROPIC_BASE_URL=mock.url, ANTHROPIC_API_KEY="sk-mock-not-a-key",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1")
    (box.home / ".claude").mkdir()
    (box.home / ".claude" / "settings.json").write_text('{\n  "model": "sonnet"\n}\n')


def turn_claude(box: Sandbox) -> subprocess.CompletedProcess:
    return box.run([str(box.agent), "-p", PROMPT, "--output-format", "json", "--allowedTools",
                    "mcp__reasongraph__recall", "WaitForMcpServers"], timeout=TURN_TIMEOUT)


def setup_codex(box: Sandbox, mock: MockModel) -> None:
    box.env["MOCK_API_KEY"] = "not-a-key"
    (box.home / ".codex").mkdir()
    (box.home / ".codex" / "config.toml").write_text(
        'model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\n'
        f'name = "mock"\nbase_url = "{mock.url}/v1"\nwire_api = "responses"\n'
        f'env_key = "MOCK_API_KEY"\n\n[projects."{box.project}"]\ntrust_level = "trusted"\n')


def turn_codex(box: Sandbox) -> subprocess.CompletedProcess:
    # Codex runs user hooks only once trusted in its interactive /hooks screen; this
    # documented flag stands in for that one manual step. Nothing else is overridden.
    return box.run([str(box.agent), "exec", "--dangerously-bypass-hook-trust", PROMPT],
                   timeout=TURN_TIMEOUT)


def setup_opencode(box: Sandbox, mock: MockModel) -> None:
    box.env.update(OPENCODE_DISABLE_MODELS_FETCH="1", OPENCODE_DISABLE_AUTOUPDATE="1",
                   OPENCODE_DISABLE_DEFAULT_PLUGINS="1")
    folder = box.home / ".config" / "opencode"
    folder.mkdir(parents=True)
    config = {
        "$schema": "https://opencode.ai/config.json", "model": "mock/mock-model",
        "small_model": "mock/mock-model", "autoupdate": False, "share": "disabled",
        "provider": {"mock": {
            "npm": "@ai-sdk/openai-compatible", "name": "Mock",
            "options": {"baseURL": f"{mock.url}/v1", "apiKey": "not-a-key"},
            "models": {"mock-model": {"name": "Mock model", "tool_call": True}}}},
    }
    (folder / "opencode.json").write_text(json.dumps(config, indent=2) + "\n")


def turn_opencode(box: Sandbox) -> subprocess.CompletedProcess:
    done = box.run([str(box.agent), "run", PROMPT], timeout=TURN_TIMEOUT)
    deadline = time.monotonic() + 10  # session.idle runs the capture as the run ends
    while box.inbox_rows() == 0 and time.monotonic() < deadline:
        time.sleep(0.5)
    return done


AGENTS: dict[str, tuple[Callable[[Sandbox, MockModel], None],
                        Callable[[Sandbox], subprocess.CompletedProcess]]] = {
    "claude-code": (setup_claude, turn_claude),
    "codex": (setup_codex, turn_codex),
    "opencode": (setup_opencode, turn_opencode),
}


# -- reading the recorded requests ---------------------------------------------------------


def model_requests(mock: MockModel) -> list[dict[str, Any]]:
    return [r["body"] for r in mock.requests
            if isinstance(r["body"], dict) and ("messages" in r["body"] or "input" in r["body"])]


def analyse(requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The first three columns, and what they were read from."""
    agent = [b for b in requests if tool_names(b)]  # title generators and probes offer none
    first = json.dumps(agent[0]) if agent else ""
    in_toolless = any(TAG in json.dumps(b) for b in requests if not tool_names(b))
    ours = sorted({n for b in agent for n in tool_names(b) if "reasongraph" in n})

    def offers(body: dict[str, Any]) -> bool:
        return any("reasongraph" in n for n in tool_names(body)) or deferred(body)

    first_ok = bool(agent) and offers(agent[0])
    turn_ok = any(offers(b) for b in agent)
    trip, excerpt = False, ""
    for body in requests:
        if any("reasongraph" in c for c in called_tools(body)):
            texts = tool_results(body)
            trip, excerpt = any(FACT in t for t in texts), " | ".join(texts)[:300]
            break
    return {
        "context in agent request": TAG in first and FACT in first and not in_toolless,
        "tools offered": first_ok or (bool(agent) and connecting(agent[0]) and turn_ok),
        "tools in first request": first_ok,
        "recall round trip": trip,
        "requests": len(requests), "agent requests": len(agent), "our tools": ours,
        "block in a tool-less request": in_toolless, "tool result": excerpt,
    }


def run_agent(name: str, rg: Path, work: Path, codex_runs: int = 1) -> dict[str, Any]:
    """Every column for one agent (plus details); ``codex_runs`` > 1 repeats Codex's turn
    and counts the runs whose first request offered our tools."""
    setup, turn = AGENTS[name]
    box = Sandbox(work / name, rg, agent_bin(name))
    out: dict[str, Any] = {"agent": name, "version": PINS[name][1]}
    with MockModel() as mock:
        setup(box, mock)
        before = box.snapshot()
        box.rg_run("install", "--harness", name)
        box.rg_run("uninstall", "--harness", name)
        after = box.snapshot()
        out["uninstall byte-identical"] = before == after
        out["uninstall diff"] = sorted(p for p in before.keys() | after.keys()
                                       if before.get(p) != after.get(p))
        box.rg_run("install", "--harness", name)
        box.rg_run("remember", SEED, "--session", "s1")
        runs = []
        for _ in range(max(1, codex_runs if name == "codex" else 1)):
            mock.requests.clear()
            t0 = time.monotonic()
            done = turn(box)
            with open(box.root / "requests.jsonl", "a", encoding="utf-8") as fh:
                fh.writelines(json.dumps(r) + "\n" for r in mock.requests)
            runs.append(analyse(model_requests(mock)))
            runs[-1].update(rc=done.returncode, seconds=round(time.monotonic() - t0, 1),
                            stderr=done.stderr[-600:])
        out.update(runs[0])
        if len(runs) > 1:
            n = sum(r["tools in first request"] for r in runs)
            out["tools offered, runs"] = f"{n}/{len(runs)}"
            out.update({c: all(r[c] for r in runs) for c in COLUMNS[:3]})
        rows = box.inbox_rows()
        box.drain()
        found = box.run([str(rg), "recall", "MOCK-FINAL-ANSWER eviction policy logouts",
                         "--json"], timeout=300).stdout
        out["exchange captured"] = rows > 0 and FINAL.split(":")[0] in found
        out["inbox rows"] = rows
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.agents", description=__doc__.split("\n")[0])
    p.add_argument("--only", default=",".join(AGENTS),
                   help="comma-separated agents (default: all three)")
    p.add_argument("--bin", type=Path, help="the reasongraph-mcp console script to test "
                   "(default: the one next to this Python)")
    p.add_argument("--codex-runs", type=int, default=1,
                   help="repeat Codex's turn N times; all must pass (default 1)")
    p.add_argument("--json", type=Path, help="also write every detail to this file")
    p.add_argument("--keep", action="store_true", help="keep the work folder")
    args = p.parse_args(argv)
    rg = args.bin or Path(sys.executable).with_name("reasongraph-mcp")
    if not rg.exists():
        p.error(f"no {rg}: install the project into this Python's venv, or pass --bin")
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = set(names) - set(AGENTS)
    if unknown:
        p.error(f"unknown agent(s): {', '.join(sorted(unknown))}")
    work = Path(tempfile.mkdtemp(prefix="rg-agents-"))
    results = []
    try:
        for name in names:
            print(f"{name} {PINS[name][1]} ...", file=sys.stderr, flush=True)
            try:
                results.append(run_agent(name, rg.absolute(), work, args.codex_runs))
            except Exception as exc:  # one agent failing must not hide the others
                results.append({"agent": name, "version": PINS[name][1], "error": str(exc)})
    finally:
        if args.keep:
            print(f"work folder: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    mark = {True: "yes", False: "NO", None: "error"}
    rows = [[r["agent"] + " " + r["version"], *(mark[r.get(c)] for c in COLUMNS)]
            for r in results]
    print(table(["agent", *COLUMNS], rows))
    for r in results:
        if "tools offered, runs" in r:
            runs = r["tools offered, runs"]
            print(f"{r['agent']}: our tools in the first request in {runs} runs")
        if "error" in r or not all(r.get(c) for c in COLUMNS):
            print(json.dumps(r, indent=1, default=str), file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    return 0 if all(all(r.get(c) for c in COLUMNS) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
