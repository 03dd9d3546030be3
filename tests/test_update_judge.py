"""The learned update judge (``memory.updates.judge``): asked on the write path about a
note's nearest current fact when the rules say nothing, never about a plan or another
service, never about a captured turn, and never when two facts are about as close.

The sentences are this file's own, not the pairs the judge was fitted on."""

from __future__ import annotations

from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.updates.detect import FactView, detect_update, plainly_complement
from reasongraph_mcp.memory.updates.judge import WEIGHTS, judge_for

PROJECT = "/home/dev/kestrel"
OLD = "The mobile builds are signed on Dana's laptop."
NEW = "signing keys live in the CI keychain now, nobody signs on a laptop anymore"


def status(mem: Memory, fact: int) -> str:
    return mem.store.facts([fact])[fact].status


def test_the_weights_ship_with_the_package_and_belong_to_the_packaged_model(minilm) -> None:
    assert WEIGHTS.is_file()
    judge = judge_for(minilm.name)
    assert judge is not None and 0.5 < judge.threshold < 1.0
    assert judge_for("hash-64") is None  # vectors of another space mean nothing to it


def test_a_change_the_rules_cannot_align_is_judged_and_retires_the_fact(real_memory) -> None:
    assert detect_update(FactView(OLD, frozenset()), FactView(NEW, frozenset())) is None
    [old] = real_memory.remember(OLD, project=PROJECT, session="s1")
    res = real_memory.remember_detailed(NEW, project=PROJECT, session="s2")
    assert [r.old for r in res.superseded] == [old]
    assert "learned judge" in res.superseded[0].reason
    assert status(real_memory, old) == "superseded"


def test_the_judge_reads_the_pair_not_only_the_new_words(minilm) -> None:
    judge = judge_for(minilm.name)
    assert judge is not None
    a, b = minilm.embed_batch([OLD, NEW])
    assert judge.probability(OLD, NEW, a, b) >= judge.threshold
    same_words = "the API gateway still runs nginx but we added a lua module for auth"
    a, b = minilm.embed_batch(["The API gateway runs nginx.", same_words])
    assert judge.probability("The API gateway runs nginx.", same_words, a, b) < judge.threshold


def test_a_plan_is_never_asked_about(real_memory) -> None:
    plan = "should we keep the signing keys in the CI keychain instead of a laptop?"
    assert plainly_complement(OLD, plan)
    [old] = real_memory.remember(OLD, project=PROJECT, session="s1")
    res = real_memory.remember_detailed(plan, project=PROJECT, session="s2")
    assert res.superseded == [] and status(real_memory, old) == "current"


def test_a_captured_turn_is_not_judged(real_memory) -> None:
    [old] = real_memory.remember(OLD, project=PROJECT, session="s1")
    res = real_memory.remember_detailed(NEW, project=PROJECT, session="s2", role="assistant")
    assert not [r for r in res.superseded if "learned judge" in r.reason]
    assert status(real_memory, old) == "current"


def test_two_facts_about_as_close_leave_the_judge_silent(real_memory) -> None:
    [mobile] = real_memory.remember(OLD, project=PROJECT, session="s1")
    [tablet] = real_memory.remember(
        "The tablet builds are signed on Dana's laptop.", project=PROJECT, session="s1"
    )
    res = real_memory.remember_detailed(NEW, project=PROJECT, session="s2")
    assert not [r for r in res.superseded if "learned judge" in r.reason]
    assert status(real_memory, mobile) == status(real_memory, tablet) == "current"


def test_a_step_of_a_story_is_not_judged_a_change(real_memory) -> None:
    """What followed a change ("After the pooling switch, ...") leaves the change standing:
    the new fact asserts a cause, and the old one stays a true step of the story."""
    old = "The CRM export team renamed customer_region to region_code in their nightly CSV."
    new = ("Since the CRM export change, the region column in dim_customer is NULL for every "
           "new customer.")
    [fid] = real_memory.remember(old, project=PROJECT, session="s1")
    res = real_memory.remember_detailed(new, project=PROJECT, session="s2")
    assert res.superseded == [] and status(real_memory, fid) == "current"


def test_an_event_is_history_whatever_follows(real_memory) -> None:
    """The rules' principle holds for the judge: what someone did stays done."""
    [fid] = real_memory.remember("Omar built the first version of the export job.",
                                 project=PROJECT, session="s1")
    res = real_memory.remember_detailed("Omar left the company.", project=PROJECT, session="s2")
    assert res.superseded == [] and status(real_memory, fid) == "current"
