"""The README tells the truth: its two set-up commands are what CI runs, and every setting
the code reads is documented in it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _setup_commands() -> list[str]:
    section = README.split("## Set-up (two commands)", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```\n(.*?)```", section, re.S)]


def test_the_set_up_is_two_commands_and_ci_runs_both() -> None:
    commands = _setup_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands)
    ci = (ROOT / ".ci" / "run").read_text()
    for command in commands:
        assert command in ci, f"CI does not run the README's command: {command}"


def test_the_main_job_needs_nothing_beside_the_clone() -> None:
    assert "../shared" not in _setup_commands()[0]


def test_every_setting_the_code_reads_is_documented() -> None:
    read: set[str] = set()
    for path in ROOT.rglob("*"):
        skipped = {"tests", "evals", ".git", "build"} & set(path.parts)
        if path.suffix not in (".py", ".js") or skipped:
            continue
        read |= set(re.findall(r"\bREASONGRAPH_[A-Z_]*[A-Z]\b", path.read_text()))
    documented = set(re.findall(r"`(REASONGRAPH_[A-Z_]*[A-Z])", README))
    assert read, "no settings found: the scan is broken"
    assert sorted(read - documented) == []
