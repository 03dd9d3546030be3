"""Causal memory: links made on the write path, and the why / trace / chain / what-if walks.

Joins across differently worded facts are tested with the packaged MiniLM (a fake embedder
proves plumbing, never the product); graph-shape tests (what-if, cycles, 10k links) write
facts with the hashing embedder and links through the store's own write method.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from reasongraph_mcp import views
from reasongraph_mcp.memory import Memory, NotFound
from reasongraph_mcp.memory.causal import links as causal_links
from reasongraph_mcp.memory.causal import walks as causal
from reasongraph_mcp.memory.causal.cues import CausalSpan
from reasongraph_mcp.memory.ml.embed import HashEmbedder
from reasongraph_mcp.memory.storage import connection as db
from reasongraph_mcp.memory.storage.store import Store


def links(mem: Memory) -> set[tuple[int, int, str]]:
    return {(c, e, via) for c, e, via in mem.store.conn.execute(
        "SELECT cause_fact, effect_fact, via FROM causal_links")}


def add_links(store: Store, pairs: list[tuple[int, int]], score: float = 0.9) -> None:
    with db.transaction(store.conn):
        store.add_causal_links(
            (c, e, "join", score, None, "test", "2025-01-01T00:00:00Z") for c, e in pairs
        )


def plain_facts(mem: Memory, n: int, project: str = "p", start: int = 0) -> list[int]:
    """n facts inserted through the store (no extraction, no update detection), so that a
    test's links are exactly the ones it adds."""
    store = mem.store
    with db.transaction(store.conn):
        return [
            store.insert_fact({
                "text": f"Synthetic event {project} {i}.", "hash": f"{project}-{i}",
                "kind": "event", "project": project, "session": f"s{i % 3}",
                "stated_at": "2025-01-01T00:00:00Z", "recorded_at": "2025-01-01T00:00:00Z",
                "valid_from": "2025-01-01T00:00:00Z",
            })
            for i in range(start, start + n)
        ]


# -- links across facts and sessions (real model) ------------------------------------------


def test_a_three_fact_chain_written_in_three_sessions_is_walked_back_to_its_root(
    real_memory: Memory,
) -> None:
    p = "/repo/shop"
    root = real_memory.remember(
        "The Friday deploy doubled the database connection pool size.", project=p, session="s1"
    )[0]
    real_memory.remember("Checkout tests were flaky last month.", project=p, session="s1")
    mid = real_memory.remember(
        "The larger connection pool exhausted the Postgres connection limit.",
        project=p, session="s2",
    )[0]
    end = real_memory.remember(
        "Because Postgres ran out of connections, the checkout API returned 500 errors.",
        project=p, session="s3",
    )[0]
    causes = real_memory.why("Why did the checkout API return 500 errors?", project=p)
    assert causes and causes[0].id == root
    chain = causes[0].chain
    assert [s.id for s in chain] == [root, mid, end]
    assert [s.session for s in chain] == ["s1", "s2", "s3"]
    assert all(s.text and s.date for s in chain)
    assert chain[-1].cue == "Because"
    assert real_memory.chain(root, end) is not None
    assert [s.id for s in real_memory.chain(root, end) or []] == [root, mid, end]
    assert real_memory.chain(end, root) is None


def test_links_form_whichever_side_is_written_first(real_memory: Memory) -> None:
    p = "/repo/api"
    effect = real_memory.remember(
        "The slow disk made the nightly backup job time out.", project=p, session="later"
    )[0]
    cause = real_memory.remember(
        "The backup volume was moved to a slow spinning disk.", project=p, session="earlier"
    )[0]
    assert (cause, effect, "assert") in links(real_memory)
    causes = real_memory.why(effect, project=p)
    assert causes[0].id == cause


def test_a_plain_fact_joins_the_cause_span_it_describes(real_memory: Memory) -> None:
    p = "/repo/srv"
    temp = real_memory.remember(
        "The server's CPU temperature exceeded 85°C.", project=p, session="a")[0]
    throttle = real_memory.remember(
        "When the CPU temperature rises, the system throttles performance.",
        project=p, session="b")[0]
    latency = real_memory.remember(
        "Throttling performance causes application latency to increase.",
        project=p, session="c")[0]
    assert {(temp, throttle), (throttle, latency)} <= {(c, e) for c, e, _ in links(real_memory)}
    assert real_memory.status().links >= 2


