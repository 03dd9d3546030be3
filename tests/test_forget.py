"""Erasure: ``forget`` deletes a fact, a session or a project so that its text is nowhere in
the bytes of the database file or its WAL (rows, FTS5 segments, vectors, passages, entities,
captured exchanges), while everything else keeps working."""

from __future__ import annotations

from pathlib import Path

import pytest
from reasongraph_mcp.memory import InvalidInput, Memory, NotFound

SECRET = ("The zebracorn vault at quokkahall_keys.py rotates every Thursday because its "
          "zebracorn tokens expire weekly.")
MARKERS = ("zebracorn", "quokkahall")


def file_bytes(path: Path) -> bytes:
    return b"".join(
        p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists()
    )


def traces(path: Path, words: tuple[str, ...] = MARKERS) -> list[str]:
    """Which of ``words`` (any case, or a FTS5 stem prefix) are still in the file bytes."""
    data = file_bytes(path).lower()
    return [w for w in words if w[:7].encode() in data]


ADJ = "amber brisk cobalt dusky eager fuzzy gentle hollow ivory jolly".split()
NOUN = "falcon badger otter heron lynx marten walrus bison gecko puffin".split()


def fill(memory: Memory, project: str, n: int, session_prefix: str = "f") -> None:
    # Many small writes, so the FTS5 index has many segments and merges behind it.
    for i in range(n):
        memory.remember(
            f"The {ADJ[i % 10]} {NOUN[i // 10 % 10]} worker sends invoices to the billing queue.",
            project=project, session=f"{session_prefix}{i % 4}",
        )


def check_integrity(memory: Memory) -> None:
    conn = memory.store.conn
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for table in ("facts_fts", "passages_fts"):
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")


def test_forget_one_fact_leaves_no_trace_of_its_text(memory: Memory, db_path: Path) -> None:
    fill(memory, "p", 60)
    ids = memory.remember(
        "Deploys go through the canary first. " + SECRET + " Logs ship to Loki.",
        project="p", session="s1",
    )
    fill(memory, "p", 40, "g")  # (restatements: more statements, passages and events)
    fid = ids[1]
    assert "zebracorn" in memory.recall("zebracorn vault", project="p")[0].text
    memory.store.checkpoint()
    assert traces(db_path) == list(MARKERS)
    before = memory.status().facts

    assert memory.forget(fact=fid) == 1

    assert traces(db_path) == []
    assert Path(f"{db_path}-wal").stat().st_size == 0
    check_integrity(memory)
    with pytest.raises(NotFound):
        memory.history(fid)
    with pytest.raises(NotFound):  # the entity only this fact named is gone too
        memory.history("quokkahall_keys.py")
    # The sentences said with it stay, and their passage no longer quotes it.
    siblings = memory.recall("canary deploys and Loki logs", project="p", k=3)
    assert {h.text for h in siblings[:2]} == {"Deploys go through the canary first.",
                                             "Logs ship to Loki."}
    gone = memory.recall("zebracorn vault rotates Thursday", project="p", k=50,
                         include_history=True)
    assert all("zebracorn" not in h.text for h in gone)
    assert memory.status().facts == before - 1


def test_forget_erases_the_vector_of_the_fact(real_memory: Memory, db_path: Path) -> None:
    ids = real_memory.remember(["The billing queue drains every night.", SECRET], project="p")
    blob = real_memory.store.conn.execute(
        "SELECT embedding FROM fact_vecs WHERE rowid = ?", (ids[1],)
    ).fetchone()[0]
    # 16-byte windows of a dense float32 vector: distinctive, and some window always lies
    # inside one page even when the vec0 chunk spans overflow pages.
    windows = [blob[i : i + 16] for i in range(0, len(blob) - 16, 64)]
    real_memory.store.checkpoint()
    assert any(w in file_bytes(db_path) for w in windows)
    real_memory.forget(fact=ids[1])
    assert not any(w in file_bytes(db_path) for w in windows)
    assert real_memory.recall("billing queue", project="p")[0].id == ids[0]


