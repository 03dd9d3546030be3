"""Input no user should send still gets a clear one-line answer, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from reasongraph_mcp.memory import Memory, NotFound

HUGE = 2**64  # beyond SQLite's 64-bit integers


@pytest.mark.parametrize("call", [
    lambda m: m.why(HUGE, project="p"),
    lambda m: m.why(f"#{HUGE}", project="p"),
    lambda m: m.trace(2**63),
    lambda m: m.chain(1, HUGE),
    lambda m: m.what_if(HUGE),
    lambda m: m.history(HUGE),
    lambda m: m.history(f"#{HUGE}"),
    lambda m: m.retract(HUGE, reason="wrong"),
    lambda m: m.revise(HUGE, "The API uses Valkey.", reason="moved"),
    lambda m: m.forget(fact=HUGE),
], ids=["why", "why-ref", "trace", "chain", "what_if", "history", "history-ref", "retract",
        "revise", "forget"])
def test_a_fact_id_beyond_sqlite_integers_is_simply_not_found(
    db_path: Path, call: Callable[[Memory], object]
) -> None:
    with Memory(db_path, embedder="none") as mem:
        mem.remember("The API uses Redis.", project="p")
        with pytest.raises(NotFound, match="not found"):
            call(mem)
        assert mem.status().facts == 1


def test_the_command_line_answers_a_huge_id_in_one_line(db_path: Path) -> None:
    with Memory(db_path, embedder="none") as mem:
        mem.remember("The API uses Redis.", project="p")
    env = {"REASONGRAPH_DB": str(db_path), "REASONGRAPH_EMBED_MODEL": "none", "PATH": ""}
    out = subprocess.run([sys.executable, "-m", "reasongraph_mcp", "why", str(HUGE)],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 1
    assert out.stderr.strip() == f"reasongraph-mcp why: fact {HUGE} not found"
