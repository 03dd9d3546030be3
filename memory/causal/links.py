"""The write side of causal memory: extract cause -> effect spans from each new fact, and link
facts to each other when one fact's effect is the event another fact names as a cause.

Why links between facts, not between strings: an agent writes "the deploy raised the pool
size" in one session and "the larger pool exhausted Postgres connections" in another. The
effect span of the first and the cause span of the second name the same event in different
words, so a join compares spans by meaning (embedding cosine of the span texts) plus shared
content words (prefix-normalised, so "oversleep"/"oversleeping", "öksürük"/"öksürüğe" meet),
never by equality. Four kinds of link, stored once per (cause fact, effect fact):

- ``join``: an effect span of fact A names the cause span of fact B (A -> B);
- ``assert``: a plain fact (no cue) is the event another fact asserts, as its cause ("The
  CPU temperature exceeded 85°C." -> "When the CPU temperature rises, it throttles.") or as
  its effect;
- ``story``: two facts with no cue between them, told in the same session or the one just
  before, that name the same thing (an identifier, a service, a product) and say close
  things: the older one is linked as the step before ("The pg_basebackup moved to 03:00." ->
  "Disk IO on the orders-db primary is pinned at 100% from 03:00."); not a suspect ruled out;
- ``backref``: a sentence that opens with an anaphor ("This broke checkout", "Dadurch ...",
  "Since then, ...") is caused by the previous sentence of the same session; one that opens
  its session, by the closest fact of the session before (``_antecedent``). Such a sentence
  follows from what was told before it, so it is never linked as the cause of an older fact.

Links form whichever side is written first: each new fact is scored against candidate facts
of its project both as their cause and as their effect, and only the better direction is kept
(so a pair never links both ways by itself; a near tie goes to the fact written first as the
cause). A candidate's score is discounted by the sessions written since its own, faster when
the new fact would be the cause of an older one, and the new fact's own session and the one
before it (where the events a definite cause span refers back to are told) link from a lower
score. Candidates come from indexed lookups only (FTS5
prefix terms, shared rare entities, and a kNN per span in the project's vector partition), so
a write costs the same in a file of 100 facts or of 100k.

The extractor sits behind ``CausalExtractor`` (``memory/extract/causal.py``): pass another one
to ``prepare_write`` (or ``set_extractor``) to plug in a learned tagger.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ...hooks.text import CJK, HAN, HIRAGANA, KATAKANA, link_stem
from ..extract.identifiers import identifiers
from ..storage.connection import pack_vector
from ..storage.filters import Scope
from .cue_lexicon import EVENT_NOUNS_ALL, RULED_OUT
from .cues import CausalExtractor, CausalSpan, RuleCausalExtractor

if TYPE_CHECKING:
    from ..ml.embed import Embedder
    from ..prepared import Prepared, Provenance
    from ..storage.store import AssertionRow, FactRow, Store

# Measured on the 80 causal cases with the packaged MiniLM (python -m evals.causal --sweep):
# every ordered pair of facts inside a case scored as the write path scores it, consecutive
# gold-chain pairs as positives. Link-level F1 is flat from 0.55 (P 0.62 / R 0.88) to 0.75
# (P 0.84 / R 0.67) and peaks at 0.65 (0.75); end to end, why() root@1 is best at 0.55
# (0.69, vs 0.68 at 0.50, 0.61 at 0.60, 0.55 at 0.65): a missing link loses a root for good,
# while an extra one only adds a candidate that the ranking can still put second.
JOIN_THRESHOLD = 0.55  # cosine + overlap bonus, with the real MiniLM model
WORDS_ONLY_THRESHOLD = 0.5  # without a model: share of content words in common
W_OVERLAP = 0.15  # bonus for shared content words (0..1 overlap coefficient)
TEXT_DISCOUNT = 0.95  # the whole text of a fact that itself asserts a cause, used as a span
SIBLING = 0.85  # a fact about the cause span's subject that says something else
CANDIDATES = 30  # facts scored per new fact (each source), all indexed lookups
KNN = 12  # nearest facts per span vector, inside the project's partition
MAX_LINKS = 8  # links kept per new fact and direction, best first
MAX_ENTITY_DEGREE = 50  # entities on more facts than this do not propose candidates

# Locality in a busy project: 80 stories in one repository share "the server", "the customer",
# "the company"; a cause is most often stated in the same session or one of the few sessions
# just before, so a candidate's score is discounted by how many other sessions were written
# since its own (write order, within WINDOW fact ids). The discount is soft (down to
# FAR_FLOOR): a root cause from long ago still links when it names the event clearly.
NEAR_SESSIONS = 2  # the new fact's session and this many before it: no discount
SESSION_DECAY = 0.05  # per session further back
FAR_FLOOR = 0.75  # sessions out of the window, or unknown
WINDOW = 400  # fact ids looked back for the session order
NEAR_CANDIDATE_SESSIONS = 4  # the facts of these last sessions are always candidates ...
NEAR_CANDIDATES = 40  # ... at most this many, newest first
MARGIN = 0.1  # links kept per new fact and direction: within this of the best one

# An effect is told after its cause, or before it when the cause is found later, while the
# effect is still being worked on: a new fact as the cause of an OLDER fact decays twice as
# fast with the sessions in between, and further down. (All cross-story links of the 80 dev
# cases in one project were 54 of this kind against 22 forward ones.)
BACK_DECAY = 0.1
BACK_FLOOR = 0.5
EARLIER_FIRST = 0.1  # both directions within this: the fact written first is the cause
# Explicit locality: the new fact's own session and the one just before it hold the event a
# definite cause span refers back to ("The lack of water dried out the soil" after "Sara
# forgot to water her plants"). Their best candidate links from a lower score, and keeps its
# link even when a fact of another story scores higher on shared vocabulary.
ANTECEDENT_SESSIONS = 1
ANTECEDENT_THRESHOLD = 0.45
GIVEN_OVERLAP = 0.5  # share of a known cause's words a step before holds to be the one it names
# A diagnosis ("Turned out X") explains a problem told in its session or the one before it,
# the closest one if at least this close (a diagnosis names the cause, so it shares fewer
# words with the problem than a restatement does).
DIAGNOSED_SESSIONS = 1
DIAGNOSED_THRESHOLD = 0.15
FANOUT_ALL = 1_000
_EVERYWHERE = Scope(all_projects=True, include_history=True)  # a fact's own links, any state
# A story told without a word of cause ("The pg_basebackup moved to 03:00." then, a session
# later, "Disk IO on the primary is pinned at 100% from 03:00."): two facts of the new fact's
# session or the one before that name the same thing (an identifier, a service, a product)
# and say close things link as a story step, the older one first, at STORY times their
# similarity (the antecedent threshold applies). Measured on the 80 dev cases, the English
# and multilingual sets in one project: 1.2 to 1.5 gain on each, 1.3 the most.
STORY = 1.3
# A new fact that asserts a cause and an older one of the sessions just before that share a
# specific identifier ("worker-11", "release.yml") are closer than their words say.
IDENT_BONUS = 0.15

_WORD = re.compile(r"\w+", re.UNICODE)


_CJK_SPLIT = re.compile(f"[{HIRAGANA}{KATAKANA}{HAN}]+|[^{HIRAGANA}{KATAKANA}{HAN}]+")
_HAN_OR_KATAKANA = re.compile(f"[{KATAKANA}{HAN}]")


@lru_cache(maxsize=16384)
def content_words(text: str) -> frozenset[str]:
    """Content words of ``text``, folded and cut to five letters: a cheap multilingual stem
    ("throttles"/"throttling", "öksürük"/"öksürüğe") that needs no per-language stemmer.
    Cached: the linker meets the same stored spans again with every new fact near them."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    out = set()
    for w in _WORD.findall(folded):
        if CJK.search(w):
            out.update(_cjk_grams(w))  # no spaces between words: character bigrams
            continue
        stem = link_stem(w)
        if stem is not None:
            out.add(stem)
    return frozenset(out)


