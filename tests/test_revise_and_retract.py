"""Revisions: supersede, retract and revive as append-only events with who, when and why;
contradiction detection on write (updates flagged, complements left alone); the history
timeline; and atomicity of a revision when the process is killed mid-transaction."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from reasongraph_mcp.memory import InvalidInput, Memory, NotFound
from reasongraph_mcp.memory.ml.embed import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Set the engine's clock (REASONGRAPH_NOW) to an ISO moment."""

    def set_to(moment: str) -> None:
        monkeypatch.setenv("REASONGRAPH_NOW", moment)

    return set_to


def actions(memory: Memory, target: int | str) -> list[tuple[int, str]]:
    return [(e.fact_id, e.action) for e in memory.history(target)]


def test_revise_supersedes_and_history_records_who_when_and_why(memory: Memory, clock) -> None:
    clock("2026-03-01T10:00:00Z")
    [old] = memory.remember("The ledger service uses PostgreSQL 16.", project="p", session="s1")
    clock("2026-03-05T09:00:00Z")
    new = memory.revise(old, "The ledger service uses SQLite.", reason="edge devices",
                        session="s2", role="assistant")
    assert new != old
    events = memory.history(old)
    assert [(e.fact_id, e.action) for e in events] == [(old, "assert"), (old, "supersede")]
    sup = events[-1]
    assert (sup.other_id, sup.reason, sup.session, sup.role, sup.at) == (
        new, "edge devices", "s2", "assistant", "2026-03-05T09:00:00Z")
    assert sup.text == "The ledger service uses PostgreSQL 16."
    # The new fact's timeline shows where it came from.
    assert actions(memory, new) == [(new, "assert"), (old, "supersede")]
    hit = memory.recall("ledger service", project="p")[0]
    assert (hit.id, hit.project, hit.session, hit.role) == (new, "p", "s2", "assistant")
    assert memory.status().facts == 2  # nothing overwritten


def test_a_reversed_decision_is_never_recalled_as_current_yet_visible_with_history(
    real_memory: Memory,
) -> None:
    [old] = real_memory.remember("We decided to deploy the API on Fly.io.", project="p")
    new = real_memory.revise(old, "We decided to deploy the API on Kubernetes instead of Fly.io.",
                             reason="Fly.io has no region near our users")
    for query in ("where do we deploy the API?", "Fly.io deploy decision", "Kubernetes"):
        hits = real_memory.recall(query, project="p")
        assert old not in {h.id for h in hits}
        assert all(h.status == "current" for h in hits)
    recalled = real_memory.recall("deploy the API", project="p", include_history=True)
    hits = {h.id: h for h in recalled}
    assert hits[old].status == "superseded" and hits[old].superseded_by == new
    assert hits[new].status == "current" and hits[new].superseded_by is None


def test_retract_then_restating_revives_the_fact(memory: Memory, clock) -> None:
    clock("2026-03-01T10:00:00Z")
    [fid] = memory.remember("Nightly builds run on the Mac mini.", project="p")
    clock("2026-03-02T10:00:00Z")
    memory.retract(fid, reason="the Mac mini was returned", session="s2", role="user")
    assert memory.recall("nightly builds", project="p") == []
    hit = memory.recall("nightly builds", project="p", include_history=True)[0]
    assert (hit.id, hit.status, hit.superseded_by) == (fid, "retracted", None)
    clock("2026-03-03T10:00:00Z")
    again = memory.remember("Nightly builds run on the Mac mini.", project="p", session="s3")
    assert again == [fid]
    assert actions(memory, fid) == [(fid, "assert"), (fid, "retract"), (fid, "revive")]
    assert memory.history(fid)[1].reason == "the Mac mini was returned"
    assert memory.recall("nightly builds", project="p")[0].status == "current"


