"""Start-up cost of the MCP server, next to an empty ``MCPServer`` measured the same way.

    python -m evals.server [--runs 5] [--facts 200]

Each run starts a fresh process and speaks raw JSON-RPC over its pipes (no client library,
so the numbers are the server's): ``initialize``, then ``tools/list``, then one tool call
(``recall`` on ours, a one-line echo tool on the baseline). Prints the median over the runs
of the time from spawn to the ``initialize`` reply and to the first tool result; the size of
the ``tools/list`` reply in bytes (agents pay for every schema on every turn; aim < 8 KB);
and the server's resident memory once idle with its embedding model loaded (aim < 300 MB).

Both servers are started as ``python -c <snippet>`` with the same interpreter, environment
and working directory. The memory file is seeded once, before the runs, with the demo story
repeated to ``--facts`` facts under the same project key the server computes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import table

OURS = "from reasongraph_mcp.server import main; main()"
EMPTY = """\
from mcp.server.mcpserver import MCPServer
mcp = MCPServer("empty")
@mcp.tool()
def echo(text: str) -> str:
    return text
mcp.run()
"""
PROTOCOL = "2025-11-25"
ROOT = Path(__file__).resolve().parent.parent


class Pipe:
    """A server process and line-oriented JSON-RPC over its stdin/stdout."""

    def __init__(self, snippet: str, env: dict[str, str], cwd: Path) -> None:
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", snippet], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env, cwd=cwd,
        )
        self._next = 0

    def request(
        self, method: str, params: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], int]:
        """Send one request; return its response and the byte size of the response line."""
        self._next += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            msg["params"] = params
        self._send(msg)
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"server closed its stdout while we waited for {method}")
            reply = json.loads(line)
            if reply.get("id") == self._next:
                return reply, len(line.rstrip(b"\n"))

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    def handshake(self) -> float:
        reply, _ = self.request("initialize", {
            "protocolVersion": PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "evals.server", "version": "0"},
        })
        if "result" not in reply:
            raise RuntimeError(f"initialize failed: {reply}")
        took = self.elapsed()
        self.notify("notifications/initialized")
        return took

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply, _ = self.request("tools/call", {"name": name, "arguments": arguments})
        if "result" not in reply or reply["result"].get("isError"):
            raise RuntimeError(f"{name} failed: {reply}")
        return reply["result"]

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def seed(db: Path, project: str, n: int) -> None:
    from reasongraph_mcp.cli import DEMO_STORY
    from reasongraph_mcp.memory import Memory

    sentences = [s for _, _, group in DEMO_STORY for s in group]
    with Memory(db) as mem:
        batch = [f"{sentences[i % len(sentences)]} (note {i})" for i in range(n)]
        for start in range(0, n, 50):
            mem.remember(batch[start:start + 50], project=project, session=f"seed-{start // 50}")


def run(runs: int, facts: int) -> None:
    with tempfile.TemporaryDirectory(prefix="reasongraph-eval-") as tmp:
        work = Path(tmp) / "project"
        (work / ".git").mkdir(parents=True)
        db = Path(tmp) / "memory.db"
        seed(db, str(work), facts)
        env = dict(os.environ, REASONGRAPH_DB=str(db), PYTHONPATH=str(ROOT))
        env.pop("CLAUDE_PROJECT_DIR", None)

        servers = {
            "empty MCPServer": (EMPTY, "echo", {"text": "hi"}),
            "reasongraph": (OURS, "recall", {"query": "why were users logged out?"}),
        }
        inits: dict[str, list[float]] = {k: [] for k in servers}
        firsts: dict[str, list[float]] = {k: [] for k in servers}
        list_bytes: dict[str, int] = {}
        fts_only = 0
        for _ in range(runs):  # interleaved, so both servers see the same machine load
            for label, (snippet, tool, args) in servers.items():
                p = Pipe(snippet, env, work)
                try:
                    inits[label].append(p.handshake())
                    _, list_bytes[label] = p.request("tools/list", {})
                    result = p.call(tool, args)
                    firsts[label].append(p.elapsed())
                    fts_only += bool((result.get("structuredContent") or {}).get("note"))
                finally:
                    p.close()
        rows = [
            [label, statistics.median(inits[label]), min(inits[label]),
             statistics.median(firsts[label]), list_bytes[label]]
            for label in servers
        ]
        print(f"cold start over {runs} fresh processes each ({facts} facts in the file), seconds:")
        print(table(["server", "initialize (median)", "(min)", "first tool result (median)",
                     "tools/list bytes"], rows))
        gap = rows[1][1] - rows[0][1]
        print(f"initialize: reasongraph {gap * 1000:+.0f} ms vs the empty server (budget +300 ms)")
        print(f"first recall ran on FTS5 alone while the model loaded in {fts_only}/{runs} runs")
        print(f"tools/list reply: {list_bytes['reasongraph']} bytes (aim < 8192)")

        p = Pipe(OURS, env, work)
        try:
            p.handshake()
            early = p.rss_mb()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                result = p.call("recall", {"query": "Redis session keys"})
                if not (result.get("structuredContent") or {}).get("note"):
                    break
                time.sleep(0.25)
            time.sleep(1.0)
            idle = p.rss_mb()
        finally:
            p.close()
        print(f"RSS after initialize: {early:.0f} MB; idle with the model loaded: {idle:.0f} MB "
              "(aim < 300 MB)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m evals.server", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--facts", type=int, default=200)
    args = parser.parse_args(argv)
    run(args.runs, args.facts)


if __name__ == "__main__":
    main()
