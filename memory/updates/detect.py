"""Update detection for the write path: does a newer fact make an older one no longer current?

``detect_update(old, new)`` answers with an ``Update`` (reason, kind, confidence) or ``None``.
Four rules are tried in order, after a cheap check that the two share a word, name or caller
entity:

1. *polarity*: the same statement with its negation or an antonym flipped;
2. *replacement*: an explicit "instead of Y" / "replaced Y with" / "switched from Y" whose ``Y``
   the old fact states;
3. *value*: the same subject and the same single-valued attribute with another value, or a
   move/switch cue ("moved to", "raised to", "umgestellt auf", ...) whose destination fills a
   slot the old fact fills differently; for the other languages, a cue plus the same words
   around another value or name;
4. *state*: the new fact ends something the old one describes as ongoing ("closed",
   "cancelled", "paused", "left").

Precision is preferred over recall throughout: a false supersession hides a true fact from the
user, while a missed one only leaves two facts current. Multi-valued relations ("uses",
"stores", "supports") therefore never supersede on a different name without a cue, past events
("hired forty engineers", "wrote the runbook") are never ended by a state change, and a number
that names the subject ("Service 3" vs "Service 4") makes two subjects, not a changed value.

The rules are pure functions over two cached sentence parses (``memory.fact_parse``), whose
word tables live in ``memory.fact_lexicon``. No database, no model: the caller may pass the
embedding similarity of the two sentences as supporting evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .arrow import value_arrow
from .coding import (
    coexisting,
    constraint_lifted,
    owner_changed,
    problem_resolved,
    slot_swap,
    unasserted,
)
from .explicit import CHANGE_CUE as _CHANGE_CUE
from .explicit import (
    amounts_comparable,
    aspect_of,
    changes_other_aspect,
    object_swap,
    other_file,
    other_scope,
    other_subject,
    past_event,
    quantity_changed,
    renamed,
    restricted_case,
    retired,
    versioned_tools,
)
from .keyed import keyed_value
from .lexicon import (
    _ANTONYMS,
    _COMPATIBLE,
    _FUNCTIONAL,
    _SLOT_NOUNS,
    _STATE_PAIRS,
    _STOP,
    _VERB_STEMS,
    _Flip,
    _PairSets,
    _stem,
)
from .parse import _Parse, _parse
from .shift import change_stated, states_cause

__all__ = ["FactView", "Update", "detect_update", "plainly_complement"]


@dataclass(frozen=True)
class FactView:
    """The text of a fact and the canonical (lowercased) entity keys the caller extracted."""

    text: str
    entities: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Update:
    """Why a newer fact supersedes an older one.

    ``kind`` is one of ``"value"``, ``"cue"``, ``"polarity"``, ``"state"`` or ``"shift"`` (a
    stated change that only similarity ties to the old fact: ``shift``).
    """

    reason: str
    kind: str
    confidence: float


class _PairIndex:
    """Antonym pairs indexed by stem, so a sentence's sides are looked up once per parse
    instead of intersecting every pair for every compared fact (the write path compares one
    new fact with up to 40 current ones)."""

    def __init__(self, pairs: _PairSets) -> None:
        self.pairs = pairs
        self._by_stem: dict[str, list[tuple[int, int]]] = {}
        for i, (left, right) in enumerate(pairs):
            for stem in left:
                self._by_stem.setdefault(stem, []).append((i, 1))
            for stem in right:
                self._by_stem.setdefault(stem, []).append((i, 2))
        self._cache: dict[frozenset[str], dict[int, int]] = {}

    def sides(self, stems: frozenset[str]) -> dict[int, int]:
        """Pair index -> 1 (only the left side present), 2 (only the right) or 3 (both)."""
        got = self._cache.get(stems)
        if got is None:
            got = {}
            for stem in stems:
                for i, bit in self._by_stem.get(stem, ()):
                    got[i] = got.get(i, 0) | bit
            if len(self._cache) >= 8192:
                self._cache.clear()
            self._cache[stems] = got
        return got


_ANTONYM_INDEX = _PairIndex(_ANTONYMS)
_STATE_INDEX = _PairIndex(_STATE_PAIRS)


def _flipped_pairs(o: _Parse, n: _Parse, index: _PairIndex) -> list[_Flip]:
    """Antonym pairs where one sentence has only one side and the other only the other side.

    Each item is ``(left, right, forward)``, in the order of the pair table; ``forward``
    means the old fact had the left side.
    """
    os_, ns = index.sides(o.all_stems), index.sides(n.all_stems)
    if not os_ or not ns:
        return []
    out: list[_Flip] = []
    for i in sorted(os_.keys() & ns.keys()):
        left, right = index.pairs[i]
        if os_[i] == 1 and ns[i] == 2:
            out.append((left, right, True))
        elif os_[i] == 2 and ns[i] == 1:
            out.append((left, right, False))
    return out


def _value_conflict(o: frozenset[tuple[str, str]], n: frozenset[tuple[str, str]]) -> list[str]:
    """Value kinds present on both sides with different values (``"30 -> 45 s"``)."""
    out = []
    for key in sorted({k for k, _ in o} & {k for k, _ in n}):  # a reason reads the same each run
        ov = {v for k, v in o if k == key}
        nv = {v for k, v in n if k == key}
        if ov != nv and not (ov <= nv and len(nv) > len(ov)):
            unit = "" if key in ("num", "ver", "weekday", "month", "time", "date", "year") else key
            out.append(f"{'/'.join(sorted(ov))} -> {'/'.join(sorted(nv))} {unit}".strip())
    return out


def _polarity(o: _Parse, n: _Parse) -> Update | None:
    flips = _flipped_pairs(o, n, _ANTONYM_INDEX)
    # "always"/"never" is an antonym and a negation at once; count it once.
    flips = [f for f in flips if "alway" not in f[0]]
    # "not disabled" -> "enabled" flips both ways and means the same; two antonyms flipped
    # together ("dropped to its lowest" -> "rose to its highest") are still one reversal.
    if bool(flips) == bool((o.neg + n.neg) % 2):
        return None
    flip_words = set().union(*(left | right for left, right, _ in flips)) if flips else set()
    core_o, core_n = o.content - flip_words, n.content - flip_words
    shared, union = core_o & core_n, core_o | core_n
    if not shared or len(shared) / len(union) < 0.6:
        return None
    if len(union - shared) > max(1, len(union) // 4):
        return None
    if _value_conflict(o.values, n.values):
        return None  # a different value means a different scope, not the same statement negated
    if flips:
        left, right, forward = flips[0]
        before = sorted(o.all_stems & (left if forward else right))[0]
        after = sorted(n.all_stems & (right if forward else left))[0]
        return Update(f"polarity flip: {before} -> {after}", "polarity", 0.85)
    return Update("polarity flip (negation)", "polarity", 0.85)


def _same_subject(o: _Parse, n: _Parse, entities: frozenset[str]) -> bool:
    """Whether both sentences talk about the same thing before their verbs.

    "The checkout service" and "Checkout" match; "the staging cluster" and "the production
    cluster" do not (each has a word the other lacks). Pronoun subjects ("It listens on ...")
    fall back to the entities the caller extracted.
    """
    if o.subject and n.subject:
        if not o.subject & n.subject:
            return False
        return not (o.subject - n.subject and n.subject - o.subject)
    if o.agent_subject and n.agent_subject:
        return True
    return bool(entities)


_INSTEAD = frozenset({"instead of", "rather than", "in place of"})


def _replacement(o: _Parse, n: _Parse, same: bool) -> Update | None:
    """ "instead of Y", "replaced Y with Z", "switched from Y", "Y yerine": Y was current."""
    gone = n.replaced & (o.content | {_stem(x) for x in o.names})
    if not gone:
        return None
    if _INSTEAD & set(n.cues) and not gone & {_stem(x) for x in o.names | n.names}:
        # "every 50 steps instead of every step", "over the 100 GbE instead of the NAT
        # gateway": a manner compared in an explanation; a choice replaced is named.
        return None
    if _moved_off(n) and not _moved_off(n) & o.all_stems:
        # What moved off the replaced thing is not what the old fact is about: "The feature
        # store migrated its online tier from Redis" leaves "the session cache in Redis".
        return None
    named = n.replaced & {_stem(x) for x in n.names}
    specific = len(named) >= 2 or any(ch.isdigit() for x in named for ch in x)
    if specific and not named & gone:
        # "replaced the Epson TG2016SMN TCXO with the Kyocera KT2016": the old fact must name
        # the part that went, not only its kind ("supplies its TCXO from DIO3").
        return None
    others = (o.content & n.content) - n.replaced - n.dest
    tied = bool(others & (o.subject | n.subject)) or same
    tied = tied or (o.verb is not None and o.verb == n.verb)
    # Without other shared words, only a named thing used in the old object counts:
    # "We cache sessions in Redis" <- "We now use Memcached instead of Redis".
    in_object = gone <= o.obj and not gone & o.subject and gone & {_stem(x) for x in o.names}
    if not (others and tied) and not in_object:
        return None  # a fact *about* the replaced thing ("Redis runs on node 3"), not one using it
    what = sorted(gone)[0]
    confidence = 0.9 if others and tied else 0.75
    return Update(f"replaced '{what}' (cue '{_cue(n)}')", "cue", confidence)


def _moved_off(n: _Parse) -> frozenset[str]:
    """What a "from Y (to Z)" sentence moved off the replaced Y: its subject unless that is
    "we"/"I", and the object of the move; empty without a "from" before the replaced word."""
    low = n.low
    after_from = {_stem(t) for i, t in enumerate(low) if "from" in low[max(0, i - 2):i]}
    if not after_from & n.replaced:
        return frozenset()
    thing = (frozenset() if n.agent_subject else n.subject) | n.moved
    return thing - n.replaced - n.dest


def _cue(p: _Parse) -> str:
    return p.cues[0] if p.cues else "none"


def _cue_note(p: _Parse) -> str:
    return f" (cue '{p.cues[0]}')" if p.cues else ""


def _family_match(o: _Parse, n: _Parse) -> bool:
    if o.verb is None or n.verb is None:
        return False
    return o.verb == n.verb or frozenset({o.verb, n.verb}) in _COMPATIBLE


# Function words cannot be the value that changed; "same"/"own" can ("the same node").
_CONNECTIVES = frozenset(
    "because since while although though when whenever if unless until after before due "
    "weil wenn obwohl parce quand porque cuando omdat wanneer çünkü".split()
)
_STOP_STEMS = frozenset(_stem(w) for w in (_STOP | _CONNECTIVES) - {"same", "own"}) | (
    (_STOP | _CONNECTIVES) - {"same", "own"}
)


def _content_values(values: frozenset[tuple[str, str]]) -> frozenset[tuple[str, str]]:
    """Values that are not function words: "same"/"because" before a noun name no value."""
    return frozenset((k, v) for k, v in values if v not in _ALL_STOP_STEMS)


_ALL_STOP_STEMS = frozenset(_stem(w) for w in _STOP | _CONNECTIVES) | _STOP | _CONNECTIVES


def _moved_value(o: _Parse, n: _Parse, same: bool) -> Update | None:
    """A move/switch cue whose destination fills a slot that the old fact fills differently.

    "moved to the Amsterdam office" ends "works from the Berlin office" (same head noun, another
    modifier); "raised to 500 MB" ends "is 50 MB" (same unit, another value); "moved the docs
    site to Cloudflare Pages" ends "the docs site is hosted on Netlify" (a name in a
    single-valued slot of the thing that was moved).
    """
    if not (n.dest or n.dest_values or n.dest_names):
        return None
    agents = o.agent_subject and n.agent_subject
    # "I"/"we" on both sides says nothing about the slot: agents need an anchor of their own.
    about = (
        (same and not agents)
        or bool(n.subject and n.subject <= o.content)
        or bool(n.moved & o.subject)
    )
    conflict = _value_conflict(_content_values(o.values), _content_values(n.dest_values))
    anchors = (n.moved & o.content) | (o.obj & n.obj)
    named = n.agent_subject and bool(n.moved & o.content)  # "I lowered the default to ..."
    if conflict and (about or named or (agents and anchors)):
        return Update(f"value changed: {conflict[0]} (cue '{_cue(n)}')", "value", 0.9)
    if aspect_of(n.moved or n.subject, o.content):
        return None  # "changed the project's color space to Linear": another attribute

    heads = n.dest & o.obj
    changed_mod = any(
        {m for h, m in o.mods if h == head} - {m for h, m in n.mods if h == head}
        and {m for h, m in n.mods if h == head and m in n.dest_all}
        for head in heads
    )
    # With "we" on both sides, the thing moved must be what the old fact talks about.
    if changed_mod and n.dest_all - o.all_stems and (about or (agents and n.moved & o.content)):
        before = sorted({m for h, m in o.mods if h in heads} - n.all_stems - _STOP_STEMS)
        after = sorted({m for h, m in n.mods if h in heads} & n.dest_all - o.all_stems)
        if not before:
            return None  # the old modifier was a function word ("same", "because"): no value
        shown = f"{' '.join(before) or '?'} -> {' '.join(after) or '?'}"
        return Update(f"value changed: {shown} (cue '{_cue(n)}')", "value", 0.85)

    new_names = n.dest_names - o.names
    old_names = o.obj_names - n.names
    if (
        new_names
        and old_names
        and (same or agents or n.moved & o.subject)
        and o.verb in ("locate", "live", "report", "be", "use", "version")
        and (_family_match(o, n) or n.verb == "move" or n.moved & o.subject)
        and n.roles == o.roles  # "for caching" vs nothing: another role, both current
    ):
        shown = f"{sorted(old_names)[0]} -> {sorted(new_names)[0]}"
        return Update(f"value changed: {shown} (cue '{_cue(n)}')", "value", 0.85)
    return None


def _slot_value(o: _Parse, n: _Parse, same: bool, similarity: float | None) -> Update | None:
    """Same subject, same attribute (verb family), different value: a number or a name."""
    cue = bool(n.cues)
    if similarity is not None and similarity < 0.5 and not cue:
        return None
    owner = _new_owner(o, n)
    if owner or not same or not _family_match(o, n):
        return owner
    functional = o.verb in _FUNCTIONAL or n.verb in _FUNCTIONAL
    rest_o, rest_n = o.content - n.content, n.content - o.content
    shared = o.content & n.content
    overlap = len(shared) / max(1, len(o.content | n.content))

    conflicts = _value_conflict(o.values, n.values)
    if conflicts and (cue or functional or o.verb == n.verb) and (cue or overlap >= 0.4):
        if _two_scopes(o, n, rest_o, rest_n):
            return None  # "deploys the api with 3 replicas" / "the worker with 5 replicas"
        if len(rest_o | rest_n) <= max(2, len(shared)):
            return Update(f"value changed: {conflicts[0]}" + _cue_note(n), "value", 0.9)
    if not (functional or cue) or n.roles != o.roles:
        return None  # multi-valued ("uses", "stores") or another role ("for caching")

    old_names, new_names = o.obj_names - n.names, n.obj_names - o.names
    name_stems = {_stem(x) for x in old_names | new_names}
    if old_names and new_names and len((rest_o | rest_n) - name_stems) <= 2:
        if o.verb == "use" and not cue:
            return None
        shown = f"{sorted(old_names)[0]} -> {sorted(new_names)[0]}"
        return Update(f"value changed: {shown}" + _cue_note(n), "value", 0.85 if cue else 0.75)

    # One word swapped in the object of a single-valued predicate: "prefers evening deploys" ->
    # "prefers morning deploys", "points to grafana-old" -> "points to grafana-v2". A copula
    # only counts when its subject names an attribute ("the default branch is ..."), because
    # "the API is public" and "the API is versioned" are two properties, not two values.
    if o.values != n.values or not (0 < len(rest_o) <= 2 and len(rest_n) == 1):
        return None
    if not functional:
        # Only with a cue, and only as another modifier of the same object noun:
        # "deploys from the develop branch" -> "now deploys from the release branch".
        swapped = {h for h, m in o.mods if m in rest_o} & {h for h, m in n.mods if m in rest_n}
        if not (cue and len(rest_o) == 1 and swapped & o.obj & n.obj):
            return None
    if not (rest_o <= o.obj and rest_n <= n.obj):
        return None
    if o.verb == "be" and not o.subject & _SLOT_NOUNS:
        return None
    before, after = " ".join(sorted(rest_o)), next(iter(rest_n))
    return Update(f"value changed: {before} -> {after}" + _cue_note(n), "value", 0.7)


def _two_scopes(o: _Parse, n: _Parse, rest_o: frozenset[str], rest_n: frozenset[str]) -> bool:
    """Whether each sentence keeps a noun of its own beside the value: two things (the api's
    and the worker's replicas), not one thing whose value changed. Verbs, names, cue words and
    the words of a trailing clause do not count."""
    verbs = {o.verb, n.verb} | _VERB_STEMS
    own_o = (rest_o & o.obj) - verbs - {_stem(x) for x in o.names} - _ALL_STOP_STEMS
    own_n = (rest_n & n.obj) - verbs - {_stem(x) for x in n.names} - _ALL_STOP_STEMS
    return bool(own_o and own_n)


def _new_owner(o: _Parse, n: _Parse) -> Update | None:
    """ "Alice owns the billing service" -> "Bob now owns it": the object keeps one owner.

    Co-owners and co-maintainers are common, so this needs an update cue.
    """
    if not n.cues or o.verb not in ("own", "lead"):
        return None
    if not (n.verb == o.verb or "took over" in n.cues):
        return None
    if not (o.subject and n.subject) or o.subject & n.subject:
        return None
    if not o.obj or o.obj != n.obj:
        return None
    shown = f"{' '.join(sorted(o.subject))} -> {' '.join(sorted(n.subject))}"
    return Update(f"owner changed: {shown}" + _cue_note(n), "value", 0.8)


def _aligned_value(o: _Parse, n: _Parse) -> Update | None:
    """Language-agnostic fallback: with an update cue, the same words around another value.

    "Der Timeout ist 30 Sekunden" -> "Der Timeout ist jetzt 60 Sekunden"; "Die CI läuft auf
    Jenkins" -> "Die CI wurde auf GitLab umgestellt". At most one other content word may differ.
    """
    if not n.cues or n.roles != o.roles:
        return None
    old_names = {x for x in o.names - n.names if x not in n.low}
    new_names = {x for x in n.names - o.names if x not in o.low}
    name_stems = {_stem(x) for x in old_names | new_names}
    shared = (o.content & n.content) - name_stems
    rest = ((o.content - n.content) | (n.content - o.content)) - name_stems
    if not shared or len(rest) > 1:
        return None
    conflicts = _value_conflict(o.values, n.values)
    if conflicts:
        return Update(f"value changed: {conflicts[0]}" + _cue_note(n), "value", 0.8)
    if old_names and new_names and len(old_names) <= 2 and len(new_names) <= 2:
        shown = f"{sorted(old_names)[0]} -> {sorted(new_names)[0]}"
        return Update(f"value changed: {shown}" + _cue_note(n), "value", 0.75)
    return None


_REQUEST_VERBS = frozenset(
    "add fix make set create write build implement refactor remove delete update change "
    "rename move let please".split()
)


def _state(o: _Parse, n: _Parse, same: bool) -> Update | None:
    """The new fact ends something the old one describes as started or ongoing.

    Past events are history and stay current: "Apple hired forty engineers in Rotterdam" is not
    undone by "The office in Rotterdam closed", and "Marta wrote the runbook" is not undone by
    "Marta left the company".
    """
    if n.terminal is None or n.neg:
        return None  # "isn't what stops the radio" ends nothing
    if o.low and o.low[0] in _REQUEST_VERBS:
        return None  # "Add build dirs to .gitignore" is a request, not a running state
    head = n.term_head
    for _left, _right, forward in _flipped_pairs(o, n, _STATE_INDEX):
        if forward and head and head in o.content:
            return Update(f"state ended: {head} ({n.terminal})", "state", 0.85)
    related = same or n.agent_subject or bool(o.names & n.names)
    if head and head in o.content and not o.past and related:
        return Update(f"state ended: {head} ({n.terminal})", "state", 0.8)
    if n.term_generic and o.verb in ("be", "have") and not o.past and o.subject & n.subject:
        return Update(f"state ended: {n.terminal} after '{o.verb}' state", "state", 0.7)
    return None


# How coding notes are written around what they state: markdown code spans, a commit type
# ("chore: bump ..."), a heads-up ("fyi we're on ..."), a correction ("Scratch that, ...").
_CODE_SPAN = re.compile(r"`([^`\n]*)`")
_NOTE_PREFIX = re.compile(
    r"^\s*(?:(?:chore|feat|fix|refactor|docs|build|ci|perf|test|style|revert)(?:\([^)]*\))?!?:"
    r"|fyi[,:]?|heads[- ]up[,:!]?|note:|update:|btw[,:]?|psa:|scratch that[,:]?|"
    r"correction:|decision:|agreed:|plan of record:|known bug:)\s*",
    re.IGNORECASE,
)


def _as_note(view: FactView) -> FactView:
    """The statement inside a coding note: code spans unquoted, a leading commit type or
    heads-up dropped (the entities the caller extracted are kept)."""
    text = _CODE_SPAN.sub(r"\1", view.text)
    text = _NOTE_PREFIX.sub("", text, count=1)
    if text == view.text:
        return view
    return FactView(text[:1].upper() + text[1:] if text else text, view.entities)


def detect_update(
    old: FactView, new: FactView, *, similarity: float | None = None, stated: bool = True
) -> Update | None:
    """Decide whether ``new`` makes ``old`` no longer current.

    Args:
        old: the current fact.
        new: the fact being written.
        similarity: cosine similarity of the two sentence embeddings, when a model is loaded.
            It is supporting evidence only: a value change without an update cue needs at
            least 0.5, and nothing below 0.25 is flagged.
        stated: whether the rules for a note may answer: the last one (``shift``, a change
            stated in words no other rule aligns) and a diff (``arrow``); the write path
            turns it off for a captured turn's sentence.

    Returns:
        An ``Update`` saying why, or None when the two can both stay current (complements,
        restatements, different attributes or roles, historical events).
    """
    if similarity is not None and similarity < 0.25:
        return None
    raw_old, raw_new = old.text, new.text  # code spans name things: `gateway`, `gateway-admin`
    old, new = _as_note(old), _as_note(new)
    if unasserted(new.text):
        return None  # a question, plan or condition asserts nothing current yet
    if other_scope(old.text, new.text) or other_subject(raw_old, raw_new):
        return None  # "the EU cluster" / "the us-east-1 cluster", `gateway` / `gateway-admin`
    if other_file(raw_old, raw_new):
        return None  # texture_pool_mb in arcwell.toml / in handheld.toml: two settings
    if restricted_case(old.text, new.text):
        return None  # "In handheld mode on Switch the game targets 30fps": one case of it
    if _one_line_of_a_block(raw_old, raw_new):
        return None  # a block of code or config holds more than the one setting changed
    o, n = _parse(old.text), _parse(new.text)
    if o.low == n.low:
        return None
    diff = value_arrow(old.text, new.text) if stated else None
    if diff and amounts_comparable(old.text, new.text) and not changes_other_aspect(
            old.text, new.text):
        # "concurrency 4 -> 12": the old value, replaced, in the same dimension ("3 replicas"
        # is not "p95 3 -> 1.2 s"). Only in a note: a captured turn's arrows are as often
        # mappings and menu paths ("SfxId -> AudioStream"), or the before and after of the
        # turn's own fix ("body evaluations per refresh: 9 → 1").
        return Update(diff, "value", 0.9)
    shared = (o.content & n.content) | (o.names & n.names) | (old.entities & new.entities)
    # "Next.js 13.4" / "next@14.1.0": one tool, whatever else the two say
    shared |= versioned_tools(old.text) & versioned_tools(new.text)
    if not shared:
        # A rename or a move names the old thing by a path or a short form of its own.
        what = renamed(old.text, new.text)
        return Update(what, "cue", 0.8) if what else _shift(old.text, new.text, similarity, stated)
    same = _same_subject(o, n, old.entities & new.entities)
    found = _polarity(o, n) or _replacement(o, n, same)
    if found is None and not coexisting(new.text):
        found = (
            _moved_value(o, n, same)
            or _slot_value(o, n, same, similarity)
            or _aligned_value(o, n)
        )
    if found is None and not states_cause(new.text):
        found = _state(o, n, same)
    found = found or _coding(old.text, new.text, similarity)
    if found is None and not coexisting(new.text):
        key = keyed_value(raw_old, raw_new)
        found = Update(f"value changed: {key}", "value", 0.75) if key else None
    if found is not None and found.kind == "value" and changes_other_aspect(old.text, new.text):
        return None  # "switched the project's default RHI to DX12": another attribute
    numeric = found is not None and re.search(r"\d\S* -> \S*\d", found.reason)
    if numeric and found.kind == "value" and not amounts_comparable(old.text, new.text):
        return None  # "Redis 6.2" / "Kubernetes 1.28", "3 nodes" / "1.28": two slots
    return found or _shift(old.text, new.text, similarity, stated)


def plainly_complement(old: str, new: str) -> bool:
    """Whether the rules know the two can both stay current, whatever else they say: the new
    one is a plan, a question or a condition, or it is about another scope, subject or file,
    one case of the old, a value that coexists with it, or a step of a story; or the old one
    reports an event ("Chris wrote the runbook"), history whatever follows. The learned
    judge (``judge.py``) is never asked about such a pair."""
    return bool(
        unasserted(new) or other_scope(old, new) or other_subject(old, new)
        or other_file(old, new) or restricted_case(old, new) or coexisting(new)
        or states_cause(new) or past_event(old)
    )


# Two sentences this close (cosine) are about one problem even when they share no word: the
# same bug told in another language, or in characters.
SAME_PROBLEM = 0.75

_BLOCK_LINE_KEY = re.compile(r"^\s*(?:[-#@]\s*)?([A-Za-z_][\w.\-]*)")
BLOCK_LINES = 4  # a code block with at least this many lines of content holds many things


def _one_line_of_a_block(old: str, new: str) -> bool:
    """Whether ``old`` is a block of code or config (``` fenced, several lines) of which
    ``new`` names fewer than half the lines: it changed one setting of the block ("autoscaling
    with max_ongoing_requests: 24" for a deployment class that also loads the model and its
    vocabulary), and the rest of the block still holds. A new version of the block, which
    restates most of its lines, may replace it."""
    if not old.lstrip().startswith("```"):
        return False
    lines = [ln for ln in old.strip().strip("`").splitlines()[1:] if len(ln.strip()) > 3]
    if len(lines) < BLOCK_LINES:
        return False
    low = new.lower()
    named = 0
    for ln in lines:
        m = _BLOCK_LINE_KEY.match(ln)
        key = m.group(1).lower() if m else ""
        named += bool(key) and len(key) > 2 and re.search(
            rf"(?<![\w]){re.escape(key)}(?![\w])", low) is not None
    return named * 2 < len(lines)


def _shift(old: str, new: str, similarity: float | None, stated: bool = True) -> Update | None:
    """The last rule (``shift``): a change stated about the same thing, in words no rule above
    could align; the weakest evidence, so the write path lets it retire one fact only, and
    not at all on a captured turn (``stated`` False)."""
    if not stated:
        return None
    what = change_stated(old, new, similarity)
    return Update(what, "shift", 0.6) if what else None


def _coding(old: str, new: str, similarity: float | None) -> Update | None:
    """The coding-statement rules (``coding``): a slot swap, a resolved problem, a lifted
    constraint. A swap needs a cue, so it never rests on similarity alone."""
    if similarity is not None and similarity < 0.35:
        return None
    if not coexisting(new):
        change = slot_swap(old, new)
        if change:
            return Update(f"value changed: {change}", "value", 0.8)
        owner = owner_changed(old, new)
        if owner:
            return Update(owner, "value", 0.75)
    close = similarity is not None and similarity >= SAME_PROBLEM
    what = problem_resolved(old, new, close) or constraint_lifted(old, new)
    if what:
        return Update(what, "state", 0.8)
    what = renamed(old, new) or retired(old, new)
    if what:
        return Update(what, "cue", 0.8)
    if coexisting(new):
        return None
    # Another amount with no update cue is only trusted on a close paraphrase, as in
    # ``_slot_value``: "The API timeout is 30s" / "... is 45s", not two sentences that share
    # a noun and a number.
    cueless = similarity is not None and similarity < 0.5 and not _CHANGE_CUE.search(new)
    what = (None if cueless else quantity_changed(old, new)) or object_swap(old, new)
    return Update(what, "value", 0.75) if what else None
