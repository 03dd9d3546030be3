"""The command line for people: ``reasongraph-mcp <command>`` over a real memory file.

Most tests call ``cli.main`` in-process with the model turned off (the model is
irrelevant to argument handling and rendering); two run the real entry point as a process
to check exit codes and that mistakes print one line, never a traceback.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reasongraph_mcp import cli
from reasongraph_mcp.memory import Memory


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (a git top-level) as the working directory, FTS5-only recall."""
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.setenv("REASONGRAPH_EMBED_MODEL", "none")
    return project


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_remember_then_recall_prints_aligned_rows_with_ids_dates_sessions(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "remember", "We chose Redis 7 for the session store.",
                       "--session", "s1", "--when", "2026-03-02")
    assert code == 0 and out.startswith("Remembered 1 fact(s): #")
    run(capsys, "remember", "The checkout API must answer in under 50 ms.", "--session", "s22",
        "--when", "2026-03-09")
    code, out, _ = run(capsys, "recall", "Redis session store checkout API")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("#")]
    assert len(rows) == 2
    assert out.splitlines()[-1].startswith("(embeddings turned off")  # says recall used FTS5
    assert any("2026-03-02  s1 " in r and "Redis 7" in r for r in rows)
    # Columns line up: the kind column starts at the same offset on every row.
    kinds = [r.index(k) for r in rows for k in ("decision", "constraint", "observation") if k in r]
    assert len(set(kinds)) == 1


def test_json_output_is_the_same_record_the_mcp_tool_returns(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "remember", "The ledger export runs nightly at 02:00 UTC.", "--json")
    code, out, _ = run(capsys, "recall", "ledger export", "--json")
    data = json.loads(out)
    assert code == 0 and set(data) == {"facts", "note"}
    fact = data["facts"][0]
    assert fact["project"] == str(repo) and "ledger export" in fact["text"]
    assert "FTS5" in data["note"]


