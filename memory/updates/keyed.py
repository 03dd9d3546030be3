"""The same setting with another value, where the setting is written as a key: an identifier
in code ("compileSdk 33", "`MAX_UPLOAD_MB` is 25", "torch==2.1.2"), a flag ("--workers 9") or a
word assigned to ("workers = 4"). The new note may also move a plain word to a value ("moved
torch up to 2.4.1").

Coding notes name a setting the way the code does, and the rest of the two sentences may share
nothing ("The Android app targets compileSdk 33." / "compileSdk is 35 now, Play Console forced
it"). A key read in both sentences, each time with one value, and the values differ: the
setting changed. The caller applies the guards every rule obeys (a plan, a condition, "also",
another scope or part).
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["keyed_value"]

# A value: a number or a version (with a pin's operator), or a code span.
_VALUE = r"(?P<v>[~^<>=]*\s?v?\d[\w.+\-]*|`[^`\s]{1,40}`)"
# A key written as code: a backticked name, a flag, an identifier with "_", ".", "-", a
# digit or an inner capital.
_CODE_KEY = (
    r"`(?P<c>[A-Za-z][\w.\-]{1,40})`|(?P<f>--?[a-z][\w\-]{1,30})|"
    r"(?P<i>[A-Za-z][\w\-.]*(?:[_.\-]|[a-z][A-Z]|[A-Za-z]\d)[\w\-.]*[A-Za-z0-9])"
)
# How a key takes its value: "is", "=", ":", "==", "to", "at", an arrow, or nothing.
_LINK = r"\s*(?:(?:is|are|was|now|set|stays?|of|at|to|up to|down to|=|==|:|->|\u2192)\s*){0,3}"
# The key ends where a word ends: "pinecrest-pg15" is a name, not the key "pinecrest-pg1" at 5.
_KEYED = re.compile(rf"(?:{_CODE_KEY})(?![\w.\-]){_LINK}{_VALUE}(?![\w.])")
# A plain word assigned to ("workers = 4"); not with a colon, which in prose heads a list
# ("TTL for product pages: 300s").
_ASSIGNED = re.compile(rf"\b(?P<w>[a-z][a-z_]{{2,30}})\s*=\s*{_VALUE}(?![\w.])")
# A plain word moved to a value ("moved torch up to 2.4.1", "bumped .nvmrc to 22").
_MOVED_TO = re.compile(rf"(?P<w>[A-Za-z.][\w.\-]{{1,30}})\s+(?:up |down )?to\s+{_VALUE}(?![\w.])")


def _norm_key(key: str) -> str:
    return key.strip("`").lstrip("-").lower()


def _norm_value(value: str) -> str:
    return re.sub(r"\s+", "", value.strip("`")).lower().rstrip(".")


@lru_cache(maxsize=8192)
def _keyed(text: str, loose: bool) -> dict[str, frozenset[str]]:
    """The keys of ``text`` and the values it gives them; ``loose`` also reads a plain word
    moved to a value ("torch up to 2.4.1")."""
    out: dict[str, set[str]] = {}
    for m in _KEYED.finditer(text):
        key = m.group("c") or m.group("f") or m.group("i")
        out.setdefault(_norm_key(key), set()).add(_norm_value(m.group("v")))
    for m in _ASSIGNED.finditer(text):
        out.setdefault(_norm_key(m.group("w")), set()).add(_norm_value(m.group("v")))
    if loose:
        for m in _MOVED_TO.finditer(text):
            out.setdefault(_norm_key(m.group("w")), set()).add(_norm_value(m.group("v")))
    return {k: frozenset(v) for k, v in out.items()}  # cached: never mutated


def _numeric(value: str) -> bool:
    return bool(re.match(r"[~^<>=]*v?\d", value))


def keyed_value(old: str, new: str) -> str | None:
    """``key: a -> b`` when one key holds one value in each note and the values differ, and
    the new note does not repeat the old value (a history or two values side by side)."""
    ko, kn = _keyed(old, False), _keyed(new, True)
    low_new = new.lower()
    for key in ko.keys() & kn.keys():
        vo, vn = ko[key], kn[key]
        if len(vo) != 1 or len(vn) != 1 or vo == vn:
            continue
        a, b = next(iter(vo)), next(iter(vn))
        if _numeric(a) != _numeric(b) or _said(_bare(a), low_new):
            continue  # another kind of value, or the old one again: "from 4 to 8", "4 and 8"
        return f"{key}: {a} -> {b}"
    return None


def _bare(value: str) -> str:
    return value.lstrip("~^<>=v").strip()


def _said(value: str, low: str) -> bool:
    return bool(value) and re.search(rf"(?<![\w.]){re.escape(value)}(?![\w])", low) is not None
