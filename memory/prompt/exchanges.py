"""Exchanges: the unit the prompt context scores and shows, and how one links to another.

A captured exchange (one prompt and its answer, the ``inbox:<id>`` statement source) spreads
a decision and its reasons over several sentences, so the prompt context groups recall hits
by exchange, loads every visible fact of each kept exchange, and follows the best ones one
hop: to exchanges naming the same rare identifier (a path, snake_case or dotted name, a
product name) and to the turn just before or after in the same conversation. Also here:
which sentences are worth their characters in the block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...hooks.text import MONTH_PATTERN, MONTHS, plain_words
from ..causal import walks
from ..extract.identifiers import CODE_SPAN, norm_ident
from ..extract.identifiers import identifiers as read_identifiers
from ..storage import inbox as queue
from .config import CONTEXT, ContextConfig

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..records import Hit
    from ..storage.filters import Scope
    from ..storage.store import Store

WORD = re.compile(r"[a-z0-9_]+")


@dataclass
class Exchange:
    """The facts one captured exchange (or one remember call) produced, scored as a unit:
    the words of a decision and its reasons are spread over several sentences."""

    key: str
    facts: list[Hit] = field(default_factory=list)
    rank: float = 0.0  # best recall score among its facts
    rel: float = 0.0
    revised_by: str = ""  # a later exchange that changed what this one decided
    reviser: str = ""  # ... its key
    changed: str = ""  # the exchange this one was added for having changed, if any
    via: str = ""  # how it was linked to a relevant exchange (see bridge)
    token: str = ""  # the identifier that linked it, if any
    asked: str = ""  # the user's question it answers (kept in its passages, not as a fact)
    source: str = ""  # the exchange it was linked from, if any
    link: float = 0.0  # ... and how strongly (1: a specific identifier, a follow-up, a name)
    then: bool = False  # holds a fact in force at the time the prompt asks about


def exchange_of(source: str | None) -> str:
    """The exchange of a capture's statement source ("inbox:12:user" -> "inbox:12"), or ""."""
    if not source or not source.startswith("inbox:"):
        return ""
    return "inbox:" + source.split(":")[1]


def exchange_keys(store: Store, ids: list[int]) -> dict[int, str]:
    """fact id -> its exchange (``inbox:<id>`` from the capture's statement source)."""
    out: dict[int, str] = {}
    if not ids:
        return out
    for fid, source in store.statement_sources(ids):
        if key := exchange_of(source):
            out[fid] = key
    return out


def exchange_facts(
    store: Store, keys: list[str], scope: Scope
) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    if not keys:
        return out
    sources = [f"{k}:{role}" for k in keys for role in ("user", "assistant")]
    for fid, source in store.facts_stated_in(sources, scope):
        out.setdefault(source.rsplit(":", 1)[0], []).append(fid)
    return out


def fill(
    store: Store, exchanges: list[Exchange], pool: dict[int, Hit], scope: Scope
) -> list[int]:
    """Load every visible fact of each exchange (hits keep their recall score and path);
    returns the ids loaded, recall hits included."""
    from ..records import Hit as HitType

    members = exchange_facts(
        store, [e.key for e in exchanges if e.key.startswith("inbox:")], scope
    )
    all_ids = sorted({fid for ids in members.values() for fid in ids} | set(pool))
    rows = store.facts(all_ids)
    leads = store.passage_leads([f"{e.key}:assistant" for e in exchanges
                                 if e.key.startswith("inbox:")])
    for ex in exchanges:
        ex.asked = leads.get(f"{ex.key}:assistant", "")
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


def identifiers(text: str, config: ContextConfig = CONTEXT) -> dict[str, float]:
    """The linking identifiers of one sentence with the block's weights (``ident_specific``,
    ``ident_plain``): see ``extract.identifiers``."""
    return read_identifiers(text, config.ident_specific, config.ident_plain)


def project_word(project: str | None) -> str:
    """The project's folder name as identifiers spell it (``beacon-live`` -> ``beaconlive``),
    or "" when it is too short to tell a namespace by."""
    name = re.sub(r"[^a-z0-9]", "", (project or "").rstrip("/").rsplit("/", 1)[-1].lower())
    return name if len(name) >= 4 else ""


