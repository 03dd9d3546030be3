"""A note that says the thing an old fact uses was removed retires that fact, as notes say it:
with no auxiliary ("webpack.config.js deleted"), in lower case ("the fluentd daemonset"), or by
an artifact named after it (its config file, its deployment, its index); an amount that fell or
a removal still to come retires nothing (``memory.updates.explicit.retired``).

The sentences are this file's own, in the shapes developers write them."""

from __future__ import annotations

import captured
import pytest
from reasongraph_mcp.memory import Memory
from reasongraph_mcp.memory.updates.detect import FactView, detect_update

PROJECT = "/home/dev/ferry"
exchange = captured.exchange

RETIRED = [
    ("The marketing site is bundled with Parcel.",
     "esbuild does the marketing site bundle, .parcelrc deleted, parcel-config dropped"),
    ("Spans are exported through Jaeger.",
     "otel collector exports to tempo now, jaeger deployment deleted from the obs namespace"),
    ("Product search is served by Typesense.",
     "catalog search runs on opensearch; typesense cluster decommissioned last week"),
    ("Crash reports go to Bugsnag.",
     "sentry catches the crashes now, the bugsnag sdk removed from both apps"),
    ("Static assets are synced with Rclone.",
     "asset sync is `aws s3 sync` in the Makefile; rclone config removed"),
    ("The release pipeline runs on Buildkite.",
     "moved the release jobs to actions, the last buildkite pipeline archived today"),
    # the participle after its thing, in the other languages notes are written in
    ("Do kolejki zadań używamy RabbitMQ.",
     "Kolejka zadań stoi na NATS JetStream, RabbitMQ wyłączony w zeszłym tygodniu."),
    ("Voor CI gebruiken we Jenkins.",
     "CI draait volledig op GitHub Actions; de Jenkins-server is uitgezet."),
    ("Le pipeline de données est orchestré avec Airflow.",
     "Tous les DAGs ont été portés sur Dagster, le scheduler Airflow est éteint."),
]

KEPT = [
    # an amount that fell, not a thing removed
    ("The search page loads the Algolia widget.", "search page TTFB dropped to 80ms"),
    # a removal still to come
    ("Spans are exported through Jaeger.",
     "once tempo is stable the jaeger deployment can be deleted"),
    # an artifact of another tool
    ("Spans are exported through Jaeger.", "the zipkin deployment deleted from the obs namespace"),
]


@pytest.mark.parametrize(("old", "new"), RETIRED)
def test_a_removed_artifact_of_the_old_choice_retires_it(old: str, new: str) -> None:
    found = detect_update(FactView(old), FactView(new), similarity=0.45)
    assert found is not None, new
    assert found.kind == "cue" and found.reason.startswith("retired"), found


@pytest.mark.parametrize(("old", "new"), KEPT)
def test_a_fall_a_plan_or_another_tools_artifact_retires_nothing(old: str, new: str) -> None:
    assert detect_update(FactView(old), FactView(new), similarity=0.45) is None


DEPLOYMENT = '''```python
import dvc.api, json, mlflow
from ray import serve

@serve.deployment(num_replicas=2, max_ongoing_requests=32)
class RankerService:
    def __init__(self):
        self.model = mlflow.pytorch.load_model("models:/ranker@champion")
        with dvc.api.open("data/vocab/categories.json", rev="main") as f:
            self.vocab = json.load(f)
```'''


def test_a_change_to_one_setting_of_a_code_block_leaves_the_block_current() -> None:
    new = ("```yaml\ndeployments:\n  - name: RankerService\n    max_ongoing_requests: 24\n"
           "    autoscaling_config: {min_replicas: 2, max_replicas: 8}\n```")
    assert detect_update(FactView(DEPLOYMENT), FactView(new), similarity=0.6) is None


