"""Connections to the one SQLite file: apsw, sqlite-vec, pragmas, transactions, vector packing.

Every connection gets WAL, a 10 s busy timeout, ``synchronous=NORMAL``, foreign keys and
``secure_delete`` (so that erased text is zeroed, not left in free pages). The file and its
WAL/SHM side files are created owner-only (0600). apsw and sqlite-vec errors are translated
into ``StoreError`` subclasses here and nowhere else.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterator, Sequence
from pathlib import Path

import apsw

from ..errors import ExtensionUnavailable, StoreError

BUSY_TIMEOUT_MS = 10_000
MAX_ROWID = 2**63 - 1  # SQLite's integers are 64-bit: no row has a larger id
PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA secure_delete=ON",
    "PRAGMA temp_store=MEMORY",
)


def connect(path: str | os.PathLike[str], *, readonly: bool = False) -> apsw.Connection:
    """Open ``path`` with the house pragmas and sqlite-vec loaded; create it owner-only."""
    target = Path(path).expanduser()
    if not readonly:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for {target}: {exc}") from None
        if not target.exists():
            # Create the file ourselves so it is born 0600, never briefly world-readable.
            try:
                fd = os.open(target, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
            except OSError as exc:
                raise StoreError(f"cannot create {target}: {exc}") from None
    flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE
    old_umask = os.umask(0o077)  # WAL and SHM side files inherit owner-only permissions
    try:
        conn = apsw.Connection(str(target), flags=flags | apsw.SQLITE_OPEN_URI)
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        for pragma in PRAGMAS:
            if readonly and "journal_mode" in pragma:
                continue
            conn.execute(pragma).fetchall()
    except apsw.Error as exc:
        raise StoreError(f"cannot open {target}: {exc}") from None
    finally:
        os.umask(old_umask)
    load_vec(conn)
    if not readonly:
        with contextlib.suppress(OSError):
            os.chmod(target, 0o600)
    return conn


def load_vec(conn: apsw.Connection) -> None:
    """Load sqlite-vec into ``conn`` or raise ``ExtensionUnavailable`` with the fix."""
    try:
        import sqlite_vec

        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
    except (ImportError, apsw.Error) as exc:
        raise ExtensionUnavailable(
            f"sqlite-vec could not be loaded ({exc}); reinstall with `pip install sqlite-vec`"
        ) from None


@contextlib.contextmanager
def transaction(conn: apsw.Connection) -> Iterator[apsw.Connection]:
    """Run the block in one ``BEGIN IMMEDIATE`` write transaction (all or nothing)."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except apsw.BusyError:
        raise StoreError(
            "the memory file stayed locked by another writer for 10 s; try again"
        ) from None
    try:
        yield conn
    except BaseException:
        with contextlib.suppress(apsw.Error):
            conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def integrity_check(conn: apsw.Connection) -> list[str]:
    """SQLite's own check of the file: ``["ok"]``, or the problems it found."""
    return [r[0] for r in conn.execute("PRAGMA integrity_check")]


def pack_vector(values: Sequence[float]) -> bytes:
    """Pack floats as little-endian float32, the blob format sqlite-vec reads."""
    return struct.pack(f"<{len(values)}f", *values)


def unpack_vector(blob: bytes) -> list[float]:
    """Inverse of ``pack_vector``."""
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))