def _cjk_grams(run: str) -> set[str]:
    """Character bigrams of the Han/kana stretches of ``run`` (Latin parts as words): "内存泄漏"
    and "内存泄露" share "内存", "存泄" without a segmenter. Kana-only bigrams of one or two
    particles ("した", "ため") carry little, so only bigrams with a Han or katakana character
    count."""
    out: set[str] = set()
    for part in _CJK_SPLIT.findall(run):
        if not CJK.search(part):
            if len(part) >= 3:
                out.add(part[:5])
            continue
        grams = [part] if len(part) < 2 else [part[i : i + 2] for i in range(len(part) - 1)]
        out.update(g for g in grams if _HAN_OR_KATAKANA.search(g))
    return out


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap coefficient of two word sets (0 when either is empty)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


@dataclass
class Side:
    """One text that can stand for an event: a span or a whole fact."""

    text: str
    vec: list[float] | None
    words: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if not self.words:
            self.words = content_words(self.text)
        if self.vec is not None and not isinstance(self.vec, np.ndarray):
            self.vec = np.asarray(self.vec, dtype=np.float32)  # dot products in C, not Python


def similarity(a: Side, b: Side) -> float:
    """How surely two texts name the same event: cosine plus a shared-word bonus (or the
    shared-word share alone when there are no vectors), capped at 1."""
    ov = overlap(a.words, b.words)
    if a.vec is None or b.vec is None:
        return ov * (JOIN_THRESHOLD / WORDS_ONLY_THRESHOLD)  # same scale as with vectors
    cos = float(np.dot(a.vec, b.vec)) if len(a.vec) == len(b.vec) else 0.0
    return min(1.0, cos + W_OVERLAP * ov)