def test_restating_a_superseded_fact_reverts_its_replacement(memory: Memory, clock) -> None:
    clock("2026-03-01T10:00:00Z")
    [a] = memory.remember("The cache TTL is 60 seconds.", project="p")
    clock("2026-03-02T10:00:00Z")
    b = memory.revise(a, "The cache TTL is 300 seconds.", reason="too many misses")
    clock("2026-03-03T10:00:00Z")
    res = memory.remember_detailed("The cache TTL is 60 seconds.", project="p")
    assert res.ids == [a] and (b, a) in [(r.old, r.new) for r in res.superseded]
    recalled = memory.recall("cache TTL", project="p", include_history=True)
    current = {h.id: h.status for h in recalled}
    assert current == {a: "current", b: "superseded"}
    assert actions(memory, b)[-1] == (b, "supersede")


def test_a_value_update_on_write_supersedes_the_older_fact(memory: Memory) -> None:
    [old] = memory.remember("The API rate limit is 60 requests per minute.", project="p")
    res = memory.remember_detailed("The API rate limit is 100 requests per minute.", project="p")
    [rev] = res.superseded
    assert (rev.old, rev.new) == (old, res.ids[0]) and "60" in rev.reason and "100" in rev.reason
    assert memory.history(old)[-1].reason == rev.reason


def test_what_the_assistant_did_later_does_not_lift_a_rule_the_user_laid_down(
    real_memory: Memory,
) -> None:
    [rule] = real_memory.remember(
        "And for any mailer you touch, make sure there's a preview under spec/mailers/previews, "
        "that's where I review emails.", project="p", session="s4", role="user")
    res = real_memory.remember_detailed(
        "Disabled `Rails/I18nLocaleTexts` for mailers because our email copy is inline for now.",
        project="p", session="s6", role="assistant")
    assert res.superseded == []
    assert real_memory.store.facts([rule])[rule].status == "current"
    # The same kind of sentence still updates a fact that is not a rule.
    [note] = real_memory.remember("The weekly digest mailer sends at 08:00 UTC.", project="p",
                                  session="s5", role="user")
    res = real_memory.remember_detailed("The weekly digest mailer now sends at 06:00 UTC.",
                                        project="p", session="s7", role="assistant")
    assert [r.old for r in res.superseded] == [note]


@pytest.mark.parametrize(("request_", "done", "later"), [
    ("Bump Puma to 6.4 and fix whatever breaks.",
     "`bundle update puma` took us from 6.3.1 to 6.4.2 (plus `nio4r` 2.7.0).", "s1"),
    ("Tag the disk images we bake with Packer so we know which commit they came from.",
     "packer/base.pkr.hcl now sets labels on the image: GitSha, BuildDate and Role=worker.",
     "s2"),
])
def test_what_the_assistant_did_never_retires_the_users_request(
    real_memory: Memory, request_: str, done: str, later: str
) -> None:
    """A request asks for work and states nothing current: doing it retires nothing."""
    [asked] = real_memory.remember(request_, project="p", session="s1", role="user")
    res = real_memory.remember_detailed(done, project="p", session=later, role="assistant")
    assert asked not in [r.old for r in res.superseded]
    assert real_memory.store.facts([asked])[asked].status == "current"


# Pairs written for these tests (not taken from the eval data): each `new` leaves `old`
# true, so neither may be superseded.
COMPLEMENTS = [
    ("The billing service is written in Go.", "The billing service exposes a gRPC API."),
    ("Priya maintains the release scripts.", "Priya prefers squash merges."),
    ("The staging cluster runs in eu-west-1.", "The staging cluster has three nodes."),
    ("We use Redis for session storage.", "We use Redis Streams for the audit log."),
    ("The mobile app supports dark mode.", "The mobile app supports offline sync."),
    ("Tom fixed the login timeout bug in March.", "Tom moved to the payments team."),
]
UPDATES = [
    ("The staging cluster has three nodes.", "The staging cluster now has five nodes."),
    ("Priya maintains the release scripts.", "Priya no longer maintains the release scripts."),
    ("The request timeout is 30 seconds.", "The request timeout was raised to 90 seconds."),
]