def test_a_new_version_of_a_config_block_replaces_it() -> None:
    old = "```toml\n[pool]\nmax_size = 20\nmin_idle = 2\ntimeout_s = 5\nlifetime_s = 1800\n```"
    new = "```toml\n[pool]\nmax_size = 50\nmin_idle = 2\ntimeout_s = 5\nlifetime_s = 1800\n```"
    found = detect_update(FactView(old), FactView(new), similarity=0.95)
    assert found is not None and "max_size" in found.reason


# -- a problem fixed or back, in another language --------------------------------------------

SETTLED = [
    ("O app iOS crasha ao abrir o scanner de QR em iPads.",
     "Crash do scanner de QR no iPad corrigido na build 5.8.1, já aprovada na App Store.", 0.84),
    ("Android 14 でプッシュ通知が届かない不具合がある。",
     "Android 14 の通知問題は POST_NOTIFICATIONS の権限リクエストを追加して解消済み。", 0.53),
    ("Der Export bricht mit einem Fehler bei Umlauten ab.",
     "Der Export-Fehler bei Umlauten ist seit 2.4 behoben.", 0.8),
]


@pytest.mark.parametrize(("old", "new", "cos"), SETTLED)
def test_a_problem_reported_fixed_in_another_language_ends_the_open_one(
    old: str, new: str, cos: float
) -> None:
    found = detect_update(FactView(old), FactView(new), similarity=cos)
    assert found is not None and found.reason == "problem resolved", found


def test_a_fix_in_another_language_of_another_problem_ends_nothing() -> None:
    """Close in topic is not enough when the two are not close in meaning."""
    assert detect_update(
        FactView("O app iOS crasha ao abrir o scanner de QR em iPads."),
        FactView("O login no Android foi corrigido na build 5.8.1."), similarity=0.4,
    ) is None


# -- a value set in another file -------------------------------------------------------------

LEDGER = ("ledger memory: set proper limits",
          "It had no `resources` block, so Nomad's default of 300 MB applied.\n\n"
          "`deploy/nomad/ledger.nomad.hcl`:\n\n```hcl\ntask \"ledger\" {\n  driver = \"docker\"\n"
          "  resources {\n    cpu        = 400\n    memory     = 512\n    memory_max = 768\n"
          "  }\n}\n```")
PRICING = ("pricing allocs restarted 6 times overnight, exit 137",
           "`deploy/nomad/pricing.nomad.hcl` had `memory = 256` and no `memory_max`, and the "
           "cache warm-up needs more.\n\nChanges:\n\n```hcl\nresources {\n  cpu        = 300\n"
           "  memory     = 256\n  memory_max = 384\n}\n```")


def test_a_config_block_is_not_retired_by_the_same_keys_set_in_another_file(
    real_memory: Memory,
) -> None:
    """Both blocks set `memory_max`; each is shown after the sentence naming its file. The
    pricing job's limits change nothing in the ledger job's."""
    exchange(real_memory, "s3", "2026-03-04T16:20:00Z", *LEDGER, project=PROJECT)
    exchange(real_memory, "s4", "2026-03-25T08:05:00Z", *PRICING, project=PROJECT)
    real_memory.drain()
    rows = real_memory.store.conn.execute(
        "SELECT status FROM facts WHERE text LIKE '%memory_max = 768%'").fetchall()
    assert rows and all(status == "current" for (status,) in rows)


@pytest.mark.parametrize(("old", "new", "cos"), [
    ("The marketing site runs on Next.js 13.4.",
     "marketing-site: next@14.1.0 in package.json, vercel prod build green", 0.52),
    ("The ML training image uses PyTorch 2.0.1 with CUDA 11.8.",
     "trainer img rebuilt -> torch==2.3.1+cu121, old tag deleted from ECR", 0.42),
])
def test_a_new_version_of_one_tool_under_another_of_its_names_replaces_the_old(
    old: str, new: str, cos: float
) -> None:
    found = detect_update(FactView(old), FactView(new), similarity=cos)
    assert found is not None and found.kind == "value", found
