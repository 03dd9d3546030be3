"""A story told in notes the way engineers write them: the next step opened by a reference to
the step before ("Since the switch, ...", "Since 6.4, ...", "Two days later ..."), and a cause
named as something already told ("Because of the shorter timeout, ..."). The write path links
each step to the step it names, not to whatever sentence came just before it.

The sentences are this file's own."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.causal.cues import RuleCausalExtractor

PROJECT = "/home/dev/millrace"
EXTRACT = RuleCausalExtractor()


def links(mem: Memory) -> set[tuple[int, int]]:
    return {(a, b) for a, b in mem.store.conn.execute(
        "select cause_fact, effect_fact from causal_links")}


@pytest.mark.parametrize("sentence", [
    "Since the switch, the export job retries every upload twice.",
    "Since the hotfix the login page logs every password reset token.",
    "Since 2.7, the scanner reports the dock as offline.",
    "After the cutover, the billing cron runs twice a night.",
    "Two days later the queue filled up again.",
    "After that, half of the thumbnails came back blank.",
    "Seit dem Update laufen die Exporte doppelt.",
    "Depuis la migration, les exports échouent.",
    "Desde la 3.2, el escáner no encuentra la base.",
    "Sinds de overstap faalt de nachtelijke build.",
    "Desde a migração, o login falha no Safari.",
    "Dopo l'aggiornamento il servizio si riavvia ogni notte.",
])
def test_a_sentence_opened_by_a_step_before_follows_from_it(sentence: str) -> None:
    [span] = EXTRACT.extract(sentence)
    assert span.backref == "cause"


@pytest.mark.parametrize("sentence", [
    "We have run Postgres since the migration in 2021.",
    "The nightly job sends a summary after the deploy window.",
])
def test_the_same_words_inside_a_sentence_are_no_back_reference(sentence: str) -> None:
    assert all(s.backref != "cause" for s in EXTRACT.extract(sentence))


def test_that_opening_a_noun_phrase_names_the_cause_itself() -> None:
    [named] = EXTRACT.extract("Because of that memory leak, the worker restarts hourly.")
    assert named.backref is None and named.cause.endswith("memory leak")
    [anaphor] = EXTRACT.extract("Because of that, the worker restarts hourly.")
    assert anaphor.backref == "cause"


# (the step it names, a neighbour told in the same session, the step that follows) : the
# follower links to the step its opening or its known cause names, never to the neighbour.
NAMED_STEPS = [
    # named by its event
    ("We switched the image uploads to the new object store on Monday.",
     "The admin dashboard got a dark theme the same day.",
     "Since the switch, every upload over 5 MB times out."),
    # named by its release
    ("Release 4.1 moved the map tiles onto the main thread.",
     "Release 4.0 added offline mode.",
     "Since 4.1, scrolling the map stutters on older phones."),
    # a known cause in few words: the step that holds them
    ("The upload service's CORS policy was changed to echo any Origin header back.",
     "The upload service also moved to a larger instance type.",
     "Because of the echoed Origin, any website could post files as a signed-in user."),
    # of several steps naming a release, the closest in meaning
    ("Firmware 2.3 raised the SPI clock of the display bus to 20 MHz.",
     "Firmware 2.3 also changed the battery icon.",
     "Since 2.3, displays on the long flex cable show garbled pixels on the SPI bus."),
]


@pytest.mark.parametrize(("named", "neighbour", "follower"), NAMED_STEPS)
def test_a_step_follows_the_step_it_names_not_its_neighbour(
    real_memory: Memory, named: str, neighbour: str, follower: str
) -> None:
    [cause] = real_memory.remember(named, project=PROJECT, session="s1")
    [other] = real_memory.remember(neighbour, project=PROJECT, session="s1")
    [step] = real_memory.remember(follower, project=PROJECT, session="s2")
    found = links(real_memory)
    assert (cause, step) in found
    assert (other, step) not in found


def test_a_cause_named_as_already_told_is_the_older_fact(real_memory: Memory) -> None:
    [lowered] = real_memory.remember(
        "The sync worker's timeout to the warehouse API was lowered from 60 s to 10 s.",
        project=PROJECT, session="s1")
    [effect] = real_memory.remember(
        "Because of the shorter timeout, the sync worker gives up on large warehouse pages "
        "and retries them.", project=PROJECT, session="s2")
    found = links(real_memory)
    assert (lowered, effect) in found
    assert (effect, lowered) not in found


def test_a_time_after_a_step_names_no_step(real_memory: Memory) -> None:
    [backup] = real_memory.remember(
        "The full backup of the archive takes two days.", project=PROJECT, session="s1")
    [before] = real_memory.remember(
        "We turned on compression for the archive bucket.", project=PROJECT, session="s1")
    [step] = real_memory.remember(
        "Two days later the restore test failed on a corrupt chunk.", project=PROJECT,
        session="s1")
    found = links(real_memory)
    assert (before, step) in found
    assert (backup, step) not in found
