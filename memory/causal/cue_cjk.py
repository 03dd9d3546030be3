"""Cause/effect cues of Chinese and Japanese: sentences without spaces between words.

The word-indexed lexicon of ``cue_lexicon`` looks cues up at word starts, which a run of Han
or kana characters does not have, so these cues are found by one regex each, anywhere in the
sentence. Each pattern names its ``cause`` and ``effect`` groups; a side that is only an
anaphor ("这", "これ", "そのため") points to the previous sentence (``backref``), as in the
other languages. Precision over recall: only cues whose causal reading is unmistakable
("导致", "因为 ... 所以", "が原因で", "を引き起こした"); "从"/"から" (also "from") are left out.
"""

from __future__ import annotations

import re

from ...hooks.text import CJK

_EDGE = " \t\n,;:.!?。，、；：！？「」『』（）()\"'“”"
_ANAPHORS = frozenset({
    "这", "这个", "此", "这一点", "这件事", "这样", "因此", "所以", "于是", "结果",
    "これ", "それ", "このこと", "そのこと", "そのため", "このため", "その結果", "これにより",
    "これによって", "それにより", "それによって",
})

# (pattern, cue name, confidence): the first pattern that matches reads the sentence.
_PATTERNS: tuple[tuple[re.Pattern[str], str, float], ...] = tuple(
    (re.compile(p), cue, conf)
    for p, cue, conf in (
        # zh: "因为/由于 X，(所以/因此) Y"
        (r"^(?:因为|由于)(?P<cause>[^，,。；]+)[，,]\s*(?:所以|因此|因而|于是|才)?(?P<effect>.+)$",
         "因为", 0.9),
        # zh: "Y 是因为/是由于 X" / "Y，因为 X"
        (r"^(?P<effect>.+?)(?:[，,]\s*)?(?:是因为|是由于|因为|由于)(?P<cause>.+)$", "因为", 0.85),
        # zh: "Y 是由 X 引起/导致/造成的"
        (r"^(?P<effect>.+?)(?:是)?由(?P<cause>.+?)(?:引起|导致|造成|引发)的?.*$", "由…引起", 0.9),
        # zh: "X 导致/引起/造成/使得/引发 Y"
        (r"^(?P<cause>.+?)(?:导致了?|引起了?|造成了?|使得|致使|引发了?|触发了?|带来了?)"
         r"(?P<effect>.+)$", "导致", 0.9),
        # zh: "X，所以/因此 Y"
        (r"^(?P<cause>.+?)[，,]\s*(?:所以|因此|因而|于是|结果)(?P<effect>.+)$", "所以", 0.8),
        # zh: sentence-initial "因此/所以 Y": caused by the previous sentence
        (r"^(?P<cause>因此|所以|于是|结果)[，,]?(?P<effect>.+)$", "因此", 0.8),
        # ja: "X が/は Y を引き起こした / につながった / をもたらした / の原因となった / を招いた"
        (r"^(?P<cause>.+?)(?:が|は)(?P<effect>.+?)(?:を引き起こ|につなが|をもたら|の原因とな|"
         r"の原因にな|を招)", "引き起こす", 0.9),
        # ja: "X が原因で / のせいで / によって / により / のため(に) / ので / ことで Y"
        (r"^(?P<cause>.+?)(?:が原因で|が原因となり|のせいで|せいで|のおかげで|おかげで|"
         r"によって|により|のために|のため|ために|ため|ので|ことで)[、,]?(?P<effect>.+)$",
         "ため", 0.85),
        # ja: "X。そのため Y" inside one sentence, or sentence-initial "そのため、Y"
        (r"^(?P<cause>.*?)(?:そのため|このため|その結果|したがって|だから|それで)[、,]?"
         r"(?P<effect>.+)$", "そのため", 0.8),
    )
)


def _side(text: str) -> str:
    return text.strip(_EDGE)


def extract_cjk(text: str) -> list[tuple[str, str, str, float, str | None]]:
    """(cause, effect, cue, confidence, backref) of a Chinese or Japanese sentence; [] when no
    cue reads it (or the sentence has no Han or kana at all)."""
    if not CJK.search(text):
        return []
    body = text.strip(_EDGE)
    for pattern, cue, conf in _PATTERNS:
        m = pattern.match(body)
        if not m:
            continue
        cause, effect = _side(m.group("cause")), _side(m.group("effect"))
        if not effect:
            continue
        backref = None
        if not cause or cause in _ANAPHORS:
            cause, backref = cause or cue, "cause"
        if len(cause) < 2 and backref is None:
            continue
        return [(cause, effect, cue, conf, backref)]
    return []