def test_a_sibling_fact_about_the_same_subject_is_not_a_cause(real_memory: Memory) -> None:
    p = "/repo/fw"
    real_memory.remember("The firmware update also added a new settings menu.", project=p)
    update = real_memory.remember(
        "The firmware update increased the device's power usage.", project=p)[0]
    drain = real_memory.remember(
        "The higher power usage drained the battery faster.", project=p)[0]
    causes = real_memory.why("Why does the battery drain faster?", project=p)
    assert causes[0].id == update
    assert [s.id for s in causes[0].chain] == [update, drain]


# -- back-references -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, second",
    [
        ("The cache node ran out of memory.", "This broke checkout for every user."),
        ("The migration locked the orders table.", "Because of that we rolled back the release."),
        ("Der Server ist gestern ausgefallen.", "Dadurch war der Shop zwei Stunden offline."),
        ("De database was overbelast.", "Daardoor liep de website vast."),
        ("Sunucu diski doldu.", "Bu nedenle uygulama çöktü."),
    ],
)
def test_a_sentence_opening_with_a_back_reference_links_to_the_previous_one(
    memory: Memory, first: str, second: str
) -> None:
    a, b = memory.remember(f"{first} {second}", project="p", session="s1")
    assert (a, b, "backref") in links(memory)
    assert memory.why(b)[0].id == a


def test_a_back_reference_in_a_later_call_links_to_the_last_sentence_of_its_session(
    memory: Memory,
) -> None:
    a = memory.remember("The disk on db-2 filled up.", project="p", session="s1")[0]
    memory.remember("Unrelated: lunch is at noon.", project="p", session="other")
    b = memory.remember("This stopped every write to the ledger.", project="p", session="s1")[0]
    assert (a, b, "backref") in links(memory)


def test_a_session_opening_with_since_then_links_to_the_step_told_in_the_session_before(
    real_memory: Memory,
) -> None:
    p = "/repo/shop"
    root = real_memory.remember(
        "Am Montag wurde der Connection-Pool des Bestell-Service von 50 auf 10 Verbindungen "
        "reduziert.", project=p, session="s1")[0]
    real_memory.remember("Die Buchhaltung exportiert ihre Berichte als PDF.", project=p,
                         session="s1")
    after = real_memory.remember(
        "Seitdem warten Anfragen des Bestell-Service oft Sekunden auf eine freie Verbindung.",
        project=p, session="s2")[0]
    assert (root, after, "backref") in links(real_memory)
    # it follows from what came before: never the cause of an earlier fact
    assert not any(c == after and e < after for c, e, _ in links(real_memory))


def test_a_step_named_by_what_changed_links_even_when_it_never_says_the_change_noun(
    real_memory: Memory,
) -> None:
    """"Since the sidecar rollout, X": the step before says "sidecar was injected", not
    "rollout"; the thing named is enough."""
    p = "/repo/search"
    root = real_memory.remember(
        "The service mesh sidecar was injected into every pod in the search namespace.",
        project=p, session="s1")[0]
    real_memory.remember(
        "Each search-indexer pod now loads the synonym dictionary into memory at start.",
        project=p, session="s1")
    real_memory.remember("Search results lag the catalog by hours on weekdays.", project=p,
                         session="s2")
    after = real_memory.remember(
        "Since the sidecar rollout, each search-indexer pod uses about 1.3 GiB against its "
        "1 GiB memory limit.", project=p, session="s2")[0]
    assert (root, after, "backref") in links(real_memory)


