"""One fact sentence parsed into the small frozen ``_Parse`` that the merge and update rules read.

Private to ``memory.merge_guard`` and ``memory.updates``. ``_parse(text)`` tokenises once
(numbers with thousands separators, clock times and code identifiers stay one token; French
elision and English "n't" are normalised first) and records: tokens and light stems, content
words, names and identifiers, typed values (``("s", "30")``, ``("ver", "3.11")``,
``("weekday", "friday")``), the negation count, update cues, what an "instead of" replaced, the
destination of a move, and a subject/verb/object split found with the verb lexicon.

A number that names the subject ("Service 3", "ticket 12", "PR #41") is not a value: it becomes
part of the subject, as a label ``"servic#3"``, so two numbered things are two subjects rather
than one subject whose value changed (see ``_labels``).

Parses are cached (``lru_cache``) because one new fact is compared against every current fact
that shares an entity with it. No database, no model: pure functions of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import (
    _ADVERBS,
    _AGENT,
    _ARTICLES,
    _AUX,
    _CUE_WORDS,
    _CUES,
    _DEFINITE,
    _DEST,
    _DEST_STOP,
    _DETERMINERS,
    _FAMILY,
    _FRENCH_SECOND_NEG,
    _GENERIC_OBJECT,
    _MONTHS,
    _NEGATORS,
    _NOUN_FOLLOWERS,
    _NUMBER_WORDS,
    _OTHER_VERBS,
    _PAST_IRREGULAR,
    _PHRASE_END,
    _POSSESSIVES,
    _PREPOSITIONS,
    _REPLACED_AFTER,
    _REPLACED_BEFORE,
    _REPLACED_HINT,
    _STOP,
    _TERMINAL,
    _TURKISH_HINT,
    _TURKISH_NEG_SUFFIX,
    _UNIT_WORDS,
    _UNITS,
    _VALUE_BEFORE_NUMBER,
    _VERB_STEMS,
    _WEEKDAYS,
    _stem,
)

_TOKEN = re.compile(
    r"\d{1,3}(?:,\d{3})+(?:\.\d+)?"  # 10,000
    r"|\d{1,2}:\d{2}(?::\d{2})?"  # 15:00
    r"|[@\w][\w\-./:@+#]*[\w+#%]|[\w%]"
)
_FRENCH_NE = re.compile(r"(?i)\b(n)'(?=[aeiouhéèêàâîôûy])")
_NT = re.compile(r"(?i)n't\b")
_ELISION = re.compile(r"(?i)\b(?:l|d|j|m|t|s|c|qu)'(?=\w)")
_POSSESSIVE = re.compile(r"'s\b")
_TIME = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_YEAR = re.compile(r"(?:19|20)\d\d")
_IDENTIFIER = re.compile(r"[_/@:]|[a-z][A-Z]|\w\.\w|\w-\w.*\d|\d[a-zA-Z]|[a-zA-Z]\d")
_CLAUSE = re.compile(r"[,;:!?()]|\.(?:\s|$)|\s[-\u2013\u2014]\s")
_NUMERIC = re.compile(r"^v?(\d[\d,_]*(?:\.\d+)*)([a-z%/]*)$")
_CONTRASTIVE_NOT = re.compile(r",\s*(?:but\s+)?not\b|\bnot only\b|\bnot just\b|\bif not\b")


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class _Parse:
    """What the rules need to know about one sentence."""

    low: tuple[str, ...]  # lowercased tokens
    initial: str | None  # a capitalised first word that may be a name ("Alice owns ...")
    stems: tuple[str, ...]
    all_stems: frozenset[str]
    content: frozenset[str]  # stems of content words (no stop words, negators, cues, values)
    names: frozenset[str]  # lowercased capitalised names and code identifiers
    values: frozenset[tuple[str, str]]  # (kind/unit, normalised value)
    labels: frozenset[str]  # numbered things in the subject: "servic#3" for "Service 3"
    neg: int
    cues: tuple[str, ...]
    replaced: frozenset[str]
    dest: frozenset[str]  # content stems of a move/switch destination
    moved: frozenset[str]  # what "moved X to Y" moved
    dest_all: frozenset[str]  # every destination stem but articles ("own node" vs "same node")
    mods: frozenset[tuple[str, str]]  # (noun, modifier): ("offic", "berlin"), ("nod", "own")
    dest_names: frozenset[str]
    dest_values: frozenset[tuple[str, str]]
    verb: str | None  # family (or stem) of the first verb
    past: bool
    subject: frozenset[str]
    agent_subject: bool
    obj: frozenset[str]
    obj_names: frozenset[str]
    roles: frozenset[str]  # stems after "for"/"as": the role an object plays
    terminal: str | None
    term_head: str | None
    term_generic: bool


def _next_start(matches: list[re.Match[str]], i: int, default: int) -> int:
    return matches[i + 1].start() if i + 1 < len(matches) else default


def _normalise(text: str) -> str:
    t = text.replace("\u2019", "'").replace("\u2018", "'")
    t = _FRENCH_NE.sub(r"\1e ", t)  # French n'utilise -> ne utilise
    t = _NT.sub(" not", t)
    t = _ELISION.sub("", t)  # French l'/d'/qu'
    t = _POSSESSIVE.sub("", t)
    return t.replace("'", " ")


def _number(token: str) -> tuple[str, str] | None:
    """(number, attached unit) for a numeric token, or None."""
    low = token.lower()
    if low in _NUMBER_WORDS:
        return _NUMBER_WORDS[low], ""
    m = _NUMERIC.match(low)
    if not m:
        return None
    num = m.group(1).replace(",", "").replace("_", "")
    return num, m.group(2)


def _values(
    raw: tuple[str, ...], low: tuple[str, ...], skip: frozenset[int] = frozenset()
) -> frozenset[tuple[str, str]]:
    """Typed values of the tokens, except those at the ``skip`` indices (labels)."""
    out: set[tuple[str, str]] = set()
    for i, tok in enumerate(low):
        if i in skip:
            continue
        if tok in _WEEKDAYS:
            out.add(("weekday", tok))
            continue
        if tok in _MONTHS and (tok != "may" or raw[i][0].isupper()):
            out.add(("month", tok))
            continue
        if _TIME.fullmatch(tok):
            out.add(("time", tok.zfill(5)))
            continue
        if _ISO_DATE.fullmatch(tok):
            out.add(("date", tok))
            continue
        parsed = _number(tok)
        if parsed is None:
            continue
        num, unit = parsed
        nxt = low[i + 1] if i + 1 < len(low) else ""
        if unit == "s" and _YEAR.fullmatch(num) and num.endswith("0"):
            key = "decade"
        elif tok.startswith("v") or num.count(".") >= 1 and not unit:
            key = "ver"
        elif unit.startswith("/"):
            key = "per" + _UNITS.get(unit[1:], unit[1:])
        elif unit:
            key = _UNITS.get(unit, unit)
        elif nxt in _UNITS:
            key = _UNITS[nxt]
        elif nxt in _MONTHS or (i > 0 and low[i - 1] in _MONTHS):
            key = "date"
        elif _YEAR.fullmatch(num):
            key = "year"
        elif nxt and nxt not in _STOP and nxt.isalpha():
            key = _stem(nxt)
        else:
            # "level 9" vs "opt-level = 1": a bare number is keyed by the word it quantifies.
            before = [
                t
                for t in low[max(0, i - 4) : i]
                if t not in _STOP and t.isalpha() and _stem(t) not in _CUE_WORDS | _VERB_STEMS
            ]
            key = _stem(before[-1]) if before else "num"
        out.add((key, num))
    return frozenset(out)


def _is_name(raw: str, i: int, raw_tokens: tuple[str, ...]) -> bool:
    if _IDENTIFIER.search(raw):
        return not _TIME.fullmatch(raw)
    if not raw[0].isupper() or raw.lower() in _STOP or raw.lower() in _NEGATORS:
        return False
    if i > 0:
        return True
    # Sentence-initial capitals are names only when a capitalised word follows ("Maria Lopez").
    return len(raw_tokens) > 1 and raw_tokens[1][:1].isupper()


def _negations(low: tuple[str, ...], text_low: str) -> int:
    count = sum(1 for t in low if t in _NEGATORS)
    if "ne" not in low:
        count += sum(1 for t in low if t in _FRENCH_SECOND_NEG and t != "plus")
    count -= len(_CONTRASTIVE_NOT.findall(text_low))
    if _TURKISH_HINT.search(text_low):
        count += len(_TURKISH_NEG_SUFFIX.findall(text_low))
    return max(count, 0)


def _first_verb(low: tuple[str, ...], stems: tuple[str, ...]) -> int | None:
    for i, (tok, st) in enumerate(zip(low, stems, strict=True)):
        if i == 0 and tok not in _AUX:
            continue  # a sentence-initial word is the subject, even "Exports" or "Support"
        if low[i - 1] in _DETERMINERS and tok not in _AUX:
            continue  # "the default model", "a move": a noun or an adjective here
        nxt = low[i + 1] if i + 1 < len(low) else ""
        if tok not in _AUX and nxt in _NOUN_FOLLOWERS:
            continue  # "the filters store and ...", "the cache store is ...": a noun
        if tok.endswith("ing") and low[i - 1] not in _AUX:
            continue  # "the legacy reporting service": a modifier, not the predicate
        if tok in _AUX or st in _FAMILY or st in _TERMINAL or st in _OTHER_VERBS:
            return i
        if tok.endswith("ed") and len(tok) > 4 and tok.isalpha() and i > 0:
            return i
    return None


def _is_verb_form(tok: str) -> bool:
    """A token that can be the main verb after an auxiliary ("is hosted", "was moved")."""
    st = _stem(tok)
    if st in _FAMILY or st in _TERMINAL or st in _OTHER_VERBS or tok in _PAST_IRREGULAR:
        return True
    return tok.isalpha() and len(tok) > 4 and tok.endswith(("ed", "en", "ing"))


def _head(tokens: tuple[str, ...], stems: tuple[str, ...]) -> str | None:
    """Head noun of a noun phrase: the last content word before a preposition other than "of"."""
    head = None
    for tok, st in zip(tokens, stems, strict=True):
        if tok in _PREPOSITIONS and head is not None:
            break
        if tok not in _STOP and tok not in _NEGATORS and _number(tok) is None:
            if tok not in _WEEKDAYS and tok not in _MONTHS:
                head = st
    return head


def _modifiers(
    low: tuple[str, ...], stems: tuple[str, ...], breaks: frozenset[int]
) -> frozenset[tuple[str, str]]:
    """Pairs (noun, modifier) from "Berlin office", "own node" and "office in Berlin"."""
    out = set()
    blocked = _ARTICLES | _PREPOSITIONS | _AUX | _NEGATORS | {"and", "or"}
    for i in range(1, len(low)):
        if i - 1 in breaks or (i >= 2 and i - 2 in breaks):
            continue
        prev = low[i - 1]
        if prev not in blocked and low[i] not in blocked:
            out.add((stems[i], stems[i - 1]))
        if prev in ("in", "at", "on") and i >= 2 and low[i - 2] not in blocked | {low[i]}:
            out.add((stems[i - 2], stems[i]))
    return frozenset(out)


def _terminal(
    low: tuple[str, ...], stems: tuple[str, ...], vi: int | None, breaks: frozenset[int]
) -> tuple[str | None, str | None, bool]:
    """The state-ending verb, the head noun of what it ends, and whether that is generic.

    "cancelled Friday's maintenance" ends "maintenance"; "The office in Rotterdam closed" ends
    its subject, "office"; "left the company" / "cancelled her subscription" end something
    generic, which only says the subject's ongoing state is over.
    """
    for i, st in enumerate(stems):
        if st not in _TERMINAL or (vi is not None and i < vi):
            continue
        if i > 0 and low[i - 1] in _DETERMINERS:
            continue  # "the archived layout", "a removed flag": an adjective
        start = i + 2 if i + 1 < len(low) and low[i + 1] in ("down", "off", "out") else i + 1
        end = min([len(low), start + 6] + [b + 1 for b in breaks if b >= start])
        np_end = next(
            (j for j in range(start + 1, end) if low[j] in _PREPOSITIONS and low[j] != "of"), end
        )
        if start < np_end and low[start] not in _PREPOSITIONS:
            idx = range(start, np_end)
            head = _head(tuple(low[j] for j in idx), tuple(stems[j] for j in idx))
            generic = low[start] in _POSSESSIVES or head in _GENERIC_OBJECT
        else:
            idx = range(0, vi if vi is not None else i)
            head = _head(tuple(low[j] for j in idx), tuple(stems[j] for j in idx))
            generic = not idx
        if st == _stem("leave") and not generic:
            continue  # "leave coverage to CI", "leaves a finalized invoice": not an ending
        return st, head, generic
    return None, None, False


def _main_verb(low: tuple[str, ...], stems: tuple[str, ...], vi: int) -> int:
    """Skip an auxiliary ("is building", "was moved", "has been") to reach the main verb."""
    main = vi
    while main + 1 < len(low) and low[main] in _AUX and _is_verb_form(low[main + 1]):
        if _FAMILY.get(stems[main + 1]) == "be" and low[main] not in ("has", "have", "had"):
            break
        main += 1
    return main


def _labels(
    low: tuple[str, ...],
    stems: tuple[str, ...],
    hashed: frozenset[int],
    vi: int | None,
    main: int | None,
) -> dict[int, str]:
    """Numbers that name the thing the sentence is about: ``{index of the number: label}``.

    A bare integer right after a noun in the subject (before the first verb) is part of the
    subject's name, not a value: "Service 3", "ticket 12", "PR #41", "issue 7", "step 2",
    "the staging node 2". The label joins the noun's stem and the number (``"servic#3"``), so
    "Service 3" and "Service 4" are two subjects. ("node-3" is one token and needs no rule.)

    The number stays a value after an attribute word or a quantifier ("Port 8080 ...",
    "Version 3 ...", "The top 10 ...": ``_VALUE_BEFORE_NUMBER``), with a unit after it, in a
    date ("March 12"), after the first verb ("listens on port 8080", "runs on node 3": the
    object is the slot whose value changes), and in an identity statement with a definite
    complement ("Java 17 is the minimum", "Port 8080 is our default"), whose subject states
    the value of the slot on the right. A number written "#41" is a label after any noun.
    When the verb lexicon knows no verb in the sentence ("Worker 1 processes ..."), the
    subject ends at the first preposition ("The deploy waits on PR #41": the PR is what it
    waits on), and a unit word in any supported language after the number keeps it a value
    ("Zaman aşımı 30 saniye": the timeout is 30 seconds).
    """
    if vi is None or main is None:  # no verb known: the subject ends at a preposition
        end = next((i for i, t in enumerate(low) if t in _PREPOSITIONS), len(low))
    else:
        end = vi
    if main is not None and _FAMILY.get(stems[main]) == "be":
        after = [t for t in low[main + 1 :] if _stem(t) not in _CUE_WORDS and t not in _ADVERBS]
        if after and after[0] in _DEFINITE:
            return {}
    out: dict[int, str] = {}
    for i in range(1, end):
        tok, prev = low[i], low[i - 1]
        nxt = low[i + 1] if i + 1 < len(low) else ""
        if not tok.isdigit() or nxt in _UNITS or nxt in _UNIT_WORDS:
            continue
        if not prev.isalpha() or prev in _STOP or prev in _NEGATORS or prev in _PREPOSITIONS:
            continue
        if prev in _MONTHS or prev in _WEEKDAYS or prev in _NUMBER_WORDS:
            continue
        if stems[i - 1] in _CUE_WORDS:
            continue
        if stems[i - 1] in _VALUE_BEFORE_NUMBER and i not in hashed:
            continue
        out[i] = f"{stems[i - 1]}#{tok.lstrip('0') or '0'}"
    return out


@lru_cache(maxsize=8192)
def _parse(text: str) -> _Parse:
    norm = _normalise(text)
    matches = list(_TOKEN.finditer(norm))
    raw = tuple(m.group() for m in matches)
    # Clause breaks (after token i): noun phrases and modifiers never cross them.
    breaks = frozenset(
        i
        for i in range(len(matches))
        if norm[matches[i].end() : _next_start(matches, i, len(norm))] != " "
        and _CLAUSE.search(norm, matches[i].end(), _next_start(matches, i, len(norm)))
    )
    low = tuple(t.lower() for t in raw)
    stems = tuple(_stem(t) for t in low)
    plain = norm.lower()  # punctuation kept: cues and phrases stop at commas
    vi = _first_verb(low, stems)
    main = None if vi is None else _main_verb(low, stems, vi)
    hashed = frozenset(i for i, m in enumerate(matches) if norm[m.start() - 1 : m.start()] == "#")
    labels = _labels(low, stems, hashed, vi, main)
    vals = _values(raw, low, frozenset(labels))
    value_tokens = {i for i, t in enumerate(low) if _number(t) is not None or t in _WEEKDAYS}
    value_tokens |= {i + 1 for i in value_tokens if i + 1 < len(low) and low[i + 1] in _UNITS}
    names = frozenset(
        low[i] for i, r in enumerate(raw) if i not in value_tokens and _is_name(r, i, raw)
    )

    content_idx = [
        i
        for i, t in enumerate(low)
        if t not in _STOP
        and t not in _NEGATORS
        and stems[i] not in _CUE_WORDS
        and i not in value_tokens
        and (t.isalpha() or any(c.isalpha() for c in t))
    ]
    content = frozenset(stems[i] for i in content_idx) | frozenset(labels.values())

    cues = tuple(label for rx, label in _CUES if rx.search(plain))
    replaced: set[str] = set()
    guarded = _REPLACED_HINT.search(plain) is not None
    for rx in _REPLACED_AFTER if guarded else ():
        for m in rx.finditer(plain):
            words: list[str] = []
            for w in m.group(1).split():
                if w in _PHRASE_END:
                    break
                if w.endswith((",", ";")):
                    words.append(w.strip(",;."))
                    break
                words.append(w.strip(".-"))
            heads = [w for w in words if w and w not in _STOP and w not in _ARTICLES]
            if heads:
                replaced.add(_stem(heads[-1]))
                replaced.update(_stem(w) for w in heads if w in names)
    for rx in _REPLACED_BEFORE if guarded else ():
        for m in rx.finditer(plain):
            word = m.group(1).strip(".-")
            if word and word not in _STOP:
                replaced.add(_stem(word))
    dest_low: tuple[str, ...] = ()
    moved: frozenset[str] = frozenset()
    dm = _DEST.search(plain)
    if dm:
        tail = _DEST_STOP.split(dm.group(1) or dm.group(2) or "", maxsplit=1)[0]
        dest_low = tuple(t.lower() for t in _TOKEN.findall(tail)[:8])
        if "to" in dest_low[1:]:  # "moved the docs site to Cloudflare": the site moved
            cut = dest_low.index("to", 1)
            moved = frozenset(_stem(t) for t in dest_low[:cut] if t not in _STOP)
            dest_low = dest_low[cut + 1 :]
        dest_low = dest_low[:6]
    dest_raw = tuple(r for r in raw if r.lower() in dest_low)
    dest = frozenset(
        _stem(t)
        for t in dest_low
        if t not in _STOP
        and t not in _NEGATORS
        and t not in _UNITS
        and _number(t) is None
        and not t[:1].isdigit()
    ) - {_stem(t) for t in _WEEKDAYS}
    dest_values = _values(dest_raw, tuple(t.lower() for t in dest_raw))

    if vi is None or main is None:
        verb, past, subject_idx, obj_idx = None, False, content_idx, []
    else:
        st = stems[main]
        verb = _FAMILY.get(st, st)
        past = low[vi] in _PAST_IRREGULAR or (low[vi].endswith("ed") and vi == main)
        subject_idx = [i for i in content_idx if i < vi]
        obj_idx = [i for i in content_idx if i > main]
    subject = frozenset(stems[i] for i in subject_idx) | frozenset(labels.values())
    agent = any(t in _AGENT for t in low[: vi if vi is not None else 1])
    obj = frozenset(stems[i] for i in obj_idx)
    obj_names = frozenset(low[i] for i in obj_idx if low[i] in names)
    roles = frozenset(
        stems[i + 1]
        for i in range(len(low) - 1)
        if low[i] in ("for", "as") and low[i + 1] not in _STOP
    )

    terminal, term_head, term_generic = _terminal(low, stems, vi, breaks)

    return _Parse(
        low=low,
        initial=low[0] if raw and raw[0][:1].isupper() and low[0] not in _STOP else None,
        stems=stems,
        all_stems=frozenset(stems),
        content=content,
        names=names,
        values=vals,
        labels=frozenset(labels.values()),
        neg=_negations(low, plain),
        cues=cues,
        replaced=frozenset(replaced),
        dest=dest,
        moved=moved,
        mods=_modifiers(low, stems, breaks),
        dest_all=frozenset(_stem(t) for t in dest_low if t not in _ARTICLES) - {"to"},
        dest_names=frozenset(t for t in dest_low if t in names),
        dest_values=dest_values,
        verb=verb,
        past=past,
        subject=subject,
        agent_subject=agent,
        obj=obj,
        obj_names=obj_names,
        roles=roles,
        terminal=terminal,
        term_head=term_head,
        term_generic=term_generic,
    )
