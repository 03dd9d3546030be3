"""``evals.scenarios --mode reuse``: a scenario's memory is built once and reused while the
write path's code is unchanged; the block read from it is the one a fresh build gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reasongraph_mcp.evals import scenarios

SCENARIO = {
    "id": "tiny-decision", "kind": "decision_recall",
    "sessions": [{"session_id": "s1", "date": "2026-01-05T10:00:00Z", "cwd": "/home/dev/tiny",
                  "turns": [{"user": "which queue library should the mailer use?",
                             "assistant": "We picked Oban for the mailer jobs: it runs on the "
                                          "Postgres we already have, so no Redis to operate."}]}],
    "probe": {"date": "2026-02-01T09:00:00Z", "cwd": "/home/dev/tiny",
              "prompt": "Remind me what runs our background email jobs and why."},
    "must_recall": ["Oban"], "must_not_recall_as_current": [],
}


def test_a_built_memory_is_reused_and_gives_the_same_block(
    tmp_path: Path, minilm, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    cache = tmp_path / "built"
    first = scenarios.replay_reused(SCENARIO, minilm, cache, "code-a")
    built = sorted(cache.glob("*.db"))
    assert len(built) == 1 and "Oban" in first
    stamp = built[0].stat().st_mtime_ns
    assert scenarios.replay_reused(SCENARIO, minilm, cache, "code-a") == first
    assert built[0].stat().st_mtime_ns == stamp  # read, not rebuilt
    # Another write path (another fingerprint) builds its own memory.
    assert scenarios.replay_reused(SCENARIO, minilm, cache, "code-b") == first
    assert len(list(cache.glob("*.db"))) == 2


def test_the_fingerprint_follows_the_write_path_not_the_prompt_block(tmp_path: Path) -> None:
    for rel in ("memory/write/ingest.py", "memory/read/gloss.py", "memory/prompt/context.py",
                "evals/scenarios.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    before = scenarios.write_fingerprint(tmp_path)
    for rel in ("memory/prompt/context.py", "evals/scenarios.py"):
        (tmp_path / rel).write_text("x = 2\n")
    assert scenarios.write_fingerprint(tmp_path) == before  # the block's code, the evals'
    (tmp_path / "memory/read/gloss.py").write_text("x = 2\n")  # the write path reads it
    after = scenarios.write_fingerprint(tmp_path)
    assert after != before
    (tmp_path / "memory/write/ingest.py").write_text("x = 2\n")
    assert scenarios.write_fingerprint(tmp_path) != after


def test_reuse_mode_needs_its_folder(tmp_path: Path) -> None:
    data = tmp_path / "one.jsonl"
    data.write_text(json.dumps(SCENARIO) + "\n")
    with pytest.raises(SystemExit):
        scenarios.main(["--mode", "reuse", "--data", str(data)])
