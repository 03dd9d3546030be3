"""Specifications of the explicit-change rules (``memory.updates.explicit``) through
``detect_update``: what a coding note says outright changed, and the look-alikes that must
leave the older fact current. The sentences are not those of the evaluation sets."""

from __future__ import annotations

import pytest
from reasongraph_mcp.hooks.text import index_forms, stem
from reasongraph_mcp.memory.read.recall import content_terms
from reasongraph_mcp.memory.updates.coding import unasserted
from reasongraph_mcp.memory.updates.detect import FactView, detect_update
from reasongraph_mcp.memory.updates.explicit import other_scope, retired


def _update(old: str, new: str, similarity: float | None = None) -> str | None:
    got = detect_update(FactView(old), FactView(new), similarity=similarity)
    return got.reason if got else None


RENAMES_AND_MOVES = [
    ("The queue name is emails_high.", "emails_high was renamed to mail_priority."),
    ("Fixtures live in spec/fixtures/users.yml.", "Moved users.yml to test/data/users.yml."),
    ("The CLI entry point is bin/run.", "bin/run is now called bin/acme."),
    ("The project is called hopper.", "The project got renamed to hopper-cloud."),
    # a code name after the verb is the value, not another subject
    ("The Deno API's entrypoint is `src/server.ts`.",
     "Entrypoint is `main.ts` at the repo root now; `deno task start` was updated accordingly."),
]


@pytest.mark.parametrize(("old", "new"), RENAMES_AND_MOVES)
def test_a_rename_or_move_of_what_the_old_fact_names_supersedes_it(old: str, new: str) -> None:
    assert _update(old, new)


RETIREMENTS = [
    ("Search goes through Algolia.", "Algolia is gone; search runs on Meilisearch."),
    ("We lint with TSLint.", "Ripped TSLint out of the repo."),
    (
        "We can't use match statements because of Python 3.9 support.",
        "Python 3.9 support is dropped.",
    ),
    ("The team chose Nx for the monorepo.", "Scrapped the Nx setup, plain workspaces it is."),
]


@pytest.mark.parametrize(("old", "new"), RETIREMENTS)
def test_retiring_what_the_old_fact_uses_supersedes_it(old: str, new: str) -> None:
    assert _update(old, new)


QUANTITIES = [
    ("Uploads are limited to 10 MB.", "Uploads are limited to 50 MB now."),
    ("The cache entries live for 2 hours.", "Cache entries now live for 30 minutes."),
    ("The report job runs at 01:30.", "The report job runs at 03:00 since the DST change."),
    ("The crawler uses 4 workers.", "Crawler workers went from 4 to 12."),
    ("Our services run on Java 17.", "Our services run on Java 21 now."),
]


@pytest.mark.parametrize(("old", "new"), QUANTITIES)
def test_another_amount_of_the_same_attribute_supersedes(old: str, new: str) -> None:
    assert _update(old, new)


NOTES = [
    # how coding notes wrap what they state: code spans, a commit type, a heads-up
    ("The API binds to port `8080`.", "chore: bind the API to port `9000` now"),
    ("Builds use Xcode 15.", "fyi we're on Xcode 16 now, update your local install"),
]


@pytest.mark.parametrize(("old", "new"), NOTES)
def test_a_note_is_read_without_its_markup(old: str, new: str) -> None:
    assert _update(old, new)


SWAPS = [
    ("We bundle the frontend with webpack.", "Switched the frontend bundling to vite."),
    ("Emails are sent through Mailgun.", "Emails are sent through Postmark now."),
]


@pytest.mark.parametrize(("old", "new"), SWAPS)
def test_an_update_cue_with_another_word_in_the_slot_supersedes(old: str, new: str) -> None:
    assert _update(old, new)


