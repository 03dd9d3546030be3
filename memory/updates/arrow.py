"""An update written as a diff: the old fact's value on the left of an arrow.

Developers report a changed setting the way a diff shows it: "concurrency 4 -> 12",
"IPHONEOS_DEPLOYMENT_TARGET 15.0 -> 16.0", "dbt-core==1.5.9 -> 1.8.2", "default branch
master → main", "from 30s to 10s" (numbers only in that frame: a name there is the slot rules'
job). When the value on the left is the one the old fact states, and the two share a word of
what they are about (the words inside identifiers count: ``--max-model-len`` and "the vLLM
server" meet on "vllm" in the path), the old value has been replaced. No other sign is as
direct, so no similarity floor beyond the caller's applies.

Not a diff: a chain ("Input -> Sim -> Render"), a mapping whose left side the old fact does not
hold, or a right side the old fact already holds (both values stated before).
"""

from __future__ import annotations

import re

from .shift import content_words

__all__ = ["value_arrow"]

_TOKEN = r"[\w.:@/+=-]*\w"
_ARROW = re.compile(rf"(?<![\w.:@/+=-])({_TOKEN})\s*(?:->|→|=>|⇒)\s*({_TOKEN})")
_NUMERIC = r"v?\d[\w.:/+-]*"  # "from 3 to 8": names in that frame are the slot rules' job
_FROM_TO = re.compile(
    rf"\b(?:from|von|de|da|van)\s+({_NUMERIC})\s+(?:to|auf|zu|a|à|para|naar|in)\s+({_NUMERIC})",
    re.IGNORECASE,
)
_CHAIN = re.compile(r"(?:->|→|=>|⇒)[^,;\n]*?(?:->|→|=>|⇒)")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_WORD = re.compile(r"[^\W\d_]{2,}")


def _numbers(text: str) -> set[str]:
    """Numbers of ``text`` with trailing ".0" parts dropped: "15.0" and "15" are one value."""
    return {re.sub(r"(?:\.0+)+$", "", n) for n in _NUMBER.findall(text)}


def _holds(old_numbers: set[str], value: str) -> bool:
    """Whether the old fact states ``value``: the same number, or a release of the version it
    names ("1.5" holds "1.5.9")."""
    return any(v == o or v.startswith(o + ".") for v in _numbers(value) for o in old_numbers)


def _side(old: str, left: str, right: str) -> str | None:
    """"left -> right" as a change of the old fact's value, shown, or None."""
    old_numbers = _numbers(old)
    if _NUMBER.search(left):
        if not _holds(old_numbers, left) or not _NUMBER.search(right) or _holds(old_numbers, right):
            return None
    else:
        old_words = {w.casefold() for w in _WORD.findall(old)}
        l_words = {w.casefold() for w in _WORD.findall(left)}
        r_words = {w.casefold() for w in _WORD.findall(right)}
        if not l_words or not l_words <= old_words or not r_words or r_words <= old_words:
            return None
    return f"{left} -> {right}"


# Markdown emphasis around a value ("v12 → **v14**"); not "_", which joins identifiers.
_EMPHASIS = re.compile(r"(\*\*?)(?=\S)([^*\n]+?)(?<=\S)\1")


def value_arrow(old: str, new: str) -> str | None:
    """Why ``new`` replaces the value ``old`` states by a diff, or None."""
    new = _EMPHASIS.sub(r"\2", new)  # "v12 → **v14**"
    if _CHAIN.search(new):
        return None
    for rx in (_ARROW, _FROM_TO):
        for m in rx.finditer(new):
            shown = _side(old, m.group(1), m.group(2))
            if shown is None:
                continue
            values = content_words(m.group(1)) | content_words(m.group(2))
            about = {w for w in content_words(old) & content_words(new) - values
                     if not w[:1].isdigit()}
            if about:
                return f"value changed: {shown} (about {', '.join(sorted(about)[:3])})"
    return None