# -- the extractor seam -----------------------------------------------------------------------

_extractor: CausalExtractor = RuleCausalExtractor()


def set_extractor(extractor: CausalExtractor) -> CausalExtractor:
    """Use ``extractor`` for every later write; return the one it replaces."""
    global _extractor
    old, _extractor = _extractor, extractor
    return old


def effect_text(sentence: str, span: CausalSpan) -> str:
    """The text embedded for an effect: with its verb when the cue is the verb that governs
    it ("X shortened the release cycle" -> "shortened the release cycle"), so that "the release
    cycle" alone does not stand for every event about the release cycle."""
    return effect_words(sentence, span.cue, span.effect, span.backref)


def effect_words(sentence: str, cue: str, effect: str, backref: str | None) -> str:
    """``effect_text`` from a stored span's columns."""
    joined = f"{cue} {effect}"
    if backref != "effect" and joined.casefold() in " ".join(sentence.split()).casefold():
        return joined
    return effect


@dataclass
class SpanPlan:
    """One extracted span pair of a new fact, with its span vectors (when a model is loaded)."""

    span: CausalSpan
    cause_vec: list[float] | None = None
    effect_vec: list[float] | None = None


def prepare_write(
    embedder: Embedder | None, items: list[Prepared], extractor: CausalExtractor | None = None
) -> list[list[SpanPlan]]:
    """Extract spans of every item and embed them in one batch (before the write lock)."""
    ext = extractor or _extractor
    plans: list[list[SpanPlan]] = []
    texts: list[str] = []
    for p in items:
        spans = [SpanPlan(s) for s in ext.extract(p.text)]
        plans.append(spans)
        for sp in spans:
            texts += [sp.span.cause, effect_text(p.text, sp.span)]
    if embedder is not None and texts:
        vectors = embedder.embed_batch(texts)
        it = iter(vectors)
        for spans in plans:
            for sp in spans:
                sp.cause_vec, sp.effect_vec = next(it), next(it)
    return plans


# -- linking inside the write transaction ------------------------------------------------------


@dataclass
class _Node:
    """A fact as the linker sees it: its text as one side, and its spans."""

    id: int
    text: Side
    causes: list[tuple[Side, int, float, str]]  # (cause span, assertion id, confidence, cue)
    effects: list[tuple[Side, int, float, str]]

    @property
    def plain(self) -> bool:
        return not self.causes and not self.effects


def _vec(blob: bytes | None) -> np.ndarray | None:
    return np.frombuffer(blob, dtype="<f4") if blob else None


def _node(fid: int, text: str, vec: list[float] | None, rows: Sequence[AssertionRow]) -> _Node:
    causes, effects = [], []
    for r in rows:
        if r.backref != "cause":
            causes.append((Side(r.cause, _vec(r.cause_vec)), r.id, r.confidence, r.cue))
        if r.backref != "effect":
            effects.append((Side(r.effect, _vec(r.effect_vec)), r.id, r.confidence, r.cue))
    return _Node(fid, Side(text, vec), causes, effects)


