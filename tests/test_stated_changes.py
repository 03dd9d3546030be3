"""A change stated in words the slot rules cannot align (``memory.updates.shift``), and the
write path's rule that a new statement retires the fact it is about, not its neighbours.

The sentences are this file's own: notes of the kinds coding agents write (a handover, a move
to another scheduler, another signing machine) in the phrasing the aligned rules miss. The
similarity is the packaged MiniLM's, as the write path computes it."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.updates.detect import FactView, detect_update
from reasongraph_mcp.memory.updates.shift import SHIFT_SIMILARITY, change_stated

PROJECT = "/home/dev/harbor"


def status(mem: Memory, fact: int) -> str:
    return mem.store.facts([fact])[fact].status


STATED = [
    ("Der Export läuft über einen Cronjob auf dem alten Server.",
     "Der Export läuft inzwischen als Airflow-DAG, der Cronjob ist weg."),
    ("Payments pager this week: Omar.",
     "handover done, Lucia holds the payments pager now"),
    ("Release builds are signed on the Mac mini in the office.",
     "release signing happens in the GitHub Actions macOS runner now, the mini went back to IT"),
    # the verbs of change in their other done forms, and changes that name no verb of change
    ("The worker image is built on `node:18-alpine`.",
     "chore: bump the worker image to `node:22-alpine`"),
    ("The billing alerts go to Tomasz.",
     "Tomasz rotated off billing alerts this week; Ines holds that pager."),
    ("Die Volltextsuche im Shop läuft über Elasticsearch.",
     "Die Volltextsuche im Shop haben wir auf OpenSearch umgestellt."),
    ("订单导出 job 由 cron 每小时运行一次。", "订单导出 job 改为由 Kafka 消息触发，cron 已取消。"),
    # Chinese words read as pairs of characters, a new name without capitals
    ("订单服务的值班负责人是阿强。", "阿强调去做数据平台了，订单服务现在由小美值班。"),
]


@pytest.mark.parametrize(("old", "new"), STATED)
def test_a_change_stated_about_the_same_thing_supersedes(old: str, new: str, similarity) -> None:  # type: ignore[no-untyped-def]
    sim = similarity(old, new)
    update = detect_update(FactView(old), FactView(new), similarity=sim)
    assert update is not None and update.kind == "shift"


@pytest.mark.parametrize(("old", "new"), STATED)
def test_the_rule_needs_the_model_and_a_close_sentence(old: str, new: str) -> None:
    assert change_stated(old, new, None) is None
    assert change_stated(old, new, SHIFT_SIMILARITY - 0.01) is None
    assert change_stated(old, new, SHIFT_SIMILARITY + 0.1) is not None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # another attribute of the same thing
        ("The search cluster runs on three m6g.large nodes.",
         "Changed the search cluster refresh interval to 30s."),
        # two numbered issues
        ("Issue #311 (slow login page) is in progress.",
         "Issue #312 (slow logout page) is resolved now."),
        # the same value again, with a word of time
        ("Sessions are stored in Redis.", "Sessions live in Redis these days."),
        # "for now" keeps the value
        ("The Android app uses Kotlin 1.9.",
         "The Android app stays on Kotlin 1.9 for now; the 2.0 compiler breaks kapt."),
        # what came before the current state
        ("The mobile app is written in Flutter.",
         "The first version of the mobile app was native Swift, before we moved to Flutter."),
        # one word in common, the subject: another attribute of a person
        ("Nina joined the platform team in May.", "Nina now leads the release train."),
        # it names what it replaced, and the old fact does not hold that
        ("The nightly backup job runs on the db-tools host.",
         "The nightly backup job starts at 02:00 now instead of midnight."),
        # arrows that chain steps
        ("Frames are built with a render graph on Vulkan.",
         "render graph on Vulkan: passes grouped per phase (Extract -> Prepare -> Draw) now"),
        # a cause -> effect statement, whose words of change are its content
        ("Slow fsync calls cause write stalls in the ingest service.",
         "Group commit with a 2 ms window leads to increased throughput and fewer write stalls "
         "in the ingest service."),
        # a word of change inside a compound or as an adjective: "fixed-width", "a scratch copy"
        ("The importer reads order files from the SAP SFTP drop.",
         "The importer reads one fixed-width record per order line from the SAP SFTP drop."),
        ("Migrations run with wrangler d1 migrations apply on the prod database.",
         "Tested the migrations on a scratch copy of the prod database first."),
        # a word that only begins like one: "bumper", "portatore"
        ("The robot's bumper sensor is wired to GPIO 17.",
         "The bumper sensor of the robot is read over GPIO 22 at 100 Hz."),
        # a gerund is no change done: what renaming would break
        ("The partner export reads the columns of dim_orders by position.",
         "Renaming a column in dim_orders breaks the partner export's mapping."),
        # a value beside the old one, in German
        ("Die App unterstützt PostgreSQL.",
         "Neben PostgreSQL unterstützt die App jetzt auch SQLite."),
        # a process that got killed is an event, not a thing retired
        ("The typesense machine serves search for the catalog with 2 GB of memory.",
         "the typesense machine got OOM killed twice this week, catalog search was down."),
    ],
)
def test_look_alikes_of_a_stated_change_leave_the_old_fact_current(old: str, new: str) -> None:
    assert change_stated(old, new, 0.8) is None


def test_a_change_retires_the_fact_it_is_about_not_its_neighbours(
    real_memory: Memory, similarity  # type: ignore[no-untyped-def]
) -> None:
    """The rules alone would retire the library's Python too (same word, another value); the
    new statement is about the service, the closest fact, and only that one is retired."""
    service = real_memory.remember("The `orders-api` service runs on Python 3.11.",
                                   project=PROJECT, session="a")[0]
    library = real_memory.remember("The reporting library supports Python 3.10.",
                                   project=PROJECT, session="b")[0]
    new = "Bumped the orders-api service to Python 3.12 last week."
    lib_text = "The reporting library supports Python 3.10."
    assert detect_update(FactView(lib_text), FactView(new),
                         similarity=similarity(lib_text, new)) is not None
    result = real_memory.remember_detailed(new, project=PROJECT, session="c")
    assert [r.old for r in result.superseded] == [service]
    assert status(real_memory, library) == "current"


def test_a_stated_change_spares_rules_and_its_own_sessions_story(real_memory: Memory) -> None:
    """ "I replaced ..." with the words of a house rule does not retire the rule, and a
    session's account of the problem it then fixes stays as it was told."""
    rule = real_memory.remember(
        "House rule: library code in crates/core uses thiserror error enums, never unwrap.",
        project=PROJECT, session="r1")[0]
    story = real_memory.remember(
        "The index reader decompresses each file with zstd bulk decompress in one call.",
        project=PROJECT, session="s1")[0]
    real_memory.remember(
        "I replaced the unwrap calls in crates/core with a ParseError variant of the CoreError "
        "error enum.",
        project=PROJECT, session="r2")
    real_memory.remember(
        "I switched the index reader to the streaming Decoder of zstd::stream, which "
        "decompresses every frame of each file.",
        project=PROJECT, session="s1")
    assert status(real_memory, rule) == "current"
    assert status(real_memory, story) == "current"


def test_a_change_stated_in_passing_in_a_captured_turn_retires_nothing(real_memory: Memory) -> None:
    """The weakest rule reads a change stated in words no other rule aligns. A captured turn
    goes on with a story, where that reading was right about one time in three on the
    labelled transcripts; a deliberate note (an agent's ``remember``) still retires."""
    old, new = STATED[2]
    [said] = real_memory.remember(old, project=PROJECT, session="s1", role="assistant")
    res = real_memory.remember_detailed(new, project=PROJECT, session="s2", role="assistant")
    assert res.superseded == [] and status(real_memory, said) == "current"
    old, new = STATED[3]
    [noted] = real_memory.remember(old, project=PROJECT, session="s3", role="agent")
    res = real_memory.remember_detailed(new, project=PROJECT, session="s4", role="agent")
    assert [r.old for r in res.superseded] == [noted]
