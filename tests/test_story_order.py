"""A question for causes reads a story in order: the symptom, then the exchange that shares its
rare identifiers (the step before it), then the one that shares the next step's, ahead of a
distractor that shares only the prompt's words (``exchanges.story_links``). And the words that
decide whether a prompt asks for causes, whether a word links two exchanges, and whether a
sentence binds later tasks.

The sessions are this file's own, in the shapes coding agents record them."""

from __future__ import annotations

import dataclasses
from functools import partial

import captured
import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.extract.kinds import is_task
from reasongraph_mcp.memory.extract.standing import is_rule, said_rule
from reasongraph_mcp.memory.prompt import context
from reasongraph_mcp.memory.prompt.exchanges import CAUSAL_ASK, identifiers

PROJECT = "/home/dev/millrace"

exchange = partial(captured.exchange, project=PROJECT)  # one exchange of this project


def _story(mem: Memory) -> None:
    exchange(mem, "s1", "2026-01-14T09:00:00Z",
             "the api machines idle all night, can we scale them to zero overnight?",
             "Yes. In `fly.toml` the `[http_service]` block now has `min_machines_running = 0` "
             "and `auto_stop_machines = \"stop\"`, so both api Machines stop when idle and the "
             "proxy starts one on the next request.")
    exchange(mem, "s2", "2026-02-11T09:00:00Z",
             "the relay machine polls all day for nothing, fold it into the api binary",
             "Done: `run_relay` drains `outbox_events` every 2 s, POSTs the partner callbacks and "
             "sets `dispatched_at`; it now runs as a tokio task inside the api process, and the "
             "`relay` group is gone from `fly.toml`.")
    exchange(mem, "s3", "2026-02-26T09:00:00Z",
             "the admin page for the depot staff is slow in the morning, paginate it",
             "The admin shipments page now loads 50 rows at a time with a cursor, so the depot "
             "staff see the first page in the morning in 200 ms instead of 6 s.")
    exchange(mem, "s4", "2026-03-24T09:00:00Z",
             "partner callbacks for night deliveries all arrive at once around 06:50",
             "The events are created on time, but `outbox_events` rows from 23:00 to 06:49 "
             "have no `dispatched_at` until 06:49:58: nothing attempted a delivery overnight. "
             "No explanation yet.")


PROMPT = ("whats actually going on with the partner callbacks for night deliveries? they only "
          "go out once the depot staff open the admin page in the morning")


def _header(text: str, session: str) -> int:
    return next(i for i, line in enumerate(text.splitlines())
                if line.startswith("[") and f"session {session}" in line)


def test_a_why_question_reads_the_story_before_a_distractor_of_the_prompts_words(
    real_memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _story(real_memory)
    real_memory.drain()

    def block() -> str:
        return real_memory.context_for(
            PROMPT, project=PROJECT, session="probe", budget=6000,
            now="2026-03-30T09:00:00Z", wait_for_model=True).text

    monkeypatch.setattr(context, "CONTEXT",
                        dataclasses.replace(context.CONTEXT, story_min=99.0))
    unlinked = block()
    monkeypatch.undo()
    text = block()
    # Without the story links the admin page (the prompt's words) comes before the step.
    assert _header(unlinked, "s3") < _header(unlinked, "s2")
    assert _header(text, "s4") < _header(text, "s2") < _header(text, "s3")
    assert "linked by outbox_events" in text or "linked by dispatched_at" in text
    assert "min_machines_running = 0" in text


@pytest.mark.parametrize("prompt", [
    "a couple of buyers got their bill twice, a minute apart. whats going on",
    "What's really going on with the nightly export?",
    "Объясни по шагам всю цепочку — от настройки до того, что видели клиенты.",
])
def test_a_symptom_asked_about_in_passing_asks_for_causes(prompt: str) -> None:
    assert CAUSAL_ASK.search(prompt)


def test_sql_keywords_in_capitals_link_nothing_but_column_names_do() -> None:
    found = identifiers("SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') FROM "
                        "outbox_events WHERE dispatched_at IS NULL")
    assert {"created_at", "outbox_events", "dispatched_at"} <= set(found)
    assert not {"select", "time", "zone", "from", "where", "null"} & set(found)
    assert "options" in identifiers("the browser sends an OPTIONS preflight first")


@pytest.mark.parametrize(("text", "user", "assistant"), [
    ("fyi infra says pgbouncer stays in transaction mode, not up for discussion", True, True),
    ("so nothing that needs a sticky session pls", True, False),
    ("Understood, I'll treat transaction pooling as a hard constraint from here on.", True, True),
    ("nothing that needs a migration was touched", False, False),
])
def test_a_constraint_passed_on_or_acknowledged_binds_later_tasks(
    text: str, user: bool, assistant: bool
) -> None:
    assert is_rule(text) is user
    assert said_rule(text) is assistant


def test_a_request_that_opens_with_put_or_give_is_a_task() -> None:
    assert is_task("Sellers get billed twice when two jobs overlap. Put a lock in the database.")
    assert is_task("give looker its own warehouse with multi-cluster on")
    assert not is_task("Sellers get billed twice when two jobs overlap.")


def test_a_hyphenated_name_written_as_code_is_a_specific_identifier() -> None:
    assert identifiers("apparently emb-nightly finished at 07:40")["emb_nightly"] == 0.5
    assert identifiers("`sacct --name=emb-nightly -X`")["emb_nightly"] == 1.0
    assert identifiers("```bash\n#SBATCH --job-name=emb-nightly\n```")["emb_nightly"] == 1.0


def test_a_change_named_by_its_month_brings_the_exchange_that_made_it(
    real_memory: Memory,
) -> None:
    exchange(real_memory, "p1", "2026-01-12T09:00:00Z",
             "pgbouncer refuses connections every morning when the hpa scales out",
             "Capped the pools in the DSNs: the writer gets `pool_max_conns=8`, the notifier "
             "`pool_max_conns=4`, so the worst case is 120 client connections.")
    exchange(real_memory, "p2", "2026-02-20T09:00:00Z",
             "bump pgbouncer to 1.23 on staging",
             "pgbouncer 1.23 runs on staging; no config change was needed.")
    exchange(real_memory, "p3", "2026-03-03T09:00:00Z",
             "why is the notifier 40 s behind every morning?",
             "The handler waits for a connection: notifier has 24 in total, 6 pods with the small "
             "pool from the January pgbouncer change, and holds each through the SMS call.")
    real_memory.drain()
    text = real_memory.context_for(
        "Why do the morning SMS go out late again?", project=PROJECT, session="probe",
        budget=4000, now="2026-03-20T09:00:00Z", wait_for_model=True).text
    assert "named as 'from the January pgbouncer change'" in text
    assert "pool_max_conns=4" in text
    assert _header(text, "p3") < _header(text, "p1")
