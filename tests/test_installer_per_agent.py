"""End to end, per agent: install into a temporary HOME, read back the config the installer
wrote, run the exact hook commands it holds (through the shell, as the harness does) with
that agent's stdin JSON, and start the exact MCP command it holds through a real stdio
client. OpenCode has no shell hooks: its installed plugin runs under node with a fake
client, as OpenCode would load it.

The memory file is chosen with ``--db`` and REASONGRAPH_DB is removed from the hooks'
environment, so a hook that lands in the right file proves the installed command carries
the choice by itself.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import textwrap
import time
import tomllib
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from reasongraph_mcp import install
from reasongraph_mcp.memory import Memory

FACT = "We chose Redis 7 for the session store because Memcached lost sessions on restart."
PROMPT = "Which Redis version backs the session store, and why did we pick it?"
REPLY = "Redis 7 backs the session store; Memcached lost sessions on every restart."


@pytest.fixture
def agent_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    for name, value in {
        "HOME": home, "XDG_DATA_HOME": home / ".local" / "share",
        "XDG_CONFIG_HOME": home / ".config", "XDG_CACHE_HOME": home / ".cache",
        "CLAUDE_CONFIG_DIR": home / ".claude", "CODEX_HOME": home / ".codex",
        "OPENCODE_CONFIG_DIR": home / ".config" / "opencode",
    }.items():
        monkeypatch.setenv(name, str(value))
    monkeypatch.delenv("REASONGRAPH_DB", raising=False)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    db = tmp_path / "memory" / "team.db"
    with Memory(db, embedder="none") as mem:
        mem.remember(FACT, project=str(project), session="earlier")
    return {"home": home, "project": project, "db": db, "cache": tmp_path / "model-cache"}


def hook_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    env["PYTHONPATH"] = ""  # the copied scripts need nothing but the standard library
    return env


def run_hook(command: str, event: dict[str, Any], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a hook command the way Claude Code and Codex do: through the shell, JSON on stdin."""
    start = time.monotonic()
    done = subprocess.run(command, shell=True, input=json.dumps(event), capture_output=True,
                          text=True, cwd=cwd, env=hook_env(), timeout=30)
    assert time.monotonic() - start < 10  # within the hook timeout the installer set
    assert done.returncode == 0, done.stderr
    return done