def test_a_diagnosis_explains_the_problem_told_before_it_not_its_own_cause(
    real_memory: Memory,
) -> None:
    """"Turned out X because of the long TTL" links to the TTL change as its cause and
    explains the symptom told in the session before, which names neither."""
    p = "/repo/infra"
    ttl = real_memory.remember(
        "The api.internal DNS record was given a 24-hour TTL to cut resolver query costs.",
        project=p, session="s1")[0]
    symptom = real_memory.remember(
        "During the region failover drill, clients kept calling the dead us-east load "
        "balancer for hours.", project=p, session="s2")[0]
    diagnosis = real_memory.remember(
        "Turned out clients were caching the api.internal answer for a whole day because of "
        "the long TTL.", project=p, session="s3")[0]
    made = links(real_memory)
    assert (diagnosis, symptom, "backref") in made
    assert (diagnosis, ttl, "backref") not in made
    assert [s.id for s in real_memory.why(symptom)[0].chain][-2:] == [diagnosis, symptom]


def test_two_steps_told_without_a_word_of_cause_link_when_they_name_the_same_thing(
    real_memory: Memory,
) -> None:
    """A story told plainly: the backup moved to 03:00, then the next session's IO saturation
    at 03:00 on the same database is linked as a story step, and why walks back to the
    move. A fact of the same session about something else is not linked."""
    p = "/repo/ops"
    moved = real_memory.remember(
        "The nightly pg_basebackup of the orders-db primary was moved from 01:00 to 03:00 UTC.",
        project=p, session="s1")[0]
    other = real_memory.remember(
        "The billing batch was split into four shards.", project=p, session="s1")[0]
    pinned = real_memory.remember(
        "Disk IO on the orders-db primary is pinned at 100% from 03:00 to about 04:10 UTC.",
        project=p, session="s2")[0]
    made = links(real_memory)
    assert (moved, pinned, "story") in made
    assert not any(other in (c, e) for c, e, _ in made)
    assert real_memory.why(pinned)[0].id == moved


def test_why_stands_in_the_step_told_before_for_a_cause_nobody_named(
    real_memory: Memory,
) -> None:
    """A story told step by step without a word of cause and without a name the two steps
    share: the last step's cause is the step told before it about the same thing, cited as
    "precedes"; an unrelated one never is."""
    p = "/repo/shop"
    real_memory.remember("accounting exports its reports as pdf files.", project=p,
                         session="s1")
    before = real_memory.remember(
        "requests to the order service wait under load for a free database connection.",
        project=p, session="s2")[0]
    end = real_memory.remember(
        "requests to the order service timed out under load on friday.",
        project=p, session="s3")[0]
    assert not links(real_memory)
    causes = real_memory.why(end)
    assert [s.id for s in causes[0].chain] == [before, end]
    assert causes[0].chain[-1].via == "precedes"
    assert real_memory.why(before) == []  # the PDF export is no stand-in for its cause


def test_steps_that_name_the_same_service_are_linked_as_a_story_when_written(
    real_memory: Memory,
) -> None:
    """The same story with the service named: the link is made on the write path, cited as
    "story", and the unrelated export in the session before stays out of it."""
    p = "/repo/shop"
    export = real_memory.remember("Die Buchhaltung exportiert ihre Berichte als PDF.",
                                  project=p, session="s1")[0]
    before = real_memory.remember(
        "Die Anfragen des Bestell-Service warten unter Last auf eine freie Verbindung.",
        project=p, session="s2")[0]
    end = real_memory.remember(
        "Die Anfragen des Bestell-Service liefen am Freitag unter Last in Timeouts.",
        project=p, session="s3")[0]
    assert links(real_memory) == {(before, end, "story")}
    causes = real_memory.why(end)
    assert [s.id for s in causes[0].chain] == [before, end]
    assert causes[0].chain[-1].via == "story"
    assert export not in {s.id for c in causes for s in c.chain}
    # shown as what it is: a step told after the other, not a cause anyone stated
    assert "about the same thing; no cause stated" in views.render_steps(causes[0].chain)[-1]


# -- walks over a given graph ---------------------------------------------------------------


def test_what_if_collapses_effects_with_no_other_support_and_keeps_the_rest(
    memory: Memory,
) -> None:
    a, b, c, d, e = plain_facts(memory, 5)
    add_links(memory.store, [(a, b), (b, d), (c, d), (a, e)])
    before = links(memory)
    w = memory.what_if(a)
    assert {n.id for n in w.collapsed} == {b, e}
    assert {n.id for n in w.survives} == {d}
    assert links(memory) == before  # no mutation
    assert memory.what_if(d).collapsed == []


