"""Specification of the merge guard and of update detection (``merge_guard``, ``updates``).

The tables are the specification: each row is a pair of facts in the language a coding agent
stores (versions, ports, timeouts, libraries, services, owners, branches, config values, feature
flags), plus the update cues of the six other supported languages. Precision matters most: a
complement flagged as an update would hide a true fact, so the complement table is as long as
the update table.
"""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory.updates.detect import FactView, Update, detect_update
from reasongraph_mcp.memory.write.merge_guard import safe_to_merge

# --------------------------------------------------------------------------- safe_to_merge

MERGEABLE = [
    ("The API timeout is 30s.", "The API timeout is 30 s."),
    ("The API timeout is 30 seconds.", "API timeout is 30s"),
    ("We deploy from the main branch.", "We deploy from the main branch"),
    ("Redis is used for caching sessions.", "Redis is used for caching the sessions."),
    ("The service listens on port 8080.", "The service listens on port 8080"),
    ("Feature flag new-checkout is enabled.", "The feature flag new-checkout is enabled."),
    ("Use ruff for linting.", "use ruff for linting"),
    ("We don't use mocks in tests.", "We do not use mocks in tests."),
    ("Tests run with pytest -x.", "The tests run with pytest -x."),
    ("Deploys happen on Friday at 15:00.", "Deploys happen on Friday at 15:00"),
    ("The free plan includes 10,000 requests.", "The free plan includes 10000 requests."),
]

NOT_MERGEABLE = [
    # numbers, versions, dates, times, amounts, units
    ("The API timeout is 30s.", "The API timeout is 60s.", "number"),
    ("The API timeout is 30s.", "The API timeout is 30ms.", "unit"),
    ("We pin Django v2.3.", "We pin Django v2.4.", "version"),
    ("We run Python 3.11.", "We run Python 3.12.", "version"),
    ("The release is on 2026-03-01.", "The release is on 2026-03-08.", "date"),
    ("The nightly job starts at 02:00.", "The nightly job starts at 03:00.", "time"),
    ("The budget is 29 euros a month.", "The budget is 49 euros a month.", "amount"),
    ("The deadline is 31 October.", "The deadline is 30 November.", "date words"),
    ("We keep three replicas.", "We keep four replicas.", "number words"),
    # polarity
    ("We use mocks in tests.", "We don't use mocks in tests.", "n't"),
    ("Caching is enabled in staging.", "Caching is not enabled in staging.", "not"),
    ("We never squash commits.", "We squash commits.", "never"),
    ("Build the image with the cache.", "Build the image without the cache.", "without"),
    ("Wir nutzen Mocks in Tests.", "Wir nutzen keine Mocks in Tests.", "German kein"),
    ("Wir cachen die Antworten.", "Wir cachen die Antworten nicht.", "German nicht"),
    ("Nous utilisons des mocks.", "Nous n'utilisons pas de mocks.", "French ne...pas"),
    ("Usamos mocks en los tests.", "No usamos mocks en los tests.", "Spanish no"),
    ("We gebruiken mocks in tests.", "We gebruiken geen mocks in tests.", "Dutch geen"),
    ("Testlerde mock kullanıyoruz.", "Testlerde mock kullanmıyoruz.", "Turkish -mıyor"),
    ("Usamos mocks nos testes.", "Não usamos mocks nos testes.", "Portuguese não"),
    # antonyms
    ("Feature flag dark-mode is enabled.", "Feature flag dark-mode is disabled.", "enabled"),
    ("Turn on verbose logging.", "Turn off verbose logging.", "on/off"),
    (
        "Set the minimum pool size to the default.",
        "Set the maximum pool size to the default.",
        "min",
    ),
    ("Run migrations before the deploy.", "Run migrations after the deploy.", "before/after"),
    ("The CI job passed on main.", "The CI job failed on main.", "passed/failed"),
    ("The bucket is public.", "The bucket is private.", "public/private"),
    ("The client uses sync requests.", "The client uses async requests.", "sync/async"),
    ("We always rebase feature branches.", "We never rebase feature branches.", "always"),
    ("Allow requests from the partner network.", "Deny requests from the partner network.", "deny"),
    ("Latency increased after the release.", "Latency decreased after the release.", "increase"),
    (
        "Added the retry to the payments client.",
        "Removed the retry from the payments client.",
        "add",
    ),
    # names and identifiers
    ("Alice owns the billing service.", "Bob owns the billing service.", "person"),
    ("The cache lives in Redis.", "The cache lives in Memcached.", "product"),
    (
        "Call paginate_offset() in list endpoints.",
        "Call paginate_keyset() in list endpoints.",
        "ident",
    ),
    ("Config lives in app/settings.py.", "Config lives in app/config.py.", "path"),
]


