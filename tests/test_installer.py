"""The installer, the uninstaller and the doctor against real config files in a temporary
HOME that already hold other servers and hooks.

Every test points HOME, the XDG folders and each harness's config folder at tmp_path, so
nothing here can touch the real home. The round-trip tests snapshot every file and folder
under tmp_path (bytes and all) before install and after uninstall and require them equal.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from reasongraph_mcp import cli, doctor, install, uninstall

CLAUDE_SETTINGS = """{
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]
    },
    "theme": "dark \u00e9t\u00e9"
}"""  # 4-space indent, no trailing newline, non-ASCII: must come back byte for byte
CLAUDE_JSON = (
    '{"numStartups": 42, "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp"}}}\n'
)
MCP_JSON = '{\n  "mcpServers": {\n    "postgres": {"command": "pg-mcp", "args": ["--ro"]}\n  }\n}\n'
LOCAL_SETTINGS = '{"enabledMcpjsonServers": ["postgres"], "permissions": {"deny": []}}'
CODEX_TOML = """# my codex config
model = "gpt-5"   # trailing comment

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]

[mcp_servers.docs.env]
DOCS_TOKEN_FILE = "~/.docs"

[profiles.fast]
model = "gpt-5-mini\""""  # no trailing newline on purpose
CODEX_HOOKS = (
    '{"description": "team hooks", "hooks": {"UserPromptSubmit": '
    '[{"hooks": [{"type": "command", "command": "log-prompt", "timeout": 3}]}]}}'
)
OPENCODE_JSON = """{
  "$schema": "https://opencode.ai/config.json",
  "mcp": {"context7": {"type": "remote", "url": "https://mcp.context7.com/mcp", "enabled": true}},
  "theme": "tokyonight"
}
"""


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A throwaway HOME with each harness's config folder, and a project (a git top-level)
    as the working directory."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("OPENCODE_CONFIG_DIR", str(home / ".config" / "opencode"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `opencode` binary: shape from the file
    monkeypatch.delenv("REASONGRAPH_DB", raising=False)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(project)
    return {"root": tmp_path, "home": home, "project": project}