def link_score(a: _Node, b: _Node) -> tuple[float, str, int | None, str | None]:
    """How surely fact ``a`` is a cause of fact ``b``: (score, via, assertion id, cue).

    An effect span of ``a`` naming a cause span of ``b`` is a join; ``a``'s whole text naming
    a cause span of ``b`` (or an effect span of ``a`` naming plain ``b``) is an assert link.
    Two plain facts never link here: neither asserts anything causal (``_join`` may still
    make them a story step)."""
    best: tuple[float, str, int | None, str | None] = (0.0, "join", None, None)
    for c_side, aid, _conf, cue in b.causes:
        for e_side, _aid, _c, _cue in a.effects:
            s = similarity(e_side, c_side)
            if s > best[0]:
                best = (s, "join", aid, cue)
        if is_fix(a.text.text):
            continue  # a fix is never the event that caused the problem it fixes
        s = similarity(a.text, c_side) * (TEXT_DISCOUNT if not a.plain else 1.0)
        s *= sibling_factor(a.text.text, c_side.text)
        if s > best[0]:
            best = (s, "assert", aid, cue)
    if b.plain:
        for e_side, aid, _conf, cue in a.effects:
            s = similarity(e_side, b.text)
            if s > best[0]:
                best = (s, "assert", aid, cue)
    return best


_FIX = re.compile(
    r"\b(?:fix(?:ed|es)?|resolv(?:ed|es)|repair(?:ed|s)?|work(?:ed)? around|mitigat(?:ed|es)|"
    r"behoben|repariert|corrig(?:é|ée|és|ido)|répar(?:é|ée)|arreglad[oa]|solucionad[oa]|"
    r"opgelost|gerepareerd|düzelt\w*|çözül\w*|resolvid[oa]|consertad[oa])\b",
    re.IGNORECASE,
)


def is_fix(text: str) -> bool:
    """Does the sentence report a fix or workaround (in any of the extractor's languages)?"""
    return _FIX.search(text) is not None


@lru_cache(maxsize=16384)
def _ordered_words(text: str) -> tuple[str, ...]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return tuple(s for w in _WORD.findall(folded) if (s := link_stem(w)) is not None)


_ALSO = re.compile(
    r"\b(?:also|too|as well|auch|ebenfalls|également|aussi|también|ook|eveneens|ayrıca|"
    r"também)\b", re.IGNORECASE,
)


def sibling_factor(fact: str, cause: str) -> float:
    """How much to trust ``fact`` as the event a cause span names, when the fact opens with
    the thing the span names and goes on to say something else about it: "The firmware
    update also added a menu" vs the cause "The firmware update" (of "The firmware update
    increased power usage") is another fact about the same subject, a sibling effect, not
    the event that caused it. An additive word ("also", "auch", "también") says so outright."""
    words, cause_words = _ordered_words(fact), set(_ordered_words(cause))
    if not words or not cause_words or words[0] not in cause_words:
        return 1.0
    if len(set(words) - cause_words) < 2:
        return 1.0  # the fact is the span's event itself ("The user reported X" / "X")
    shared = len(set(words[: len(cause_words) + 1]) & cause_words) / len(cause_words)
    if _ALSO.search(fact) and shared >= 0.5:
        return 0.0
    return SIBLING if shared >= 0.75 else 1.0


def _prefix_match(texts: Sequence[str]) -> str | None:
    """An FTS5 MATCH of prefix terms (five letters) of the content words, OR-ed."""
    seen: list[str] = []
    for t in texts:
        for w in sorted(content_words(t)):
            if w not in seen and not any(ch in w for ch in '"*'):
                seen.append(w)
    if not seen:
        return None
    return " OR ".join(f'"{w}"*' for w in seen[:24])


def _candidates(store: Store, p: Prepared, plans: list[SpanPlan], project: str | None) -> list[int]:
    """Facts that may join ``p`` causally: the write path's neighbours of ``p`` (shared rare
    entities and distinctive words, already looked up for duplicates and updates), plus, for
    paraphrased joins, the facts whose spans are nearest the fact's text and the facts
    nearest each of its span vectors."""
    fid = p.fact_id
    assert fid is not None
    found: dict[int, None] = dict.fromkeys(p.near or ())
    if p.near is None:
        scope = Scope.current_in(project, exclude=fid)
        match = _prefix_match([p.text])
        if match:
            for cid, _ in store.fts_search(match, scope, CANDIDATES):
                found[cid] = None
    dim = store.vec_dim
    # The fact's own text can only be what another fact's span names: search the spans.
    if p.vector is not None and dim is not None and len(p.vector) == dim:
        for cid, _dist in store.span_search(pack_vector(p.vector), project, KNN + 1):
            found[cid] = None
    # Its spans can name any fact, causal or plain: search every fact.
    for v in (v for sp in plans for v in (sp.cause_vec, sp.effect_vec)):
        if v is None or dim is None or len(v) != dim:
            continue
        for cid, _dist in store.vec_search(pack_vector(v), project or "", KNN + 1):
            found[cid] = None
    found.pop(fid, None)
    return list(found)


