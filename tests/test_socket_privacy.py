"""The hook socket is private: when ``<db>.sock`` is too long for a socket address it falls
back to a folder in the shared temp directory, and that folder (and the socket and lock in
it) is used only when it belongs to this user alone. Otherwise another local user who made
the folder first would receive the raw prompt and have its reply injected as context.

Running as root, the tests hand the folder to another uid (``nobody``); otherwise they give
it the wrong mode, which the same check refuses.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from reasongraph_mcp import hook_service
from reasongraph_mcp.hooks import relay
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.ml.embed import HashEmbedder

NOBODY = 65534
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets only")


@pytest.fixture
def long_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A memory file whose ``.sock`` path is too long, with a temp directory of its own."""
    shared_tmp = tmp_path / "tmp"
    shared_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared_tmp))
    db = tmp_path / ("d" * 110) / "memory.db"
    db.parent.mkdir()
    monkeypatch.setenv("REASONGRAPH_DB", str(db))
    assert not relay.socket_file(str(db)).startswith(str(db))  # the fallback is in use
    yield db


def _spoil(folder: str) -> None:
    """Make ``folder`` someone else's (root: another owner; otherwise: a shared mode)."""
    if AS_ROOT:
        os.chown(folder, NOBODY, NOBODY)
    else:
        os.chmod(folder, 0o755)


def _listen(path: str) -> tuple[socket.socket, list[bytes]]:
    """A stand-in for whoever bound the socket: records what it receives, answers ok."""
    got: list[bytes] = []
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(4)
    srv.settimeout(5)

    def serve() -> None:
        try:
            conn, _ = srv.accept()
        except OSError:
            return
        with conn:
            got.append(conn.recv(65536))
            conn.sendall(relay.MAGIC + b" ok\n{\"hijacked\": true}")

    threading.Thread(target=serve, daemon=True).start()
    return srv, got


def test_a_hook_talks_to_a_socket_in_its_own_private_folder(long_db: Path) -> None:
    path = relay.socket_file(str(long_db))
    relay.private_folder(os.path.dirname(path))
    srv, got = _listen(path)
    with srv:
        assert relay.forward("prepare", b"{}", 2.0) == b'{"hijacked": true}'
    assert got and got[0].startswith(relay.MAGIC)  # the control: the check lets ours through


def test_a_hook_never_sends_the_prompt_to_a_folder_another_user_made(long_db: Path) -> None:
    path = relay.socket_file(str(long_db))
    os.makedirs(os.path.dirname(path), mode=0o700)
    srv, got = _listen(path)
    _spoil(os.path.dirname(path))
    with srv:
        assert relay.forward("prepare", b'{"prompt": "secret plan"}', 2.0) is None
    assert got == []


@pytest.mark.skipif(not AS_ROOT, reason="needs another uid to own the socket file")
def test_a_hook_never_sends_the_prompt_to_a_socket_another_user_owns(long_db: Path) -> None:
    path = relay.socket_file(str(long_db))
    relay.private_folder(os.path.dirname(path))
    srv, got = _listen(path)
    os.chown(path, NOBODY, NOBODY)
    with srv:
        assert relay.forward("prepare", b'{"prompt": "secret plan"}', 2.0) is None
    assert got == []


def test_the_server_does_not_serve_from_a_folder_another_user_made(long_db: Path) -> None:
    folder = os.path.dirname(relay.socket_file(str(long_db)))
    os.makedirs(folder, mode=0o700)
    _spoil(folder)
    with Memory(long_db, embedder=HashEmbedder(16)) as mem:
        service = hook_service.HookService(lambda: mem, long_db, retry=0.05).start()
        try:
            assert not service.owner.wait(1.0)
            assert not os.path.exists(relay.socket_file(str(long_db)))
        finally:
            service.stop()


def test_the_server_makes_the_fallback_folder_private_and_serves_there(long_db: Path) -> None:
    with Memory(long_db, embedder=HashEmbedder(16)) as mem:
        service = hook_service.HookService(lambda: mem, long_db, retry=0.05).start()
        try:
            assert service.owner.wait(10)
            folder = os.path.dirname(relay.socket_file(str(long_db)))
            assert os.stat(folder).st_mode & 0o777 == 0o700
            assert os.stat(relay.socket_file(str(long_db))).st_mode & 0o777 == 0o600
        finally:
            service.stop()


def test_private_folder_refuses_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(PermissionError, match="not a private folder"):
        relay.private_folder(str(link))
    assert relay.private_folder(str(real)) == str(real)
    assert sys.platform != "win32"
