"""A learned judge of one question the rules answer only when they can align the words: does
a new note say that what an older one states has changed?

The rules of ``detect.py`` need the two sentences to share a subject, a slot or a cue they
know, so most updates said another way ("deleted the last Jenkinsfile, everything's on GH
Actions" after "We run CI on Jenkins.") pass them by. The judge is a logistic regression over
the two sentences' vectors (the packaged MiniLM: their product, difference and the new one's
own), the character 3- and 4-grams of the new sentence (words of change in any language:
"abgeschaltet", "已删", "->"), and a few counts of shared words and numbers. It was fitted by
``python -m evals.train_update_judge`` on the project's labelled coding pairs (update or
complement), and is asked only after the rules said nothing and none of their vetoes holds
(a plan, another service, one case of it, a coexisting value). Its weights are tied to the
embedding model they were fitted with: under any other model it stays silent.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

WEIGHTS = Path(__file__).with_name("judge_minilm.npz")
HASH_DIM = 2048  # buckets of the new sentence's character n-grams
GRAMS = (3, 4)

_WORD = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_ARROW = re.compile(r"->|→|=>")


def _grams(text: str) -> np.ndarray:
    """The new sentence's character n-grams, hashed into ``HASH_DIM`` buckets, unit length."""
    v = np.zeros(HASH_DIM)
    t = f" {text.lower()} "
    for n in GRAMS:
        for i in range(len(t) - n + 1):
            v[zlib.crc32(t[i : i + n].encode()) % HASH_DIM] += 1.0
    return v / (np.linalg.norm(v) + 1e-9)


def _counts(old: str, new: str) -> np.ndarray:
    """Shared words and numbers, the new sentence's length, and whether it is code or a diff."""
    wo, wn = set(_WORD.findall(old.lower())), set(_WORD.findall(new.lower()))
    no, nn = set(_NUMBER.findall(old)), set(_NUMBER.findall(new))
    return np.array([
        len(wo & wn) / max(1, len(wo | wn)),
        len(wo & wn) / max(1, len(wo)),
        float(bool(no)),
        float(bool(nn)),
        float(bool(no and nn and not no & nn)),
        float(bool(no & nn)),
        min(len(new), 300) / 300,
        float("\n" in new),
        float(bool(_ARROW.search(new))),
    ])


def features(old: str, new: str, old_vec: np.ndarray, new_vec: np.ndarray) -> np.ndarray:
    """The judge's input for one pair: the same vector at fitting and at use."""
    a = old_vec / (np.linalg.norm(old_vec) + 1e-9)
    b = new_vec / (np.linalg.norm(new_vec) + 1e-9)
    return np.concatenate([[float(a @ b)], b, a * b, np.abs(a - b), _counts(old, new),
                           _grams(new)])


@dataclass(frozen=True)
class Judge:
    """Fitted weights: standardisation, coefficients, and the probability it must reach."""

    model: str
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    bias: float
    threshold: float

    def probability(
        self, old: str, new: str, old_vec: Sequence[float], new_vec: Sequence[float]
    ) -> float:
        """How likely ``new`` makes ``old`` out of date, by the fitted model."""
        a, b = np.asarray(old_vec, dtype=np.float64), np.asarray(new_vec, dtype=np.float64)
        x = (features(old, new, a, b) - self.mean) / self.scale
        return float(1.0 / (1.0 + np.exp(-(x @ self.coef + self.bias))))

    def save(self, path: Path = WEIGHTS) -> None:
        np.savez_compressed(
            path, model=np.array(self.model), mean=self.mean.astype(np.float32),
            scale=self.scale.astype(np.float32), coef=self.coef.astype(np.float32),
            bias=np.array(self.bias), threshold=np.array(self.threshold),
        )


@cache
def judge_for(model: str) -> Judge | None:
    """The judge fitted with the embedding model ``model``, or None (another model, or no
    weights shipped): vectors of another space mean nothing to these coefficients."""
    if not WEIGHTS.is_file():
        return None
    with np.load(WEIGHTS) as z:
        if str(z["model"]) != model:
            return None
        return Judge(str(z["model"]), z["mean"].astype(np.float64), z["scale"].astype(np.float64),
                     z["coef"].astype(np.float64), float(z["bias"]), float(z["threshold"]))
