"""The schema is created and upgraded by numbered migrations, idempotently."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from reasongraph_mcp.memory.storage import connection as db
from reasongraph_mcp.memory.storage.migrations import MIGRATIONS, applied, migrate


def test_migration_names_are_unique_and_increasing() -> None:
    names = [m.__name__ for m in MIGRATIONS]
    numbers = [int(re.match(r"m(\d{3})_", n).group(1)) for n in names]  # type: ignore[union-attr]
    assert len(set(names)) == len(names)
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def test_migrating_twice_is_a_no_op(db_path: Path) -> None:
    conn = db.connect(db_path)
    migrate(conn)
    before = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    assert migrate(conn) == len(MIGRATIONS)
    after = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    assert before == after
    assert applied(conn) == [m.__name__ for m in MIGRATIONS]


def test_every_connection_uses_wal_and_waits_for_a_busy_file(db_path: Path) -> None:
    import threading

    conn = db.connect(db_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
    migrate(conn)
    holder = db.connect(db_path)
    holder.execute("BEGIN IMMEDIATE")
    threading.Timer(0.3, lambda: holder.execute("COMMIT")).start()
    with db.transaction(conn):  # waits for the holder instead of failing at once
        conn.execute("INSERT INTO meta(key, value) VALUES ('waited', 'yes')")
    assert conn.execute("SELECT value FROM meta WHERE key = 'waited'").fetchone()[0] == "yes"


def test_the_file_is_owner_only(db_path: Path) -> None:
    conn = db.connect(db_path)
    migrate(conn)
    conn.execute("CREATE TABLE x(y)")
    for suffix in ("", "-wal"):
        p = Path(str(db_path) + suffix)
        if p.exists():
            assert stat.S_IMODE(os.stat(p).st_mode) == 0o600, p
