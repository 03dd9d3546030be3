"""The last update rule: a logistic model over the evidence the other rules read.

Where no rule aligns a slot, a value or a state, an update is told in words of its own ("the
Procfile is gone and `fly deploy` is in the Makefile", "Tom's left, Priya runs the App Store
submissions from here on"). Hand thresholds on that evidence (a change cue, the similarity of
the two sentences, two shared words: ``shift.change_stated``) fitted the pairs they were
written on and caught one update in five on pairs written later. This rule weighs the same
evidence with weights fitted on every labelled pair file the project holds, and each file's
figure is measured by a model fitted on the others (``python -m evals.train_updates``).

The features are the rules' own readings of a pair: the cosine of the two sentences, a change
cue and whether it ends something, the share of content words in common, the guards (a plan
or question, a coexisting value, "also", a story of what came before, another scope, subject,
file, slot or numbered issue, an old fact that reports an event, a cause) and the verdict of
``change_stated``. The weights live in ``update_model.json`` with the files they were fitted
on. Without a similarity (no embedding model) the rule says nothing, like the rule it replaces.

The pairs it was fitted on always put a statement beside the fact it is about, so it cannot
tell a neighbour on another subject from that fact: the write path asks it only about the one
current fact nearest to a deliberate note (``ingest``), never about every neighbour.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources

from . import shift
from .coding import coexisting, unasserted
from .explicit import other_file, other_scope, other_subject, restricted_case

__all__ = ["FEATURES", "features", "learned_change", "probability"]

FEATURES: tuple[str, ...] = (
    "cos", "cue", "ending", "overlap", "shared2", "unasserted", "coexist", "also", "before",
    "scope", "subject", "restricted", "file", "otherslot", "event", "causal", "cue_in_old",
    "shift", "numbered",
)
MODEL_FILE = "update_model.json"


def features(old: str, new: str, similarity: float) -> dict[str, float]:
    """The rules' readings of the pair ``old`` -> ``new`` as numbers (1.0 for a yes)."""
    cues = shift.change_cues(new)
    old_words, new_words = shift.content_words(old), shift.content_words(new)
    common = len(old_words & new_words)
    numbered_old = set(shift._NUMBERED.findall(old))
    numbered_new = set(shift._NUMBERED.findall(new))
    values = {
        "cos": similarity,
        "cue": bool(cues),
        "ending": any(shift._ENDING.match(c) for c in cues),
        "overlap": common / max(1, min(len(old_words), len(new_words))),
        "shared2": common >= 2,
        "unasserted": bool(unasserted(new)),
        "coexist": coexisting(new),
        "also": bool(shift._ALSO.search(new)),
        "before": bool(shift._BEFORE.search(new)),
        "scope": bool(other_scope(old, new)),
        "subject": bool(other_subject(old, new)),
        "restricted": bool(restricted_case(old, new)),
        "file": bool(other_file(old, new)),
        "otherslot": bool(shift._other_slot(old, new)),
        "event": shift._event(old),
        "causal": bool(shift._CAUSAL.search(old) or shift._CAUSAL.search(new)),
        "cue_in_old": any(shift._stem5(c) in old_words for c in cues),
        "shift": shift.change_stated(old, new, similarity) is not None,
        "numbered": bool(numbered_old and numbered_new and not numbered_old & numbered_new),
    }
    return {name: float(values[name]) for name in FEATURES}


@lru_cache(maxsize=1)
def _model() -> dict:
    """The fitted weights, bias and threshold (``update_model.json``, shipped in the package)."""
    text = resources.files(__package__).joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return json.loads(text)


def probability(old: str, new: str, similarity: float) -> float:
    """How likely ``new`` makes ``old`` out of date, by the fitted model."""
    model = _model()
    x = features(old, new, similarity)
    z = model["bias"] + sum(model["weights"][name] * x[name] for name in FEATURES)
    return 1.0 / (1.0 + math.exp(-z))


def learned_change(old: str, new: str, similarity: float | None) -> str | None:
    """Why ``new`` changes what ``old`` states, when the model is sure enough, or None."""
    if similarity is None:
        return None
    p = probability(old, new, similarity)
    if p < _model()["threshold"]:
        return None
    cue = next(iter(shift.change_cues(new)), None)
    said = f", cue {cue!r}" if cue else ""
    return f"changed (model p={p:.2f}{said}, similarity {similarity:.2f})"
