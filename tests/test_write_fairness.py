"""A bulk write shares the file: a writer that waits for the write lock marks
``<db>.waiting``, and a bulk write steps aside between its steps while a mark of another
process is fresh. How long anyone waits is measured by ``python -m evals.robustness``
(longest wait behind a bulk write), never asserted here."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.storage import connection as db
from reasongraph_mcp.memory.write import ingest


def test_a_writer_of_another_process_that_waits_is_seen_and_then_gets_in(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path, embedder="none") as mem:
        mem.remember("The cache is warmed at start-up.", project="/p")
        holder = mem.store.conn
        holder.execute("BEGIN IMMEDIATE")  # this process holds the write lock
        child = subprocess.Popen(
            [sys.executable, "-m", "reasongraph_mcp", "remember", "--project", "/p",
             "The scheduler moved to slot 4."],
            env={**os.environ, "REASONGRAPH_DB": str(path), "REASONGRAPH_EMBED_MODEL": "none"},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            seen = False
            deadline = time.monotonic() + 60
            while not seen and time.monotonic() < deadline and child.poll() is None:
                seen = db.others_waiting(holder)
                time.sleep(0.02)
            assert seen, "the waiting writer left no fresh mark"
            assert Path(db.waiting_file(path)).stat().st_mode & 0o777 == 0o600
        finally:
            holder.execute("COMMIT")
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        assert "Remembered 1 fact" in out
        assert any("slot 4" in h.text for h in mem.recall("scheduler slot", project="/p"))


def test_a_wait_of_this_process_is_not_taken_for_another_writer(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with Memory(path, embedder="none") as mem, Memory(path, embedder="none") as other:
        mem.remember("The cache is warmed at start-up.", project="/p")
        mem.store.conn.execute("BEGIN IMMEDIATE")
        done = threading.Event()

        def write() -> None:
            other.remember("The scheduler moved to slot 4.", project="/p")
            done.set()

        thread = threading.Thread(target=write)
        thread.start()
        try:
            deadline = time.monotonic() + 10
            while not os.path.exists(db.waiting_file(path)) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.05)
            assert os.path.exists(db.waiting_file(path))  # the thread is waiting, and marked
            assert not db.others_waiting(mem.store.conn)  # but it is this process
        finally:
            mem.store.conn.execute("COMMIT")
        thread.join(30)
        assert done.is_set()


def test_a_bulk_write_in_steps_lets_a_writer_in_between_and_loses_nothing(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Steps of 4 facts; a second process writes while the bulk write runs. Every fact of
    both lands once, whole, and the file stays intact."""
    monkeypatch.setattr(ingest, "WRITE_CHUNK", 4)
    path = tmp_path / "m.db"
    bulk = [f"Service {i} moved its queue to partition {i * 7}." for i in range(200)]
    with Memory(path, embedder="none") as mem:
        mem.remember("The cache is warmed at start-up.", project="/p")
        result: dict[str, object] = {}

        def write() -> None:
            result["ids"] = mem.remember(bulk, project="/p")

        thread = threading.Thread(target=write)
        thread.start()
        child = subprocess.run(
            [sys.executable, "-m", "reasongraph_mcp", "remember", "--project", "/p",
             "The scheduler moved to slot 4."],
            env={**os.environ, "REASONGRAPH_DB": str(path), "REASONGRAPH_EMBED_MODEL": "none"},
            capture_output=True, text=True, timeout=120)
        thread.join(120)
        assert child.returncode == 0, child.stderr
        ids = result["ids"]
        assert isinstance(ids, list) and len(ids) == len(bulk)
        texts = [h.text for h in mem.store.facts(ids).values()]
        assert sorted(texts) == sorted(bulk)
        assert "The scheduler moved to slot 4." in [
            h.text for h in mem.recall("scheduler slot", project="/p", k=20)]
        assert mem.store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