@pytest.mark.parametrize(("a", "b"), MERGEABLE)
def test_restatements_are_safe_to_merge(a: str, b: str) -> None:
    assert safe_to_merge(a, b)
    assert safe_to_merge(b, a)


@pytest.mark.parametrize(("a", "b", "difference"), NOT_MERGEABLE)
def test_a_difference_in_value_polarity_antonym_or_name_blocks_merging(
    a: str, b: str, difference: str
) -> None:
    assert not safe_to_merge(a, b), difference
    assert not safe_to_merge(b, a), difference


# --------------------------------------------------------------------------- detect_update

# (old, new, expected kind): the new fact makes the old one no longer current.
UPDATES = [
    # values: numbers, versions, units
    ("The API timeout is 30s.", "The API timeout is 45s.", "value"),
    ("The API timeout is 30s.", "The API timeout was raised to 90s.", "value"),
    ("We use Postgres 15.", "We upgraded to Postgres 16.", "value"),
    ("The project targets Python 3.10.", "The project now targets Python 3.12.", "value"),
    ("The web service listens on port 8080.", "The web service listens on port 9090.", "value"),
    ("The upload limit is 10 MB.", "The upload limit was increased to 25 MB.", "value"),
    ("The worker pool has 4 threads.", "The worker pool now has 16 threads.", "value"),
    ("max_connections is set to 100.", "max_connections is now set to 300.", "value"),
    ("The rate limit is 300/minute.", "The rate limit was lowered to 120/minute.", "value"),
    ("The nightly backup runs at 02:00 UTC.", "The nightly backup now runs at 04:30 UTC.", "value"),
    ("The release is planned for 12 March.", "The release slipped to 26 March.", "value"),
    (
        "The staging cluster runs Kubernetes 1.28.",
        "The staging cluster was upgraded to Kubernetes 1.30.",
        "value",
    ),
    ("The retry budget is three attempts.", "The retry budget is now five attempts.", "value"),
    # names: owners, services, libraries, branches, hosts
    ("Alice owns the billing service.", "Bob now owns the billing service.", "value"),
    ("Priya reports to Marco.", "Priya now reports to Sven.", "value"),
    ("The default branch is master.", "The default branch is now main.", "value"),
    ("The default model is Llama 3.", "The default model is now Mistral 7B.", "value"),
    ("The API gateway runs on Heroku.", "The API gateway was migrated to Fly.io.", "value"),
    ("Kim works from the Madrid office.", "Kim moved to the Lisbon office.", "value"),
    ("The docs site is hosted on Netlify.", "We moved the docs site to Cloudflare Pages.", "value"),
    (
        "Search uses the old Elastic cluster.",
        "Search was moved to its own OpenSearch cluster.",
        "value",
    ),
    (
        "The metrics DNS name points to grafana-old.",
        "The metrics DNS name now points to grafana-v2.",
        "value",
    ),
    ("The team prefers squash merges.", "The team prefers rebase merges.", "value"),
    (
        "The queue worker concurrency is 8.",
        "The queue worker concurrency was bumped to 16.",
        "value",
    ),
    (
        "Staging deploys from the develop branch.",
        "Staging now deploys from the release branch.",
        "value",
    ),
    (
        "Sentry is used for error tracking.",
        "We switched error tracking from Sentry to Rollbar.",
        "cue",
    ),
    # explicit replacement cues
    (
        "The checkout service caches carts in Redis.",
        "Checkout now caches carts in Memcached instead of Redis.",
        "cue",
    ),
    ("We format code with black.", "We replaced black with ruff format.", "cue"),
    ("The frontend bundles with webpack.", "The frontend switched from webpack to Vite.", "cue"),
    (
        "Feature flags are served by LaunchDarkly.",
        "LaunchDarkly was replaced by Unleash for feature flags.",
        "cue",
    ),
    # polarity flips
    ("Feature flag new-checkout is enabled.", "Feature flag new-checkout is disabled.", "polarity"),
    (
        "We use mocks in integration tests.",
        "We no longer use mocks in integration tests.",
        "polarity",
    ),
    ("The search endpoint is public.", "The search endpoint is private.", "polarity"),
    ("CI does not run the e2e suite.", "CI runs the e2e suite.", "polarity"),
    ("Strict mode is on in tsconfig.", "Strict mode is off in tsconfig.", "polarity"),
    # state changes
    (
        "The legacy reporting service is running on vm-7.",
        "We shut down the legacy reporting service.",
        "state",
    ),
    ("The v1 API is supported for partners.", "The v1 API was deprecated in May.", "state"),
    ("Marta is the release manager this quarter.", "Marta left the company.", "state"),
    (
        "We opened a staging environment on AWS.",
        "The staging environment was closed in June.",
        "state",
    ),
]

