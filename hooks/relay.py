"""The hooks' fast path: hand the raw event to the warm server and print what it answers.

A hook script costs its interpreter start plus its imports, and on this kind of machine
``json`` + ``re`` + ``socket`` + ``pathlib`` alone take 20-30 ms. So before importing
anything else, ``prepare.py`` and ``capture.py`` call ``run_by_server``: it sends the stdin
bytes, the working directory and the hook's own ``REASONGRAPH_*`` settings over the server's
Unix socket, and the server runs the very same hook code in-process (``hook_service``) and sends
back the bytes to print. Only builtins are imported here (``os``, ``time``, ``atexit``, ``_socket``,
``_signal``).
When no server answers in time, it returns the stdin bytes and the script runs itself, so
the result never depends on whether a server runs.

The wire format (one request per connection, the client closes its side after sending):
``RGHOOK1 <repr of {"hook", "cwd", "env"}>\\n<stdin bytes>``; the answer is
``RGHOOK1 ok\\n<stdout bytes>``. The socket is owner-only, and the server reads the header
with ``ast.literal_eval``, never ``eval``.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing costs milliseconds to import; type checkers read this as True
if TYPE_CHECKING:
    from collections.abc import Mapping

MAGIC = b"RGHOOK1"
MAX_STDIN = 8 * 1024 * 1024  # stdin a hook reads; larger events are cut (a 5 MB paste parses)
FORWARDED_ENV = ("CLAUDE_PROJECT_DIR",)  # besides every REASONGRAPH_* variable
# Seconds a hook waits for the server's answer. A server that has just started answers once
# its model has loaded (it bounds that wait itself, see hook_service.MODEL_WAIT), so that
# the first prompt of a session gets the same recall as every later one.
SERVER_TIMEOUT = 4.0
# Seconds the prompt hook waits for a starting server's socket: about 0.3 s after the start on
# an idle machine, and more than a second on a loaded one (load 5: 4 of 40 probes fell back
# after 1 s).
START_WAIT = 2.0


def db_file() -> str:
    """The memory file: ``REASONGRAPH_DB``, else the platform's user data folder, the one
    ``memory.config.default_data_dir`` (platformdirs) gives in the usual case. Not merged with
    it: recent platformdirs (4.14) also reads ``XDG_DATA_HOME`` on macOS and ignores a
    relative one on Linux, older 4.x releases do neither, so the engine's folder depends on
    the installed platformdirs while this one, read by a stdlib-only hook, cannot; they
    differ only when ``XDG_DATA_HOME`` is set on macOS, or is relative or blank on Linux."""
    env = os.environ.get("REASONGRAPH_DB")
    if env:
        return os.path.expanduser(env)
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        base = os.path.join(home, "Library", "Application Support")
    elif sys.platform.startswith("win"):
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    else:
        base = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    return os.path.join(base, "reasongraph", "memory.db")


def socket_file(db: str) -> str:
    """Where the warm server listens: ``<db>.sock``, or, when that path is too long for a
    socket address (108 bytes on Linux, 104 on macOS), a file named by the hash of ``<db>``
    in an owner-only folder of the temp directory."""
    beside = db + ".sock"
    if len(os.fsencode(beside)) < 100:
        return beside
    import hashlib  # only for long paths: hashlib and tempfile cost milliseconds
    import tempfile

    digest = hashlib.sha256(os.fsencode(os.path.abspath(db))).hexdigest()[:20]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"reasongraph-{uid}", f"{digest}.sock")


def in_temp(db: str, socket: str) -> bool:
    """Is ``socket`` (``socket_file(db)``) the fallback in the shared temp directory, whose
    folder another user could have made first?"""
    return socket != db + ".sock"


def owned_by_me(path: str, folder: bool = False) -> bool:
    """True when ``path`` is ours and no one else's: owned by this user, not a symlink, and,
    for a ``folder``, a directory of mode exactly 0700. Where a socket, lock or spool sits in
    a shared place (the temp directory), another local user could have made it first; a hook
    or server that used it would hand that user the prompt, or take its reply as context."""
    if not hasattr(os, "getuid"):
        return True  # no Unix users (and no Unix sockets) on this platform
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if st.st_uid != os.getuid():
        return False
    kind = st.st_mode & 0o170000
    if folder:
        return kind == 0o040000 and st.st_mode & 0o777 == 0o700
    return kind != 0o120000  # a symlink could point anywhere


def private_folder(path: str) -> str:
    """Create ``path`` (and its parents) owner-only if missing, then verify it is ours with
    mode 0700; raise ``PermissionError`` when it is not (someone else made it first)."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except FileExistsError:  # a file or a dangling symlink in its place
        pass
    if not owned_by_me(path, folder=True):
        raise PermissionError(
            f"{path} is not a private folder of this user (owner, mode 0700, no symlink): "
            "remove it, or set REASONGRAPH_DB to a shorter path"
        )
    return path


