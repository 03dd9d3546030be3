"""The engine's contract: remember and recall with citations, scope, duplicates, secrets,
bad input, concurrency and the FTS5-only fallback. Real file, real sqlite-vec."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from reasongraph_mcp.memory import InvalidInput, Memory
from reasongraph_mcp.memory.ml.embed import HashEmbedder
from reasongraph_mcp.memory.storage import connection as db


def test_recall_returns_what_was_remembered_with_citations(memory: Memory) -> None:
    ids = memory.remember(
        "We chose PostgreSQL 16 for the ledger service.",
        project="/p/ledger", session="s1", role="user", when="2026-01-05T10:00:00Z", source="D1:1",
    )
    assert len(ids) == 1
    hits = memory.recall("which database does the ledger use?", project="/p/ledger")
    top = hits[0]
    assert top.id == ids[0]
    assert top.text == "We chose PostgreSQL 16 for the ledger service."
    assert (top.project, top.session, top.source, top.role) == ("/p/ledger", "s1", "D1:1", "user")
    assert top.valid_from == "2026-01-05T10:00:00Z"
    assert top.recorded_at and top.path.startswith("seed")
    assert top.status == "current" and top.superseded_by is None


def test_when_is_an_iso_date_and_benchmark_formats_are_refused(memory: Memory) -> None:
    memory.remember("Caroline went to the support group.", when="2023-05-08T13:56:00Z")
    hit = memory.recall("support group")[0]
    assert hit.valid_from is not None and hit.valid_from.startswith("2023-05-0")
    # LoCoMo's "1:56 pm on 8 May, 2023" is converted by evals/locomo.py, not by the engine.
    with pytest.raises(InvalidInput, match="ISO date"):
        memory.remember("Caroline painted a sunrise.", when="1:56 pm on 8 May, 2023")


def test_each_sentence_becomes_its_own_fact(memory: Memory) -> None:
    ids = memory.remember("Redis caches sessions. Kafka carries the order events.", project="p")
    assert len(set(ids)) == 2


def test_other_projects_are_never_returned_unless_asked(memory: Memory) -> None:
    memory.remember("The deploy target is fly.io.", project="/p/a", session="a1")
    memory.remember("The deploy target is Kubernetes.", project="/p/b", session="b1")
    a = memory.recall("deploy target", project="/p/a")
    assert [h.project for h in a] == ["/p/a"]
    both = memory.recall("deploy target", project="/p/a", all_projects=True)
    assert {h.project for h in both} == {"/p/a", "/p/b"}


def test_a_restated_fact_gains_provenance_instead_of_a_copy(memory: Memory) -> None:
    first = memory.remember("Tests run with pytest -x.", project="p", session="s1")
    again = memory.remember("tests run with pytest -x", project="p", session="s2")
    assert first == again
    hits = memory.recall("pytest", project="p")
    assert len(hits) == 1 and hits[0].sessions == ("s1", "s2")
    assert memory.status().facts == 1


def test_opposites_and_different_numbers_are_not_merged(real_memory: Memory) -> None:
    a = real_memory.remember("The feature flag checkout_v2 is enabled.", project="p")
    b = real_memory.remember("The feature flag checkout_v2 is disabled.", project="p")
    c = real_memory.remember("The request timeout is 30 seconds.", project="p")
    d = real_memory.remember("The request timeout is 60 seconds.", project="p")
    assert len({*a, *b, *c, *d}) == 4


def test_near_duplicates_collapse(real_memory: Memory) -> None:
    a = real_memory.remember("We deploy the API with GitHub Actions.", project="p", session="s1")
    b = real_memory.remember("We deploy the API with GitHub Actions!", project="p", session="s2")
    assert a == b


SECRETS = [
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefGHIJ",
    "ghp_1234567890abcdefghijABCDEFGHIJ123456",
    "AKIAIOSFODNN7EXAMPLE",
    "hunter2-Sup3rSecret!",
]


def test_secrets_never_reach_the_file(db_path: Path) -> None:
    mem = Memory(db_path, embedder=HashEmbedder(64))
    mem.remember(
        f"Use ANTHROPIC_API_KEY={SECRETS[0]} for the agent. The token is {SECRETS[1]}. "
        f"AWS key {SECRETS[2]} was rotated. Connect with postgres://app:{SECRETS[3]}@db.internal:5432/app",
        project="p",
    )
    assert mem.recall("AWS key rotated", project="p")
    mem.close()
    blob = b"".join(
        Path(str(db_path) + s).read_bytes()
        for s in ("", "-wal")
        if Path(str(db_path) + s).exists()
    )
    for secret in SECRETS:
        assert secret.encode() not in blob, secret


@pytest.mark.parametrize(
    "bad",
    ["", "   \n\t ", 12345, None, ["fine", 3], {"text": "x"}],
)
def test_unusable_input_is_refused_with_a_clear_error(memory: Memory, bad: object) -> None:
    with pytest.raises(InvalidInput) as err:
        memory.remember(bad)  # type: ignore[arg-type]
    assert str(err.value) and "\n" not in str(err.value)
    assert memory.status().facts == 0


def test_oversized_input_is_refused_whole(memory: Memory) -> None:
    huge = ("The build is slow because the cache misses. " * 120_000)[: 5 * 1024 * 1024]
    with pytest.raises(InvalidInput, match="limit"):
        memory.remember(huge)
    assert memory.status().facts == 0


def test_nul_bytes_and_invalid_utf8_give_a_bounded_result(memory: Memory) -> None:
    ids = memory.remember("The parser\x00 chokes on NUL bytes.", project="p")
    ids += memory.remember(b"Invalid \xff\xfe UTF-8 in the log file.", project="p")  # type: ignore[arg-type]
    ids += memory.remember("Lone surrogate \udcff in a path name.", project="p")
    assert len(ids) == 3
    texts = [h.text for h in memory.recall("NUL bytes log file path", project="p", k=5)]
    assert all("\x00" not in t for t in texts)
    assert any("\ufffd" in t for t in texts)


def _writer(path: str, name: str, n: int) -> None:
    mem = Memory(path, embedder=HashEmbedder(64))
    for i in range(n):
        mem.remember(
            f"Writer {name} records event number {i} in the audit log.", project="p", session=name
        )
    mem.close()


def test_two_processes_writing_at_once_lose_nothing(db_path: Path) -> None:
    Memory(db_path, embedder=HashEmbedder(64)).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(db_path), name, 40)) for name in ("a", "b")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    mem = Memory(db_path, embedder=HashEmbedder(64))
    assert mem.status().facts == 80
    mem.close()


def test_without_a_model_the_engine_runs_on_fts_and_says_why(db_path: Path, tmp_path: Path) -> None:
    mem = Memory(db_path, embedder=str(tmp_path / "no-such-model"))
    ids = mem.remember("The nightly job failed with ECONNREFUSED.", project="p")
    hits = mem.recall("nightly job failure", project="p")
    assert hits and hits[0].id == ids[0]
    status = mem.status()
    assert not status.embedder_ready
    assert "could not load" in status.notes[0] and "FTS5" in status.notes[0]
    assert "does not exist" in status.notes[0]  # a mistyped folder is not tried as a hub name
    mem.close()


def test_vectors_are_back_filled_when_a_model_arrives(db_path: Path) -> None:
    mem = Memory(db_path, embedder="none")
    mem.remember("Sentry alerts go to the #ops channel.", project="p")
    mem.close()
    mem = Memory(db_path, embedder=HashEmbedder(64))
    hits = mem.recall("where do alerts go", project="p")
    assert hits and "vector" in hits[0].path
    mem.close()


def test_word_counts_survive_a_rolled_back_transaction(memory: Memory) -> None:
    # The vocabulary table is made on first use; made inside a write that rolls back, it is
    # gone again, and later writes and recalls must not fail on it.
    with pytest.raises(RuntimeError), db.transaction(memory.store.conn):
        memory.store.term_docs(["alpha"])
        raise RuntimeError("roll back")
    memory.remember("The alpha service listens on port 8080.", project="p")
    assert memory.store.term_docs(["alpha", "port", "zzz"]) == {"alpha": 1, "port": 1, "zzz": 0}
    assert memory.recall("alpha port", project="p")[0].text.startswith("The alpha service")


def test_entity_degrees_count_up_to_a_cap_and_agree_below_it(memory: Memory) -> None:
    memory.remember([f"Deploy {i} of the ledger went through ZebraGate." for i in range(6)]
                    + ["OwlBridge restarted once."], project="p")
    ents = memory.store.entities_of(memory.store.fact_ids_in(project="p"))
    ids = sorted({eid for lst in ents.values() for eid, _, _ in lst})
    names = {eid: name for lst in ents.values() for eid, name, _ in lst}
    full = memory.store.entity_degrees(ids, cap=1000)
    capped = memory.store.entity_degrees(ids, cap=3)
    by_name = {names[e]: n for e, n in full.items()}
    assert by_name["zebragate"] == 6 and by_name["owlbridge"] == 1
    assert capped == {e: min(n, 3) for e, n in full.items()}


STEP_SPECIALS = {
    7: "The API rate limit is 60 requests per minute.",
    8: "The API rate limit is 100 requests per minute.",  # the first of the next step
    15: "The disk on db-2 filled up.",
    16: "This stopped every write to the ledger.",  # a back-reference across a step boundary
    20: "The Friday deploy doubled the database connection pool size.",
    40: "The larger connection pool exhausted the Postgres connection limit.",
    60: "Because Postgres ran out of connections, the checkout API returned 500 errors.",
}
SERVICES = ["billing", "search", "auth", "mailer", "reports", "uploads", "geo", "chat"]


def _many_facts() -> list[str]:
    out = []
    for i in range(90):
        svc = SERVICES[i % len(SERVICES)]
        out.append(STEP_SPECIALS.get(i, f"The {svc} worker number {i} reads queue q{i * 7}."))
    return out


def _snapshot(mem: Memory) -> tuple[list[tuple], list[tuple]]:
    text = {f.id: f.text for f in mem.store.facts(mem.store.fact_ids_in(project="p")).values()}
    rows = mem.store.facts(list(text)).values()
    facts = sorted((r.text, r.status, text.get(r.superseded_by)) for r in rows)
    links = sorted(
        (text[c], text[e], via)
        for c, e, via in mem.store.conn.execute(
            "SELECT cause_fact, effect_fact, via FROM causal_links"
        )
    )
    return facts, links


def test_a_long_write_in_steps_stores_what_consecutive_calls_store(
    tmp_path: Path, minilm, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    # One call of 90 facts is written in steps of 8 (each next step embedded meanwhile);
    # each step sees the facts, updates and links of the steps before it, exactly as if
    # each step had been its own remember() call.
    from reasongraph_mcp.memory.write import ingest

    texts = _many_facts()
    monkeypatch.setattr(ingest, "WRITE_CHUNK", 8)
    with Memory(tmp_path / "steps.db", embedder=minilm) as mem:
        mem.remember(texts, project="p", session="s1")
        stepped = _snapshot(mem)
    monkeypatch.setattr(ingest, "WRITE_CHUNK", 10_000)
    with Memory(tmp_path / "calls.db", embedder=minilm) as mem:
        for i in range(0, len(texts), 8):
            mem.remember(texts[i : i + 8], project="p", session="s1")
        calls = _snapshot(mem)
    assert stepped == calls
    facts, links = stepped
    assert (STEP_SPECIALS[7], "superseded", STEP_SPECIALS[8]) in facts
    assert (STEP_SPECIALS[15], STEP_SPECIALS[16], "backref") in links
    chained = {(c, e) for c, e, _ in links}
    assert (STEP_SPECIALS[20], STEP_SPECIALS[40]) in chained
    assert (STEP_SPECIALS[40], STEP_SPECIALS[60]) in chained


def test_batched_vectors_come_back_in_the_callers_order(minilm) -> None:  # type: ignore[no-untyped-def]
    """The model runs on length-sorted groups; each text still gets its own vector."""
    texts = [
        "The deploy failed because the disk on the build host was completely full again.",
        "Use uv.",
        "Ada prefers tabs over spaces in every Python file of the repository.",
        "ok",
    ] * 9
    together = minilm.embed_batch(texts)
    for text, vec in zip(texts[:4], together[:4], strict=True):
        alone = minilm.embed_batch([text])[0]
        assert sum(a * b for a, b in zip(vec, alone, strict=True)) > 0.9999
    assert together[4:8] == together[:4]


def test_query_expansion_breaks_ties_by_the_best_seed_not_by_hash_order(memory: Memory) -> None:
    # Words the seeds share equally often are taken in the best seed's order: the block an
    # agent gets must not hang on the process's hash seed (it once did, through a set).
    from reasongraph_mcp.memory.read import recall as recall_mod

    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima"
    best = memory.remember(f"The first note names {words}.", project="p")[0]
    other = memory.remember(f"Another lists {' '.join(reversed(words.split()))} too.",
                            project="p")[0]
    expanded = recall_mod._expand(memory.store, "omega", [best, other], n_terms=8)
    assert expanded == '"omega" OR ' + " OR ".join(f'"{w}"' for w in words.split()[:8])
