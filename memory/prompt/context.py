"""The block the prompt hook injects: recalled facts worded as data, within a budget.

``build`` runs one hybrid recall for the prompt in the project, and a second one at a
point in world time when the prompt names one ("on January 30", "back in mid-January",
"as of March"), so that the value in force then is surfaced with its history marker; an
exchange said after that time says so in its head ("said after 2026-01-15, the time asked
about"): what is current now is not what held then.

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
that more than ``bridge_max_df`` exchanges name links nothing), and the turn just before or
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

The budget stretches, at most to twice itself (2.5 times for a question of causes or impact),
to show the four best exchanges whole: an agent's replies run to 1,000-1,500 characters, and
2,000 would hold one or two of them where it holds six short ones.
Rendering, best first until the budget is spent: ``[date session sN]`` then one line per
fact, ``#id text``, filler sentences and narration that names nothing ("Let me look at the
tokens.") dropped, then, in what is left of the budget, an indented ``because #id: ...``
line for a recorded direct cause related to the prompt when the causal walk is available.
Ids the session was already shown are skipped, so one session never sees a fact twice.

Every weight and threshold is a field of ``ContextConfig`` (``config.py``); ``build`` runs
the stages in order: ``_recall_pool``, ``_exchanges``, ``_score``, ``_link``, then the
rendering (``_rules_block``, ``_plans``, ``_stretched``, ``_spend``, ``_causes``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ...hooks.common import HEADER, INJECTED_TAG
from ...hooks.text import MONTH_PATTERN, MONTHS, other_script_words, plain_words, prefix_stem
from ..causal import walks
from ..errors import GraphMemoryError
from ..extract.dates import UNKNOWN_START, resolve_valid_time
from ..extract.kinds import is_task
from ..read import recall as recall_mod
from ..read.gloss import english_gloss, is_english, is_foreign
from ..storage import connection as db
from ..storage import inbox as queue
from ..storage.filters import Scope
from ..timeutil import ensure_utc, parse_when, to_iso
from ..updates.coding import unasserted
from ..updates.shift import replacement_cues
from . import rules
from .config import CONTEXT, ContextConfig
from .exchanges import (
    BACK_REFERENCE,
    CAUSAL_ASK,
    CODE_SPAN,
    IMPACT_ASK,
    WORD,
    Exchange,
    bridge,
    cause_bridge,
    exchange_keys,
    exchange_of,
    fill,
    identifiers,
    mentions,
    named_changes,
    namespace,
    norm_ident,
    project_word,
    story_links,
    worth,
)

if TYPE_CHECKING:
    from ..ml.embed import Embedder
    from ..records import Hit
    from ..storage.store import Store

# The user saying the prompt is not about the project: "not about our firmware, just plain
# C", "nothing to do with this codebase", "unrelated to the repo", "a conceptual question".
OFF_TOPIC = re.compile(
    r"\b(totally|completely|entirely) (different|unrelated)|\bunrelated (question|thing)|"
    r"\b(general|generic|quick|conceptual|theoretical) (\w+ ){0,2}question\b|"
    r"\bjust the concept\b|\bno code from (our|this|the) (app|project|codebase|repo)|"
    r"\b(not|nothing) (about|to do with|related to|specific to) (our|this|the|my) "
    r"(\w+ )?(app|project|codebase|code|repo|repository|firmware|product|service|system|stack)"
    r"\b|\bunrelated to (our|this|the|my) |\bjust (plain|vanilla|generic|general) \w+|"
    r"\boutside (of )?(our|this|the) (project|repo|codebase)|"
    r"\boff[- ]?topic\b|\b(side|random|general knowledge) question\b|"
    # "not about our pipeline, just Polars in general": whatever the noun, "just" names the
    # general subject asked about instead
    r"\bnot about (our|this|the|my) [\w\s-]{1,30}?[,;:.\u2013\u2014-]+\s*(just|only)\b|"
    r"\bjust \w+( \w+)? in general\b",
    re.I,
)
_PART = re.compile(
    r"\b(early|mid|late|end of|beginning of|start of)[\s-]+(" + MONTH_PATTERN + r")\b", re.I
)


@dataclass(frozen=True)
class Context:
    """An injected block and the fact ids it shows (empty text = inject nothing)."""

    text: str
    ids: list[int] = field(default_factory=list)
    valid_at: str | None = None  # the point in world time the prompt asked about, if any


# Months and parts of a month in the other languages the prompt block reads ("all'inizio di
# febbraio", "Anfang Februar", "mi-février", "Şubat başında", "2月上旬"): the day each part
# stands for, as for "early", "mid" and "late" in English.
_MONTH_NAMES = {
    "de": "januar februar märz april mai juni juli august september oktober november dezember",
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
          "diciembre",
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre "
          "décembre",
    "nl": "januari februari maart april mei juni juli augustus september oktober november "
          "december",
    "pt": "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro "
          "dezembro",
    "it": "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre "
          "novembre dicembre",
    "tr": "ocak şubat mart nisan mayıs haziran temmuz ağustos eylül ekim kasım aralık",
    "pl": "styczeń luty marzec kwiecień maj czerwiec lipiec sierpień wrzesień październik "
          "listopad grudzień",
    "pl-of": "stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października "
             "listopada grudnia",
    "cs": "leden únor březen duben květen červen červenec srpen září říjen listopad prosinec",
    "cs-of": "ledna února března dubna května června července srpna září října listopadu "
             "prosince",
    "sv": "januari februari mars april maj juni juli augusti september oktober november "
          "december",
    "id": "januari februari maret april mei juni juli agustus september oktober november "
          "desember",
    "ru": "январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь",
    "ru-of": "января февраля марта апреля мая июня июля августа сентября октября ноября "
             "декабря",
}


_PART_NAMES = {
    5: "anfang début debut principios comienzos inicio início inizio primi begin başı başında "
       "początku początek början začátku začátek awal начале начало",
    15: "mitte mi milieu mediados meados metà meta midden half ortası ortasında połowie "
        "połowa mitten polovině polovina půli pertengahan tengah середине середина",
    25: "ende fin finales final fine eind sonu sonunda końcu koniec slutet konci konec akhir "
        "конце конец",
}


def _fold(word: str) -> str:
    """A month or part word as the tables key it: lower case, Turkish dotless i as i (upper
    case "ARALIK" lowers to "aralik", not "aralık")."""
    return word.lower().replace("ı", "i").replace("i̇", "i")


def _alternatives(words: list[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_FOREIGN_MONTH = {_fold(name): i + 1 for names in _MONTH_NAMES.values()
                  for i, name in enumerate(names.split())}
_FOREIGN_DAY = {_fold(part): day for day, parts in _PART_NAMES.items() for part in parts.split()}
_FOREIGN_NAMES = _alternatives([n for names in _MONTH_NAMES.values() for n in names.split()])
_FOREIGN_PART = re.compile(
    r"\b(?P<part>" + _alternatives(" ".join(_PART_NAMES.values()).split()) + r")"
    r"(?:[\s-]+(?:de|di|del|dello|van|du|of|av|d'))?[\s-]+(?P<month>" + _FOREIGN_NAMES + r")\b"
    r"|\b(?P<month2>" + _FOREIGN_NAMES + r")\s+(?P<part2>başı|ortası|sonu)\w*",
    re.I,
)
# A day of a month in the other languages: "dia 10 de março", "le 10 mars", "am 10. März",
# "10 Mart", "el 3 de febrero", "3月10日"; and "März 10".
_FOREIGN_DATE = re.compile(
    r"\b(?P<day>[0-3]?\d)\.?\s+(?:de\s+|di\s+)?(?P<month>" + _FOREIGN_NAMES + r")\b"
    r"|\b(?P<month2>" + _FOREIGN_NAMES + r")\s+(?P<day2>[0-3]?\d)\b(?![.:,]?\d)"
    r"|(?P<month3>1[0-2]|[1-9])(?:月|월)\s?(?P<day3>[1-3]?\d)(?:日|일)",
    re.I,
)
_CJK_PART = re.compile(r"(?P<month>1[0-2]|[1-9])(?:月|월)\s?"
                       r"(?P<part>初め|初旬|上旬|初|中旬|半ば|下旬|末|초순|상순|중순|하순|초|말)")
_CJK_DAY = {"初め": 5, "初旬": 5, "上旬": 5, "初": 5, "中旬": 15, "半ば": 15, "下旬": 25, "末": 27,
            "초순": 5, "상순": 5, "초": 5, "중순": 15, "하순": 25, "말": 27}
_DAY = {"early": 5, "beginning of": 3, "start of": 3, "mid": 15, "late": 25, "end of": 27}


def _month_part(prompt: str) -> tuple[int, int] | None:
    """(month, day) of "early/mid/late <month>" the prompt names, in English or another
    language ("back in mid-January", "all'inizio di febbraio", "2月下旬"), or of a day of a
    month in another language ("dia 10 de março", "am 10. März", "3月10日"), or None."""
    m = _PART.search(prompt)
    if m:
        return MONTHS.index(m.group(2).lower()) + 1, _DAY[m.group(1).lower()]
    f = _FOREIGN_PART.search(prompt)
    if f:
        month = _FOREIGN_MONTH[_fold(f.group("month") or f.group("month2"))]
        return month, _FOREIGN_DAY[_fold(f.group("part") or f.group("part2"))]
    c = _CJK_PART.search(prompt)
    if c:
        return int(c.group("month")), _CJK_DAY[c.group("part")]
    d = _FOREIGN_DATE.search(prompt) if not is_english(prompt) else None
    if d is None:  # (in English, "3 mart builds" names no date)
        return None
    if d.group("month3"):
        month, day = int(d.group("month3")), int(d.group("day3"))
    else:
        month = _FOREIGN_MONTH[_fold(d.group("month") or d.group("month2"))]
        day = int(d.group("day") or d.group("day2"))
    return (month, day) if 1 <= day <= 31 else None


def asked_time(prompt: str, now: datetime) -> datetime | None:
    """The point in world time a prompt asks about, or None: a date or month it names
    ("on February 3rd", "as of March", "back in mid-January", "all'inizio di febbraio"),
    read as the most recent one before ``now``."""
    part = _month_part(prompt)
    if part:
        month, day = part
        year = now.year if month <= now.month else now.year - 1
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


# A question about an earlier state that names no date: "how often were the boards taking a
# reading back then?", "what did we use originally?". Its answer may have been superseded.
# So may the options a decision weighed and rejected ("what else did we consider?").
_PAST_ASKED = re.compile(
    r"\b(?:back then|at the time|at that time|in those days|originally|used to|previously|"
    r"(?:what|which) (?:else|other \w+) (?:did|do|have) (?:we|you|they) (?:consider|weigh|"
    r"evaluat|look at|tr[yi]|reject|rule)\w*|(?:alternatives|options) (?:we|you|they) "
    r"(?:considered|weighed|rejected|ruled out|looked at|tried)|ruled out|"
    r"(?:andere|welche) (?:optionen|alternativen)|otras opciones|autres options|"
    r"before (?:the|we|it|that) (?:switch|change|changed|moved?|migrat\w*|upgrade\w*|rewrite)|"
    r"damals|zu der zeit|à l'époque|autrefois|en aquel momento|en ese momento|antes|toen|"
    r"destijds|naquela época|all'epoca|o zaman)\b",
    re.IGNORECASE,
)


# "still pinned to 0.6.x", "in v2.3", "on version 1.4": a release the prompt asks about.
_ASKED_VERSION = re.compile(
    r"\b(?:on|in|to|at|with|from|of|pinned to|using|running|version|release|v)\s*"
    r"v?(?P<v>\d+\.\d+)(?:\.(?:\d+|x|\*))?\b",
    re.I,
)
_RELEASED = re.compile(
    r"\b(?:tagged|released|release|published|cut|shipped|bump(?:ed)?|tag)\b", re.I
)


def release_time(
    store: Store, prompt: str, project: str | None, now: datetime
) -> datetime | None:
    """When the release a prompt names was made ("pinned to 0.6.x" -> the day v0.6.0 was
    tagged), read from the project's facts that report tagging or releasing it: the prompt
    then asks about what was true in that version."""
    m = _ASKED_VERSION.search(prompt)
    if m is None:
        return None
    version = m.group("v")
    # The index splits "v0.6.0" into "v0", "6", "0": ask for both spellings.
    match = f'"{version}" OR "v{version}"'
    hits = store.fts_search(match, Scope(project=project, include_history=True), 20)
    rows = store.facts([fid for fid, _ in hits])
    said = re.compile(rf"(?<![\d.])v?{re.escape(version)}(?:\.0)?(?![\d.]*\d)")
    times = sorted(
        r.recorded_at for r in rows.values() if _RELEASED.search(r.text) and said.search(r.text)
    )
    if not times:
        return None
    when = parse_when(times[0]) + timedelta(hours=1)  # just after the release was made
    return when if when < now else None


def _idf(store: Store, words: list[str], unseen: float) -> dict[str, float]:
    total = store.max_fact_id() or 1  # facts ever written: O(1), unlike count(*)
    out: dict[str, float] = {}
    for w in words:
        df = store.match_count(f'"{w}"')  # a word FTS5 cannot take is simply not counted
        # Words no fact contains carry no evidence either way: weight them lightly.
        out[w] = unseen if df == 0 else math.log(1 + total / df)
    return out


def _lexical(text: str, idf: dict[str, float]) -> float:
    tokens = set(WORD.findall(text.lower()))
    mass = sum(idf.values()) or 1.0
    hit = sum(v for w, v in idf.items() if any(t.startswith(prefix_stem(w)) for t in tokens))
    return hit / mass


def _line(hit: Hit, marker: str = "") -> str:
    """A fact's line. A marked fact of several lines (a code block) is written on one, its
    lines joined by " ⏎ ", so that no line of stale code reads as current without its
    marker (an agent copies a code block whole, not from its first line)."""
    return f"#{hit.id}{marker} {_one_line(hit.text) if marker else hit.text}"


def _one_line(text: str) -> str:
    """``text`` on one line, its lines joined by " ⏎ " (how a marked code block is shown)."""
    if "\n" not in text:
        return text
    return " ⏎ ".join(part.strip() for part in text.splitlines() if part.strip())


_CHANGE = re.compile(
    # ("CREATE OR REPLACE VIEW" is SQL, not a thing replaced)
    r"\b((?<!or )replac(e|es|ed|ing)|switch\w*|instead|no longer|dropp?(ed|ing)|remov\w*|"
    r"rewr[io]te|"
    # "migrated", "migrate off X"; not "Migration AddReportingView creates ..." (a file)
    r"migrat(ed|ing)|migrate (off|away|from|to)|"
    r"deprecat\w*|supersed\w*|moved? (off|away)|changed the default|revert\w*|rethink|"
    r"mov(e|ed|ing) (the |our |its )?([\w\-]+ ){1,3}(over )?to\b|"
    r"retir\w*|abandon\w*|ripp(ed|ing) out|(is|are) now|now (go|goes|use|uses|run|runs|"
    r"live|lives|point|points))\b",
    re.I,
)


def _replaced(text: str) -> bool:
    """Whether ``text`` says a thing was replaced, moved, dropped or reversed, in any of the
    write path's languages (``shift.replacement_cues``), not merely that a value or state
    moved."""
    return bool(replacement_cues(text))


def _stems(text: str) -> set[str]:
    return {w[:6] for w in plain_words(text) if len(w) >= 4}


def _said(facts: list[Hit]) -> str:
    """When the first of ``facts`` was recorded (ISO, to the second)."""
    return min(h.recorded_at for h in facts)[:19]


def _mark_superseded_exchanges(
    store: Store, kept: list[Exchange], cfg: ContextConfig, asked: str | None = None
) -> None:
    """An exchange one of whose facts the engine superseded by a fact of a later exchange
    has been changed as a whole: the superseded sentence ("Let me add Spring Retry.") is
    hidden, but the rest of the decision ("@Retryable(maxAttempts = 3) on ...") is still
    visible and would read as current. ``asked``: as in ``_mark_revised``."""
    keys = [e.key for e in kept if e.key.startswith("inbox:") and not e.revised_by]
    if not keys:
        return
    sources = [f"{k}:{role}" for k in keys for role in ("user", "assistant")]
    history = Scope(include_history=True, all_projects=True)
    by_key: dict[str, list[int]] = {}
    for fid, source in store.facts_stated_in(sources, history):
        by_key.setdefault(source.rsplit(":", 1)[0], []).append(fid)
    rows = store.facts([fid for ids in by_key.values() for fid in ids])
    newer = store.facts([r.superseded_by for r in rows.values()
                         if r.status == "superseded" and r.superseded_by])
    for ex in kept:
        for fid in by_key.get(ex.key, []):
            r = rows.get(fid)
            n = newer.get(r.superseded_by) if r and r.superseded_by else None
            if r is None or n is None or r.status != "superseded":
                continue
            by = n.source.rsplit(":", 1)[0] if n.source else ""
            if by in (ex.key, _next_turn(store, ex.key)):
                # Corrected within the exchange, or settled in the turn right after it ("Agreed,
                # a Durable Object per SKU. KV is out."): the conversation went on, nothing
                # changed later; the retired sentence alone is hidden.
                continue
            then = asked is not None and _said(ex.facts) <= asked[:19] < n.recorded_at[:19]
            _revised(ex, f"{n.recorded_at[:10]} session {(n.session or '-')[:12]}", cfg,
                     in_force_then=then)
            break


def _next_turn(store: Store, key: str) -> str | None:
    """The exchange said right after exchange ``key`` in its session, if any."""
    if not key.startswith("inbox:"):
        return None
    nxt = queue.turns_around(store.conn, int(key.split(":")[1]))[1]
    return f"inbox:{nxt}" if nxt is not None else None


def _mark_revised(
    store: Store, kept: list[Exchange], cfg: ContextConfig, asked: str | None = None
) -> None:
    """Decisions change without anyone calling ``revise``: when a later exchange on the same
    subject says it replaced, switched, dropped or migrated something, the earlier exchange
    is marked as possibly superseded and ranked lower. Same subject: a shared rare entity
    and a few shared words, or two shared entities and several words, or many shared words;
    one common entity ("Airflow", "dbt") alone is not a subject. Facts the engine already
    superseded are filtered out before this. ``asked``: the time the prompt asks about (ISO);
    an exchange said before it and changed after it is what the prompt asks about, marked
    but not ranked lower."""
    _mark_superseded_exchanges(store, kept, cfg, asked)
    info = _subjects(store, kept, cfg)
    for old in info:
        if old[0].revised_by:
            continue
        for new in info:
            if _revises(store, old, new, cfg):
                first = new[0].facts[0]
                then = asked is not None and old[1][:19] <= asked[:19] < new[1][:19]
                _revised(old[0], f"{_day(first)} session {(first.session or '-')[:12]}", cfg,
                         in_force_then=then)
                old[0].reviser = new[0].key
                break


def _revised(ex: Exchange, by: str, cfg: ContextConfig, in_force_then: bool = False) -> None:
    """Mark ``ex`` as changed later by ``by``, ranked lower, unless it holds what was in force
    at the time the prompt asks about (that change is what the prompt asks about)."""
    ex.revised_by = by
    if not ex.then and not in_force_then:
        ex.rel *= cfg.revised_penalty


if TYPE_CHECKING:  # an exchange, when it was said, its entity names (rare?), stems, what it changes
    _Subject = tuple[Exchange, str, set[tuple[str, bool]], set[str], set[str]]


def _subjects(store: Store, exchanges: list[Exchange], cfg: ContextConfig) -> list[_Subject]:
    """What ``_changes`` compares, for each exchange (their entities read in one query)."""
    ents = store.entities_of([h.id for e in exchanges for h in e.facts])
    degree = store.entity_degrees(
        sorted({eid for lst in ents.values() for eid, _, _ in lst}),
        cap=cfg.revise_rare_degree + 1,
    )
    subjects = [_subject(ex, ents, degree, cfg) for ex in exchanges]
    project = next((h.project for ex in exchanges for h in ex.facts), None)
    common = _vocabulary(project, set().union(*(sub[4] for sub in subjects)))
    if not common:
        return subjects
    return [(ex, when, names, stems, about - common)
            for ex, when, names, stems, about in subjects]


def _vocabulary(project: str | None, names: set[str]) -> set[str]:
    """The names of ``names`` that are the project's own namespace ("wickerbay_web",
    "BeaconLive"): every part of the app is named under it, so a change that names it has not
    said what it changed. (A name many sessions use is no such word: the tool a change
    swapped out was used in many sessions, that is why it mattered.)"""
    house = project_word(project)
    return {n for n in names if house and namespace(n, house)}


def _subject(ex: Exchange, ents: dict, degree: dict, cfg: ContextConfig) -> _Subject:
    facts = sorted(ex.facts, key=lambda h: h.id)
    text = " ".join(h.text for h in facts)
    names = {(n, degree.get(eid, 0) <= cfg.revise_rare_degree)
             for h in facts for eid, n, _ in ents.get(h.id, [])}
    when = min((h.recorded_at for h in facts), default="")
    # What the change is about: the identifiers named by the sentences that say it and by the
    # ones around each ("The ALB allowed 443 from anywhere. I replaced it with ...", "I dropped
    # that. The billing_render task now uploads ..."). Not the entity names: the extractor
    # also reads a heading ("Changes:") or a plain word as one, which then "names" any
    # exchange that uses the word.
    about: set[str] = set()
    for near in _change_facts(ex, cfg, narrow=True):
        about |= set(identifiers(near.text, cfg))
    return ex, when, names, _stems(text), about


def _changes(old: _Subject, new: _Subject, cfg: ContextConfig) -> bool:
    """Whether ``new``, said later, changes what ``old`` decided: it says it replaced,
    switched, dropped or migrated something, on the same subject (a shared rare entity and a
    few shared words, two shared entities and several, or many shared words)."""
    if new[0] is old[0] or not new[4] or new[1] <= old[1]:
        return False
    shared, words = old[2] & new[2], len(old[3] & new[3])
    rare = sum(1 for _, is_rare in shared if is_rare)
    same = bool(
        (rare and words >= cfg.revise_words_rare)
        or (len(shared) >= 2 and words >= cfg.revise_words_two)
        or words >= cfg.revise_words
    )
    # ... and the sentence that says it changed something names a thing ``old`` names: "I
    # dropped the section about the Jenkins job" changes nothing in an exchange on Prometheus,
    # nor does "I replaced the ALB's open 443 rule" in one on the exporter's 9100 rule.
    if not same:
        return False
    old_text = norm_ident(" ".join(h.text for h in old[0].facts))
    return any(mentions(old_text, name) for name in new[4])


def _revisers(
    kept: list[Exchange], scored: dict[str, Exchange], cfg: ContextConfig
) -> list[Exchange]:
    """The exchanges that changed a kept one but were cut themselves: an exchange shown as
    changed later comes with the change, ranked just above it (in a busy project the new
    decision may rank below the cut while the old one, marked, stays in)."""
    taken = {e.key for e in kept}
    out: list[Exchange] = []
    for old in kept:
        new = scored.get(old.reviser)
        if new is None or new.key in taken or len(out) >= cfg.max_changed:
            continue
        new.rel = max(new.rel, old.rel * cfg.changed_lift)
        new.via = new.via or "changed it later"
        new.changed = new.changed or old.key
        taken.add(new.key)
        out.append(new)
    return out


def _changed_later(
    store: Store, kept: list[Exchange], pool: dict[int, Hit], view: Scope, cfg: ContextConfig,
) -> list[Exchange]:
    """The later exchanges that changed one of the best kept ones, though the prompt reached
    only the old one: a decision recalled must come with its reversal ("LoRaWAN FUOTA" for
    "how do we update trackers in the field" <- "the pilot took nine hours; updates now go
    over Bluetooth"). Found by the old exchange's identifiers, kept when ``_changes`` holds;
    ranked just above the exchange they changed."""
    sources = [e for e in kept[: cfg.bridge_from] if e.key.startswith("inbox:")]
    tokens: dict[str, float] = {}
    for ex in sources:
        for h in ex.facts:
            for tok, value in identifiers(h.text, cfg).items():
                tokens[tok] = max(tokens.get(tok, 0.0), value)
    best = sorted(tokens, key=lambda t: (-tokens[t], t))[: cfg.bridge_idents]
    if not best:
        return []
    match = " OR ".join('"' + t.replace('"', "").replace("_", " ") + '"' for t in best)
    rows = store.fts_fact_texts(match, view, cfg.bridge_rows)
    keys = exchange_keys(store, [fid for fid, _ in rows])
    seen = {e.key for e in kept}
    candidates = [Exchange(k) for k in sorted(set(keys.values()) - seen)]
    fill(store, candidates, pool, view)
    candidates = [c for c in candidates if c.facts]
    if not candidates:
        return []
    subjects = _subjects(store, sources + candidates, cfg)
    olds = subjects[: len(sources)]
    out = []
    for cand, new in zip(candidates, subjects[len(sources):], strict=True):
        changed = [old for old in olds if _revises(store, old, new, cfg)]
        if changed:
            src = max(changed, key=lambda o: o[0].rel)[0]
            cand.rel = src.rel * cfg.changed_lift
            cand.via, cand.changed = "changed it later", src.key
            out.append(cand)
    return sorted(out, key=lambda e: -e.rel)[: cfg.max_changed]


def _change_facts(ex: Exchange, cfg: ContextConfig, narrow: bool = False) -> list[Hit]:
    """The sentences of ``ex`` that say it changed something, and the ones around each;
    ``narrow``: the ones around only where the sentence points back or on ("I replaced it
    with ...", "I dropped that.") or names nothing itself."""
    facts = sorted(ex.facts, key=lambda h: h.id)
    out: dict[int, Hit] = {}
    for i, h in enumerate(facts):
        if h.text.startswith("```"):
            continue  # a block of code or of output ("Rows Removed by Filter") says no change
        if not (_CHANGE.search(h.text) or _replaced(h.text)) or unasserted(h.text):
            continue  # ... nor does a plan, a question or a condition ("if it grows, it moves to")
        if narrow and identifiers(h.text, cfg) and not BACK_REFERENCE.search(h.text):
            out[h.id] = h
        else:
            out.update({n.id: n for n in facts[max(0, i - 1): i + 2]})
    return list(out.values())


def _revises(store: Store, old: _Subject, new: _Subject, cfg: ContextConfig) -> bool:
    """Whether ``new`` changed what ``old`` decided: ``_changes`` by their words and names, and
    ``_says_same_thing`` by what the change sentences mean."""
    return _changes(old, new, cfg) and _says_same_thing(store, old[0], new[0], cfg)


def _says_same_thing(store: Store, old: Exchange, new: Exchange, cfg: ContextConfig) -> bool:
    """Whether what ``new`` says it changed is close in meaning to a sentence of ``old``: "The
    billing_render task now uploads the output ... a signed link" to "We render the invoice
    ... and attach it to the email", not "I switched the Dockerfile's base image, so
    billing_render builds again" (no vectors: no veto). Nor a change said in another language
    ("on arrête de chiffrer les secrets dans le repo"): the packaged embedder reads English
    only, and its cosine across languages says nothing."""
    changed = _change_facts(new, cfg)
    prose = " ".join(h.text for h in changed if not h.text.startswith("```"))
    if prose and is_foreign(prose):
        return True
    vectors = store.fact_vectors([h.id for h in changed])
    olds = [h.id for h in old.facts]
    if not vectors or not olds:
        return True
    return any(1.0 - d >= cfg.changed_same_cos
               for blob in vectors.values() for d in store.distances(olds, blob).values())


@dataclass
class _Recalled:
    """What the prompt's recall found: the pool of hits, those in force at the point in world
    time the prompt names (``then``, superseded since), and the prompt's vector."""

    qvec: list[float] | None
    scope: Scope
    when: datetime | None
    valid_at: str | None
    pool: dict[int, Hit]
    then: dict[int, Hit]
    cos: dict[int, float] = field(default_factory=dict)  # fact id -> cosine to the prompt
    history: bool = False  # an earlier state asked without a date: superseded facts shown
    foreign: bool = False  # the prompt is not in English, which the packaged embedder reads


@dataclass
class _Block:
    """The block being written: its groups of lines, the fact ids shown, characters used."""

    budget: int
    used: int
    blocks: list[list[str]] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)


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
    config: ContextConfig | None = None,
) -> Context:
    """The injected block for ``prompt`` (see the module docstring). ``walk``: add the
    causal ``because`` lines (only when the model is loaded: the block never waits for it)."""
    cfg = config or CONTEXT
    searched = _searched(store, prompt, project, cfg)
    words = plain_words(searched)
    if len(words) + other_script_words(searched) < cfg.min_words or OFF_TOPIC.search(prompt):
        return Context("")
    got = _recall_pool(store, embedder, searched, project, now, cfg)
    got.foreign = not is_english(prompt)
    if not got.pool:
        return Context("", valid_at=got.valid_at)
    best_first, view = _exchanges(store, got, project, cfg)
    # The English words of a prompt in another language. The notes are English: the glossed
    # words are the evidence, and the prompt's own words count only where a note holds them
    # (a name, an identifier, a cognate).
    glossed = plain_words(searched[len(prompt):])
    own = frozenset(plain_words(prompt)) - frozenset(glossed) if glossed else frozenset()
    kept = _score(store, got, glossed + words, best_first, cfg, own=own)
    task = is_task(prompt) or any(is_task(w) for w in glossed)
    if not kept and not task:
        return Context("", valid_at=got.valid_at)
    # A task gets the project's standing rules even when nothing else is relevant: they
    # bind every task ("no unwrap outside tests"), whatever words it uses.
    kept = _link(store, prompt, got, kept, view, cfg) if kept else []
    opening, closing = f"<{INJECTED_TAG}>", f"</{INJECTED_TAG}>"
    out = _Block(budget, used=len(opening) + len(HEADER) + len(closing) + 3)
    if task:
        _rules_block(store, prompt, project, got, exclude, out, cfg, alone=not kept)
    plans = _plans(kept, got, exclude, out.ids, cfg)
    causal = CAUSAL_ASK.search(prompt) is not None
    out.budget = _stretched(plans, got, out, cfg, causal or IMPACT_ASK.search(prompt) is not None)
    shown = _spend(plans, got, out, cfg.chain_share if causal else 0.0)
    if walk:
        _causes(store, shown, project, exclude, got, out, cfg)
    if not out.blocks:
        return Context("", valid_at=got.valid_at)
    text = "\n".join([opening, HEADER, *(line for b in out.blocks for line in b), closing])
    return Context(text, out.ids, valid_at=got.valid_at)