_LAYERS = frozenset(
    "web app api core server client lib libs test tests ui cli common shared www site "
    "frontend backend service services worker workers "
    # its environments: `pawpath-prod`, `acme_staging` name the project's deploy target
    "prod production dev development staging stage qa preview sandbox local".split()
)


def namespace(token: str, house: str) -> bool:
    """Whether ``token`` is the project's name or its name with a layer or an environment
    (``beacon_live_web``, ``BeaconLive``, ``pawpath-prod``), not a thing named after the
    project (``halyard_ro``, a database role)."""
    flat = token.replace("_", "")
    if not flat.startswith(house):
        return False
    rest = flat[len(house):].strip("._-/:")
    return not rest or rest in _LAYERS


def mentions(norm: str, token: str) -> bool:
    """Whether ``norm`` (text through ``norm_ident``) names ``token`` as a whole word."""
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


BACK_REFERENCE = re.compile(r"\b(it|its|them|they|that|this|those|these|there)\b", re.I)


def _follows_up(prompt: str | None, config: ContextConfig) -> bool:
    text = (prompt or "").strip()
    return bool(FOLLOW_UP.match(text)) or 0 < len(text.split()) <= config.follow_up_words


def _opening(store: Store, iid: int) -> str:
    """How the user opened an exchange (the drained inbox row keeps no text): the first
    sentence the user stated, else the question the answer's passages open with (a prompt
    that is only a question states no fact). Not the question first: in "The outbox relay
    seems slow. Tune it?" the "it" points inside the prompt, not to an earlier turn."""
    key = f"inbox:{iid}"
    first = store.first_text_stated_in(f"{key}:user")
    if first:
        return first
    return store.passage_leads([f"{key}:assistant"]).get(f"{key}:assistant", "")


def neighbours(
    store: Store, sources: list[Exchange], seen: set[str], config: ContextConfig = CONTEXT
) -> dict[str, tuple[float, Exchange]]:
    """The turns just before and after each source exchange in its session: a follow-up
    ("OK, go with daily") is read with the turn it answers, and a diagnosis with the turn that
    acted on it. Weight ``follow_up`` (1) where the later of the two turns opens as a
    follow-up, else ``same_conversation`` (0.5)."""
    out: dict[str, tuple[float, Exchange]] = {}
    for src in sources:
        if not src.key.startswith("inbox:"):
            continue
        iid = int(src.key.split(":")[1])
        for op, near in zip("<>", queue.turns_around(store.conn, iid), strict=True):
            if near is None:
                continue
            key = f"inbox:{near}"
            if key in seen:
                continue
            later = iid if op == "<" else near  # the turn that may follow up
            weight = (
                config.follow_up if _follows_up(_opening(store, later), config)
                else config.same_conversation
            )
            if key not in out or weight * src.rel > out[key][0] * out[key][1].rel:
                out[key] = (weight, src)
        # A session that opens by pointing back ("Found out what's cutting them?", "Any luck
        # with it?") continues the project's previous conversation, days later.
        after = queue.next_session_start(store.conn, iid)
        key = f"inbox:{after}"
        if after is not None and key not in seen and key not in out:
            opening = _opening(store, after)
            if _follows_up(opening, config) and BACK_REFERENCE.search(opening):
                out[key] = (config.follow_up, src)
    return out


LINKED_BELOW = 0.99  # of the linking exchange's relevance, at most, for a linked one


