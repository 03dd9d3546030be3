"""No secret of the corpus (``tests/secret_corpus.py``) reaches storage: each text goes
through the real engine (``Memory.remember``) and through the real capture hook (a
subprocess with a Stop event on stdin, three texts per exchange, then ``Memory.drain``),
then an export is written, and the bytes of the .db, -wal, -shm and the export are searched,
with the file open and after it is closed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import secret_corpus as corpus  # tests/ is on sys.path (it is not a package)
from reasongraph_mcp.memory import Memory

HOOKS = Path(__file__).resolve().parent.parent / "hooks"
PROJECT = "/home/dev/ledgerline"
SUFFIXES = ("", "-wal", "-shm")


def _capture(db: Path, session: str, prompt: str, reply: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    env.update(REASONGRAPH_DB=str(db), REASONGRAPH_HOOK_SERVER_TIMEOUT="0.2")
    event = {
        "session_id": session, "transcript_path": None, "cwd": PROJECT,
        "hook_event_name": "Stop", "stop_hook_active": False, "prompt": prompt,
        "last_assistant_message": reply,
    }
    proc = subprocess.run([sys.executable, str(HOOKS / "capture.py")],
                          input=json.dumps(event).encode(), env=env, capture_output=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr


def _leaks(files: dict[str, bytes]) -> list[str]:
    return [f"{kind} in {name}" for kind, _, secret in corpus.SECRETS
            for name, data in files.items() if secret.encode() in data]


def test_no_secret_reaches_the_db_wal_shm_or_export(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    export = tmp_path / "export.jsonl"
    with Memory(db, embedder="none"):
        pass  # the schema, for the hook's INSERT
    texts = [text for _, text, _ in corpus.SECRETS]
    for i in range(0, len(texts), 3):  # a prompt and a reply of two texts per exchange
        _capture(db, f"hook-{i}", texts[i], "\n\n".join(["Noted:", *texts[i + 1 : i + 3]]))
    with Memory(db, embedder="none") as mem:
        drained = mem.drain()
        for i, (_, text, _) in enumerate(corpus.SECRETS):
            mem.remember(text, project=PROJECT, session=f"engine-{i}")
        rows = mem.export(export)
        while_open = {db.name + s: (tmp_path / (db.name + s)).read_bytes()
                      for s in SUFFIXES if (tmp_path / (db.name + s)).exists()}
        while_open["export"] = export.read_bytes()
        stored = mem.store.conn.execute("SELECT count(*) FROM facts").fetchone()[0]
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    assert drained and rows and stored >= len(corpus.SECRETS)  # the texts were stored...
    assert "memory.db-wal" in while_open and "memory.db-shm" in while_open
    blob = b"".join(while_open.values())
    assert blob.count(b"[REDACTED:") >= 2 * len(corpus.SECRETS)  # ...redacted
    assert _leaks(while_open) == []
    assert _leaks(after) == []


def test_the_safe_texts_are_stored_as_they_are(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    with Memory(db, embedder="none") as mem:
        for text in corpus.SAFE:
            mem.remember(text, project=PROJECT)
        facts = " ".join(t for (t,) in mem.store.conn.execute("SELECT text FROM facts"))
    assert "[REDACTED:" not in facts
    for word in ("3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a", "token bucket", "ssh -p 2222",
                 "123e4567-e89b-12d3-a456-426614174000", "mkdir -p build/dist"):
        assert word in facts