def inbox(db: Path) -> list[tuple[str, str, str, str]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT session, harness, prompt, response FROM inbox").fetchall()
    finally:
        conn.close()


def recall_over_stdio(argv: list[str], env: dict[str, str], cwd: Path, cache: Path) -> str:
    """Start the MCP command, list the tools, recall the fact; return the recall's text."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    full_env.update(env)  # the entry's own environment, as the harness merges it
    full_env.update(REASONGRAPH_EMBED_MODEL="none", REASONGRAPH_CACHE=str(cache))
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=full_env, cwd=str(cwd))

    async def go() -> str:
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"remember", "recall", "why", "trace", "revise"} <= tools
            result = await client.call_tool("recall", {"query": "Redis session store"})
            assert not result.is_error
            return "\n".join(getattr(c, "text", "") for c in result.content)

    return anyio.run(go)


def check_hooks(commands: dict[str, str], events: dict[str, dict[str, Any]],
                env: dict[str, Path], harness: str) -> None:
    for command in commands.values():
        assert command.startswith('"/') and str(install.hooks_dir()) in command
        assert "REASONGRAPH_DB" not in command and "&&" not in command
    out = run_hook(commands["UserPromptSubmit"], events["UserPromptSubmit"], env["project"])
    context = json.loads(out.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "UserPromptSubmit"
    assert "Redis 7" in context["additionalContext"]
    done = run_hook(commands["Stop"], events["Stop"], env["project"])
    assert done.stdout == ""  # any Stop output would make the agent continue
    rows = inbox(env["db"])
    assert len(rows) == 1 and rows[0][0] == "s-e2e" and rows[0][1] == harness
    assert "Redis version" in rows[0][2] and "Memcached" in rows[0][3]


def claude_events(project: Path) -> dict[str, dict[str, Any]]:
    common = {"session_id": "s-e2e", "transcript_path": str(project / "t.jsonl"),
              "cwd": str(project), "permission_mode": "default"}
    return {
        "UserPromptSubmit": {**common, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT},
        "Stop": {**common, "hook_event_name": "Stop", "stop_hook_active": False,
                 "last_assistant_message": REPLY},
    }


@pytest.mark.parametrize("scope", ["user", "project"])
def test_claude_code_hooks_and_server_work_as_installed(
    agent_env: dict[str, Path], scope: str
) -> None:
    env = agent_env
    assert install.main(["--harness", "claude-code", "--scope", scope, "--db", str(env["db"])]) == 0
    if scope == "user":
        mcp = json.loads((env["home"] / ".claude" / ".claude.json").read_text())
        settings = json.loads((env["home"] / ".claude" / "settings.json").read_text())
    else:
        mcp = json.loads((env["project"] / ".mcp.json").read_text())
        settings = json.loads((env["project"] / ".claude" / "settings.local.json").read_text())
        assert "reasongraph" in settings["enabledMcpjsonServers"]
    commands = {event: settings["hooks"][event][0]["hooks"][0]["command"]
                for event in ("UserPromptSubmit", "Stop")}
    assert all(settings["hooks"][e][0]["hooks"][0]["timeout"] == 10 for e in commands)
    check_hooks(commands, claude_events(env["project"]), env, "claude-code")

    entry = mcp["mcpServers"]["reasongraph"]
    assert entry["type"] == "stdio"
    text = recall_over_stdio([entry["command"], *entry["args"]], entry["env"], env["project"],
                             env["cache"])
    assert "Redis 7" in text


def test_codex_hooks_and_server_work_as_installed(agent_env: dict[str, Path]) -> None:
    env = agent_env
    assert install.main(["--harness", "codex", "--db", str(env["db"])]) == 0
    config = tomllib.loads((env["home"] / ".codex" / "config.toml").read_text())
    hooks = json.loads((env["home"] / ".codex" / "hooks.json").read_text())["hooks"]
    commands = {event: hooks[event][0]["hooks"][0]["command"]
                for event in ("UserPromptSubmit", "Stop")}
    common = {"session_id": "s-e2e", "transcript_path": None, "cwd": str(env["project"]),
              "model": "gpt-5", "permission_mode": "default", "turn_id": "turn-1"}
    events = {
        "UserPromptSubmit": {**common, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT},
        "Stop": {**common, "hook_event_name": "Stop", "stop_hook_active": False,
                 "last_assistant_message": REPLY},
    }
    check_hooks(commands, events, env, "codex")

    entry = config["mcp_servers"]["reasongraph"]
    assert entry["startup_timeout_sec"] >= 30
    text = recall_over_stdio([entry["command"], *entry["args"]], entry["env"], env["project"],
                             env["cache"])
    assert "Redis 7" in text


# OpenCode's order of calls, as in 1.18: the title generator's request may come before or
# after the agent loop's first step; each step of the loop calls messages.transform, then
# system.transform for its own request; a tool call starts another step.
DRIVER = textwrap.dedent("""
    import { pathToFileURL } from "node:url"
    const [plugin, project, prompt, reply] = process.argv.slice(2)
    const mod = await import(pathToFileURL(plugin).href)
    const messages = [
      { info: { role: "user", sessionID: "s-e2e" }, parts: [{ type: "text", text: prompt }] },
      { info: { role: "assistant", sessionID: "s-e2e" }, parts: [{ type: "text", text: reply }] },
    ]
    const TITLE = "You are a title generator. You output ONLY a thread title."
    const agents = [{ name: "build", prompt: "" }, { name: "title", hidden: true, prompt: TITLE }]
    const client = {
      session: { messages: async () => ({ data: messages }) },
      app: { agents: async () => ({ data: agents }) },
    }
    const hooks = await mod.default({ client, directory: project })
    const system = hooks["experimental.chat.system.transform"]
    const step = (msgs) => hooks["experimental.chat.messages.transform"]({}, { messages: msgs })
    const request = async (head) => {
      const output = { system: [head] }
      await system({ sessionID: "s-e2e" }, output)
      return output.system.slice(1)
    }
    const out = {}
    out.titleFirst = await request(TITLE)
    await step(messages.slice(0, 1))
    out.titleRacing = await request(TITLE + " Generate a title for this conversation")
    out.step1 = await request("You are opencode, the agent.")
    out.sameStepAgain = await request("You are opencode, the agent.")
    await step(messages.slice(0, 1))
    out.step2 = await request("You are opencode, the agent.")
    await hooks.event({ event: { type: "session.idle", properties: { sessionID: "s-e2e" } } })
    console.log(JSON.stringify(out))
""")


def test_opencode_plugin_and_server_work_as_installed(
    agent_env: dict[str, Path], tmp_path: Path
) -> None:
    env = agent_env
    assert install.main(["--harness", "opencode", "--db", str(env["db"])]) == 0
    config = json.loads((env["home"] / ".config" / "opencode" / "opencode.json").read_text())
    entry = config["mcp"]["reasongraph"]
    assert entry["type"] == "local" and entry["enabled"] is True
    plugin = env["home"] / ".config" / "opencode" / "plugins" / "reasongraph.js"
    assert plugin.exists()

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: cannot load the OpenCode plugin")
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    done = subprocess.run([node, str(driver), str(plugin), str(env["project"]), PROMPT, REPLY],
                          capture_output=True, text=True, cwd=env["project"], env=hook_env(),
                          timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # never the title generator's request, before or during the agent's first step
    assert out["titleFirst"] == [] and out["titleRacing"] == []
    # every request of the agent's turn, once each, the step after a tool call included
    assert len(out["step1"]) == 1 and "Redis 7" in out["step1"][0]
    assert out["step2"] == out["step1"] and out["sameStepAgain"] == []
    rows = inbox(env["db"])
    assert len(rows) == 1 and rows[0][1] == "opencode" and "Memcached" in rows[0][3]

    text = recall_over_stdio(entry["command"], entry["environment"], env["project"], env["cache"])
    assert "Redis 7" in text


def test_hooks_survive_the_package_going_away(agent_env: dict[str, Path], tmp_path: Path) -> None:
    """What `uv cache clean` does to a uvx install: the package folder vanishes. The hook
    commands point only at the copies in the data folder and a stable interpreter."""
    env = agent_env
    assert install.main(["--harness", "claude-code", "--db", str(env["db"])]) == 0
    settings = json.loads((env["home"] / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    package = Path(install.__file__).resolve().parent
    assert str(package / "hooks") not in command
    # Run from an unrelated folder with no access to the package on sys.path.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    event = claude_events(env["project"])["UserPromptSubmit"]
    done = subprocess.run(command, shell=True, input=json.dumps(event), capture_output=True,
                          text=True, cwd=elsewhere, env={**hook_env(), "PYTHONNOUSERSITE": "1"},
                          timeout=30)
    assert done.returncode == 0 and "Redis 7" in done.stdout