def bridge(
    store: Store, prompt: str, kept: list[Exchange], pool: dict[int, Hit], scope: Scope,
    config: ContextConfig = CONTEXT,
) -> list[Exchange]:
    """Exchanges joined to the best kept ones only through a rare identifier: the second
    hop of a causal chain or a blast radius ("the relay verifies our JWTs" for a question
    about the signing key), or the follow-up that fixed what the kept exchange diagnosed.
    An identifier found in more than ``bridge_max_df`` exchanges links nothing."""
    sources = kept[: config.bridge_from]
    idents: dict[str, Exchange] = {}
    strength: dict[str, float] = {}
    for ex in sources:
        for tok, value in exchange_identifiers(ex, config).items():
            idents.setdefault(tok, ex)
            strength[tok] = max(strength.get(tok, 0.0), value)
    best = sorted(idents, key=lambda t: (-strength[t], t))[: config.bridge_idents]
    match, texts = _facts_naming(store, best, scope, config)
    seen = {e.key for e in kept}
    texts += [(ex.key, norm_ident(t)) for ex in sources for t in [ex.asked]
              + [h.text for h in ex.facts]]
    # The questions an answer replies to name things too ("Any luck with the edge-07 files?").
    leads = store.fts_passage_leads(match, scope, config.bridge_rows) if best else []
    texts += [(exchange_of(src), norm_ident(lead)) for src, lead in leads if exchange_of(src)]
    holders = _holders(texts, idents)  # identifier -> exchanges that mention it
    asked = norm_ident(prompt)
    # (exchange, source) -> summed link weight, the strongest identifier, its weight
    links: dict[tuple[str, str], tuple[float, str, float]] = {}
    by_key = {ex.key: ex for ex in sources}
    house = project_word(scope.project)
    for tok, exs in holders.items():
        df = len(exs)
        if df < 2 or df > config.bridge_max_df:
            continue
        if house and namespace(tok, house):
            continue  # the project's own namespace (beacon_live_web, BeaconLive) is everywhere
        src = idents[tok]
        # A thing the prompt itself names links most strongly.
        specific = strength[tok] * (config.asked_ident if mentions(asked, tok) else 1.0)
        for key in exs:
            if key in seen or not key.startswith("inbox:"):
                continue
            weight = specific / (df - 1)
            total, name, top = links.get((key, src.key), (0.0, tok, 0.0))
            name = tok if weight > top else name
            links[(key, src.key)] = (total + weight, name, max(top, weight))
    scored: dict[str, tuple[float, str, Exchange]] = {}  # credited to its best link
    for (key, skey), (total, name, _top) in links.items():
        src = by_key[skey]
        prev = scored.get(key)
        if prev is None or min(1.0, total) * src.rel > min(1.0, prev[0]) * prev[2].rel:
            scored[key] = (total, name, src)
    by_key_kept = {e.key: e for e in kept}
    for key, (weight, src) in neighbours(store, sources, set(), config).items():
        if key in by_key_kept:
            # Both turns of one conversation were kept: rank the other next to this one.
            other = by_key_kept[key]
            other.rel = max(other.rel, config.bridge_decay * src.rel * weight)
            continue
        prev = scored.get(key)
        if prev is None or weight * src.rel > min(1.0, prev[0]) * prev[2].rel:
            scored[key] = (weight, "", src)  # "" = the same conversation
    # Among equally linked exchanges, the one recall also found for the prompt comes first:
    # the same rank term a direct match gets.
    own: dict[str, float] = {}
    for fid, key in exchange_keys(store, list(pool)).items():
        own[key] = max(own.get(key, 0.0), pool[fid].score)

    def linked_rel(key: str, weight: float, src: Exchange) -> float:
        # Ranked after the exchange that links to it, whatever its own recall rank.
        rel = (config.bridge_decay * src.rel * min(1.0, weight)
               + config.w_rank * min(own.get(key, 0.0), config.rank_cap))
        return min(rel, LINKED_BELOW * src.rel)

    ranked = sorted(scored.items(), key=lambda kv: -linked_rel(kv[0], kv[1][0], kv[1][2]))
    out = []
    strong = [item for item in ranked if item[1][0] >= config.min_link]
    for key, (weight, tok, src) in strong[: config.max_bridged]:
        # Ranked after the exchange that links to it, ahead of weaker direct matches.
        via = f"linked by {tok}" if tok else "same conversation"
        # A step of the story shares a specific identifier ("edge-07", "settle_batches"), or
        # follows up; a plain name ("Livewire") or a neighbouring turn links it weakly.
        link = max(weight, strength[tok]) if tok else weight
        out.append(Exchange(key, rel=linked_rel(key, weight, src), via=via, token=tok,
                            source=src.key, link=link))
    fill(store, out, pool, scope)
    return [e for e in out if e.facts]


