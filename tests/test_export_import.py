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


# -- hostile exports: every record is checked before anything is written ----------------------


def _first(recs: list[dict], table: str) -> dict:
    return next(r for r in recs if r.get("table") == table)


def _set(table: str, col: str, value: object):  # type: ignore[no-untyped-def]
    def mutate(recs: list[dict]) -> None:
        _first(recs, table)["row"][col] = value
    return mutate


def _vector(key: str, value: object):  # type: ignore[no-untyped-def]
    def mutate(recs: list[dict]) -> None:
        next(r for r in recs if "vector" in r)[key] = value
    return mutate


def _header(key: str, value: object):  # type: ignore[no-untyped-def]
    def mutate(recs: list[dict]) -> None:
        recs[0][key] = value
    return mutate


def _duplicate(table: str):  # type: ignore[no-untyped-def]
    def mutate(recs: list[dict]) -> None:
        row = _first(recs, table)
        recs.insert(recs.index(row) + 1, json.loads(json.dumps(row)))
    return mutate


def _nested(recs: list[dict]) -> None:
    recs.append("NESTED")  # type: ignore[arg-type]


HOSTILE = [
    (_set("facts", "text", 12345), "facts.text must be text"),
    (_set("facts", "status", "pwned"), "facts.status is 'pwned'; it must be one of"),
    (_set("facts", "kind", "ransom"), "facts.kind is 'ransom'"),
    (_set("facts", "superseded_by", 999), "facts.superseded_by = 999 names no facts row"),
    (_set("facts", "id", True), "facts.id must be a whole number"),
    (_set("facts", "id", 2**64), "facts.id is out of range"),
    (_set("facts", "id", 0), "facts.id is out of range"),
    (_set("facts", "stated_at", "yesterday-ish"), "facts.stated_at is not a date-time"),
    (_set("facts", "text", None), "facts.text may not be null"),
    (_set("facts", "text", {"$b64": "!!notbase64"}), "holds a JSON object"),
    (_set("facts", "text", [1, 2]), "holds a JSON list"),
    (_set("statements", "fact_id", 4242), "statements.fact_id = 4242 names no facts row"),
    (_set("events", "action", "explode"), "events.action is 'explode'"),
    (_set("entities", "name", None), "entities.name may not be null"),
    (_duplicate("facts"), "a second facts row with id="),
    (_duplicate("entities"), "a second entities row with id="),
    (_vector("vector", 777), "a vector for fact 777"),
    (_vector("f32", "AAAA"), "has 3 bytes, not 256"),
    (_vector("f32", "@@@@"), "not base64"),
    (_vector("vector", "1"), "is not a fact id"),
    (_header("version", "1"), "must be a whole number from 1, not '1'"),
    (_header("version", 0), "must be a whole number from 1"),
    (_header("embed_dim", "64"), "embed_dim must be a whole number"),
    (_nested, "nested too deeply"),
]


@pytest.mark.parametrize(("mutate", "says"), HOSTILE, ids=[s for _, s in HOSTILE])
def test_a_hostile_export_is_refused_with_its_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mutate, says: str  # type: ignore[no-untyped-def]
) -> None:
    source = Memory(tmp_path / "source.db", embedder=HashEmbedder(64))
    build(source, monkeypatch)
    dump = tmp_path / "memory.jsonl"
    source.export(dump)
    source.close()
    recs = rows(dump)
    mutate(recs)
    lines = [("[" * 100_000 + "]" * 100_000) if r == "NESTED" else json.dumps(r) for r in recs]
    dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = tmp_path / "target.db"
    with Memory(target, embedder=HashEmbedder(64)) as copy:
        with pytest.raises(InvalidInput, match=says.replace("(", r"\(").replace("[", r"\[")) as err:
            copy.import_(dump)
        assert "\n" not in str(err.value)
        assert str(err.value).startswith(("line ", str(dump)))
        conn = copy.store.conn
        for table in ("facts", "events", "entities", "statements", "passages"):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
        assert copy.store.meta("embed_model") in (None, "hash-64")


def test_the_cli_refuses_a_hostile_export_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from reasongraph_mcp.cli import main

    source = Memory(tmp_path / "source.db", embedder=HashEmbedder(64))
    build(source, monkeypatch)
    dump = tmp_path / "memory.jsonl"
    source.export(dump)
    source.close()
    recs = rows(dump)
    _set("facts", "status", "pwned")(recs)
    dump.write_text("\n".join(json.dumps(r) for r in recs) + "\n", encoding="utf-8")
    monkeypatch.setenv("REASONGRAPH_EMBED_MODEL", "none")
    assert main(["import", str(dump), "--db", str(tmp_path / "t.db")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("reasongraph-mcp import: line ") and "\n" not in err
    assert "facts.status is 'pwned'" in err and err.endswith("nothing was imported")