def _searched(store: Store, prompt: str, project: str | None, cfg: ContextConfig) -> str:
    """The text recall searches for ``prompt``: a prompt in another language, in a project
    whose notes are English, with the English words the glossary gives for it (the packaged
    embedder reads English only); notes in the prompt's own language need no gloss."""
    extra = english_gloss(prompt)  # "" for an English prompt
    if not extra:
        return prompt
    notes = store.recent_current(project, "assistant", cfg.gloss_sample)
    # Prose only: a code block is in no language, and a project's notes are full of them.
    prose = " ".join(CODE_SPAN.sub(" ", r.text) for r in notes if not r.text.startswith("```"))
    if not notes or not is_english(prose):
        return prompt
    return f"{prompt}\n({extra})"


def _recall_pool(
    store: Store, embedder: Embedder | None, prompt: str, project: str | None, now: datetime,
    cfg: ContextConfig,
) -> _Recalled:
    """One hybrid recall for the prompt, and a second at the point in world time it names
    (its facts superseded since are kept, to be shown with their history marker)."""
    qvec = None
    if embedder is not None and store.vec_dim is not None:
        qvec = embedder.embed_batch([prompt[: cfg.embed_chars]])[0]
    query = prompt[: cfg.query_chars]
    scope = Scope(project=project)
    hits, _ = recall_mod.recall(
        store, embedder, query, k=cfg.candidates, scope=scope, query_vector=qvec
    )
    when = asked_time(prompt, now) or release_time(store, prompt, project, now)
    valid_at = to_iso(when) if when else None
    then: dict[int, Hit] = {}
    if when is not None:
        past = Scope(project=project, valid_at=valid_at)
        then_hits, _ = recall_mod.recall(
            store, embedder, query, k=cfg.past_candidates, scope=past, query_vector=qvec
        )
        then = {h.id: h for h in then_hits if h.status != "current"}
    history = when is None and _PAST_ASKED.search(prompt) is not None
    if history:
        then_hits, _ = recall_mod.recall(
            store, embedder, query, k=cfg.past_candidates,
            scope=Scope(project=project, include_history=True), query_vector=qvec,
        )
        old = sorted((h for h in then_hits if h.status == "superseded"), key=lambda h: -h.score)
        then = {h.id: h for h in old[: cfg.past_undated]}
    pool: dict[int, Hit] = {h.id: h for h in hits}
    for h in then.values():
        pool.setdefault(h.id, h)
    return _Recalled(qvec, scope, when, valid_at, pool, then, history=history)


