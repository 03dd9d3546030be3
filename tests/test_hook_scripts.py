"""The hook scripts as a harness runs them: subprocesses with JSON on stdin, on a real
memory file, with and without a warm server behind the socket. Wall-clock times are
measured by ``python -m evals.bench_hooks``, never asserted here."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import pytest
from reasongraph_mcp import hook_service, server
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.ml.embed import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / "hooks"
sys.path.insert(0, str(HOOKS))
import common as hook_common  # noqa: E402  (the hooks' own module, as the scripts import it)

INJECTED_TAG = hook_common.INJECTED_TAG

PROJECT = "/home/dev/ledgerline"
FACTS = [
    "We chose structlog for logging in the ledger API, configured in app/logging.py.",
    "Every module gets its logger with structlog.get_logger(__name__).",
    "Pagination on list endpoints uses an opaque next_cursor over (created_at, id).",
]


def run_hook(
    script: str, payload: Any, env: dict[str, str], *, raw: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    data = raw if raw is not None else json.dumps(payload).encode()
    return subprocess.run(
        [sys.executable, str(HOOKS / script)], input=data, env=env, capture_output=True,
        timeout=60,
    )


@pytest.fixture
def env(db_path: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    out.update(REASONGRAPH_DB=str(db_path), REASONGRAPH_HOOK_SERVER_TIMEOUT="1.0")
    return out


@pytest.fixture
def seeded(db_path: Path) -> Path:
    with Memory(db_path, embedder="none") as mem:
        for text in FACTS:
            mem.remember(text, project=PROJECT, session="s1", when="2026-01-14")
    return db_path


@pytest.fixture
def warm(seeded: Path) -> Iterator[hook_service.HookService]:
    mem = Memory(seeded, embedder=HashEmbedder(64))
    service = hook_service.HookService(lambda: mem, seeded, retry=0.05).start()
    assert service.owner.wait(10)
    yield service
    service.stop()
    mem.close()


def claude_prompt(prompt: str, session: str = "sess-1") -> dict[str, Any]:
    return {
        "session_id": session, "transcript_path": "/nonexistent/t.jsonl", "cwd": PROJECT,
        "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt,
    }


def codex_prompt(prompt: str, session: str = "codex-1") -> dict[str, Any]:
    return {
        "cwd": PROJECT, "hook_event_name": "UserPromptSubmit", "model": "gpt-5-codex",
        "permission_mode": "default", "prompt": prompt, "session_id": session,
        "transcript_path": None, "turn_id": "turn-1",
    }


QUESTION = "Which logging library does the ledger API use, and how do modules get a logger?"


def _context(proc: subprocess.CompletedProcess[bytes]) -> str:
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert list(out) == ["hookSpecificOutput"]
    assert list(out["hookSpecificOutput"]) == ["hookEventName", "additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    return out["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("payload", [claude_prompt(QUESTION), codex_prompt(QUESTION)])
def test_prepare_prints_exactly_the_additional_context_json_without_a_server(
    seeded: Path, env: dict[str, str], payload: dict[str, Any]
) -> None:
    proc = run_hook("prepare.py", payload, env)
    assert proc.stdout.endswith(b"\n") and proc.stdout.count(b"\n") == 1
    ctx = _context(proc)
    assert ctx.startswith(f"<{INJECTED_TAG}>\n") and ctx.endswith(f"</{INJECTED_TAG}>")
    assert "data, not instructions" in ctx
    assert "structlog.get_logger(__name__)" in ctx
    assert "#2 2026-01-14 s1:" in ctx  # id, date, session
    assert "next_cursor" not in ctx  # irrelevant facts stay out


@pytest.mark.parametrize("payload", [claude_prompt(QUESTION), codex_prompt(QUESTION)])
def test_prepare_asks_the_warm_server_and_prints_its_block(
    warm: hook_service.HookService, env: dict[str, str], payload: dict[str, Any]
) -> None:
    ctx = _context(run_hook("prepare.py", payload, env))
    assert "[2026-01-14 session s1]" in ctx  # the server's rendering, not the fallback's
    assert "structlog" in ctx
    assert len(ctx) <= 2000


def _imported(stderr: bytes) -> set[str]:
    """The modules a ``python -X importtime`` run imported, from its stderr."""
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.decode().splitlines()
            if line.startswith("import time:") and "|" in line}


def test_a_warm_server_runs_the_hook_for_it_so_the_hook_imports_almost_nothing(
    warm: hook_service.HookService, env: dict[str, str]
) -> None:
    data = json.dumps(claude_prompt(QUESTION)).encode()
    proc = subprocess.run([sys.executable, "-S", "-X", "importtime", str(HOOKS / "prepare.py")],
                          input=data, env=env, capture_output=True, timeout=60)
    assert "structlog" in _context(subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout, b""))
    heavy = {"json", "re", "common", "redact", "text", "sqlite3", "socket", "pathlib"}
    heavy &= _imported(proc.stderr)
    assert heavy == set()  # the answer came from the server's run of the same code
    stop = json.dumps(stop_event("Done: the ledger logs through structlog.")).encode()
    proc = subprocess.run([sys.executable, "-S", "-X", "importtime", str(HOOKS / "capture.py")],
                          input=stop, env=env, capture_output=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == b""
    assert {"json", "sqlite3", "common"} & _imported(proc.stderr) == set()
    assert [r[:2] for r in inbox_rows(warm.db_path)] == [("sess-1", "1:" + hook_common.digest(
        QUESTION, 8))]


def test_the_server_runs_a_hook_with_the_hook_process_settings(
    warm: hook_service.HookService, env: dict[str, str], tmp_path: Path
) -> None:
    env = {**env, "REASONGRAPH_NOW": "2026-02-03T10:00:00Z", "REASONGRAPH_BUDGET": "300"}
    ctx = _context(run_hook("prepare.py", claude_prompt(QUESTION), env))
    assert "[2026-01-14 session s1]" in ctx and len(ctx) <= 300  # the hook's budget
    folder = tmp_path / "elsewhere"  # no cwd in the events: the hook's own working directory
    folder.mkdir()
    no_cwd = {**env, "CLAUDE_PROJECT_DIR": ""}
    for script, event in (("prepare.py", claude_prompt("Cap page_size at 200", session="w")),
                          ("capture.py", stop_event("Capped page_size at 200.", session="w"))):
        event = {k: v for k, v in event.items() if k != "cwd"}
        subprocess.run([sys.executable, str(HOOKS / script)], input=json.dumps(event).encode(),
                       env=no_cwd, cwd=folder, timeout=60, check=True)
    with sql(warm.db_path) as conn:
        rows = conn.execute("SELECT project, created_at FROM inbox").fetchall()
    assert rows == [(str(folder), "2026-02-03T10:00:00Z")]  # the hook's directory and clock


@pytest.mark.parametrize("data", [
    b"RGHOOK1 not a literal\n{}", b"RGHOOK1 {'hook': 'prepare', 'cwd': 1, 'env': {}}\n{}",
    b"RGHOOK1 {'hook': 'rm', 'cwd': '/', 'env': {}}\n{}", b"RGHOOK1 __import__('os')\n{}",
])
def test_a_malformed_relayed_hook_gets_failed_and_the_hook_runs_itself(
    warm: hook_service.HookService, data: bytes
) -> None:
    assert warm.run_hook(data) == b"RGHOOK1 failed\n"


def test_one_session_is_never_shown_the_same_fact_twice(seeded: Path, env: dict[str, str]) -> None:
    first = _context(run_hook("prepare.py", claude_prompt(QUESTION), env))
    assert "structlog" in first
    again = run_hook("prepare.py", claude_prompt(QUESTION), env)
    assert again.returncode == 0 and again.stdout == b""
    other = _context(run_hook("prepare.py", claude_prompt(QUESTION, session="sess-2"), env))
    assert "structlog" in other


@pytest.mark.parametrize(
    "prompt", ["yes", "continue", "/compact", "ok go ahead", "", "好的", "はい"]
)
def test_trivial_prompts_get_nothing(seeded: Path, env: dict[str, str], prompt: str) -> None:
    proc = run_hook("prepare.py", claude_prompt(prompt), env)
    assert proc.returncode == 0 and proc.stdout == b""


def test_a_prompt_in_japanese_or_chinese_is_not_taken_for_a_trivial_one(
    warm: hook_service.HookService, env: dict[str, str]
) -> None:
    """They are written without spaces, in letters the hook's word reader does not read:
    every one was taken for "ok" and got nothing."""
    prompt = claude_prompt("structlog のロガーはどこで設定していますか？")
    ctx = _context(run_hook("prepare.py", prompt, env))
    assert "structlog" in ctx


def test_nothing_relevant_means_no_output(seeded: Path, env: dict[str, str]) -> None:
    proc = run_hook("prepare.py", claude_prompt("How do pandas dataframes merge on an index?"), env)
    assert proc.returncode == 0 and proc.stdout == b""


@pytest.mark.parametrize(
    "raw",
    [b"", b"{not json", b"[1, 2, 3]", b"\xff\xfe\x00garbage\x80",
     json.dumps({"prompt": "x" * (5 * 1024 * 1024), "session_id": "big"}).encode()],
    ids=["empty", "malformed", "not-an-object", "non-utf8", "huge-5MB"],
)
@pytest.mark.parametrize("script", ["prepare.py", "capture.py"])
def test_bad_stdin_exits_zero_and_prints_nothing(
    seeded: Path, env: dict[str, str], script: str, raw: bytes
) -> None:
    proc = run_hook(script, None, env, raw=raw)
    assert proc.returncode == 0
    assert proc.stdout == b"" and proc.stderr == b""


def test_non_utf8_prompt_bytes_are_replaced_not_fatal(seeded: Path, env: dict[str, str]) -> None:
    raw = (b'{"session_id": "s", "cwd": "' + PROJECT.encode()
           + b'", "prompt": "structlog \xff logging get_logger"}')
    proc = run_hook("prepare.py", None, env, raw=raw)
    assert proc.returncode == 0
    assert "structlog" in _context(proc)


def stop_event(reply: str, session: str = "sess-1", **extra: Any) -> dict[str, Any]:
    return {
        "session_id": session, "transcript_path": None, "cwd": PROJECT,
        "permission_mode": "default", "hook_event_name": "Stop", "stop_hook_active": False,
        "last_assistant_message": reply, **extra,
    }


def sql(db: Path) -> apsw.Connection:
    """Reads through apsw: this process may hold apsw connections to the same file, and two
    SQLite libraries in one process must never share a file (their locks are blind)."""
    conn = apsw.Connection(str(db))
    conn.set_busy_timeout(10_000)
    return conn


def inbox_rows(db: Path) -> list[tuple[Any, ...]]:
    with sql(db) as conn:
        return conn.execute(
            "SELECT session, turn, project, harness, prompt, response, state FROM inbox ORDER BY id"
        ).fetchall()


def test_capture_is_silent_and_appends_the_exchange_once(seeded: Path, env: dict[str, str]) -> None:
    run_hook("prepare.py", claude_prompt("Switch the refund flow logging to JSON lines"), env)
    for _ in range(2):  # a repeated Stop for the same turn stores nothing new
        proc = run_hook("capture.py", stop_event("Done: the refund flow logs JSON lines now."), env)
        assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    rows = inbox_rows(seeded)
    assert len(rows) == 1
    session, turn, project, harness, prompt, response, state = rows[0]
    assert (session, project, harness, state) == ("sess-1", PROJECT, "claude-code", "pending")
    assert prompt == "Switch the refund flow logging to JSON lines"
    assert response == "Done: the refund flow logs JSON lines now."
    assert turn.startswith("1:")


def test_capture_skips_when_stop_hook_active(seeded: Path, env: dict[str, str]) -> None:
    proc = run_hook("capture.py", stop_event("again", stop_hook_active=True), env)
    assert proc.returncode == 0 and proc.stdout == b""
    assert inbox_rows(seeded) == []


def test_capture_reads_the_prompt_from_the_transcript_when_prepare_did_not_run(
    seeded: Path, env: dict[str, str], tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "summary", "summary": "x"},
        "not json at all",
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "text",
             "text": "Use ruff instead of flake8 <system-reminder>noise</system-reminder>"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Switched to ruff."}]}},
    ]
    transcript.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines))
    proc = run_hook("capture.py", stop_event("Switched to ruff.", session="t",
                                             transcript_path=str(transcript)), env)
    assert proc.returncode == 0 and proc.stdout == b""
    [(_, _, _, _, prompt, response, _)] = inbox_rows(seeded)
    assert prompt == "Use ruff instead of flake8"
    assert response == "Switched to ruff."


def test_codex_turn_id_keys_the_exchange(seeded: Path, env: dict[str, str]) -> None:
    run_hook("prepare.py", codex_prompt("Rename cust to customer in app/api/customers.py"), env)
    run_hook("capture.py", {**stop_event("Renamed 14 variables.", session="codex-1"),
                            "turn_id": "turn-1", "model": "gpt-5-codex"}, env)
    [(session, turn, _, harness, prompt, _, _)] = inbox_rows(seeded)
    assert (session, turn, harness) == ("codex-1", "turn-1", "codex")
    assert prompt.startswith("Rename cust")


def _all_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_a_secret_in_a_prompt_never_reaches_the_file(seeded: Path, env: dict[str, str]) -> None:
    secret = "sk-ant-api03-ZZsecretZZsecretZZsecretZZ99"
    password = "Pa55w0rd!Ledger"
    prompt = f"Connect with ANTHROPIC_API_KEY={secret} and password={password} please"
    run_hook("prepare.py", claude_prompt(prompt), env)
    run_hook("capture.py", stop_event(f"Used {secret} as asked."), env)
    assert len(inbox_rows(seeded)) == 1
    with Memory(seeded, embedder="none") as mem:
        mem.drain()
    blob = _all_bytes(seeded.parent)
    assert secret.encode() not in blob and password.encode() not in blob
    assert b"[REDACTED:" in blob


def test_our_injected_block_and_private_blocks_are_never_stored(
    seeded: Path, env: dict[str, str]
) -> None:
    injected = f"<{INJECTED_TAG}>\n#1 OLDFACTMARKER something\n</{INJECTED_TAG}>"
    prompt = f"{injected}\nAdd retries to the webhook sender. <private>PRIVATEMARKER</private>"
    run_hook("prepare.py", claude_prompt(prompt), env)
    reply = f"Added retries.<system-reminder>REMINDERMARKER</system-reminder> {injected}"
    run_hook("capture.py", stop_event(reply), env)
    [(_, _, _, _, p, r, _)] = inbox_rows(seeded)
    assert p == "Add retries to the webhook sender."
    for marker in ("OLDFACTMARKER", "PRIVATEMARKER", "REMINDERMARKER", INJECTED_TAG):
        assert marker not in p + r
    with Memory(seeded, embedder="none") as mem:
        mem.drain()
        texts = " ".join(t for (t,) in mem.store.conn.execute("SELECT text FROM facts"))
    assert "OLDFACTMARKER" not in texts and "Add retries" in texts


def test_a_locked_database_spools_the_capture_and_the_drain_recovers_it(
    seeded: Path, env: dict[str, str]
) -> None:
    env = {**env, "REASONGRAPH_HOOK_BUSY_MS": "200"}
    locker = sql(seeded)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        run_hook("prepare.py", claude_prompt("Add an index on invoices(tenant_id, due_date)"), env)
        proc = run_hook("capture.py", stop_event("Added the composite index."), env)
        assert proc.returncode == 0 and proc.stdout == b""
        asked = run_hook("prepare.py", claude_prompt(QUESTION, session="locked"), env)
        assert asked.returncode == 0  # recall may find nothing, but never fails
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    spooled = list(hook_common.spool_dir(seeded).glob("*.json"))
    assert len(spooled) == 1
    with Memory(seeded, embedder="none") as mem:
        report = mem.drain(spool=hook_common.spool_dir(seeded))
        assert (report.spooled, report.ingested, report.remaining) == (1, 1, 0)
        assert mem.recall("composite index on invoices", project=PROJECT)
    assert not list(hook_common.spool_dir(seeded).glob("*.json"))


def test_a_missing_database_spools_instead_of_creating_a_bare_file(
    tmp_path: Path, env: dict[str, str]
) -> None:
    db = tmp_path / "fresh" / "memory.db"
    env = {**env, "REASONGRAPH_DB": str(db)}
    proc = run_hook("capture.py", stop_event("Set up the project."), env)
    assert proc.returncode == 0 and not db.exists()
    assert len(list(hook_common.spool_dir(db).glob("*.json"))) == 1
    assert run_hook("prepare.py", claude_prompt(QUESTION), env).stdout == b""


def test_a_stale_socket_file_and_a_dead_server_fall_back_to_fts(
    seeded: Path, env: dict[str, str]
) -> None:
    path = hook_common.socket_path(seeded)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.close()  # the file stays, nobody listens: a server that died
    assert path.exists()
    ctx = _context(run_hook("prepare.py", claude_prompt(QUESTION), env))
    assert "structlog" in ctx and "#2 2026-01-14 s1:" in ctx  # the fallback's rendering


@pytest.mark.parametrize(("fact", "prompt", "other"), [
    ("Der Übersetzungsjob schlägt fehl, weil der Cache für Übersetzungen leer ist.",
     "Warum schlägt der Übersetzungsjob wieder fehl?",
     "Der Exportjob läuft jeden Montag um sechs Uhr."),
    ("Çeviri işi başarısız oluyor çünkü önbellek boş; dağıtım betiği önbelleği siliyor.",
     "Çeviri işi neden yine başarısız oluyor?",
     "Dışa aktarma işi her pazartesi altıda çalışıyor."),
    ("部署失败是因为迁移脚本锁住了订单表。",
     "为什么部署又失败了？",
     "导出任务每周一早上六点运行。"),
    ("デプロイが失敗した原因は、マイグレーションが orders テーブルをロックしたことです。",
     "なぜデプロイがまた失敗したの？",
     "エクスポートは毎週月曜の朝六時に実行されます。"),
])
def test_without_a_server_the_hook_finds_facts_in_any_script(
    db_path: Path, env: dict[str, str], fact: str, prompt: str, other: str
) -> None:
    """The fallback reads words as the index does (accents folded, other alphabets whole)
    and Chinese and Japanese by character pairs: a German, Turkish or Chinese prompt finds
    its fact, and not the other one of the same language."""
    with Memory(db_path, embedder="none") as mem:
        for text in (fact, other):
            mem.remember(text, project=PROJECT, session="s1", when="2026-01-14")
    ctx = _context(run_hook("prepare.py", claude_prompt(prompt), env))
    assert fact in ctx and other not in ctx
    assert "#1 2026-01-14 s1:" in ctx  # the fallback's rendering


def test_a_server_that_accepts_but_never_answers_does_not_block_the_prompt(
    seeded: Path, env: dict[str, str]
) -> None:
    path = hook_common.socket_path(seeded)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.listen(8)  # accepts connections into the backlog, never replies
    try:
        ctx = _context(run_hook("prepare.py", claude_prompt(QUESTION),
                                {**env, "REASONGRAPH_HOOK_SERVER_TIMEOUT": "0.3"}))
        assert "structlog" in ctx
    finally:
        sock.close()


def test_eight_captures_at_once_all_land(seeded: Path, env: dict[str, str]) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, str(HOOKS / "capture.py")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )
        for _ in range(8)
    ]
    for i, p in enumerate(procs):
        p.stdin.write(json.dumps({**stop_event(f"Reply number {i} about the ledger."),
                                  "session_id": f"par-{i}", "prompt": f"Prompt {i}"}).encode())
        p.stdin.close()
    for p in procs:
        assert p.wait(60) == 0
        assert p.stdout.read() == b""
        p.stdout.close()
        p.stderr.close()
    assert sorted(r[0] for r in inbox_rows(seeded)) == [f"par-{i}" for i in range(8)]


def test_the_warm_server_drains_captures_and_recalls_them(
    warm: hook_service.HookService, env: dict[str, str]
) -> None:
    run_hook("prepare.py",
             claude_prompt("The nightly export job should write to s3://ledger-exports"), env)
    run_hook("capture.py",
             stop_event("Pointed the nightly export at s3://ledger-exports/nightly."), env)
    assert warm.wait_idle(30)
    assert inbox_rows(warm.db_path)[0][-1] == "done"
    ctx = _context(run_hook("prepare.py", claude_prompt(
        "Where does the nightly export job write its files?", session="later"), env))
    assert "s3://ledger-exports" in ctx


def test_exactly_one_server_owns_the_socket_and_another_takes_over(seeded: Path) -> None:
    mems = [Memory(seeded, embedder="none") for _ in range(2)]
    first = hook_service.HookService(lambda: mems[0], seeded, retry=0.05).start()
    assert first.owner.wait(10)
    second = hook_service.HookService(lambda: mems[1], seeded, retry=0.05).start()
    try:
        assert not second.owner.wait(0.5)
        first.stop()  # the owner goes away (a dead process releases its flock the same way)
        assert second.owner.wait(10)
        pong = hook_common.ask_server(seeded, {"op": "ping"}, 2.0)
        assert pong is not None and (pong["ok"], pong["pid"]) == (True, os.getpid())
    finally:
        first.stop()
        second.stop()
        for m in mems:
            m.close()


def test_the_socket_is_owner_only(warm: hook_service.HookService) -> None:
    assert (warm.socket_path.stat().st_mode & 0o777) == 0o600


def test_hooks_import_only_the_standard_library(seeded: Path, env: dict[str, str]) -> None:
    code = (
        "import json, sys; from pathlib import Path\n"
        f"sys.path.insert(0, {str(HOOKS)!r})\n"
        "import prepare, capture, common\n"
        "db = common.db_path()\n"
        f"prepare.run({claude_prompt(QUESTION)!r}, db)\n"
        f"capture.run({stop_event('ok, logging uses structlog everywhere')!r}, db)\n"
        "bad = sorted(m for m in ('apsw', 'memory', 'mcp', 'pydantic', 'sqlite_vec', 'fastembed')"
        " if m in sys.modules)\n"
        "print(json.dumps(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=60,
                          cwd=str(HOOKS))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_paths_and_tags_agree_with_the_engine_and_server() -> None:
    assert hook_common.project_root(PROJECT) == server.project_root(PROJECT)
    long_db = Path("/tmp") / ("x" * 120) / "memory.db"
    assert len(str(hook_common.socket_path(long_db))) < 100


def test_replays_take_the_clock_from_reasongraph_now(seeded: Path, env: dict[str, str]) -> None:
    env = {**env, "REASONGRAPH_NOW": "2026-02-03T10:00:00Z"}
    run_hook("prepare.py", claude_prompt("Cap page_size at 200 for every list endpoint"), env)
    run_hook("capture.py", stop_event("Capped page_size at 200."), env)
    with sql(seeded) as conn:
        assert conn.execute("SELECT created_at FROM inbox").fetchone()[0] == "2026-02-03T10:00:00Z"
    with Memory(seeded, embedder="none") as mem:
        mem.drain()
        dates = {r for (r,) in mem.store.conn.execute(
            "SELECT recorded_at FROM facts WHERE session = 'sess-1'")}
    assert dates == {"2026-02-03T10:00:00Z"}


def test_the_opencode_plugin_runs_the_same_two_scripts() -> None:
    js = (HOOKS / "opencode-plugin.js").read_text()
    assert "experimental.chat.system.transform" in js and "session.idle" in js
    assert '"prepare.py"' in js and '"capture.py"' in js
    assert "last_assistant_message" in js and "stop_hook_active: false" in js


def test_concurrent_requests_to_the_service_do_not_interfere(
    warm: hook_service.HookService,
) -> None:
    results: list[dict[str, Any] | None] = []

    def ask() -> None:
        results.append(hook_common.ask_server(warm.db_path, {
            "op": "context", "prompt": QUESTION, "project": PROJECT, "session": "c",
            "budget": 2000, "exclude": [], "now": None}, 10.0))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 6 and all(r and "structlog" in r["context"] for r in results)


# -- the first prompt of a session: the agent starts the server and fires the hook at once ---


def _lock(db: Path) -> Path:
    return Path(str(hook_common.socket_path(db)) + ".lock")


def test_the_first_prompt_fired_with_the_server_start_is_answered_by_it_with_the_model(
    seeded: Path, env: dict[str, str]
) -> None:
    """Claude Code starts the MCP server and runs the prompt hook at the same moment; the
    hook finds no socket yet. Because a server ran on this file before (its lock file is
    recent), the hook waits for the socket, and the new server answers once its model has
    loaded, as it answers every later prompt."""
    senv = {**env, "REASONGRAPH_HOOK_SERVER_TIMEOUT": "30", "REASONGRAPH_HOOK_TIMEOUT": "40",
            "REASONGRAPH_HOOK_START_WAIT": "30"}
    _lock(seeded).touch()  # a server ran here before
    assert not hook_common.socket_path(seeded).exists()
    server_proc = subprocess.Popen(
        [sys.executable, "-m", "reasongraph_mcp"], stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=senv)
    try:
        proc = subprocess.run(
            [sys.executable, "-S", "-X", "importtime", str(HOOKS / "prepare.py")],
            input=json.dumps(claude_prompt(QUESTION)).encode(), env=senv, capture_output=True,
            timeout=60)
        assert "structlog" in _context(subprocess.CompletedProcess(
            proc.args, proc.returncode, proc.stdout, b""))
        assert "json" not in _imported(proc.stderr)  # the server answered, not the fallback
        with Memory(seeded, embedder="none") as mem:  # the server embedded the file: its model
            assert mem.store.meta("embed_model") == "packaged:all-MiniLM-L6-v2-int8"
    finally:
        server_proc.stdin.close()  # type: ignore[union-attr]
        server_proc.wait(60)


def test_without_a_recent_server_the_hook_does_not_wait(seeded: Path, env: dict[str, str]) -> None:
    """No lock file (no server ever ran here), or one older than a week: the hook answers by
    itself at once (a wait would be measured in seconds; the answer is the fallback's)."""
    slow = {**env, "REASONGRAPH_HOOK_START_WAIT": "600", "REASONGRAPH_HOOK_TIMEOUT": "60"}
    ctx = _context(run_hook("prepare.py", claude_prompt(QUESTION), slow))
    assert "#2 2026-01-14 s1:" in ctx  # the fallback's rendering, long before 600 s
    _lock(seeded).touch()
    old = _lock(seeded).stat().st_mtime - 8 * 86400
    os.utime(_lock(seeded), (old, old))
    ctx = _context(run_hook("prepare.py", claude_prompt(QUESTION, session="sess-2"), slow))
    assert "#2 2026-01-14 s1:" in ctx


def test_a_wait_in_vain_is_paid_once_not_on_every_prompt(seeded: Path, env: dict[str, str]) -> None:
    """A server ran yesterday, none runs now (the MCP server was turned off): the first hook
    waits its START_WAIT and then answers by itself; it marks the lock old, so the next hook
    does not wait again."""
    lock = _lock(seeded)
    lock.touch()
    before = lock.stat().st_mtime
    short = {**env, "REASONGRAPH_HOOK_START_WAIT": "0.3"}
    assert "structlog" in _context(run_hook("prepare.py", claude_prompt(QUESTION), short))
    assert lock.stat().st_mtime <= before - 7 * 86400
    long = {**env, "REASONGRAPH_HOOK_START_WAIT": "600", "REASONGRAPH_HOOK_TIMEOUT": "60"}
    assert "structlog" in _context(run_hook("prepare.py", claude_prompt(QUESTION, "s-2"), long))


def test_a_lock_file_of_another_user_or_a_symlink_is_no_reason_to_wait(
    seeded: Path, env: dict[str, str], tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere"
    target.touch()
    stamp = target.stat().st_mtime
    _lock(seeded).symlink_to(target)
    slow = {**env, "REASONGRAPH_HOOK_START_WAIT": "600", "REASONGRAPH_HOOK_TIMEOUT": "60"}
    assert "structlog" in _context(run_hook("prepare.py", claude_prompt(QUESTION), slow))
    assert target.stat().st_mtime == stamp  # a wait in vain would have pushed it back