def seed(env: dict[str, Path]) -> None:
    """Real config files of every harness, both scopes, already holding other entries."""
    home, project = env["home"], env["project"]
    files = {
        home / ".claude" / "settings.json": CLAUDE_SETTINGS,
        home / ".claude" / ".claude.json": CLAUDE_JSON,
        project / ".mcp.json": MCP_JSON,
        project / ".claude" / "settings.local.json": LOCAL_SETTINGS,
        home / ".codex" / "config.toml": CODEX_TOML,
        home / ".codex" / "hooks.json": CODEX_HOOKS,
        project / ".codex" / "config.toml": "[mcp_servers.local]\ncommand = \"l\"\n",
        home / ".config" / "opencode" / "opencode.json": OPENCODE_JSON,
        project / "opencode.json": '{"mcp": {}}',
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every folder (None) and file (its bytes) under ``root``, by relative path."""
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        if "__pycache__" in path.parts:
            continue
        rel = str(path.relative_to(root))
        out[rel] = None if path.is_dir() else path.read_bytes()
    return out


def run_install(*argv: str) -> int:
    return install.main(list(argv))


def run_uninstall(*argv: str) -> int:
    return uninstall.main(list(argv))


CASES = [(h, s) for h in install.HARNESSES for s in install.SCOPES]


@pytest.mark.parametrize(("harness", "scope"), CASES)
def test_install_then_uninstall_leaves_every_file_byte_identical(
    env: dict[str, Path], harness: str, scope: str, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(env)
    before = snapshot(env["root"])
    assert run_install("--harness", harness, "--scope", scope) == 0
    installed = snapshot(env["root"])
    assert installed != before
    assert run_uninstall("--harness", harness, "--scope", scope) == 0
    assert snapshot(env["root"]) == before


@pytest.mark.parametrize(("harness", "scope"), CASES)
def test_a_second_install_changes_nothing(
    env: dict[str, Path], harness: str, scope: str, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(env)
    assert run_install("--harness", harness, "--scope", scope) == 0
    first = snapshot(env["root"])
    capsys.readouterr()
    assert run_install("--harness", harness, "--scope", scope) == 0
    assert snapshot(env["root"]) == first
    assert "nothing changed" in capsys.readouterr().out


@pytest.mark.parametrize(("harness", "scope"), CASES)
def test_install_into_an_empty_home_then_uninstall_leaves_it_empty(
    env: dict[str, Path], harness: str, scope: str
) -> None:
    before = snapshot(env["root"])
    assert run_install("--harness", harness, "--scope", scope) == 0
    assert run_uninstall("--harness", harness, "--scope", scope) == 0
    assert snapshot(env["root"]) == before


def test_all_three_harnesses_in_both_scopes_round_trip_in_any_order(env: dict[str, Path]) -> None:
    seed(env)
    before = snapshot(env["root"])
    for harness, scope in CASES:
        assert run_install("--harness", harness, "--scope", scope, "--db",
                           str(env["root"] / "m.db")) == 0
    for harness, scope in reversed(CASES[1:]):
        assert run_uninstall("--harness", harness, "--scope", scope) == 0
    hooks = install.hooks_dir()
    assert (hooks / "prepare.py").exists()  # claude-code user still uses them
    assert run_uninstall("--harness", "all") == 0
    assert snapshot(env["root"]) == before


@pytest.mark.parametrize(
    ("harness", "scope", "relpath", "text"),
    [
        ("claude-code", "user", "home/.claude/settings.json", '{"hooks": {'),
        ("claude-code", "user", "home/.claude/.claude.json", "[1, 2]"),
        ("claude-code", "project", ".mcp.json", '{"mcpServers": "x"}'),
        ("codex", "user", "home/.codex/config.toml", "model = \n[broken"),
        ("codex", "user", "home/.codex/hooks.json", "{'single': 'quotes'}"),
        ("opencode", "user", "home/.config/opencode/opencode.json", '{"mcp": {}, // c\n}'),
    ],
)
def test_a_malformed_config_is_reported_and_nothing_is_written(
    env: dict[str, Path], harness: str, scope: str, relpath: str, text: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed(env)
    base = env["project"] if relpath.startswith(".") else env["root"]
    path = base / relpath
    path.write_text(text)
    before = snapshot(env["root"])
    assert run_install("--harness", harness, "--scope", scope) == 1
    err = capsys.readouterr().err
    assert path.name in err and "left untouched" in err and "Traceback" not in err
    assert snapshot(env["root"]) == before


def test_a_foreign_reasongraph_table_in_codex_config_is_not_overwritten(
    env: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config = env["home"] / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[mcp_servers.reasongraph]\ncommand = "mine"\n')
    before = snapshot(env["root"])
    assert run_install("--harness", "codex") == 1
    assert "not written by the installer" in capsys.readouterr().err
    assert snapshot(env["root"]) == before


@pytest.mark.parametrize(("harness", "scope"), CASES)
def test_dry_run_writes_nothing(
    env: dict[str, Path], harness: str, scope: str, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(env)
    before = snapshot(env["root"])
    assert run_install("--harness", harness, "--scope", scope, "--dry-run") == 0
    out = capsys.readouterr().out
    assert "would update" in out and "nothing written" in out
    assert snapshot(env["root"]) == before
    assert run_install("--harness", harness, "--scope", scope) == 0
    installed = snapshot(env["root"])
    assert run_uninstall("--harness", harness, "--scope", scope, "--dry-run") == 0
    assert "would " in capsys.readouterr().out
    assert snapshot(env["root"]) == installed


def test_other_entries_survive_and_a_backup_of_each_edited_file_is_kept(
    env: dict[str, Path],
) -> None:
    seed(env)
    assert run_install("--harness", "claude-code") == 0
    settings = json.loads((env["home"] / ".claude" / "settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(npm test:*)"]}
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "guard"
    stop = settings["hooks"]["Stop"]
    assert stop[0]["hooks"][0]["command"] == "notify-send done" and len(stop) == 2
    ours = stop[1]["hooks"][0]
    assert ours["timeout"] == 10 and ours["type"] == "command"
    assert ours["command"].startswith('"/') and ours["command"].endswith('capture.py"')
    servers = json.loads((env["home"] / ".claude" / ".claude.json").read_text())["mcpServers"]
    assert set(servers) == {"github", "reasongraph"}
    assert servers["reasongraph"]["type"] == "stdio"
    assert Path(servers["reasongraph"]["command"]).is_absolute()
    backups = list((install.data_dir() / "backups").iterdir())
    originals = {b.read_bytes() for b in backups}
    assert CLAUDE_SETTINGS.encode() in originals and CLAUDE_JSON.encode() in originals
    skill = env["home"] / ".claude" / "skills" / "reasongraph" / "SKILL.md"
    assert skill.read_text().startswith("---\nname: reasongraph\n")


def test_claude_project_scope_approves_the_server_in_settings_local(env: dict[str, Path]) -> None:
    seed(env)
    assert run_install("--harness", "claude-code", "--scope", "project") == 0
    project = env["project"]
    mcp = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert set(mcp) == {"postgres", "reasongraph"}
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert local["enabledMcpjsonServers"] == ["postgres", "reasongraph"]
    assert set(local["hooks"]) == {"UserPromptSubmit", "Stop"}
    assert (project / ".claude" / "skills" / "reasongraph" / "SKILL.md").exists()


def test_codex_gets_a_delimited_table_with_a_cold_start_timeout_and_a_trust_note(
    env: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    seed(env)
    assert run_install("--harness", "codex") == 0
    out = capsys.readouterr().out
    assert "/hooks" in out and "trust" in out
    text = (env["home"] / ".codex" / "config.toml").read_text()
    assert text.startswith(CODEX_TOML)  # other tables keep their bytes
    config = tomllib.loads(text)
    entry = config["mcp_servers"]["reasongraph"]
    assert entry["startup_timeout_sec"] >= 30 and Path(entry["command"]).is_absolute()
    assert config["mcp_servers"]["docs"]["env"] == {"DOCS_TOKEN_FILE": "~/.docs"}
    hooks = json.loads((env["home"] / ".codex" / "hooks.json").read_text())
    assert set(hooks) == {"description", "hooks"}  # Codex rejects other root keys
    assert hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "log-prompt"
    assert (env["home"] / ".agents" / "skills" / "reasongraph" / "SKILL.md").exists()


def test_codex_waits_for_the_server_and_passes_every_reasongraph_setting(
    env: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex runs a turn without an optional server's tools when it is not up within about a
    second, and gives a server only a fixed short list of variables: the block makes it wait
    (`required`) and names every REASONGRAPH_* setting, the shell's own extra ones too."""
    seed(env)
    before = snapshot(env["root"])
    monkeypatch.setenv("REASONGRAPH_SOMETHING_NEW", "1")
    assert run_install("--harness", "codex") == 0
    entry = tomllib.loads((env["home"] / ".codex" / "config.toml").read_text())[
        "mcp_servers"]["reasongraph"]
    assert entry["required"] is True and entry["startup_timeout_sec"] >= 30
    assert {"REASONGRAPH_DB", "REASONGRAPH_EMBED_MODEL", "REASONGRAPH_CACHE",
            "REASONGRAPH_SOMETHING_NEW"} <= set(entry["env_vars"])
    assert "env" not in entry
    capsys.readouterr()
    doctor.main(["--no-model"])
    out = capsys.readouterr().out
    assert "MCP server required; REASONGRAPH_* settings passed" in out
    assert run_uninstall("--harness", "codex") == 0
    assert snapshot(env["root"]) == before  # the exact inverse, new keys and all

    db = env["root"] / "team.db"  # --db: fixed in `env`, so not also taken from Codex's env
    assert run_install("--harness", "codex", "--db", str(db)) == 0
    entry = tomllib.loads((env["home"] / ".codex" / "config.toml").read_text())[
        "mcp_servers"]["reasongraph"]
    assert entry["env"] == {"REASONGRAPH_DB": str(db)}
    assert "REASONGRAPH_DB" not in entry["env_vars"]


def test_doctor_flags_a_codex_block_that_does_not_wait_or_pass_the_settings(
    env: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_install("--harness", "codex") == 0
    path = env["home"] / ".codex" / "config.toml"  # as an older installer wrote it
    text = path.read_text()
    path.write_text(re.sub(r"(?m)^(required = true|env_vars = .*)\n", "", text))
    monkeypatch.setenv("REASONGRAPH_DB", str(env["root"] / "elsewhere.db"))
    capsys.readouterr()
    assert doctor.main(["--no-model"]) == 1
    out = capsys.readouterr().out
    assert "not `required`" in out and "does not pass REASONGRAPH_DB" in out
    assert "install --harness codex" in out


def test_opencode_v2_shape_goes_under_mcp_servers(env: dict[str, Path]) -> None:
    seed(env)
    assert run_install("--harness", "opencode", "--opencode-shape", "v2") == 0
    config = json.loads((env["home"] / ".config" / "opencode" / "opencode.json").read_text())
    entry = config["mcp"]["servers"]["reasongraph"]
    assert entry["type"] == "local" and "enabled" not in entry
    assert config["mcp"]["context7"]["enabled"] is True
    assert run_install("--harness", "opencode") == 0  # the file now says v2: still a no-op
    assert run_uninstall("--harness", "opencode") == 0
    assert (env["home"] / ".config" / "opencode" / "opencode.json").read_text() == OPENCODE_JSON


def test_db_goes_to_the_server_env_and_to_stubs_never_a_shell_prefix_or_a_key(
    env: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-should-never-be-written-000000000000")
    db = env["root"] / "data" / "team.db"
    for harness in install.HARNESSES:
        assert run_install("--harness", harness, "--db", str(db)) == 0
    texts = [p.read_text() for p in env["home"].rglob("*") if p.is_file()]
    assert not any("sk-test-should-never" in t for t in texts)
    claude = json.loads((env["home"] / ".claude" / ".claude.json").read_text())
    assert claude["mcpServers"]["reasongraph"]["env"] == {"REASONGRAPH_DB": str(db)}
    settings = json.loads((env["home"] / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert "REASONGRAPH_DB=" not in command and "/db-" in command
    codex = tomllib.loads((env["home"] / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["reasongraph"]["env"] == {"REASONGRAPH_DB": str(db)}
    oc = json.loads((env["home"] / ".config" / "opencode" / "opencode.json").read_text())
    assert oc["mcp"]["reasongraph"]["environment"] == {"REASONGRAPH_DB": str(db)}


def test_uninstall_keeps_entries_the_user_added_after_install(env: dict[str, Path]) -> None:
    seed(env)
    assert run_install("--harness", "claude-code") == 0
    path = env["home"] / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    data["model"] = "opus"
    path.write_text(json.dumps(data))
    assert run_uninstall("--harness", "claude-code") == 0
    left = json.loads(path.read_text())
    assert left["model"] == "opus" and "reasongraph" not in path.read_text()
    assert set(left["hooks"]) == {"Stop", "PreToolUse"}


def test_purge_deletes_the_memory_and_keeps_it_otherwise(env: dict[str, Path]) -> None:
    from reasongraph_mcp.memory import Memory

    db = env["root"] / "m.db"
    with Memory(db, embedder="none") as mem:
        mem.remember("We chose Redis 7 for the session store.", project=str(env["project"]))
    assert run_install("--harness", "claude-code", "--db", str(db)) == 0
    assert run_uninstall("--harness", "claude-code", "--db", str(db)) == 0
    assert db.exists()
    assert run_install("--harness", "claude-code", "--db", str(db)) == 0
    assert run_uninstall("--harness", "claude-code", "--db", str(db), "--purge") == 0
    assert not db.exists() and not Path(f"{db}-wal").exists()


def test_the_cli_routes_install_uninstall_and_doctor(
    env: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    seed(env)
    before = snapshot(env["root"])
    assert cli.main(["install", "--harness", "codex"]) == 0
    assert cli.main(["doctor", "--no-model"]) == 1  # hooks not trusted yet
    out = capsys.readouterr().out
    assert "hooks not trusted yet" in out and "fix: start `codex`, type /hooks" in out
    assert cli.main(["uninstall", "--harness", "codex"]) == 0
    assert snapshot(env["root"]) == before


def test_doctor_reports_wiring_database_and_each_problem_with_its_fix(
    env: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from reasongraph_mcp.memory import Memory

    db = env["root"] / "m.db"
    with Memory(db, embedder="none") as mem:
        mem.remember("The checkout API must answer in under 50 ms.")
    assert run_install("--harness", "claude-code", "--db", str(db)) == 0
    assert run_install("--harness", "opencode", "--db", str(db)) == 0
    capsys.readouterr()
    assert doctor.main(["--db", str(db), "--no-model"]) == 0
    out = capsys.readouterr().out
    assert "claude-code (user)" in out and "UserPromptSubmit hook" in out
    assert "codex\n  --   not wired" in out
    assert "integrity check: ok" in out and "schema version" in out
    assert "no server holds the hook socket" in out and "No problems found." in out

    (install.hook_folder(db) / "capture.py").unlink()  # a dead path
    assert doctor.main(["--db", str(db), "--no-model", "--json"]) == 1
    checks = json.loads(capsys.readouterr().out)
    broken = [c for c in checks if c["status"] == "problem"]
    assert broken and all(c["fix"] for c in broken)
    assert any("Stop hook points at missing" in c["message"] for c in broken)
    assert any("install --harness claude-code --scope user" in c["fix"] for c in broken)


def test_doctor_loads_the_model_and_reports_a_missing_memory_file(
    env: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REASONGRAPH_EMBED_MODEL", "hash-16")
    assert doctor.main(["--db", str(env["root"] / "none.db")]) == 0
    out = capsys.readouterr().out
    assert "no memory file yet" in out and "embeddings: hash" in out and "16-d" in out


def test_one_meaning_per_setting_the_plugin_folder_is_not_the_servers_off_switch(
    env: dict[str, Path],
) -> None:
    """REASONGRAPH_HOOKS=off turns the server's hook socket off; the plugin's folder of hook
    scripts is REASONGRAPH_HOOKS_DIR, so `off` never becomes `python -S off/prepare.py`."""
    source = install.plugin_source(None).decode()
    assert "process.env.REASONGRAPH_HOOKS_DIR ||" in source
    assert not re.search(r"REASONGRAPH_HOOKS\b(?!_DIR)", source)