def locality(rank: int | None, decay: float = SESSION_DECAY, floor: float = FAR_FLOOR) -> float:
    """The write-order locality factor of a candidate whose session is ``rank`` sessions back
    (0 = the new fact's own session, None = out of the window)."""
    if rank is None:
        return floor
    return max(floor, 1.0 - decay * max(0, rank - NEAR_SESSIONS))


def session_ranks(
    store: Store, fid: int, session: str | None, project: str | None
) -> tuple[dict[str | None, int], list[int]]:
    """Session -> how many sessions back it was last written (the new fact's own is 0), and
    the facts of the new fact's session and the NEAR_CANDIDATE_SESSIONS before it, newest
    first (at most NEAR_CANDIDATES): a story's earlier steps, whatever words they use."""
    ranks: dict[str | None, int] = {}
    if session is not None:
        ranks[session] = 0
    near: list[int] = []
    for cid, s in store.recent_in_project(project, fid, WINDOW):
        if s not in ranks:
            ranks[s] = len(ranks) + (0 if session is not None else 1)
        if ranks[s] <= NEAR_CANDIDATE_SESSIONS and len(near) < NEAR_CANDIDATES:
            near.append(cid)
    return ranks, near


def on_write(
    store: Store, items: list[Prepared], prov: Provenance, plans: list[list[SpanPlan]]
) -> None:
    """Inside the write transaction, after the facts are inserted: store the spans of each
    new fact (``plans``, from ``prepare_write``), then its links (backref to the previous
    sentence, joins with its project)."""
    if len(plans) != len(items):
        return
    from ..timeutil import to_iso, utc_now

    now = prov.recorded_at or to_iso(utc_now())
    fresh: list[tuple[int, Prepared, list[SpanPlan]]] = []
    diagnoses: list[tuple[Prepared, SpanPlan, int]] = []
    prev_id: int | None = None
    for p, spans in zip(items, plans, strict=True):
        if p.fact_id is None:
            continue
        if p.new and spans:
            ids = store.add_causal_assertions(
                p.fact_id,
                [
                    (
                        sp.span.cause, sp.span.effect, sp.span.cue, sp.span.confidence,
                        sp.span.backref,
                        pack_vector(sp.cause_vec) if sp.cause_vec is not None else None,
                        pack_vector(sp.effect_vec) if sp.effect_vec is not None else None,
                    )
                    for sp in spans
                ],
            )
            links = []
            for sp, aid in zip(spans, ids, strict=True):
                if sp.span.backref is None:
                    continue
                if sp.span.backref == "effect" and sp.span.effect == sp.span.cue:
                    diagnoses.append((p, sp, aid))  # linked after the joins, see below
                    continue
                # "Since the switch, X" / "Since 6.4, X": the step it names, if one near
                # names it; "Since then, X": the sentence before.
                prev = _named_step(store, p, sp.span.cause, prov.session, prov.project)
                if prev is None:
                    prev = prev_id
                if prev is None and prov.session is not None:
                    prev = store.previous_in_session(p.fact_id, prov.session)
                if prev is None and sp.span.backref == "cause":
                    # "Since then, X" opening a session: what it follows was told in one of
                    # the sessions just before, the fact closest to it there.
                    prev = _antecedent(store, p, prov.session, prov.project)
                if prev is None or prev == p.fact_id:
                    continue
                pair = (prev, p.fact_id) if sp.span.backref == "cause" else (p.fact_id, prev)
                links.append((*pair, "backref", sp.span.confidence, aid, sp.span.cue, now))
            store.add_causal_links(links)
        if p.new:
            fresh.append((p.fact_id, p, spans))
        prev_id = p.fact_id
    for fid, p, spans in fresh:
        _join(store, fid, p, spans, prov.project, now, prov.session)
    for p, sp, aid in diagnoses:
        # "Turned out X" / "The culprit was X": a diagnosis of a problem told before it. Its
        # own causes are joined by now and are not what it explains.
        explained = _explained(store, p, prov.session, prov.project)
        if explained is not None:
            store.add_causal_links(
                [(p.fact_id, explained, "backref", sp.span.confidence, aid, sp.span.cue, now)]
            )


