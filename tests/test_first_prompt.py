"""A session's first prompt races the server's start (``hooks/relay.py``): the prompt hook
waits for a starting server's socket only on a first prompt, never past half its limit, and
a server that says ``RGHOOK1 wait`` may take until the ``until`` it was given."""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from pathlib import Path

import pytest
from reasongraph_mcp.hooks import relay

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets only")

EVENT = b'{"session_id": "s-1", "prompt": "why does the importer fail"}'


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "memory.db"
    monkeypatch.setenv("REASONGRAPH_DB", str(path))
    return path


def _serve_later(path: str, delay: float, reply: bytes, pause: float = 0.0) -> list[bytes]:
    """Bind ``path`` after ``delay`` seconds; answer one request with ``reply`` (after
    ``relay.WAIT`` and ``pause`` seconds when ``pause``)."""
    got: list[bytes] = []

    def run() -> None:
        time.sleep(delay)
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            srv.bind(path)
        finally:
            os.umask(old)
        srv.listen(1)
        srv.settimeout(5)
        try:
            conn, _ = srv.accept()
            with conn:
                data = b""
                while chunk := conn.recv(65536):
                    data += chunk
                got.append(data)
                if pause:
                    conn.sendall(relay.WAIT)
                    time.sleep(pause)
                conn.sendall(relay.MAGIC + b" ok\n" + reply)
        except OSError:
            pass
        finally:
            srv.close()
            os.unlink(path)

    threading.Thread(target=run, daemon=True).start()
    return got


def test_first_prompt_is_read_from_the_state_file(db: Path) -> None:
    assert relay.first_prompt(EVENT)
    name = hashlib.sha256(b"s-1").hexdigest()[:24]
    folder = Path(str(db) + ".hooks")
    folder.mkdir()
    (folder / f"{name}.json").write_text("{}")
    assert not relay.first_prompt(EVENT)
    assert not relay.first_prompt(b'{"prompt": "no session id"}')
    assert not relay.first_prompt(b'{"session_id": "a\\"b"}')


def test_a_first_prompt_waits_for_a_starting_server(db: Path) -> None:
    got = _serve_later(str(db) + ".sock", 0.4, b"context\n")
    began = time.monotonic()
    out = relay.forward("prepare", EVENT, 1.0, began + 1.5, patient=True)
    assert out == b"context\n"
    assert got and b"'until'" in got[0].split(b"\n", 1)[0]


def test_no_wait_without_a_first_prompt_or_past_the_reserve(db: Path) -> None:
    began = time.monotonic()
    assert relay.forward("prepare", EVENT, 1.0, began + 1.5, patient=False) is None
    assert time.monotonic() - began < 0.2  # later prompts never wait for a socket
    _serve_later(str(db) + ".sock", 1.0, b"late\n")
    began = time.monotonic()
    assert relay.forward("prepare", EVENT, 1.0, began + 0.5, patient=True) is None
    assert time.monotonic() - began < 0.6  # gave up before its give_up moment


def test_a_waiting_server_is_given_until_give_up_and_no_longer(db: Path) -> None:
    _serve_later(str(db) + ".sock", 0.0, b"warm\n", pause=1.2)  # past the usual timeout
    time.sleep(0.1)
    began = time.monotonic()
    assert relay.forward("prepare", EVENT, 0.5, began + 2.0, patient=True) == b"warm\n"
    _serve_later(str(db) + ".sock", 0.0, b"too late\n", pause=2.0)
    time.sleep(0.1)
    began = time.monotonic()
    assert relay.forward("prepare", EVENT, 0.5, began + 1.0, patient=True) is None
    assert time.monotonic() - began < 1.3


def test_a_foreign_socket_is_not_waited_for(db: Path) -> None:
    path = str(db) + ".sock"
    os.symlink("/nonexistent", path)  # not a socket of ours: final, no wait
    began = time.monotonic()
    assert relay.forward("prepare", EVENT, 1.0, began + 1.5, patient=True) is None
    assert time.monotonic() - began < 0.2
