"""The block the prompt hook injects: recalled facts worded as data, within a budget.

``build`` runs one hybrid recall for the prompt in the project, and a second one at a
point in world time when the prompt names one ("on January 30", "back in mid-January",
"as of March"), so that the value in force then is surfaced with its history marker.

Hits are grouped by the exchange that produced them (the capture's ``inbox:<id>`` source):
a decision and its reasons are spread over several sentences of one turn, so the turn is
the unit that is scored and shown. Each exchange has to clear an absolute relevance floor,
because recall scores are relative (the best hit always scores 1) and a prompt about
nothing stored must inject nothing: the best cosine similarity of its facts to the prompt,
and the share of the prompt's rare words (by FTS5 document frequency) it contains. Prompts
that announce themselves as off-topic ("totally different thing", "quick git question",
"just the concept") get nothing. A later exchange on the same subject that says it
replaced, switched or dropped something marks the earlier one "[superseded?]" (the engine's
own supersede marks are shown as "[superseded by #N]"); one common entity ("Airflow")
shared is not enough to call two exchanges the same subject.

The best kept exchanges are then followed one hop, because the answer to a chain or a
blast-radius question is often an exchange that shares no word with the prompt: exchanges
that name the same rare identifier (a path, snake_case or dotted name, a product name; one
that more than BRIDGE_MAX_DF exchanges name links nothing), and the turn just before or
after in the same session ("OK, go with daily." is read with the options it answers). They
are ranked below the exchange that reached them and marked "linked by X" / "same
conversation".

A task prompt (one of its sentences starts like a request: "add ...", "let's ...", "rewrite
...", "I'd like ...") also gets the project's standing rules, which bind every task without
being named in it: the user's ("house rules", "from now on", "never ...", "don't use X",
"X only", "please stop ...ing") and the constraints the assistant stated while solving
something else ("Safari 15.1 is our floor", "must stay under 8 MB", "the cap is 40
credits/day"). They go first, in a reserved share of the budget (smaller when the prompt
also asks a question), so that recalled exchanges cannot crowd them out.

Rendering, best first until the budget is spent: ``[date session sN]`` then one line per
fact, ``#id text``, filler sentences and narration that names nothing ("Let me look at the
tokens.") dropped, then, in what is left of the budget, an indented ``because #id: ...``
line for a recorded direct cause related to the prompt when the causal walk is available.
Ids the session was already shown are skipped, so one session never sees a fact twice.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ...hooks.common import HEADER, INJECTED_TAG
from ...hooks.text import MONTH_PATTERN, MONTHS, plain_words, prefix_stem
from ..causal import walks
from ..errors import GraphMemoryError
from ..extract.dates import UNKNOWN_START, resolve_valid_time
from ..read import recall as recall_mod
from ..storage import connection as db
from ..storage.filters import Scope
from ..timeutil import ensure_utc, to_iso
from . import rules
from .exchanges import (
    WORD,
    Exchange,
    bridge,
    exchange_keys,
    fill,
    mentions,
    norm_ident,
    worth,
)

if TYPE_CHECKING:
    from ..ml.embed import Embedder
    from ..records import Hit
    from ..storage.store import Store

K = 40  # candidates considered per recall
MAX_EXCHANGES = 6
OFF_TOPIC = re.compile(
    r"\b(totally|completely|entirely) (different|unrelated)|\bunrelated (question|thing)|"
    r"\b(general|generic|quick) (\w+ )?question\b|\bjust the concept\b|"
    r"\bno code from (our|this|the) (app|project|codebase|repo)",
    re.I,
)
MIN_COS = 0.25  # a fact less similar than this to the prompt is never injected
STRONG_COS = 0.45
NEAREST_COS = 0.38  # the most similar exchange at least this similar needs no lexical support
MIN_LEX = 0.15  # share of the prompt's rare-word mass a fact must contain (unless STRONG_COS)
KEEP_FRACTION = 0.30  # of the best relevance
_PART = re.compile(
    r"\b(early|mid|late|end of|beginning of|start of)[\s-]+(" + MONTH_PATTERN + r")\b", re.I
)


@dataclass(frozen=True)
class Context:
    """An injected block and the fact ids it shows (empty text = inject nothing)."""

    text: str
    ids: list[int] = field(default_factory=list)
    valid_at: str | None = None  # the point in world time the prompt asked about, if any


def asked_time(prompt: str, now: datetime) -> datetime | None:
    """The point in world time a prompt asks about, or None: a date or month it names
    ("on February 3rd", "as of March", "back in mid-January"), read as the most recent
    one before ``now``."""
    m = _PART.search(prompt)
    if m:
        month = MONTHS.index(m.group(2).lower()) + 1
        year = now.year if month <= now.month else now.year - 1
        day = {"early": 5, "beginning of": 3, "start of": 3, "mid": 15, "late": 25,
               "end of": 27}[m.group(1).lower()]
        return ensure_utc(datetime(year, month, day, 12))
    span = resolve_valid_time(prompt, now)
    if span is None or span[0] <= UNKNOWN_START:
        return None
    start, end = span
    if end is None or end - start > timedelta(days=62):
        # "since March", "as of March": the start of the period, if it is in the past.
        return start + timedelta(hours=12) if start < now else None
    moment = start + (end - start) / 2
    return moment if moment < now else None


def _idf(store: Store, words: list[str]) -> dict[str, float]:
    total = store.max_fact_id() or 1  # facts ever written: O(1), unlike count(*)
    out: dict[str, float] = {}
    for w in words:
        df = store.match_count(f'"{w}"')  # a word FTS5 cannot take is simply not counted
        # Words no fact contains carry no evidence either way: weight them lightly.
        out[w] = 0.3 if df == 0 else math.log(1 + total / df)
    return out


def _lexical(text: str, idf: dict[str, float]) -> float:
    tokens = set(WORD.findall(text.lower()))
    mass = sum(idf.values()) or 1.0
    hit = sum(v for w, v in idf.items() if any(t.startswith(prefix_stem(w)) for t in tokens))
    return hit / mass


def _line(hit: Hit, marker: str = "") -> str:
    return f"#{hit.id}{marker} {hit.text}"


_CHANGE = re.compile(
    r"\b(replac\w*|switch\w*|instead|no longer|dropp?(ed|ing)|remov\w*|migrat\w*|rewr[io]te|"
    r"deprecat\w*|supersed\w*|moved? (off|away)|changed the default|revert\w*|rethink|"
    r"retir\w*|abandon\w*|ripp(ed|ing) out)\b",
    re.I,
)


def _stems(text: str) -> set[str]:
    return {w[:6] for w in plain_words(text) if len(w) >= 4}


REVISE_RARE_DEGREE = 12  # an entity on more facts than this ("Airflow", "Spark") names no subject


def _mark_revised(store: Store, kept: list[Exchange]) -> None:
    """Decisions change without anyone calling ``revise``: when a later exchange on the same
    subject says it replaced, switched, dropped or migrated something, the earlier exchange
    is marked as possibly superseded and ranked lower. Same subject: a shared rare entity
    and a few shared words, or two shared entities and several words, or many shared words;
    one common entity ("Airflow", "dbt") alone is not a subject. Facts the engine already
    superseded are filtered out before this."""
    ents = store.entities_of([h.id for e in kept for h in e.facts])
    degree = store.entity_degrees(
        sorted({eid for lst in ents.values() for eid, _, _ in lst}), cap=REVISE_RARE_DEGREE + 1
    )
    info = []
    for ex in kept:
        text = " ".join(h.text for h in ex.facts)
        names = {(n, degree.get(eid, 0) <= REVISE_RARE_DEGREE)
                 for h in ex.facts for eid, n, _ in ents.get(h.id, [])}
        when = min((h.recorded_at for h in ex.facts), default="")
        info.append((ex, when, names, _stems(text), bool(_CHANGE.search(text))))
    for old, t_old, n_old, w_old, _ in info:
        if old.revised_by:
            continue
        for new, t_new, n_new, w_new, changes in info:
            if new is old or not changes or t_new <= t_old:
                continue
            shared, words = n_old & n_new, len(w_old & w_new)
            rare = sum(1 for _, is_rare in shared if is_rare)
            if (rare and words >= 3) or (len(shared) >= 2 and words >= 5) or words >= 7:
                first = new.facts[0]
                old.revised_by = f"{_day(first)} session {(first.session or '-')[:12]}"
                old.rel *= 0.8
                break


def build(
    store: Store,
    embedder: Embedder | None,
    prompt: str,
    *,
    walk: bool,
    project: str | None,
    session: str | None,
    budget: int,
    exclude: frozenset[int],
    now: datetime,
) -> Context:
    """The injected block for ``prompt`` (see the module docstring). ``walk``: add the
    causal ``because`` lines (only when the model is loaded: the block never waits for it)."""
    words = plain_words(prompt)
    if len(words) < 2 or OFF_TOPIC.search(prompt):
        return Context("")
    qvec = None
    if embedder is not None and store.vec_dim is not None:
        qvec = embedder.embed_batch([prompt[:2000]])[0]
    scope = Scope(project=project)
    hits, _ = recall_mod.recall(store, embedder, prompt[:4000], k=K, scope=scope, query_vector=qvec)
    when = asked_time(prompt, now)
    valid_at = to_iso(when) if when else None
    then: dict[int, Hit] = {}
    if when is not None:
        past = Scope(project=project, valid_at=valid_at)
        then_hits, _ = recall_mod.recall(
            store, embedder, prompt[:4000], k=K // 2, scope=past, query_vector=qvec
        )
        then = {h.id: h for h in then_hits if h.status != "current"}
    pool: dict[int, Hit] = {h.id: h for h in hits}
    for h in then.values():
        pool.setdefault(h.id, h)
    if not pool:
        return Context("", valid_at=valid_at)

    # Group the hits into exchanges, and fetch every visible fact of the best exchanges.
    keys = exchange_keys(store, list(pool))
    exchanges: dict[str, Exchange] = {}
    for h in sorted(pool.values(), key=lambda x: -x.score):
        key = keys.get(h.id, f"fact:{h.id}")
        ex = exchanges.setdefault(key, Exchange(key))
        ex.rank = max(ex.rank, h.score + (0.3 if h.id in then else 0.0))
    best_first = sorted(exchanges.values(), key=lambda e: -e.rank)[:MAX_EXCHANGES * 2]
    view = scope
    if when is not None:  # what was true then, and what is current now
        view = Scope(project=project, valid_at=valid_at, also=Scope.current_in(project))
    all_ids = fill(store, best_first, pool, view)

    cos: dict[int, float] = {}
    if qvec is not None:
        cos = {fid: 1.0 - d for fid, d in store.distances(all_ids, db.pack_vector(qvec)).items()}
    idf = _idf(store, words[:32])
    kept: list[Exchange] = []
    tops = {ex.key: max((cos.get(h.id, 0.0) for h in ex.facts), default=0.0) for ex in best_first}
    nearest = max(tops, key=lambda k: tops[k], default=None)
    for ex in best_first:
        if not ex.facts:
            continue
        lex = _lexical(" ".join(h.text for h in ex.facts), idf)
        top = tops[ex.key]
        # A paraphrase shares no rare word with the prompt ("faking backend responses" for
        # "mock the API"): the single most similar exchange needs no lexical support when
        # it is clearly similar.
        paraphrase = ex.key == nearest and top >= NEAREST_COS
        if qvec is not None and (top < MIN_COS or (top < STRONG_COS and lex < MIN_LEX
                                                   and not paraphrase)):
            continue
        if qvec is None and lex < MIN_LEX * 1.5:
            continue
        ex.rel = top + 0.6 * lex + 0.1 * min(ex.rank, 3.0)
        kept.append(ex)
    if not kept:
        return Context("", valid_at=valid_at)
    _mark_revised(store, kept)
    kept.sort(key=lambda e: -e.rel)
    best = kept[0].rel
    kept = [e for e in kept if e.rel >= KEEP_FRACTION * best][:MAX_EXCHANGES]
    linked = bridge(store, prompt, kept, pool, view)
    if linked:
        if qvec is not None:
            new_ids = [h.id for e in linked for h in e.facts if h.id not in cos]
            cos.update({fid: 1.0 - d for fid, d in
                        store.distances(new_ids, db.pack_vector(qvec)).items()})
        _mark_revised(store, kept + linked)
    kept = sorted(kept + linked, key=lambda e: -e.rel)

    qblob = db.pack_vector(qvec) if qvec is not None else None
    opening, closing = f"<{INJECTED_TAG}>", f"</{INJECTED_TAG}>"
    used = len(opening) + len(HEADER) + len(closing) + 3
    blocks: list[list[str]] = []
    ids: list[int] = []
    if rules.is_task(prompt):
        # The user's standing rules go first, in a reserved share of the budget: they bind
        # the whole task, and a budget filled by recalled exchanges must not crowd them out.
        standing = rules.standing_rules(store, project, cos, set(exclude))
        if standing and qvec is not None:
            dist = store.distances([h.id for h in standing], db.pack_vector(qvec))
            standing = [h for h in standing if 1.0 - dist.get(h.id, 1.0) >= rules.RULE_MIN_COS]
            standing.sort(key=lambda h: dist.get(h.id, 1.0))
        # A task that also asks a question ("I want to rename X. What breaks?") wants the
        # answer first: its rules get a smaller share.
        share = rules.RULE_SHARE_ASKED if rules.ASKS.search(prompt) else rules.RULE_SHARE
        cap = min(budget - used, int(budget * share))
        lines, cost = [rules.RULES_HEAD], len(rules.RULES_HEAD) + 1
        for h in standing[:6]:
            line = f"#{h.id} ({_day(h)} {(h.session or '-')[:12]}) {h.text}"
            if cost + len(line) + 1 <= cap:
                lines.append(line)
                ids.append(h.id)
                cost += len(line) + 1
        if len(lines) > 1:
            blocks.append(lines)
            used += cost
    plans: list[tuple[Exchange, str, list[Hit], list[Hit]]] = []
    for ex in kept:
        facts = [h for h in ex.facts if h.id not in exclude and h.id not in ids and worth(h.text)]
        if not facts:
            continue
        first = facts[0]
        head = f"[{_day(first)} session {(first.session or '-')[:12]}"
        head += f"; {ex.via}" if ex.via else ""
        head += f"; changed later, see {ex.revised_by}]" if ex.revised_by else "]"

        def weight(h: Hit, ex: Exchange = ex) -> float:
            linked = bool(ex.token) and mentions(norm_ident(h.text), ex.token)
            return cos.get(h.id, 0.0) + (0.5 if h.id in pool else 0.0) + (0.5 if linked else 0.0)

        plans.append((ex, head, sorted(facts, key=lambda h: -weight(h)), []))
    # Best exchange first, and within it the best facts first when the budget is short.
    for ex, head, order, chosen in plans:
        for h in order:
            line = _line(h, _marker(h, then, when, ex.revised_by))
            cost = len(line) + 1 + (0 if chosen else len(head) + 1)
            if used + cost > budget:
                continue
            chosen.append(h)
            used += cost
    shown: list[tuple[list[Hit], list[str]]] = []
    for ex, head, _order, chosen in plans:
        if not chosen:
            continue
        chosen.sort(key=lambda h: h.id)  # shown in the order they were said
        lines = [head]
        for h in chosen:
            lines.append(_line(h, _marker(h, then, when, ex.revised_by)))
            ids.append(h.id)
        blocks.append(lines)
        shown.append((chosen, lines))
    # Recorded causes last: they fill what the facts left of the budget.
    for chosen, lines in shown if walk else []:
        for h in chosen[:2]:
            for extra in _because(store, h.id, project, exclude | set(ids), qblob):
                if used + len(extra) + 1 <= budget:
                    lines.append(extra)
                    used += len(extra) + 1
    if not blocks:
        return Context("", valid_at=valid_at)
    text = "\n".join([opening, HEADER, *(line for b in blocks for line in b), closing])
    return Context(text, ids, valid_at=valid_at)


def _day(h: Hit) -> str:
    """When the fact was stated to be true (its valid-from day), else when it was recorded."""
    start = h.valid_from or ""
    return (start if start > "1970-01-02" else h.recorded_at)[:10]


def _marker(h: Hit, then: dict[int, Hit], when: datetime | None, revised_by: str = "") -> str:
    if h.status == "current":
        return " [superseded?]" if revised_by else ""
    by = f" by #{h.superseded_by}" if h.superseded_by else ""
    if h.id in then and when is not None:
        return f" [in force on {to_iso(when)[:10]}; later superseded{by}]"
    return f" [{h.status}{by}]"


def _because(
    store: Store, fact_id: int, project: str | None, skip: set[int], qblob: bytes | None = None
) -> list[str]:
    """One ``because`` line per recorded direct cause (nothing while the walk is absent).
    A cause that states nothing, or that is unrelated to the prompt (cosine below MIN_COS),
    is not worth its characters."""
    try:
        nodes = walks.trace(store, None, fact_id, direction="causes", depth=1,
                            scope=recall_mod.Scope(project=project))
    except (GraphMemoryError, TypeError, AttributeError):
        return []
    out = []
    for n in nodes[:1]:
        nid = getattr(n, "id", None)
        text = str(getattr(n, "text", "") or "")
        if nid is None or nid == fact_id or nid in skip or not worth(text):
            continue
        if qblob is not None:
            dist = store.distances([nid], qblob).get(nid)
            if dist is not None and 1.0 - dist < MIN_COS:
                continue
        out.append(f"  because #{nid}: {text}")
    return out
