"""Time on every read: the bi-temporal predicate as a table of interval cases over a
hand-built timeline, then as_of / valid_at / include_history through a real Memory."""

from __future__ import annotations

import apsw
import pytest
from reasongraph_mcp.memory import InvalidInput, Memory
from reasongraph_mcp.memory.storage.filters import Scope, where

# A timeline of seven facts (all times 2026, UTC):
#   1 recorded 03-01, superseded 03-05 by 2 (valid from 03-05)
#   2 recorded 03-05, current
#   3 recorded 03-11, valid only on 03-06 ("last Friday"), current
#   4 recorded 03-02, retracted 03-04
#   5 recorded 03-01, retracted 03-02, revived 03-03, current
#   6 recorded 03-01, superseded 03-08 by 7, which is valid only from 04-01
#   7 recorded 03-08, valid from 04-01, current
FACTS = [
    # id, recorded_at, valid_from, valid_to, status, superseded_by, retired_at
    (1, "03-01T10", "03-01T10", None, "superseded", 2, "03-05T10"),
    (2, "03-05T10", "03-05T10", None, "current", None, None),
    (3, "03-11T10", "03-06T00", "03-07T00", "current", None, None),
    (4, "03-02T10", "03-02T10", None, "retracted", None, "03-04T10"),
    (5, "03-01T10", "03-01T10", None, "current", None, None),
    (6, "03-01T10", "03-01T10", None, "superseded", 7, "03-08T10"),
    (7, "03-08T10", "04-01T00", None, "current", None, None),
]
EVENTS = [
    # fact_id, action, other_id, at
    (1, "assert", None, "03-01T10"),
    (5, "assert", None, "03-01T10"),
    (6, "assert", None, "03-01T10"),
    (4, "assert", None, "03-02T10"),
    (5, "retract", None, "03-02T10"),
    (5, "revive", None, "03-03T10"),
    (4, "retract", None, "03-04T10"),
    (2, "assert", None, "03-05T10"),
    (1, "supersede", 2, "03-05T10"),
    (7, "assert", None, "03-08T10"),
    (6, "supersede", 7, "03-08T10"),
    (3, "assert", None, "03-11T10"),
    (5, "restate", None, "03-12T10"),  # restatements never change the lifecycle
]


def t(short: str | None) -> str | None:
    if short is None:
        return None
    return f"2026-{short}:00:00Z" if "T" in short else f"2026-{short}T00:00:00Z"