_VERSION = re.compile(r"\d+(?:\.\d+)+")
# The words of a back-reference that name no step: "since", "after", "ever", "then", "that".
_BACKREF_WORDS = content_words(
    "since after ever then that this the our from point on day night later following "
    "last week's yesterday's seit nach dem der den diesem dieser unserem unserer depuis "
    "après cet cette notre desde tras los las este esta ese esa nuestro nuestra sinds het "
    "die deze dat onze após esse essa nosso nossa dopo dal dalla dallo dall' quel quella "
    "questo questa version versión versão versione versie release build firmware"
)
# The nouns that name a step by the kind of change it was ("the sidecar rollout", "the shard
# change", "der Umstellung"): the step itself says "injected", "now runs on 12 shards".
_EVENT_WORDS = content_words(EVENT_NOUNS_ALL.replace("|", " "))
_LATER = re.compile(r"\blater$", re.IGNORECASE)  # "Two days later": a time, no step named


def _named_step(
    store: Store, p: Prepared, cue: str, session: str | None, project: str | None
) -> int | None:
    """The fact of ``p``'s session or the ANTECEDENT_SESSIONS before it that a back-reference
    names: "Since the switch" the one that says "switched", "Since 6.4" the one that says
    "6.4". None when the cue names nothing ("Since then") or nothing near names it."""
    assert p.fact_id is not None
    if _LATER.search(cue.strip()):
        return None
    versions = set(_VERSION.findall(cue))
    named = {w for w in content_words(cue) - _BACKREF_WORDS if not w.isdigit()}
    if not versions and not named:
        return None
    ranks, near = session_ranks(store, p.fact_id, session, project)
    rows = {c: r for c, r in store.facts([c for c in near if c < p.fact_id]).items()
            if ranks.get(r.session, 99) <= ANTECEDENT_SESSIONS and r.status != "retracted"}
    naming = {
        c: r for c, r in rows.items()
        if versions & set(_VERSION.findall(r.text)) or (named and named <= content_words(r.text))
    }
    if not naming and (thing := named - _EVENT_WORDS) and thing != named:
        # "Since the sidecar rollout": no step says "rollout"; the one that names the sidecar
        # ("The mesh sidecar was injected into every pod").
        naming = {c: r for c, r in rows.items() if thing <= content_words(r.text)}
    # Not another step that follows the same one ("Since the switch, ..." told twice): its
    # stored spans say it opens with a back-reference.
    spans = store.causal_assertions(list(naming))
    for c in [c for c in naming if any(a.backref == "cause" for a in spans.get(c, ()))]:
        del naming[c]
    if len(naming) <= 1:
        return next(iter(naming), None)
    # Several name it ("Firmware 1.8 raised the I2C clock", "Firmware 1.8 also changed the
    # LED pattern"): the one closest in meaning to what followed.
    sims = similarities(Side(p.text, p.vector), naming, store.fact_vectors(list(naming)))
    return max(sims, key=lambda c: (sims[c], c))


def _antecedent(
    store: Store, p: Prepared, session: str | None, project: str | None
) -> int | None:
    """The fact of the ANTECEDENT_SESSIONS sessions before ``p``'s that an anaphoric cause
    opening ``p``'s session ("Seitdem ...", "Du coup, ...") refers back to: the closest to
    ``p`` by meaning and words, if close enough (ANTECEDENT_THRESHOLD)."""
    return _closest_before(store, p, session, project, sessions=(1, ANTECEDENT_SESSIONS),
                           threshold=ANTECEDENT_THRESHOLD)


def _explained(
    store: Store, p: Prepared, session: str | None, project: str | None
) -> int | None:
    """The fact a diagnosis ("Turned out X", "The culprit was X") explains: of the facts told
    before it in its session and the DIAGNOSED_SESSIONS before, the closest to it by meaning
    and words (the sentence just before it wins a near tie), if close enough. Not the
    diagnosis's own cause ("because of the long TTL"): that link was joined first."""
    assert p.fact_id is not None
    causes = {e.far for e in store.causal_edges([p.fact_id], "causes", _EVERYWHERE, FANOUT_ALL)}
    return _closest_before(store, p, session, project, sessions=(0, DIAGNOSED_SESSIONS),
                           threshold=DIAGNOSED_THRESHOLD, skip=causes, nudge_previous=True)