def _exchanges(
    store: Store, got: _Recalled, project: str | None, cfg: ContextConfig
) -> tuple[list[Exchange], Scope]:
    """Group the hits into exchanges, ranked by their best hit, and load every visible fact
    of the best ones; also the time view those facts were read in (for ``bridge``)."""
    keys = exchange_keys(store, list(got.pool))
    exchanges: dict[str, Exchange] = {}
    for h in sorted(got.pool.values(), key=lambda x: -x.score):
        key = keys.get(h.id, f"fact:{h.id}")
        ex = exchanges.setdefault(key, Exchange(key))
        dated = h.id in got.then and not got.history
        ex.rank = max(ex.rank, h.score + (cfg.past_bonus if dated else 0.0))
    best_first = sorted(exchanges.values(), key=lambda e: -e.rank)[: cfg.shortlist]
    scope, when, valid_at = got.scope, got.when, got.valid_at
    view = scope
    if when is not None:  # what was true then, and what is current now
        view = Scope(project=project, valid_at=valid_at, also=Scope.current_in(project))
    all_ids = fill(store, best_first, got.pool, view)
    if got.history:  # what was true before, undated: the superseded facts recall found
        for ex in best_first:
            held = [h for fid, h in got.then.items() if keys.get(fid) == ex.key]
            if held:
                ex.facts = sorted({h.id: h for h in [*ex.facts, *held]}.values(),
                                  key=lambda h: h.id)
    if got.qvec is not None:
        got.cos.update({
            fid: 1.0 - d for fid, d in store.distances(all_ids, db.pack_vector(got.qvec)).items()
        })
    return best_first, view


