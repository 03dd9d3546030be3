"""The MCP server as an agent meets it: ``reasongraph-mcp`` started as a subprocess and driven
by the SDK's stdio client over real pipes (initialize handshake, tools/list, tools/call), on a
real memory file with the packaged embedding model.

One server process serves the whole module (starting one costs about a second); the client
lives on a blocking portal's event loop so the tests themselves stay plain functions. Tests
for engine methods that are still being built are skipped until ``Memory`` has them; until
then, ``test_missing_engine_methods_are_reported_as_unavailable`` checks the tools say so.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from reasongraph_mcp import server
from reasongraph_mcp.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
OTHER_PROJECT = "/elsewhere/other-project"
TOOLS = {"remember", "recall", "why", "trace", "revise", "forget", "history"}


def server_command() -> list[str]:
    """The console script of this environment when installed, else the same entry point
    (``reasongraph_mcp.server:main``) through ``python -m reasongraph_mcp.server``."""
    script = Path(sys.executable).with_name("reasongraph-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "reasongraph_mcp.server"]


class Stdio:
    """A synchronous face on an MCP client connected over stdio."""

    def __init__(self, portal: BlockingPortal, client: Client, project: Path) -> None:
        self.portal = portal
        self.client = client
        self.project = project

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        return self.portal.call(self.client.call_tool, tool, args)

    def ok(self, tool: str, args: dict[str, Any]) -> Any:
        result = self.call(tool, args)
        assert not result.is_error, result.content[0].text
        assert result.structured_content is not None
        return result

    def error(self, tool: str, args: dict[str, Any]) -> str:
        result = self.call(tool, args)
        assert result.is_error, f"{tool}({args}) should fail: {result}"
        text = result.content[0].text
        assert "Traceback" not in text
        return text


@pytest.fixture(scope="module")
def stdio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stdio]:
    tmp = tmp_path_factory.mktemp("stdio")
    project = tmp / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "src" / "pkg").mkdir(parents=True)
    db = tmp / "memory.db"
    # A fact of another project, written before the server starts: recall must not see it
    # unless the agent asks for every project.
    with Memory(db, embedder="none") as mem:
        mem.remember("The billing-gateway retries webhooks five times.", project=OTHER_PROJECT)

    params = StdioServerParameters(
        command=server_command()[0],
        args=server_command()[1:],
        # Started in a subfolder: the project key must still be the git top-level.
        cwd=str(project / "src" / "pkg"),
        env={
            "REASONGRAPH_DB": str(db),
            "REASONGRAPH_CACHE": str(tmp / "cache"),
            "REASONGRAPH_SESSION": "test-session",
            "PYTHONPATH": str(ROOT),
        },
    )
    with start_blocking_portal() as portal:
        client = Client(params, mode="legacy", read_timeout_seconds=60)
        with portal.wrap_async_context_manager(client) as connected:
            yield Stdio(portal, connected, project)


# -- handshake and listing ---------------------------------------------------------------------


def test_the_handshake_carries_instructions_about_what_the_memory_is_for(stdio: Stdio) -> None:
    instructions = stdio.client.instructions or ""
    assert "recall" in instructions and "remember" in instructions
    assert len(instructions.splitlines()) <= 8


def test_tools_list_has_the_seven_tools_small_and_annotated(stdio: Stdio) -> None:
    listing = stdio.portal.call(stdio.client.list_tools)
    tools = {t.name: t for t in listing.tools}
    assert set(tools) == TOOLS
    wire = listing.model_dump_json(by_alias=True, exclude_none=True)
    assert len(wire.encode()) < 8192, f"tools/list is {len(wire)} bytes"
    for tool in tools.values():
        assert tool.description and len(tool.description) < 450
        assert tool.output_schema is not None, f"{tool.name} has no typed output"
        assert "title" not in json.dumps(tool.input_schema)
    for name in ("recall", "why", "trace", "history"):
        assert tools[name].annotations is not None and tools[name].annotations.read_only_hint
    assert tools["forget"].annotations is not None and tools["forget"].annotations.destructive_hint


# -- remember and recall -----------------------------------------------------------------------


def test_remember_then_recall_cites_id_date_session_in_this_project(stdio: Stdio) -> None:
    stored = stdio.ok("remember", {
        "text": "We pinned numpy below 2.0 because the Parquet writer crashes on 2.0.",
        "when": "2026-02-03",
    }).structured_content
    assert stored["ids"] and stored["ids"] == stored["created"]
    fact = stored["ids"][0]

    result = stdio.ok("recall", {"query": "why is numpy pinned?"})
    facts = result.structured_content["facts"]
    hit = next(f for f in facts if f["id"] == fact)
    assert hit["project"] == str(stdio.project)  # the git top-level, not the cwd
    assert hit["session"] == "test-session"
    assert hit["date"].startswith("2026-02-03")
    text = result.content[0].text
    assert f"#{fact} 2026-02-03 test-session" in text

    again = stdio.ok("remember", {"text": "We pinned numpy below 2.0 because the Parquet "
                                           "writer crashes on 2.0."}).structured_content
    assert again["restated"] == [fact] and again["created"] == []


def test_recall_stays_in_the_project_unless_all_projects(stdio: Stdio) -> None:
    query = {"query": "billing-gateway webhooks retries"}
    inside = stdio.ok("recall", query).structured_content["facts"]
    assert all(f["project"] == str(stdio.project) for f in inside)
    everywhere = stdio.ok("recall", {**query, "all_projects": True}).structured_content["facts"]
    assert any(f["project"] == OTHER_PROJECT for f in everywhere)
    assert OTHER_PROJECT in stdio.ok("recall", {**query, "all_projects": True}).content[0].text


def test_recall_reports_when_it_ran_without_the_model(stdio: Stdio) -> None:
    result = stdio.ok("recall", {"query": "Parquet writer"})
    note = result.structured_content["note"]
    # Either the model is ready (no note) or the result says recall used FTS5 alone.
    assert note is None or "FTS5" in note
    if note:
        assert note in result.content[0].text


# -- bad arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "says"),
    [
        ("remember", {}, "text"),
        ("remember", {"text": "   "}, "nothing to remember"),
        ("remember", {"text": "A fact.", "when": "next blue moon"}, "time"),
        ("recall", {"query": ""}, "non-empty query"),
        ("recall", {"query": "x", "k": 0}, "k"),
        ("recall", {"query": "x", "k": "many"}, "k"),
        ("recall", {}, "query"),
        ("why", {}, "question"),
        ("trace", {"fact": 1, "mode": "sideways"}, "mode"),
        ("trace", {"fact": 1, "mode": "chain"}, "to"),
        ("trace", {"fact": "some words", "mode": "what_if"}, "fact id"),
        ("revise", {"fact": 1}, "reason"),
        ("revise", {"fact": 0, "reason": "typo"}, "fact"),
        ("forget", {}, "exactly one"),
        ("forget", {"fact": 1, "session": "s1"}, "exactly one"),
        ("history", {}, "target"),
        ("no_such_tool", {}, "no_such_tool"),
    ],
)
def test_bad_arguments_give_a_tool_error_not_a_crash(
    stdio: Stdio, tool: str, args: dict[str, Any], says: str
) -> None:
    message = stdio.error(tool, args)
    assert says.lower() in message.lower()


# -- the causal and history tools (run once the engine has them) -------------------------------


def _story(stdio: Stdio) -> dict[str, int]:
    texts = [
        "We set the Redis maxmemory-policy to allkeys-lru, so Redis evicts session keys "
        "when its memory is full.",
        "Users were logged out during checkout because Redis evicted their session keys.",
    ]
    return {t: stdio.ok("remember", {"text": t}).structured_content["ids"][0] for t in texts}


def test_why_returns_cited_chains_as_numbered_steps(stdio: Stdio) -> None:
    policy, logout = _story(stdio).values()
    result = stdio.ok("why", {"question": "why were users logged out during checkout?"})
    root = result.structured_content["causes"][0]
    assert root["id"] == policy
    assert [s["id"] for s in root["chain"]] == [policy, logout]  # root first
    assert root["chain"][1]["cue"] == "because" and root["chain"][1]["date"]
    text = result.content[0].text
    assert text.startswith(f"Cause 1: #{policy} ")
    assert f"  1. #{policy} " in text and f"  2. #{logout} " in text and "(because)" in text
    by_id = stdio.ok("why", {"question": logout}).structured_content
    assert by_id["causes"][0]["id"] == policy


def test_trace_walks_effects_and_causes(stdio: Stdio) -> None:
    policy, logout = _story(stdio).values()
    effects = stdio.ok("trace", {"fact": policy})
    assert effects.structured_content["mode"] == "effects"
    nodes = {n["id"]: n for n in effects.structured_content["nodes"]}
    assert nodes[logout]["depth"] == 1 and nodes[logout]["via"] == policy
    assert f"#{logout} (from #{policy})" in effects.content[0].text
    causes = stdio.ok("trace", {"fact": f"#{logout}", "mode": "causes"}).structured_content
    assert policy in {n["id"] for n in causes["nodes"]}


def test_trace_chain_and_what_if(stdio: Stdio) -> None:
    policy, logout = _story(stdio).values()
    chain = stdio.ok("trace", {"fact": policy, "mode": "chain", "to": logout})
    assert [s["id"] for s in chain.structured_content["chain"]] == [policy, logout]
    assert chain.content[0].text.startswith("Chain (2 steps):")
    what_if = stdio.ok("trace", {"fact": policy, "mode": "what_if"})
    assert what_if.content[0].text.startswith(f"If #{policy} were false")
    collapsed = {n["id"] for n in what_if.structured_content["nodes"]}
    survives = {n["id"] for n in what_if.structured_content["survives"]}
    assert logout in collapsed | survives and not collapsed & survives


def test_revise_supersedes_or_retracts_and_history_keeps_both(stdio: Stdio) -> None:
    old = stdio.ok("remember", {"text": "The ledger service uses PostgreSQL 16."})
    old_id = old.structured_content["ids"][0]
    revised = stdio.ok("revise", {"fact": old_id, "reason": "moved to the edge",
                                  "new_text": "The ledger service uses SQLite."})
    assert revised.structured_content["action"] == "superseded"
    new_id = revised.structured_content["new_id"]
    assert new_id and new_id != old_id
    current = stdio.ok("recall", {"query": "ledger service database"}).structured_content
    assert old_id not in {f["id"] for f in current["facts"]}
    retracted = stdio.ok("revise", {"fact": new_id, "reason": "never shipped"})
    assert retracted.structured_content == {"fact": new_id, "action": "retracted", "new_id": None}
    events = stdio.ok("history", {"target": old_id}).structured_content["events"]
    assert any("supersed" in e["action"] for e in events)
    assert "not found" in stdio.error("revise", {"fact": 987654, "reason": "x"})


def test_history_of_a_fact_and_of_an_entity(stdio: Stdio) -> None:
    fact = stdio.ok("remember", {"text": "The nightly job exports the ledger to S3."})
    fact_id = fact.structured_content["ids"][0]
    events = stdio.ok("history", {"target": fact_id}).structured_content["events"]
    assert events and events[0]["fact_id"] == fact_id
    assert isinstance(stdio.ok("history", {"target": "S3"}).structured_content["events"], list)
    assert "not found" in stdio.error("history", {"target": 987654})


def test_forget_erases_one_fact(stdio: Stdio) -> None:
    fact = stdio.ok("remember", {"text": "The staging password is hunter2-rotated."})
    fact_id = fact.structured_content["ids"][0]
    result = stdio.ok("forget", {"fact": fact_id})
    assert result.structured_content == {
        "deleted": 1, "pending_exchanges": 0, "spool_files": 0, "state_files": 0,
        "summary": "Erased 1 fact(s).",
    }
    assert result.content[0].text == "Erased 1 fact(s)."
    hits = stdio.ok("recall", {"query": "staging password"}).structured_content["facts"]
    assert fact_id not in {h["id"] for h in hits}


# -- process hygiene ---------------------------------------------------------------------------


def test_server_exits_when_its_parent_dies(tmp_path: Path) -> None:
    """The parent dies while the server's stdin stays open (this test holds the pipe): only
    the parent watch can notice, and the server must not linger. The parent waits for the
    initialize reply first, so the server is surely up when the parent goes."""
    read_end, write_end = os.pipe()
    pid = 0
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}
    launcher = (
        "import os, subprocess, sys\n"
        f"p = subprocess.Popen({server_command()!r}, stdin={read_end}, "
        "stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)\n"
        f"os.write({write_end}, {(json.dumps(request) + chr(10)).encode()!r})\n"
        "reply = p.stdout.readline()\n"
        "print(p.pid, b'serverInfo' in reply, flush=True)\n"
    )
    env = dict(os.environ, REASONGRAPH_DB=str(tmp_path / "m.db"), REASONGRAPH_EMBED_MODEL="none",
               PYTHONPATH=str(ROOT))
    try:
        out = subprocess.run(
            [sys.executable, "-c", launcher], pass_fds=(read_end, write_end), env=env,
            cwd=tmp_path, capture_output=True, text=True, check=True, timeout=60,
        )
        pid_text, answered = out.stdout.split()
        assert answered == "True", out
        pid = int(pid_text)
        deadline = time.monotonic() + 20  # a generous ceiling, not a performance claim
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.1)
        assert not _alive(pid), "the orphaned server is still running"
    finally:
        os.close(read_end)
        os.close(write_end)
        if pid and _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in state  # a zombie has exited; only its parent may reap it


def test_project_root_walks_up_to_the_git_top_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / "a" / "b").mkdir(parents=True)
    (repo / ".git").mkdir()
    worktree = tmp_path / "wt"
    (worktree / "x").mkdir(parents=True)
    (worktree / ".git").write_text("gitdir: /somewhere/.git/worktrees/wt\n")
    loose = tmp_path / "loose"
    loose.mkdir()
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    assert server.project_root(repo / "a" / "b") == str(repo)
    assert server.project_root(worktree / "x") == str(worktree)
    monkeypatch.chdir(repo / "a")
    assert server.project_root() == str(repo)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(worktree))
    assert server.project_root() == str(worktree)
    if not any((folder / ".git").exists() for folder in loose.parents):
        assert server.project_root(loose) == str(loose)


def test_importing_the_server_module_is_cheap() -> None:
    """Nothing heavy before the handshake: the module must not import the SDK, apsw or
    fastembed at import time (build_server and the lifespan do, later)."""
    code = ("import sys, reasongraph_mcp.server; heavy = [m for m in ('mcp', 'apsw', 'fastembed', "
            "'reasongraph_mcp.memory.api') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_the_server_exits_cleanly_when_stdin_closes_while_the_model_loads(tmp_path: Path) -> None:
    """The client goes away 1.5-2.5 s after start, while the embedder is still loading: the
    server exits 0 every time (it used to abort with SIGABRT in about a third of such exits)."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    for i, delay in enumerate((1.5, 1.8, 2.0, 2.2, 2.5)):
        env = dict(os.environ, REASONGRAPH_DB=str(tmp_path / f"m{i}.db"))
        proc = subprocess.Popen(server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, cwd=tmp_path)
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(init) + "\n").encode())
        proc.stdin.flush()
        time.sleep(delay)
        proc.stdin.close()
        proc.stdin = None
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, (delay, err.decode()[-300:])