def test_trace_orders_the_reachable_graph_by_depth_in_both_directions(memory: Memory) -> None:
    a, b, c, d = plain_facts(memory, 4)
    add_links(memory.store, [(a, b), (b, c), (c, d)])
    effects = memory.trace(a)
    assert [(n.id, n.depth, n.via) for n in effects] == [(b, 1, a), (c, 2, b), (d, 3, c)]
    causes = memory.trace(d, direction="causes", depth=2)
    assert [(n.id, n.depth) for n in causes] == [(c, 1), (b, 2)]


def test_cycles_in_the_causal_graph_end_the_walks(memory: Memory) -> None:
    a, b, c = plain_facts(memory, 3)
    add_links(memory.store, [(a, b), (b, c), (c, a)])
    assert {n.id for n in memory.trace(a)} == {b, c}
    assert {n.id for n in memory.trace(a, direction="causes")} == {b, c}
    causes = memory.why(c)
    assert causes and causes[0].id == a  # the fact that closes the loop on the way back
    assert [s.id for s in causes[0].chain] == [a, b, c]
    assert [s.id for s in memory.chain(b, a) or []] == [b, c, a]
    w = memory.what_if(a)
    assert {n.id for n in w.collapsed} == {b, c}  # a loop is no outside support


def test_walks_only_see_current_facts_of_the_scope(memory: Memory) -> None:
    a, b = plain_facts(memory, 2, project="one")
    (c,) = plain_facts(memory, 1, project="two")
    add_links(memory.store, [(a, b), (c, b)])
    assert {x.id for x in memory.why(b, project="one")} == {a}
    assert {x.id for x in memory.why(b)} == {a, c}
    memory.store.set_status(a, "retracted", "2025-01-02T00:00:00Z")
    assert {x.id for x in memory.why(b, project="one")} == set()