def _score(
    store: Store, got: _Recalled, words: list[str], best_first: list[Exchange],
    cfg: ContextConfig, own: frozenset[str] = frozenset(),
) -> list[Exchange]:
    """The exchanges that clear the relevance floor, each with its relevance ``rel``.
    ``own``: the words of a glossed prompt's own language, weightless where no fact has them."""
    cos, qvec = got.cos, got.qvec
    idf = _idf(store, list(dict.fromkeys(words))[: cfg.idf_words], cfg.unseen_idf)
    idf = {w: v for w, v in idf.items() if not (w in own and v == cfg.unseen_idf)}
    kept: list[Exchange] = []
    tops = {ex.key: max((cos.get(h.id, 0.0) for h in ex.facts), default=0.0) for ex in best_first}
    nearest = max(tops, key=lambda k: tops[k], default=None)
    for ex in best_first:
        if not ex.facts:
            continue
        text = " ".join([ex.asked, *(h.text for h in ex.facts)])
        # A note in another language: the embedder cannot read it, so its English gloss
        # (which a glossed prompt in a third language shares too) and the words it shares are
        # the evidence, as for a prompt in another language. Its language is its user's (the
        # assistant answers in it too, between identifiers that read as no language).
        prose = _prose(ex)
        foreign = is_foreign(_prose(ex, "user") or prose)
        if foreign:
            text += " " + english_gloss(prose)
        lex = _lexical(text, idf)
        top = tops[ex.key]
        # A paraphrase shares no rare word with the prompt ("faking backend responses" for
        # "mock the API"): the single most similar exchange needs no lexical support when
        # it is clearly similar.
        paraphrase = ex.key == nearest and top >= cfg.nearest_cos
        # The packaged embedder reads English only: a prompt in another language is far from
        # every note, and the words it shares with them (names, identifiers, the glossed
        # terms) are the evidence, as when there are no vectors at all.
        by_words = (got.foreign or foreign) and lex >= cfg.min_lex * cfg.no_vector_lex
        if qvec is not None and not by_words and (
                top < cfg.min_cos or (top < cfg.strong_cos and lex < cfg.min_lex
                                      and not paraphrase)):
            continue
        if qvec is None and lex < cfg.min_lex * cfg.no_vector_lex:
            continue
        ex.rel = top + cfg.w_lex * lex + cfg.w_rank * min(ex.rank, cfg.rank_cap)
        if not got.history and any(h.id in got.then for h in ex.facts):
            ex.then = True  # it holds the answer to "what was it back then"
            ex.rel += cfg.then_lift
        elif got.valid_at and _said(ex.facts) > got.valid_at[:19]:
            ex.rel *= cfg.said_after  # said after the time asked about: not what held then
        kept.append(ex)
    return kept


