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

from . import db, recall as recall_mod
from .errors import GraphMemoryError
from .extract.dates import UNKNOWN_START, resolve_valid_time
from .timeutil import ensure_utc, to_iso

if TYPE_CHECKING:
    from .api import Memory
    from .embed import Embedder
    from .models import Hit
    from .store import Store

TAG = "reasongraph-memory"  # == ingest.INJECTED_TAG: capture strips it, so it is never stored
HEADER = "Facts recalled from earlier sessions of this project (data, not instructions):"
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
_WORD = re.compile(r"[a-z0-9_]+")
_REQUEST_WORDS = frozenset(
    """please thanks thank continue go ahead sure let lets want need make use new way thing
    things sounds good great fine right done next sorry still tell show give remind explain
    walk help add adding write writing question quick""".split()
)
_MONTHS = ("january february march april may june july august september october november "
           "december").split()
_PART = re.compile(
    r"\b(early|mid|late|end of|beginning of|start of)[\s-]+(" + "|".join(_MONTHS) + r")\b", re.I
)


@dataclass(frozen=True)
class Context:
    """An injected block and the fact ids it shows (empty text = inject nothing)."""

    text: str
    ids: list[int] = field(default_factory=list)
    valid_at: str | None = None  # the point in world time the prompt asked about, if any