# Multilingual update cues: (old, new).
MULTILINGUAL_UPDATES = [
    ("Der Timeout ist 30 Sekunden.", "Der Timeout ist jetzt 60 Sekunden."),
    ("Wir nutzen Redis als Cache.", "Wir nutzen stattdessen Memcached als Cache."),
    ("Wir nutzen Mocks in Tests.", "Wir nutzen keine Mocks mehr in Tests."),
    ("Die CI läuft auf Jenkins.", "Die CI wurde auf GitLab umgestellt."),
    (
        "Le délai d'expiration est de 30 secondes.",
        "Le délai d'expiration est désormais de 60 secondes.",
    ),
    (
        "Nous utilisons MySQL pour la facturation.",
        "Nous utilisons Postgres au lieu de MySQL pour la facturation.",
    ),
    ("Nous utilisons des mocks dans les tests.", "Nous n'utilisons plus de mocks dans les tests."),
    ("El puerto del servicio es 8080.", "El puerto del servicio ahora es 9090."),
    ("Usamos Jenkins para CI.", "Usamos GitHub Actions en lugar de Jenkins para CI."),
    ("Usamos mocks en los tests.", "Ya no usamos mocks en los tests."),
    ("De timeout is 30 seconden.", "De timeout is nu 60 seconden."),
    ("We draaien de API op Heroku.", "We draaien de API op Fly.io in plaats van Heroku."),
    ("We gebruiken mocks in tests.", "We gebruiken niet meer mocks in tests."),
    ("Zaman aşımı 30 saniye.", "Zaman aşımı artık 60 saniye."),
    ("CI için Jenkins kullanıyoruz.", "CI için Jenkins yerine GitHub Actions kullanıyoruz."),
    ("O timeout é 30 segundos.", "O timeout agora é 60 segundos."),
    ("Usamos MySQL para faturamento.", "Usamos Postgres em vez de MySQL para faturamento."),
]