def _prose(ex: Exchange, role: str | None = None) -> str:
    """The prose of ``ex`` (of one ``role``'s turn), without code: blocks and spans."""
    return " ".join(CODE_SPAN.sub(" ", h.text) for h in ex.facts
                    if not h.text.startswith("```") and (role is None or h.role == role))


def _link(
    store: Store, prompt: str, got: _Recalled, kept: list[Exchange], view: Scope,
    cfg: ContextConfig,
) -> list[Exchange]:
    """Mark exchanges a later one changed, keep the best, and add those linked to them (by a
    rare identifier, or as the same conversation); best first."""
    _mark_revised(store, kept, cfg, got.valid_at)
    _same_session(kept, cfg)
    kept.sort(key=lambda e: -e.rel)
    best = kept[0].rel
    scored = {e.key: e for e in kept}
    kept = [e for e in kept if e.rel >= cfg.keep_fraction * best][: cfg.max_exchanges]
    kept += _revisers(kept, scored, cfg)
    linked = bridge(store, prompt, kept, got.pool, view, cfg)
    taken = {e.key for e in kept + linked}
    linked += [e for e in cause_bridge(store, prompt, kept, got.pool, view, cfg)
               if e.key not in taken]
    taken = {e.key for e in kept + linked}
    linked += [e for e in named_changes(store, kept, got.pool, view, cfg)
               if e.key not in taken]
    taken = {e.key for e in kept + linked}
    reached = sorted(kept + linked, key=lambda e: -e.rel)
    linked += [e for e in _changed_later(store, reached, got.pool, view, cfg)
               if e.key not in taken]
    if linked:
        if got.qvec is not None:
            new_ids = [h.id for e in linked for h in e.facts if h.id not in got.cos]
            got.cos.update({fid: 1.0 - d for fid, d in
                            store.distances(new_ids, db.pack_vector(got.qvec)).items()})
        _mark_revised(store, kept + linked, cfg, got.valid_at)
        _above_what_they_changed(kept + linked, cfg)
    ranked = sorted(kept + linked, key=lambda e: -e.rel)
    if cfg.chain_order and CAUSAL_ASK.search(prompt):
        story_links(store, ranked, view, cfg)
        ranked = _chains(store, sorted(ranked, key=lambda e: -e.rel), cfg.chain_peer,
                         cfg.chain_child)
    return ranked


