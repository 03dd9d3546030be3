"""Export and import: one JSON Lines file that reproduces the memory (ids, recall order,
history) in an empty file, reusing vectors of the same model and re-embedding otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reasongraph_mcp.memory import InvalidInput, Memory
from reasongraph_mcp.memory.ml.embed import HashEmbedder

QUERIES = [
    ("which database does the ledger use?", {}),
    ("ledger database", {"include_history": True}),
    ("ledger database", {"as_of": "2026-03-03"}),
    ("deploys", {"valid_at": "2026-03-06T12:00:00Z"}),
    ("Redis session keys", {"all_projects": True}),
    ("nightly builds", {"include_history": True}),
]


def build(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """A small memory with every kind of row: revisions, a retraction and revival, a
    detected update, several sessions and projects, entities and passages."""
    clock = lambda moment: monkeypatch.setenv("REASONGRAPH_NOW", moment)  # noqa: E731
    clock("2026-03-01T10:00:00Z")
    [ledger] = memory.remember("The ledger service uses PostgreSQL 16.", project="p", session="s1")
    memory.remember(
        "We chose Redis 7 for session keys because reads must be fast. Redis evicts keys "
        "when memory is full.", project="p", session="s1", role="assistant",
    )
    [builds] = memory.remember("Nightly builds run on the Mac mini.", project="p", session="s1")
    memory.remember("The API rate limit is 60 requests per minute.", project="p", session="s1")
    clock("2026-03-05T10:00:00Z")
    new = memory.revise(ledger, "The ledger service uses SQLite.", reason="edge", session="s2")
    memory.retract(builds, reason="Mac mini returned", session="s2")
    memory.remember("The API rate limit is 100 requests per minute.", project="p", session="s2")
    clock("2026-03-11T10:00:00Z")
    memory.remember("Last Friday deploys were frozen.", project="p", session="s3")
    memory.remember("Nightly builds run on the Mac mini.", project="p", session="s3")
    memory.remember("Redis session keys expire after 30 minutes.", project="/other", session="o1")
    return {"ledger": ledger, "new": new, "builds": builds}


def snapshot(memory: Memory) -> dict[str, object]:
    out: dict[str, object] = {}
    for query, options in QUERIES:
        hits = memory.recall(query, project="p", **options)  # type: ignore[arg-type]
        out[f"{query} {options}"] = [
            (h.id, h.text, h.score, h.status, h.superseded_by, h.path, h.sessions, h.valid_from)
            for h in hits
        ]
    for fid in range(1, memory.status().facts + 1):
        out[f"history {fid}"] = memory.history(fid)
    out["history redis"] = memory.history("Redis")
    st = memory.status()
    out["counts"] = (st.facts, st.current_facts, st.entities, st.sessions, st.projects)
    return out


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_export_then_import_reproduces_recall_and_history(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(memory, monkeypatch)
    dump = tmp_path / "memory.jsonl"
    assert memory.export(dump) == memory.status().facts
    assert dump.stat().st_mode & 0o077 == 0  # owner-only: it holds the whole memory
    header, *body = rows(dump)
    assert header["format"] == "reasongraph-export" and header["embed_model"] == "hash-64"
    tables = {r["table"] for r in body if "table" in r}
    assert {"facts", "events", "entities", "fact_entities", "statements", "passages"} <= tables
    assert sum("vector" in r for r in body) == memory.status().facts

    with Memory(tmp_path / "copy.db", embedder=HashEmbedder(64)) as copy:
        assert copy.import_(dump) == memory.status().facts
        assert snapshot(copy) == snapshot(memory)
        again = tmp_path / "again.jsonl"
        copy.export(again)
    strip = lambda rs: [r for r in rs if "format" not in r]  # noqa: E731
    assert strip(rows(again)) == strip(rows(dump))  # byte-for-byte the same rows


def test_import_reuses_vectors_of_the_same_model(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(memory, monkeypatch)
    dump = tmp_path / "memory.jsonl"
    memory.export(dump)

    class Counting(HashEmbedder):
        calls = 0

        def embed_batch(self, texts):  # type: ignore[no-untyped-def]
            Counting.calls += len(texts)
            return super().embed_batch(texts)

    with Memory(tmp_path / "copy.db", embedder=Counting(64)) as copy:
        copy.import_(dump)
        assert Counting.calls == 0
        vec = "SELECT rowid, embedding FROM fact_vecs ORDER BY rowid"
        assert list(copy.store.conn.execute(vec)) == list(memory.store.conn.execute(vec))


def test_import_from_another_model_re_embeds(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(memory, monkeypatch)
    dump = tmp_path / "memory.jsonl"
    memory.export(dump)
    with Memory(tmp_path / "copy.db", embedder=HashEmbedder(32)) as copy:
        n = copy.import_(dump)
        assert copy.store.meta("embed_model") == "hash-32" and copy.store.vec_dim == 32
        assert copy.store.conn.execute("SELECT count(*) FROM fact_vecs").fetchone()[0] == n
        assert copy.recall("ledger database", project="p")[0].text == \
            "The ledger service uses SQLite."


def test_import_without_a_model_keeps_the_exported_vectors(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(memory, monkeypatch)
    dump = tmp_path / "memory.jsonl"
    memory.export(dump)
    with Memory(tmp_path / "copy.db", embedder="none") as copy:
        n = copy.import_(dump)
        assert copy.store.meta("embed_model") == "hash-64"
        assert copy.store.conn.execute("SELECT count(*) FROM fact_vecs").fetchone()[0] == n


def test_import_refuses_a_memory_that_is_not_empty(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(memory, monkeypatch)
    dump = tmp_path / "memory.jsonl"
    memory.export(dump)
    with pytest.raises(InvalidInput, match="empty memory"):
        memory.import_(dump)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("", "not a reasongraph export"),
        ('{"hello": 1}\n', "not a reasongraph export"),
        ("not json\n", "not valid JSON"),
        ('{"format": "reasongraph-export", "version": 99}\n', "newer version"),
        ('{"format": "reasongraph-export", "version": 1}\n{"table": "nope", "row": {}}\n',
         "not part of this memory"),
        ('{"format": "reasongraph-export", "version": 1}\n'
         '{"table": "facts", "row": {"id": 1, "bogus": 2}}\n', "no column 'bogus'"),
    ],
)
def test_a_bad_export_is_refused_and_nothing_is_imported(
    memory: Memory, tmp_path: Path, content: str, says: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidInput, match=says):
        memory.import_(bad)
    assert memory.status().facts == 0


def test_a_failed_import_rolls_back_whole(memory: Memory, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    source = Memory(tmp_path / "source.db", embedder=HashEmbedder(64))
    build(source, monkeypatch)
    dump = tmp_path / "memory.jsonl"
    source.export(dump)
    source.close()
    with dump.open("a", encoding="utf-8") as f:
        f.write("{broken\n")
    with pytest.raises(InvalidInput, match="not valid JSON"):
        memory.import_(dump)
    assert memory.status().facts == 0
    assert memory.store.conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0
