"""Selection rules of the injected block (memory/context.py), on a real memory file with the
packaged MiniLM: exchanges go in through the inbox exactly as the Stop hook leaves them and
come out through ``Memory.context_for``, the call the prompt hook's server makes."""

from __future__ import annotations

import dataclasses
import re
from functools import partial

import captured
import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.extract import standing
from reasongraph_mcp.memory.extract.kinds import is_task
from reasongraph_mcp.memory.prompt import context, exchanges, rules
from reasongraph_mcp.memory.prompt.config import CONTEXT
from reasongraph_mcp.memory.read import gloss
from reasongraph_mcp.memory.storage.filters import Scope

PROJECT = "/home/dev/payrail"
OTHER = "/home/dev/elsewhere"

exchange = partial(captured.exchange, project=PROJECT)  # one exchange of this project


def block(mem: Memory, prompt: str, budget: int = 2000, project: str = PROJECT) -> str:
    mem.drain()
    return mem.context_for(
        prompt, project=project, session="probe", budget=budget, now="2026-03-10T09:00:00Z",
        wait_for_model=True,
    ).text


NOISE = [
    ("Add a dark mode toggle to the settings page.",
     "I added a ThemeToggle component that flips CSS variables and remembers the choice."),
    ("The README still mentions the old install script.",
     "I rewrote the setup section around make dev and removed the stale script reference."),
    ("Rename the cust variables in billing to customer.",
     "Renamed them in twelve files; the tests pass unchanged."),
]


def with_noise(mem: Memory) -> None:
    for i, (user, assistant) in enumerate(NOISE):
        exchange(mem, f"n{i}", f"2026-01-0{i + 2}T10:00:00Z", user, assistant)


def test_an_exchange_joined_only_by_a_rare_identifier_is_recalled(
    real_memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "s1", "2026-01-16T09:00:00Z",
             "The nightly settlement job failed: OutOfMemoryError, GC overhead limit exceeded.",
             "It is settle_batches: one task of the join handles 38 GB while the median is "
             "200 MB. I raised executor memory to 8g for tonight, but that means skew.")
    exchange(real_memory, "s2", "2026-01-24T09:00:00Z",
             "Found the reason?",
             "Yes. A third of the rows carry merchant_ref = 0 as a placeholder, so "
             "jobs/settle_batches.py now drops them first and salts the two hottest merchants.")
    prompt = ("The nightly settlement job is blowing up with GC overhead limit exceeded again "
              "on the March backfill.")
    monkeypatch.setattr(context, "CONTEXT", dataclasses.replace(context.CONTEXT, max_bridged=0))
    assert "merchant_ref = 0" not in block(real_memory, prompt)  # not reached from the prompt
    monkeypatch.undo()
    text = block(real_memory, prompt)
    assert "merchant_ref = 0" in text
    assert "linked by settle_batches" in text
    assert "ThemeToggle" not in text


def test_a_follow_up_turn_is_shown_with_the_turn_it_answers(real_memory: Memory) -> None:
    with_noise(real_memory)
    exchange(real_memory, "s7", "2026-01-07T10:00:00Z",
             "How should the raw card events be laid out in the bucket?",
             "Options: hourly partitions give about 200k small files a month, which makes LIST "
             "calls crawl; daily partitions on event_date keep files near 256 MB.")
    exchange(real_memory, "s7", "2026-01-07T10:05:00Z",
             "OK, go with daily.",
             "Done: land_events writes with partitionBy('event_date') into 160 files per day.")
    exchange(real_memory, "s8", "2026-01-08T10:00:00Z",
             "Add a CSV export to the payouts page.",
             "The payouts page now has an Export CSV button that streams the current filter.")
    exchange(real_memory, "s8", "2026-01-08T10:30:00Z",
             "Write a migration that adds a reason column to refunds.",
             "Added migration 20260108_refund_reason with a nullable reason text column.")
    text = block(real_memory, "Why did land_events end up with daily partitioning? What did "
                              "we decide back then?")
    assert "partitionBy('event_date')" in text
    assert "200k small files" in text
    # The follow-up ("OK, go with daily.") links fully to the turn it answers, in both
    # directions; a turn of another session is no neighbour at all.
    first, second = (r[0] for r in real_memory.store.conn.execute(
        "SELECT id FROM inbox WHERE session = 's7' ORDER BY id"))
    options = exchanges.Exchange(f"inbox:{first}", rel=1.0)
    answer = exchanges.Exchange(f"inbox:{second}", rel=1.0)
    back = exchanges.neighbours(real_memory.store, [answer], set())
    assert {k: w for k, (w, _src) in back.items()} == {options.key: 1.0}
    ahead = exchanges.neighbours(real_memory.store, [options], set())
    assert {k: w for k, (w, _src) in ahead.items()} == {answer.key: 1.0}
    export, migration = (r[0] for r in real_memory.store.conn.execute(
        "SELECT id FROM inbox WHERE session = 's8' ORDER BY id"))
    loose = exchanges.neighbours(real_memory.store, [exchanges.Exchange(f"inbox:{export}")], set())
    assert {k: w for k, (w, _src) in loose.items()} == {f"inbox:{migration}": 0.5}


def test_standing_rules_keep_their_share_when_exchanges_fill_the_budget(
    real_memory: Memory,
) -> None:
    exchange(real_memory, "r1", "2026-01-06T10:00:00Z",
             "Please don't use default exports anywhere. Named exports only; they make refactors "
             "sane.",
             "Got it. I converted 41 files and enabled the import/no-default-export lint rule.")
    for i in range(6):
        exchange(real_memory, f"c{i}", f"2026-01-{10 + i}T10:00:00Z",
                 f"The payment badge on screen {i} shows the wrong colour for refunds.",
                 f"PaymentBadge on screen {i} read the status colour from a stale map; I moved "
                 f"the colours to src/theme/status.ts and added a story for refunded payments.")
    budget = 900
    text = block(real_memory, "Build a PaymentBadge variant for chargebacks, with a story and a "
                              "unit test.", budget=budget)
    # The block may stretch to twice the budget to hold the best four exchanges whole;
    # past that the six exchanges compete for it, and the rules keep their place first.
    assert len(text) <= 2 * budget and text.count("PaymentBadge on screen") < 6
    assert "Named exports only" in text
    assert text.index(rules.RULES_HEAD) < text.index("PaymentBadge")


def test_a_rule_said_in_passing_comes_with_how_it_was_applied_before_the_task_it_came_with(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "p1", "2026-01-15T10:00:00Z",
             "The ledger service runs out of Postgres connections when it scales to 8 pods. Fix "
             "the pool sizing please. Unrelated, but for the future: anything that tests DB code "
             "should run against a real Postgres. I don't want go-sqlmock anywhere in this repo. "
             "I'm retiring the old mock-based specs one by one.",
             "The pool now caps at pool_max_conns=10, so 8 pods stay at most 80 connections, "
             "under the budget of 200 on the instance. On the tests: DB-touching tests go in "
             "*_integration_test.go files with //go:build integration, using the "
             "testcontainers-go postgres module, with migrations applied in TestMain.")
    text = block(real_memory, "Add a repository method that reserves ledger credit for an "
                              "invoice, failing cleanly when there is not enough. Cover it with "
                              "tests.")
    section = text.split(rules.RULES_HEAD, 1)[1].split("\n[", 1)[0]
    # The rule is not ended by what its own conversation goes on to say ("retiring ...").
    assert "go-sqlmock anywhere" in section and "anything that tests DB code" in section
    assert "//go:build integration" in section  # how it was applied
    if "Fix the pool sizing" in section:  # the task it came with, if anything, comes last
        assert section.index("//go:build") < section.index("Fix the pool sizing")


def test_a_rule_that_points_back_keeps_what_the_user_said_before_it(real_memory: Memory) -> None:
    """"keep it that way from now on" is the rule; its words are in the sentences before it,
    which otherwise read as the task the rule came with and come last."""
    with_noise(real_memory)
    exchange(real_memory, "w1", "2026-02-03T10:00:00Z",
             "works, but we wrap every money amount in the Cents value class here. plain ints "
             "go through Cents.of(...) at the edges. redo that one and keep it that way from "
             "now on",
             "Done: RefundService now takes Cents, and the controller converts with Cents.of.")
    exchange(real_memory, "w2", "2026-02-10T10:00:00Z",
             "The payout CSV has a flaky spec. Also pls stop using Timecop in specs, use the "
             "travel_to helper that Rails ships, and freeze time per example not per file.",
             "The spec froze time for the whole file with Timecop.freeze in a before(:all), so "
             "the second example saw a stale clock and the payout cutoff moved; every spec now "
             "uses travel_to inside the example and the Timecop gem is gone from the Gemfile; "
             "I converted the 14 files that used it and ran the suite 30 times: 0 failures.")
    text = block(real_memory, "Add a late fee to overdue invoices and cover it with tests.",
                 budget=1100)
    section = text.split(rules.RULES_HEAD, 1)[1].split("\n[", 1)[0]
    assert "keep it that way" in section and "Cents.of(...)" in section


def test_a_plan_or_a_condition_changes_nothing(real_memory: Memory) -> None:
    """"If it outgrows one node, it moves to Citus" says what would happen, not what changed:
    the earlier decision on the same table is not marked as changed later."""
    with_noise(real_memory)
    exchange(real_memory, "p1", "2026-01-06T10:00:00Z",
             "Where should the audit_events table live?",
             "I put audit_events in the main Postgres (migration 0042_audit_events.sql), "
             "partitioned by month on created_at; the retention job drops partitions older "
             "than 13 months.")
    exchange(real_memory, "p2", "2026-01-28T10:00:00Z",
             "audit_events queries got slow for the big tenants.",
             "I added a (tenant_id, created_at DESC) index on every audit_events partition; the "
             "tenant timeline query takes 8 ms instead of 900 ms. If audit_events outgrows "
             "one node, it moves to Citus with tenant_id as the distribution column.")
    text = block(real_memory, "How is audit_events stored and how long do we keep its rows?")
    assert "0042_audit_events.sql" in text
    assert "changed later" not in text and "[superseded?]" not in text


