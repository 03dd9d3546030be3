"""Update rules for the way coding agents and their users state changes.

``detect`` tries them after the generic rules of ``memory.updates.detect``; ``guarded`` says
when a new statement cannot supersede anything (a plan, a condition, a trial, a proposal, or a
value that joins the old one: "also", "as well"). Each rule needs the same thing twice: evidence
that the slot changed, and evidence that both facts are about the same slot (shared context
words, no two different subjects, no opposite scopes such as staging vs production).

* *swap*: one tool or identifier of a category replaced by another of the same category
  ("we dropped Jest; the tests run on Vitest", "Staging moved to stage.acme.io");
* *version*: a name whose version number changed ("billing now builds with Go 1.22");
* *measure*: one attribute of one subject with another number ("the worker answers on 9090");
* *bug status*: an open bug fixed, or a fixed one back;
* *lifted*: a prohibition or requirement lifted ("the Friday merge freeze is lifted");
* *owner*: another person or team owns, maintains, drives or is on call for the same thing;
* *rename*: "renamed X to Y", "X is now called Y", "moved X into Y" for an X the old fact names;
* *flip*: the same subject with the other side of an antonym pair and an update cue.

Pure functions of the two texts; the per-text analysis is cached like the parses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import _ANTONYMS, _STOP, _UNITS, _VERB_STEMS, _stem
from .parse import _TOKEN, _normalise, _number, _Parse, _parse
from .tools import (
    _ALIAS_STEMS,
    _ALIASES,
    _ALSO,
    _BUG_FIXED,
    _BUG_OPEN,
    _BUG_REOPENED,
    _CASED_ONLY,
    _CLAUSE_SPLIT,
    _CONSTRAINT,
    _GENERIC,
    _HANDOVER,
    _HEDGE,
    _LIFTED,
    _MULTI,
    _ONLY,
    _OWNER,
    _REMOVAL,
    _RENAME,
    _SCOPE_GROUPS,
    _SHAPES,
    _TEAM_HEADS,
    _TOOL_CATEGORIES,
)

__all__ = ["Found", "detect", "guarded", "opposite_scopes", "same_file"]


@dataclass(frozen=True)
class Found:
    reason: str
    kind: str
    confidence: float


_LEAD = re.compile(
    r"^\s*(?:after|since|with|following|once|as of|starting|from|due to|because of|now that)"
    r"\b[^,;]*,\s*",
    re.IGNORECASE,
)
_CHANNEL = re.compile(r"(?<![\w#])#([a-z][\w-]*)", re.IGNORECASE)
_HASH_NUMBER = re.compile(r"#(\d+)")
_NEG_CONSTRAINT = re.compile(
    r"\b(?:can't|cannot|can not|don't|do not|never|not allowed|must not|mustn't|forbidden|"
    r"prohibited|banned)\b"
)
_BYTES = {"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "ki": 1024.0, "mi": 1024.0**2,
          "gi": 1024.0**3, "ti": 1024.0**4, "kib": 1024.0, "mib": 1024.0**2, "gib": 1024.0**3}
_SKIP_TO_VALUE = frozenset(
    "is are was were be been on at to up of now v version went moved pinned bumped upgraded "
    "set runs run ships uses use targets target builds build requires require needs need".split()
)
_PORT_VERBS = frozenset(
    _stem(w) for w in "listen listens bind binds serve serves answer answers respond responds "
    "expose exposes port".split()
)
_LOCATION_WORDS = frozenset(
    _stem(w) for w in "repo repository folder directory dir module package server node host "
    "cluster region bucket channel monorepo namespace account org workspace file path "
    "office".split()
)
_STATUS_WORDS = frozenset(
    _stem(w) for w in "open broken fail fails failing unresolved progress known issue flaky "
    "bug fixed fix resolved closed stable pass passes gone works working back reopened still "
    "again hold keeps".split()
)
_CONSTRAINT_WORDS = frozenset(
    _stem(w) for w in "allowed forbidden blocked freeze lifted fine cleared enough removed "
    "dropped required requirement restricts need needs must".split()
)
_OWNER_WORDS = frozenset(
    _stem(w) for w in "owns own owned owner maintains maintained maintain maintainer leads lead "
    "drives drive driven responsible on-call call codeowners took taken over handed off "
    "questions go goes ask".split()
)
_GENERIC_VERBS = frozenset(
    _stem(w) for w in "use uses used using run runs running is are be go goes live lives sit "
    "sits get gets now these days since instead moved move switched switch".split()
)
# "After Monday's release ...", "... these days": said as a change, like "now".
_TEMPORAL = re.compile(
    r"^\s*(?:after|since|as of|starting|following|with the new)\b|"
    r"\b(?:these days|since|as of|anymore|again|from now on|going forward)\b"
)
_PARTICLES = frozenset("up down out over off back about around".split())
_DECISION_WORDS = frozenset(
    _stem(w) for w in "plan decision idea approach proposal using use rule policy".split()
)
_SCOPE_INDEX: dict[str, tuple[int, int]] = {
    w: (g, s) for g, group in enumerate(_SCOPE_GROUPS) for s, side in enumerate(group)
    for w in side.split()
}


@dataclass(frozen=True)
class _View:
    low: str  # lowercased, normalised apostrophes
    parse: _Parse
    core: _Parse  # the main clause: a leading "After the cutover, ..." is dropped
    items: dict[str, frozenset[str]]  # category (tool category or identifier shape) -> names
    removed: frozenset[str]  # names in a clause that ends them ("we dropped Jest")
    versions: dict[str, frozenset[str]]  # anchor name -> version numbers next to it
    measures: dict[str, frozenset[str]]  # value kind -> values (ports, sizes, durations)
    numbers: frozenset[str]
    hashes: frozenset[str]
    scopes: frozenset[tuple[int, int]]
    persons: frozenset[str]
    hedged: bool
    also: bool


def _canon(name: str) -> str:
    return _ALIASES.get(name, name)


def _tools(raw: list[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    low = [t.lower() for t in raw]
    for i, tok in enumerate(low):
        names = []
        if i + 1 < len(low) and f"{tok}_{low[i + 1]}" in _MULTI:
            names.append(f"{tok}_{low[i + 1]}")
        if tok in _TOOL_CATEGORIES and (tok not in _CASED_ONLY or raw[i] != tok):
            names.append(tok)
        for name in names:
            for cat in _TOOL_CATEGORIES[name]:
                out.setdefault(cat, set()).add(_canon(name))
    for tok in raw:
        for shape, rx in _SHAPES:
            if rx.match(tok if shape == "env" else tok.lower()):
                out.setdefault("shape:" + shape, set()).add(tok.lower())
                break
    return out


def _clauses(low: str) -> list[str]:
    return [c for c in _CLAUSE_SPLIT.split(low) if c and c.strip()]


def _versions(raw: list[str], low: list[str]) -> dict[str, set[str]]:
    """Anchor name -> numbers that follow it closely ("Go 1.22", "Postgres is on 16")."""
    out: dict[str, set[str]] = {}
    for i, tok in enumerate(low):
        parsed = _number(tok)
        if parsed is None or parsed[1] or tok in _UNITS:
            continue
        nxt = low[i + 1] if i + 1 < len(low) else ""
        if nxt in _UNITS or (i > 0 and raw[i - 1].endswith("#")):
            continue
        versioned = "." in parsed[0] or tok.startswith("v") or (i > 0 and low[i - 1] == "version")
        for j in range(i - 1, max(-1, i - 6), -1):
            word = raw[j]
            anchor = (
                any(c.isupper() for c in word[1:] if c.isalpha())
                or (j > 0 and word[:1].isupper())
                or (word.isupper() and len(word) > 1)
                or (low[j] in _TOOL_CATEGORIES and (low[j] not in _CASED_ONLY or word != low[j]))
            )
            if anchor and low[j] not in _STOP and _number(low[j]) is None:
                out.setdefault(_canon(low[j]), set()).add(parsed[0])
                break
            if not versioned and low[j] not in _SKIP_TO_VALUE and low[j] not in _STOP:
                break
    return out


def _measures(p: _Parse, low: list[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for key, value in p.values:
        if key in ("num", "ver", "year", "date", "weekday", "month", "decade"):
            continue
        if key in _BYTES:
            key, value = "bytes", f"{float(value) * _BYTES[key]:.0f}"
        elif key in _PORT_VERBS:
            key = "port"
        out.setdefault(key, set()).add(value)
    for tok in low:  # "Memory is 512Mi": attached units the parser keys apart
        m = re.fullmatch(r"(\d+(?:\.\d+)?)(ki|mi|gi|ti|kib|mib|gib)", tok)
        if m:
            out.setdefault("bytes", set()).add(f"{float(m.group(1)) * _BYTES[m.group(2)]:.0f}")
            out.pop(m.group(2), None)
    return out


def _persons(raw: list[str], low: list[str]) -> set[str]:
    out = set()
    for i, tok in enumerate(raw):
        lw = low[i]
        if lw in _STOP or _OWNER.fullmatch(lw) or lw in _TOOL_CATEGORIES:
            continue
        if tok.startswith("@") or (tok[:1].isupper() and tok[1:].islower() and tok.isalpha()):
            out.add(lw)
        elif i + 1 < len(low) and low[i + 1] in _TEAM_HEADS and lw.isalpha():
            out.add(lw)
    return out


@lru_cache(maxsize=8192)
def _view(text: str) -> _View:
    norm = _normalise(text)
    low_text = text.replace("\u2019", "'").lower()
    raw = [m.group() for m in _TOKEN.finditer(norm)]
    low = [t.lower() for t in raw]
    items = {k: frozenset(v) for k, v in _tools(raw).items()}
    for ch in _CHANNEL.findall(text):
        items = {**items, "shape:channel": items.get("shape:channel", frozenset()) | {ch.lower()}}
    removed: set[str] = set()
    for clause in _clauses(low_text):
        part = _removed_part(clause)
        if part:
            words = set(re.findall(r"[\w@./#+-]+", part))
            words |= {w.lstrip("#") for w in words}
            joined = {"_".join(pair) for pair in zip(part.split(), part.split()[1:], strict=False)}
            for names in items.values():
                removed |= {n for n in names if n in words or n in joined}
    core_text = _LEAD.sub("", text, count=1)
    p = _parse(text)
    core = _parse(core_text) if core_text != text and core_text.strip() else p
    versions = _versions(raw, low)
    if removed:
        kept = _versions(*_kept(raw, low, low_text))
        versions = kept
    scopes = frozenset(_SCOPE_INDEX[t] for t in low if t in _SCOPE_INDEX)
    persons = _persons(raw, low)
    initial = raw[0] if raw else ""
    if initial[:1].isupper() and initial.lower() not in _STOP and initial.isalpha():
        persons.add(initial.lower())
    return _View(
        low=low_text,
        parse=p,
        core=core,
        items=items,
        removed=frozenset(removed),
        versions={k: frozenset(v) for k, v in versions.items()},
        measures={k: frozenset(v) for k, v in _measures(p, low).items()},
        numbers=frozenset(t for t in low if t.isdigit() and len(t) >= 2),
        hashes=frozenset(_HASH_NUMBER.findall(text)),
        scopes=scopes,
        persons=frozenset(persons),
        hedged=_HEDGE.search(low_text) is not None,
        also=_ALSO.search(low_text) is not None,
    )


_INSTEAD_OF = re.compile(r"\binstead of\b(.*)")
_REPLACED_WITH = re.compile(r"\breplac\w*\b(.*?)(?:\b(?:with|by)\b|$)")
_REPLACED_BY = re.compile(r"(.*)\b(?:was|were|got|is|are|been) replaced (?:by|with)\b")


def _removed_part(clause: str) -> str:
    """The part of a clause whose names it ends: all of "RabbitMQ is gone", only the Y of
    "X instead of Y" / "replaced Y with X" / "Y was replaced by X", none of "X instead"."""
    for rx in (_INSTEAD_OF, _REPLACED_BY, _REPLACED_WITH):
        m = rx.search(clause)
        if m:
            return m.group(1)
    if re.search(r"\binstead\b", clause):
        return ""
    return clause if _REMOVAL.search(clause) else ""


def _kept(raw: list[str], low: list[str], low_text: str) -> tuple[list[str], list[str]]:
    """The tokens outside clauses that end what they name ("; 1.4 no longer works")."""
    keep_raw: list[str] = []
    for clause in _clauses(low_text):
        if _removed_part(clause):
            continue
        words = clause.split()
        keep_raw += [r for r in raw if r.lower() in words or r.lower().strip(".") in words]
    seen: list[str] = []
    for r in raw:
        if r in keep_raw and r not in seen:
            seen.append(r)
    return seen, [r.lower() for r in seen]


def guarded(new_text: str) -> bool:
    """A plan, condition, trial or proposal, or a value that joins the old ones."""
    v = _view(new_text)
    return v.hedged or v.also


# --------------------------------------------------------------------------- context


def _norm_stems(stems: frozenset[str]) -> set[str]:
    return {_ALIAS_STEMS.get(s, s) for s in stems} - _GENERIC


def _subjects_differ(o: _View, n: _View) -> bool:
    """Both main clauses name a subject, and they are two things ("the Java services" vs "the
    Kotlin services", "the API" vs "the admin dashboard")."""
    a, b = o.core, n.core
    if a.agent_subject or b.agent_subject or not a.subject or not b.subject:
        return False
    la, lb = _real_labels(o, a), _real_labels(n, b)
    sa = _norm_stems(a.subject - a.labels) - _VERB_STEMS
    sb = _norm_stems(b.subject - b.labels) - _VERB_STEMS
    if la and lb and not la & lb:
        return True
    if not sa or not sb:
        return False
    if not sa & sb:
        # "Infrastructure is ..." vs "Infra is ...": one sentence's subject is in the other.
        return not (sa <= _norm_stems(b.content) or sb <= _norm_stems(a.content))
    extra_a = {s for s in sa - sb if s not in _norm_stems(b.content)}
    extra_b = {s for s in sb - sa if s not in _norm_stems(a.content)}
    return bool(extra_a and extra_b)


_TOOL_STEMS = frozenset(_stem(t) for t in _TOOL_CATEGORIES)


def _real_labels(v: _View, p: _Parse) -> frozenset[str]:
    """Labels of numbered things, not "Node 18" (a tool and its version)."""
    versions = {x for values in v.versions.values() for x in values}
    return frozenset(
        x.split("#", 1)[1]
        for x in p.labels
        if x.split("#", 1)[0] not in _TOOL_STEMS or x.split("#", 1)[1] not in versions
    )


def _opposite_scopes(o: _View, n: _View) -> bool:
    """"in staging" vs "in production", "reads" vs "writes", "Linux" vs "Windows"."""
    for group in {g for g, _ in o.scopes} & {g for g, _ in n.scopes}:
        so = {s for g, s in o.scopes if g == group}
        sn = {s for g, s in n.scopes if g == group}
        if not so & sn:
            return True
    return False


def _context(o: _View, n: _View, drop: frozenset[str] = frozenset()) -> set[str]:
    """Content stems both share, without names of tools, generic verbs and ``drop``."""
    names = {_stem(x) for v in (o, n) for items in v.items.values() for x in items}
    names |= {x for v in (o, n) for items in v.items.values() for x in items}
    a = _norm_stems(o.parse.content) - names - _GENERIC_VERBS - drop
    b = _norm_stems(n.parse.content) - names - _GENERIC_VERBS - drop
    return a & b


def _roles_differ(o: _View, n: _View) -> bool:
    ro, rn = o.parse.roles - _STOP, n.parse.roles - _STOP
    return bool(ro and rn and not ro & rn)


def opposite_scopes(old_text: str, new_text: str) -> bool:
    """Whether the two texts sit on opposite sides of a scope (staging / production, ...)."""
    return _opposite_scopes(_view(old_text), _view(new_text))


def same_file(old_text: str, new_text: str) -> bool:
    """Whether both name a file of the same base name ("utils/helpers.py", "helpers.py")."""
    a = _view(old_text).items.get("shape:path", frozenset())
    b = _view(new_text).items.get("shape:path", frozenset())
    if not a or not b:
        return False
    return bool({x.rsplit("/", 1)[-1] for x in a} & {x.rsplit("/", 1)[-1] for x in b})


def _tied(o: _View, n: _View) -> bool:
    return not _subjects_differ(o, n) and not _opposite_scopes(o, n)


# --------------------------------------------------------------------------- rules


def _swap(o: _View, n: _View) -> Found | None:
    for cat in o.items.keys() & n.items.keys():
        olds = {a for a in o.items[cat] if a not in n.items[cat] or a in n.removed}
        news = {b for b in n.items[cat] - o.items[cat] if b not in n.removed}
        if not olds or not news or o.items[cat] - olds:
            continue
        if cat.startswith("shape:"):
            # "utils/helpers.py" and "core/helpers.py" are one file moved; other shapes need
            # more shared context than the shape itself.
            pass
        if _roles_differ(o, n) or not _tied(o, n):
            return None
        if not _context(o, n):
            continue
        what = f"{sorted(olds)[0]} -> {sorted(news)[0]}"
        return Found(f"replaced: {what} ({cat.removeprefix('shape:')})", "value", 0.8)
    return None


def _matches(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 3 and (a.endswith(b) or b.endswith(a)))


def _version(o: _View, n: _View) -> Found | None:
    for ao, vo in o.versions.items():
        for an, vn in n.versions.items():
            if not _matches(ao, an) or vo & vn:
                continue
            if not _tied(o, n):
                return None
            return Found(
                f"version changed: {ao} {'/'.join(sorted(vo))} -> {'/'.join(sorted(vn))}",
                "value", 0.85,
            )
    return None


def _measure(o: _View, n: _View, similarity: float | None) -> Found | None:
    a, b = o.core, n.core
    if not (a.subject and b.subject) or a.agent_subject or b.agent_subject:
        return None
    sa = {_ALIAS_STEMS.get(x, x) for x in a.subject - a.labels} - _VERB_STEMS
    sb = {_ALIAS_STEMS.get(x, x) for x in b.subject - b.labels} - _VERB_STEMS
    if not (sa and sb and (sa <= sb or sb <= sa)):
        return None  # "the API timeout" vs "the database timeout": two attributes
    cue = bool(n.parse.cues) or _TEMPORAL.search(n.low) is not None
    if similarity is not None and similarity < 0.5 and not cue:
        return None
    verbs = {a.verb, b.verb}
    if not (cue or len(verbs) == 1 or None in verbs or verbs <= _PORT_VERBS | {"listen"}):
        return None
    new_obj = _norm_stems(b.obj) - _norm_stems(o.parse.content) - _GENERIC_VERBS - _PARTICLES
    new_obj = {w for w in new_obj if not any(c.isdigit() for c in w)}
    if new_obj - {_stem(k) for k in n.measures}:
        return None  # "also exposes metrics on 9100": another object
    for key in o.measures.keys() & n.measures.keys():
        vo, vn = o.measures[key], n.measures[key]
        if len(vo) == 1 and len(vn) == 1 and vo != vn:
            if _opposite_scopes(o, n):
                return None
            return Found(f"value changed: {next(iter(vo))} -> {next(iter(vn))} {key}", "value",
                         0.8)
    return None


def _bug_status(o: _View, n: _View) -> Found | None:
    def status(v: _View) -> str | None:
        if _BUG_REOPENED.search(v.low):
            return "reopened"
        if _BUG_FIXED.search(v.low):
            return "fixed"
        if _BUG_OPEN.search(v.low):
            return "open"
        return None

    so, sn = status(o), status(n)
    if not ((so == "open" and sn == "fixed") or (so == "fixed" and sn == "reopened")):
        return None
    if o.hashes and n.hashes and not o.hashes & n.hashes:
        return None
    shared = _context(o, n, _STATUS_WORDS)
    ids = (o.numbers & n.numbers) | (o.hashes & n.hashes)
    if len(shared) + len(ids) < 2 or not _tied(o, n):
        return None
    return Found(f"bug {so} -> {sn}", "state", 0.8)


def _lifted(o: _View, n: _View) -> Found | None:
    if not _CONSTRAINT.search(o.low) or not _LIFTED.search(n.low):
        return None
    if _ONLY.search(n.low) or (_NEG_CONSTRAINT.search(n.low) and "no longer" not in n.low):
        return None
    if len(_context(o, n, _CONSTRAINT_WORDS)) < 2 or not _tied(o, n):
        return None
    return Found("constraint lifted", "state", 0.8)


def _owner(o: _View, n: _View) -> Found | None:
    if not _OWNER.search(o.low) or not _HANDOVER.search(n.low):
        return None
    if not (_OWNER.search(n.low) or "over" in n.low or "off" in n.low or "switched" in n.low):
        return None
    new_people = n.persons - o.persons - {x for v in n.items.values() for x in v}
    if not new_people:
        return None
    drop = _OWNER_WORDS | {_stem(x) for x in o.persons | n.persons} | o.persons | n.persons
    if not _context(o, n, frozenset(drop)) or _opposite_scopes(o, n):
        return None
    return Found(f"owner changed: -> {sorted(new_people)[0]}", "value", 0.8)


_W = r"[\w@./#:-]+"
_ART = r"(?:the |a |an |our )?"
_RENAMED = (
    re.compile(rf"\brenamed {_ART}(?P<x>(?:{_W} ){{0,2}}?{_W}) (?:to|into) {_ART}(?P<y>{_W})"),
    re.compile(
        rf"(?P<x>(?:{_W} ){{0,2}}?{_W}) (?:was|got|has been|have been|were|is) "
        rf"(?P<v>renamed|moved|relocated) (?:to|into|under) {_ART}(?P<y>{_W})"
    ),
    re.compile(rf"(?P<x>{_W}) (?:is|are) now (?:called|named) (?P<y>{_W})"),
    re.compile(
        rf"\b(?P<v>moved|relocated) {_ART}(?P<x>(?:{_W} ){{0,2}}?{_W}) (?:to|into|under) "
        rf"{_ART}(?P<y>{_W})"
    ),
)


def _rename(o: _View, n: _View) -> Found | None:
    if not _RENAME.search(n.low):
        return None
    otoks = {t.strip(".") for t in re.findall(r"[\w@./#:-]+", o.low)}
    obases = {t.rsplit("/", 1)[-1] for t in otoks}
    ostems = _norm_stems(o.parse.content)
    for rx in _RENAMED:
        for m in rx.finditer(n.low):
            xs = [w for w in m.group("x").split() if w not in _STOP]
            y = m.group("y").strip(".")
            if not xs or y in _STOP or (y in otoks and re.search(r"[./_#@:-]", y)):
                continue
            hit = any(
                w in otoks or w.rsplit("/", 1)[-1] in obases
                or (_stem(w) in ostems and _stem(w) not in _GENERIC and _stem(w) not in
                    _VERB_STEMS)
                for w in xs
            )
            if not hit:
                continue
            if m.groupdict().get("v") in ("moved", "relocated") and not (
                _LOCATION_WORDS & o.parse.all_stems or o.items.keys() & {"shape:path",
                                                                          "shape:url"}
            ):
                continue  # a move ends a location only: "Elasticsearch rebuilds its index"
            if _opposite_scopes(o, n):
                return None
            return Found(f"renamed/moved: {' '.join(xs)} -> {y}", "value", 0.8)
    return None


def _ended(o: _View, n: _View) -> Found | None:
    """"Scrapped the monorepo plan", "we stopped using UUID primary keys": a clause of the new
    statement ends what the old one asserts (its object), and adds nothing but decision words."""
    target = _norm_stems(o.parse.obj) | {_stem(x) for x in o.parse.obj_names}
    if not target or not _tied(o, n):
        return None
    ocontent = _norm_stems(o.parse.content)
    for clause in _clauses(n.low):
        part = _removed_part(clause)
        if not part or _INSTEAD_OF.search(clause):
            continue
        words = {_ALIAS_STEMS.get(_stem(w), _stem(w)) for w in re.findall(r"[\w@./+-]+", part)}
        words = {w for w in words if w not in _STOP and w not in _GENERIC}
        words -= {_stem(w) for w in _REMOVAL.findall(part)} | _GENERIC_VERBS
        hit = words & target
        rest = words - ocontent - _DECISION_WORDS - _VERB_STEMS
        rest = {w for w in rest if not _REMOVAL.fullmatch(w)}
        if hit and (len(words & ocontent) >= 2 or not rest):
            return Found(f"ended: {sorted(hit)[0]}", "state", 0.75)
    return None


_FLIP_PAIRS = _ANTONYMS


def _flip(o: _View, n: _View) -> Found | None:
    if not n.parse.cues:
        return None
    a, b = o.core, n.core
    sa, sb = _norm_stems(a.subject), _norm_stems(b.subject)
    if not sa or sa != sb:
        return None
    for left, right in _FLIP_PAIRS:
        ol, orr = bool(a.all_stems & left), bool(a.all_stems & right)
        nl, nr = bool(b.all_stems & left), bool(b.all_stems & right)
        if (ol and not orr and nr and not nl) or (orr and not ol and nl and not nr):
            return Found("polarity flip with cue", "polarity", 0.75)
    return None


def detect(old_text: str, new_text: str, similarity: float | None = None) -> Found | None:
    """The coding-statement rules, in order; None when none applies. ``similarity`` (the
    embedding cosine, when known) vetoes a cueless number change below 0.5, as in ``detect``."""
    o, n = _view(old_text), _view(new_text)
    return (
        _swap(o, n)
        or _version(o, n)
        or _bug_status(o, n)
        or _lifted(o, n)
        or _owner(o, n)
        or _rename(o, n)
        or _ended(o, n)
        or _measure(o, n, similarity)
        or _flip(o, n)
    )
