"""Connections to the one SQLite file: apsw, sqlite-vec, pragmas, transactions, vector packing.

Every connection gets WAL, a 10 s busy wait (``BusyWait``: it tells bulk writers that someone
waits, see ``others_waiting``), ``synchronous=NORMAL``, foreign keys and
``secure_delete`` (so that erased text is zeroed, not left in free pages). The file and its
WAL/SHM side files are created owner-only (0600). apsw and sqlite-vec errors are translated
into ``StoreError`` subclasses here and nowhere else.
"""

from __future__ import annotations

import contextlib
import os
import struct
import time
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import quote

import apsw

from ..errors import DamagedStore, ExtensionUnavailable, ReadOnlyStore, StoreError

BUSY_TIMEOUT_MS = 10_000
BUSY_POLL = 0.01  # seconds between a waiting connection's tries for the write lock
WAITING_FRESH = 0.3  # seconds a waiter's mark counts as "someone waits now"


def waiting_file(db: str | os.PathLike[str]) -> str:
    """``<db>.waiting``: its time is refreshed by every connection that waits for the write
    lock, so that a bulk writer (in another process) can see it and step aside."""
    return os.fspath(db) + ".waiting"


class BusyWait:
    """The busy handler of every connection: try again every ``BUSY_POLL`` seconds for up to
    ``BUSY_TIMEOUT_MS``, and mark ``<db>.waiting`` while waiting. SQLite's own handler
    backs off to 100 ms sleeps, so a waiter mostly slept through the short gaps a bulk writer
    leaves between its steps and waited seconds behind a write made of 0.1 s steps."""

    def __init__(self, db: str | os.PathLike[str]) -> None:
        self._mark = waiting_file(db)
        self._started = 0.0

    def __call__(self, tries: int) -> bool:
        now = time.monotonic()
        if tries == 0:
            self._started = now
        elif now - self._started > BUSY_TIMEOUT_MS / 1000:
            return False
        try:
            os.utime(self._mark)
            _OWN_MARKS[self._mark] = time.time()
        except FileNotFoundError:
            with contextlib.suppress(OSError):
                os.close(os.open(self._mark, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600))
        except OSError:
            pass  # a read-only folder: nobody can be told, the wait still works
        time.sleep(BUSY_POLL)
        return True


_OWN_MARKS: dict[str, float] = {}  # when this process last marked each file


def others_waiting(conn: apsw.Connection) -> bool:
    """Whether another process has waited for this file's write lock just now (its mark on
    ``<db>.waiting`` is fresh and not this process's own): a bulk writer then pauses
    between two steps."""
    try:
        mark = waiting_file(conn.filename)
        marked = os.stat(mark).st_mtime
    except (OSError, apsw.Error):
        return False
    return time.time() - marked < WAITING_FRESH and marked > _OWN_MARKS.get(mark, 0.0) + 0.001
MAX_ROWID = 2**63 - 1  # SQLite's integers are 64-bit: no row has a larger id
PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA secure_delete=ON",
    "PRAGMA temp_store=MEMORY",
)


def connect(path: str | os.PathLike[str], *, readonly: bool = False) -> apsw.Connection:
    """Open ``path`` with the house pragmas and sqlite-vec loaded; create it owner-only.

    A file this process may not write (the file or its folder is read-only) is opened
    read-only and never chmod-ed: reads work, writes raise ``ReadOnlyStore`` (see
    ``refuse_writes``). Without a ``-wal`` to read, such a file is opened ``immutable`` so
    that no ``-wal``/``-shm`` is created beside it (SQLite cannot create them in a read-only
    folder, and would give them the file's 0444 mode in a writable one).
    """
    target = Path(path).expanduser()
    if not readonly and not target.exists():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the folder for {target}: {exc}") from None
        # Create the file ourselves so it is born 0600, never briefly world-readable.
        try:
            fd = os.open(target, os.O_CREAT | os.O_WRONLY, 0o600)
            os.close(fd)
        except OSError as exc:
            raise StoreError(f"cannot create {target}: {exc}") from None
    refusal = read_only_reason(target)
    readonly = readonly or refusal is not None
    uri = "file:" + quote(str(target.resolve() if target.exists() else target))
    if refusal is not None and not _has_wal(target):
        uri += "?immutable=1"
    flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE
    old_umask = os.umask(0o077)  # WAL and SHM side files inherit owner-only permissions
    try:
        conn = apsw.Connection(uri, flags=flags | apsw.SQLITE_OPEN_URI)
        conn.set_busy_handler(BusyWait(conn.filename or target))
        for pragma in PRAGMAS:
            if readonly and "journal_mode" in pragma:
                continue
            conn.execute(pragma).fetchall()
    except apsw.Error as exc:
        raise translate(exc, target, f"cannot open {target}") from None
    finally:
        os.umask(old_umask)
    load_vec(conn)
    if refusal is not None:
        refuse_writes(conn, refusal)
    elif not readonly:
        with contextlib.suppress(OSError):
            os.chmod(target, 0o600)
    return conn