@pytest.mark.parametrize(("old", "new"), COMPLEMENTS)
def test_complements_are_left_alone(real_memory: Memory, old: str, new: str) -> None:
    [a] = real_memory.remember(old, project="p")
    res = real_memory.remember_detailed(new, project="p")
    assert res.superseded == []
    assert [e.action for e in real_memory.history(a)] == ["assert"]


@pytest.mark.parametrize(("old", "new"), UPDATES)
def test_updates_are_detected(real_memory: Memory, old: str, new: str) -> None:
    [a] = real_memory.remember(old, project="p")
    res = real_memory.remember_detailed(new, project="p")
    assert [r.old for r in res.superseded] == [a]


def test_updates_only_look_inside_the_same_project(memory: Memory) -> None:
    [a] = memory.remember("The API rate limit is 60 requests per minute.", project="p1")
    memory.remember("The API rate limit is 100 requests per minute.", project="p2")
    assert [e.action for e in memory.history(a)] == ["assert"]


@pytest.mark.parametrize(
    ("call", "error", "says"),
    [
        (lambda m, f: m.revise(987654, "New text.", reason="r"), NotFound, "fact 987654 not found"),
        (lambda m, f: m.retract(987654, reason="r"), NotFound, "fact 987654 not found"),
        (lambda m, f: m.revise(f, "New text.", reason="  "), InvalidInput, "reason"),
        (lambda m, f: m.revise(f, "   ", reason="r"), InvalidInput, "text"),
        (lambda m, f: m.revise(str(f), "New text.", reason="r"), InvalidInput, "integer"),
        (lambda m, f: m.revise(True, "New text.", reason="r"), InvalidInput, "integer"),
        (lambda m, f: m.retract(f, reason=""), InvalidInput, "reason"),
        (lambda m, f: m.revise(f, "The deploy runs on Fridays.", reason="r"), InvalidInput,
         "same"),
        (lambda m, f: m.history(987654), NotFound, "fact 987654 not found"),
        (lambda m, f: m.history("no-such-entity"), NotFound, "entity no-such-entity not found"),
        (lambda m, f: m.history(""), InvalidInput, "fact id or an entity"),
    ],
)
def test_bad_revisions_raise_one_clear_error(  # type: ignore[no-untyped-def]
    memory: Memory, call, error, says
) -> None:
    [fid] = memory.remember("The deploy runs on Fridays.", project="p")
    with pytest.raises(error) as info:
        call(memory, fid)
    assert says in str(info.value) and "\n" not in str(info.value)
    assert [e.action for e in memory.history(fid)] == ["assert"]  # nothing half-done


def test_a_superseded_or_retracted_fact_is_not_revised_or_retracted_again(memory: Memory) -> None:
    [a] = memory.remember("The deploy runs on Fridays.", project="p")
    b = memory.revise(a, "The deploy runs on Tuesdays.", reason="fewer weekend pages")
    with pytest.raises(InvalidInput, match=f"#{b}"):
        memory.revise(a, "The deploy runs on Mondays.", reason="r")
    with pytest.raises(InvalidInput, match=f"#{b}"):
        memory.retract(a, reason="r")
    memory.retract(b, reason="no fixed deploy day any more")
    with pytest.raises(InvalidInput, match="already retracted"):
        memory.retract(b, reason="r")
    # A retracted fact may still be corrected.
    c = memory.revise(b, "The deploy runs on demand.", reason="continuous delivery")
    assert memory.history(b)[-1].other_id == c


def test_history_of_an_entity_spans_its_facts_case_insensitively(memory: Memory, clock) -> None:
    clock("2026-03-01T10:00:00Z")
    [a] = memory.remember("The ledger service uses PostgreSQL 16.", project="p")
    clock("2026-03-02T10:00:00Z")
    [b] = memory.remember("Backups of PostgreSQL run nightly.", project="p")
    clock("2026-03-03T10:00:00Z")
    c = memory.revise(a, "The ledger service uses PostgreSQL 17.", reason="upgrade")
    events = memory.history("postgresql")
    assert events == memory.history("PostgreSQL") == memory.history("  POSTGRESQL ")
    # Same transaction time: ties are in write order (the new fact, then the supersession).
    assert [(e.fact_id, e.action) for e in events] == [
        (a, "assert"), (b, "assert"), (c, "assert"), (a, "supersede")
    ]
    assert all(e.text for e in events)
    assert memory.history(f"#{a}") == memory.history(a)


