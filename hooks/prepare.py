"""UserPromptSubmit hook (Claude Code, Codex; OpenCode through its plugin): recall before the
prompt reaches the model. Standard library only; exits 0 in every case.

First it hands the raw event to the warm server (``relay.py``), which runs this module's
``run`` in-process with the engine, so a hook that a server answers imports almost nothing.
``run`` remembers the prompt for this session and turn (for ``capture.py``), then asks for
a budgeted block of facts about this prompt in this project. When no server answers in
time the script runs ``run`` itself: it opens the file read-only and recalls with FTS5
alone (plus word matching over exchanges still waiting in the inbox, so that what was
captured is recalled even where no server ever runs). Prints
``hookSpecificOutput.additionalContext`` with the block, or nothing when nothing relevant
clears the relevance floor. Fact ids already shown in this session are never shown again.

Environment: ``REASONGRAPH_DB`` (file), ``REASONGRAPH_BUDGET`` (characters, default 2000; the
server's block may stretch to twice that to show the three best exchanges whole),
``REASONGRAPH_HOOK_TIMEOUT`` (hard limit in seconds, default 8),
``REASONGRAPH_HOOK_SERVER_TIMEOUT`` (seconds to wait for the server's answer, default 4),
``REASONGRAPH_HOOK_START_WAIT`` (seconds to wait for a starting server's socket, default 2),
``REASONGRAPH_NOW`` (replays).
"""

from __future__ import annotations

import os
import sys

if __package__:  # hooks.prepare: the server runs this hook's code for the hook process
    from . import relay
else:  # the script, or a module next to it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import relay

if __name__ == "__main__":  # the warm path first, before the imports below cost their time
    RAW = relay.run_by_server("prepare", "REASONGRAPH_HOOK_TIMEOUT", 8.0)

import json
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

if __package__:
    from . import common
    from .text import CJK, fold, other_script_words, prefix_stem, search_terms
    from .text import identifier_words as content_words
else:
    import common
    from text import CJK, fold, other_script_words, prefix_stem, search_terms
    from text import identifier_words as content_words


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])")


def is_trivial(prompt: str) -> bool:
    """Prompts that deserve no recall: empty, a bare slash command, or under two content
    words ("yes", "continue", "ok go", "好的"), in any script: a Japanese or Chinese prompt
    has no word ``content_words`` reads."""
    text = prompt.strip()
    if not text or (text.startswith("/") and len(text.split()) <= 2):
        return True
    return len(content_words(text)) + other_script_words(text) < 2


def fallback_context(
    db: Path, prompt: str, project: str, exclude: set[int], limit: int
) -> dict[str, Any] | None:
    """Recall without the server: FTS5 over current facts of ``project`` (stdlib sqlite3,
    read-only, never touching the vec0 table), and word matching over pending inbox rows.
    Chinese and Japanese, which the index holds as whole runs, are matched by character
    pairs on the text itself."""
    if not db.exists():
        return None
    words = search_terms(prompt)[:32]
    if not words:
        return None
    import sqlite3  # only here: the warm server never needs it
    from urllib.parse import quote

    wide = [w for w in words if CJK.search(w)]
    indexed = [w for w in words if w not in wide]
    current = "f.project = ? AND f.status = 'current'"
    columns = "f.id, f.text, f.session, coalesce(f.valid_from, f.recorded_at)"
    conn = sqlite3.connect(f"file:{quote(str(db))}?mode=ro", uri=True, timeout=1.0)
    try:
        conn.execute("PRAGMA busy_timeout=1000")
        total = conn.execute("SELECT count(*) FROM facts").fetchone()[0] or 0
        df: dict[str, int] = {}
        for w in indexed:
            try:
                df[w] = conn.execute(
                    "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH ?", ('"' + w + '"',)
                ).fetchone()[0]
            except sqlite3.Error:
                df[w] = 0
        for w in wide:
            df[w] = conn.execute(
                "SELECT count(*) FROM facts WHERE instr(text, ?) > 0", (w,)).fetchone()[0]
        rows = []
        if indexed:
            match = " OR ".join('"' + w.replace('"', "") + '"' for w in indexed)
            rows += conn.execute(
                f"SELECT {columns} FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
                f"WHERE facts_fts MATCH ? AND {current} ORDER BY bm25(facts_fts) LIMIT 60",
                (match, project),
            ).fetchall()
        if wide:
            rows += conn.execute(
                f"SELECT {columns} FROM facts f WHERE {current} AND ("
                + " OR ".join("instr(f.text, ?) > 0" for _ in wide)
                + ") ORDER BY f.id DESC LIMIT 60",
                (project, *wide),
            ).fetchall()
        pending = conn.execute(
            "SELECT id, session, created_at, prompt, response FROM inbox "
            "WHERE state = 'pending' AND project = ? ORDER BY id DESC LIMIT 200",
            (project,),
        ).fetchall()
    except sqlite3.Error:
        return None
    finally:
        conn.close()

    n = max(total, 1) + len(pending)
    idf = {w: math.log(1 + n / (1 + df.get(w, 0))) for w in words}
    # A pair of characters no fact holds is mostly the seam of two words ("么部" of "为什么部署"),
    # not a topic the memory lacks: it does not count against the facts.
    query_mass = sum(v for w, v in idf.items() if w not in wide or df[w]) or 1.0

    def score(text: str) -> tuple[float, int]:
        tokens = set(re.findall(r"\w+", fold(text)))
        hit = [w for w in words
               if (w in text if w in wide else any(t.startswith(prefix_stem(w)) for t in tokens))]
        return sum(idf[w] for w in hit) / query_mass, len(hit)

    scored: list[tuple[float, str, int | None]] = []
    for fid, text, session, date in dict.fromkeys(rows):
        if fid in exclude:
            continue
        s, k = score(text)
        if k >= 2 and s >= 0.25:
            scored.append((s, f"- #{fid} {(date or '')[:10]} {session or '-'}: {text}", fid))
    for _iid, session, created, prompt_text, response in pending:
        for sentence in _SENTENCE_END.split(f"{prompt_text or ''} {response or ''}"):
            sentence = sentence.strip()
            if len(sentence) < 12:
                continue
            s, k = score(sentence)
            if k >= 2 and s >= 0.3:
                line = f"- (not yet indexed) {created[:10]} {session}: {sentence[:400]}"
                scored.append((s, line, None))
    if not scored:
        return None
    scored.sort(key=lambda x: -x[0])
    best = scored[0][0]
    kept = [x for x in scored if x[0] >= 0.5 * best][:12]
    block = common.render_block([line for _, line, _ in kept], limit, header=common.HEADER)
    ids = [fid for _, line, fid in kept if fid is not None and line in block]
    return {"context": block, "ids": ids}