def test_walks_stay_bounded_on_a_graph_of_10k_links(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = memory.store
    ids = plain_facts(memory, 1_000, project="big")
    rng = random.Random(7)
    pairs = {(rng.choice(ids), rng.choice(ids)) for _ in range(12_000)}
    pairs = {p for p in pairs if p[0] != p[1]}
    add_links(store, sorted(pairs)[:10_000])
    assert store.count_links() == 10_000

    calls: list[int] = []
    real = Store.causal_edges

    def counted(self: Store, ids_, *args, **kwargs):  # type: ignore[no-untyped-def]
        rows = real(self, ids_, *args, **kwargs)
        calls.append(len(rows))
        assert len(rows) <= len(ids_) * causal.FANOUT
        return rows

    monkeypatch.setattr(Store, "causal_edges", counted)
    nodes = memory.trace(ids[0], depth=6)
    assert len(calls) <= 6 and len(nodes) < causal.MAX_NODES
    calls.clear()
    memory.why(ids[0], k=3)
    assert len(calls) <= causal.MAX_DEPTH
    calls.clear()
    memory.what_if(ids[0])
    assert len(calls) <= causal.MAX_DEPTH + 1
    assert sum(calls) <= (causal.MAX_NODES + causal.MAX_NODES) * causal.FANOUT


# -- storage, scope and the seams ------------------------------------------------------------


def test_erasing_a_fact_removes_its_spans_and_links(memory: Memory) -> None:
    a, b = memory.remember("The disk filled up. This crashed the database.", project="p",
                           session="s")
    assert links(memory) and memory.store.causal_assertions([b])
    with db.transaction(memory.store.conn):
        memory.store.conn.execute("DELETE FROM facts WHERE id = ?", (a,))
    assert links(memory) == set()
    with db.transaction(memory.store.conn):
        memory.store.conn.execute("DELETE FROM facts WHERE id = ?", (b,))
    assert memory.store.conn.execute("SELECT count(*) FROM causal_assertions").fetchone()[0] == 0


def span_bits(memory: Memory) -> int:
    return memory.store.conn.execute("SELECT count(*) FROM span_bits").fetchone()[0]


def test_span_vectors_are_indexed_and_erased_with_their_fact(memory: Memory) -> None:
    (fid,) = memory.remember("The nightly backup failed because the disk was full.", project="p")
    n_spans = len(memory.store.causal_assertions([fid])[fid])
    assert n_spans >= 1 and span_bits(memory) == 2 * n_spans  # a cause and an effect each
    memory.forget(fact=fid)
    assert span_bits(memory) == 0


def test_a_file_from_before_the_span_index_gets_it_on_open(db_path: Path) -> None:
    with Memory(db_path, embedder=HashEmbedder(64)) as mem:
        mem.remember("The nightly backup failed because the disk was full.", project="p")
        before = span_bits(mem)
        with db.transaction(mem.store.conn):
            mem.store.conn.execute("DROP TRIGGER assertions_bits_delete")
            mem.store.conn.execute("DROP TABLE span_bits")
    with Memory(db_path, embedder=HashEmbedder(64)) as mem:
        assert before >= 2 and span_bits(mem) == before
        found = mem.store.span_search(
            db.pack_vector(HashEmbedder(64).embed_batch(["the disk was full"])[0]), "p", 3
        )
        assert found and found[0][1] < 0.05  # the cause span itself, at distance ~0


def test_a_model_change_embeds_the_spans_again(db_path: Path) -> None:
    with Memory(db_path, embedder=HashEmbedder(64)) as mem:
        (fid,) = mem.remember("The nightly backup failed because the disk was full.", project="p")
    with Memory(db_path, embedder=HashEmbedder(32)) as mem:
        mem.recall("backup", project="p")  # loads the model: back-fill runs
        (row,) = mem.store.causal_assertions([fid])[fid][:1]
        assert row.cause_vec is not None and len(row.cause_vec) == 4 * 32
        assert span_bits(mem) == 2 * len(mem.store.causal_assertions([fid])[fid])


def test_links_never_cross_projects(memory: Memory) -> None:
    memory.remember("The disk on db-2 filled up.", project="one")
    memory.remember("The disk on db-2 filling up crashed the ledger.", project="two")
    assert links(memory) == set()


def test_a_plugged_in_extractor_replaces_the_rules(memory: Memory) -> None:
    class Fixed:
        def extract(self, sentence: str) -> list[CausalSpan]:
            return [CausalSpan("the moon", "the tides", "pulls", 0.8)] if "moon" in sentence else []

    old = causal.set_extractor(Fixed())
    try:
        (fid,) = memory.remember("The moon and the tides.", project="p")
    finally:
        causal_links.set_extractor(old)
    rows = memory.store.causal_assertions([fid])[fid]
    assert [(r.cause, r.effect, r.cue) for r in rows] == [("the moon", "the tides", "pulls")]


def test_why_answers_a_fact_it_states_itself_and_rejects_bad_input(memory: Memory) -> None:
    (fid,) = memory.remember("Users were logged out because Redis evicted their session keys.")
    causes = memory.why(fid)
    assert [c.id for c in causes] == [fid] and causes[0].chain[0].id == fid
    assert memory.why("why were users logged out?")[0].id == fid
    with pytest.raises(NotFound):
        memory.why(999_999)
    with pytest.raises(ValueError):
        memory.why("why?", k=0)
    with pytest.raises(ValueError):
        memory.trace(fid, direction="sideways")
    assert memory.chain(fid, fid) is not None


def test_a_fix_is_never_linked_as_the_cause_of_what_it_fixed(real_memory: Memory) -> None:
    ids = {}
    for session, text in [
        ("s1", "We set the Redis maxmemory-policy to allkeys-lru, so Redis evicts session keys "
               "when its memory is full."),
        ("s3", "Users were logged out at random during checkout because Redis evicted their "
               "session keys."),
        ("s3", "We fixed the logouts by moving session keys to a separate Redis instance with "
               "maxmemory-policy noeviction."),
    ]:
        ids[session + str(len(ids))] = real_memory.remember(text, project="p", session=session)[0]
    policy, incident, fix = ids.values()
    links = set(real_memory.store.conn.execute("SELECT cause_fact, effect_fact FROM causal_links"))
    assert (fix, incident) not in links
    causes = real_memory.why("why were users logged out during checkout?", project="p")
    assert causes[0].id == policy
    assert [s.id for s in causes[0].chain] == [policy, incident]


# -- a busy project: locality of links, and the deepest supported root ----------------------


def test_a_loosely_worded_cause_links_from_the_session_just_before_but_not_from_far_back(
    real_memory: Memory,
) -> None:
    """"The open window" refers back to an event just told; the same words said after three
    other sessions of the project are not enough to link to it."""
    p = "/repo/office"
    near_root = real_memory.remember(
        "Dana left the office window open over the weekend.", project=p, session="mon"
    )[0]
    near_effect = real_memory.remember(
        "The open window let the rain soak the carpet.", project=p, session="tue"
    )[0]
    assert (near_root, near_effect, "assert") in links(real_memory)

    q = "/repo/annex"
    far_root = real_memory.remember(
        "Dana left the office window open over the weekend.", project=q, session="mon"
    )[0]
    for i, text in enumerate([
        "The release notes for 2.4 were published.",
        "Marco reviewed the payroll export.",
        "The team picked a new logo colour.",
    ]):
        real_memory.remember(text, project=q, session=f"other{i}")
    far_effect = real_memory.remember(
        "The open window let the rain soak the carpet.", project=q, session="fri"
    )[0]
    assert not {(c, e) for c, e, _ in links(real_memory)} & {(far_root, far_effect)}


def test_a_new_fact_as_the_cause_of_an_older_one_fades_faster_with_the_sessions_between() -> None:
    forward = causal_links.locality(8)
    backward = causal_links.locality(8, causal_links.BACK_DECAY, causal_links.BACK_FLOOR)
    assert backward < forward
    assert causal_links.locality(1, causal_links.BACK_DECAY, causal_links.BACK_FLOOR) == 1.0


def test_why_walks_the_step_in_between_when_the_root_is_also_linked_straight_to_the_effect(
    memory: Memory,
) -> None:
    """tyre burst -> truck stopped -> delivery late, and tyre burst -> delivery late: the root
    is the tyre, cited through the stopped truck; the truck is no root of its own."""
    tyre, truck, late = plain_facts(memory, 3)
    add_links(memory.store, [(tyre, truck), (truck, late)], score=0.9)
    add_links(memory.store, [(tyre, late)], score=0.6)
    causes = memory.why(late)
    assert causes[0].id == tyre
    assert [s.id for s in causes[0].chain] == [tyre, truck, late]
    assert [c.id for c in causes].index(truck) > 0


def test_why_lists_an_explained_cause_below_the_root_of_its_own_chain(memory: Memory) -> None:
    root, mid, end = plain_facts(memory, 3)
    add_links(memory.store, [(root, mid), (mid, end)], score=0.8)
    assert [c.id for c in memory.why(end)] == [root, mid]


def test_a_near_tie_between_the_two_directions_goes_to_the_fact_written_first() -> None:
    t = causal_links.JOIN_THRESHOLD
    assert causal_links.direction(0.62, 0.68, t) == "in"  # the earlier fact is the cause
    assert causal_links.direction(0.50, 0.80, t) == "out"  # the new fact names it clearly
    assert causal_links.direction(0.40, 0.60, t) == "out"  # too weak as a cause
    assert causal_links.direction(0.40, 0.50, t) is None


def test_another_storys_closer_wording_does_not_crowd_out_the_storys_own_earlier_step() -> None:
    def row(cause: int) -> tuple[int, int, str, float, int | None, str | None, str]:
        return (cause, 99, "assert", 0.0, None, None, "2025-01-01T00:00:00Z")

    other_story, own_step, far_weak = row(1), row(2), row(3)
    kept = causal_links._kept(
        [(0.84, False, other_story), (0.62, True, own_step), (0.60, False, far_weak)]
    )
    assert kept == [other_story, own_step]