def read_only_reason(target: Path) -> str | None:
    """Why this process may only read ``target`` (None when it may write it): the file is
    not writable, or its folder is not and the WAL side files are not there to write."""
    if not target.exists():
        return None
    if not os.access(target, os.W_OK):
        mode = oct(target.stat().st_mode & 0o777)[2:]
        return (f"the memory file {target} is read-only (mode {mode}): make it writable "
                f"(chmod u+w) to change it; reads still work")
    sides = [Path(f"{target}{s}") for s in ("-wal", "-shm")]
    if not os.access(target.parent, os.W_OK | os.X_OK) and not all(
        p.exists() and os.access(p, os.W_OK) for p in sides
    ):
        return (f"the folder {target.parent} of the memory file is read-only, so SQLite "
                f"cannot write its journal: make the folder writable to change the memory; "
                f"reads still work")
    return None


def _has_wal(target: Path) -> bool:
    wal = Path(f"{target}-wal")
    return (wal.exists() and wal.stat().st_size > 0) or Path(f"{target}-shm").exists()


_REFUSED: weakref.WeakKeyDictionary[apsw.Connection, str] = weakref.WeakKeyDictionary()


def refuse_writes(conn: apsw.Connection, reason: str) -> None:
    """From now on every write on ``conn`` raises ``ReadOnlyStore(reason)``: through
    ``transaction``, and through SQLite itself (``query_only``) for any other statement."""
    _REFUSED[conn] = reason
    conn.execute("PRAGMA query_only=ON").fetchall()


def write_refusal(conn: apsw.Connection) -> str | None:
    """Why ``conn`` may not write, or None."""
    return _REFUSED.get(conn)


def translate(exc: apsw.Error, path: object, doing: str = "") -> StoreError:
    """The engine's error for an apsw error on the memory file ``path``: one line, saying
    what to do."""
    what = f"{doing}: " if doing else ""
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError):
        return DamagedStore(
            f"the memory file {path} is damaged ({exc}): restore it from an export "
            f"or run `reasongraph-mcp doctor`"
        )
    if isinstance(exc, apsw.ReadOnlyError):
        return ReadOnlyStore(
            f"the memory file {path} cannot be written ({exc}): check the permissions "
            f"of the file, its folder and its -wal/-shm files; reads still work"
        )
    if isinstance(exc, apsw.BusyError | apsw.LockedError):
        return StoreError(f"the memory file {path} stayed locked by another writer "
                          f"for 10 s; try again")
    if isinstance(exc, apsw.FullError):
        return StoreError(f"the disk holding {path} is full: free space and retry")
    if isinstance(exc, apsw.CantOpenError | apsw.PermissionsError | apsw.AuthError):
        return StoreError(f"cannot open the memory file {path} ({exc}): check that "
                          f"it and its folder exist and are readable")
    if isinstance(exc, apsw.IOError):
        return StoreError(f"{what}reading or writing {path} failed ({exc}): check the disk")
    return StoreError(f"{what}the memory file {path} failed: {exc}")


@contextlib.contextmanager
def translated(conn: apsw.Connection) -> Iterator[None]:
    """Raise the engine's ``StoreError`` for any apsw error in the block."""
    try:
        yield
    except apsw.Error as exc:
        raise translate(exc, conn.filename) from None


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
    refusal = write_refusal(conn)
    if refusal is not None:
        raise ReadOnlyStore(refusal)
    try:
        conn.execute("BEGIN IMMEDIATE")
    except apsw.BusyError:
        raise StoreError(
            "the memory file stayed locked by another writer for 10 s; try again"
        ) from None
    except apsw.Error as exc:
        raise translate(exc, conn.filename) from None
    try:
        yield conn
    except BaseException as exc:
        with contextlib.suppress(apsw.Error):
            conn.execute("ROLLBACK")
        if isinstance(exc, apsw.Error):
            raise translate(exc, conn.filename) from None
        raise
    else:
        try:
            conn.execute("COMMIT")
        except apsw.Error as exc:
            with contextlib.suppress(apsw.Error):
                conn.execute("ROLLBACK")
            raise translate(exc, conn.filename) from None


def integrity_check(conn: apsw.Connection) -> list[str]:
    """SQLite's own check of the file: ``["ok"]``, or the problems it found."""
    return [r[0] for r in conn.execute("PRAGMA integrity_check")]


def pack_vector(values: Sequence[float]) -> bytes:
    """Pack floats as little-endian float32, the blob format sqlite-vec reads."""
    return struct.pack(f"<{len(values)}f", *values)


def unpack_vector(blob: bytes) -> list[float]:
    """Inverse of ``pack_vector``."""
    return list(struct.unpack(f"<{len(blob) // 4}f", blob))
