"""Broken and locked-down files: a newer schema, a read-only file or folder, corrupt pages.
Each gives reads where they are safe and one clear line (never a traceback) otherwise."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import apsw
import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.errors import DamagedStore, ReadOnlyStore
from reasongraph_mcp.memory.ml.embed import HashEmbedder

FACT = "The ledger uses PostgreSQL because joins matter."
# Root ignores file modes; drop the capabilities that let it, so the modes bite as for a user.
NO_OVERRIDE = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner",
               "--inh-caps", "-dac_override,-dac_read_search,-fowner"]


def cli(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    prefix = NO_OVERRIDE if os.geteuid() == 0 else []
    env = {k: v for k, v in os.environ.items() if not k.startswith("REASONGRAPH_")}
    env.update(REASONGRAPH_DB=str(db), REASONGRAPH_EMBED_MODEL="none")
    return subprocess.run([*prefix, sys.executable, "-m", "reasongraph_mcp", *args], env=env,
                          capture_output=True, text=True, timeout=120)


def one_line(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode != 0 and "Traceback" not in out.stderr, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


needs_modes = pytest.mark.skipif(
    os.geteuid() == 0 and shutil.which("setpriv") is None,
    reason="running as root without setpriv: file modes cannot be made to bite",
)


@pytest.fixture
def filled(db_path: Path) -> Path:
    with Memory(db_path, embedder="none") as mem:
        mem.remember(FACT, project="/p", session="s1")
    return db_path


def test_a_newer_schema_is_read_but_never_written(filled: Path) -> None:
    conn = apsw.Connection(str(filled))
    conn.execute("INSERT INTO _migrations VALUES ('m099_future', '2030-01-01T00:00:00Z')")
    conn.close()
    with Memory(filled, embedder=HashEmbedder(64)) as mem:
        assert [h.text for h in mem.recall("ledger", project="/p")] == [FACT]
        with pytest.raises(ReadOnlyStore, match="schema version 3 .*m099_future.*schema 3"):
            mem.remember("Another fact.", project="/p")
        with pytest.raises(ReadOnlyStore):
            mem.forget(session="s1")
        assert mem.status().facts == 1
    names = [r[0] for r in apsw.Connection(str(filled)).execute("SELECT name FROM _migrations")]
    assert names == ["m001_initial", "m002_causal", "m099_future"]
    line = one_line(cli(filled, "remember", "Another fact."))
    assert "upgrade reasongraph-mcp" in line and "schema 3" in line
    doctor = subprocess.run(
        [sys.executable, "-m", "reasongraph_mcp", "doctor"], capture_output=True, text=True,
        env={**os.environ, "REASONGRAPH_DB": str(filled)}, timeout=120,
    ).stdout
    assert "newer than this build" in doctor and "next server start migrates" not in doctor


@needs_modes
def test_a_read_only_file_reads_is_not_chmodded_and_refuses_writes(
    filled: Path, tmp_path: Path
) -> None:
    os.chmod(filled, 0o444)
    before = sorted(p.name for p in filled.parent.iterdir())
    out = cli(filled, "recall", "ledger", "--project", "/p")
    assert out.returncode == 0 and FACT in out.stdout, out.stderr
    assert cli(filled, "stats").returncode == 0
    assert cli(filled, "why", "ledger", "--project", "/p").returncode == 0
    assert cli(filled, "export", str(tmp_path / "x.jsonl")).returncode == 0
    assert "read-only (mode 444)" in one_line(cli(filled, "remember", "Another."))
    assert oct(filled.stat().st_mode & 0o777) == "0o444"
    assert sorted(p.name for p in filled.parent.iterdir()) == before + ["x.jsonl"]
    doctor = cli(filled, "doctor").stdout
    assert "read-only" in doctor and "No problems found" not in doctor
    os.chmod(filled, 0o600)  # writable again: nothing left behind gets in the way
    assert cli(filled, "remember", "Another fact.").returncode == 0


@needs_modes
def test_a_read_only_folder_still_reads(filled: Path, tmp_path: Path) -> None:
    folder = filled.parent
    os.chmod(folder, 0o555)
    try:
        out = cli(filled, "recall", "ledger", "--project", "/p")
        assert out.returncode == 0 and FACT in out.stdout, out.stderr
        assert cli(filled, "export", str(tmp_path.parent / f"{tmp_path.name}.jsonl")
                   ).returncode == 0
        assert "folder" in one_line(cli(filled, "remember", "Another."))
    finally:
        os.chmod(folder, 0o755)


def _damage(db: Path) -> None:
    conn = apsw.Connection(str(db))
    pages = [r[0] for r in conn.execute(
        "SELECT pageno FROM dbstat WHERE name IN ('facts', 'statements', 'facts_fts_data')")]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    conn.close()
    data = bytearray(db.read_bytes())
    for page in pages:
        data[(page - 1) * size:page * size] = b"\x0d" + b"\xff" * (size - 1)
    db.write_bytes(bytes(data))


def test_corrupt_pages_give_one_line_not_a_traceback(filled: Path, tmp_path: Path) -> None:
    _damage(filled)
    for args in (["recall", "ledger"], ["remember", "Another."], ["export",
                 str(tmp_path / "x.jsonl")], ["why", "ledger"]):
        line = one_line(cli(filled, *args))
        assert "is damaged" in line and "reasongraph-mcp doctor" in line, line
    with pytest.raises(DamagedStore), Memory(filled, embedder="none") as mem:
        mem.recall("ledger")