# (old, new): both stay current.
COMPLEMENTS = [
    # different attribute or role
    ("Alice works in the Munich office.", "Alice lives in Berlin."),
    ("The app uses PostgreSQL.", "The app uses Redis for caching."),
    ("We use Redis for caching.", "We use Redis for rate limiting."),
    ("The API timeout is 30s.", "The API requires a bearer token."),
    ("The API timeout is 30s.", "The database timeout is 5s."),
    ("The web service listens on port 8080.", "The metrics exporter listens on port 9100."),
    ("The upload limit is 10 MB.", "Uploads are stored in S3."),
    ("The default branch is main.", "Release branches are cut every two weeks."),
    ("Alice owns the billing service.", "Alice prefers small pull requests."),
    ("Priya reports to Marco.", "Priya joined the team in 2023."),
    ("Kim moved to the Lisbon office.", "Kim likes cycling to work."),
    ("The project targets Python 3.12.", "The project uses uv for dependency management."),
    ("The frontend uses React 18.", "The frontend uses Tailwind for styling."),
    ("We deploy with Argo CD.", "We deploy on Tuesdays and Thursdays."),
    ("Elasticsearch rebuilds its index at 09:00.", "Elasticsearch was moved to its own node."),
    ("The worker pool has 4 threads.", "The worker pool logs to stdout."),
    ("CI runs on GitHub Actions.", "CI caches the pip downloads."),
    ("Feature flag new-checkout is enabled.", "Feature flag dark-mode is disabled."),
    ("Caching is enabled in staging.", "Caching is disabled in production."),
    ("Tests pass on Linux.", "Tests fail on Windows."),
    ("Run migrations before the deploy.", "Run smoke tests after the deploy."),
    (
        "The checkout service stores carts in Redis.",
        "Redis runs on the same node as Elasticsearch.",
    ),
    ("We format code with ruff.", "We lint SQL with sqlfluff."),
    ("The nightly backup runs at 02:00 UTC.", "The nightly backup is encrypted with age."),
    ("Marta wrote the deployment runbook.", "Marta left the company."),
    ("We hired two SREs for the Dublin office.", "The Dublin office closed in June."),
    (
        "The legacy reporting service caused the outage in May.",
        "We shut down the legacy reporting service.",
    ),
    ("The v1 API returned 500s during the incident.", "The v1 API was deprecated in May."),
    (
        "The payments client retries three times.",
        "We removed the retry decorator from the search client.",
    ),
    ("The docs site is built with MkDocs.", "We moved the docs site to Cloudflare Pages."),
    ("Bob reviews all database migrations.", "Bob now reports to Dana."),
    ("We use Postgres 16.", "We use Postgres 16 with pgvector."),
    ("The rate limit is 300/minute.", "The rate limit applies per API key."),
    ("The staging cluster runs Kubernetes 1.30.", "The production cluster runs Kubernetes 1.28."),
    ("We use mocks in unit tests.", "We use real databases in integration tests, not mocks."),
    ("The auth service uses JWT tokens.", "The auth service logs failed logins."),
    ("Sentry is used for error tracking.", "Sentry alerts go to #oncall."),
    ("The mobile app targets iOS 17.", "The web app targets Chrome 120."),
    ("Jane leads the data team.", "Jane moved the data team standup to 10:00."),
    ("The cache TTL is 300 seconds.", "The session TTL is 3600 seconds."),
    ("Staging deploys from the develop branch.", "Staging deploys with Helm."),
    ("The service listens on port 8080.", "The service listens on port 8080."),
]


# A number that is part of the subject's name (a noun followed by a number) names another
# thing: (old, new), both stay current.
NUMBERED_SUBJECTS = [
    (
        "Service 3 sends invoices to the billing queue.",
        "Service 4 sends invoices to the billing queue.",
    ),
    ("Ticket 12 is assigned to Bob.", "Ticket 13 is assigned to Bob."),
    ("PR #41 adds the retry to the payments client.", "PR #42 adds the retry to the client."),
    ("Issue 7 blocks the release.", "Issue 8 blocks the release."),
    ("Step 2 runs the database migrations.", "Step 3 runs the database migrations."),
    ("Node-3 runs Redis.", "Node-4 runs Redis."),
    ("The staging node 2 runs Redis.", "The staging node 5 runs Redis."),
    ("Service 3 is down.", "Service 4 is down."),
    ("Worker 1 now processes the EU queue.", "Worker 2 now processes the EU queue."),
]