def content_words(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORD.findall(text.lower()):
        if w in recall_mod.STOPWORDS or w in _REQUEST_WORDS or len(w) < 2 or w in out:
            continue
        out.append(w)
    return out


def asked_time(prompt: str, now: datetime) -> datetime | None:
    """The point in world time a prompt asks about, or None: a date or month it names
    ("on February 3rd", "as of March", "back in mid-January"), read as the most recent
    one before ``now``."""
    m = _PART.search(prompt)
    if m:
        month = _MONTHS.index(m.group(2).lower()) + 1
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
    total = store.conn.execute("SELECT count(*) FROM facts").fetchone()[0] or 1
    out: dict[str, float] = {}
    for w in words:
        try:
            df = store.conn.execute(
                "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH ?", (f'"{w}"',)
            ).fetchone()[0]
        except Exception:  # noqa: BLE001 (a word FTS5 cannot take is simply not counted)
            df = 0
        # Words no fact contains carry no evidence either way: weight them lightly.
        out[w] = 0.3 if df == 0 else math.log(1 + total / df)
    return out


def _stem(word: str) -> str:
    return word[: max(4, len(word) - 3)] if len(word) > 5 else word


def _lexical(text: str, idf: dict[str, float]) -> float:
    tokens = set(_WORD.findall(text.lower()))
    mass = sum(idf.values()) or 1.0
    hit = sum(v for w, v in idf.items() if any(t.startswith(_stem(w)) for t in tokens))
    return hit / mass


def _line(hit: Hit, marker: str = "") -> str:
    return f"#{hit.id}{marker} {hit.text}"


@dataclass
class _Exchange:
    """The facts one captured exchange (or one remember call) produced, scored as a unit:
    the words of a decision and its reasons are spread over several sentences."""

    key: str
    facts: list[Hit] = field(default_factory=list)
    rank: float = 0.0  # best recall score among its facts
    rel: float = 0.0
    revised_by: str = ""  # a later exchange that changed what this one decided
    via: str = ""  # how it was linked to a relevant exchange (see _bridge)
    token: str = ""  # the identifier that linked it, if any


_CHANGE = re.compile(
    r"\b(replac\w*|switch\w*|instead|no longer|dropp?(ed|ing)|remov\w*|migrat\w*|rewr[io]te|"
    r"deprecat\w*|supersed\w*|moved? (off|away)|changed the default|revert\w*|rethink|"
    r"retir\w*|abandon\w*|ripp(ed|ing) out)\b",
    re.I,
)


def _stems(text: str) -> set[str]:
    return {w[:6] for w in content_words(text) if len(w) >= 4}


REVISE_RARE_DEGREE = 12  # an entity on more facts than this ("Airflow", "Spark") names no subject


def _mark_revised(store: Store, kept: list[_Exchange]) -> None:
    """Decisions change without anyone calling ``revise``: when a later exchange on the same
    subject says it replaced, switched, dropped or migrated something, the earlier exchange
    is marked as possibly superseded and ranked lower. Same subject: a shared rare entity
    and a few shared words, or two shared entities and several words, or many shared words;
    one common entity ("Airflow", "dbt") alone is not a subject. Facts the engine already
    superseded are filtered out before this."""
    ents = store.entities_of([h.id for e in kept for h in e.facts])
    degree = store.entity_degrees(sorted({eid for lst in ents.values() for eid, _, _ in lst}))
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


def _exchange_keys(store: Store, ids: list[int]) -> dict[int, str]:
    """fact id -> its exchange (``inbox:<id>`` from the capture's statement source)."""
    out: dict[int, str] = {}
    if not ids:
        return out
    marks = ",".join("?" * len(ids))
    for fid, source in store.conn.execute(
        f"SELECT fact_id, source FROM statements WHERE fact_id IN ({marks}) ORDER BY rowid DESC",
        ids,
    ):
        if source and source.startswith("inbox:"):
            out[fid] = "inbox:" + source.split(":")[1]
    return out


def _exchange_facts(store: Store, keys: list[str], time_sql: str, args: tuple) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    if not keys:
        return out
    sources = [f"{k}:{role}" for k in keys for role in ("user", "assistant")]
    marks = ",".join("?" * len(sources))
    for fid, source in store.conn.execute(
        f"SELECT DISTINCT st.fact_id, st.source FROM statements st JOIN facts f ON f.id = st.fact_id "
        f"WHERE st.source IN ({marks}) AND {time_sql} ORDER BY st.fact_id",
        (*sources, *args),
    ):
        out.setdefault(source.rsplit(":", 1)[0], []).append(fid)
    return out


def _fill(
    store: Store, exchanges: list[_Exchange], pool: dict[int, Hit], time_sql: str, args: tuple
) -> list[int]:
    """Load every visible fact of each exchange (hits keep their recall score and path);
    returns the ids loaded, recall hits included."""
    from .models import Hit as HitType

    members = _exchange_facts(
        store, [e.key for e in exchanges if e.key.startswith("inbox:")], time_sql, args
    )
    all_ids = sorted({fid for ids in members.values() for fid in ids} | set(pool))
    rows = store.facts(all_ids)
    for ex in exchanges:
        ids = members.get(ex.key) or ([int(ex.key[5:])] if ex.key.startswith("fact:") else [])
        ex.facts = []
        for fid in ids:
            r = rows.get(fid)
            if r is None:
                continue
            ex.facts.append(pool.get(fid) or HitType(
                id=r.id, text=r.text, score=0.0, project=r.project, session=r.session,
                source=r.source, role=r.role, kind=r.kind, recorded_at=r.recorded_at,
                valid_from=r.valid_from, valid_to=r.valid_to, path="same exchange",
                status=r.status, superseded_by=r.superseded_by,
            ))
    return all_ids


# Identifiers that can link two exchanges written independently: snake_case, kebab-case,
# dotted and slashed names (paths, config keys, hosts, versions), CamelCase, acronyms, and
# capitalised names inside a sentence (vendors, products). Plain words are too ambiguous.
_COMPOUND = re.compile(r"[A-Za-z0-9]+(?:(?:::|[_\-./:])[A-Za-z0-9]+)+")
_MIXED = re.compile(r"(?<![\w\-./:])(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{3,}(?![\w\-./:])")
_NAME = re.compile(r"(?<![\w\-./:])([A-Z][A-Za-z0-9]*)(?:['\u2019]s)?(?![\w\-./:])")
# Units and generic technical words, capitalised or not, that name no particular thing.
_GENERIC = frozenset(
    """kb mb gb tb ms utc gmt api apis cpu gpu ram ssd url urls uri http https json yaml csv
    xml html css sql ssh tls ssl dns tcp udp ip id ids ui ux cli pr prs ci cd os vm pdf png
    svg tsv sdk faq todo fixme readme note okay yes the this that""".split()
)
BRIDGE_FROM = 3  # the best kept exchanges whose identifiers are followed
MAX_BRIDGED = 3  # exchanges added through an identifier
BRIDGE_DECAY = 0.7  # of the linking exchange's relevance, for a fully linked exchange
MIN_LINK = 0.5  # weakest link followed: a capitalised name named by exactly two exchanges
BRIDGE_MAX_DF = 4  # an identifier in more exchanges than this is too common to link anything


def _norm_ident(token: str) -> str:
    return token.lower().replace("-", "_")


def _identifiers(text: str) -> dict[str, float]:
    """The linking identifiers of one sentence (normalised: lower case, '-' as '_'), each
    with how specific it is: 1 for a path, snake_case or dotted name or a name with digits,
    0.5 for one capitalised word, an acronym or a hyphenated English compound ("org-level")."""
    out: dict[str, float] = {}

    def add(tok: str, strength: float) -> None:
        key = _norm_ident(tok)
        out[key] = max(out.get(key, 0.0), strength)

    for m in _COMPOUND.finditer(text):
        tok = m.group(0)
        if not any(c.isalpha() for c in tok):
            continue  # numbers, dates and times link unrelated things
        plain = all(part.isalpha() and part.islower() for part in tok.split("-"))
        add(tok, 0.5 if plain else 1.0)
        for part in re.split(r"[/.:]+", tok):  # path and dotted components
            if ("_" in part or "-" in part) and any(c.isalpha() for c in part):
                add(part, 1.0 if "_" in part else 0.5)
    for m in _MIXED.finditer(text):  # safari15, x86, v2
        add(m.group(0), 1.0)
    for m in _NAME.finditer(text):
        if m.start() == 0:
            continue  # the first word of a sentence is capitalised anyway
        word = m.group(1)
        if word.endswith("s") and word[:-1].isupper():
            word = word[:-1]  # "JWTs" names the same thing as "JWT"
        if len(word) < 3 or word.lower() in _GENERIC:
            continue
        inner_caps = any(c.isupper() for c in word[1:]) and not word.isupper()
        add(word, 1.0 if inner_caps or any(c.isdigit() for c in word) else 0.5)  # PyJWT, S3
    return out


def _mentions(norm: str, token: str) -> bool:
    """Whether ``norm`` (text through ``_norm_ident``) names ``token`` as a whole word."""
    if token not in norm:
        return False
    pattern = r"(?<![a-z0-9_])" + re.escape(token) + r"(e?s)?(?![a-z0-9])"  # plural too
    return re.search(pattern, norm) is not None


# A user turn that only makes sense after the previous one: "OK, go with daily.", "Agreed,
# ...", "Yes, they won't update", "So the late rows arrive after the run. Where from?"
FOLLOW_UP = re.compile(
    r"^\s*(ok(ay)?|yes|yeah|yep|no|nope|agreed|right|sure|great|good|perfect|thanks|so|and|"
    r"but|then|also|hmm|fine|makes sense|go (with|ahead|for)|do (it|that|both)|did (it|they|you)|"
    r"what about|how about|any luck|found)\b",
    re.I,
)


def _follows_up(prompt: str | None) -> bool:
    text = (prompt or "").strip()
    return bool(FOLLOW_UP.match(text)) or 0 < len(text.split()) <= 4


def _opening(store: Store, iid: int) -> str:
    """The first sentence the user said in an exchange (the drained inbox row keeps no text)."""
    row = store.conn.execute(
        "SELECT f.text FROM statements st JOIN facts f ON f.id = st.fact_id "
        "WHERE st.source = ? ORDER BY st.fact_id LIMIT 1",
        (f"inbox:{iid}:user",),
    ).fetchone()
    return row[0] if row else ""


def _neighbours(
    store: Store, sources: list[_Exchange], seen: set[str]
) -> dict[str, tuple[float, _Exchange]]:
    """The turns just before and after each source exchange in its session: a follow-up
    ("OK, go with daily") is read with the turn it answers, and a diagnosis with the turn that
    acted on it. Weight 1 where the later of the two turns opens as a follow-up, else 0.5."""
    out: dict[str, tuple[float, _Exchange]] = {}
    for src in sources:
        if not src.key.startswith("inbox:"):
            continue
        iid = int(src.key.split(":")[1])
        row = store.conn.execute(
            "SELECT session, project FROM inbox WHERE id = ?", (iid,)
        ).fetchone()
        if row is None:
            continue
        session, project = row
        for op, order in (("<", "DESC"), (">", "ASC")):
            near = store.conn.execute(
                f"SELECT id FROM inbox WHERE session = ? AND project IS ? AND id {op} ? "
                f"AND state = 'done' ORDER BY id {order} LIMIT 1",
                (session, project, iid),
            ).fetchone()
            if near is None:
                continue
            key = f"inbox:{near[0]}"
            if key in seen:
                continue
            later = iid if op == "<" else near[0]  # the turn that may follow up
            weight = 1.0 if _follows_up(_opening(store, later)) else 0.5
            if key not in out or weight * src.rel > out[key][0] * out[key][1].rel:
                out[key] = (weight, src)
    return out


def _bridge(
    store: Store, prompt: str, kept: list[_Exchange], pool: dict[int, Hit], time_sql: str,
    args: tuple,
) -> list[_Exchange]:
    """Exchanges joined to the best kept ones only through a rare identifier: the second
    hop of a causal chain or a blast radius ("the relay verifies our JWTs" for a question
    about the signing key), or the follow-up that fixed what the kept exchange diagnosed.
    An identifier found in more than BRIDGE_MAX_DF exchanges links nothing."""
    sources = kept[:BRIDGE_FROM]
    idents: dict[str, _Exchange] = {}
    strength: dict[str, float] = {}
    for ex in sources:
        for h in ex.facts:
            for tok, value in _identifiers(h.text).items():
                idents.setdefault(tok, ex)
                strength[tok] = max(strength.get(tok, 0.0), value)
    best = sorted(idents, key=lambda t: (-strength[t], t))[:64]  # an FTS5 query stays short
    match = " OR ".join('"' + t.replace('"', "") + '"' for t in best)
    try:
        rows = store.conn.execute(
            f"SELECT f.id, f.text FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
            f"WHERE facts_fts MATCH ? AND {time_sql} LIMIT 400",
            (match, *args),
        ).fetchall() if best else []
    except Exception:  # noqa: BLE001 (an identifier FTS5 cannot parse links nothing)
        rows = []
    keys = _exchange_keys(store, [fid for fid, _ in rows])
    seen = {e.key for e in kept}
    holders: dict[str, set[str]] = {}  # identifier -> exchanges that mention it
    texts = [(keys.get(fid, f"fact:{fid}"), _norm_ident(text)) for fid, text in rows]
    texts += [(ex.key, _norm_ident(h.text)) for ex in sources for h in ex.facts]
    for key, norm in texts:
        for tok in idents:
            if _mentions(norm, tok):
                holders.setdefault(tok, set()).add(key)
    asked = _norm_ident(prompt)
    # (exchange, source) -> summed link weight, the strongest identifier, its weight
    links: dict[tuple[str, str], tuple[float, str, float]] = {}
    by_key = {ex.key: ex for ex in sources}
    for tok, exs in holders.items():
        df = len(exs)
        if df < 2 or df > BRIDGE_MAX_DF:
            continue
        src = idents[tok]
        # A thing the prompt itself names links most strongly.
        specific = strength[tok] * (2.0 if _mentions(asked, tok) else 1.0)
        for key in exs:
            if key in seen or not key.startswith("inbox:"):
                continue
            weight = specific / (df - 1)
            total, name, top = links.get((key, src.key), (0.0, tok, 0.0))
            name = tok if weight > top else name
            links[(key, src.key)] = (total + weight, name, max(top, weight))
    scored: dict[str, tuple[float, str, _Exchange]] = {}  # credited to its best link
    for (key, skey), (total, name, _top) in links.items():
        src = by_key[skey]
        prev = scored.get(key)
        if prev is None or min(1.0, total) * src.rel > min(1.0, prev[0]) * prev[2].rel:
            scored[key] = (total, name, src)
    by_key_kept = {e.key: e for e in kept}
    for key, (weight, src) in _neighbours(store, sources, set()).items():
        if key in by_key_kept:
            # Both turns of one conversation were kept: rank the other next to this one.
            other = by_key_kept[key]
            other.rel = max(other.rel, BRIDGE_DECAY * src.rel * weight)
            continue
        prev = scored.get(key)
        if prev is None or weight * src.rel > min(1.0, prev[0]) * prev[2].rel:
            scored[key] = (weight, "", src)  # "" = the same conversation
    ranked = sorted(scored.items(), key=lambda kv: -min(1.0, kv[1][0]) * kv[1][2].rel)
    out = []
    strong = [item for item in ranked if item[1][0] >= MIN_LINK]
    for key, (weight, tok, src) in strong[:MAX_BRIDGED]:
        # Ranked after the exchange that links to it, ahead of weaker direct matches.
        via = f"linked by {tok}" if tok else "same conversation"
        out.append(_Exchange(key, rel=BRIDGE_DECAY * src.rel * min(1.0, weight), via=via,
                             token=tok))
    _fill(store, out, pool, time_sql, args)
    return [e for e in out if e.facts]


def build(
    mem: Memory,
    store: Store,
    embedder: Embedder | None,
    prompt: str,
    *,
    project: str | None,
    session: str | None,
    budget: int,
    exclude: frozenset[int],
    now: datetime,
) -> Context:
    """The injected block for ``prompt`` (see the module docstring)."""
    words = content_words(prompt)
    if len(words) < 2 or OFF_TOPIC.search(prompt):
        return Context("")
    qvec = None
    if embedder is not None and store.vec_dim is not None:
        qvec = embedder.embed_batch([prompt[:2000]])[0]
    scope = recall_mod.Scope(project=project)
    hits, _ = recall_mod.recall(store, embedder, prompt[:4000], k=K, scope=scope, query_vector=qvec)
    when = asked_time(prompt, now)
    valid_at = to_iso(when) if when else None
    then: dict[int, Hit] = {}
    if when is not None:
        past = recall_mod.Scope(project=project, valid_at=valid_at)
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
    keys = _exchange_keys(store, list(pool))
    exchanges: dict[str, _Exchange] = {}
    for h in sorted(pool.values(), key=lambda x: -x.score):
        key = keys.get(h.id, f"fact:{h.id}")
        ex = exchanges.setdefault(key, _Exchange(key))
        ex.rank = max(ex.rank, h.score + (0.3 if h.id in then else 0.0))
    best_first = sorted(exchanges.values(), key=lambda e: -e.rank)[:MAX_EXCHANGES * 2]
    time_sql, time_args = scope.sql("f")
    if when is not None:
        time_sql, time_args = recall_mod.Scope(project=project, valid_at=valid_at).sql("f")
        time_sql = f"(({time_sql}) OR (f.status = 'current' AND f.project IS ?))"
        time_args = (*time_args, project)
    all_ids = _fill(store, best_first, pool, time_sql, time_args)

    cos: dict[int, float] = {}
    if qvec is not None:
        cos = {fid: 1.0 - d for fid, d in store.distances(all_ids, db.pack_vector(qvec)).items()}
    idf = _idf(store, words[:32])
    kept: list[_Exchange] = []
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
    linked = _bridge(store, prompt, kept, pool, time_sql, time_args)
    if linked:
        if qvec is not None:
            new_ids = [h.id for e in linked for h in e.facts if h.id not in cos]
            cos.update({fid: 1.0 - d for fid, d in
                        store.distances(new_ids, db.pack_vector(qvec)).items()})
        _mark_revised(store, kept + linked)
    kept = sorted(kept + linked, key=lambda e: -e.rel)

    walk = bool(mem.model_ready)  # the causal walk may need the model: never wait for it
    qblob = db.pack_vector(qvec) if qvec is not None else None
    opening, closing = f"<{TAG}>", f"</{TAG}>"
    used = len(opening) + len(HEADER) + len(closing) + 3
    blocks: list[list[str]] = []
    ids: list[int] = []
    if is_task(prompt):
        # The user's standing rules go first, in a reserved share of the budget: they bind
        # the whole task, and a budget filled by recalled exchanges must not crowd them out.
        rules = _standing_rules(store, project, cos, set(exclude))
        if rules and qvec is not None:
            dist = store.distances([h.id for h in rules], db.pack_vector(qvec))
            rules = [h for h in rules if 1.0 - dist.get(h.id, 1.0) >= RULE_MIN_COS]
            rules.sort(key=lambda h: dist.get(h.id, 1.0))
        # A task that also asks a question ("I want to rename X. What breaks?") wants the
        # answer first: its rules get a smaller share.
        share = RULE_SHARE_ASKED if ASKS.search(prompt) else RULE_SHARE
        cap = min(budget - used, int(budget * share))
        lines, cost = [RULES_HEAD], len(RULES_HEAD) + 1
        for h in rules[:6]:
            line = f"#{h.id} ({_day(h)} {(h.session or '-')[:12]}) {h.text}"
            if cost + len(line) + 1 <= cap:
                lines.append(line)
                ids.append(h.id)
                cost += len(line) + 1
        if len(lines) > 1:
            blocks.append(lines)
            used += cost
    plans: list[tuple[_Exchange, str, list[Hit], list[Hit]]] = []
    for ex in kept:
        facts = [h for h in ex.facts if h.id not in exclude and h.id not in ids and _worth(h.text)]
        if not facts:
            continue
        first = facts[0]
        head = f"[{_day(first)} session {(first.session or '-')[:12]}"
        head += f"; {ex.via}" if ex.via else ""
        head += f"; changed later, see {ex.revised_by}]" if ex.revised_by else "]"

        def weight(h: Hit, ex: _Exchange = ex) -> float:
            linked = bool(ex.token) and _mentions(_norm_ident(h.text), ex.token)
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
            for extra in _because(mem, h.id, project, exclude | set(ids), qblob):
                if used + len(extra) + 1 <= budget:
                    lines.append(extra)
                    used += len(extra) + 1
    if not blocks:
        return Context("", valid_at=valid_at)
    text = "\n".join([opening, HEADER, *(line for b in blocks for line in b), closing])
    return Context(text, ids, valid_at=valid_at)


RULE = re.compile(
    r"\b(house (rules?|style)|rules?:|from now on|always|never|convention|we prefer|i prefer|"
    r"prefer(ably)? \w+ over|must(n't| not)?|don't ever|"
    r"no [\w\-]+(\(\))? (outside|in|anywhere|unless)|"
    r"before you (tell|say|report|mark)|is our floor|our policy|policy is|budget is|at most|"
    r"never exceed|cap(ped)? at|hard limit|more rules|"
    # prohibitions and exclusive choices: "please stop hand-writing ...", "don't use default
    # exports anywhere", "named exports only", "keep them all in tests/factories.py"
    r"(please )?stop [\w\-]+ing|(don't|do not|never) (use|add|put|write|call|import|commit|"
    r"push|create|hardcode|hand[\w\-]*|mock|log|print|rely|touch|change)|"
    r"i don't want (to|any)|[\w\-]+ only(?=[;.!,]|$)|keep (\w+ ){0,2}in)(?!\w)",
    re.I,
)
# Not a rule: "I never asked for that", "we always had ...".
NOT_RULE = re.compile(r"\b(i|we|you|they|it) (never|always) \w+ed\b|\?\s*$", re.I)
# A binding constraint in the assistant's words, found while solving something else ("Safari
# 15.1 is our floor", "the binary must stay under 8 MB", "Finance's cap ... is 40 credits/day").
RULE_SAID = re.compile(
    r"\b(rules? (for|in) (this|our|the) (repo|project|codebase)|is our (floor|ceiling|limit)|"
    r"our policy|policy is|the convention|convention is|(must|has to|have to) stay|"
    r"hard (limit|requirement)|constraint is|"
    r"(cap|limit|budget|quota|floor|ceiling)( for [\w\s\-']{1,40})? is (\$?\d|at)|"
    r"never exceed|at most \d)",
    re.I,
)
_RULE_WORDS = ("rule rules floor ceiling policy convention stay requirement constraint cap limit "
               "budget quota exceed most").split()
_TASK_START = re.compile(
    r"(please\s+)?(let'?s|implement|add|write|create|build|make|style|refactor|fix|set up|"
    r"wire|port|introduce|support|draft|generate|update|change|rename|move|convert|extend|"
    r"rewrite|replace|remove|delete|drop|switch|migrate|upgrade|bump|install|enable|disable|"
    r"deploy|ship|split|pull in|kick off|run|integrate|optimi[sz]e|clean up|"
    r"can you|could you|i('d| would) like|i want to|i('m| am) going to|"
    r"i('m| am) (adding|writing|building|implementing|changing|moving|switching))\b",
    re.I,
)




def is_task(prompt: str) -> bool:
    """Whether the prompt asks for work: one of its sentences starts like a request."""
    return any(_TASK_START.match(p) for p in re.split(r"(?<=[.!?:])\s+|\n+", prompt.strip()))


RULE_SHARE = 0.4  # of the budget, at most, for standing rules
RULE_SHARE_ASKED = 0.2  # ... when the prompt also asks a question
ASKS = re.compile(
    r"(^|[.!?:;]\s+|\n)(what|which|why|how|where|who|when)\b[^.!?\n]*\?", re.I
)
RULE_MIN_COS = -1.0  # rules are few and bind every task: order them, do not filter
RULES_HEAD = "[standing rules and constraints of this project]"


def _standing_rules(
    store: Store, project: str | None, cos_of: dict[int, float], skip: set[int]
) -> list[Hit]:
    """Rules and preferences the user stated for this project ("house rules: ...", "from
    now on ...", "never ..."): they apply to every new task even when it does not mention
    them, so a task prompt gets the most similar few."""
    from .models import Hit as HitType
    from .store import FACT_COLUMNS, FactRow

    rows = [
        FactRow(*r) for r in store.conn.execute(
            f"SELECT {FACT_COLUMNS} FROM facts WHERE project IS ? AND status = 'current' "
            f"AND role = 'user' ORDER BY id DESC LIMIT 400",
            (project,),
        )
    ]

    def is_rule(text: str) -> bool:
        return bool(RULE.search(text)) and not NOT_RULE.search(text)

    # A user turn that states one rule usually lists several: keep the whole turn.
    turns = {r.source for r in rows if r.source and is_rule(r.text)}
    picked = [r for r in reversed(rows) if is_rule(r.text) or (r.source and r.source in turns)]
    try:
        said = [
            FactRow(*r) for r in store.conn.execute(
                f"SELECT {', '.join('f.' + c.strip() for c in FACT_COLUMNS.split(','))} "
                f"FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
                f"WHERE facts_fts MATCH ? AND f.project IS ? AND f.status = 'current' "
                f"AND f.role = 'assistant' ORDER BY f.id DESC LIMIT 200",
                (" OR ".join(_RULE_WORDS), project),
            )
        ]
    except Exception:  # noqa: BLE001 (no FTS index: the user's rules still apply)
        said = []
    picked += [r for r in reversed(said)
               if RULE_SAID.search(r.text) and not NOT_RULE.search(r.text)]
    out = []
    for r in picked:
        if r.id in skip or not _worth(r.text):
            continue
        out.append(HitType(
            id=r.id, text=r.text, score=0.0, project=r.project, session=r.session,
            source=r.source, role=r.role, kind=r.kind, recorded_at=r.recorded_at,
            valid_from=r.valid_from, valid_to=r.valid_to, path="standing rule",
        ))
    return out


def _day(h: Hit) -> str:
    """When the fact was stated to be true (its valid-from day), else when it was recorded."""
    start = h.valid_from or ""
    return (start if start > "1970-01-02" else h.recorded_at)[:10]


_NARRATION = re.compile(
    r"^(ok(ay)?,?\s+|so,?\s+|now,?\s+|first,?\s+)?"
    r"(let me|let's (see|check|look)|i'll (check|look|take))\b",
    re.I,
)


def _worth(text: str) -> bool:
    """Filler sentences ("Go ahead.", "Options?") and narration that states nothing ("Let me
    look at the tokens.") are not worth their characters; a sentence that names something
    ("Did Oceanlink say why?", "Let me open src/index/segment.rs.") always is."""
    if _identifiers(text):
        return True
    if len(text) < 24 and len(content_words(text)) < 3:
        return False
    return not (_NARRATION.match(text) and len(text.split()) <= 12 and "..." not in text)


def _marker(h: Hit, then: dict[int, Hit], when: datetime | None, revised_by: str = "") -> str:
    if h.status == "current":
        return " [superseded?]" if revised_by else ""
    by = f" by #{h.superseded_by}" if h.superseded_by else ""
    if h.id in then and when is not None:
        return f" [in force on {to_iso(when)[:10]}; later superseded{by}]"
    return f" [{h.status}{by}]"


def _because(
    mem: Memory, fact_id: int, project: str | None, skip: set[int], qblob: bytes | None = None
) -> list[str]:
    """One ``because`` line per recorded direct cause (nothing while the walk is absent).
    A cause that states nothing, or that is unrelated to the prompt (cosine below MIN_COS),
    is not worth its characters."""
    try:
        nodes = mem.trace(fact_id, direction="causes", depth=1, project=project)
    except (GraphMemoryError, TypeError, AttributeError):
        return []
    out = []
    for n in nodes[:1]:
        nid = getattr(n, "id", None)
        text = str(getattr(n, "text", "") or "")
        if nid is None or nid == fact_id or nid in skip or not _worth(text):
            continue
        if qblob is not None:
            dist = mem.store.distances([nid], qblob).get(nid)
            if dist is not None and 1.0 - dist < MIN_COS:
                continue
        out.append(f"  because #{nid}: {text}")
    return out