@pytest.fixture(scope="module")
def timeline() -> apsw.Connection:
    conn = apsw.Connection(":memory:")
    conn.execute(
        "CREATE TABLE facts (id INTEGER PRIMARY KEY, recorded_at TEXT, valid_from TEXT, "
        "valid_to TEXT, status TEXT, superseded_by INTEGER, retired_at TEXT);"
        "CREATE TABLE events (id INTEGER PRIMARY KEY, fact_id INTEGER, action TEXT, "
        "other_id INTEGER, at TEXT);"
    )
    for fid, rec, vf, vt, status, by, retired in FACTS:
        conn.execute("INSERT INTO facts VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (fid, t(rec), t(vf), t(vt), status, by, t(retired)))
    for fid, action, other, at in EVENTS:
        conn.execute("INSERT INTO events(fact_id, action, other_id, at) VALUES (?, ?, ?, ?)",
                     (fid, action, other, t(at)))
    return conn


@pytest.mark.parametrize(
    ("as_of", "valid_at", "history", "visible"),
    [
        (None, None, False, {2, 3, 5, 7}),  # what is current now
        (None, None, True, {1, 2, 3, 4, 5, 6, 7}),
        ("03-01T12", None, False, {1, 5, 6}),
        ("03-02T12", None, False, {1, 4, 6}),  # 5 retracted at 10:00 that day
        ("03-04T12", None, False, {1, 5, 6}),  # 4 retracted, 5 revived
        ("03-06", None, False, {2, 5, 6}),  # 1 superseded by 2
        ("03-06", None, True, {1, 2, 4, 5, 6}),  # everything recorded by then
        ("02-01", None, False, set()),
        (None, "03-03", False, {1, 4, 5, 6}),  # before 2 became valid; 4 not yet retracted
        (None, "03-06T12", False, {2, 3, 5, 6}),  # "last Friday"; 7 not valid until April
        (None, "03-07", False, {2, 5, 6}),  # the half-open end of 3's day
        (None, "04-02", False, {2, 5, 7}),  # 7 valid now, so 6 has ended
        (None, "03-06T12", True, {1, 2, 3, 4, 5, 6}),  # intervals only
        ("03-06", "03-06T12", False, {2, 5, 6}),  # 3 not recorded yet on 03-06
        ("03-02T12", "03-03", False, {1, 4, 6}),  # as recorded then, 5 was retracted
        ("03-09", "03-20", False, {2, 5, 6}),  # 6's replacement is valid only from April
    ],
)
def test_time_predicate_cases(
    timeline: apsw.Connection, as_of: str | None, valid_at: str | None, history: bool,
    visible: set[int],
) -> None:
    sql, args = where(Scope(as_of=t(as_of), valid_at=t(valid_at), include_history=history))
    got = {r[0] for r in timeline.execute(f"SELECT f.id FROM facts f WHERE {sql}", args)}
    assert got == visible


def test_as_of_before_and_after_a_revision(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONGRAPH_NOW", "2026-03-01T10:00:00Z")
    [old] = memory.remember("The ledger service uses PostgreSQL 16.", project="p")
    monkeypatch.setenv("REASONGRAPH_NOW", "2026-03-05T10:00:00Z")
    new = memory.revise(old, "The ledger service uses SQLite.", reason="edge devices")
    q = "ledger service"

    assert memory.recall(q, project="p", as_of="2026-02-28") == []
    before = memory.recall(q, project="p", as_of="2026-03-03")
    assert [(h.id, h.status, h.superseded_by) for h in before] == [(old, "current", None)]
    # The past view with history shows each fact as it stood then, not as it is now.
    then = memory.recall(q, project="p", as_of="2026-03-03", include_history=True)
    assert [(h.id, h.status) for h in then] == [(old, "current")]
    after = memory.recall(q, project="p", as_of="2026-03-05T10:00:00Z")
    assert [(h.id, h.status) for h in after] == [(new, "current")]
    later = {h.id: (h.status, h.superseded_by)
             for h in memory.recall(q, project="p", as_of="2026-03-06", include_history=True)}
    assert later == {old: ("superseded", new), new: ("current", None)}


def test_valid_at_resolves_a_relative_date_against_when_it_was_said(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Said on Wednesday 2026-03-11: "last Friday" is 2026-03-06.
    monkeypatch.setenv("REASONGRAPH_NOW", "2026-03-11T10:00:00Z")
    [fid] = memory.remember("Last Friday the deploy pipeline was frozen.", project="p")
    hit = memory.recall("deploy pipeline frozen", project="p", valid_at="2026-03-06T15:00:00Z")[0]
    assert (hit.id, hit.valid_from, hit.valid_to) == (
        fid, "2026-03-06T00:00:00Z", "2026-03-07T00:00:00Z")
    for outside in ("2026-03-05T23:59:59Z", "2026-03-07T00:00:00Z", "2026-03-11"):
        assert memory.recall("deploy pipeline frozen", project="p", valid_at=outside) == []
    # Recorded on 03-11: as recorded on 03-08 the memory did not know it yet.
    assert memory.recall("deploy pipeline frozen", project="p", valid_at="2026-03-06T15:00:00Z",
                         as_of="2026-03-08") == []


def test_valid_at_follows_the_valid_time_of_the_replacement(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REASONGRAPH_NOW", "2026-03-01T10:00:00Z")
    [old] = memory.remember("The team office is in Berlin.", project="p")
    monkeypatch.setenv("REASONGRAPH_NOW", "2026-03-10T10:00:00Z")
    new = memory.revise(old, "From 1 April 2026 the team office is in Amsterdam.",
                        reason="the lease ends")
    q = "team office"
    march = memory.recall(q, project="p", valid_at="2026-03-20")
    assert [(h.id, h.status, h.superseded_by) for h in march] == [(old, "superseded", new)]
    assert [h.id for h in memory.recall(q, project="p", valid_at="2026-04-02")] == [new]
    assert [h.id for h in memory.recall(q, project="p")] == [new]  # current view


def test_a_retracted_fact_was_true_until_it_was_retracted(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REASONGRAPH_NOW", "2026-03-01T10:00:00Z")
    [fid] = memory.remember("The nightly job exports the ledger to S3.", project="p")
    monkeypatch.setenv("REASONGRAPH_NOW", "2026-03-04T10:00:00Z")
    memory.retract(fid, reason="job removed")
    assert [h.status for h in memory.recall("nightly job", project="p", valid_at="2026-03-02")] \
        == ["retracted"]
    assert memory.recall("nightly job", project="p", valid_at="2026-03-05") == []


@pytest.mark.parametrize("bad", ["yesterday-ish", "", 42])
def test_unreadable_times_are_refused(memory: Memory, bad: object) -> None:
    memory.remember("The nightly job exports the ledger to S3.", project="p")
    with pytest.raises(InvalidInput, match="cannot read time"):
        memory.recall("nightly job", project="p", as_of=bad)


def test_an_iso_timestamp_names_its_day(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    # "from 2026-05-16T00:00" is that day, not the start of 2026.
    monkeypatch.setenv("REASONGRAPH_NOW", "2026-05-15T17:30:00Z")
    [fid] = memory.remember(
        "The new fee applies to orders created from 2026-05-16T00:00 Europe/Amsterdam.",
        project="p",
    )
    [hit] = memory.recall("new fee orders", project="p")
    assert (hit.id, hit.valid_from) == (fid, "2026-05-16T00:00:00Z")


def test_a_prompt_naming_a_release_asks_about_the_time_it_was_tagged(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import datetime, timezone

    from reasongraph_mcp.memory.prompt.context import release_time

    monkeypatch.setenv("REASONGRAPH_NOW", "2026-03-09T17:00:00Z")
    memory.remember("Tagged v0.6.0; the release workflow published the archives.", project="p")
    memory.remember("The 0.6 docs mention the cache.", project="p")  # no release: no time
    now = datetime(2026, 5, 12, tzinfo=timezone.utc)
    asked = release_time(memory.store, "A user pinned to 0.6.x saw stale results.", "p", now)
    assert asked is not None and asked.isoformat().startswith("2026-03-09T18:00")
    assert release_time(memory.store, "What changed in 0.7?", "p", now) is None
    assert release_time(memory.store, "Fix the flaky test.", "p", now) is None