def number(name: str, default: float, env: Mapping[str, str] | None = None) -> float:
    """A number setting (seconds, milliseconds, characters) from ``env`` (default: this
    process's environment), else ``default``."""
    try:
        return float((os.environ if env is None else env).get(name, "") or default)
    except ValueError:
        return default


def install_deadline(limit: float) -> None:
    """Exit 0 silently once ``limit`` seconds have passed, whatever the hook is doing: a hook
    that runs late is worse than a hook that says nothing. Never extends a running one."""
    import _signal

    if limit <= 0 or not hasattr(_signal, "setitimer"):
        return
    if _signal.getitimer(_signal.ITIMER_REAL)[0] > 0:
        return

    def expire(_signum: int, _frame: object) -> None:
        os._exit(0)

    def disarm() -> None:  # before shutdown restores SIGALRM's default action (a kill)
        _signal.setitimer(_signal.ITIMER_REAL, 0)

    import atexit

    atexit.register(disarm)
    _signal.signal(_signal.SIGALRM, expire)
    _signal.setitimer(_signal.ITIMER_REAL, limit)


def read_stdin() -> bytes:
    try:
        return sys.stdin.buffer.read(MAX_STDIN)
    except (OSError, ValueError, AttributeError):
        return b""


def request(hook: str, raw: bytes) -> bytes:
    """The bytes ``forward`` sends for ``raw`` stdin of ``hook``."""
    env = {k: v for k, v in os.environ.items()
           if k.startswith("REASONGRAPH_") or k in FORWARDED_ENV}
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    meta = repr({"hook": hook, "cwd": cwd, "env": env})
    return MAGIC + b" " + meta.encode("utf-8", "backslashreplace") + b"\n" + raw


RECENT_SERVER = 7 * 86400  # seconds: a server started this recently is expected again


def server_starting(path: str, wait: float) -> bool:
    """Wait up to ``wait`` seconds for the socket ``path`` to appear, when a server is to be
    expected: one took its lock (``<socket>.lock``, whose time each server start refreshes)
    within ``RECENT_SERVER``. An agent starts its MCP server and fires the first prompt hook
    at about the same moment, and a server binds its socket a fraction of a second after it
    starts; without this wait the first prompt of every session would miss it. A wait that
    ends without a socket pushes the lock's time back, so that where no server comes any
    more (the MCP server turned off) only one prompt waits."""
    import time

    lock = path + ".lock"
    try:
        st = os.lstat(lock)
    except OSError:
        return False
    if not owned_by_me(lock) or time.time() - st.st_mtime > RECENT_SERVER:
        return False
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        time.sleep(0.02)
        if os.path.exists(path):
            return True
    try:
        os.utime(lock, (st.st_atime, st.st_mtime - RECENT_SERVER))
    except OSError:
        pass
    return False


def connect(sock: object, path: str, retry: float) -> None:
    """Connect ``sock`` to ``path``; a refusal is tried again for ``retry`` seconds (a server
    binds its socket a moment before it listens on it)."""
    import time

    deadline = time.monotonic() + retry
    while True:
        try:
            sock.connect(path)  # type: ignore[attr-defined]
            return
        except ConnectionRefusedError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def forward(hook: str, raw: bytes, timeout: float) -> bytes | None:
    """Have the warm server run ``hook`` on ``raw``; the bytes to print ('' = nothing), or
    None when no server answered within ``timeout`` seconds (no socket, a stale socket
    file, a dead, busy or older server)."""
    try:
        import _socket
    except ImportError:
        return None
    if not hasattr(_socket, "AF_UNIX"):
        return None
    db = db_file()
    path = socket_file(db)
    appeared = False  # the socket was bound while this hook waited: it may not listen yet
    if not os.path.exists(path):
        if not server_starting(path, number("REASONGRAPH_HOOK_START_WAIT", START_WAIT)):
            return None
        appeared = True
    if not owned_by_me(path) or (
        in_temp(db, path) and not owned_by_me(os.path.dirname(path), folder=True)
    ):
        return None  # another user's socket (or folder) is never trusted with a prompt
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        connect(sock, path, retry=0.5 if appeared else 0.0)
        sock.sendall(request(hook, raw))
        sock.shutdown(_socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:  # includes the timeout
        return None
    finally:
        sock.close()
    reply = b"".join(chunks)
    head = MAGIC + b" ok\n"
    return reply[len(head):] if reply.startswith(head) else None


def run_by_server(hook: str, limit_env: str, limit: float) -> bytes:
    """The start of a hook script: install its hard time limit, read stdin, and when the
    warm server runs the hook, print its answer and exit 0 here. Otherwise return the stdin
    bytes for the script to run itself."""
    install_deadline(number(limit_env, limit))
    raw = read_stdin()
    out = forward(hook, raw, number("REASONGRAPH_HOOK_SERVER_TIMEOUT", SERVER_TIMEOUT))
    if out is None:
        return raw
    try:
        if out:
            sys.stdout.buffer.write(out)
            sys.stdout.buffer.flush()
    except (OSError, ValueError):
        pass  # the agent closed our stdout: nothing to say
    raise SystemExit(0)
