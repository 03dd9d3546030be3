"""The inbox drain: every captured exchange becomes facts exactly once, across concurrent
drains and a drain killed between its write and its "done" mark."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import apsw
from reasongraph_mcp.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "/home/dev/snapsift"
WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
         "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber "
         "basalt cobalt dune ember fjord granite harbor iris jade").split()


def sql(db: Path) -> apsw.Connection:
    """A second connection through apsw: never the stdlib's sqlite3 in a process that has
    apsw open on the same file (two SQLite libraries do not see each other's locks)."""
    conn = apsw.Connection(str(db))
    conn.set_busy_timeout(10_000)
    return conn


def capture_rows(db: Path, n: int, *, start: int = 0) -> None:
    """Append exchanges as the Stop hook does (INSERT OR IGNORE on session + turn)."""
    with sql(db) as conn:
        for i in range(start, start + n):
            conn.execute(
                "INSERT OR IGNORE INTO inbox(session, turn, project, harness, prompt, response, "
                "created_at) VALUES (?, ?, ?, 'claude-code', ?, ?, ?)",
                (f"s{i}", f"t{i}", PROJECT, f"Document where the {WORDS[i]} module lives.",
                 f"The {WORDS[i]} module lives in src/{WORDS[i]}/mod.rs. "
                 f"Its tests use the {WORDS[-1 - i]} fixture.",
                 f"2026-01-{1 + i % 28:02d}T10:00:00Z"),
            )


def assert_exactly_once(db: Path, n: int) -> None:
    with sql(db) as conn:
        states = conn.execute("SELECT state, count(*) FROM inbox GROUP BY state").fetchall()
        assert states == [("done", n)]
        kept = conn.execute("SELECT count(*) FROM inbox WHERE prompt IS NOT NULL").fetchone()[0]
        assert kept == 0
        dup = conn.execute(
            "SELECT source, fact_id, count(*) FROM statements WHERE source LIKE 'inbox:%' "
            "GROUP BY source, fact_id HAVING count(*) > 1"
        ).fetchall()
        assert dup == []
        sources = {s for (s,) in conn.execute("SELECT DISTINCT source FROM statements")}
        ids = [i for (i,) in conn.execute("SELECT id FROM inbox")]
        assert sources == {f"inbox:{i}:{r}" for i in ids for r in ("user", "assistant")}


def test_drain_ingests_each_exchange_once_with_its_provenance(memory: Memory) -> None:
    capture_rows(memory.path, 5)
    report = memory.drain()
    assert (report.ingested, report.failed, report.remaining) == (5, 0, 0)
    assert memory.drain().ingested == 0
    assert_exactly_once(memory.path, 5)
    row = memory.store.conn.execute(
        "SELECT role, session, turn, harness, project, recorded_at, stated_at FROM facts "
        "WHERE text LIKE 'The delta module lives%'"
    ).fetchone()
    assert row == ("assistant", "s3", "t3", "claude-code", PROJECT, "2026-01-04T10:00:00Z",
                   "2026-01-04T10:00:00Z")
    hits = memory.recall("where is the delta module", project=PROJECT)
    assert any("src/delta/mod.rs" in h.text for h in hits)


def test_two_drains_at_once_never_ingest_an_item_twice(db_path: Path) -> None:
    # No vectors: near-duplicate merging (an engine decision) must not blur the count.
    mems = [Memory(db_path, embedder="none") for _ in range(2)]
    capture_rows(db_path, 24)
    reports = []
    threads = [threading.Thread(target=lambda m=m: reports.append(m.drain())) for m in mems]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for m in mems:
        m.close()
    assert sum(r.ingested for r in reports) == 24
    assert_exactly_once(db_path, 24)


def drain_cli(db: Path, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    env.update(REASONGRAPH_DB=str(db), REASONGRAPH_EMBED_MODEL="none", **env_extra)
    return subprocess.run(
        [sys.executable, "-m", "reasongraph_mcp.cli", "drain"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=120,
    )


def test_a_drain_killed_mid_way_loses_and_duplicates_nothing_after_restart(db_path: Path) -> None:
    Memory(db_path, embedder="none").close()
    capture_rows(db_path, 10)
    # Dies right after committing the facts of the 4th exchange, before marking it done:
    # the worst moment. Its claim names a dead process.
    crashed = drain_cli(db_path, REASONGRAPH_DRAIN_CRASH_AFTER="4")
    assert crashed.returncode == 3
    with sql(db_path) as conn:
        states = dict(conn.execute("SELECT state, count(*) FROM inbox GROUP BY state").fetchall())
    assert states == {"done": 3, "pending": 7}
    again = drain_cli(db_path)
    assert again.returncode == 0, again.stderr
    assert "Drained 7 exchange(s) (1 recovered from a dead drain)." in again.stdout
    assert_exactly_once(db_path, 10)


def test_capture_is_idempotent_on_session_and_turn(memory: Memory) -> None:
    capture_rows(memory.path, 3)
    capture_rows(memory.path, 3)
    assert memory.store.conn.execute("SELECT count(*) FROM inbox").fetchone()[0] == 3


def test_an_exchange_the_engine_refuses_is_marked_failed_not_retried_forever(
    memory: Memory,
) -> None:
    with sql(memory.path) as conn:
        conn.execute(
            "INSERT INTO inbox(session, turn, project, prompt, response, created_at) "
            "VALUES ('s', 't', ?, '...', '!!!', 'not a date')", (PROJECT,)
        )
    report = memory.drain()
    assert report.remaining == 0
    state = memory.store.conn.execute("SELECT state FROM inbox").fetchone()[0]
    assert state in ("done", "failed")


def test_drain_cli_reports_and_exits_zero_on_an_empty_inbox(db_path: Path) -> None:
    Memory(db_path, embedder="none").close()
    proc = drain_cli(db_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "Drained 0 exchange(s)."


def test_a_why_question_links_its_answer_to_the_earlier_fact_it_asks_about(
    real_memory,  # type: ignore[no-untyped-def]
) -> None:
    """The question is the link: the answer names no cue that points back, and the earlier
    session shares no rare word with it."""
    conn = real_memory.store.conn
    rows = [
        ("s1", "t1", "The nightly export job wrote an empty CSV again.",
         "The export query returned no rows, so the writer produced an empty file.",
         "2026-03-02T09:00:00Z"),
        ("s2", "t1", "Why did that query return nothing?",
         "The warehouse role lost its SELECT grant on the orders schema in Friday's "
         "permission cleanup.", "2026-03-05T09:00:00Z"),
        ("s3", "t1", "Why is the sky blue?", "Rayleigh scattering favours short wavelengths.",
         "2026-03-06T09:00:00Z"),
    ]
    for session, turn, prompt, response, at in rows:
        conn.execute(
            "INSERT INTO inbox(session, turn, project, harness, prompt, response, created_at) "
            "VALUES (?, ?, '/p', 'claude-code', ?, ?, ?)", (session, turn, prompt, response, at))
    real_memory.drain()
    links = conn.execute(
        "SELECT c.text, e.text FROM causal_links l JOIN facts c ON c.id = l.cause_fact "
        "JOIN facts e ON e.id = l.effect_fact WHERE l.via = 'question'").fetchall()
    assert links == [(
        "The warehouse role lost its SELECT grant on the orders schema in Friday's "
        "permission cleanup.",
        "The export query returned no rows, so the writer produced an empty file.")]


def test_turns_are_read_in_capture_order_even_when_one_was_spooled(memory: Memory) -> None:
    from reasongraph_mcp.memory.storage.inbox import turns_around

    def add(turn: str, at: str) -> int:
        memory.store.conn.execute(
            "INSERT INTO inbox(session, turn, project, harness, prompt, response, created_at) "
            "VALUES ('s', ?, '/p', 'claude-code', 'q', 'a', ?)", (turn, at))
        return memory.store.conn.last_insert_rowid()

    second = add("t2", "2026-03-01T10:05:00Z")  # stored directly
    first = add("t1", "2026-03-01T10:00:00Z")  # spooled while the file was locked: a later id
    # Captured in the same second: the prompt hook's turn numbers ("<n>:<digest>") decide.
    later = add("2:b7c8", "2026-03-01T11:00:00Z")
    earlier = add("1:f2c3", "2026-03-01T11:00:00Z")
    memory.drain()
    assert turns_around(memory.store.conn, second) == (first, earlier)
    assert turns_around(memory.store.conn, first) == (None, second)
    assert turns_around(memory.store.conn, later) == (earlier, None)
    assert turns_around(memory.store.conn, earlier) == (second, later)


def test_a_turn_spooled_before_the_file_existed_is_ingested_before_the_turn_after_it(
    memory: Memory,
) -> None:
    """The first turn of a fresh install can be spooled (no file yet) while the second is
    written straight to the inbox: the drain still reads them in the order they were said, so
    the first turn's facts come first and nothing of the second is judged against them as if
    it were older."""
    from reasongraph_mcp.memory.prompt import inbox

    def add(turn: str, prompt: str, response: str) -> dict[str, str]:
        return {"session": "s", "turn": turn, "project": PROJECT, "harness": "claude-code",
                "prompt": prompt, "response": response, "created_at": "2026-03-01T10:00:00Z"}

    inbox.append(memory.store.conn, add(
        "2:b7c8", "Pin it.", "I pinned rkyv = \"0.7.44\" because 0.8 changes the archive API."))
    spool = memory.path.parent / "spool"
    spool.mkdir()
    (spool / "1.json").write_text(json.dumps(add(
        "1:f2c3", "Why is opening the index slow?",
        "Opening the index spends its time in bincode decoding the segment directory.")))
    report = memory.drain(spool=spool)
    assert report.spooled == 1 and report.ingested == 2
    rows = memory.store.conn.execute("SELECT id, text FROM facts ORDER BY id").fetchall()
    texts = [t for _, t in rows]
    assert texts.index(next(t for t in texts if "bincode" in t)) < texts.index(
        next(t for t in texts if "rkyv" in t))