def test_a_correction_s_short_sentences_are_its_rules(real_memory: Memory) -> None:
    """"mocktail, no mockito." is a whole rule in three words: a rule turn's short sentences
    reach the rules block of a later task, as its longer ones do."""
    with_noise(real_memory)
    exchange(real_memory, "t1", "2026-01-14T10:00:00Z",
             "mocktail, no mockito. nada de build_runner para mocks, eso lo tenemos prohibido "
             "en tests",
             "Entendido, reescrito con mocktail (sin generación de código): class MockTileStore "
             "extends Mock implements TileStore {}.")
    text = block(real_memory, "Add a saved places screen that lists the user's bookmarks, with "
                              "state and tests.")
    assert "mocktail, no mockito." in text
    assert text.index(rules.RULES_HEAD) < text.index("mocktail, no mockito.")


def test_a_prohibition_with_please_after_it_and_a_tool_used_everywhere_are_rules() -> None:
    assert standing.is_rule("no StateNotifier pls.")
    assert standing.is_rule("we're on riverpod_generator everywhere, @riverpod classes only.")
    assert standing.is_rule("We use structlog everywhere, so log through it.")
    assert not standing.is_rule("We looked everywhere for the leak.")
    assert not standing.is_rule("no worries, thanks")


def test_a_convention_in_the_first_person_is_a_rule() -> None:
    assert standing.is_rule("works, but btw we dont go through ActiveJob in this app.")
    assert standing.is_rule("We never call the payment provider from a controller in this repo.")
    assert not standing.is_rule("We don't have integration tests in this repo yet.")
    assert not standing.is_rule("We always had flaky specs in this app.")


@pytest.mark.parametrize(("text", "rule"), [
    ("we always stub HTTP clients with Req.Test", True),
    ("vi stubbar alltid HTTP-klienter med Req.Test", True),
    ("wir deployen nie freitags", True),
    ("usamos siempre pnpm en el monorepo", True),
    ("dont put tags on resources, the provider has default_tags for that", True),
    ("we always had flaky tests on CI", False),  # what the team had, not what it does
    ("wir haben immer Ärger mit dem Build", False),
    ("vi har alltid haft problem med bygget", False),
    ("on a toujours eu ce souci", False),
    ("we only found it on Monday", False),
    ("it always fails on Monday", False),  # an observation: no one does it
])
def test_a_habit_of_the_team_in_the_first_person_is_a_rule(text: str, rule: bool) -> None:
    assert standing.is_rule(text) is rule


def test_a_convention_scoped_to_an_area_as_an_imperative_is_a_rule() -> None:
    assert standing.is_rule("In specs, build records with the factories, not with create!.")
    assert standing.is_rule("For migrations, always write a reversible down step.")
    assert standing.is_rule("Inside the API layer, wrap every error in a ProblemDetail.")
    assert not standing.is_rule("In production, the API returns 500 on bad input.")
    assert not standing.is_rule("In the morning, check the dashboard for failed runs.")


@pytest.mark.parametrize(("text", "rule"), [
    ("regla para todo el repo: en los args solo ids", True),
    ("y en los tests usa perform_job, no llames perform/1 a mano", True),
    ("non non, pas de coroutines stp.", True),
    ("on a tout migré sur UniTask, je veux plus voir de StartCoroutine dans le projet.", True),
    ("et toujours annuler avec destroyCancellationToken", True),
    ("plus aucun texte en dur dans l'UI", True),
    ("Keine Mocks mehr in den Tests, bitte.", True),
    ("Geen console.log meer in productiecode.", True),
    ("nada de string solta no HEEx", True),
    ("Le build échoue toujours sur la CI.", False),  # "always" inside a clause: a fact
    ("El test siempre falla en CI.", False),
    ("Wir haben kein Budget mehr dieses Quartal.", False),  # "no X left", not "no more X"
    ("Le popup affiche plus de 10 éléments.", False),
    ("Od teraz nie używaj mocków w testach.", True),
    ("Nepoužívej mockk, fakes piš ručně.", True),
    ("Använd aldrig mocks i testerna.", True),
    ("Mulai sekarang semua worker pakai max_attempts 5.", True),
    ("Впредь не используй моки в тестах.", True),
    ("앞으로는 목 객체 쓰지 마.", True),
    ("Testy przechodzą na CI.", False),
    ("Worker berjalan di server baru.", False),
])
def test_rules_are_read_in_the_other_languages(text: str, rule: bool) -> None:
    assert standing.is_rule(text) is rule


def test_a_constraint_the_assistant_stated_binds_a_later_task(real_memory: Memory) -> None:
    with_noise(real_memory)
    exchange(real_memory, "b1", "2026-01-13T10:00:00Z",
             "The refund page is blank on the warehouse tablets.",
             "Their tablets are locked to iOS 15.1, whose Safari lacks structuredClone, so I "
             "replaced it with a small helper. Since those tablets are our main client, Safari "
             "15.1 is our floor: no structuredClone, no CSS :has(), no container queries.")
    exchange(real_memory, "b2", "2026-01-20T10:00:00Z",
             "Add checkboxes to the refunds table for bulk actions.",
             "Selected ids live in a Set in the table state and a bulk bar slides in.")
    text = block(real_memory, "Let's highlight a refunds row when its checkbox is ticked using "
                              "tr:has(input:checked). No JS needed.")
    section = text.split(rules.RULES_HEAD, 1)[1].split("\n[", 1)[0]  # the rules section
    assert re.search(r"#\d+ \(2026-01-13 b1\) .*Safari 15\.1 is our floor", section)


AIRFLOW = [
    ("Upgrade the Airflow providers package.",
     "Airflow providers now pin apache-airflow-providers-amazon 8.16 in constraints.txt."),
    ("The Airflow scheduler restarts every night.",
     "The Airflow scheduler ran out of memory parsing DAGs; I raised its limit to 2 GiB."),
    ("Where do Airflow connections live in prod?",
     "Airflow reads connections from Secrets Manager under airflow/connections."),
    ("Give the Airflow tasks in the ingest DAG clearer names.",
     "Airflow task ids are now fetch_files, parse_rows and load_rows instead of t1 to t3."),
    ("Why does the Airflow webserver show a stale DAG?",
     "The Airflow webserver caches serialized DAGs for 30 seconds; a refresh fixes it."),
    ("Add Slack alerts for failed Airflow runs.",
     "An on_failure_callback posts failed Airflow runs to the #data-alerts channel."),
]


def test_one_common_entity_does_not_make_two_exchanges_one_subject(real_memory: Memory) -> None:
    for i, (user, assistant) in enumerate(AIRFLOW):  # a common entity of this project
        exchange(real_memory, f"a{i}", f"2026-01-0{1 + i}T10:00:00Z", user, assistant)
    exchange(real_memory, "d1", "2026-01-12T10:00:00Z",
             "How should we lay out the settlement files in the lake?",
             "Settlement files are partitioned by settle_date in Airflow's landing job, because "
             "hourly partitions made thousands of tiny files.")
    exchange(real_memory, "d2", "2026-02-02T10:00:00Z",
             "The Airflow sensor on the SFTP drop keeps a worker slot busy all day.",
             "I switched the SFTP sensor to reschedule mode instead of poke, every 300 seconds.")
    text = block(real_memory, "How do the settlement files land in the lake by settle_date, "
                              "and how does the Airflow sensor on the SFTP drop run now?")
    assert "settle_date" in text and "reschedule mode" in text
    assert "changed later" not in text
    assert "[superseded?]" not in text


def test_a_change_to_something_else_on_the_same_topic_marks_nothing(real_memory: Memory) -> None:
    with_noise(real_memory)
    exchange(real_memory, "a1", "2026-01-06T10:00:00Z",
             "Install node_exporter on the app hosts so we get host metrics.",
             "I added aws_security_group_rule.app_node_exporter in modules/app/sg.tf: ingress "
             "tcp 9100 on the app security group with the monitoring security group as source.")
    exchange(real_memory, "a2", "2026-01-28T10:00:00Z",
             "Lock down the load balancer so it only accepts traffic from the CDN.",
             "In modules/alb/sg.tf the public ALB's security group allowed 443 from 0.0.0.0/0. "
             "I replaced it with an ingress rule on 443 whose source is the CDN's managed "
             "prefix list, so the security group rule quota is nearly used up.")
    text = block(real_memory, "I want to strip the app hosts' security group down to HTTPS from "
                              "the load balancer. Which ingress rules are there now?")
    assert "app_node_exporter" in text and "prefix list" in text
    assert "changed later" not in text and "[superseded?]" not in text


def test_words_of_change_in_command_output_change_nothing(real_memory: Memory) -> None:
    """"Rows Removed by Filter" in a query plan is what Postgres printed, not a change the
    later exchange made to the decision that named the same columns."""
    with_noise(real_memory)
    exchange(real_memory, "k1", "2026-01-20T10:00:00Z",
             "Partition 3 of parcel.events gets most of the traffic, spread it better.",
             "The producer keyed every record by depot_id.\n```go\n"
             "// internal/events/producer.go\n"
             "func keyFor(ev *eventsv2.ParcelEvent) []byte {\n"
             "    // was: []byte(ev.DepotId)\n    return []byte(ev.RouteId)\n}\n```\n"
             "So one route's events stay together on one partition.")
    exchange(real_memory, "k2", "2026-02-24T10:00:00Z",
             "ListParcels is slow for the big depots, add an index.",
             "```\nEXPLAIN ANALYZE SELECT id, route_id FROM parcels WHERE depot_id = 'BER-01' "
             "ORDER BY updated_at DESC\n  ->  Bitmap Heap Scan on parcels\n"
             "        Filter: (status = ANY (...))\n        Rows Removed by Filter: 2841977\n```\n"
             "It scans every row of the depot. I added an index on (depot_id, status, "
             "updated_at DESC) and the query takes 3 ms.")
    text = block(real_memory, "How are the parcel events keyed on the partitions by the "
                              "producer, and how does ListParcels find a depot's parcels?")
    assert "keyFor" in text and "(depot_id, status" in text
    assert "changed later" not in text and "[superseded?]" not in text


