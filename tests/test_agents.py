"""The real agents, end to end: ``python -m evals.agents`` for Claude Code, Codex CLI and
OpenCode at their pinned npm versions, each against the loopback mock model, every column
asserted (see ``evals/agents.py``). Marked ``agents``: ``pytest -m agents`` runs only these,
``pytest -m "not agents"`` skips them. They need node and npm (the agents are installed into
``~/.cache/reasongraph-agents`` on first use, about a minute, then reused) and the
``reasongraph-mcp`` console script next to this Python (``pip install -e .`` gives it).
Codex's hook trust is interactive; the suite passes ``--dangerously-bypass-hook-trust``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("context in agent request", "tools offered", "recall round trip",
           "exchange captured", "uninstall byte-identical")


@pytest.mark.agents
@pytest.mark.parametrize("agent", ["claude-code", "codex", "opencode"])
def test_the_real_agent_gets_context_tools_recall_capture_and_a_clean_uninstall(
    agent: str, tmp_path: Path
) -> None:
    if not (shutil.which("npm") and shutil.which("node")):
        pytest.skip("node and npm are needed to install and run the real agents")
    if not Path(sys.executable).with_name("reasongraph-mcp").exists():
        pytest.skip("no reasongraph-mcp console script next to this Python (pip install -e .)")
    out = tmp_path / "result.json"
    done = subprocess.run([sys.executable, "-m", "evals.agents", "--only", agent,
                           "--json", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=1200)
    assert out.exists(), done.stderr[-2000:]
    result = json.loads(out.read_text())[0]
    failed = [c for c in COLUMNS if result.get(c) is not True]
    assert not failed, f"{agent}: {failed}\n{json.dumps(result, indent=1)}\n{done.stdout}"
