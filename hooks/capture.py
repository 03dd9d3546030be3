"""Stop hook (Claude Code, Codex; OpenCode through its plugin): capture the exchange of the
turn that just ended. Standard library only; prints nothing (any Stop output would make the
agent keep going) and exits 0 in every case.

Takes the user prompt (as ``prepare.py`` remembered it for this session and turn, else the
last user message of the transcript) and ``last_assistant_message``; strips our injected
block, ``<private>`` and ``<system-reminder>`` blocks; redacts secrets BEFORE anything is
written; appends the exchange to the ``inbox`` table with ``INSERT OR IGNORE`` on
(session, turn), so a repeated Stop never stores a turn twice; then nudges the warm server,
which extracts facts from it later. Like ``prepare.py`` it first hands the event to the warm
server (``relay.py``), which runs ``run`` in-process and writes the row through the engine;
the script runs ``run`` itself only when no server answers. When the file is missing or
stays locked, the exchange goes to an owner-only spool file that the next drain moves into
the inbox.

Skipped when ``stop_hook_active`` is true (the agent is already continuing because of a
Stop hook). Where no server runs, ``prepare.py`` recalls pending inbox rows by word matching
and the next server (or ``reasongraph-mcp drain``) ingests them: spawning a drain from here
would load the embedding model after every turn.
"""

from __future__ import annotations

import os
import sys

if __package__:  # hooks.capture: the server runs this hook's code for the hook process
    from . import relay
else:  # the script, or a module next to it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import relay

if __name__ == "__main__":  # the warm path first, before the imports below cost their time
    RAW = relay.run_by_server("capture", "REASONGRAPH_CAPTURE_TIMEOUT", 8.0)

import contextlib
import json
import socket
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

if __package__:
    from . import common
else:
    import common

TAIL_BYTES = 512 * 1024  # of the transcript, read only when prepare left no prompt


def _blocks_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def from_transcript(path: str, role: str) -> str:
    """The text of the last ``role`` (user or assistant) message of a Claude Code transcript
    (JSON Lines with top-level ``type`` and ``message.content``); '' when unreadable."""
    if not path:
        return ""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("type") != role:
            continue
        message = entry.get("message")
        text = _blocks_text(message.get("content")) if isinstance(message, dict) else ""
        if text.strip():
            return text
    return ""


def spool(db: Path, row: dict[str, Any]) -> None:
    name = common.digest(f"{row['session']}\x00{row['turn']}", 24) + ".json"
    common.write_private(common.spool_dir(db) / name, json.dumps(row, ensure_ascii=False))


def store(db: Path, row: dict[str, Any], env: Mapping[str, str] | None = None) -> bool:
    """INSERT OR IGNORE the exchange into ``inbox``; False when the file is missing, has no
    inbox yet, or stayed locked past the busy timeout."""
    if not db.exists():
        return False
    busy_ms = int(relay.number("REASONGRAPH_HOOK_BUSY_MS", 5000, env))
    conn = sqlite3.connect(str(db), timeout=busy_ms / 1000, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout={busy_ms}")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(common.INBOX_INSERT, row)
        return True
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def nudge(db: Path) -> None:
    """Tell the warm server there is work; don't wait for an answer."""
    if not hasattr(socket, "AF_UNIX"):
        return
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(0.2)
        s.connect(str(common.socket_path(db)))
        s.sendall(b'{"op": "nudge"}\n')


def run(
    event: dict[str, Any],
    db: Path,
    *,
    write: Callable[[dict[str, Any]], object] | None = None,
    notify: Callable[[], None] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> None:
    """Capture one Stop event into the inbox of ``db`` (the whole hook minus stdin), then
    ``notify`` the server (default: a nudge over its socket). The warm server passes its
    engine's ``Memory.capture`` as ``write`` (default: ``store``, else ``spool``) and the hook
    process's ``env`` and ``cwd`` (default: this process's)."""
    row = build_row(event, db, env=env, cwd=cwd)
    if row is None:
        return
    if write is not None:
        write(row)
    elif not store(db, row, env):
        spool(db, row)
    if notify is not None:
        notify()
    else:
        nudge(db)


def build_row(
    event: dict[str, Any],
    db: Path,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> dict[str, Any] | None:
    """The inbox row for a Stop event (cleaned and redacted), or None when there is
    nothing to capture."""
    if event.get("stop_hook_active") is True:
        return None
    session = common.text_of(event.get("session_id")) or "unknown-session"
    state = common.load_state(db, session)
    prompts = state.get("prompts") if isinstance(state.get("prompts"), dict) else {}
    turn = (
        common.text_of(event.get("turn_id"))
        or common.text_of(event.get("prompt_id"))
        or common.text_of(state.get("turn"))
    )
    prompt = prompts.get(turn) if turn else None
    if not isinstance(prompt, str):
        raw = common.text_of(event.get("prompt")) or from_transcript(
            common.text_of(event.get("transcript_path")), "user"
        )
        prompt = common.clean(raw)
    response = common.text_of(event.get("last_assistant_message")) or from_transcript(
        common.text_of(event.get("transcript_path")), "assistant"
    )
    response = common.clean(response)
    if not prompt and not response:
        return None
    if not turn:
        turn = "h:" + common.digest(prompt + "\x00" + response, 16)
    row = {
        "session": session,
        "turn": turn,
        "project": common.project_root(
            common.text_of(event.get("cwd")) or common.text_of(state.get("project")) or None,
            env=env, cwd=cwd,
        ),
        "harness": common.harness_of(event, env),
        "prompt": prompt,
        "response": response,
        "created_at": common.now_iso(env),
    }
    return row


def main(raw: bytes) -> None:
    """The hook when no warm server answered: write the inbox row itself."""
    db = common.db_path()
    try:
        run(common.parse_event(raw), db)
    except Exception as exc:  # never disturb the agent: log and say nothing
        common.log_error(db, "capture", exc)


if __name__ == "__main__":
    main(RAW)
    sys.exit(0)