def test_a_later_exchange_that_replaces_the_same_thing_still_marks_it(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "p1", "2026-01-06T10:00:00Z",
             "We need paging on the payouts list endpoint.",
             "I added offset paging with page and page_size through paginate_offset in "
             "app/api/paging.py, so every list endpoint can reuse it.")
    exchange(real_memory, "p2", "2026-02-17T10:00:00Z",
             "The payouts list times out deep into the list and rows show up twice.",
             "I replaced offset paging in app/api/paging.py with keyset paging: list endpoints "
             "now take cursor and limit and return next_cursor over (created_at, id).")
    text = block(real_memory, "I'm adding a refunds list endpoint. How should paging work so it "
                              "matches the other list endpoints?")
    assert "next_cursor" in text
    for line in text.splitlines():
        if "paginate_offset" in line:
            assert "superseded" in line


def test_a_change_told_in_the_write_paths_words_or_another_language_marks_it(
    real_memory: Memory,
) -> None:
    """The read path reads a change in the write path's vocabulary: "moved ... over" with no
    "to", "ported", and the same verbs in German; not a value that merely moved."""
    with_noise(real_memory)
    exchange(real_memory, "c1", "2026-01-12T10:00:00Z",
             "Set up the alert worker on the buoy readings.",
             "The alert worker is a push consumer kelp-alerts on buoy.readings in "
             "internal/alerts/consumer.go, queue group alerts.")
    exchange(real_memory, "c2", "2026-02-10T10:00:00Z",
             "Der Cluster ist umgezogen, der Worker fehlt noch.",
             "Ich habe den alert worker in internal/alerts/consumer.go auf den Pull-Consumer "
             "alerts-v2 umgestellt, Filter telemetry.v2.*.reading.")
    text = block(real_memory, "Which consumer does the alert worker in consumer.go use?")
    assert "alerts-v2" in text
    for line in text.splitlines():
        if "kelp-alerts" in line:
            assert "superseded" in line


def test_links_never_start_from_nothing_and_never_leave_the_project(
    real_memory: Memory,
) -> None:
    exchange(real_memory, "x1", "2026-01-10T10:00:00Z",
             "The settle_batches job in the other repo runs out of memory.",
             "jobs/settle_batches.py there now filters merchant_ref = 0 first.", project=OTHER)
    with_noise(real_memory)
    exchange(real_memory, "s1", "2026-01-16T09:00:00Z",
             "settle_batches failed last night with OutOfMemoryError.",
             "One join task handles 38 GB; I raised executor memory to 8g for tonight.")
    assert block(real_memory, "How do I make my zsh prompt show the current git branch?") == ""
    text = block(real_memory, "settle_batches is running out of memory again.")
    assert "settle_batches" in text
    assert "merchant_ref" not in text  # said in another project


def test_identifiers_that_link_and_words_that_do_not() -> None:
    found = exchanges.identifiers(
        "Their cron runs on edge-07's host, RS256 JWTs via PyJWT, the key in "
        "airflow/connections/metocean_default, Oceanlink's feed, 40 GB at 15.1 UTC.")
    assert found["edge_07"] == 1.0
    assert found["metocean_default"] == 1.0  # a path component
    assert found["pyjwt"] == 1.0
    assert found["jwt"] == 0.5 and found["oceanlink"] == 0.5
    assert not {"gb", "utc", "15.1", "their", "40"} & set(found)
    assert exchanges.identifiers("the org-level secret")["org_level"] == 0.5
    # a scheme path (Godot's user://, s3://) and a port are things two exchanges can share
    assert "user://saves" in exchanges.identifiers("everything under user://saves/ is synced")
    assert exchanges.identifiers("node_exporter listens on :9100")["9100"] == 1.0
    assert exchanges.identifiers("scrape port 9100 on tcp 443")["9100"] == 1.0
    assert not exchanges.identifiers("between 01:50 and 03:10, a 1:100 ratio")  # times
    assert not exchanges.identifiers("one string, e.g. the tag, i.e. what was pushed")
    # what redaction left in place of a secret links every note that held one
    assert set(exchanges.identifiers("set DB_PASSWORD=[REDACTED:password] in deploy/env.sh")) == {
        "db_password", "deploy/env.sh"}


def test_a_subfolder_path_links_the_exchange_that_writes_into_the_synced_folder(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "s1", "2026-01-06T10:00:00Z",
             "Set up cloud saves so progress follows players between machines.",
             "Steam Auto-Cloud syncs everything under user://saves/ recursively, with a byte "
             "quota of 100 MB per user.")
    exchange(real_memory, "s2", "2026-01-20T10:00:00Z",
             "Add a photo mode that saves a screenshot.",
             "Photo mode hides the HUD and writes a full-resolution PNG (about 8 MB each) to "
             "user://saves/photos/ with the slot name in the file name.")
    text = block(real_memory, "Players get a popup that their cloud storage is over its limit "
                              "and progress stopped syncing. Why would that start now?")
    assert "100 MB" in text
    assert "linked by user://saves" in text and "user://saves/photos" in text


def test_the_projects_own_namespace_links_nothing(real_memory: Memory) -> None:
    project = "/home/dev/beacon-live"
    exchange(real_memory, "s1", "2026-01-06T10:00:00Z",
             "Managers want a weekly email with completed job counts.",
             "Added BeaconLive.Workers.WeeklyReport; the template is in "
             "lib/beacon_live_web/emails/weekly_report.html.heex.", project=project)
    exchange(real_memory, "s2", "2026-01-20T10:00:00Z",
             "A couple of LiveView tests fail randomly in CI.",
             "The flaky ones in test/beacon_live_web/live/board_live_test.exs shared org_id 1; "
             "each test now gets its own org.", project=project)
    text = block(real_memory, "Managers also want the weekly email to include hours worked.",
                 project=project)
    assert "WeeklyReport" in text
    assert "linked by beacon_live_web" not in text and "board_live_test" not in text
    # a thing named after the project is no namespace: the database role halyard_ro
    assert exchanges.namespace("beacon_live_web", "beaconlive")
    assert exchanges.namespace("beaconlive", "beaconlive")
    assert not exchanges.namespace("halyard_ro", "halyard")


def test_filler_and_narration_are_dropped_but_named_things_are_kept() -> None:
    assert not exchanges.worth("Let me look at the tokens.")
    assert not exchanges.worth("Go ahead.")
    assert exchanges.worth("Did Oceanlink say why?")
    assert exchanges.worth("Let me open src/index/segment.rs.")
    assert exchanges.worth("Let me check the query history... the last run took 3h40m.")


def test_rules_and_tasks_are_told_apart() -> None:
    rule = standing.is_rule
    assert rule("Please stop hand-constructing Invoice objects in tests.")
    assert rule("Please don't use default exports anywhere.")
    assert rule("Named exports only; they make refactors sane.")
    assert rule("No data-testid unless there's truly no accessible way.")
    assert not rule("I never asked for that.")
    assert not rule("How should we mock the API in component tests?")
    assert not rule("Desktop is fine.")
    assert rule("Every new endpoint gets a test.")
    assert rule("All API handlers should return problem+json.")
    assert not rule("Install node_exporter on all the app hosts so we get host metrics.")
    assert rule("And for any mailer you touch, make sure there's a preview for it.")
    assert standing.RULE_SAID.search("Finance's cap for the data platform is 40 credits/day.")
    assert standing.RULE_SAID.search("The release binary must stay under 8 MB.")
    assert not standing.RULE_SAID.search("The job must have failed on retry.")
    assert standing.RULE_SAID.search("So the firmware image has a hard ceiling of 192 KiB.")
    assert standing.RULE_SAID.search("The largest frame we allow at SF10 is 51 bytes.")
    assert standing.RULE_SAID.search("Their tablets can't move to Android 15 until the refresh.")
    assert not standing.RULE_SAID.search("The ceiling of the server room is 3 m.")
    assert standing.RULE_SAID.search(
        "As agreed, every POST that touches a balance now requires an audit_reason field.")
    assert standing.RULE_SAID.search("All public endpoints must go through the rate limiter.")
    assert not standing.RULE_SAID.search("All 14 DAGs import it now.")
    assert is_task("The tax module is ugly. Rewrite it with pattern matching.")
    assert is_task("I changed the grain. Let's kick off a full refresh now.")
    assert not is_task("Why did search return partial results last month?")
    assert rules.ASKS.search("I want to rename a column. What breaks downstream?")
    assert not rules.ASKS.search("Build a badge component with a story.")


def test_a_rule_said_in_passing_is_told_from_an_observation_and_a_one_off_request() -> None:
    rule = standing.is_rule
    # A scope over every such thing, then what it must do or where it goes.
    assert rule("Unrelated, but for the future: anything that tests DB code should run "
                "against a real Postgres.")
    assert rule("All mapping goes in a configuration class under Persistence/Configurations/.")
    assert rule("Anything that goes through a route belongs in spec/requests.")
    # A prohibition at the head of a clause, with no subject before it.
    assert rule("Also, while you're in there: no new Timecop in our specs.")
    assert rule("Side note: no [Required]/[MaxLength] attributes on domain entities.")
    assert rule("I don't want go-sqlmock anywhere in this repo, those tests lie to us.")
    assert rule("We had flaky sorting, so never the default naive_datetime.")
    # Observations: a subject before "never"/"always", or "every time".
    assert not rule("Some owners on one mobile network never receive our texts at all.")
    assert not rule("A clinic in Leeds says the bloodwork never showed up.")
    assert not rule("One hour early, always.")
    assert not rule("The plant list refetches every time the screen gets focus.")
    # A request about this task's own things ("them", "it") binds only this task.
    assert not rule("Don't duplicate them.")
    assert not rule("Bump rubocop, and don't let it turn into a 400-file diff.")
    assert not rule("The listings index should load more as you scroll instead of paging.")
    # The same in the user's own language.
    assert rule("Ab jetzt bitte alle Tests gegen eine echte Datenbank.")
    assert rule("D'ora in poi niente mock per il database.")
    assert rule("De agora em diante, nada de Timecop nas specs.")
    assert rule("Bundan sonra testlerde gerçek veritabanı kullan.")
    assert rule("今後、テストではモックを使わないでください。")
    assert rule("Não use Timecop nas specs, por favor.")
    assert rule("Per i test non usare mai i mock del database.")
    assert rule("Testlerde sqlmock kullanmayın.")
    assert rule("N'utilisez jamais de mocks pour la base.")
    assert rule("テストではモックを使わないで。")
    assert not rule("O job nunca termina quando o Redis cai.")
    assert not rule("Der Job läuft immer um drei Uhr.")