def _closest_before(
    store: Store, p: Prepared, session: str | None, project: str | None, *,
    sessions: tuple[int, int], threshold: float, skip: Collection[int] = (),
    nudge_previous: bool = False,
) -> int | None:
    """The fact told before ``p`` that ``p`` points back to: of the facts of the sessions
    ``sessions`` back (0: ``p``'s own, 1: the one before, both ends included), not retracted
    and not in ``skip``, the closest to ``p`` by meaning and words if it reaches
    ``threshold``. ``nudge_previous``: the sentence said just before ``p`` gains
    EARLIER_FIRST (it wins a near tie)."""
    assert p.fact_id is not None
    ranks, near = session_ranks(store, p.fact_id, session, project)
    rows = store.facts([c for c in near if c < p.fact_id])
    lo, hi = sessions
    cands = {c: r for c, r in rows.items()
             if lo <= ranks.get(r.session, 99) <= hi and r.status != "retracted"
             and c not in skip}
    if not cands:
        return None
    sims = similarities(Side(p.text, p.vector), cands, store.fact_vectors(list(cands)))
    if nudge_previous and session is not None:
        before = store.previous_in_session(p.fact_id, session)
        if before in sims:
            sims[before] += EARLIER_FIRST
    best, fid = max((sim, c) for c, sim in sims.items())
    return fid if best >= threshold else None


def similarities(
    me: Side, rows: Mapping[int, FactRow], blobs: Mapping[int, bytes]
) -> dict[int, float]:
    """``similarity`` of ``me`` to each fact of ``rows``, read with its stored vector."""
    return {c: similarity(me, Side(r.text, _vec(blobs.get(c)))) for c, r in rows.items()}


def _join(
    store: Store, fid: int, p: Prepared, spans: list[SpanPlan], project: str | None, now: str,
    session: str | None = None,
) -> None:
    ranks, recent = session_ranks(store, fid, session, project)
    cands = list(dict.fromkeys([*_candidates(store, p, spans, project), *recent]))
    if not cands:
        return
    assertions = store.causal_assertions([fid, *cands])
    rows = store.facts(cands)
    cands = [c for c in cands if c in rows]
    blobs = store.fact_vectors([fid, *cands])
    new = _node(fid, p.text, p.vector, assertions.get(fid, []))
    incoming: list[Scored] = []
    outgoing: list[Scored] = []
    threshold = JOIN_THRESHOLD
    # "Since then, X" / "Du coup, X": a fact whose every cause is an anaphor follows from
    # what was told before it, and is not itself the cause of anything told before it.
    follows = bool(spans) and all(sp.span.backref == "cause" for sp in spans)
    # "Because of the shorter timeout, X": a cause named as something already told (a
    # definite noun phrase) points back; an older fact it names is its cause, not its effect.
    # (Not a subject that is its own cause: "The firmware update increased ..." names a thing
    # of the story, and a fact that opens with it may be a sibling.)
    opening = p.text.lstrip().casefold()
    given_spans = [
        sp for sp in spans
        if sp.span.backref is None and _GIVEN.match(sp.span.cause)
        and not opening.startswith(sp.span.cause.casefold())
    ]
    given_words = frozenset().union(*(content_words(sp.span.cause) for sp in given_spans))
    names = identifiers(p.text)
    specific = {k for k, v in names.items() if v >= 1.0}
    # A pair a cue linked already ("Seitdem ..." to the step before) keeps its cue.
    stated = {e.far for e in store.causal_edges([fid], "causes", _EVERYWHERE, FANOUT_ALL)}
    for cid in cands:
        other = _node(cid, rows[cid].text, _vec(blobs.get(cid)), assertions.get(cid, []))
        rank = ranks.get(rows[cid].session)
        antecedent = rank is not None and rank <= ANTECEDENT_SESSIONS
        if new.plain and other.plain:
            # Two plain facts assert nothing causal; told close together about the same
            # thing, they may be two steps of one story.
            if antecedent and cid < fid and cid not in stated:
                _story(new, other, names, incoming, now)
            continue
        s_in, via_in, aid_in, cue_in = link_score(other, new)
        s_out, via_out, aid_out, cue_out = link_score(new, other)
        s_in *= locality(rank)
        s_out = 0.0 if follows else s_out * locality(rank, BACK_DECAY, BACK_FLOOR)
        t = ANTECEDENT_THRESHOLD if antecedent else threshold
        if given_words and antecedent and cid < fid:
            # A cause told as known ("the reflected Origin") names a step just before by its
            # words, however short the span and far its vector from the whole sentence.
            named = min(1.0, overlap(given_words, other.text.words) / GIVEN_OVERLAP)
            sib = min(sibling_factor(other.text.text, sp.span.cause) for sp in given_spans)
            s_in = max(s_in, t * named * sib)
        if antecedent and cid < fid and s_in > 0 and specific & {
            k for k, v in identifiers(other.text.text).items() if v >= 1.0
        }:
            s_in += IDENT_BONUS
        way = "in" if given_spans and s_in >= t and cid < fid else direction(s_in, s_out, t)
        if way == "out" and s_out < threshold:
            # The lower bar of the sessions just before is for the event a cause names, told
            # before it; a fact told before is not the effect of a new one on a loose match.
            way = "in" if s_in >= t else None
        if way is None:
            if antecedent and cid < fid and cid not in stated:
                _story(new, other, names, incoming, now)
            continue
        if way == "in":
            incoming.append(
                (s_in, antecedent, (cid, fid, via_in, round(s_in, 4), aid_in, cue_in, now))
            )
        else:
            outgoing.append(
                (s_out, antecedent, (fid, cid, via_out, round(s_out, 4), aid_out, cue_out, now))
            )
    for group in (incoming, outgoing):
        store.add_causal_links(_kept(group))