LOOK_ALIKES = [
    # another thing of the same kind
    ("The eu-west-1 bucket keeps logs for 30 days.", "The us-east-2 bucket keeps logs for 7 days."),
    ("The iOS build uses Xcode 15.", "The Android build now uses Gradle 8."),
    ("Service 2 listens on port 9002.", "Service 5 listens on port 9005."),
    ("The billing worker runs 4 threads.", "The search worker runs 8 threads."),
    # another attribute of the same thing
    ("The API gateway timeout is 30 seconds.", "The API gateway retry budget is 3 attempts."),
    ("Logs are stored in S3.", "Log rotation moved to the sidecar."),
    # a second value beside the first
    ("CI runs on Python 3.11.", "CI runs on Python 3.12 as well."),
    # history: a past event is not a current state
    ("Dana fixed the cache stampede in June.", "Dana moved to the mobile team."),
    ("The old importer caused the outage in May.", "We shut down the old importer."),
    # the old value kept, with detail
    ("The docs build with MkDocs.", "The docs build with MkDocs and the material theme now."),
    # a contrast in another scope
    ("We use fakes in unit tests.", "We use a real broker in integration tests, not fakes."),
    # a negated ending, a part swapped inside a kind the old fact only names, a request
    ("The importer keeps retrying the upload until the proxy answers.",
     "The timeout isn't what stops the importer."),
    ("The board feeds its RTC crystal from VBAT.",
     "rev D replaced the Abracon AB26T crystal with the Epson FC-135."),
    ("Add the logs folder to .gitignore, people keep committing logs/.",
     "I also removed the logs/ folder that was committed yesterday."),
    # a co-owner, history placed in the past, another attribute switched
    ("Lena maintains the navigation package.",
     "Kwame is now co-maintainer of the navigation package with Lena."),
    ("The app is on Symfony 7.", "We upgraded from Symfony 5 to 6 last spring with Rector."),
    ("The game targets Godot 4.2.",
     "Switched the game's default renderer to Vulkan in the settings."),
    # another named thing: a code name or a named service at the start of each note
    ("`orders-api` runs on Python 3.11.",
     "`inventory-worker` runs on Python 3.9 still — blocked on the old kafka wheel."),
    ("Helm values for `gateway`: replicaCount 6.",
     "Helm values for `gateway-admin`: replicaCount 2."),
    ("El servicio de notificaciones usa RabbitMQ.",
     "El servicio de facturación usa SQS en vez de RabbitMQ."),
    # one case the old note does not state, a limit counted separately
    ("Game targets 60fps.", "In handheld mode on Switch the game targets 30fps."),
    ("Integration tests run against a MySQL 8 container.",
     "On the macOS ARM runners the integration tests use MariaDB instead of the MySQL 8 "
     "container."),
    ("Feature `dark_mode_v2` is enabled.",
     "`dark_mode_v2` is disabled on Android 8 and below because of the WebView bug."),
    ("Public REST API rate limit: 1000 req/min per key.",
     "GraphQL endpoint rate limit: 200 req/min per key, counted separately from REST."),
    # a request nobody acted on yet
    ("Max upload size is 50MB.",
     "PM wants the max upload size raised to 500MB for enterprise; not started."),
    # "and", "as", "am" are words, not amounts ("an d" is no day)
    ("And locally run ./gradlew test -x detekt, detekt is slow and CI runs it anyway.",
     "./gradlew test -x detekt: 318 tests passed in 41 s."),
    # a plan, a question, a condition
    ("The default branch is master.", "We will rename master to main after the freeze."),
    ("Uploads are limited to 10 MB.", "Should uploads be limited to 50 MB?"),
    ("We deploy with Capistrano.", "If the Kamal trial works, we switch deploys to Kamal."),
]


@pytest.mark.parametrize(("old", "new"), LOOK_ALIKES)
def test_look_alikes_leave_the_old_fact_current(old: str, new: str) -> None:
    assert _update(old, new) is None


def test_a_cueless_amount_change_needs_a_close_paraphrase() -> None:
    old, new = "The nightly export takes 40 minutes.", "The nightly export takes 15 minutes."
    assert _update(old, new, similarity=0.9)
    assert _update(old, new, similarity=0.3) is None


