"""Two notes about two parts of one kind are not an update (``memory.updates.parts``), a rule
that ends is lifted whatever words end it (``coding.constraint_lifted``), and a change said
in the words of reversal, update or handover in any of the cue languages counts
(``shift.CHANGE``).

The sentences are this file's own, of the kinds coding agents write."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory.updates.detect import FactView, detect_update
from reasongraph_mcp.memory.updates.parts import other_part, parts


def test_parts_are_read_by_kind_in_several_spellings() -> None:
    assert parts("services/ingest builds with Bazel") == {"services": frozenset({"ingest"})}
    assert parts("the search API and the Ranking-Worker")["worker"] == {"ranking"}
    assert parts("Der Bezahldienst nutzt Kafka") == {"service": frozenset({"bezahl"})}
    assert parts("el servicio de pagos usa Kafka") == {"service": frozenset({"pagos"})}
    assert parts("MAX_UPLOAD_MB=20 in .env") == {"key": frozenset({"max_upload_mb"})}
    # the place a change goes to is its value, not the part spoken of
    assert parts("search moved to its own OpenSearch cluster") == {}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("apps/mobile builds with Expo SDK 50", "apps/kiosk now builds with Expo SDK 51"),
        ("request timeout 20s for the partner API", "raised the timeout to 60s on the admin API"),
        ("Der Versanddienst schreibt nach Postgres.",
         "Der Bezahldienst schreibt jetzt nach MySQL statt nach Postgres."),
        ("Le service de paiement tourne sur Heroku.",
         "On a migré le service de recherche de Heroku vers Render."),
        ("CACHE_TTL_S=300 on the edge", "CACHE_MAX_ITEMS changed from 500 to 2000 on the edge"),
    ],
)
def test_another_part_of_the_same_kind_is_not_updated(old: str, new: str, similarity) -> None:  # type: ignore[no-untyped-def]
    assert other_part(old, new) is not None
    assert detect_update(FactView(old), FactView(new), similarity=similarity(old, new)) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a rename names both
        ("the ranking service reads RANK_MODEL_PATH",
         "renamed RANK_MODEL_PATH to RANKER_MODEL_URI"),
        # one part, two spellings
        ("the S3 bucket for exports is versioned", "the exports bucket moved to eu-central-1"),
        ("Websocket gateway drops idle clients after 60s", "ws-gateway idle cutoff is 120s now"),
    ],
)
def test_one_part_named_twice_is_one_part(old: str, new: str) -> None:
    assert other_part(old, new) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("code freeze on release/3.x until the audit closes", "audit closed, freeze over"),
        ("nobody may call the billing sandbox from CI until legal signs off",
         "legal signed off, CI is cleared for the billing sandbox"),
        ("the reports table is read-only during the backfill",
         "backfill done, writes to the reports table are re-enabled"),
        ("at most 2 parallel e2e jobs on the shared runner",
         "the shared runner limit was removed, e2e jobs can run in parallel freely"),
        # lifted in other words, and in the other languages
        ("the staging runners are blocked from reaching the public npm registry",
         "staging runners are open to the public npm registry now"),
        ("Während der Inventur dürfen keine Preisänderungen in den Shop.",
         "Die Inventur ist vorbei, die Sperre für Preisänderungen im Shop ist aufgehoben."),
        ("Tijdens de audit mogen er geen schema-wijzigingen naar de database.",
         "De audit is klaar, de blokkade op schema-wijzigingen voor de database is opgeheven."),
    ],
)
def test_a_rule_that_ends_is_lifted(old: str, new: str, similarity) -> None:  # type: ignore[no-untyped-def]
    update = detect_update(FactView(old), FactView(new), similarity=similarity(old, new))
    assert update is not None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("decided: the admin UI stays server-rendered",
         "admin UI decision reversed, it goes back to a client-side SPA"),
        ("Die Staging-Datenbank läuft mit PostgreSQL 14.",
         "Staging-Datenbank auf PostgreSQL 16 aktualisiert."),
        ("El límite de peticiones de la API pública es 100 por minuto.",
         "Aumentamos el límite de peticiones de la API pública a 300 por minuto."),
        ("La décision : les exports restent en CSV.",
         "La décision CSV est annulée, les exports passent en Parquet."),
    ],
)
def test_reversal_update_and_increase_words_state_a_change(old: str, new: str, similarity) -> None:  # type: ignore[no-untyped-def]
    update = detect_update(FactView(old), FactView(new), similarity=similarity(old, new))
    assert update is not None


def test_updating_a_document_is_no_new_value(similarity) -> None:  # type: ignore[no-untyped-def]
    old = "Nightly exports land in `EXPORTS.DAILY` via the LOAD_WH warehouse."
    new = "Updated the runbook: LOAD_WH loads EXPORTS.DAILY nightly, files come from the SFTP drop."
    assert detect_update(FactView(old), FactView(new), similarity=similarity(old, new)) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a pin is a setting that holds, not an event; its operator names no other thing
        ("ansible pinned to ~> 2.14 in requirements.yml",
         "requirements.yml: ansible >= 2.16 as of this sprint, needed for the new modules"),
        # "por causa de" gives a reason; it states no cause -> effect
        ("O tamanho máximo do pool de conexões do Postgres é 20.",
         "Aumentamos o tamanho máximo do pool de conexões do Postgres para 50 por causa do pico "
         "de acessos."),
    ],
)
def test_a_pin_and_a_reason_do_not_hide_a_change(old: str, new: str, similarity) -> None:  # type: ignore[no-untyped-def]
    update = detect_update(FactView(old), FactView(new), similarity=similarity(old, new))
    assert update is not None


def test_versions_of_two_named_things_stay_two_slots() -> None:
    from reasongraph_mcp.memory.updates.explicit import amounts_comparable

    assert not amounts_comparable("Redis 6.2 backs the session store",
                                  "Kubernetes 1.28 now runs the session store")
    assert amounts_comparable("terraform pinned to ~> 1.3", "terraform >= 1.6 as of today")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The iOS target is IPHONEOS_DEPLOYMENT_TARGET 15.0.",
         "IPHONEOS_DEPLOYMENT_TARGET is 16.4 now, the widget extension needed it"),
        ("uvicorn runs with --workers 2 in the container", "container CMD now passes --workers 6"),
        ("pool_size = 10 for the reporting DB", "reporting DB: pool_size = 25 after the load test"),
        ("we're pinned to numpy==1.26.4 for the old scipy",
         "moved numpy up to 2.1.3, scipy is fine"),
    ],
)
def test_the_same_key_with_another_value_is_an_update(old: str, new: str) -> None:
    update = detect_update(FactView(old), FactView(new))
    assert update is not None and update.kind == "value"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # two values side by side, or the old one told as history
        ("pool_size = 10 for the reporting DB", "pool_size = 10 stays, max_overflow = 5 added"),
        ("uvicorn runs with --workers 2", "we went from --workers 2 to --workers 6 and back"),
        # a heading before a colon is no key
        ("Cache TTL for product pages: 300s.", "Cache TTL for search pages: 60s."),
        # another kind of value
        ("LOG_LEVEL is `info` in prod", "LOG_LEVEL 3 means debug in the legacy agent"),
    ],
)
def test_a_key_repeated_or_a_heading_is_no_update(old: str, new: str) -> None:
    from reasongraph_mcp.memory.updates.keyed import keyed_value

    assert keyed_value(old, new) is None


def test_a_name_that_only_qualifies_a_retired_thing_retires_nothing() -> None:
    old = ("The API client reads the active org from useOrgStore (Zustand) and sets an X-Org "
           "header on every request; switching orgs updates the store.")
    new = "The Zustand table-settings store and its sessionStorage entry are removed."
    assert detect_update(FactView(old), FactView(new)) is None
    # the thing itself, by its name alone, is still retired
    gone = FactView("Zustand is removed; state lives in Redux Toolkit now.")
    assert detect_update(FactView("Client state lives in Zustand stores."), gone) is not None


def test_a_name_ending_in_digits_is_no_key_and_value() -> None:
    from reasongraph_mcp.memory.updates.keyed import keyed_value

    assert keyed_value("The parameter group is orbit-pg15 on the primary.",
                       "Parameter group orbit-pg16 mirrors the prod settings.") is None