def test_recall_is_scoped_to_the_project_unless_asked(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    run(capsys, "remember", "The billing service retries webhooks five times.",
        "--project", str(other))
    _, out, _ = run(capsys, "recall", "billing webhooks")
    assert out.splitlines()[0] == "No facts found."
    _, out, _ = run(capsys, "recall", "billing webhooks", "--all-projects")
    assert str(other) in out and "five times" in out


def test_stats_reports_counts_size_and_model(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "remember", "We use ruff for linting.", "--session", "s1")
    code, out, _ = run(capsys, "stats")
    assert code == 0
    for label in ("file", "size", "facts", "entities", "links", "sessions", "projects", "model"):
        assert any(line.startswith(label) for line in out.splitlines()), label
    code, out, _ = run(capsys, "stats", "--json")
    data = json.loads(out)
    assert data["facts"] == 1 and data["projects"] == 1 and data["file_bytes"] > 0
    assert "FTS5" in data["model"] or "none" in data["model"]


@pytest.mark.parametrize(
    ("argv", "code", "says"),
    [
        (["frobnicate"], 2, "invalid choice"),
        (["recall"], 2, "required: query"),
        (["recall", "x", "-k", "many"], 2, "invalid int"),
        (["recall", "   "], 1, "non-empty query"),
        (["recall", "x", "-k", "0"], 1, "k must be"),
        (["remember", "   "], 1, "nothing to remember"),
        (["remember", "A fact.", "--when", "next blue moon"], 1, "cannot read time"),
        (["forget"], 2, "one of the arguments"),
        (["forget", "--session", "s1"], 2, "--yes"),
        (["forget", "--whole-project"], 2, "--yes"),
        (["import", "/no/such/file.jsonl"], 2, "no such file"),
        (["doctor", "--bogus"], 2, "unrecognized arguments"),
    ],
)
def test_mistakes_print_one_line_and_exit_non_zero(
    repo: Path, capsys: pytest.CaptureFixture[str], argv: list[str], code: int, says: str
) -> None:
    got, out, err = run(capsys, *argv)
    assert got == code
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert says in err and err.startswith("reasongraph-mcp")


def test_engine_methods_not_yet_built_say_so_in_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, method in ((["why", "the", "bug"], "why"), (["trace", "1"], "trace"),
                         (["history", "1"], "history"), (["export", "x.jsonl"], "export")):
        if hasattr(Memory, method):
            continue
        code, out, err = run(capsys, *argv)
        assert code == 1 and out == ""
        assert err.strip() == f"reasongraph-mcp {argv[0]}: {method} is not available in this " \
                              "version of the memory engine"


@pytest.mark.skipif(not hasattr(Memory, "why"), reason="Memory.why has not landed")
def test_why_prints_numbered_chains(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "remember", "Users were logged out because Redis evicted their session keys.")
    code, out, _ = run(capsys, "why", "why were users logged out?")
    assert code == 0 and (out.startswith("Cause 1:") or out.startswith("No recorded cause"))


@pytest.mark.skipif(not hasattr(Memory, "trace"), reason="Memory.trace has not landed")
def test_trace_and_history_run(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "remember", "The deploy broke checkout, so we rolled back.")
    code, _, err = run(capsys, "trace", "1")
    assert code == 0, err
    code, _, err = run(capsys, "trace", "1", "--causes", "--json")
    assert code == 0, err
    if hasattr(Memory, "history"):
        code, out, err = run(capsys, "history", "#1")
        assert code == 0 and "#1" in out, err


@pytest.mark.skipif(
    not (hasattr(Memory, "export") and hasattr(Memory, "import_")), reason="export/import pending"
)
def test_export_then_import_round_trips(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "remember", "We deploy on Tuesdays.", "--session", "s1")
    dump = tmp_path / "dump.jsonl"
    code, out, err = run(capsys, "export", str(dump))
    assert code == 0 and dump.exists(), err
    code, out, err = run(capsys, "import", str(dump), "--db", str(tmp_path / "copy.db"))
    assert code == 0 and out.startswith("Imported"), err


@pytest.mark.skipif(not hasattr(Memory, "forget"), reason="Memory.forget has not landed")
def test_forget_one_fact(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "remember", "The temporary token is abc-rotated.", "--json")
    fact = json.loads(out)["ids"][0]
    code, out, _ = run(capsys, "forget", "--fact", str(fact))
    assert code == 0 and out.strip() == "Erased 1 fact(s)."


def test_demo_tells_the_story_and_shows_recall(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "demo")
    assert code == 0, err
    assert "s1-redis (2026-03-02)" in out
    assert '$ reasongraph-mcp recall "which database does the ledger service use?"' in out
    assert "$ reasongraph-mcp why" in out and "$ reasongraph-mcp trace" in out
    recall_block = out.split("$ reasongraph-mcp recall")[1].split("$ reasongraph-mcp why")[0]
    first_hit = recall_block.splitlines()[1]
    assert "SQLite instead of PostgreSQL" in first_hit and "2026-03-16" in first_hit
    code, out, _ = run(capsys, "demo", "--json")
    data = json.loads(out)
    assert {"recall", "why", "trace", "facts"} <= set(data)


def test_the_entry_point_dispatches_and_never_prints_a_traceback(tmp_path: Path) -> None:
    env = dict(os.environ, REASONGRAPH_DB=str(tmp_path / "m.db"),
               REASONGRAPH_EMBED_MODEL="none")
    help_run = subprocess.run([sys.executable, "-m", "reasongraph_mcp", "--help"], env=env,
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert help_run.returncode == 0 and "serve MCP on stdio" in help_run.stdout
    bad = subprocess.run([sys.executable, "-m", "reasongraph_mcp", "recall", "x", "--k", "2"],
                         env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    ("argv", "code", "says"),
    [
        (["recall", "anything"], 0, "No facts found."),
        (["stats"], 0, "does not exist yet"),
        (["why", "the", "bug"], 1, "no memory file at"),
        (["trace", "1"], 1, "no memory file at"),
        (["history", "1"], 1, "no memory file at"),
        (["export", "out.jsonl"], 1, "no memory file at"),
        (["forget", "--fact", "1"], 1, "no memory file at"),
        (["drain"], 0, "Drained 0"),
    ],
)
def test_read_only_commands_never_create_a_missing_file_or_its_folders(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, argv: list[str], code: int, says: str,
) -> None:
    missing = tmp_path / "nowhere" / "deeper" / "memory.db"
    got, out, err = run(capsys, *argv, "--db", str(missing))
    assert got == code, err
    assert says in (out if code == 0 else err)
    if code:
        assert out == "" and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "nowhere").exists()
    assert not (repo / "out.jsonl").exists()
    # The same through REASONGRAPH_DB, and --json still answers with the empty record.
    monkeypatch.setenv("REASONGRAPH_DB", str(missing))
    got, _, _ = run(capsys, *argv)
    assert got == code
    if argv[0] in ("recall", "stats"):
        got, out, _ = run(capsys, *argv, "--json")
        assert got == 0 and json.loads(out)
    assert not (tmp_path / "nowhere").exists()


def test_demo_db_writes_the_story_there_and_refuses_a_file_that_holds_facts(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "new" / "demo.db"
    code, out, err = run(capsys, "demo", "--db", str(target))
    assert code == 0, err
    assert f"(in {target})" in out and f"--db {target}" in out
    with Memory(target) as mem:
        assert mem.status().facts == 9
    before = target.read_bytes()
    code, out, err = run(capsys, "demo", "--db", str(target))
    assert code == 2 and out == ""
    assert "already holds 9 fact(s)" in err and "--force" in err
    assert len(err.strip().splitlines()) == 1
    assert target.read_bytes() == before
    code, out, err = run(capsys, "demo", "--db", str(target), "--force", "--json")
    assert code == 0, err
    assert json.loads(out)["db"] == str(target)
    with Memory(target) as mem:
        assert mem.status().facts == 9  # the same story again: restated, not duplicated
    code, _, err = run(capsys, "demo", "--db", str(tmp_path))
    assert code == 2 and "is a folder" in err


def test_demo_runs_offline_on_the_packaged_model_in_well_under_a_minute(tmp_path: Path) -> None:
    """The README's first command on a fresh clone: no network, no model download, no
    REASONGRAPH_* settings, an empty cache folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    dead = "http://127.0.0.1:9"  # any attempt to reach the network fails at once
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"),
               XDG_DATA_HOME=str(tmp_path / "data"), HF_HUB_OFFLINE="1", HTTPS_PROXY=dead,
               HTTP_PROXY=dead, https_proxy=dead, http_proxy=dead)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "reasongraph_mcp", "demo", "--json"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["recall"]["note"] is None  # the embedder took part: no FTS5-only note
    assert "SQLite instead of PostgreSQL" in data["recall"]["facts"][0]["text"]
    assert elapsed < 45, elapsed
    assert not (tmp_path / "data").exists()  # the throwaway file was not the user's memory


class _Captured(BaseException):
    """Raised by the patched ``parse_args`` to stop a command once its parser is built."""


def _every_parser(monkeypatch: pytest.MonkeyPatch) -> dict[str, argparse.ArgumentParser]:
    """The top-level parser, each subcommand's, and those that install, uninstall, doctor and
    drain build for themselves (caught as they parse)."""
    top = cli.build_parser()
    parsers: dict[str, argparse.ArgumentParser] = {cli.PROG: top}
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                parsers[f"{cli.PROG} {name}"] = sub

    def capture(self: argparse.ArgumentParser, *args: object, **kw: object) -> None:
        raise _Captured(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    for name in cli.EXTERNAL:
        with pytest.raises(_Captured) as caught:
            cli.main([name])
        parsers[f"{cli.PROG} {name}"] = caught.value.args[0]
    return parsers


_MARKUP = re.compile(r"`|:[a-z]+:|\*\*")  # reST literals and roles, markdown emphasis


def test_every_subcommand_and_option_has_clean_help(monkeypatch: pytest.MonkeyPatch) -> None:
    parsers = _every_parser(monkeypatch)
    assert {f"{cli.PROG} {n}" for n in ("install", "uninstall", "doctor", "drain", "demo")} \
        <= set(parsers)
    problems = []
    for prog, parser in parsers.items():
        if not (parser.description or "").strip():
            problems.append(f"{prog}: no description")
        for text in (parser.description, parser.epilog):
            if text and _MARKUP.search(text):
                problems.append(f"{prog}: markup in {text!r}")
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            name = "/".join(action.option_strings) or action.dest
            help_text = action.help or ""
            if not help_text.strip() or help_text == argparse.SUPPRESS:
                problems.append(f"{prog} {name}: no help")
            elif _MARKUP.search(help_text):
                problems.append(f"{prog} {name}: markup in {help_text!r}")
    assert not problems, "\n".join(problems)


def test_a_large_remember_prints_a_summary_and_json_keeps_every_id(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = "\n\n".join(f"Service {i} listens on port {8000 + i}." for i in range(30))
    code, out, err = run(capsys, "remember", first, "--session", "s1")
    assert code == 0, err
    assert out.strip() == "Stored 30 new fact(s) (#1-#30), 0 restated, 0 superseded. " \
                          "(--json lists every id)"
    again = first + "\n\n" + "\n\n".join(f"Worker {i} drains queue q{i}." for i in range(25))
    code, out, _ = run(capsys, "remember", again, "--json")
    data = json.loads(out)
    assert len(data["ids"]) == 55 and len(data["created"]) == 25 and len(data["restated"]) == 30
    code, out, _ = run(capsys, "remember", again)
    assert out.startswith("Stored 0 new fact(s), 55 restated (#1-#55), 0 superseded.")
    assert len(out.strip().splitlines()) == 1
    code, out, _ = run(capsys, "remember", "One more small fact about the cache.")
    assert out.startswith("Remembered 1 fact(s): #56")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_long_jobs_show_progress_on_a_terminal_only(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    big = "\n\n".join(f"Module m{i} depends on module m{i + 1} for its parser." for i in range(400))
    code, out, err = run(capsys, "remember", big, "--session", "pipe")
    assert code == 0 and err == ""  # stderr is not a terminal here: no progress at all
    assert out.startswith("Stored 400 new fact(s)")
    export = tmp_path / "all.jsonl"
    run(capsys, "export", str(export))

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    other = "\n\n".join(f"Handler h{i} retries request r{i} three times." for i in range(400))
    assert cli.main(["remember", other, "--session", "tty"]) == 0
    shown = terminal.getvalue()
    assert "\rremember: " in shown and "facts stored" in shown
    assert shown.endswith("\r\033[K")  # the line is cleared when the job ends
    terminal.seek(0)
    terminal.truncate()
    assert cli.main(["import", str(export), "--db", str(tmp_path / "copy.db")]) == 0
    assert "\rimport: " in terminal.getvalue() and "lines read" in terminal.getvalue()
    capsys.readouterr()