def test_scopes_name_parallel_things_but_a_place_is_a_value() -> None:
    assert other_scope("The EU cluster runs 1.28.", "Upgraded the us-east-1 cluster to 1.29.")
    assert other_scope("LOG_LEVEL is info in prod.", "LOG_LEVEL is debug in staging.")
    assert other_scope("Staging runs 3 pods.", "Stage now runs 5 pods.") is None  # synonyms
    assert other_scope("The bucket is in us-east-1.", "The bucket moved to eu-west-1.") is None


def test_stems_and_index_forms_agree_on_a_final_y() -> None:
    assert stem("cookie") == stem("cookies") and stem("policy") == stem("policies")
    # Porter indexes "deploys" as "deploi": the rarity lookup must find it.
    assert "deploi" in index_forms("deploys")


def test_two_letter_acronyms_are_search_terms() -> None:
    assert content_terms("CI is green on the DB branch") == ["ci", "green", "db", "branch"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Checkpoints are written as step_0006140.pt at every save.",
         "Scalars are logged every 50 steps instead of every step."),
        ("Most of the transfer cost comes from pulling shards over the public internet.",
         "Shards now come over the cluster's own link instead of the public internet."),
    ],
)
def test_a_manner_compared_with_instead_of_is_no_choice_replaced(old: str, new: str) -> None:
    """An explanation compares how something is done ("every 50 steps instead of every
    step"); a replaced choice is named ("Postmark instead of Mailgun")."""
    assert _update(old, new) is None


def test_a_named_choice_replaced_with_instead_of_supersedes() -> None:
    assert _update("We send the receipts through Mailgun.",
                   "We send the receipts through Postmark instead of Mailgun.") is not None


@pytest.mark.parametrize(("old", "new"), [
    ("numpy==1.26.4 in requirements/base.txt, 2.x breaks the C extension build.",
     "the C extension builds on numpy 2.1 now, requirements/base.txt updated"),
    ("Pinned `lodash@4.17.20` in the widget package.",
     "Bumped lodash to 4.17.21 in the widget package."),
])
def test_a_pinned_version_and_a_version_said_in_words_name_one_thing(old: str, new: str) -> None:
    assert _update(old, new, similarity=0.7)


def test_a_pinned_version_of_another_package_changes_nothing() -> None:
    assert _update("numpy==1.26.4 in requirements/base.txt.",
                   "scipy is now 1.14.1 in requirements/base.txt.", similarity=0.7) is None


def test_the_same_key_in_another_config_file_is_another_setting() -> None:
    old = "config/profiles/desktop.toml sets `shadow_cascades = 4` for the desktop builds."
    assert _update(old, "config/profiles/console.toml: `shadow_cascades = 2`, measured on the "
                        "devkit.", similarity=0.8) is None
    # the same file, or a move of the setting, still changes it
    assert _update(old, "config/profiles/desktop.toml: `shadow_cascades` is now 3.",
                   similarity=0.8)


def test_a_thing_retired_is_named_by_the_words_of_an_old_identifier() -> None:
    """"... and the offset helper is deleted" retires "The helper is paginate_offset(...)":
    the thing is named by "offset" inside the old fact's identifier."""
    old = ("The helper is paginate_offset(query, page, page_size) in app/api/pagination.py so "
           "other list endpoints can reuse it.")
    new = ("app/api/pagination.py now exposes paginate_keyset() and the offset helper is "
           "deleted; every list endpoint should use keyset pagination from here on.")
    assert retired(old, new)
    assert not retired(old, "The build is green and the release notes are published.")


@pytest.mark.parametrize(("text", "why"), [
    ("I added offset pagination: the endpoint accepts ?page=1&page_size=50.", None),
    ("Is the cache the problem?", "question"),
    ("the offset helper is deleted; every list endpoint should use keyset pagination from "
     "here on.", None),  # done, then a rule
    ("we should move the queue to SQS; it would save us a node.", "plan"),
])
def test_a_query_string_asks_nothing_and_a_plan_is_read_in_the_first_clause(
    text: str, why: str | None
) -> None:
    assert unasserted(text) == why