def test_forget_a_session_erases_what_it_said_and_its_captured_exchanges(
    memory: Memory, db_path: Path
) -> None:
    fill(memory, "p", 30)
    memory.remember(["Quiet note one.", SECRET], project="p", session="leaky")
    memory.remember("The zebracorn rollout is paused.", project="p", session="leaky")
    memory.store.conn.execute(
        "INSERT INTO inbox(session, turn, project, prompt, response, created_at) "
        "VALUES ('leaky', 't1', 'p', 'what about zebracorn?', 'quokkahall it is', '2026-01-01')"
    )
    before = memory.status().facts
    assert memory.forget(session="leaky") == 3
    assert traces(db_path) == []
    assert memory.status().facts == before - 3
    assert memory.store.conn.execute("SELECT count(*) FROM inbox").fetchone()[0] == 0
    assert memory.store.conn.execute(
        "SELECT count(*) FROM passages WHERE session = 'leaky'"
    ).fetchone()[0] == 0
    check_integrity(memory)
    assert memory.recall("billing queue invoices", project="p")
    assert memory.forget(session="leaky") == 0  # erasing twice is not an error


def test_forget_a_project_leaves_other_projects_alone(memory: Memory, db_path: Path) -> None:
    memory.remember(SECRET, project="/secret/project", session="a")
    memory.remember("The zebracorn team owns billing.", project="/secret/project", session="b")
    memory.remember("The gateway retries failed invoices twice.", project="/other", session="c")
    assert memory.forget(project="/secret/project") == 2
    assert traces(db_path) == []
    assert memory.status().facts == 1
    hits = memory.recall("gateway invoices", project="/other")
    assert [h.text for h in hits] == ["The gateway retries failed invoices twice."]
    check_integrity(memory)


def test_forgetting_a_replacement_keeps_the_old_fact_superseded_without_a_dangling_link(
    memory: Memory, db_path: Path
) -> None:
    [old] = memory.remember("The ledger service uses PostgreSQL 16.", project="p")
    new = memory.revise(old, "The ledger service now uses zebracorn DB.",
                        reason="zebracorn is faster")
    assert memory.forget(fact=new) == 1
    assert traces(db_path, ("zebracorn",)) == []
    hit = memory.recall("ledger service", project="p", include_history=True)[0]
    assert (hit.id, hit.status, hit.superseded_by) == (old, "superseded", None)
    last = memory.history(old)[-1]
    assert (last.action, last.other_id) == ("supersede", None)
    assert memory.recall("ledger service", project="p") == []


@pytest.mark.parametrize(
    ("kwargs", "error", "says"),
    [
        ({}, InvalidInput, "exactly one"),
        ({"fact": 1, "session": "s1"}, InvalidInput, "exactly one"),
        ({"fact": 987654}, NotFound, "fact 987654 not found"),
        ({"fact": "1"}, InvalidInput, "integer"),
        ({"project": "  "}, InvalidInput, "project"),
    ],
)
def test_bad_forget_arguments_raise_and_delete_nothing(
    memory: Memory, kwargs: dict[str, object], error: type[Exception], says: str
) -> None:
    memory.remember("The deploy runs on Fridays.", project="p", session="s1")
    with pytest.raises(error, match=says):
        memory.forget(**kwargs)  # type: ignore[arg-type]
    assert memory.status().facts == 1


# -- the hooks' files beside the database: spool and per-session state ------------------------


def _hook_files(db_path: Path, session: str, project: str, prompt: str, reply: str) -> None:
    """What the hooks leave when the file stayed locked: a spool file (``capture.spool``) and
    the session's state file with the prompt of the turn (``prepare`` through ``save_state``)."""
    from reasongraph_mcp.hooks import capture, common

    capture.spool(db_path, {
        "session": session, "turn": "t9", "project": project, "harness": "claude-code",
        "prompt": prompt, "response": reply, "created_at": "2026-01-02T00:00:00Z",
    })
    common.save_state(db_path, session, {
        "count": 1, "turn": "t9", "prompts": {"t9": prompt}, "project": project,
    })


