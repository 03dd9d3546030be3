"""A changed value written as a diff ("concurrency 4 -> 12") retires the fact that states the
old value (``memory.updates.arrow``), and a setting named as code shares the words of its prose
name (``LOG_LEVEL`` is "log level") when the change rules compare two sentences.

The sentences are this file's own, in the shapes developers write them."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.updates.arrow import value_arrow
from reasongraph_mcp.memory.updates.detect import FactView, detect_update
from reasongraph_mcp.memory.updates.shift import content_words, replacement_cues

PROJECT = "/home/dev/quayside"

DIFFS = [
    ("The tile renderer keeps 6 worker threads.",
     "tile-renderer: worker threads 6 -> 16 in render.toml"),
    ("The minimum macOS version of the desktop app is 12.",
     "desktop app: minimum macOS 12 -> 13, dropped the old shims"),
    ("Die Suche nutzt Meilisearch 1.3.",
     "meilisearch 1.3.2 → 1.6.0 im compose file der suche, reindex lief durch"),
    ("The default branch of the docs repo is master.",
     "docs repo default branch master -> main, old name redirects"),
    ("The retry budget of the webhook sender is 3 attempts.",
     "webhook sender retries went from 3 to 8 after the partner outage"),
]

RENDERER = "The tile renderer keeps 6 worker threads."
NOT_DIFFS = [
    # the left side is not the old value
    (RENDERER, "tile-renderer: cache size 256 -> 512 in render.toml"),
    # a chain of stages, not a change
    (RENDERER, "tile-renderer pipeline: fetch -> decode -> 6 threads -> encode"),
    # both values were already stated
    ("Jobs move from 3 to 8 workers at peak.", "at peak the jobs go from 3 to 8 workers"),
    # the old value, but nothing else about the same thing
    (RENDERER, "invoice numbering: prefix 6 -> 7 for the new year"),
]


@pytest.mark.parametrize(("old", "new"), DIFFS)
def test_a_diff_from_the_old_value_is_an_update(old: str, new: str) -> None:
    why = value_arrow(old, new)
    assert why is not None and why.startswith("value changed: ")
    update = detect_update(FactView(old, frozenset()), FactView(new, frozenset()), similarity=0.4)
    assert update is not None and update.kind == "value"


@pytest.mark.parametrize(("old", "new"), NOT_DIFFS)
def test_an_arrow_that_does_not_replace_the_old_value_is_no_diff(old: str, new: str) -> None:
    assert value_arrow(old, new) is None


def test_a_planned_diff_replaces_nothing() -> None:
    old, new = DIFFS[0]
    planned = FactView("we plan to go " + new, frozenset())
    assert detect_update(FactView(old, frozenset()), planned, similarity=0.5) is None


@pytest.mark.parametrize(("code", "words"), [
    ("LOG_LEVEL=debug", {"log", "level"}),
    ("batch_size: 1024", {"batch", "size"}),
    ("targetSdk = 34", {"targe", "sdk"}),
    ("ingest-svc", {"inges", "servi"}),
    ("prod k8s", {"produ", "kuber"}),
])
def test_a_setting_named_as_code_has_the_words_of_its_prose_name(code: str, words: set) -> None:
    assert words <= content_words(code)


def test_a_product_name_in_capitals_stays_one_word() -> None:
    # PostgreSQL is one thing: two of its parts must not count as two shared words
    assert content_words("We use PostgreSQL.") & {"sql", "postg"} == {"postg"}


def test_a_diff_note_retires_the_fact_in_a_real_memory(real_memory: Memory) -> None:
    old, new = DIFFS[0]
    other = real_memory.remember(
        "The map API caches tiles for 6 hours.", project=PROJECT, session="a")
    [fact] = real_memory.remember(old, project=PROJECT, session="a")
    result = real_memory.remember_detailed(new, project=PROJECT, session="b")
    assert [r.old for r in result.superseded] == [fact]
    assert real_memory.store.facts(other)[other[0]].status == "current"


# A story told in notes, in one busy project: each later step shares words with an earlier
# fact of another thing, and must leave it current.
NEIGHBOURS = [
    # what moved off Redis is the search index, not the rate limiter
    ("We switched the rate limiter in Redis from fixed windows to a sliding log.",
     "The search index also migrated its hot tier from Redis to Valkey."),
    # the job moved off cron is another job than the cron the old fact is about
    ("The cache warmup cron on the web hosts was moved from 03:00 to 01:15 last week.",
     "The invoice mailer job was moved from cron to Temporal in March."),
    # the clause names what we acted on; the new subject is another thing
    ("We raised max_connections on the reporting database from 100 to 400 so the backfill "
     "could run.",
     "The backfill from the reporting database now writes Avro instead of JSON."),
    # a cause and its effect: "dropped" is the effect, not the end of the cold-start state
    ("Since 3.2, cold start on low-end tablets has gone from 2 s to 5 s.",
     "The slow cold starts led the store to flag the app, and it dropped in search results."),
    # "turned out" tells a cause found, not a change of the old fact
    ("Nightly builds are signed on the build farm's Linux runners.",
     "Turned out the upgrade of the Linux runners last Friday wiped their ccache volume."),
]


@pytest.mark.parametrize(("old", "new"), NEIGHBOURS)
def test_a_later_step_of_a_story_leaves_its_neighbours_current(
    real_memory: Memory, old: str, new: str
) -> None:
    [fact] = real_memory.remember(old, project=PROJECT, session="a")
    result = real_memory.remember_detailed(new, project=PROJECT, session="b")
    assert result.superseded == []
    assert real_memory.store.facts([fact])[fact].status == "current"


# How developers say a value changed without a verb of change; each against the fact it ends.
CASUAL = [
    ("The search service's log level is INFO.",
     "set LOG_LEVEL=debug on search-svc until the reindex bug is found"),
    ("The CSV import job is broken on Windows paths.",
     "csv import works again on windows paths, the backslash escaping was the problem"),
    ("The ledger service runs on Postgres 14.",
     "the postgres upgrade on the ledger service is done, it reports 16.3 now"),
    ("Wir haben beschlossen, das Monorepo aufzuteilen.",
     "die Aufteilung des Monorepos ist off, am Ende bleiben wir bei einem Repo"),
]


@pytest.mark.parametrize(("old", "new"), CASUAL)
def test_a_change_said_in_passing_is_read_as_one(old: str, new: str) -> None:
    from reasongraph_mcp.memory.updates.shift import change_cue
    assert change_cue(new) is not None


def test_a_code_name_spelled_out_in_prose_is_the_same_name() -> None:
    from reasongraph_mcp.memory.updates.shift import _named_in_both
    assert _named_in_both("The ranker's batch size is 256.", "batch_size: 1024 in ranker.yaml")
    assert not _named_in_both("The ranker's batch size is 256.", "max_retries: 5 in ranker.yaml")


def test_the_read_path_asks_only_for_a_thing_replaced() -> None:
    from reasongraph_mcp.memory.updates.shift import change_cues, replacement_cues
    for value_moved in ("csv import works again on windows", "set LOG_LEVEL=debug on search",
                        "the postgres upgrade is done", "it now finishes in 48 s"):
        assert change_cues(value_moved) and not replacement_cues(value_moved)
    for replaced in ("we replaced Redis with Valkey", "the monorepo split is off",
                     "in the end we go with one repo"):
        assert replacement_cues(replaced)


@pytest.mark.parametrize("text", [
    "SANDBOX is scratch space: nothing there is loaded by any flow.",
    "We rebuilt the index from scratch over the weekend.",
    "The migration did a CREATE OR REPLACE TABLE on the raw schema.",
    "Disk usage went from 61% to 74% after the backfill.",
])
def test_words_of_change_in_other_senses_say_nothing_was_replaced(text: str) -> None:
    from reasongraph_mcp.memory.prompt.context import _CHANGE as READ_CHANGE
    from reasongraph_mcp.memory.prompt.context import _replaced
    assert not _replaced(text) and not READ_CHANGE.search(text)


@pytest.mark.parametrize(("old", "new"), [
    ("We run 3 replicas of the checkout API.", "Checkout API p95 went 3 -> 1.2 s"),
    ("Postgres 14 runs on 2 vCPUs.", "disk usage 14 -> 20 GB"),
    ("The web app builds on Node 18 with 4 jobs.", "build time from 18 to 12 minutes"),
])
def test_a_diff_in_another_dimension_replaces_nothing(old: str, new: str) -> None:
    # the old number, but of another amount: a count of replicas is not a latency
    assert detect_update(FactView(old, frozenset()), FactView(new, frozenset()),
                         similarity=0.5) is None


def test_a_diff_in_markdown_emphasis_is_a_diff() -> None:
    assert value_arrow("The ranker's champion is v12.", "ranker champion: v12 → **v14**")
    assert value_arrow("MAX_CONN_POOL is 20 in the api.", "api MAX_CONN_POOL 20 -> 50")


@pytest.mark.parametrize(("text", "cue"), [
    ("franchement on arrête de générer les tuiles à la volée.", True),
    ("wir hören auf, die Tiles live zu rendern", True),
    ("dejamos de usar Jest en el frontend", True),
    ("we stopped hand-writing the DTOs, they come from the OpenAPI spec", True),
    ("the worker stopped responding at 03:00", False),  # a thing stopped; no one stopped it
    ("on arrête là pour aujourd'hui", False),
])
def test_a_practice_stopped_by_those_who_stop_it_says_a_change(text: str, cue: bool) -> None:
    assert bool(replacement_cues(text)) is cue