def exchange_identifiers(ex: Exchange, config: ContextConfig = CONTEXT) -> dict[str, float]:
    """The identifiers an exchange names, its question and its facts, each at its strongest."""
    out: dict[str, float] = {}
    for text in [ex.asked, *(h.text for h in ex.facts)]:
        for tok, value in identifiers(text, config).items():
            out[tok] = max(out.get(tok, 0.0), value)
    return out


def _facts_naming(
    store: Store, tokens: list[str], scope: Scope, config: ContextConfig
) -> tuple[str, list[tuple[str, str]]]:
    """The FTS5 expression for ``tokens``, and (exchange, normalised text) of each fact in
    ``scope`` that it finds (``bridge_rows`` at most)."""
    match = " OR ".join('"' + t.replace('"', "") + '"' for t in tokens)
    rows = store.fts_fact_texts(match, scope, config.bridge_rows) if tokens else []
    keys = exchange_keys(store, [fid for fid, _ in rows])
    return match, [(keys.get(fid, f"fact:{fid}"), norm_ident(text)) for fid, text in rows]


def _holders(texts: list[tuple[str, str]], tokens: Iterable[str]) -> dict[str, set[str]]:
    """identifier -> the exchanges among ``texts`` (exchange, normalised text) that name it."""
    holders: dict[str, set[str]] = {}
    for key, norm in texts:
        for tok in tokens:
            if mentions(norm, tok):
                holders.setdefault(tok, set()).add(key)
    return holders


def story_links(
    store: Store, ranked: list[Exchange], scope: Scope, config: ContextConfig = CONTEXT
) -> None:
    """For a question of causes: the exchanges that matched the prompt and share a rare
    identifier with a stronger one are the next steps of its story ("the relay drains
    ``outbox_events``" under "no deliveries attempted from ``outbox_events`` overnight"), read
    right after it (``source``) and ranked as a linked exchange would be, not as a weaker
    direct match behind distractors that share only the prompt's words. A step links on
    from the step before it, so a chain of three is read in order."""
    tokens = {ex.key: exchange_identifiers(ex, config) for ex in ranked}
    strength: dict[str, float] = {}
    for held in tokens.values():
        for tok, value in held.items():
            strength[tok] = max(strength.get(tok, 0.0), value)
    shared = [t for t in strength if sum(t in h for h in tokens.values()) >= 2]
    best = sorted(shared, key=lambda t: (-strength[t], t))[: config.bridge_idents]
    if not best:
        return
    named = _holders(_facts_naming(store, best, scope, config)[1], best)
    holders = {t: {k for k, h in tokens.items() if t in h} | named.get(t, set()) for t in best}
    house = project_word(scope.project)
    rare = {t for t in best if len(holders[t]) <= config.bridge_max_df
            and not (house and namespace(t, house))}
    placed = [ranked[0]]
    rest = sorted(ranked[1:], key=lambda e: -e.rel)
    while rest:
        found = None  # (lifted rel, exchange, its source, identifier, link weight)
        for ex in rest:
            if ex.source:
                continue
            for src in placed:
                # Sorted: the sum and the name shown do not hang on the order of a set.
                common = sorted(rare & tokens[ex.key].keys() & tokens[src.key].keys())
                weight = sum(strength[t] / (len(holders[t]) - 1) for t in common)
                if weight < config.story_min or src.rel <= ex.rel:
                    continue
                full = min(1.0, weight / config.story_full)
                rel = min(config.bridge_decay * src.rel * full, LINKED_BELOW * src.rel)
                if found is None or max(rel, ex.rel) > found[0]:
                    name = max(common, key=lambda t: (strength[t] / len(holders[t]), t))
                    found = (max(rel, ex.rel), ex, src, name, weight)
        if found is None:
            break
        rel, ex, src, name, weight = found
        ex.rel, ex.source, ex.via, ex.token = rel, src.key, f"linked by {name}", name
        ex.link = weight
        placed.append(ex)
        rest.remove(ex)


