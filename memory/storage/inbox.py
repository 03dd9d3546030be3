"""The ``inbox`` table's queries: the capture queue the Stop hook appends to and the drain
(``memory/prompt/inbox.py``) empties. Functions over a connection, because the drain runs
them under its own lock and short transactions; the claim and lease logic stays with the
drain, only the SQL is here.
"""

from __future__ import annotations

import json

import apsw

from ...hooks.common import INBOX_INSERT

CLAIM_BATCH = 64  # pending rows looked at per claim


def add(conn: apsw.Connection, row: dict[str, object]) -> bool:
    """Insert one captured exchange unless its (session, turn) is in; True when it was new.
    The statement is the hooks' own (``hooks/common.INBOX_INSERT``): one copy for both."""
    conn.execute(INBOX_INSERT, row)
    return conn.changes() > 0


def pending_count(conn: apsw.Connection) -> int:
    """Rows still waiting to be drained (raises on a file without an inbox)."""
    return conn.execute("SELECT count(*) FROM inbox WHERE state = 'pending'").fetchone()[0]


def pending_holding(
    conn: apsw.Connection, *, project: str | None, session: str | None, texts: list[str]
) -> int:
    """Pending rows that ``forget`` of ``project``, ``session`` or ``texts`` (an erased fact's
    sentence, cut out of the rows that quote it) erases or cuts."""
    return conn.execute(
        "SELECT count(*) FROM inbox WHERE state = 'pending' AND (project = ?1 OR session = ?2 "
        "OR EXISTS (SELECT 1 FROM json_each(?3) t WHERE instr(prompt, t.value) > 0 "
        "OR instr(response, t.value) > 0))",
        (project, session, json.dumps(texts)),
    ).fetchone()[0]


def turns_around(conn: apsw.Connection, iid: int) -> tuple[int | None, int | None]:
    """The drained turns just before and just after inbox row ``iid`` in its session and
    project: (previous id, next id), None where there is none."""
    row = conn.execute(
        f"SELECT session, project, created_at, {_SEQ} FROM inbox WHERE id = ?", (iid,)
    ).fetchone()
    if row is None:
        return None, None
    session, project, created, seq = row
    out: list[int | None] = []
    # In the order the turns were captured (their time, then the turn number the prompt hook
    # gave them): an exchange the hook had to spool while the file was missing or locked
    # enters the inbox later, with a later id than the turn after it.
    for op, order in (("<", "DESC"), (">", "ASC")):
        near = conn.execute(
            f"SELECT id FROM inbox WHERE session = ? AND project IS ? AND id != ? "
            f"AND state = 'done' AND (created_at, {_SEQ}, id) {op} (?, ?, ?) "
            f"ORDER BY created_at {order}, {_SEQ} {order}, id {order} LIMIT 1",
            (session, project, iid, created, seq, iid),
        ).fetchone()
        out.append(near[0] if near else None)
    return out[0], out[1]


# The turn number of a turn key "<n>:<digest>" (the prompt hook counts a session's turns);
# 0 for keys of another form (an agent's own turn id, a content digest).
_SEQ = (
    "(CASE WHEN turn GLOB '[0-9]*:*' "
    "THEN CAST(substr(turn, 1, instr(turn, ':') - 1) AS INTEGER) ELSE 0 END)"
)


def next_session_start(conn: apsw.Connection, iid: int) -> int | None:
    """The first drained turn of the next session of inbox row ``iid``'s project (the next
    row of the project, when it belongs to another session), else None."""
    row = conn.execute("SELECT session, project FROM inbox WHERE id = ?", (iid,)).fetchone()
    if row is None:
        return None
    near = conn.execute(
        "SELECT id, session FROM inbox WHERE project IS ? AND id > ? AND state = 'done' "
        "ORDER BY id LIMIT 1", (row[1], iid),
    ).fetchone()
    return near[0] if near and near[1] != row[0] else None


def oldest_pending(conn: apsw.Connection) -> list[tuple]:
    """The oldest pending rows, in the order they were captured (their time, then the turn
    number the prompt hook gave them): (id, session, turn, project, harness, prompt, response,
    created_at, claimed_by, claimed_at). A turn spooled while the file was missing enters the
    inbox after the turn that followed it; ingested in id order, its sentences would be
    compared with the later turn's as if they were newer."""
    return conn.execute(
        "SELECT id, session, turn, project, harness, prompt, response, created_at, "
        "claimed_by, claimed_at FROM inbox WHERE state = 'pending' "
        f"ORDER BY created_at, {_SEQ}, id LIMIT ?",
        (CLAIM_BATCH,),
    ).fetchall()


def claim(conn: apsw.Connection, iid: int, worker: str, at: str) -> None:
    conn.execute(
        "UPDATE inbox SET claimed_by = ?, claimed_at = ? WHERE id = ?", (worker, at, iid)
    )


def release(conn: apsw.Connection, iid: int) -> None:
    """Give a claimed row back, still pending, to the next drain."""
    conn.execute("UPDATE inbox SET claimed_by = NULL WHERE id = ?", (iid,))


def mark_failed(conn: apsw.Connection, iid: int, error: str, at: str) -> None:
    conn.execute(
        "UPDATE inbox SET state = 'failed', error = ?, done_at = ? WHERE id = ?",
        (error, at, iid),
    )


def mark_done(conn: apsw.Connection, iid: int, at: str) -> None:
    """Mark a row drained and drop its text (the facts hold it now)."""
    conn.execute(
        "UPDATE inbox SET state = 'done', done_at = ?, prompt = NULL, response = NULL, "
        "error = NULL WHERE id = ?",
        (at, iid),
    )


def part_written(conn: apsw.Connection, source: str) -> bool:
    """Whether statements with ``source`` (``inbox:<id>:<role>``) were committed."""
    return (
        conn.execute("SELECT 1 FROM statements WHERE source = ? LIMIT 1", (source,)).fetchone()
        is not None
    )
