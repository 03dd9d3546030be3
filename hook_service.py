"""The hooks' side of the server: the Unix socket beside the memory file and the inbox drain.

The hook scripts (``hooks/``) are standard-library only and never open the engine; they ask
this service for a budgeted recall (``context``) and tell it when an exchange was captured
(``nudge``). See ``HookService`` for how several servers share one file.
"""

import ast
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .memory import Memory

log = logging.getLogger("reasongraph.hooks")

HEADER_MAX = 256 * 1024  # bytes of a relayed hook's header (its cwd and settings)
# Seconds a prompt hook's recall waits, from its arrival, for an embedding model that is still
# loading: a server started with the session answers its first prompt like a warm one (the
# model loads in about 0.5 s, the engine's import takes as long again). Less than the hook's
# own wait (hooks/relay.py SERVER_TIMEOUT), so that the answer always arrives; past it the
# recall runs on FTS5 alone.
MODEL_WAIT = 3.0


def _read_all(conn: Any, data: bytes) -> bytes:
    """The rest of a relayed hook request: up to its header plus the largest stdin a hook
    reads, until the hook closes its side."""
    from .hooks.relay import MAX_STDIN

    chunks = [data]
    size = len(data)
    while size < HEADER_MAX + MAX_STDIN:
        chunk = conn.recv(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


class HookService:
    """What the hook scripts talk to: a Unix socket beside the memory file that answers
    ``context`` requests (the prompt hook's recall) and ``nudge`` messages (the Stop hook
    captured an exchange), and a worker thread that drains the inbox through the engine.

    Several servers (one per agent session) share one file; exactly one serves the socket
    at a time. The owner holds an exclusive ``flock`` on ``<socket>.lock``: the kernel drops
    it when the owner dies however it dies, and a waiting server (polling every
    ``retry`` seconds) takes the lock, removes the dead owner's stale socket file and binds
    a new one. Only the owner drains; claims in the inbox keep every item exactly once
    even so (see ``memory/inbox.py``). Everything runs on daemon threads: tool calls never
    wait for a drain beyond the one item being written.
    """

    def __init__(
        self,
        memory: Callable[[], "Memory"],
        db_path: str | os.PathLike[str],
        *,
        retry: float = 0.5,
        poll: float = 30.0,
    ) -> None:
        from .hooks import common as hook_paths

        self._memory = memory
        self.db_path = Path(db_path)
        self.socket_path = hook_paths.socket_path(self.db_path)
        self.spool = hook_paths.spool_dir(self.db_path)
        self._lock_path = Path(str(self.socket_path) + ".lock")
        self._retry = retry
        self._poll = poll
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._passes = threading.Condition()
        self._passes_done = 0
        self._running = False
        self._lock_fd: int | None = None
        self._drainer: threading.Thread | None = None
        self._sock: Any = None
        self.owner = threading.Event()  # set while this process serves the socket

    # -- lifecycle

    def start(self) -> "HookService":
        threading.Thread(target=self._own, name="reasongraph-hooks", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        sock, self._sock = self._sock, None
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass
            if self.owner.is_set():
                try:
                    self.socket_path.unlink()
                except OSError:
                    pass
        drainer = self._drainer
        if (drainer is not None and drainer.ident is not None
                and drainer is not threading.current_thread()):
            drainer.join(30)  # finish the item being written before the file is closed
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock: another server may take over
            self._lock_fd = None
        self.owner.clear()

    def _try_lock(self) -> bool:
        import fcntl

        from .hooks import relay

        folder = self.socket_path.parent
        if relay.in_temp(str(self.db_path), str(self.socket_path)):
            relay.private_folder(str(folder))  # the shared temp directory: ours alone
        else:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # the memory file's folder
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        if not relay.owned_by_me(str(self._lock_path)):
            os.close(fd)
            raise PermissionError(f"{self._lock_path} belongs to another user")
        try:  # its time says "a server runs here": the hooks wait for a starting one
            os.utime(fd if os.utime in os.supports_fd else self._lock_path)
        except OSError:
            pass
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def _own(self) -> None:
        import socket as socketlib

        if not hasattr(socketlib, "AF_UNIX"):
            return
        while not self._stop.is_set():
            try:
                if self._try_lock():
                    break
            except OSError as exc:
                log.warning("hook socket lock unavailable: %s", exc)
            if self._stop.wait(self._retry):
                return
        try:
            try:
                self.socket_path.unlink()  # a dead owner's stale socket file
            except FileNotFoundError:
                pass
            sock = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
            old = os.umask(0o177)  # the socket file is born owner-only
            try:
                sock.bind(str(self.socket_path))
            finally:
                os.umask(old)
            os.chmod(self.socket_path, 0o600)
            sock.listen(64)
        except OSError as exc:
            log.warning("cannot serve the hook socket %s: %s", self.socket_path, exc)
            return
        self._sock = sock
        self.owner.set()
        self._drainer = threading.Thread(
            target=self._drain_loop, name="reasongraph-drain", daemon=True
        )
        self._drainer.start()
        while not self._stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                break
            threading.Thread(target=self._serve_one, args=(conn,), daemon=True).start()

    # -- requests

    def _serve_one(self, conn: Any) -> None:
        from .hooks import relay

        with conn:
            try:
                conn.settimeout(2.0)
                data = b""
                while b"\n" not in data and len(data) < 1_000_000:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                if data.startswith(relay.MAGIC + b" "):
                    conn.sendall(self.run_hook(_read_all(conn, data)))
                    return
                request = json.loads(data.decode("utf-8", "replace") or "{}")
                reply = self.handle(request if isinstance(request, dict) else {})
                conn.sendall(json.dumps(reply, ensure_ascii=False).encode())
            except (BrokenPipeError, ConnectionResetError):
                pass  # a nudge does not wait for the answer
            except Exception as exc:  # one bad request never takes the listener down
                log.warning("hook request failed: %s", exc)
                try:
                    conn.sendall(b'{"error": "failed"}')
                except OSError:
                    pass

    def run_hook(self, data: bytes) -> bytes:
        """Run a hook script's own code here for the hook process that sent ``data`` (see
        ``hooks/relay.py``): the same code, the hook's environment and working directory,
        the engine in place of the socket. Any failure answers ``failed``, and the hook then
        runs itself."""
        from .hooks import capture, common, prepare, relay

        arrived = time.monotonic()
        try:
            head, _, raw = data.partition(b"\n")
            if len(head) > HEADER_MAX:
                raise ValueError("hook header too long")
            meta = ast.literal_eval(head[len(relay.MAGIC) + 1:].decode("utf-8", "replace"))
            env = meta["env"]
            cwd = meta["cwd"]
            if not (isinstance(env, dict) and isinstance(cwd, str)
                    and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
                raise ValueError("malformed hook header")
            event = common.parse_event(raw)
            if meta["hook"] == "prepare":
                def ask(request: dict[str, Any]) -> dict[str, Any]:
                    return self.handle(request, arrived=arrived)

                line = prepare.run(event, self.db_path, ask=ask, env=env, cwd=cwd or None)
                out = (line + "\n").encode("utf-8", "replace") if line else b""
            elif meta["hook"] == "capture":
                capture.run(event, self.db_path, write=self._memory().capture, notify=self.nudge,
                            env=env, cwd=cwd or None)
                out = b""
            else:
                raise ValueError(f"unknown hook {meta['hook']!r}")
        except Exception as exc:
            log.warning("hook run failed: %s", exc)
            return relay.MAGIC + b" failed\n"
        return relay.MAGIC + b" ok\n" + out

    def handle(self, request: dict[str, Any], arrived: float | None = None) -> dict[str, Any]:
        """Answer one hook request: ``context``, ``nudge`` or ``ping``. A ``context`` that
        ``arrived`` (monotonic time) while the model loads waits for it up to ``MODEL_WAIT``."""
        op = request.get("op")
        if op == "nudge":
            self._wake.set()
            return {"ok": True}
        if op == "ping":
            return {"ok": True, "pid": os.getpid(), "model_ready": self._memory().model_ready}
        if op == "context":
            exclude = [i for i in request.get("exclude") or () if isinstance(i, int)]
            mem = self._memory()
            if not mem.model_ready:
                start = time.monotonic() if arrived is None else arrived
                mem.wait_for_model(start + MODEL_WAIT - time.monotonic())
            ctx = mem.context_for(
                str(request.get("prompt") or ""),
                project=request.get("project") or None,
                session=request.get("session") or None,
                budget=int(request.get("budget") or 2000),
                exclude=exclude,
                now=request.get("now") or None,
            )
            return {"context": ctx.text, "ids": list(ctx.ids)}
        return {"error": f"unknown op {op!r}"}

    # -- the drain worker

    def _drain_loop(self) -> None:
        self._wake.set()  # drain what was captured while no server ran
        while not self._stop.is_set():
            self._wake.wait(self._poll)
            if self._stop.is_set():
                return
            self._wake.clear()
            with self._passes:
                self._running = True
            try:
                report = self._memory().drain(spool=self.spool, stop=self._stop.is_set)
                if report.remaining and not report.ingested and not report.failed:
                    self._stop.wait(1.0)  # claimed elsewhere or locked: try again later
                    self._wake.set()
            except Exception as exc:
                log.warning("inbox drain failed: %s", exc)
                self._stop.wait(1.0)
            with self._passes:
                self._running = False
                self._passes_done += 1
                self._passes.notify_all()

    def nudge(self) -> None:
        self._wake.set()

    def wait_idle(self, timeout: float = 120.0) -> bool:
        """Wait until a drain pass that started after this call has finished."""
        with self._passes:
            # A pass already running may have looked at the inbox before the latest
            # capture: then wait for the one after it.
            target = self._passes_done + (2 if self._running else 1)
            self._wake.set()
            return self._passes.wait_for(lambda: self._passes_done >= target, timeout)