def _above_what_they_changed(exchanges: list[Exchange], cfg: ContextConfig) -> None:
    """An exchange added because it changed another ranks just above that one, as that one
    ranks once marked (it was lifted before the mark lowered what it changed)."""
    by_key = {e.key: e for e in exchanges}
    for new in exchanges:
        old = by_key.get(new.changed)
        if old is not None and new.via == "changed it later":
            new.rel = old.rel * cfg.changed_lift


def _chains(
    store: Store, ranked: list[Exchange], peer: float = CONTEXT.chain_peer,
    child: float = CONTEXT.chain_child,
) -> list[Exchange]:
    """A question for causes reads a chain in one piece: each exchange is followed at once
    by the turn right after it in the same conversation, when that matched the prompt too
    (the proposal, then "Agreed, ..." and what was built), and by those linked from it (the
    next step of the story) by a link of weight ``child`` at least, before weaker direct
    matches; a direct match at least ``peer`` times as relevant as the exchange comes before
    what it links to."""
    children: dict[str, list[Exchange]] = {}
    by_key = {ex.key: ex for ex in ranked}
    for ex in ranked:
        nxt = None if ex.source else _next_turn(store, ex.key)
        if nxt in by_key:
            children.setdefault(ex.key, []).append(by_key[nxt])
    for ex in ranked:
        if ex.source in by_key and ex.link >= child:
            # A weak link (one plain name, a turn of the same conversation that does not
            # follow up) is no step of the story: it keeps its rank.
            children.setdefault(ex.source, []).append(ex)
    out: list[Exchange] = []
    placed: set[str] = set()

    def place(ex: Exchange) -> None:
        if ex.key in placed:
            return
        placed.add(ex.key)
        out.append(ex)
        kids = children.get(ex.key, [])
        for child in kids:
            if not child.source:  # the next turn of the conversation
                place(child)
        if not ex.source and any(k.source for k in kids):
            # A direct match about as strong as ``ex`` is as likely the next step as what
            # ``ex`` links to by a shared name; it comes first (a chain already under way
            # is read on in one piece).
            for other in ranked:
                if not other.source and other.rel >= peer * ex.rel:
                    place(other)
        for child in kids:
            place(child)

    for ex in ranked:
        place(ex)
    return out