def _all_hook_bytes(db_path: Path) -> bytes:
    return b"".join(
        p.read_bytes()
        for folder in (Path(f"{db_path}.spool"), Path(f"{db_path}.hooks"))
        if folder.is_dir() for p in folder.iterdir() if p.is_file()
    )


def test_forget_a_session_erases_its_spool_state_and_pending_exchanges(
    memory: Memory, db_path: Path
) -> None:
    from reasongraph_mcp.hooks.common import spool_dir

    memory.remember("Quiet note about the billing queue.", project="p", session="other")
    memory.remember(SECRET, project="p", session="leaky")
    memory.store.conn.execute(
        "INSERT INTO inbox(session, turn, project, prompt, response, created_at) "
        "VALUES ('leaky', 't1', 'p', 'what about zebracorn?', 'quokkahall it is', '2026-01-01')"
    )
    _hook_files(db_path, "leaky", "p", "Is the zebracorn vault safe?", "The quokkahall keys.")
    _hook_files(db_path, "other", "p", "How is billing?", "Fine.")
    erased = memory.forget_detailed(session="leaky")
    assert (erased.facts, erased.pending, erased.spool_files, erased.state_files) == (1, 1, 1, 1)
    assert erased.summary() == (
        "Erased 1 fact(s), 1 pending exchange(s), 1 spool file(s), 1 session state file(s)."
    )
    assert not any(m.encode() in _all_hook_bytes(db_path) for m in MARKERS)
    assert b"How is billing?" in _all_hook_bytes(db_path)  # another session's files stay
    report = memory.drain(spool=spool_dir(db_path))  # the next drain brings nothing back
    assert report.spooled == 1
    assert traces(db_path) == []
    assert memory.forget_detailed(session="leaky").summary() == "Erased 0 fact(s)."


def test_forget_a_project_erases_the_spool_and_state_of_that_project(
    memory: Memory, db_path: Path
) -> None:
    memory.remember(SECRET, project="/secret", session="a")
    _hook_files(db_path, "a", "/secret", "zebracorn?", "quokkahall.")
    _hook_files(db_path, "b", "/secret", "zebracorn again?", "")
    _hook_files(db_path, "c", "/other", "Billing?", "Fine.")
    erased = memory.forget_detailed(project="/secret")
    assert (erased.facts, erased.spool_files, erased.state_files) == (1, 2, 2)
    data = _all_hook_bytes(db_path)
    assert b"zebracorn" not in data and b"quokkahall" not in data and b"Billing?" in data


def test_forget_a_fact_cuts_its_sentence_out_of_spooled_and_state_prompts(
    memory: Memory, db_path: Path
) -> None:
    fid = memory.remember(SECRET, project="p", session="s")[0]
    _hook_files(db_path, "s2", "p", "Note: " + SECRET + " Keep it.", SECRET)
    erased = memory.forget_detailed(fact=fid)
    assert (erased.facts, erased.spool_files, erased.state_files) == (1, 1, 1)
    data = _all_hook_bytes(db_path)
    assert b"zebracorn" not in data and b"Keep it." in data


def test_the_cli_says_what_forget_erased(db_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from reasongraph_mcp.cli import main

    monkeypatch.setenv("REASONGRAPH_DB", str(db_path))
    monkeypatch.setenv("REASONGRAPH_EMBED_MODEL", "none")
    with Memory(db_path, embedder="none") as mem:
        mem.remember(SECRET, project="p", session="leaky")
    _hook_files(db_path, "leaky", "p", "zebracorn?", "quokkahall.")
    assert main(["forget", "--session", "leaky", "--yes"]) == 0
    assert capsys.readouterr().out.strip() == (
        "Erased 1 fact(s), 1 spool file(s), 1 session state file(s)."
    )
