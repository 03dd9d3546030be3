"""One captured exchange written into the inbox, as ``hooks/capture.py`` appends it: the
prompt-block and recall specs replay sessions through it (tests/ is on sys.path, it is not a
package)."""

from __future__ import annotations

import itertools

from reasongraph_mcp.memory import Memory

_turns = itertools.count(1)


def exchange(
    mem: Memory, session: str, date: str, user: str, assistant: str, project: str
) -> None:
    """A user turn and the assistant's reply, captured in ``session`` of ``project`` on
    ``date``; the next ``drain`` ingests it."""
    mem.store.conn.execute(
        "INSERT INTO inbox(session, turn, project, harness, prompt, response, created_at) "
        "VALUES (?, ?, ?, 'claude-code', ?, ?, ?)",
        (session, f"t{next(_turns)}", project, user, assistant, date),
    )