def _story(
    new: _Node, older: _Node, names: Mapping[str, float], incoming: list[Scored], now: str
) -> None:
    """Add the story link ``older`` -> ``new`` to ``incoming`` when the two name the same
    thing and say close things (``STORY`` times their similarity reaches the antecedent
    threshold): two steps told close together without a word of cause between them."""
    if not names.keys() & identifiers(older.text.text).keys():
        return
    if RULED_OUT.search(older.text.text) or RULED_OUT.search(new.text.text):
        return  # "Logrotate on worker-node-3 was checked and ruled out": not a step of it
    score = min(1.0, similarity(older.text, new.text) * STORY)
    if score >= ANTECEDENT_THRESHOLD:
        incoming.append((score, True, (older.id, new.id, "story", round(score, 4), None, None,
                                       now)))


_GIVEN = re.compile(
    r"(?:the|that|this|these|those|its|their|our|der|die|das|den|dem|des|dies\w*|le|la|les|"
    r"l'|ce|cet|cette|ces|el|los|las|este|esta|estos|estas|ese|esa|het|de|deze|dit|il|lo|gli|"
    r"questo|questa|quel|quella|esse|essa|isso|este|bu|şu)(?:\s|(?<=')\w)",
    re.IGNORECASE,
)


def direction(s_in: float, s_out: float, threshold: float) -> str | None:
    """Which way a candidate links to the new fact, from the two scores: ``"in"`` (the
    candidate, written first, is the cause), ``"out"`` (the new fact is its cause) or None.
    A tie within EARLIER_FIRST goes to the order of writing: a story is told forwards more
    often than not, and a cause found later names the effect it explains more closely than
    the tie allows."""
    if max(s_in, s_out) < threshold:
        return None
    return "in" if s_in >= threshold and s_in + EARLIER_FIRST >= s_out else "out"


Scored = tuple[float, bool, tuple[int, int, str, float, int | None, str | None, str]]


def _kept(group: list[Scored]) -> list[tuple[int, int, str, float, int | None, str | None, str]]:
    """The links kept of one direction: those within MARGIN of the best (at most MAX_LINKS),
    and likewise of the best candidate from the antecedent sessions, so that a story's own
    earlier step is not crowded out by another story's fact with more words in common."""
    group = sorted(group, key=lambda x: -x[0])
    keep: list[tuple[int, int, str, float, int | None, str | None, str]] = []
    for pool in (group, [g for g in group if g[1]]):
        if pool:
            top = pool[0][0]
            keep += [
                row for s, _a, row in pool[:MAX_LINKS] if s >= top - MARGIN and row not in keep
            ]
    return keep

