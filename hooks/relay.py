"""The hooks' fast path: hand the raw event to the warm server and print what it answers.

A hook script costs its interpreter start plus its imports, and on this kind of machine
``json`` + ``re`` + ``socket`` + ``pathlib`` alone take 20-30 ms. So before importing
anything else, ``prepare.py`` and ``capture.py`` call ``run_by_server``: it sends the stdin
bytes, the working directory and the hook's own ``REASONGRAPH_*`` settings over the server's
Unix socket, and the server runs the very same hook code in-process (``hook_service``) and sends
back the bytes to print. Only builtins are imported here (``os``, ``time``, ``atexit``,
``_socket``, ``_signal``; ``hashlib`` only on a first prompt that finds no server). When no
server answers in time, it returns the stdin bytes and the script runs itself, so the result
never depends on whether a server runs.

A session's first prompt races the server's start: the agent spawns ``reasongraph-mcp`` and
fires the prompt hook at about the same time, and the server binds its socket a second or
more later and loads its embedding model several seconds after that. So the prompt hook,
when its session has no state yet (``<db>.hooks/<sha256 of the session id>.json``) and the
socket is not there, waits for the socket; and every prompt hook tells the server how long it
may take (``until``, a wall-clock time): the server answers ``RGHOOK1 wait`` at once, waits
for its memory file and its model until then, and recalls with the embedder if it loaded
(FTS5 alone if not). Every wait ends ``reserve`` seconds before the hook's own time limit
(two thirds of it: 2 s of the default 3 s), which leaves the script the time to answer by
itself; a server already connected is still given ``REASONGRAPH_HOOK_SERVER_TIMEOUT`` to
answer. Later prompts, and every prompt where no server is starting, never wait for a socket.

The wire format (one request per connection, the client closes its side after sending):
``RGHOOK1 <repr of {"hook", "cwd", "env", "until"}>\\n<stdin bytes>``; the answer is
``RGHOOK1 ok\\n<stdout bytes>``, after ``RGHOOK1 wait\\n`` when the request said ``until``
(the server took it and answers by then; a relay that sent no ``until`` never gets it). The socket
is owner-only, and the server reads the header with ``ast.literal_eval``, never ``eval``.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # typing costs milliseconds to import; type checkers read this as True
if TYPE_CHECKING:
    from collections.abc import Mapping

MAGIC = b"RGHOOK1"
WAIT = MAGIC + b" wait\n"  # the server took the request and answers by its ``until``
MAX_STDIN = 8 * 1024 * 1024  # stdin a hook reads; larger events are cut (a 5 MB paste parses)
FORWARDED_ENV = ("CLAUDE_PROJECT_DIR",)  # besides every REASONGRAPH_* variable
STARTING_STEP = 0.05  # seconds between looks for a starting server's socket
ANSWER_TIME = 0.3  # seconds a server needs to answer once it stops waiting for its model


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


def request(hook: str, raw: bytes, until: float | None = None) -> bytes:
    """The bytes ``forward`` sends for ``raw`` stdin of ``hook``; ``until`` (``time.time()``)
    is when the server must have answered, if it waits for its model."""
    env = {k: v for k, v in os.environ.items()
           if k.startswith("REASONGRAPH_") or k in FORWARDED_ENV}
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    meta: dict[str, object] = {"hook": hook, "cwd": cwd, "env": env}
    if until is not None:
        meta["until"] = until
    return MAGIC + b" " + repr(meta).encode("utf-8", "backslashreplace") + b"\n" + raw


def first_prompt(raw: bytes) -> bool:
    """True when the event's session has no state file yet: its first prompt (the one that
    races the server's start). Read from the raw bytes, without ``json``; an id with escapes,
    or no id, counts as not first (no wait)."""
    key = raw.find(b'"session_id"')
    if key < 0:
        return False
    colon = raw.find(b":", key + 12)
    start = raw.find(b'"', colon + 1)
    end = raw.find(b'"', start + 1)
    if colon < 0 or start < 0 or end < 0 or raw[colon + 1:start].strip() or b"\\" in raw[
            start + 1:end]:
        return False
    session = raw[start + 1:end].decode("utf-8", "replace") or "unknown-session"
    import hashlib  # a few milliseconds, only on a prompt that found no server

    name = hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()[:24]
    return not os.path.exists(os.path.join(db_file() + ".hooks", name + ".json"))


def forward(
    hook: str, raw: bytes, timeout: float, give_up: float = 0.0, patient: bool = False
) -> bytes | None:
    """Have the warm server run ``hook`` on ``raw``; the bytes to print ('' = nothing), or
    None when no server answered within ``timeout`` seconds (no socket, a stale socket
    file, a dead, busy or older server). With ``give_up`` (a ``time.monotonic()`` moment),
    the server may wait for its model until then; with ``patient`` too, a missing or
    refusing socket is retried until shortly before it (a server starting)."""
    try:
        import _socket
    except ImportError:
        return None
    if not hasattr(_socket, "AF_UNIX"):
        return None
    db = db_file()
    path = socket_file(db)
    while True:
        # another user's socket (or folder) is never trusted with a prompt
        if owned_by_me(path) and (
            path.startswith(db) or owned_by_me(os.path.dirname(path), folder=True)
        ):
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(path)
                connected = time.monotonic()
                break
            except OSError as exc:
                sock.close()
                starting = isinstance(exc, (FileNotFoundError, ConnectionRefusedError))
        else:
            starting = not os.path.lexists(path)  # a foreign one is final; none may come
        # a server starting: look again while it could still answer before ``give_up``
        if not (patient and starting) or (
            time.monotonic() + STARTING_STEP + ANSWER_TIME > give_up
        ):
            return None
        time.sleep(STARTING_STEP)
    until = time.time() + (give_up - time.monotonic()) - ANSWER_TIME if give_up else None
    try:
        sock.sendall(request(hook, raw, until))
        sock.shutdown(_socket.SHUT_WR)
        chunks = []
        size = 0
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if give_up and size >= len(WAIT) and size - len(chunk) < len(WAIT) and (
                    b"".join(chunks).startswith(WAIT)):
                left = max(give_up, connected + timeout) - time.monotonic()
                if left <= 0:
                    return None
                sock.settimeout(left)  # the server answers by ``until``, a little before
    except OSError:  # includes the timeout
        return None
    finally:
        sock.close()
    reply = b"".join(chunks)
    if reply.startswith(WAIT):
        reply = reply[len(WAIT):]
    head = MAGIC + b" ok\n"
    return reply[len(head):] if reply.startswith(head) else None


def run_by_server(hook: str, limit_env: str, limit: float) -> bytes:
    """The start of a hook script: install its hard time limit, read stdin, and when the
    warm server runs the hook, print its answer and exit 0 here. Otherwise return the stdin
    bytes for the script to run itself. The prompt hook may wait for a starting server and
    its model (see the module's docstring), never later than ``reserve`` seconds before its
    own limit."""
    began = time.monotonic()
    limit = number(limit_env, limit)
    install_deadline(limit)
    raw = read_stdin()
    give_up = began + limit - reserve(limit) if hook == "prepare" and limit > 0 else 0.0
    out = forward(hook, raw, number("REASONGRAPH_HOOK_SERVER_TIMEOUT", 1.5), give_up,
                  patient=bool(give_up) and first_prompt(raw))
    if out is None:
        return raw
    try:
        if out:
            sys.stdout.buffer.write(out)
            sys.stdout.buffer.flush()
    except (OSError, ValueError):
        pass  # the agent closed our stdout: nothing to say
    raise SystemExit(0)


def reserve(limit: float) -> float:
    """Seconds of a hook's ``limit`` kept for the script to answer by itself after a wait
    for the server: two thirds of it (the server-less recall took up to 2 s on two busy
    cores, ``python -m evals.scenarios``; with half, some first prompts ran out of time)."""
    return limit * 2 / 3
