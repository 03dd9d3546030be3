"""The merge guard of the write path: may two near-identical fact sentences become one?

``safe_to_merge(a, b)`` is asked after the caller has already found ``a`` and ``b``
near-identical (embedding cosine or token overlap). Merging is allowed only when nothing would
be lost, so any difference in a value (number, version, date, time, amount, unit, identifier,
name, the number of a numbered thing), in polarity (negation, in seven languages) or on the two
sides of an antonym pair vetoes it. It is deliberately stricter than update detection: a merge
destroys a sentence, an update only retires one.

A pure function over two cached parses (``memory.fact_parse``); no database, no model.
"""

from __future__ import annotations

from ..updates.lexicon import _ANTONYMS
from ..updates.parse import _parse

__all__ = ["safe_to_merge"]


def safe_to_merge(a: str, b: str) -> bool:
    """Whether two near-identical sentences can be merged without losing anything.

    Args:
        a: one sentence.
        b: the other; the caller already found it near-identical to ``a``.

    Returns:
        False when the two differ in a number, version, date, time, amount or unit, in polarity
        (negation count), in the side of an antonym pair, or in a name or code identifier that
        only one of them mentions; True otherwise.
    """
    pa, pb = _parse(a), _parse(b)
    if pa.low == pb.low:
        return True
    if sorted(v for _, v in pa.values) != sorted(v for _, v in pb.values):
        return False
    if pa.labels != pb.labels:  # "Service 3" vs "Service 4": those numbers are not values
        return False
    units_a = {v: k for k, v in pa.values if k not in ("num", "ver")}
    units_b = {v: k for k, v in pb.values if k not in ("num", "ver")}
    if any(units_b.get(v, k) != k for v, k in units_a.items()):
        return False
    if pa.neg != pb.neg:
        return False
    for left, right in _ANTONYMS:
        sides_a = (bool(pa.all_stems & left), bool(pa.all_stems & right))
        sides_b = (bool(pb.all_stems & left), bool(pb.all_stems & right))
        if any(sides_a) and any(sides_b) and sides_a != sides_b:
            return False
    words_a, words_b = set(pa.low), set(pb.low)
    names_a = pa.names | ({pa.initial} if pa.initial else set())
    names_b = pb.names | ({pb.initial} if pb.initial else set())
    return names_a <= words_b and names_b <= words_a
