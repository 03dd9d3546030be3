"""A note that says the thing an old fact uses was removed retires that fact, as notes say it:
with no auxiliary ("webpack.config.js deleted"), in lower case ("the fluentd daemonset"), or by
an artifact named after it (its config file, its deployment, its index); an amount that fell or
a removal still to come retires nothing (``memory.updates.explicit.retired``).

The sentences are this file's own, in the shapes developers write them."""

from __future__ import annotations

import pytest
from reasongraph_mcp.memory.updates.detect import FactView, detect_update

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