# An earlier change named by its month and its thing: "the small pool from the January
# pgbouncer change", "since the March helm migration".
_NAMED_CHANGE = re.compile(
    r"\b(?:the|since|after|before|from) (?:the )?(?P<when>" + MONTH_PATTERN + r")(?:'s)? "
    r"(?P<what>(?:[\w\-./]+ ){1,3}?)(?P<kind>change|changes|fix|migration|upgrade|switch|"
    r"rollout|cutover|bump|refactor|hotfix|patch|move|rewrite|incident)\b",
    re.IGNORECASE,
)
_NAMED_STOP = frozenset("the a an our big small new old first second last".split())


def named_changes(
    store: Store, kept: list[Exchange], pool: dict[int, Hit], scope: Scope,
    config: ContextConfig = CONTEXT,
) -> list[Exchange]:
    """The earlier exchanges a kept one names as a change of a month ("6 pods with the small
    pool from the January pgbouncer change"): said in that month, before the kept one, and
    naming every word of the thing. A story's step told by its date, with no identifier in
    common; each is read right after the exchange that names it."""
    seen = {e.key for e in kept}
    out: dict[str, Exchange] = {}
    for src in kept[: config.bridge_from]:
        for h in src.facts:
            for m in _NAMED_CHANGE.finditer(h.text):
                words = [w for w in m.group("what").lower().split() if w not in _NAMED_STOP]
                if not words:
                    continue
                # The last such month before the fact: "the November change" said in March.
                month = MONTHS.index(m.group("when").lower()) + 1
                year = int(h.recorded_at[:4]) - (month > int(h.recorded_at[5:7]))
                when = f"{year:04d}-{month:02d}"
                match = " AND ".join('"' + w.replace('"', "") + '"' for w in words)
                rows = store.fts_fact_texts(match, scope, config.bridge_rows)
                said = store.facts([fid for fid, _ in rows])
                ids = [fid for fid, r in said.items()
                       if r.recorded_at < h.recorded_at and r.recorded_at[:7] == when]
                keys = exchange_keys(store, ids)
                counts: dict[str, int] = {}
                for fid in ids:
                    key = keys.get(fid)
                    if key is not None and key not in seen and key != src.key:
                        counts[key] = counts.get(key, 0) + 1
                if not counts:
                    continue
                key = max(counts, key=lambda k: (counts[k], k))
                if key not in out:
                    # Named outright: the strongest link, ranked right after the one naming it.
                    out[key] = Exchange(
                        key, rel=LINKED_BELOW * src.rel, via=f"named as '{m.group(0)}'",
                        token=words[-1], source=src.key, link=1.0)
    found = list(out.values())
    fill(store, found, pool, scope)
    return [e for e in found if e.facts]


# A prompt that asks for causes: "why", "what caused", "root cause", "the chain of causes",
# "how come", "what led to", "explain", in the languages the cue lexicon covers.
CAUSAL_ASK = re.compile(
    r"\b(?:why|causes?|caused|causing|root|chain|reasons?|how come|led to|lead to|because|"
    r"explain\w*|explanation|erkl[äa]r\w*|expli\w+|spiega\w*|uitleg\w*|a[çc][ıi]kla\w*|"
    r"warum|wieso|weshalb|woran|wodurch|ursache|pourquoi|cause|raison|por ?qu[eé]|causa|"
    r"raz[oó]n|motivo|perch[eé]|waarom|oorzaak|neden\w*|sebep\w*|"
    r"dlaczego|czemu|przyczyn\w*|proč|příčin\w*|důvod\w*|varför|orsak\w*|anledning\w*|"
    r"mengapa|kenapa|penyebab\w*|почему|отчего|причин\w*|объясн\w*|цепочк\w*)\b|"
    # a symptom asked about without "why": "what's going on?", "where is the delay coming
    # from?", "what's behind it?", "what happened to ...", and their forms in the others
    r"\bwhat(?:'s|s| is| was)(?: actually| really| exactly)? (?:going on|happening|wrong|behind)\b|"
    r"\bwhat happened\b|"
    r"\b(?:coming|come|comes) from\?|\bbehind (?:it|this|that)\b|"
    r"\bwas ist (?:da )?los\b|\bwoher\b|\bqu'est-ce qui se passe\b|\bqui se passe\b|"
    r"\bqu[ée] (?:est[áa] )?pasa(?:ndo)?\b|\bo que (?:est[áa] )?acontece\w*|"
    r"\bcosa (?:sta )?succede\w*|\bwat is er (?:aan de hand|gebeurd)\b|\bne oluyor\b|"
    r"为什么|为何|怎么会|怎么回事|原因|理由|なぜ|どうして|なんで|왜|원인|이유",
    re.IGNORECASE,
)