def test_the_reason_is_redacted(memory: Memory) -> None:
    [a] = memory.remember("The staging database password rotates monthly.", project="p")
    memory.retract(a, reason="rotation now weekly; password=Sup3rSecret!x9")
    assert "Sup3rSecret" not in (memory.history(a)[-1].reason or "")


# -- a revision is one transaction: kill the process in the middle ------------------------------

CRASHER = r"""
import os, sys, time
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.ml.embed import HashEmbedder
from reasongraph_mcp.memory.storage.store import Store

path, point = sys.argv[1], sys.argv[2]


def after(method, when):
    real = getattr(Store, method)

    def wrapper(self, *args, **kwargs):
        out = real(self, *args, **kwargs)
        if when(*args):
            if point.startswith("sigkill"):
                print("inside", flush=True)
                time.sleep(60)
            os._exit(9)
        return out

    setattr(Store, method, wrapper)


stage = point.split(":")[-1]
if stage == "inserted":
    after("insert_fact", lambda values: True)
elif stage == "marked":
    after("set_status", lambda fid, status, *rest: status == "superseded")
elif stage == "logged":
    after("add_event", lambda fid, action, *rest: action == "supersede")
mem = Memory(path, embedder=HashEmbedder(64))
print(mem.revise(1, "The ledger service uses SQLite.", reason="edge devices"), flush=True)
"""


@pytest.mark.parametrize(
    "point",
    ["exit:inserted", "exit:marked", "exit:logged", "sigkill:marked", "none"],
)
def test_a_killed_revision_leaves_the_old_or_the_new_state_never_both(
    db_path: Path, tmp_path: Path, point: str
) -> None:
    with Memory(db_path, embedder=HashEmbedder(64)) as mem:
        assert mem.remember("The ledger service uses PostgreSQL 16.", project="p") == [1]
    script = tmp_path / "crash.py"
    script.write_text(CRASHER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, str(script), str(db_path), point],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    if point.startswith("sigkill"):
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "inside"  # mid-transaction, writes pending
        os.kill(proc.pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    if point == "none":
        assert proc.returncode == 0, err
    else:
        assert proc.returncode != 0
    with Memory(db_path, embedder=HashEmbedder(64)) as mem:
        assert mem.store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        hits = mem.recall("ledger service", project="p", include_history=True)
        state = {h.text: h.status for h in hits}
        current = [t for t, s in state.items() if s == "current"]
        assert len(current) == 1, state
        if point == "none":
            assert state == {"The ledger service uses PostgreSQL 16.": "superseded",
                             "The ledger service uses SQLite.": "current"}
            assert [e.action for e in mem.history(1)] == ["assert", "supersede"]
        else:
            assert state == {"The ledger service uses PostgreSQL 16.": "current"}
            assert [e.action for e in mem.history(1)] == ["assert"]
            assert mem.status().facts == 1


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Service 3 sends invoices to the billing queue.",
         "Service 4 sends invoices to the billing queue."),
        ("Ticket 12 is assigned to the platform team.",
         "Ticket 13 is assigned to the platform team."),
        ("PR #41 adds a retry to the payments client.",
         "PR #42 adds a retry to the payments client."),
    ],
)
def test_numbered_subjects_are_different_things(real_memory: Memory, old: str, new: str) -> None:
    """A number in the subject's name ("Service 3") is not a value: neither fact supersedes."""
    [a] = real_memory.remember(old, project="p")
    res = real_memory.remember_detailed(new, project="p")
    assert res.superseded == [] and [e.action for e in real_memory.history(a)] == ["assert"]
    hits = {h.text: h.status for h in real_memory.recall(old, project="p")}
    assert hits == {old: "current", new: "current"}  # two facts: neither merged nor superseded