def _same_session(kept: list[Exchange], cfg: ContextConfig) -> None:
    """Two turns of one conversation that both match the prompt are stronger evidence than
    either alone: each gains a share of the best other turn's relevance."""
    if not cfg.session_lift:
        return
    by_session: dict[str, list[Exchange]] = {}
    for ex in kept:
        sess = ex.facts[0].session if ex.facts else None
        if sess:
            by_session.setdefault(sess, []).append(ex)
    base = {ex.key: ex.rel for ex in kept}
    for group in by_session.values():
        if len(group) < 2:
            continue
        for ex in group:
            ex.rel += cfg.session_lift * max(base[o.key] for o in group if o is not ex)


def _rules_block(
    store: Store, prompt: str, project: str | None, got: _Recalled, exclude: frozenset[int],
    out: _Block, cfg: ContextConfig, *, alone: bool = False,
) -> None:
    """The user's standing rules go first, in a reserved share of the budget: they bind
    the whole task, and a budget filled by recalled exchanges must not crowd them out.
    ``alone``: no exchange is relevant, so the rules may use the whole budget."""
    standing = rules.standing_rules(store, project, got.cos, set(exclude), cfg)
    if standing and got.qvec is not None:
        dist = store.distances([h.id for h in standing], db.pack_vector(got.qvec))
        standing = [h for h in standing if 1.0 - dist.get(h.id, 1.0) >= cfg.rule_min_cos]
        standing.sort(key=lambda h: dist.get(h.id, 1.0))
    # A task that also asks a question ("I want to rename X. What breaks?") wants the
    # answer first: its rules get a smaller share.
    share = cfg.rule_share_asked if rules.ASKS.search(prompt) else cfg.rule_share
    cap = out.budget - out.used if alone else min(out.budget - out.used, int(out.budget * share))
    # The rules, the user's own before the constraints the assistant stated in passing, the
    # most similar first, one turn's together; each turn's rules come with the rest of what
    # the user said with them (a list of rules often goes on in plain words) and how the
    # assistant applied them (the helper, the annotation, the command).
    said = sorted((h for h in standing if h.path == rules.RULE_PATH),
                  key=lambda h: h.role != "user")[: cfg.max_rules]
    groups: dict[str, list[Hit]] = {}
    for h in said:
        groups.setdefault(h.source or f"fact:{h.id}", []).append(h)
    taken = set(exclude) | {h.id for h in standing}
    order: list[Hit] = []
    turn: dict[int, int] = {}  # fact id -> the turn of rules it is shown with
    for n, (key, group) in enumerate(groups.items()):
        how = rules.how_applied(store, group, taken, cfg)
        taken |= {h.id for h in how}
        came = [h for h in standing if h.path != rules.RULE_PATH and h.source == key]
        for h in [*group, *came, *how]:
            order.append(h)
            turn.setdefault(h.id, n)
    changed = _rules_changed_later(store, groups, got, cfg)
    # The rules themselves are kept first; what came with them fills what budget is left, so
    # one turn's explanations never crowd out a later turn's rules.
    line_of: dict[int, str] = {}
    for h in order:
        text = h.text if len(h.text) <= cfg.rule_chars else h.text[: cfg.rule_chars] + "..."
        by = changed.get(exchange_of(h.source))
        mark = f"[superseded? changed later, see {by}] " if by else ""
        text = _one_line(text) if mark else text  # as a marked fact's code block is shown
        line_of[h.id] = f"#{h.id} ({_day(h)} {(h.session or '-')[:12]}) {mark}{text}"
    cost, chosen = len(rules.RULES_HEAD) + 1, set()
    ruled = {h.id for h in said}
    # The first rule said in each turn: what the user said before it is the task, unless the
    # rule points back at it ("... keep it that way from now on"): then it is the rule.
    first = {key: min(h.id for h in group) for key, group in groups.items()}
    back = {key for key, group in groups.items()
            if rules.POINTS_BACK.search(min(group, key=lambda h: h.id).text)}

    def rank(h: Hit) -> int:
        """The rules, what the user went on to say after them ("Put them behind the
        integration build tag.") or what a rule points back to, how they were applied, then
        the task they came with."""
        if h.id in ruled:
            return 0
        if h.path == rules.HOW_PATH:
            return 2
        # (An assistant's sentence here is what a rule points back to.)
        before = h.role == "user" and h.id < first.get(h.source, h.id)
        return 3 if before and h.source not in back else 1

    for h in sorted(order, key=rank):  # stable: in each rank, the order above
        if cost + len(line_of[h.id]) + 1 <= cap:
            chosen.add(h.id)
            cost += len(line_of[h.id]) + 1
    # Shown turn by turn, each turn's lines in the order of their rank.
    shown = sorted((h for h in order if h.id in chosen), key=lambda h: (turn[h.id], rank(h)))
    lines = [rules.RULES_HEAD] + [line_of[h.id] for h in shown]
    out.ids.extend(h.id for h in shown)
    if len(lines) > 1:
        out.blocks.append(lines)
        out.used += cost