# A number after an attribute word, after the verb, or in an identity statement ("... is the
# default") is the value that changed: (old, new), the new fact supersedes.
NUMBERS_AS_VALUES = [
    ("The timeout is 30 s.", "The timeout is 60 s."),
    ("We use Python 3.11.", "We now use Python 3.12."),
    ("The web service listens on port 8080.", "The web service listens on port 9090."),
    ("Port 8080 is the default.", "Port 9090 is now the default."),
    ("Version 3 is the default API version.", "Version 4 is now the default API version."),
    ("Java 17 is the minimum.", "Java 21 is now the minimum."),
    ("The job runs on node 3.", "The job now runs on node 4."),
    ("The deploy waits on PR #41.", "The deploy now waits on PR #42."),
    ("Service 3 uses Postgres 15.", "Service 3 now uses Postgres 16."),
    ("The top 10 customers get a discount.", "The top 20 customers now get a discount."),
]


@pytest.mark.parametrize(("old", "new"), NUMBERED_SUBJECTS)
def test_a_number_in_the_subject_name_is_another_thing_not_another_value(
    old: str, new: str
) -> None:
    assert detect_update(FactView(old), FactView(new)) is None
    assert detect_update(FactView(new), FactView(old)) is None
    assert not safe_to_merge(old, new)  # still two things: never merged into one


@pytest.mark.parametrize(("old", "new"), NUMBERS_AS_VALUES)
def test_a_number_after_an_attribute_or_the_verb_is_a_value(old: str, new: str) -> None:
    update = detect_update(FactView(old), FactView(new))
    assert update is not None and update.kind == "value", f"missed: {old!r} -> {new!r}"


@pytest.mark.parametrize(("old", "new", "kind"), UPDATES)
def test_a_newer_fact_on_the_same_slot_supersedes_the_older(old: str, new: str, kind: str) -> None:
    update = detect_update(FactView(old), FactView(new))
    assert isinstance(update, Update), f"missed: {old!r} -> {new!r}"
    assert update.kind == kind, update
    assert update.reason
    assert 0.0 < update.confidence <= 1.0


@pytest.mark.parametrize(("old", "new"), MULTILINGUAL_UPDATES)
def test_update_cues_work_in_other_languages(old: str, new: str) -> None:
    assert detect_update(FactView(old), FactView(new)) is not None


@pytest.mark.parametrize(("old", "new"), COMPLEMENTS)
def test_complements_and_historical_facts_are_not_superseded(old: str, new: str) -> None:
    assert detect_update(FactView(old), FactView(new)) is None


def test_a_fact_without_a_shared_subject_is_never_an_update() -> None:
    old = FactView("The API timeout is 30s.")
    new = FactView("The deploy window moved to Thursday.")
    assert detect_update(old, new) is None


def test_low_embedding_similarity_vetoes_a_cueless_value_change() -> None:
    old, new = FactView("The API timeout is 30s."), FactView("The API timeout is 45s.")
    assert detect_update(old, new, similarity=0.9) is not None
    assert detect_update(old, new, similarity=0.4) is None


def test_similarity_alone_never_makes_an_update() -> None:
    old, new = FactView("The app uses PostgreSQL."), FactView("The app uses Redis for caching.")
    assert detect_update(old, new, similarity=0.99) is None


def test_shared_caller_entities_count_as_a_shared_subject() -> None:
    old = FactView("It listens on port 8080.", frozenset({"gateway"}))
    new = FactView("It now listens on port 9090.", frozenset({"gateway"}))
    assert detect_update(old, new) is not None


def test_reasons_name_the_change() -> None:
    update = detect_update(
        FactView("The API timeout is 30s."), FactView("The API timeout is now 45s.")
    )
    assert update is not None
    assert "30" in update.reason and "45" in update.reason


def test_a_fix_does_not_retire_the_incident_it_fixes() -> None:
    """Regression: "because" and "same" were read as values that a "moved to" changed."""
    incident = ("Users were logged out at random during checkout because Redis evicted their "
                "session keys.")
    shared = ("We added the product-recommendations cache to the same Redis instance, so Redis "
              "memory fills up.")
    fix = ("We fixed the logouts by moving session keys to a separate Redis instance with "
           "maxmemory-policy noeviction.")
    redis = frozenset({"redis"})
    assert detect_update(FactView(incident, redis), FactView(fix, redis), similarity=0.66) is None
    assert detect_update(FactView(shared, redis), FactView(fix, redis), similarity=0.46) is None