def _outage_story(mem: Memory) -> None:
    with_noise(mem)
    exchange(mem, "c1", "2026-02-02T09:00:00Z",
             "Customers got the same invoice email three times this morning.",
             "The mailer consumed the invoice.created event three times, so three emails went "
             "out. I made the send idempotent on the invoice id.")
    exchange(mem, "c2", "2026-02-09T09:00:00Z",
             "Why was that event consumed three times?",
             "The worker missed its heartbeat while it rendered the PDFs, so RabbitMQ requeued "
             "the unacknowledged event and another worker consumed it again.")
    exchange(mem, "c3", "2026-02-16T09:00:00Z",
             "Why did rendering the PDFs take that long?",
             "wkhtmltopdf now fetches every logo over the network because the asset cache was "
             "disabled in the January config cleanup, so each PDF took nine seconds and the "
             "worker missed its heartbeat.")


def test_a_why_prompt_follows_recorded_causes_into_sessions_it_shares_no_words_with(
    real_memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    _outage_story(real_memory)
    prompt = "Explain the full chain of causes behind the repeated invoice emails."
    monkeypatch.setattr(context, "CONTEXT", dataclasses.replace(context.CONTEXT, cause_hops=0))
    without = block(real_memory, prompt)
    monkeypatch.undo()
    text = block(real_memory, prompt)
    assert "three emails" in text and "three emails" in without
    assert "asset cache" not in without  # no word of the prompt reaches it
    assert "asset cache" in text and "cause of #" in text
    assert "ThemeToggle" not in text


def test_a_prompt_that_asks_no_why_gets_no_cause_chain(real_memory: Memory) -> None:
    _outage_story(real_memory)
    text = block(real_memory, "Make the invoice email template mention the due date.")
    assert "cause of #" not in text


def test_an_exchange_the_engine_changed_in_part_is_marked_as_changed_in_whole(
    real_memory: Memory,
) -> None:
    """The engine superseded one sentence of a decision; the decision's other sentences are
    still current facts, and must not read as the current decision."""
    with_noise(real_memory)
    exchange(real_memory, "d1", "2026-01-20T09:00:00Z",
             "Make the card-network calls survive timeouts.",
             "We retry card-network calls with exponential backoff. The retry wrapper sits in "
             "network_client.py and waits 200 ms, then 400 ms.")
    real_memory.drain()
    first = real_memory.recall("retry card-network calls exponential backoff", project=PROJECT)[0]
    assert first.text.startswith("We retry card-network calls")
    real_memory.revise(first.id, "Card-network calls are never retried; a timeout sends a "
                       "reversal instead.", reason="retries caused double charges",
                       session="d2")
    text = block(real_memory, "How should card-network timeouts be handled in network_client.py?")
    line = next(li for li in text.splitlines() if "waits 200 ms" in li)
    assert "[superseded?]" in line


def test_every_line_of_a_changed_exchanges_code_block_carries_its_marker(
    real_memory: Memory,
) -> None:
    """A code block is one fact of several lines; when its exchange was changed, it is shown
    on one line, so no line of the old code reads as current without the marker."""
    with_noise(real_memory)
    exchange(real_memory, "d1", "2026-01-20T09:00:00Z",
             "Make the card-network calls survive timeouts.",
             "We retry card-network calls with exponential backoff in network_client.py:\n\n"
             "```python\n@retry(stop=stop_after_attempt(3), wait=wait_exponential(0.2))\n"
             "def charge(card):\n    return network.post('/charge', card)\n```")
    real_memory.drain()
    first = real_memory.recall("retry card-network calls exponential backoff", project=PROJECT)[0]
    real_memory.revise(first.id, "Card-network calls are never retried; a timeout sends a "
                       "reversal instead.", reason="retries caused double charges",
                       session="d2")
    text = block(real_memory, "How should card-network timeouts be handled in network_client.py?")
    code = [li for li in text.splitlines() if "stop_after_attempt" in li or "network.post" in li]
    assert code and all("[superseded?]" in li for li in code)
    assert "⏎ def charge(card):" in text


def test_a_recalled_decision_brings_the_later_exchange_that_changed_it(
    real_memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt matches the first decision almost word for word; the reversal is phrased
    around a failed run and shares none of the prompt's words, only the decision's names.
    It comes along (even with the identifier bridge off), ranked first, and the old decision
    is marked as changed."""
    with_noise(real_memory)
    exchange(real_memory, "e1", "2026-01-08T10:00:00Z",
             "How will we send invoices to customers as PDF attachments?",
             "We render the invoice with WeasyPrint in the billing_render task and attach it "
             "to the SendGrid email; the template lives in templates/invoice.html.")
    exchange(real_memory, "e2", "2026-02-20T10:00:00Z",
             "Half the January run bounced at the receiving mail servers.",
             "Agreed, I dropped that. The billing_render task now uploads the WeasyPrint output to "
             "the private bucket and the SendGrid message carries a signed link that expires "
             "after seven days.")
    prompt = "How do we send invoices to customers as PDF attachments?"
    no_bridge = dataclasses.replace(context.CONTEXT, max_bridged=0)
    monkeypatch.setattr(context, "CONTEXT", dataclasses.replace(no_bridge, max_changed=0))
    assert "signed link" not in block(real_memory, prompt)
    monkeypatch.setattr(context, "CONTEXT", no_bridge)
    text = block(real_memory, prompt)
    assert "signed link" in text and "changed it later" in text
    assert text.index("signed link") < text.index("We render the invoice")
    line = next(li for li in text.splitlines() if "We render the invoice" in li)
    assert "[superseded?]" in line


def test_a_later_change_to_something_else_named_alike_reverses_nothing(
    real_memory: Memory,
) -> None:
    """A later exchange on the same secrets store that switched something else ("the dbt
    profile" to key-pair auth) does not make the earlier note about the weather API's key
    stale: what it says it changed is not close to anything the earlier one said."""
    with_noise(real_memory)
    exchange(real_memory, "w1", "2026-01-10T10:00:00Z",
             "Add weather context to vessel positions.",
             "enrich_weather in the ingest DAG calls the MetOcean forecast API per grid cell, "
             "with the base URL and API key from the Airflow connection metocean_default.")
    exchange(real_memory, "w2", "2026-02-01T10:00:00Z",
             "Where do Airflow connections come from in prod? I want one for the new partner.",
             "Let me check airflow.cfg. Prod uses the Secrets Manager backend with the prefix "
             "airflow/connections, so a connection named foo is read from the secret "
             "airflow/connections/foo. I added the secret for the new partner's SFTP login. "
             "While I was there: the key in airflow/connections/metocean_default is a trial key "
             "that expires every 90 days, next in early March; renewing it means a new key in "
             "the vendor portal and updating that secret.")
    exchange(real_memory, "w3", "2026-02-15T10:00:00Z",
             "The dbt job fails with 'Incorrect username or password' for Snowflake.",
             "Let me check the profile. The service user's password was rotated by the security "
             "policy. Instead of chasing passwords I switched the dbt profile to key-pair "
             "authentication: the private key lives in Secrets Manager under "
             "dbt/snowflake_rsa_key and is mounted into the run, and the user's public key is "
             "set in Snowflake. No more password expiry for that user.")
    text = block(real_memory, "The weather enrichment task started failing overnight with 401 "
                              "Unauthorized. What's likely going on?")
    line = next(li for li in text.splitlines() if "expires every 90 days" in li)
    assert "[superseded?]" not in line


def test_a_session_that_opens_by_pointing_back_is_read_with_the_one_before(
    real_memory: Memory,
) -> None:
    """"Found out what's cutting them?" names nothing; it continues the project's previous
    conversation days later, and its answer is what a prompt about that problem needs."""
    with_noise(real_memory)
    exchange(real_memory, "f1", "2026-02-10T09:00:00Z",
             "The nightly import dies with 'connection reset by peer' after a quiet spell.",
             "Only the first import after a long idle period fails. I added two retries as a "
             "stopgap, but something between the app and the database drops idle sockets.")
    exchange(real_memory, "f2", "2026-02-14T09:00:00Z",
             "Found out what's cutting them?",
             "Yes: the firewall expires idle TCP flows after 300 seconds, so I enabled TCP "
             "keepalives every 60 seconds in db/pool.py.")
    exchange(real_memory, "f3", "2026-02-15T09:00:00Z", "Is it fixed now?",
             "The dashboard shows no failures since Monday.", project=OTHER)
    text = block(real_memory, "The nightly import hit 'connection reset by peer' again. "
                              "What did we learn last time?")
    assert "keepalives" in text and "300 seconds" in text
    assert "dashboard" not in text  # another project's session never continues this one


def test_a_task_gets_the_standing_rules_when_nothing_else_is_relevant(
    real_memory: Memory,
) -> None:
    exchange(real_memory, "r1", "2026-01-06T10:00:00Z",
             "The refund job crashes on an empty batch, fix it. And in general, no unwrap or "
             "expect outside tests, please.",
             "I replaced the unwraps in src/refund.rs with ? and .context(\"loading the batch\") "
             "messages, and added #![deny(clippy::unwrap_used)] to main.rs.")
    with_noise(real_memory)
    text = block(real_memory, "New feature: export the ledger to Parquet for the analysts.")
    assert "no unwrap or expect outside tests" in text
    assert '.context("loading the batch")' in text  # how the rule was applied, whole
    # A question about something unrelated is no task: nothing is injected.
    assert block(real_memory, "Off-topic, just Go: how does sync.Pool behave under GC?") == ""


def test_a_version_pin_the_assistant_stated_binds_a_later_task_with_its_reason(
    real_memory: Memory,
) -> None:
    exchange(real_memory, "p1", "2026-02-02T10:00:00Z",
             "Why does the plan fail with 'Unsupported Terraform Core version'?",
             "The CI runner image ships Terraform 1.7.4. The runner upgrade is tracked as "
             "INFRA-77. Until then nothing in this repo may need a Terraform newer than 1.7.4.")
    with_noise(real_memory)
    text = block(real_memory, "Write the bucket resource for the new audit logs, with "
                              "object lock enabled.")
    assert "newer than 1.7.4" in text and "INFRA-77" in text


def _ex(
    key: str, rel: float, session: str, source: str = "", link: float = 1.0
) -> exchanges.Exchange:
    from reasongraph_mcp.memory.records import Hit

    hit = Hit(id=int(key[6:]), text="x", score=0.0, project=PROJECT, session=session,
              source=f"{key}:assistant", role="assistant", kind="fact",
              recorded_at="2026-01-01T00:00:00Z", valid_from=None, valid_to=None, path="seed")
    return exchanges.Exchange(key, facts=[hit], rel=rel, source=source,
                              link=link if source else 0.0)


def test_an_exchange_shown_as_changed_brings_the_change_even_when_that_ranked_below_the_cut(
) -> None:
    """In a busy project the new decision may rank below the cut while the old one, marked
    as changed later, stays in: the change comes along, ranked just above the old one."""
    top, old = _ex("inbox:1", 1.2, "s1"), _ex("inbox:2", 0.9, "s2")
    new, other = _ex("inbox:7", 0.2, "s7"), _ex("inbox:8", 0.2, "s8")
    old.reviser = new.key
    scored = {e.key: e for e in (top, old, new, other)}
    added = context._revisers([top, old], scored, context.CONTEXT)
    assert added == [new] and new.via == "changed it later"
    assert old.rel < new.rel < top.rel
    assert context._revisers([top, old, new], scored, context.CONTEXT) == []  # already kept


def test_two_matching_turns_of_one_conversation_add_up() -> None:
    question, numbers = _ex("inbox:1", 0.64, "s1"), _ex("inbox:2", 0.66, "s1")
    elsewhere = _ex("inbox:3", 0.70, "s9")
    context._same_session([question, numbers, elsewhere], context.CONTEXT)
    assert question.rel > elsewhere.rel and numbers.rel > elsewhere.rel
    assert elsewhere.rel == 0.70


def test_a_question_for_causes_reads_each_chain_in_one_piece(real_memory: Memory) -> None:
    top, other = _ex("inbox:1", 0.9, "s1"), _ex("inbox:2", 0.8, "s2")
    step = _ex("inbox:3", 0.4, "s3", source="inbox:1")
    deeper = _ex("inbox:4", 0.3, "s4", source="inbox:3")
    ordered = context._chains(real_memory.store, [top, other, step, deeper])
    assert [e.key for e in ordered] == ["inbox:1", "inbox:3", "inbox:4", "inbox:2"]


def test_a_weak_link_is_no_step_of_the_chain(real_memory: Memory) -> None:
    top, other = _ex("inbox:1", 0.9, "s1"), _ex("inbox:2", 0.8, "s2")
    weak = _ex("inbox:3", 0.4, "s3", source="inbox:1", link=0.5)  # one plain name
    ordered = context._chains(real_memory.store, [top, other, weak])
    assert [e.key for e in ordered] == ["inbox:1", "inbox:2", "inbox:3"]


def test_a_direct_match_as_strong_as_the_source_comes_before_what_it_links(
    real_memory: Memory,
) -> None:
    top, peer = _ex("inbox:1", 0.9, "s1"), _ex("inbox:2", 0.85, "s2")
    linked = _ex("inbox:3", 0.4, "s3", source="inbox:1")
    weaker = _ex("inbox:4", 0.5, "s4")
    ordered = context._chains(real_memory.store, [top, peer, weaker, linked])
    assert [e.key for e in ordered] == ["inbox:1", "inbox:2", "inbox:3", "inbox:4"]


def test_a_question_about_back_then_shows_the_value_in_force_then_first(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "h1", "2026-01-05T10:00:00Z",
             "How long do unpaid carts hold stock?",
             "Set it to 15 minutes: RESERVATION_TTL=15m in values-prod.yaml, because 3-D Secure "
             "challenges can take up to ten minutes and we never release stock mid-payment.")
    exchange(real_memory, "h2", "2026-02-20T10:00:00Z",
             "Merchants see phantom out-of-stock during drops; ops wants shorter holds.",
             "41% of reservations expired unpaid in the last drop, median payment took 2m40s. "
             "Changed it: RESERVATION_TTL=7m in values-prod.yaml, the sweeper runs every 10 s, "
             "and checkout shows a countdown from expires_at.")
    text = block(real_memory, "A merchant disputes an oversell from mid-January. Back then, how "
                              "long could an unpaid cart keep units held?")
    assert "RESERVATION_TTL=15m" in text
    line = next(li for li in text.splitlines() if "RESERVATION_TTL=15m" in li)
    assert "in force on 2026-01-15" in line
    assert text.index("RESERVATION_TTL=15m") < text.index("RESERVATION_TTL=7m")


def test_an_earlier_state_asked_without_a_date_shows_what_was_superseded(
    real_memory: Memory,
) -> None:
    """"Back then" names no date to look up, but asks for the value before the change: the
    superseded fact is shown with its marker; a question about now leaves it out."""
    with_noise(real_memory)
    exchange(real_memory, "p1", "2026-01-12T09:00:00Z",
             "How often should the soil boards sample during the trial?",
             "For the trial I set SAMPLE_PERIOD in src/config.rs to 600 seconds, one reading "
             "every 10 minutes.")
    exchange(real_memory, "p2", "2026-02-20T09:00:00Z",
             "Battery life matters more than resolution for the season.",
             "SAMPLE_PERIOD in src/config.rs is 1800 seconds now, one reading every 30 minutes.")
    real_memory.drain()
    old = real_memory.recall("SAMPLE_PERIOD 600 seconds trial firmware", project=PROJECT,
                             include_history=True)[0]
    assert "600 seconds" in old.text and old.status == "superseded"
    now = block(real_memory, "How often do the soil boards take a reading?")
    assert "600 seconds" not in now
    then = block(real_memory, "How often were the soil boards taking a reading back then?")
    line = next(li for li in then.splitlines() if "600 seconds" in li)
    assert "[superseded by #" in line


def test_a_later_turns_rules_are_not_crowded_out_by_an_earlier_turns_explanations(
    real_memory: Memory,
) -> None:
    """Two turns of rules: the first goes on at length about how it will be applied; in a
    tight share the second turn's rules are still shown, the explanations are what give way."""
    exchange(real_memory, "h1", "2026-01-09T10:00:00Z",
             "House style for dbt models: import CTEs at the top for every ref or source, then "
             "logical CTEs, then a final select. It is the layout we used for the dbt models "
             "in the finance repo last year, where reviews of the models got much faster. The "
             "analysts there liked reading a dbt model top to bottom like its lineage graph.",
             "Understood, I reformatted the marts.")
    exchange(real_memory, "h2", "2026-02-06T10:00:00Z",
             "Two more rules: every model needs unique and not_null tests on its primary key. "
             "And always run dbt build --select state:modified+ locally, not full builds.",
             "Noted; I added the missing tests to three models.")
    text = block(real_memory, "Please write a dbt model for daily congestion per berth.",
                 budget=1100)
    section = text.split(rules.RULES_HEAD, 1)[1].split("\n[", 1)[0]
    assert "import CTEs" in section
    assert "not_null" in section and "state:modified+" in section


def test_a_long_applied_sentence_keeps_what_its_colon_introduces() -> None:
    """Cut to the rule's words, "Debug names: added nameObject(...) in vk_debug.hpp, ..." keeps
    the helper it names, not the bare heading before the colon."""
    text = ("Debug names: added `nameObject(VkDevice, T handle)` in src/render/vk_debug.hpp, a "
            "template over the Vulkan handle types that calls vkSetDebugUtilsObjectNameEXT with "
            "the matching VkObjectType, compiled out in release builds; the streamer, the "
            "swapchain images and the G-buffer targets are all named now.")
    cut = rules._focus(text, rules._stems("give every Vulkan object a debug name"), 220)
    assert "nameObject" in cut and "vk_debug.hpp" in cut


def test_asked_about_a_time_before_a_change_the_state_then_comes_first(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "s1", "2026-01-12T09:00:00Z",
             "Where do the nightly order exports land?",
             "The export_orders job writes a full snapshot every night as Parquet to "
             "s3://acme-raw/orders/dt=YYYY-MM-DD/, one partition per run date.")
    exchange(real_memory, "s2", "2026-02-20T09:00:00Z",
             "The nightly dumps cost too much. Switch orders to incremental.",
             "Orders now load incrementally: export_orders writes change batches to "
             "s3://acme-raw/orders_cdc/load_ts=.../ and the old dt= location is frozen.")
    text = block(real_memory, "Finance wants the orders table exactly as it stood on "
                              "January 15, rebuilt from the lake. Which files do I read?")
    assert "full snapshot every night" in text
    assert text.index("full snapshot every night") < text.find("change batches") or (
        "change batches" not in text
    )


def test_a_linked_exchange_ranks_after_the_one_that_links_to_it(
    real_memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Recall rank weighs heavily here, so a linked exchange recall also found ranks as high as
    # the one that links to it: it still comes after it.
    monkeypatch.setattr(context, "CONTEXT", dataclasses.replace(context.CONTEXT, w_rank=1.0))
    with_noise(real_memory)
    exchange(real_memory, "s1", "2026-01-12T09:00:00Z",
             "ingest_accounts failed on a 503 from the CRM. Make it retry.",
             "ingest_accounts now uses DEFAULT_RETRY_ARGS with retries=3 and a 10 minute delay "
             "between tries; it writes the accounts snapshot to the raw bucket.")
    exchange(real_memory, "s2", "2026-02-27T09:00:00Z",
             "Add a test that every DAG imports cleanly and retries.",
             "tests/test_dags.py loads the DagBag and checks every DAG uses DEFAULT_RETRY_ARGS, "
             "the retry settings, and has an owner and a tag.")
    text = block(real_memory, "The CRM was flaky again; how many times does ingest_accounts "
                              "retry after a 503 before it gives up?")
    assert "retries=3" in text
    if "tests/test_dags.py" in text:
        assert text.index("retries=3") < text.index("tests/test_dags.py")


def test_a_rule_the_assistant_stated_comes_with_how_it_was_applied(real_memory: Memory) -> None:
    with_noise(real_memory)
    exchange(real_memory, "s1", "2026-01-13T09:00:00Z",
             "A customer got charged twice when their ERP retried a payment call.",
             "Refunded the duplicate. Fix, as agreed: every POST that moves money now requires "
             "an `Idempotency-Key` header. The dependency `require_idempotency()` in "
             "app/api/deps.py stores each key and replays the stored response for a repeat "
             "of the same request.")
    text = block(real_memory, "Add an endpoint to issue a credit note against an invoice "
                              "and refund the card.")
    assert "Idempotency-Key" in text and "require_idempotency" in text


def test_the_projects_environments_are_its_namespace_too() -> None:
    house = exchanges.project_word("/home/dev/pawpath")
    assert exchanges.namespace("pawpath_prod", house)
    assert exchanges.namespace("pawpath-staging".replace("-", "_"), house)
    assert not exchanges.namespace("pawpath_ro", house)  # a role named after the project


def _stock_holds(mem: Memory) -> None:
    """Options weighed in one turn, settled in the next ("Agreed, ... KV is out")."""
    with_noise(mem)
    exchange(mem, "k4", "2026-01-27T10:30:00Z",
             "We oversold the sneaker drop. We need real stock reservation during checkout. "
             "What are the options on our stack?",
             "Options:\n1. D1 only. A conditional UPDATE is atomic per statement, but holds "
             "need expiry and release, i.e. a holds table plus a cron sweeper.\n2. Workers KV "
             "counters. Ruled out: KV is eventually consistent and has no compare-and-swap, so "
             "two colos can both see stock=1 and both sell it.\n3. A Durable Object per SKU. "
             "All requests for one SKU are serialized through one object with transactional "
             "storage.\n\nI'd go with 3 and keep D1 as the source of truth for the catalog.")
    exchange(mem, "k4", "2026-01-27T10:50:00Z",
             "Agreed, Durable Object per SKU. KV is out for anything inventory-related.",
             "Implemented workers/inventory-do: `export class InventoryDO extends DurableObject` "
             "with reserve, commit and release; holds last 35 minutes.")


def test_options_settled_in_the_next_turn_are_not_a_later_change(real_memory: Memory) -> None:
    """The next turn retiring one option ("KV is out") continues the conversation: the turn
    that weighed the options is not marked as changed later, and a question for the
    reasoning reads the two turns in order."""
    _stock_holds(real_memory)
    text = block(real_memory, "Why do stock holds during checkout go through a per-product "
                              "object instead of the database?")
    assert "[superseded?]" not in text and "changed later" not in text
    assert "InventoryDO" in text
    assert text.index("A Durable Object per SKU.") < text.index("InventoryDO")


def test_asking_what_else_was_considered_shows_the_options_ruled_out(
    real_memory: Memory,
) -> None:
    _stock_holds(real_memory)
    asked = "Why do stock holds go through a per-product object? What else did we consider?"
    assert "Workers KV counters" in block(real_memory, asked)
    assert "Workers KV counters" not in block(real_memory, "How are stock holds stored?")


def test_a_migration_file_is_not_a_change_of_decision() -> None:
    """"Migration AddReportingView creates ..." names a file; "we migrated off X" changes."""
    assert not context._CHANGE.search(
        "Migration AddReportingVendorScorecardView creates schema reporting.")
    assert context._CHANGE.search("We migrated the queue off Redis last week.")
    assert context._CHANGE.search("Let's migrate away from Celery beat.")
    assert not context._CHANGE.search("Nodes need a rolling replacement for it to take effect.")
    assert context._CHANGE.search("I replaced the cron sweeper with an alarm.")


def test_a_value_in_a_code_span_is_never_filler() -> None:
    assert exchanges.worth("`media: 5`.")
    assert not exchanges.worth("Media is five.")


GATEWAY = (
    "gateway pods keep getting OOMKilled during the morning peak. Can you fix the chart?",
    "At 08:00 UTC it climbs to the 256Mi limit and the pod gets OOMKilled (exit 137). The "
    "growth comes from the gRPC client connection pool plus the response cache; `GOMEMLIMIT` "
    "isn't set.\n\nChanges in `deploy/charts/gateway/values.yaml`:\n\n```yaml\nresources:\n"
    "  limits:   { memory: 512Mi }\nenv:\n  - name: GOMEMLIMIT\n    value: \"440MiB\"\n```\n\n"
    "I dropped the CPU limit to avoid CFS throttling and set `GOMEMLIMIT` to about 85% of the "
    "memory limit. Argo CD will pick it up on the next sync of the `gateway-prod` Application.",
)
RELAY = (
    "The outbox relay seems slow sometimes, events show up a second or two late. Tune it?",
    "Median lag from `created_at` to `published_at` is 240 ms, but p99 is 1.9 s: after an "
    "empty batch `internal/outbox/relay.go` sleeps 1 s.\n\nChanges:\n\n- Poll interval is now "
    "adaptive: 50 ms while the last batch was full, capped at 1 s when idle. Configured via "
    "`OUTBOX_POLL_MIN=50ms` in `deploy/charts/orders-svc/values.yaml`.\n- Added `LISTEN "
    "outbox_new` and a trigger, so the relay wakes immediately instead of waiting for the "
    "timer.\n\nAfter deploying to staging, p99 lag is 65 ms.",
)


def _gateway_block(mem: Memory) -> str:
    """The gateway's memory fix, then a week later the relay's tuning; asked about the first."""
    with_noise(mem)
    exchange(mem, "g3", "2026-01-20T09:05:00Z", *GATEWAY)
    exchange(mem, "g4", "2026-01-27T13:22:00Z", *RELAY)
    return block(mem, "The gateway pods were OOMKilled in the morning peak before. "
                      "What memory limit did we settle on for them?")


def test_a_heading_word_names_no_subject_of_a_change(real_memory: Memory) -> None:
    """Both turns list their edits under "Changes:"; the later one tunes the outbox relay
    ("Poll interval is now adaptive"). That changes nothing the gateway's memory fix said."""
    text = _gateway_block(real_memory)
    assert "GOMEMLIMIT" in text
    assert "changed later" not in text and "[superseded?]" not in text


IP_PLAN = (
    "We had two CIDR overlap scares this month. Write down the IP plan and make the VPC "
    "module enforce it.",
    "Let me put it in `docs/ip-plan.md` and add a guard to `modules/vpc`: 10.30.0.0/16 is the "
    "shared-services VPC (Atlantis, VPN instances), 10.40.0.0/16 prod, and new VPCs come only "
    "from the pool 10.64.0.0/12. The `cidr_block` validation in `modules/vpc/variables.tf` "
    "only accepts that pool. Plans for `live/prod/vpc` show no changes besides the variable.",
)
PROVIDER_BUMP = (
    "Bump the AWS provider everywhere, Renovate keeps nagging.",
    "Let me do it in one PR across stacks:\n\n- `versions.tf` in all 23 stacks under `live/`: "
    "`aws = { version = \"~> 5.82\" }` (was `~> 5.31`). The 11 modules only declare a lower "
    "bound, so stacks decide.\n- Regenerated lock files with "
    "`terraform providers lock`, so Atlantis (amd64) and our Macs agree on hashes.\n- Two "
    "places needed edits: `aws_eks_addon` wants `resolve_conflicts_on_update` instead of "
    "`resolve_conflicts`.\n\ntfsec 1.28.11 and checkov both pass.",
)


def test_a_change_names_what_it_changed_not_what_its_neighbours_name(
    real_memory: Memory,
) -> None:
    """"`aws_eks_addon` wants X instead of Y" changed an attribute name; the sentence before
    it names Atlantis, which the IP plan names too. That changes nothing the plan said."""
    with_noise(real_memory)
    exchange(real_memory, "t1", "2026-01-13T13:10:00Z", *IP_PLAN)
    exchange(real_memory, "t3", "2026-02-10T10:00:00Z", *PROVIDER_BUMP)
    text = block(real_memory, "Which range should a new VPC for the data team get, and what "
                              "does the VPC module accept?")
    assert "10.64.0.0/12" in text
    assert "changed later" not in text.split("10.64.0.0/12")[0].rsplit("[20", 1)[-1]


def test_a_question_pointing_inside_its_own_prompt_continues_no_earlier_session(
    real_memory: Memory,
) -> None:
    """"The outbox relay seems slow ... Tune it?": the "it" is the relay, not the gateway
    chart of the session before, so it is not read as that conversation going on."""
    text = _gateway_block(real_memory)
    assert "GOMEMLIMIT" in text
    assert "same conversation" not in text and "OUTBOX_POLL_MIN" not in text


def test_asked_about_an_earlier_time_a_later_exchange_says_it_came_after(
    real_memory: Memory,
) -> None:
    """The change of February is current now, but it was said after the time asked about:
    its head says so, so it is not read as what held in mid-January."""
    with_noise(real_memory)
    exchange(real_memory, "h1", "2026-01-05T10:00:00Z",
             "How long do unpaid carts hold stock?",
             "Set it to 15 minutes: RESERVATION_TTL=15m in values-prod.yaml, because 3-D Secure "
             "challenges can take up to ten minutes.")
    exchange(real_memory, "h2", "2026-02-20T10:00:00Z",
             "Merchants see phantom out-of-stock during drops; ops wants shorter holds.",
             "Changed it: RESERVATION_TTL=7m in values-prod.yaml, and checkout shows a countdown.")
    text = block(real_memory, "A merchant disputes an oversell from mid-January. Back then, how "
                              "long could an unpaid cart keep units held?")
    heads = [li for li in text.splitlines() if li.startswith("[2026-")]
    later = next(h for h in heads if h.startswith("[2026-02-20"))
    assert "said after 2026-01-15, the time asked about" in later
    assert not any("said after" in h for h in heads if h.startswith("[2026-01-05"))
    now = block(real_memory, "How long can an unpaid cart keep units held?")
    assert "said after" not in now


def test_a_question_for_causes_gives_each_step_a_share_of_a_short_budget(
    real_memory: Memory,
) -> None:
    """The turn that weighed the options is long; the turn that built the choice must still
    show its lines when the budget is short."""
    _stock_holds(real_memory)
    text = block(real_memory, "Why do stock holds go through a per-product object instead of "
                              "the database?", budget=700)
    assert "InventoryDO" in text and "Durable Object per SKU" in text


def test_when_the_budget_is_short_a_line_that_names_things_comes_before_one_that_names_none(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "w1", "2026-02-02T09:00:00Z",
             "Webhook deliveries to customers time out when their endpoint is slow.",
             "Webhook deliveries were timing out because customers' endpoints are slow to answer "
             "webhooks. Slow customer endpoints made the webhook deliveries time out again and "
             "again. The fix: deliver_webhook now retries with WEBHOOK_BACKOFF_SECONDS = [30, "
             "120, 600] from app/webhooks/config.py.")
    text = block(real_memory, "Why do webhook deliveries to slow customer endpoints time out?",
                 budget=420)
    assert "WEBHOOK_BACKOFF_SECONDS" in text


def test_a_decision_changed_after_the_time_asked_is_what_held_then_and_not_ranked_down(
    real_memory: Memory,
) -> None:
    """The engine superseded a sentence of the first exchange by one of the second: for a
    question about now the first is marked and ranked down; for one about a time between
    the two it is marked (changed later) but holds the answer, so it keeps its rank."""
    exchange(real_memory, "h1", "2026-01-12T10:00:00Z", "Ship the b2 run to the server.",
             "The production model is `checkpoints/segformer_b2_e38.ckpt`, deployed as version "
             "2 on triton-prod-01; its validation mIoU is 0.713 on the by-site split.")
    exchange(real_memory, "h2", "2026-02-23T10:00:00Z", "Replace the production model.",
             "The production model is now `checkpoints/convnext_t_upernet_e51.ckpt`, deployed "
             "as version 3; validation mIoU 0.741.")
    real_memory.drain()
    store = real_memory.store
    assert any(r[0] == "superseded" for r in store.conn.execute("SELECT status FROM facts"))
    view = Scope(project=PROJECT, include_history=True)
    for asked, kept in ((None, CONTEXT.revised_penalty), ("2026-02-05T12:00:00Z", 1.0)):
        old = exchanges.Exchange("inbox:1", rel=1.0)
        exchanges.fill(store, [old], {}, view)
        context._mark_revised(store, [old], CONTEXT, asked)
        assert old.revised_by.startswith("2026-02-23 session h2")
        assert old.rel == kept


def _long_reply(topic: str, tail: str) -> str:
    """An agent's reply of about 1,100 characters on ``topic``, ending with ``tail``."""
    steps = [
        f"I traced the {topic} from the scheduler to the writer and read every step it takes.",
        f"The {topic} reads the invoices of the month in pages of 500 from the replica.",
        "Each page is rendered to CSV rows with the customer's currency and tax code.",
        "The rows go through the same formatter the web export uses, so totals match.",
        f"Failures of one page are retried three times before the {topic} gives up.",
        "I added a metric for rows written per minute and a log line per page.",
        "The integration test covers an empty month, one page and a partial last page.",
        f"Nothing in the {topic} holds a lock on the invoices table while it runs.",
    ]
    return " ".join(steps) + " " + tail


EXPORT_TAILS = ["The export now writes to exports/monthly_v2/ on the archive bucket.",
                "The export job runs at 02:40 UTC, after the ledger close at 02:15.",
                "The export's CSV header is frozen: finance imports it with INV-HDR-7.",
                "The export's row count feeds the dashboard tile billing/export-rows."]


def with_long_exchanges(mem: Memory, tails: list[str]) -> None:
    """The noise, and one long exchange about the monthly invoice export per tail."""
    with_noise(mem)
    for i, tail in enumerate(tails):
        exchange(mem, f"x{i}", f"2026-02-0{i + 2}T10:00:00Z",
                 "The monthly invoice export needs work, have a look at it.",
                 _long_reply("monthly invoice export", tail))


def test_the_block_stretches_to_show_three_long_exchanges_whole(real_memory: Memory) -> None:
    """Agents' replies run to a thousand characters and more: the budget would hold one or two
    of them. The block stretches, at most to twice the budget, to show the best ones whole (four);
    short exchanges stay within the budget."""
    with_long_exchanges(real_memory, EXPORT_TAILS[:3])
    text = block(real_memory, "What do I need to know before I change the monthly invoice "
                              "export?", budget=1500)
    assert 1500 < len(text) <= 3000
    assert all(marker in text for marker in ("monthly_v2", "02:40 UTC", "INV-HDR-7"))


def test_short_exchanges_stretch_the_block_only_as_far_as_the_best_four(
    real_memory: Memory,
) -> None:
    """Eight matching exchanges of a few lines: the block grows past a small budget only to
    hold the best four whole, not all eight; at the default budget they fit without it."""
    with_noise(real_memory)
    for i in range(8):
        exchange(real_memory, f"s{i}", f"2026-02-{10 + i}T10:00:00Z",
                 f"The monthly invoice export fails for tenant {i}.",
                 f"The monthly invoice export for tenant {i} tripped on a null tax code; I "
                 f"defaulted it to the tenant's country code and added a test.")
    prompt = "Which tenants does the monthly invoice export fail for?"
    text = block(real_memory, prompt, budget=900)
    assert text.count("defaulted it to the tenant's country code") == 4
    assert len(text) < 2 * 900
    assert len(block(real_memory, prompt, budget=2000)) <= 2000


def test_a_question_of_impact_holds_four_long_exchanges(real_memory: Memory) -> None:
    """What a change reaches lies in more exchanges than one question of fact: a question of
    impact or causes stretches to hold four long exchanges (at most 2.5 times the budget)."""
    with_long_exchanges(real_memory, EXPORT_TAILS)
    impact = block(real_memory, "I want to change the monthly invoice export. What else would "
                                "that break?", budget=1500)
    assert 3000 < len(impact) <= 3750
    assert all(m in impact for m in ("monthly_v2", "02:40 UTC", "INV-HDR-7", "export-rows"))
    fact = block(real_memory, "What do I need to know about the monthly invoice export?",
                 budget=1500)
    assert len(fact) <= 3000


def test_an_exchange_added_for_a_change_ranks_just_above_what_it_changed(
    real_memory: Memory,
) -> None:
    top, old = _ex("inbox:1", 0.97, "s1"), _ex("inbox:2", 0.82, "s2")
    change = _ex("inbox:3", 1.07, "s3")  # lifted before the mark lowered what it changed
    change.via, change.changed = "changed it later", "inbox:2"
    context._above_what_they_changed([top, old, change], CONTEXT)
    assert change.rel == pytest.approx(0.82 * CONTEXT.changed_lift)
    assert old.rel < change.rel < top.rel


def test_a_project_whose_notes_are_mostly_code_still_glosses_a_foreign_prompt(
    real_memory: Memory,
) -> None:
    block_of_code = "```python\n" + "\n".join(f"x{i} = load_{i}(cfg)" for i in range(40)) + "\n```"
    for i in range(6):
        exchange(real_memory, f"c{i}", f"2026-01-1{i}T10:00:00Z", "wire the loaders",
                 f"Done, the loaders are in place:\n\n{block_of_code}\n\nThe tests pass.")
    real_memory.drain()
    prompt = "Slurm işlerinin başında çalıştırmak için küçük bir komut satırı aracı yazar mısın?"
    searched = context._searched(real_memory.store, prompt, PROJECT, CONTEXT)
    assert searched.startswith(prompt) and len(searched) > len(prompt)  # the English words


@pytest.mark.parametrize(("text", "rule"), [
    ("pls no argparse, every CLI in this repo is typer.", True),
    ("and no print() — use jlog, it tags the slurm job id", True),
    ("CLIs go in oakhaven/cli/ and get registered in [project.scripts]", True),
    ("scripts/ is only for one-off ops stuff", True),
    ("pandas yerine polars kullanalım lütfen", True),
    ("aqui toda mutação vinda de página é form action com superforms + zod, sempre.", True),
    ("ok funciona, mas não faz endpoint +server.ts com fetch pra isso.", True),
    ("it fails, always", False),
    ("não funciona", False),
    ("every request in the app is logged at INFO", False),
    ("The fix is only for Safari.", False),
])
def test_a_convention_said_in_passing_is_a_rule(text: str, rule: bool) -> None:
    assert standing.is_rule(text) is rule


@pytest.mark.parametrize(("text", "rule"), [
    ("finance wants a hard cap on snowflake spend.", True),
    ("400 credits a month, full stop, we're at ~310 now.", True),
    ("and nobody sizes a warehouse above SMALL without Martina signing off", True),
    ("lets keep it there, fail ci if it grows past 1mb gz", True),
    ("nobody noticed the outage without the alert", False),
    ("the CI failed when I pushed", False),
])
def test_a_budget_or_a_sign_off_said_in_passing_is_a_rule(text: str, rule: bool) -> None:
    assert standing.is_rule(text) is rule


def test_a_rule_that_is_the_whole_turn_comes_with_the_reply_that_applied_it(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "b1", "2026-01-20T10:00:00Z",
             "how big is the worker bundle now?",
             "Built with `wrangler deploy --dry-run`: 2.3 MiB raw, 780 KiB gzipped, mostly "
             "`libphonenumber-js` metadata and the admin routes.")
    exchange(real_memory, "b1", "2026-01-20T10:05:00Z",
             "nice. lets keep it there, fail ci if it grows past 1mb gz",
             "Added `scripts/check-bundle.mjs` to `ci.yml`:\n\n```js\nconst MAX_GZIP_KB = 1024;\n"
             "if (gzKb > MAX_GZIP_KB) process.exit(1);\n```")
    text = block(real_memory, "Render the booking confirmation as a PDF with react-pdf in the "
                              "worker and attach it to the mail. Go ahead and set it up.")
    section = text.split(rules.RULES_HEAD, 1)[1].split("\n[", 1)[0]
    assert "fail ci if it grows past 1mb gz" in section
    assert "MAX_GZIP_KB = 1024" in section


def test_a_rule_a_later_exchange_reversed_is_shown_as_changed_not_as_standing(
    real_memory: Memory,
) -> None:
    with_noise(real_memory)
    exchange(real_memory, "k1", "2026-02-02T10:00:00Z",
             "half the ios folks don't want gradle in their xcode build. ship the shared module "
             "as a prebuilt binary package from now on.",
             "The shared module now ships as a SwiftPM `binaryTarget`: CI builds "
             "`PellucidShared.xcframework`, zips it and publishes the zip with its checksum.")
    exchange(real_memory, "k2", "2026-03-30T10:00:00Z",
             "the binary package loop is too slow, from now on build the shared module from source "
             "in xcode",
             "Switched to a source build: the app target's run-script phase calls the Gradle task "
             "`embedAndSignAppleFrameworkForXcode`, so Xcode builds `PellucidShared.xcframework` "
             "from source and gradle runs in the xcode build; the SwiftPM package repo is "
             "archived.")
    text = block(real_memory, "Add an IBAN check to the shared module and wire it into the "
                              "transfer screen.", budget=3000)
    section = text.split(rules.RULES_HEAD, 1)[1].split("\n[", 1)[0]
    rule = next(line for line in section.splitlines() if "prebuilt binary package" in line)
    assert "[superseded? changed later, see 2026-03-30" in rule


@pytest.mark.parametrize(("turn", "correction"), [
    (["nej, ingen testify här.", "vi kör go-cmp och table-driven tester.", "gör om"], True),
    (["no. never grpc.NewClient directly in services.", "redo"], True),
    (["non non, pas de coroutines stp.", "refais-le avec UniTask."], True),
    (["Redo the order receipt email, it looks like 2012."], False),  # a task, nothing turned down
    (["No, the bug is still there.", "The logs show the same error."], False),  # no redo asked
    # no redo, but how it is done here: a scope, a habit, an obligation
    (["não, aqui não tem rspec nem factory_bot.", "é minitest com fixtures"], True),
    (["nee. naam moet oh-${var.env}-external-dns zijn, geen prefix"], True),
    (["nej, inga Mox-behaviours för HTTP-klienter hos oss."], True),
    (["no, just the code for now"], False),  # this task only
])
def test_a_correction_turns_the_work_down_and_asks_again_or_says_how_it_is_done_here(
    turn: list[str], correction: bool
) -> None:
    assert standing.is_correction(turn) is correction


def test_a_correction_in_any_language_is_shown_as_a_standing_rule(real_memory: Memory) -> None:
    """"nej, ingen testify här. vi kör go-cmp ... gör om" names no rule word the rules read
    in Swedish; the turn turned the agent's tests down and asked for them again, so what it
    says is how tests are written here, and a new test task gets it."""
    with_noise(real_memory)
    exchange(real_memory, "c1", "2026-02-06T13:40:00Z",
             "tests for the orders CreateOrder handler: happy path, unknown sku",
             "Added `create_order_test.go` with testify `assert` and `mock` for the inventory "
             "client.")
    exchange(real_memory, "c1", "2026-02-06T13:45:00Z",
             "nej, ingen testify här. vi kör go-cmp och table-driven tester, och fakes ligger i "
             "internal/testkit. gör om",
             "Omskrivet: table-driven, `go-cmp` för jämförelser, fakes från `internal/testkit`.")
    text = block(real_memory, "Skriv en klient i shipping-svc som hämtar fraktpriser från "
                              "rates-svc, och lägg till enhetstester för den.")
    section = text.split(rules.RULES_HEAD, 1)[1].split("\n[", 1)[0]
    assert "internal/testkit" in section and "go-cmp" in section


def test_the_apps_own_namespace_is_not_a_thing_a_change_changed() -> None:
    """A later exchange that adds `lib/payrail_web/controllers/health_controller.ex` names
    the app's namespace, as does every exchange on its web layer: that name says nothing
    about what the change changed. A thing named after the project (a database role) does."""
    names = {"payrail_web", "payrailweb", "oban", "payrail_ro"}
    assert context._vocabulary("/home/dev/payrail", names) == {"payrail_web", "payrailweb"}
    assert context._vocabulary(None, names) == set()


@pytest.mark.parametrize(("prompt", "task"), [
    ("new module for the ingest pipeline: SQS queue with a DLQ, 2 replicas. go", True),
    ("new thing: whenever a company gets created, pull firmographics in the background", True),
    ("feature: dark mode for the settings page", True),
    ("DhlTrackingController got merged 🎉 can u write the pest coverage for it?", True),
    ("What is new: the API or the worker?", False),
    ("The new version: 2.3 is out since Monday.", False),
    ("we could do it later", False),
])
def test_a_task_may_be_headed_as_one_end_with_go_or_be_asked_mid_sentence(
    prompt: str, task: bool
) -> None:
    assert is_task(prompt) is task


def test_the_work_a_rule_turned_down_is_not_shown_as_how_it_is_applied(
    real_memory: Memory,
) -> None:
    """"no count for this kind of thing ... for_each over a map keyed by name" turns down the
    reply before it: that reply's `count = 2` is what not to do, though the rule says "this"
    and "it". The rule's own reply shows how it is applied."""
    with_noise(real_memory)
    exchange(real_memory, "t1", "2026-01-14T10:00:00Z",
             "need s3 buckets for loki chunks and loki ruler. put it in stacks/data",
             "Added `stacks/data/loki.tf`: resource aws_s3_bucket loki uses `count = 2` with "
             "`count.index` picking chunks or ruler.")
    exchange(real_memory, "t1", "2026-01-14T10:05:00Z",
             "no count for this kind of thing, if someone reorders it we destroy a bucket. "
             "for_each over a map keyed by name.",
             "Reworked `stacks/data/loki.tf`: `for_each = local.loki_buckets`, keyed by name "
             "(chunks, ruler).")
    text = block(real_memory, "Add an SQS queue module with a dead-letter queue for the ingest "
                              "pipeline, in terraform.", budget=3000)
    section = text.split(rules.RULES_HEAD, 1)[1].split("\n[", 1)[0]
    assert "for_each over a map keyed by name." in section
    assert "count.index" not in section



def test_a_change_said_in_another_language_is_not_vetoed_by_english_vectors(
    real_memory: Memory,
) -> None:
    """"on arrête de chiffrer les secrets dans le repo" reverses the Sealed Secrets decision,
    but the packaged embedder reads no French: its cosine to the old English sentences is low
    whatever they mean, so it cannot veto the change (the shared names decide). In English,
    a change about something else is still vetoed."""
    exchange(real_memory, "s1", "2026-01-05T10:00:00Z",
             "how should apps get their secrets into the cluster? no plaintext in git.",
             "Set up Sealed Secrets: every app secret is encrypted with `kubeseal` into a "
             "`SealedSecret` manifest committed under k8s/apps/<app>/sealedsecret.yaml.")
    exchange(real_memory, "s4", "2026-02-10T10:00:00Z",
             "top. on arrête de chiffrer les secrets dans le repo. tout nouveau secret passe par "
             "External Secrets + Secrets Manager",
             "D'accord, mis en place : chaque app déclare un `ExternalSecret` dans "
             "k8s/apps/<app>/externalsecret.yaml.")
    exchange(real_memory, "s5", "2026-02-12T10:00:00Z",
             "the grafana image is too old",
             "I replaced the Dockerfile's base image with debian:bookworm-slim, so the grafana "
             "sidecar builds again.")
    real_memory.drain()
    store = real_memory.store
    keys = sorted({exchanges.exchange_of(src) for _, src in store.statement_sources(
        list(range(1, 40))) if src})
    found = [exchanges.Exchange(k) for k in keys]
    exchanges.fill(store, found, {}, Scope(project=PROJECT))
    old, french, english = found
    assert context._says_same_thing(store, old, french, context.CONTEXT)
    assert not context._says_same_thing(store, old, english, context.CONTEXT)



def test_a_note_in_another_language_is_found_by_its_english_gloss(real_memory: Memory) -> None:
    """An exchange held in Russian, read for an English prompt: the packaged embedder cannot
    read it, so its cosine is low whatever it says. Its glossed words ("import", "contacts",
    "transaction", "file") are the evidence that keeps it, as a glossed prompt's are."""
    with_noise(real_memory)
    exchange(real_memory, "r1", "2026-01-15T10:00:00Z",
             "нужен импорт контактов из файлов. продажи загружают списки по 20-50 тысяч строк. "
             "всё в одной транзакции: если в файле ошибка, ничего не сохраняем",
             "Готово. Новый воркер `CsvImportWorker` в lib/crm/imports/csv_import_worker.ex: "
             "читает файл и сохраняет контакты в одной транзакции с `timeout: :infinity`; "
             "очередь `imports` с лимитом 25.")
    exchange(real_memory, "e1", "2026-01-20T10:00:00Z",
             "the deals board is slow for big orgs",
             "Added a keyset index on deals (org_id, stage, inserted_at) and paginated the board.")
    text = block(real_memory, "Monday mornings, when sales upload their lead lists, the "
                              "database pool runs dry. Which worker loads the contacts, and "
                              "does it hold one transaction per file?")
    assert "CsvImportWorker" in text
    assert "keyset index" not in text


def test_a_note_is_foreign_by_its_words_not_for_want_of_english_ones() -> None:
    assert gloss.is_foreign("нужен импорт контактов из файлов")
    assert gloss.is_foreign("franchement on arrête de générer les tuiles à la volée.")
    assert gloss.is_foreign("wszystko w jednej transakcji, jak plik ma błąd to nic nie zapisujemy")
    assert not gloss.is_foreign("The CFO wants daily revenue on a dashboard, refreshed by 8am.")
    assert not gloss.is_foreign("Added Glue crawler raw_shop_orders_crawler into database raw.")
    assert gloss.is_foreign("dodaj ekran do liczenia gotówki w szufladzie przy zamykaniu zmiany")
    assert gloss.is_foreign("15 मार्च वाले incident का postmortem लिख रहा हूँ")
    assert not gloss.is_foreign("Scrolling through big lists is janky again in the admin.")