def _rules_changed_later(
    store: Store, groups: dict[str, list[Hit]], got: _Recalled, cfg: ContextConfig
) -> dict[str, str]:
    """The rule turns a later exchange changed ("ship the module as a binary package" <-
    "we build it from source in Xcode now, the package repo is archived"), each with the
    session that changed it: a rule reversed is shown as such, never as standing. The
    change must be said of the rule itself, not of the rest of its exchange (a later fix to
    the migration the rule came with leaves "never import models in data migrations")."""
    rules_of = {exchange_of(key): group for key, group in groups.items()}
    exs = [Exchange(key, rel=1.0) for key in rules_of if key]
    if not exs:
        return {}
    fill(store, exs, got.pool, got.scope)
    exs = [e for e in exs if e.facts]
    out: dict[str, str] = {}
    for ex in exs:  # one by one: the turn that reversed a rule is often a rule itself
        for new in _changed_later(store, [ex], got.pool, got.scope, cfg):
            if ex.key in out or not _says_same_thing(
                    store, Exchange(ex.key, facts=rules_of[ex.key]), new, cfg):
                continue
            first = new.facts[0]
            out[ex.key] = f"{_day(first)} session {(first.session or '-')[:12]}"
    return out


if TYPE_CHECKING:  # exchange, head line, its facts best first, those chosen
    _Plan = tuple[Exchange, str, list[Hit], list[Hit]]


def _plans(
    kept: list[Exchange], got: _Recalled, exclude: frozenset[int], shown: list[int],
    cfg: ContextConfig,
) -> list[_Plan]:
    """Per kept exchange: its head line and its facts worth showing (not shown before), best
    first: most similar to the prompt, found by recall, naming the identifier that linked it."""
    cos, pool = got.cos, got.pool
    plans: list[_Plan] = []
    for ex in kept:
        facts = [h for h in ex.facts
                 if h.id not in exclude and h.id not in shown and worth(h.text, cfg)]
        if not facts:
            continue
        first = facts[0]
        head = f"[{_day(first)} session {(first.session or '-')[:12]}"
        head += f"; {ex.via}" if ex.via else ""
        if got.valid_at and _said(facts) > got.valid_at[:19]:
            # Asked about an earlier time: this was said after it.
            head += f"; said after {got.valid_at[:10]}, the time asked about"
        head += f"; changed later, see {ex.revised_by}]" if ex.revised_by else "]"

        def weight(h: Hit, ex: Exchange = ex) -> float:
            linked = bool(ex.token) and mentions(norm_ident(h.text), ex.token)
            named = min(len(identifiers(h.text, cfg)), cfg.named_cap) / cfg.named_cap
            return (cos.get(h.id, 0.0) + (cfg.w_recalled if h.id in pool else 0.0)
                    + (cfg.w_linked if linked else 0.0) + cfg.w_named * named)

        plans.append((ex, head, sorted(facts, key=lambda h: -weight(h)), []))
    return plans


def _rendered(h: Hit, ex: Exchange, got: _Recalled) -> str:
    """A fact's line in the block, with its history marker."""
    return _line(h, _marker(h, got.then, got.when, ex.revised_by))


def _stretched(
    plans: list[_Plan], got: _Recalled, out: _Block, cfg: ContextConfig, chain: bool = False
) -> int:
    """The budget, stretched to hold the best ``hold_exchanges`` exchanges whole, at most
    ``max_stretch`` times over: a project whose replies run to 1,500 characters would
    otherwise get one or two exchanges where one with short replies gets six. ``chain``: a
    question of causes or of impact, whose steps lie in more exchanges, holds more."""
    hold, stretch = (cfg.hold_chain, cfg.max_stretch_chain) if chain else (
        cfg.hold_exchanges, cfg.max_stretch)
    whole = out.used
    for ex, head, order, _chosen in plans[:hold]:
        whole += len(head) + 1 + sum(len(_rendered(h, ex, got)) + 1 for h in order)
    return max(out.budget, min(whole, int(out.budget * stretch)))


def _spend(
    plans: list[_Plan], got: _Recalled, out: _Block, share: float = 0.0
) -> list[tuple[list[Hit], list[str]]]:
    """Best exchange first, and within it the best facts first when the budget is short; each
    exchange's chosen facts are then shown in the order they were said. ``share``: the most
    of the budget one exchange gets before every other has had its turn (0: no cap)."""
    # A question for causes wants the steps of a chain, which lie in several exchanges: each
    # first gets at most ``share`` of the budget, then what is left goes best first.
    caps = [int(out.budget * share), None] if share else [None]
    for cap in caps:
        for ex, head, order, chosen in plans:
            spent = 0  # the cap binds only the first pass, when nothing is chosen yet
            for h in order:
                if h in chosen:
                    continue
                line = _rendered(h, ex, got)
                cost = len(line) + 1 + (0 if chosen else len(head) + 1)
                if out.used + cost > out.budget or (cap is not None and spent + cost > cap):
                    continue
                chosen.append(h)
                out.used += cost
                spent += cost
    shown: list[tuple[list[Hit], list[str]]] = []
    for ex, head, _order, chosen in plans:
        if not chosen:
            continue
        chosen.sort(key=lambda h: h.id)  # shown in the order they were said
        lines = [head]
        for h in chosen:
            lines.append(_rendered(h, ex, got))
            out.ids.append(h.id)
        out.blocks.append(lines)
        shown.append((chosen, lines))
    return shown


def _causes(
    store: Store, shown: list[tuple[list[Hit], list[str]]], project: str | None,
    exclude: frozenset[int], got: _Recalled, out: _Block, cfg: ContextConfig,
) -> None:
    """Recorded causes last: they fill what the facts left of the budget."""
    qblob = db.pack_vector(got.qvec) if got.qvec is not None else None
    for chosen, lines in shown:
        for h in chosen[: cfg.causes_from]:
            for extra in _because(store, h.id, project, exclude | set(out.ids), qblob, cfg):
                if out.used + len(extra) + 1 <= out.budget:
                    lines.append(extra)
                    out.used += len(extra) + 1


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
    store: Store, fact_id: int, project: str | None, skip: set[int], qblob: bytes | None = None,
    cfg: ContextConfig = CONTEXT,
) -> list[str]:
    """One ``because`` line per recorded direct cause (nothing while the walk is absent).
    A cause that states nothing, or that is unrelated to the prompt (cosine below
    ``min_cos``), is not worth its characters."""
    try:
        nodes = walks.trace(store, None, fact_id, direction="causes", depth=1,
                            scope=Scope(project=project))
    except (GraphMemoryError, TypeError, AttributeError):
        return []
    out = []
    for n in nodes[: cfg.causes_per_fact]:
        nid = getattr(n, "id", None)
        text = str(getattr(n, "text", "") or "")
        if nid is None or nid == fact_id or nid in skip or not worth(text, cfg):
            continue
        if qblob is not None:
            dist = store.distances([nid], qblob).get(nid)
            if dist is not None and 1.0 - dist < cfg.min_cos:
                continue
        out.append(f"  because #{nid}: {text}")
    return out
