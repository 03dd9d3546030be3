"""Recall in the prompt block on stacks the scenario sets do not use (Go, Rails, Flutter,
Terraform): a question is context for its answer, not a fact; a preference stated in passing
binds a later task of its area; a prompt about nothing stored gets an empty block.

The held-out part of these cases is ``test_prompt_recall_heldout.py``."""

from __future__ import annotations

from functools import partial

import captured
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.extract.kinds import is_question

PROJECT = "/home/dev/ferry"

exchange = partial(captured.exchange, project=PROJECT)  # one exchange of this project


def block(mem: Memory, prompt: str, project: str = PROJECT) -> str:
    mem.drain()
    return mem.context_for(
        prompt, project=project, session="probe", budget=2000, now="2026-03-10T09:00:00Z",
        wait_for_model=True,
    ).text


NOISE = [
    ("Bump the Go toolchain to 1.22 in go.mod and the Dockerfile.",
     "Done: go 1.22.1 in go.mod, golang:1.22-alpine as the build stage, and CI's setup-go "
     "reads the version from go.mod."),
    ("The /healthz handler logs every probe at info level and floods Loki.",
     "I moved probe logging to debug and sample 1 in 100 requests in the access log "
     "middleware."),
    ("Add a Makefile target that regenerates the protobuf stubs.",
     "make proto runs buf generate with the plugins pinned in buf.gen.yaml and fails if "
     "the generated files differ from the committed ones."),
]


def with_noise(mem: Memory) -> None:
    for i, (user, assistant) in enumerate(NOISE):
        exchange(mem, f"n{i}", f"2026-02-0{i + 1}T10:00:00Z", user, assistant)


def test_questions_are_told_from_statements() -> None:
    assert is_question("Where should the retry budget live?")
    assert is_question("¿Dónde vive la configuración del cliente")
    assert is_question("Wie lange dauert der Build?")
    assert is_question("这个配置在哪里吗")
    assert not is_question("We always run go vet before pushing.")
    assert not is_question("Don't use the global http.DefaultClient.")


def test_a_question_is_no_fact_but_its_exchange_is_found_by_its_words(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "q1", "2026-02-10T10:00:00Z",
             "How long do we keep the sqs dead letters before they expire?",
             "Fourteen days: the queue's MessageRetentionPeriod is 1209600 and a nightly job "
             "copies anything older than 7 days to s3://ferry-dlq-archive.")
    real_memory.drain()
    texts = [t for (t,) in real_memory.store.conn.execute("SELECT text FROM facts")]
    assert not any("How long do we keep" in t for t in texts)
    text = block(real_memory, "Remind me about the dead letters retention on that queue.")
    assert "1209600" in text
    assert "How long do we keep" not in text  # the answer, not the question, is the fact


def test_a_statement_beside_a_question_stays_a_fact(real_memory: Memory) -> None:
    exchange(real_memory, "q2", "2026-02-11T10:00:00Z",
             "We never store card numbers in Redis. Can you check the session cache?",
             "The session cache holds only the customer id and a CSRF token.")
    real_memory.drain()
    texts = [t for (t,) in real_memory.store.conn.execute("SELECT text FROM facts")]
    assert "We never store card numbers in Redis." in texts
    assert not any(t.startswith("Can you check") for t in texts)


def test_a_preference_said_in_passing_binds_a_later_task_of_its_area(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "p1", "2026-02-12T10:00:00Z",
             "The payout handler panics on a nil merchant. Fix it. Also, in new code wrap "
             "errors with fmt.Errorf and %w, no pkg/errors.",
             "The handler dereferenced merchant before the lookup error check; I return "
             "ErrMerchantNotFound now and wrapped the lookup error with fmt.Errorf(\"load "
             "merchant %s: %w\", id, err).")
    for i in range(4):
        exchange(real_memory, f"o{i}", f"2026-02-1{3 + i}T10:00:00Z",
                 f"The refund export for region {i} misses the currency column.",
                 f"refund_export.go built the CSV header from a stale slice for region {i}; "
                 f"the currency column is back and covered by a golden-file test.")
    text = block(real_memory, "Write the Go client for the new FX rates provider with "
                              "timeouts and retries.")
    assert "%w" in text


def test_an_unrelated_prompt_gets_an_empty_block(real_memory: Memory) -> None:
    with_noise(real_memory)
    exchange(real_memory, "x1", "2026-02-14T10:00:00Z",
             "Goroutines leak in the webhook fan-out.",
             "Each delivery started a goroutine that blocked forever on an unbuffered "
             "channel when the receiver timed out; they now select on ctx.Done().")
    text = block(real_memory, "Nothing to do with this repo, just curious: how does Go's "
                              "garbage collector decide when to run?")
    assert text == ""