Ask = Callable[[dict[str, Any]], "dict[str, Any] | None"]


def run(
    event: dict[str, Any],
    db: Path,
    *,
    ask: Ask | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> str | None:
    """The hook minus stdin/stdout: remember the prompt for capture, then return the JSON
    line to print (None = print nothing). ``ask`` answers a ``context`` request (the warm
    server passes its own); without it the file is read directly (``fallback_context``).
    ``env`` and ``cwd`` are the hook process's (default: this process's)."""
    prompt = common.text_of(event.get("prompt"))
    session = common.text_of(event.get("session_id")) or "unknown-session"
    project = common.project_root(common.text_of(event.get("cwd")) or None, env=env, cwd=cwd)

    state = common.load_state(db, session)
    if not state:
        common.prune_states(db)
    count = int(state.get("count", 0)) + 1
    turn = (
        common.text_of(event.get("turn_id"))
        or common.text_of(event.get("prompt_id"))
        or f"{count}:{common.digest(prompt, 8)}"
    )
    prompts = state.get("prompts") if isinstance(state.get("prompts"), dict) else {}
    prompts = dict(list(prompts.items())[-7:])
    prompts[turn] = common.clean(prompt)
    state.update(count=count, turn=turn, prompts=prompts, project=project)
    common.save_state(db, session, state)

    query = common.strip_blocks(prompt)
    if is_trivial(query):
        return None
    shown = {int(i) for i in state.get("shown", []) if isinstance(i, int)}
    limit = common.budget(env)
    request = {
        "op": "context", "prompt": query[:4000], "project": project, "session": session,
        "budget": limit, "exclude": sorted(shown), "now": common.now_iso(env),
    }
    if ask is not None:  # the warm server: never a second SQLite library on its file
        reply = ask(request)
    else:
        reply = fallback_context(db, query, project, shown, limit)
    if not reply or not reply.get("context"):
        return None
    ids = [i for i in reply.get("ids", []) if isinstance(i, int)]
    if ids:
        state["shown"] = [*state.get("shown", []), *ids]
        common.save_state(db, session, state)
    out = {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": str(reply["context"]),
        }
    }
    return json.dumps(out, ensure_ascii=False)


def main(raw: bytes) -> None:
    """The hook when no warm server answered: recall from the file itself."""
    db = common.db_path()
    try:
        line = run(common.parse_event(raw), db)
        if line:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
    except Exception as exc:  # never fail the prompt: log and say nothing
        common.log_error(db, "prepare", exc)


if __name__ == "__main__":
    main(RAW)
    sys.exit(0)