@pytest.mark.parametrize(
    "question",
    [
        "Could we land settlement files every five minutes instead of hourly?",
        "Should the deploy timeout be 45 s now?",
        "Did we switch the CI from Jenkins to GitLab?",
    ],
)
def test_a_question_never_supersedes_what_was_stated(question: str) -> None:
    old = {
        "Could": (
            "Settlement files are partitioned by settle_date and land hourly in the raw bucket."
        ),
        "Should": "The deploy timeout is 30 s.",
        "Did": "The CI runs on Jenkins.",
    }[question.split()[0]]
    assert detect_update(FactView(old), FactView(question), similarity=0.6) is None


# --------------------------------------------------------------------------- coding statements

# (old, new): a coding statement that makes the older one no longer current.
CODING_UPDATES = [
    # a slot swap on the main clause: same subject and frame, another value, stated as current
    ("Our Rust MSRV is 1.70.", "MSRV went up to 1.75 because we need let-else in the parser."),
    ("The billing service builds with Go 1.20.", "billing now builds with Go 1.22 after the bump."),
    ("Sessions are cached in Redis.", "Sessions live in Memcached these days."),
    ("LOG_LEVEL is DEBUG in staging.", "Staging LOG_LEVEL was turned down to INFO."),
    # a problem reported as open, then fixed
    ("The Safari login redirect loop is still open.", "The Safari login redirect loop is fixed."),
    ("Windows builds are broken since the path change.", "Windows builds pass again."),
    ("Issue #212 (duplicate emails) is in progress.", "Closed #212, duplicate emails are gone."),
    # a prohibition, then lifted
    ("Don't merge to main on Fridays.", "The Friday merge freeze on main is lifted."),
    # an owner handing over
    ("Priya owns the billing service.", "Marco took over billing from Priya."),
]

# (old, new): both stay current, although the new one looks like a change.
CODING_COMPLEMENTS = [
    # another subject: a number, a name or a noun of its own
    ("Service 0 listens on port 8000.", "Service 1 listens on port 8001."),
    (
        "The Helm chart deploys the api with 3 replicas.",
        "The Helm chart deploys the worker with 5 replicas.",
    ),
    ("Writes to the legacy DB are forbidden.", "Reads from the legacy DB are allowed."),
    ("Issue #212 is in progress.", "Issue #213 is closed."),
    ("Windows builds are broken.", "macOS builds are broken too."),
    # coexisting values
    ("The library supports Python 3.10.", "The library also supports Python 3.12 now."),
    ("CI tests against Node 18.", "CI tests against Node 20 as well."),
    # plans, questions and conditions assert no current value
    ("The frontend is on React 17.", "We plan to upgrade the frontend to React 18."),
    ("The cluster runs Kubernetes 1.26.", "Should we upgrade the cluster to Kubernetes 1.28"),
    ("We deploy to Heroku.", "If Heroku raises prices again we'd move deploys to Fly.io."),
    ("Sam is on call this week.", "Dana will be on call next week."),
    # another attribute or a refinement that keeps the old value
    ("The docs site is built with MkDocs.", "We moved the docs site to Cloudflare Pages."),
    ("The worker listens on port 8080.", "The worker's port 8080 is mapped to 18080 on the host."),
]


@pytest.mark.parametrize(("old", "new"), CODING_UPDATES)
def test_a_coding_statement_of_change_supersedes(old: str, new: str) -> None:
    assert detect_update(FactView(old), FactView(new)) is not None, f"missed: {old!r} -> {new!r}"


@pytest.mark.parametrize(("old", "new"), CODING_COMPLEMENTS)
def test_other_subjects_coexisting_values_plans_and_refinements_stay_current(
    old: str, new: str
) -> None:
    assert detect_update(FactView(old), FactView(new)) is None


def test_numbered_services_never_supersede_each_other() -> None:
    facts = [f"Service {i} listens on port {8000 + i}." for i in range(12)]
    for a in facts:
        for b in facts:
            if a != b:
                assert detect_update(FactView(a), FactView(b)) is None, (a, b)