# A prompt that asks what a change reaches: "what else", "downstream", "blast radius", "what
# would that break", "is that safe", "who outside this service", in the languages read.
IMPACT_ASK = re.compile(
    r"\bwhat else\b|\bdownstream\b|\bblast radius\b|\bripple|\bin lockstep\b|"
    r"\balong with it\b|\bwho (?:else|outside)\b|"
    r"\bwhat (?:would|will|might|could|does|do) (?:that |this |it |the change )?(?:break|touch|"
    r"affect|impact)|\b(?:break|affect|impact)s? (?:anything|downstream)|"
    r"\bwould (?:quietly |silently )?break\b|\bis (?:that|it|this) safe\b|"
    r"\bwhat (?:has|needs|have) to (?:change|be updated|move)|\bneeds? to change along|"
    r"\bwas (?:geht|bricht|muss)\b|\bwat gaat er\b|\bquem fora\b|\bqu[ée] m[áa]s\b|"
    r"\bquoi d'autre\b|\bcosa (?:altro|si rompe)\b|\bbaşka ne\b|\bco (?:jeszcze|ještě|dalšího)\b|"
    r"\bvad (?:mer|annat)\b|\bapa lagi\b|\bчто (?:ещё|еще)\b|影響|影响|波及|영향",
    re.IGNORECASE,
)


def cause_bridge(
    store: Store, prompt: str, kept: list[Exchange], pool: dict[int, Hit], scope: Scope,
    config: ContextConfig = CONTEXT,
) -> list[Exchange]:
    """For a prompt that asks why: the exchanges that hold the recorded causes of the best
    kept ones' facts, followed back ``cause_hops`` links (the earlier sessions of a chain
    share no words with the prompt: "a sale paid twice" <- "the consumer was evicted" <-
    "fee lookups became remote calls"). Each is ranked after the exchange it explains,
    lower for every hop."""
    if not kept or not CAUSAL_ASK.search(prompt):
        return []
    sources = kept[: config.bridge_from]
    of = {h.id: ex for ex in sources for h in ex.facts}
    nodes = walks.reach(store, list(of), direction="causes", depth=config.cause_hops,
                        scope=scope)
    keys = exchange_keys(store, [n.id for n in nodes])
    seen = {e.key for e in kept}
    root: dict[int, Exchange] = dict(of)  # fact -> the kept exchange its walk started from
    out: dict[str, Exchange] = {}
    for n in nodes:  # nearest first
        src = root.get(n.via) if n.via is not None else None
        if src is None:
            continue
        root[n.id] = src
        key = keys.get(n.id, f"fact:{n.id}")
        if key in seen or key in out or len(out) >= config.max_caused:
            continue
        rel = src.rel * config.bridge_decay ** n.depth
        out[key] = Exchange(key, rel=rel, via=f"cause of #{n.via}", source=src.key)
    found = list(out.values())
    fill(store, found, pool, scope)
    return [e for e in found if e.facts]


_NARRATION = re.compile(
    r"^(ok(ay)?,?\s+|so,?\s+|now,?\s+|first,?\s+)?"
    r"(let me|let's (see|check|look)|i'll (check|look|take))\b",
    re.I,
)


def worth(text: str, config: ContextConfig = CONTEXT) -> bool:
    """Filler sentences ("Go ahead.", "Options?") and narration that states nothing ("Let me
    look at the tokens.") are not worth their characters; a sentence that names something
    ("Did Oceanlink say why?", "Let me open src/index/segment.rs.") always is."""
    if identifiers(text, config) or CODE_SPAN.search(text):
        return True  # a code span ("`media: 5`.") is a value, never filler
    if len(text) < config.filler_chars and len(plain_words(text)) < config.filler_words:
        return False
    return not (
        _NARRATION.match(text) and len(text.split()) <= config.narration_words
        and "..." not in text
    )
