"""Update rules for statements that say outright what changed, in the words coding agents use.

Four kinds, each read on the two sentences' main clauses (``coding._main_clause``):

* ``renamed``: "renamed X to Y", "X was renamed to Y", "X is now called Y", "moved X into Y",
  "X moved to Y": the old fact names ``X`` where it states what something is called or where
  it lives (after its verb, not as its subject: "API_TOKEN must never be logged" is a rule
  about the variable, not its name);
* ``retired``: "dropped X", "X is gone", "stopped using X", "reversed the X decision",
  "..., not X": the old fact uses, chose or depends on ``X`` (again after its verb);
* ``quantity_changed``: the same attribute of the same thing with another amount, compared
  across units ("7 days" -> "24 hours", "two hours" -> "25 minutes", "port 8080" -> "9090",
  "Node 18" -> "Node 20", "went from 5 to 10");
* ``object_swap``: an update cue ("now", "switched", "instead", "since March") and the same
  frame of words with one or two other words in the object: "We use npm for the web
  workspace" -> "Switched the web workspace over to pnpm". Tools are often written in lower
  case, so the swapped words need not be names.

Every rule keeps the same guard against a second subject: when each sentence keeps a word the
other lacks, and both of those sit in the subjects ("the staging cluster" / "the production
cluster", "the api" / "the worker"), the two are two things, not one that changed.

Pure functions of the two texts, like the rest of the package.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, wraps

from .coding import _NEUTRAL, _main_clause
from .lexicon import _AGENT, _FAMILY, _NUMBER_WORDS, _STOP, _VERB_STEMS, _stem
from .parse import _parse
from .parts import other_part

__all__ = [
    "CHANGE_CUE",
    "amounts_comparable",
    "aspect_of",
    "changes_other_aspect",
    "object_swap",
    "other_scope",
    "quantity_changed",
    "renamed",
    "retired",
]

# --------------------------------------------------------------------------- words

# Abbreviations written interchangeably in coding notes: one key for both spellings.
_ABBREVIATIONS = {
    "repo": "repository",
    "repos": "repository",
    "db": "databas",
    "dbs": "databas",
    "config": "configur",
    "configs": "configur",
    "configuration": "configur",
    "env": "environment",
    "envs": "environment",
    "dep": "dependenci",
    "deps": "dependenci",
    "doc": "documentation",
    "docs": "documentation",
    "k8s": "kubernet",
    "kubernetes": "kubernet",
    "infra": "infrastructur",
    "infrastructure": "infrastructur",
    "prod": "production",
    "dev": "development",
    "auth": "authentic",
    "msg": "messag",
    "app": "application",
    "apps": "application",
    "ci": "ci",
    "pr": "pull",
    "prs": "pull",
    "dir": "directori",
}
# Words that name no thing of their own: a decision, a plan, a setup.
_GENERIC = frozenset(
    _stem(w)
    for w in (
        "decision plan idea approach setup set-up thing things usage way choice option region "
        "zone "
        "whole entire old new current existing previous"
    ).split()
)
# Verbs the parser's tables do not know, frequent in coding notes.
_MORE_VERBS = frozenset(
    _stem(w)
    for w in (
        "use uses used run runs ran take takes took finish finishes finished answer answers "
        "answered listen listens need needs ship ships shipped sit sits scale scales go goes "
        "went call calls called manage managed provision provisioned store stored live lives "
        "point points expire expires cap capped set keep keeps stay stays return returns "
        "become became talk talks serve serves host hosted handle handles make makes get gets "
        "hold holds deploy deploys deployed build builds built"
    ).split()
)
_VERBISH = _VERB_STEMS | _MORE_VERBS | _NEUTRAL
_ABBREVIATIONS = {k: _stem(v) for k, v in _ABBREVIATIONS.items()} | {
    _stem(v): _stem(v) for v in _ABBREVIATIONS.values()
}


def _key(stem: str, low: str) -> str:
    """One spelling for a word: abbreviations and their long forms meet."""
    return _ABBREVIATIONS.get(low, _ABBREVIATIONS.get(stem, stem))


def _same(a: str, b: str) -> bool:
    """Whether word key ``a`` is found as ``b``: equal, one a long prefix of the other
    ("expir"/"expiri", "evaluat"/"evaluation"), or a plain word that is a part of the
    identifier ``b`` ("go" of "go-version", "ci" of "ci.yml")."""
    if a == b:
        return True
    # Directional: ``a`` is found in ``b``. A word is found in an identifier that holds it;
    # an identifier only in itself ("api.acme.io" is not found in "api").
    if _IDENT.search(a):
        return False
    if _IDENT.search(b):
        return a in _parts(b)
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 5 and long_.startswith(short)


# Parts of an identifier that name no thing: extensions, domains, "version".
_TRIVIAL_PARTS = frozenset(
    "yml yaml json toml py ts js rb md cfg io com dev version versions".split()
)


@lru_cache(maxsize=4096)
def _parts(ident: str) -> frozenset[str]:
    parts = {_key(_stem(x), x) for x in re.split(r"[-_./:@#]+", ident) if len(x) > 1}
    return frozenset(parts - _TRIVIAL_PARTS)


def _minus(a: set[str], b: set[str]) -> set[str]:
    """The words of ``a`` not found in ``b``; an identifier is found when it is there, or
    when every part of it is ("PAYMENTS_HTTP_TIMEOUT" beside "payments", "HTTP", "timeout")."""
    return {x for x in a if not _found(x, b)}


def _found(x: str, b: set[str]) -> bool:
    if any(_same(x, y) for y in b):
        return True
    if _IDENT.search(x) and not any(_IDENT.search(y) for y in b):
        # Only where the other side names no identifier of its own: "config/sidekiq.yml"
        # and "config/sidekiq_mailers.yml" are two files, not one spelled twice.
        parts = _parts(x)
        return bool(parts) and all(any(_same(p, y) for y in b) for p in parts)
    return False


def _meet(a: set[str], b: set[str]) -> set[str]:
    return {x for x in a if any(_same(x, y) for y in b)}


@dataclass(frozen=True)
class _Words:
    """The keyed content words of a clause, which of them stand before its verb, and which
    are verbs or carry no slot; ``verb`` is the first verb's family."""

    all: frozenset[str]
    subject: frozenset[str]
    verbs: frozenset[str]
    verb: str | None = None

    @property
    def nouns(self) -> frozenset[str]:
        return self.all - self.verbs


_TOKEN = re.compile(r"[#@]?[\w][\w.\-/@:+#]*")


@lru_cache(maxsize=4096)
def _words(text: str) -> _Words:
    p = _parse(text)
    verb_at = _verb_index(p.low, p.stems)
    keys: set[str] = set()
    subject: set[str] = set()
    verbs: set[str] = set()
    for i, (low, stem) in enumerate(zip(p.low, p.stems, strict=True)):
        if stem not in p.content or _QUANTITY_TOKEN.fullmatch(low) or low.startswith("#"):
            continue
        if low in _SECONDS or low in _BYTES or low in _TIME_WORDS:
            continue  # units ("an hour") and time prepositions carry no slot
        key = _key(stem, low)
        keys.add(key)
        participle = (
            verb_at is not None
            and i == verb_at + 1
            and p.low[verb_at] in _AUXILIARIES
            and len(low) > 4
            and low.endswith(("ed", "en", "wn"))
        )
        if low.endswith("ly") or i == verb_at or participle:
            # the verb ("was rewritten" too), and adverbs ("nightly"): no thing to swap
            verbs.add(key)
        elif verb_at is not None and i < verb_at:
            subject.add(key)  # "the shipping service": a noun, whatever its verb reading
        elif _verbish(p.low, p.stems, i) and low not in p.names:
            verbs.add(key)  # "is Memcached": a name, not a past form
    verb = None
    if verb_at is not None:
        at = verb_at
        nxt = p.low[at + 1] if at + 1 < len(p.low) else ""
        if p.low[at] in _AUXILIARIES and (
            p.stems[at + 1 : at + 2]
            and p.stems[at + 1] in _VERBISH
            or len(nxt) > 4
            and nxt.endswith(("ed", "en"))
        ):
            at += 1  # "was rewritten", "are cached": the participle is the predicate
        vs = p.stems[at]
        verb = "be" if p.low[at] in _COPULA else _FAMILY.get(vs, vs)
    return _Words(frozenset(keys), frozenset(subject), frozenset(verbs), verb)


_TIME_WORDS = frozenset("after before until during since ago".split())
_COPULA = frozenset("is are was were be been 's".split())
_AUXILIARIES = _COPULA | frozenset("has have had do does did can must may got gets".split())
_DETERMINERS = frozenset("the a an our their its his her my your this that these those".split())


def _verbish(low: tuple[str, ...], stems: tuple[str, ...], i: int) -> bool:
    """A verb reading at ``i``: a known verb or a past form not after a determiner."""
    if i > 0 and low[i - 1] in _DETERMINERS:
        return False  # "the shipping service", "the deploys"
    return stems[i] in _VERBISH or (low[i].endswith("ed") and len(low[i]) > 4)


def _verb_index(low: tuple[str, ...], stems: tuple[str, ...]) -> int | None:
    """Where the clause's verb is: the first auxiliary or verb reading after the subject
    (index 0 for a subject-less note: "Switched the workspace to pnpm")."""
    for i, tok in enumerate(low):
        if tok in _AUXILIARIES or (tok in _STOP and tok in ("will", "should")):
            return i
        if tok.endswith("ing") and i > 0:
            continue  # "the legacy reporting service": an -ing form is no finite verb
        if stems[i] in _VERBISH and tok not in _STOP and (i == 0 or _verbish(low, stems, i)):
            if i > 0 and (low[i - 1] in _DETERMINERS or low[i - 1].endswith("ly")):
                continue  # "the deploys", "the nightly build"
            nxt = low[i + 1] if i + 1 < len(low) else ""
            if i > 0 and (nxt in _AUXILIARIES or nxt.endswith("s") and stems[i + 1] in _VERBISH):
                continue  # "the build takes", "builds run": the next word is the verb
            return i
        if (
            i > 0
            and tok.endswith(("ed", "es"))
            and low[i - 1] not in _DETERMINERS
            and (tok.endswith("ed") or low[i - 1] not in _STOP)
            and len(tok) > 4
            and stems[i] not in _KNOWN_NOUNS
        ):
            return i
    return None


_KNOWN_NOUNS = frozenset(
    _stem(w)
    for w in "services changes images nodes files types "
    "messages pages queues caches releases databases".split()
)


def _mover_elsewhere(subject: str, old: str) -> bool:
    """Whether the thing a "moved from X to Y" sentence moved (its subject, ``subject``) is
    named and shares no word with the old fact: X was that thing's place, not the old
    fact's ("The nightly CRM job was moved from cron" leaves "the log rotation cron")."""
    said = _words(subject).all - _AGENT
    return bool(said) and not said & _words(old).all


def _other_subjects(o: _Words, n: _Words) -> bool:
    """Each sentence keeps a noun the other lacks, and both sit in the subjects: two things
    ("the staging cluster" / "the production cluster")."""
    only_o = _minus(set(o.nouns), set(n.all))
    only_n = _minus(set(n.nouns), set(o.all))
    return bool(only_o & o.subject and only_n & n.subject)


def _two_scopes(o: _Words, n: _Words) -> bool:
    """Each sentence keeps a noun the other lacks, wherever it stands."""
    return bool(_minus(set(o.nouns), set(n.all)) and _minus(set(n.nouns), set(o.all)))


# --------------------------------------------------------------------------- renames

_NP = r"(?:the |our |a |an )?(?P<src>[#@\w][\w.\-/@:#]*(?: [\w.\-/@:#]+){0,3}?)"
_DST = r"(?P<dst>[#@\w][\w.\-/@:#]*(?: [\w.\-/@:#]+){0,4})"
_RENAMES = tuple(
    re.compile(p)
    for p in (
        rf"\brenamed {_NP} (?:to|into|as) {_DST}",
        rf"^{_NP} (?:was |were |is |are |has been |have been |got |gets )?renamed "
        rf"(?:to|into|as) {_DST}",
        rf"^{_NP} (?:is|are) now (?:called|named|known as) {_DST}",
        rf"^(?P<src>[\w.\-/@:#]*[/_.][\w.\-/@:#]*) (?:became|becomes|turned into) {_DST}",
        rf"^{_NP} (?:was |were |got |has been )?renamed(?P<dst>)\b",
    )
)
_MOVES = tuple(
    re.compile(p)
    for p in (
        rf"\b(?:moved|relocated) {_NP} (?:over )?(?:to|into|under|onto) {_DST}",
        rf"^{_NP} (?:was |were |has been |have been |got |is |are )?(?:moved|relocated) "
        rf"(?:over )?(?:to|into|under|onto) {_DST}",
    )
)
# Where a thing is: the old fact must say so for a move to end it ("at 09:00" is a time).
_LOCATION = re.compile(
    r"\b(?:(?:(?:in|at|under|inside)\s+|on\s+(?=the |a |an |our |its ))(?:the |a |an |our |its )?"
    r"(?![\d:]+\b)"
    r"(?!(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|"
    r"autumn|fall|winter|the (?:morning|evening|afternoon|past|end|meantime))\b)[a-z#@]"
    r"|lives?\b|located|stored|hosted|sits?\b|kept|served from)"
)
# What a thing is called: "The repository is called reasongraph".
_NAMING = re.compile(r"\b(?:is|are|was) (?:called|named|known as)\b")
_IDENT = re.compile(r"[/_.:@#]|\w-\w")


def _tokens(text: str) -> list[str]:
    return [t.strip(".:") for t in _TOKEN.findall(text.lower())]


def _core(token: str) -> str:
    """An identifier without its folders and extension: "dags/dbt_nightly.py" -> "dbt_nightly"."""
    base = token.rstrip("/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if re.search(r"\.[a-z]{1,4}$", base) else base


def _mentions(phrase: str, clause: str) -> bool:
    """Whether ``clause`` names what ``phrase`` names: its identifiers (a path matches its
    file name), else every content word of the phrase."""
    toks = _tokens(phrase)
    idents = [t for t in toks if _IDENT.search(t)]
    have = _tokens(clause)
    if idents:
        bases = {t.rsplit("/", 1)[-1] for t in have if t}
        return all(t in have or t.rsplit("/", 1)[-1] in bases for t in idents)
    words = {_key(_stem(t), t) for t in toks if t not in _STOP}
    return bool(words) and not _minus(words, set(_words(clause).all))


def _exactly_in(phrase: str, clause: str) -> bool:
    """Whether the phrase's identifiers (or, without any, its words) occur in the clause."""
    idents = [t for t in _tokens(phrase) if _IDENT.search(t)]
    if idents:
        return all(t in _tokens(clause) for t in idents)
    return _mentions(phrase, clause)


def _after_verb(phrase: str, clause: str) -> bool:
    """Whether the phrase's words stand after the clause's verb (in what it states), not
    only in its subject."""
    w = _words(clause)
    toks = _tokens(phrase)
    idents = {t for t in toks if _IDENT.search(t)}
    if idents:
        p = _parse(clause)
        verb_at = next((i for i, s in enumerate(p.stems) if s == p.verb), 0)
        return any(
            i >= verb_at
            and (t in idents or t.rsplit("/", 1)[-1] in {x.rsplit("/", 1)[-1] for x in idents})
            for i, t in enumerate(p.low)
        )
    keys = {_key(_stem(t), t) for t in toks if t not in _STOP}
    return bool(_minus(_meet(set(w.all), keys), set(w.subject)))


# Past events stay history; a past decision or choice is a standing state.
_PAST_EVENT = re.compile(
    r"^\s*(?:[\w.\-/@#']+\s+){1,5}?(?:\w+ed|ran|wrote|broke|took|made|"
    r"built|found|sent|gave|led|began|caused)\b",
    re.IGNORECASE,
)
_CHOICE = re.compile(
    r"\b(?:decided|agreed|chose|picked|went with|settled|standardi[sz]ed|"
    r"switched|moved|migrated|adopted|selected|opted|"
    # a setting that holds: "api-gateway pinned to node 18.19", "workers capped at 8"
    r"pinned|capped|locked|configured|limited|restricted|hard-?coded|defaulted)\b",
    re.IGNORECASE,
)


def past_event(clause: str) -> bool:
    """Whether the clause reports something that happened ("Tom fixed the bug in March",
    "The legacy service caused the outage"), not a state or a choice that still holds."""
    w = _words(clause)
    if w.verb in (None, "be") or _CHOICE.search(clause):
        return False
    p = _parse(clause)
    low = clause.lower().replace("\u2019", "'")
    return p.past and not re.search(r"\b(?:is|are|has|have)\b|'(?:re|s|ve)\b", low)


def _each_clause(rule: Callable[[str, str, str], str | None]) -> Callable[[str, str], str | None]:
    """Run ``rule(old, new, clause)`` on each clause of the new fact, the main one first:
    coding notes often state the change after a dash or a semicolon ("Finished the Rails
    upgrade - Gemfile.lock pins rails 7.1.3 now")."""

    @wraps(rule)
    def run(old: str, new: str) -> str | None:
        for clause in _new_clauses(new):
            got = rule(old, new, clause)
            if got:
                return got
        return None

    return run


_CLAUSE_BREAK = re.compile(r"\s*;\s*|\s+[\u2014\u2013-]+\s+|:\s+|,\s+(?:so|and|which means)\s+")


@lru_cache(maxsize=8192)
def _new_clauses(new: str) -> tuple[str, ...]:
    main = _main_clause(new)
    out = [main]
    for part in _CLAUSE_BREAK.split(new.strip())[1:]:
        clause = _main_clause(part)
        if clause and clause not in out and len(clause.split()) >= 3:
            out.append(clause)
    return tuple(out)


@_each_clause
def renamed(old: str, new: str, clause: str) -> str | None:
    """The new fact renames or moves a thing that the old one names or places."""
    lo = _main_clause(old)
    if past_event(lo):
        return None
    ln = clause.lower().replace("\u2019", "'")
    for rx, move in [(r, False) for r in _RENAMES] + [(r, True) for r in _MOVES]:
        m = rx.search(ln)
        if not m:
            continue
        src, dst = m.group("src").strip(" ,"), m.group("dst").strip(" ,.")
        if not _mentions(src, lo):
            continue
        if not move and not _after_verb(src, lo) and not _NAMING.search(lo.lower()):
            continue
        if move:
            if not _LOCATION.search(lo.lower()) or _exactly_in(dst, lo):
                continue
            if _other_subjects(_words(src), _words(lo)):
                continue
            moved_from = "from " in ln[m.start():m.start("src")] or src.startswith("from ")
            if moved_from and _mover_elsewhere(ln[:m.start()], lo):
                continue  # "The CRM job was moved from cron": the old place, another thing
        return f"{'moved' if move else 'renamed'}: {src} -> {dst}"
    return None


# --------------------------------------------------------------------------- retirements

_X = (
    r"(?:the |our |a |an |all |its |any |of )?(?:last |old )?"
    r"(?P<x>[#@\w][\w.\-/@:#+]*(?: [\w.\-/@:#+]+){0,6}?)"
)
_END = (
    r"(?=$|[,;.)]| (?:for|in|from|because|after|since|and|as|on|at|with|to|so|but|now|must|"
    r"should|will|can|is|are|was|were|that|which|who|today|yesterday|tonight|this week)\b)"
)
_RETIRE_VERBS = (
    r"dropped|removed|deleted|retired|decommissioned|scrapped|ripped out|got rid of|killed|"
    r"sunset|stopped using|stopped|no longer use|no longer uses|no longer need|moved off(?: of)?|"
    r"moved away from|migrated off(?: of)?|reversed|abandoned|reverted|backed out|"
    r"decided against|gave up on|turned off|phased out|ditched|archived|uninstalled|"
    r"shut down|tore down|torn down"
)
_RETIRED_STATES = (
    r"gone|dropped|removed|deleted|retired|decommissioned|scrapped|archived|dead|sunset|"
    r"turned off|shut down|ripped out|abandoned|reverted|phased out|uninstalled|history|"
    r"no more|over|lifted|torn down|off the table|closed|cancell?ed|disabled|deactivated|"
    r"switched off|killed|unsupported|end-of-life|eol|out"
)
_BARE_RETIRED = (
    r"deleted|removed|dropped|decommissioned|retired|uninstalled|scrapped|ripped out|archived|"
    r"disabled|deactivated|killed|sunset|phased out|torn down|shut down|turned off|switched off"
)
_RETIRED_OTHER = (
    r"wyłączon[yaei]|usunięt[yaei]|zarchiwizowan[yaei]|wycofan[yaei]|zniesion[yaei]|"
    r"uitgezet|verwijderd|gearchiveerd|opgeheven|afgeschaft|uitgefaseerd|"
    r"abgeschaltet|entfernt|gelöscht|archiviert|aufgehoben|abgeschafft|stillgelegt|"
    r"éteinte?s?|supprimée?s?|retirée?s?|archivée?s?|abandonnée?s?|levée?s?|décommissionnée?s?|"
    r"desligad[oa]s?|removid[oa]s?|arquivad[oa]s?|eliminad[oa]s?|apagad[oa]s?|desativad[oa]s?|"
    r"desactivad[oa]s?|retirad[oa]s?|dad[oa]s? de baja|"
    r"eliminat[oa]|rimoss[oa]|spent[oa]|archiviat[oa]|dismess[oa]|disattivat[oa]|"
    r"kaldırıldı|kapatıldı|silindi|kalktı|emekliye ayrıldı"
)
_BARE_END = (
    r"(?=$|[,;.)!]| [\u2014-] | (?:in|from|after|since|and|as|on|at|with|so|but|now|for|"
    r"because|today|yesterday|tonight|this|last)\b)(?! (?:to|by|from) [~\d])"
)
_RETIRES = tuple(
    re.compile(p)
    for p in (
        # The verb opens a clause ("Dropped X", "..., then removed X") or follows its
        # subject ("we dropped X"): "the archived layout" is an adjective, not a retirement.
        rf"(?:^|[,;:]\s*|\u2014\s*|\b(?:we|i|they|you|team|have|has|had|finally|just|also|"
        rf"then|and|officially) )(?:{_RETIRE_VERBS}) {_X}{_END}",
        rf"\b(?:ripped|took|pulled|threw|phased|yanked) {_X} out\b",
        rf"(?:^|, |; |: |\u2014 |- |\band (?:the |our |its )?){_X} (?:is|are|was|were|has been|"
        rf"have been|got|gets) "
        rf"(?:now |finally |officially |all |permanently )?(?:{_RETIRED_STATES})\b",
        rf"\bno {_X} (?:left|remaining|anymore|any more)\b",
        rf", (?:and |but )?(?:not|no longer|no more) {_X}$",
        rf"\bno more {_X}{_END}",
        # A note's participle with no auxiliary ("webpack.config.js deleted", "concurrency
        # cap removed", "the fluentd daemonset gone"): it ends the clause, or a place or a
        # time follows; not an amount that fell ("p99 dropped to 35ms").
        rf"(?:^|[,;:]\s*|\u2014\s*|\band )(?:the |our |all |its |that |those )?"
        rf"(?P<x>[#@\w][\w.\-/@:#+]*(?: [\w.\-/@:#+]+){{0,3}}?) "
        rf"(?:officially |finally |now |just |also |completely |entirely )?"
        rf"(?:{_BARE_RETIRED}){_BARE_END}",
        # The same in the other languages the notes are written in, the participle after its
        # thing, with or without the auxiliary: "RabbitMQ wyłączony w zeszłym tygodniu", "de
        # Jenkins-server is uitgezet", "le scheduler Airflow est éteint", "die malloc-Regel
        # ist aufgehoben", "bakım penceresi şartı kalktı".
        rf"(?:^|[,;:(]\s*|\u2014\s*)(?:(?:the|der|die|das|le|la|les|l'|el|los|las|o|a|os|as|il|"
        rf"lo|gli|i|de|het|een) )?(?P<x>[#@\w][\w.\-/@:#+']*(?: [\w.\-/@:#+']+){{0,3}}?) "
        rf"(?:(?:is|ist|sind|est|sont|a été|ont été|está|están|es|fue|fueron|são|é|foi|foram|"
        rf"è|sono|è stato|è stata|wurde|wurden|werden|worden|wordt|zijn|został|została|zostały|"
        rf"jest|są) )?(?:completamente |definitief |endgültig |définitivement |)"
        rf"(?:{_RETIRED_OTHER})(?=$|[,;.)!]| [^\d\s])",
    )
)
# Words that make a span before a participle a clause, not a thing: "... can be deleted".
_NOT_A_THING = frozenset(
    "can could should will would must may might be been being is are was were not to we i "
    "you they it he she".split()
)


@lru_cache(maxsize=8192)
def _retired_things(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The things a sentence says are retired, dropped or reversed, each with the names it
    holds (read from the text as written: "CloudFormation", "iOS")."""
    raw = text.replace("\u2019", "'").strip().rstrip(".")
    low = raw.lower()
    out = []
    for rx in _RETIRES:
        for m in rx.finditer(low):
            a, b = m.span("x")
            lead = re.match(r"(?:and|but|then|also) (?:the |our |its )?", low[a:b])
            if lead and lead.end() < b - a:
                a += lead.end()  # ", and the terraform binary is removed"
            if set(low[a:b].split()) & _NOT_A_THING:
                continue
            thing = low[a:b].strip()
            out.append((thing, _parse(raw[a:b]).names | _parse(text).names & set(_tokens(thing))))
    return tuple(out)


def retired(old: str, new: str) -> str | None:
    """The new fact retires a thing that the old one uses, chose or depends on."""
    things = _retired_things(new)
    if not things or past_event(_main_clause(old)) or _REQUEST.search(old):
        return None  # history, or a request ("Add X to .gitignore"): nothing that runs on
    lo = _main_clause(old) if len(_words(_main_clause(old)).all) > 1 else old
    ow, full_o = _words(lo), _words(old)
    if _parse(new).neg and not re.search(r"\b(?:no longer|no more|not)\b", new.lower()):
        return None
    old_things = [t for t, _ in _retired_things(old)]
    old_tokens = set(_tokens(old))
    old_cores = {_core(x) for x in old_tokens}
    # The words an identifier of the old fact is made of: "the offset helper is deleted"
    # names the helper `paginate_offset(...)` by "offset".
    old_parts = {p for x in old_tokens if _IDENT.search(x)
                 for p in re.split(r"[._\-/:@#]+", _core(x)) if len(p) > 2}
    old_names = {x for x in _parse(old).names if len(x) > 2}

    def old_name(token: str) -> bool:
        """A name the old fact writes as one, typed in lower case ("the fluentd daemonset"),
        or heading an identifier of its own ("webpack.config.js" for Webpack)."""
        return token in old_names or re.split(r"[._\-]", token)[0] in old_names

    for thing, names in things:
        tw = _words(thing)
        toks = _tokens(thing)
        idents = {t for t in toks if _IDENT.search(t)}
        distinct = set(tw.all) - _GENERIC - tw.verbs
        distinct |= {t for t in toks if re.fullmatch(r"v?\d+(?:\.\d+)*", t)}
        if not distinct and not idents:
            continue
        if any(f" {t} " in f" {thing} " for t in old_things):
            continue  # the old fact already said so
        words_in = _meet(distinct - {t for t in distinct if t[:1].isdigit()}, set(full_o.all))
        nums_in = {t for t in distinct if t[:1].isdigit() and t in _tokens(old)}
        idents_in = {t for t in idents if _core(t) in old_cores or old_name(t)}
        idents_in |= {t for t in distinct if t in old_parts}
        found = words_in | nums_in | idents_in
        named = {x for x in names if x in old_tokens} | {t for t in toks if old_name(t)}
        numbers = {t for t in toks if re.fullmatch(r"v?\d+(?:\.\d+)*", t)}
        if numbers - old_tokens:
            continue  # "iOS 12 support" is not the "iOS" of the old fact
        if not named and (
            len(found) < min(2, len(distinct | idents)) or len(found) * 2 < len(distinct | idents)
        ):
            continue  # the old fact does not name this thing
        if named and len(distinct | idents) > 2 and len(found) * 2 < len(distinct | idents):
            continue  # a name that only qualifies it: "the Zustand filters store" is not
            # the "useSessionStore (Zustand)" of the old fact
        # It must be what the old fact uses or chose, not only its subject.
        if (
            not _minus(_meet(set(ow.all), found), set(ow.subject))
            and not (idents_in or nums_in)
            and not _minus(_meet(set(full_o.all), found), set(_words(_main_clause(old)).all))
        ):
            continue
        # "We use real databases in integration tests, not mocks" keeps "mocks in unit tests":
        # apart from the retired thing, each clause keeps a word of its own.
        rest_o = _minus(set(ow.nouns), set(tw.all) | set(_words(new).all))
        rest_n = _minus(set(_words(_main_clause(new)).nouns), set(full_o.all) | set(tw.all))
        if rest_o and rest_n - _GENERIC and re.search(r",\s*(?:and |but )?not\b", new):
            continue
        return f"retired: {thing}"
    return None


# --------------------------------------------------------------------------- quantities

_SECONDS = {
    "ms": 0.001,
    "millisecond": 0.001,
    "milliseconds": 0.001,
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "week": 604800,
    "weeks": 604800,
    "wk": 604800,
    "month": 2592000,
    "months": 2592000,
}
# No single letters: "20B" is as often a model's parameter count as a size.
_BYTES = {
    "kb": 1e3,
    "mb": 1e6,
    "gb": 1e9,
    "tb": 1e12,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
    "ki": 1024,
    "mi": 1024**2,
    "gi": 1024**3,
}
# "100 req/min", "60 requests per minute", "20 rps": amounts per second.
_RATE = re.compile(
    r"\s*(?:[a-z]+\s*)?(?:/|per\s+)(?P<per>s|sec|second|m|min|minute|h|hour|d|day)\b"
)
_MAX_WORDS = 9  # content words of a clause that states one value
_MONTH_NAMES = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_WORD_NUMBERS = dict(_NUMBER_WORDS) | {"a": "1", "an": "1", "half": "0.5"}
_NUM = r"\d+(?:[.,_]\d+)*"
_QUANTITY_TOKEN = re.compile(rf"v?{_NUM}[a-z%]*|\d{{1,2}}:\d{{2}}")
_AMOUNT = re.compile(
    rf"(?<![\w.#\-/])(?P<num>v?{_NUM}|{'|'.join(sorted(_WORD_NUMBERS, key=len, reverse=True))})"
    rf"(?P<unit>[a-z%]+)?(?:\s+(?P<next>[a-z%]+))?(?!\w|\.\w)"
)
_TIME_OF_DAY = re.compile(r"(?<![\w:])(\d{1,2}):(\d{2})(?:\s*(am|pm))?\b")
_RELATIVE = re.compile(
    r"\b(?:doubled|halved|tripled|quadrupled|cut in half|raised|lowered|increased|decreased|"
    r"reduced|bumped up|bumped|turned (?:up|down)|dialed (?:up|down)|dialled (?:up|down))\b"
)
_FROM_TO = re.compile(rf"\bfrom (?P<a>v?{_NUM}) (?:\w+ )?to (?P<b>v?{_NUM})")
# Words after a number that are not what it counts.
_NOT_COUNTED = frozenset(_STOP) | {
    "now",
    "after",
    "since",
    "before",
    "again",
    "instead",
    "yet",
    "today",
    "per",
    "out",
    "up",
    "down",
    "max",
    "total",
}


@dataclass(frozen=True)
class _Amount:
    dimension: str  # "s", "bytes", "time", "%", "ver:<name>", "ver", "port", or what it counts
    value: float | str


@lru_cache(maxsize=8192)
def _amounts(text: str) -> tuple[_Amount, ...]:
    """The amounts a clause states, each with its dimension, in base units."""
    low = text.lower().replace("\u2019", "'")
    out: list[_Amount] = []
    spans: list[tuple[int, int]] = []
    for m in _TIME_OF_DAY.finditer(low):
        h = (
            int(m.group(1)) % 12 + (12 if m.group(3) == "pm" else 0)
            if m.group(3)
            else int(m.group(1))
        )
        out.append(_Amount("time", f"{h:02d}:{m.group(2)}"))
        spans.append(m.span())
    for m in _AMOUNT.finditer(low):
        if any(a <= m.start() < b for a, b in spans):
            continue
        num, unit = m.group("num"), (m.group("unit") or "")
        nxt = m.group("next") or ""
        before = low[: m.start()].split()
        prev = before[-1].strip(",") if before else ""
        if nxt in _MONTH_NAMES or prev in _MONTH_NAMES:
            out.append(_Amount("date", f"{num} {nxt if nxt in _MONTH_NAMES else prev}"))
            continue
        if not unit and nxt in _SECONDS | _BYTES or nxt in ("%", "percent"):
            unit = nxt  # "7 days", "512 MB"
        elif not unit and nxt not in _NOT_COUNTED:
            unit = nxt  # what it counts: "5 threads", "3 replicas"
        if num in _WORD_NUMBERS:
            if m.group("unit"):
                continue  # "and", "as", "am" are words, not "an d" or "a s"
            if unit not in _SECONDS and unit not in _BYTES:
                continue  # "a" or "two" counts something only with a unit we know
            num = _WORD_NUMBERS[num]
        if num.startswith("v") or (num.count(".") and not unit) or num.count(".") > 1:
            # What it is the version of: the nearest word before it that is no verb
            # ("Django is pinned at 4.2" -> django).
            name = next(
                (
                    w
                    for w in map(_bare, reversed(before[-4:]))
                    if w and w not in _STOP
                    and not w[:1].isdigit()
                    and w not in ("now", "at", "to", "on")
                    and not w.endswith("ed")
                    and _stem(w) not in _VERBISH
                ),
                "",
            )
            out.append(
                _Amount(f"ver:{_key(_stem(name), name)}" if name else "ver", num.lstrip("v"))
            )
            continue
        value = float(num.replace(",", "").replace("_", ""))
        rate = _RATE.match(low, m.end("num"))
        if rate:
            out.append(_Amount("rate", value / _SECONDS[rate.group("per")]))
            continue
        if unit in _SECONDS:
            out.append(_Amount("s", value * _SECONDS[unit]))
        elif unit in _BYTES:
            out.append(_Amount("bytes", value * _BYTES[unit]))
        elif unit in ("%", "percent"):
            out.append(_Amount("%", value))
        elif prev == "port" or (prev in ("on", ":") and 1000 <= value <= 65535 and not unit):
            out.append(_Amount("port", value))
        elif prev in _NAMED_VERSION_HOSTS or (before and _is_name_word(before[-1])):
            name = before[-1]
            out.append(_Amount(f"ver:{_key(_stem(name), name)}", num))
        elif unit and unit not in _NOT_COUNTED and not unit[:1].isdigit():
            out.append(_Amount(_key(_stem(unit), unit), value))
        else:
            out.append(_Amount("count", value))
    return tuple(out)


def _bare(word: str) -> str:
    """A word without the pin or quote glued to it: "torch==" and "`torch" are "torch", so a
    version pinned as ``torch==2.1.2`` and one said as "torch up to 2.4.1" name one thing."""
    parts = [p for p in re.split(r"[=<>~!@^`'\"(),:]+", word) if p]
    return parts[-1] if parts else ""


_NAMED_VERSION_HOSTS = frozenset(
    "node python java go ruby php rust kotlin swift ios android "
    "postgres postgresql mysql redis kubernetes k8s terraform "
    "django rails react vue angular flutter dotnet .net".split()
)


def _versions_not_labels(labels: frozenset[str], raw: str) -> bool:
    """Whether every numbered subject is a runtime or tool with its version, written as its
    name ("Node 18"), not one of several numbered things ("Service 3", "staging node 2")."""
    hosts = {_stem(h): h for h in _NAMED_VERSION_HOSTS}
    for label in labels:
        host = hosts.get(label.split("#")[0])
        if host is None or not re.search(rf"\b{host[0].upper()}{host[1:]}\w*\s+v?\d", raw):
            return False
    return True


def _is_name_word(word: str) -> bool:
    return word in _NAMED_VERSION_HOSTS


def _by_dimension(amounts: tuple[_Amount, ...]) -> dict[str, set[float | str]]:
    out: dict[str, set[float | str]] = {}
    for a in amounts:
        out.setdefault(_tool_dimension(a.dimension), set()).add(a.value)
    return out


# One tool by the names notes give it: "Next.js 13.4" / "next@14.1.0", "PyTorch 2.0.1" /
# "torch==2.3.1", "Node.js 18" / "node 20", "PostgreSQL 13" / "postgres 16".
_TOOL_ALIASES = {
    "nodejs": "node", "torch": "pytorch", "postgres": "postgresql", "psql": "postgresql",
    "golang": "go", "k8s": "kubernetes", "py": "python", "cpython": "python",
    "tf": "terraform", "ts": "typescript", "rustc": "rust", "openjdk": "java", "jdk": "java",
}


def versioned_tools(text: str) -> frozenset[str]:
    """The tools ``text`` gives a version of, each by its one key ("ver:next", "ver:pytorch")."""
    return frozenset(d for d in _by_dimension(_amounts(text)) if d.startswith("ver:"))


def _tool_dimension(dimension: str) -> str:
    """A version's dimension ("ver:<name>") with the tool's name as one key: lower case, no
    ".js" or "js" ending, a known alias resolved."""
    if not dimension.startswith("ver:"):
        return dimension
    name = dimension[4:].lower().strip(".")
    name = re.sub(r"\.?js$", "", name) or name
    return "ver:" + _TOOL_ALIASES.get(name, name)


# A request or an announcement of work states no value: "Make the header sticky", "Set up
# component tests", "Let me look at the Patient model".
_REQUEST = re.compile(
    r"^\s*(?:please\s+)?(?:let me|let's|can you|could you|i need|we need|i want|set up|"
    # an imperative verb before its object: "Add the logs folder", not "Build artifacts are"
    r"(?:make|add|fix|write|create|build|implement|refactor|look|check|find|investigate|help|"
    r"update|remove|move)\s+(?:the|a|an|our|this|that|it|them|some|all|at|into|up|me|us)\b)",
    re.IGNORECASE,
)
# "Some farmers upload 30 MB photos": a part of the things, not the thing's value.
_SOME = re.compile(r"^\s*(?:some|other|another|certain|a few|few|many|several|most)\b", re.I)


def _statement_pair(lo: str, ln: str) -> bool:
    """Whether the old clause states something (no request) and the new one is about the
    same things, not some of them."""
    return not _REQUEST.search(lo) and not _SOME.search(ln)


@_each_clause
def quantity_changed(old: str, new: str, clause: str) -> str | None:
    """The same attribute of the same thing with another amount."""
    lo, ln = _main_clause(old), clause
    if not _statement_pair(re.sub(r"^let me \w+ [^:]*:\s*", "", lo, flags=re.I), ln):
        return None
    if len(_words(lo).all) > _MAX_WORDS or len(_words(ln).all) > _MAX_WORDS:
        return None  # a long clause states several things: one other amount is no update
    lo_labels, ln_labels = _parse(lo).labels, _parse(ln).labels
    if (
        lo_labels
        and ln_labels
        and lo_labels != ln_labels
        and not (
            _versions_not_labels(lo_labels | ln_labels, lo + " " + ln)
            and not re.search(r"\d+ of\b", lo + " " + ln)
        )
    ):
        return None  # "Service 3" / "Service 4", "Node 2 of the cluster": two things
    qo, qn = _by_dimension(_amounts(lo)), _by_dimension(_amounts(ln))
    if qo and not qn and _RELATIVE.search(ln.lower()):
        # "parallelism was doubled", "the pool size got cut in half": a new amount, unsaid.
        o, n = _words(lo), _words(ln)
        if _meet(set(o.nouns), set(n.nouns)) and not _two_scopes(o, n):
            return f"value changed: {_RELATIVE.search(ln.lower()).group()}"
        return None
    if not qo or not qn:
        return None
    every_new = {v for a in _amounts(new) for v in [a.value]}
    from_to = _FROM_TO.search(new.lower())
    dims = qo.keys() & qn.keys()
    if not dims and len(qo) == 1 and len(qn) == 1:
        # "capped at 3" / "up to 5 times", "port 8080" / "on 9090": one bare count each side.
        (do, vo), (dn, vn) = next(iter(qo.items())), next(iter(qn.items()))
        if "count" in (do, dn) or {do, dn} == {"port", "count"}:
            dims = {"*"}
            qo, qn = {"*": vo}, {"*": vn}
        elif do.startswith("ver") and dn.startswith("ver") and len(vo) == len(vn) == 1:
            # "The Go toolchain in CI is 1.20" / "Bumped go-version in ci.yml to 1.22": one
            # version each side, named by other words; the frame must then match.
            dims = {"ver"}
            qo, qn = {"ver": vo}, {"ver": vn}
    changed = None
    named = False
    for dim in sorted(dims):
        before, after = qo[dim], qn[dim]
        if before == after:
            continue
        restated = before & every_new
        if restated and not (from_to and str(from_to.group("a")) in {_fmt(v) for v in before}):
            continue  # the old amount still holds beside the new one
        changed = (
            f"{'/'.join(sorted(_fmt(v) for v in before))} -> "
            f"{'/'.join(sorted(_fmt(v) for v in after))}"
        )
        named = dim.startswith("ver:")
        break
    if changed is None:
        return None
    o, n = _words(lo), _words(ln)
    if not (set(o.nouns) & set(n.nouns)) and not _meet(set(o.nouns), set(n.nouns)):
        return None  # nothing but the amount in common
    subject_nouns = {w for w in set(o.subject) - set(o.verbs) if not _IDENT.search(w)}
    if subject_nouns and not _meet(subject_nouns, set(_words(new).all)):
        return None  # "The library supports 3.10" / "bumped the API service to 3.12"
    if named:
        # A named tool's version ("Rails 6.1" / "rails 7.1.3"): a file that records it
        # ("Gemfile.lock pins ...") is no other subject; another service is.
        so = {w for w in _minus(set(o.subject), set(n.all)) if not _IDENT.search(w)}
        sn = {w for w in _minus(set(n.subject), set(o.all)) if not _IDENT.search(w)}
        if so and sn:
            return None
    elif _two_scopes(o, n):
        return None  # each keeps a noun of its own: another attribute or another thing
    return f"value changed: {changed}"


def amounts_comparable(old: str, new: str) -> bool:
    """Whether the amounts of two sentences can be one slot's values: no amount on one side,
    or a dimension in common ("7 days" / "24 hours"), or one bare count beside one amount.
    "Redis 6.2" and "Kubernetes 1.28", or "3 nodes" and "1.28", cannot."""
    lo = _main_clause(old)
    return any(_comparable(lo, clause) for clause in _new_clauses(new))


def _comparable(old: str, new: str) -> bool:
    qo, qn = _by_dimension(_amounts(old)), _by_dimension(_amounts(new))
    if not qo or not qn or qo.keys() & qn.keys():
        return True
    vo, vn = [d for d in qo if d.startswith("ver")], [d for d in qn if d.startswith("ver")]
    if vo and vn:
        # Versions of two named things ("Redis 6.2", "Kubernetes 1.28") are two slots; a
        # name the other sentence also holds ("Python services ... 3.11"), or a pin's
        # operator ("~> 1.3" / ">= 1.6"), is one, whatever else either one counts.
        wo, wn = _words(old).all, _words(new).all
        return any(_one_version_slot(a[4:], b[4:], wo, wn) for a in vo for b in vn)
    if len(qo) == 1 and len(qn) == 1:
        do, dn = next(iter(qo)), next(iter(qn))
        return "count" in (do, dn) and not ({do, dn} & {"time", "s", "bytes"} or vo or vn)
    return False


def _one_version_slot(name_o: str, name_n: str, wo: frozenset[str], wn: frozenset[str]) -> bool:
    name_o, name_n = (n if re.search(r"\w", n) else "" for n in (name_o, name_n))
    return not name_o or not name_n or name_o in wn or name_n in wo


def _fmt(v: float | str) -> str:
    if isinstance(v, float):
        return str(int(v)) if v == int(v) else str(v)
    return v


# --------------------------------------------------------------------------- object swaps

CHANGE_CUE = _CHANGED = re.compile(
    r"\b(?:now|these days|nowadays|from now on|no longer|any ?more|instead|"
    r"switch(?:ed|es)?|mov(?:ed|es)|migrat(?:ed|es)|port(?:ed)? to|rewr(?:ote|itten)|rebuilt|"
    r"replac(?:ed|es)|changed|cut over|went with|since (?:the|last|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|v?\d))\b",
    re.IGNORECASE,
)


# Predicates that state what a thing uses, runs on, is built with or talks to: two of them
# about one subject can state one slot ("uses actix-web" / "was rewritten on axum").
_STATE_VERBS = frozenset(
    [
        _FAMILY.get(_stem(w), _stem(w))
        for w in (
            "be use run host locate live store sit deploy serve ship build write rewrite "
            "rewritten rebuilt manage handle provision power talk call connect point send "
            "read hit query go"
        ).split()
    ]
    + ["be"]
)
# What a change verb changed: "switched the project's default RHI to ...".
_CHANGED_WHAT = re.compile(
    r"\b(?:switched|changed|moved|set|migrated)\s+(?P<what>(?:the |our |its )?[^,;]{2,60}?)"
    r"\s+(?:over )?to\b",
    re.IGNORECASE,
)
_MOVED = re.compile(r"\b(?:mov(?:ed|es|ing)|relocat(?:ed|es|ing))\b")
# "After the DNS cutover, ...", "Since Monday's release the ...": a state from an event on.
_SINCE_EVENT = re.compile(r"^\s*(?:after|since|following|as of|starting)\b[^,]{3,60},")


@_each_clause
def object_swap(old: str, new: str, clause: str) -> str | None:
    """An update cue and the same frame with one or two other words in what it states."""
    if not (_CHANGED.search(new.lower()) or _SINCE_EVENT.search(new.lower())):
        return None
    lo, ln = _main_clause(old), clause
    if not _statement_pair(lo, ln):
        return None
    po, pn = _parse(lo), _parse(ln)
    if po.neg or pn.neg or po.labels != pn.labels:
        return None
    o, n, full_n = _words(lo), _words(ln), _words(new)
    shared = _meet(set(o.nouns), set(n.all))
    if not shared:
        return None
    only_o = _minus(set(o.nouns), set(full_n.all))
    only_n = _minus(set(n.nouns), set(o.all)) - _GENERIC
    if not only_o or not only_n or len(only_o) > 2 or len(only_n) > 1:
        return None  # one new word in the slot; more is another attribute ("evaluation")
    subject_nouns = set(o.subject) - set(o.verbs)
    if subject_nouns and not _meet(subject_nouns, set(full_n.all)):
        return None  # "The Go services use zap" / "Logs go to Loki now": another subject
    if only_o & o.subject and only_n & n.subject:
        return None  # another subject: "the staging cluster" / "the production cluster"
    if only_o <= o.subject and not only_n & n.subject:
        return None  # the old subject's own word, and a new word in the object: no swap
    if only_n & n.subject and not only_o & o.subject:
        return None  # the new subject names something more specific ("support hours")
    if (
        shared <= (o.subject | n.subject)
        and o.verb != n.verb
        and not {o.verb, n.verb} <= _STATE_VERBS
        and not (any(_IDENT.search(x) for x in only_o) and any(_IDENT.search(x) for x in only_n))
    ):
        return None  # only the subject in common, and another predicate: another statement
    if _MOVED.search(new.lower()) and not _LOCATION.search(lo.lower()):
        return None  # a move changes where a thing is; the old fact says no place
    if changes_other_aspect(lo, ln):
        return None  # "switched the project's default RHI to DX12": another attribute
    return f"value changed: {' '.join(sorted(only_o))} -> {' '.join(sorted(only_n))}"


# --------------------------------------------------------------------------- scopes

# Qualifiers that name one of several parallel things: an environment, a region, a platform,
# a tier, a replica. The same attribute of another one is another fact, not a new value.
_SCOPES = {
    "env": "prod production staging stage stg dev development test testing qa uat sandbox "
    "preview canary local",
    "region": "eu us uk apac emea asia latam",
    "platform": "ios android web desktop mobile windows macos mac linux wasm arm64 x86 amd64",
    "tier": "frontend backend worker workers scheduler cron gateway",
    "replica": "primary replica replicas secondary leader follower",
}
_SCOPE_OF = {w: kind for kind, words in _SCOPES.items() for w in words.split()}
_SCOPE_SYNONYMS = {
    "prod": "production",
    "stage": "staging",
    "stg": "staging",
    "dev": "development",
    "testing": "test",
    "mac": "macos",
    "workers": "worker",
    "replicas": "replica",
}
_REGION = re.compile(r"\b[a-z]{2}-[a-z]+-\d\b")
# A scope word right after "is in", "moved to", "lives at" is where the thing is (a value
# that may change), not which of several things is meant.
_PLACED = re.compile(
    r"\b(?:is|are|was|were|moved|migrated|relocated|lives?|sits?|hosted|deployed|runs?|"
    r"now) (?:in|to|at|into|onto|on) (?:the )?$"
)


@lru_cache(maxsize=8192)
def _scopes(text: str) -> dict[str, set[str]]:
    low = text.lower().replace("\u2019", "'")
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"[a-z0-9]+(?:-[a-z0-9]+)*", low):
        tok = m.group()
        if _PLACED.search(low[: m.start()]):
            continue
        if _REGION.fullmatch(tok):
            out.setdefault("region", set()).add(tok)
            continue
        for part in {tok, *tok.split("-")}:
            kind = _SCOPE_OF.get(part)
            if kind:
                out.setdefault(kind, set()).add(_SCOPE_SYNONYMS.get(part, part))
    for m in _BRANCH.finditer(low):
        out.setdefault("branch", set()).add(m.group("branch") or m.group("named"))
    return out


# Branches: "on main", "into develop", "release/2.4".
_BRANCH = re.compile(
    r"(?:\b(?:on|to|into|from|in|of|off) (?P<branch>main|master|develop|trunk)\b)"
    r"|\b(?P<named>(?:release|hotfix|feature|bugfix)/[\w.\-]+)"
)


def other_scope(old: str, new: str) -> str | None:
    """Each sentence names another environment, region, platform, tier or replica of one
    kind ("the EU cluster" / "the us-east-1 cluster", "staging" / "production")."""
    so, sn = _scopes(old), _scopes(new)
    for kind in so.keys() & sn.keys():
        if so[kind] - sn[kind] and sn[kind] - so[kind]:
            return f"{'/'.join(sorted(so[kind]))} vs {'/'.join(sorted(sn[kind]))}"
    return None


# A configuration file named by its base name: "config/profiles/handheld.toml", ".env.staging".
_CONFIG_FILE = re.compile(
    r"(?<![\w.-])((?:[\w-]+\.)*[\w-]*\.(?:toml|ya?ml|json|env|ini|properties|conf|cfg|tf|tfvars|"
    r"xml|plist|gradle|kts|hcl|tpl|j2)|\.env(?:\.[\w-]+)?)\b",
    re.I,
)
# ... unless the new one moves or renames the setting (its own words: ``_MOVED`` above reads
# a move for ``object_swap``)
_SETTING_MOVED = re.compile(
    r"\b(?:mov(?:ed|es)|renam\w*|relocat\w*|split|merged|now lives?|lives? in)\b", re.I
)


def names_config_file(text: str) -> bool:
    """Whether ``text`` names a configuration file (``ledger.nomad.hcl``, ``.env.prod``)."""
    return _CONFIG_FILE.search(text) is not None


def other_file(old: str, new: str) -> str | None:
    """Each sentence sets something in a configuration file the other does not name, and the
    new one moves nothing: ``texture_pool_mb`` in arcwell.toml and in handheld.toml are two
    settings, not one changed."""
    fo = {m.group(1).lower().rsplit("/", 1)[-1] for m in _CONFIG_FILE.finditer(old)}
    fn = {m.group(1).lower().rsplit("/", 1)[-1] for m in _CONFIG_FILE.finditer(new)}
    if not (fo - fn and fn - fo) or _SETTING_MOVED.search(new):
        return None
    return f"{'/'.join(sorted(fo))} vs {'/'.join(sorted(fn))}"


# The thing a note is about, named as code or a compound name at its start ("`orders-api` runs
# on ...", "Helm values for `gateway-admin`: ..."), or a service named after "service of"
# in the languages the cues cover ("El servicio de facturación", "der Dienst für Rechnungen").
_CODE_NAME = re.compile(r"`([^`\s]{2,60})`|\b([a-z0-9]+(?:[_\-][a-z0-9]+)+)\b")
_SERVICE_OF = re.compile(
    r"\b(?:service|servicio|servizio|servi[cç]o|dienst)\s+(?:de|di|do|da|des|du|der|van|for|"
    r"of|für|voor)\s+(?:la |le |les |los |las |el |o |a |de |het |die |das |den )?(\w+)",
    re.I,
)


_FIRST_VERB = re.compile(
    r"\b(?:is|are|was|were|runs?|uses?|has|have|gets?|lives?|sits?|targets?|points?|"
    r"listens?|stays?|goes|calls?|reads?|writes?|sends?|talks?|usa|est|ist|es|está|é|"
    r"utilise|verwendet|gebruikt)\b|:"
)


@lru_cache(maxsize=4096)
def named_subjects(text: str, words: int = 6) -> frozenset[str]:
    """The code names and named services a note is about: among its first ``words`` words,
    before its first verb ("The entrypoint is `main.ts`" names a value, not a subject)."""
    head = " ".join(text.split()[:words])
    verb = _FIRST_VERB.search(head)
    head = head[: verb.start()] if verb else head
    out = {(m.group(1) or m.group(2)).lower() for m in _CODE_NAME.finditer(head)}
    out |= {"service:" + m.group(1).lower() for m in _SERVICE_OF.finditer(head)}
    return frozenset(out)


def other_subject(old: str, new: str) -> str | None:
    """Each note is about another named thing ("`orders-api` runs on Python 3.11" /
    "`inventory-worker` runs on 3.9", "gateway" / "gateway-admin"), or names another part of
    one kind anywhere (``parts``), and the new one does not name the old one's at all (a
    rename or a move names both)."""
    part = other_part(old, new)
    if part:
        return part  # "apps/web" / "apps/admin", the public API / the reporting API
    so, sn = named_subjects(old), named_subjects(new)
    if not so or not sn or so & sn:
        return None
    low_new = new.lower()
    if any(re.search(rf"(?<![\w\-]){re.escape(n.split(':')[-1])}(?![\w\-])", low_new)
           for n in so):
        return None
    return f"{'/'.join(sorted(so))} vs {'/'.join(sorted(sn))}"


# A restriction to some case the old note does not state: "In handheld mode on Switch ...",
# "On the macOS ARM runners ...", "... on Android 8 and below".
_RESTRICTED = re.compile(
    r"^\s*(?:in|on|for|under|with)\s+(?:the\s+|our\s+)?(?P<case>[\w\-. ]{1,30}?)\s*"
    r"\b(?:mode|runners?|builds?|devices?|platforms?|hardware|machines?|hosts?|nodes?|"
    r"environments?|envs?|tiers?|clusters?|targets?|variants?|regions?|accounts?|plans?)\b"
    r"|\b(?P<range>(?:and|or) (?:below|above|older|earlier|newer|later|lower|higher))\b",
    re.I,
)


@lru_cache(maxsize=4096)
def _restriction(new: str) -> tuple[str, frozenset[str] | None] | None:
    """The phrase a note restricts itself by, and the words of the case it names (None for a
    range: "and below")."""
    m = _RESTRICTED.search(new)
    if m is None:
        return None
    if m.group("range"):
        return m.group("range"), None
    words = frozenset(w for w in re.findall(r"[a-z0-9]+", m.group("case").lower()) if len(w) > 1)
    return m.group(0).strip(), words


def restricted_case(old: str, new: str) -> str | None:
    """The new note holds only in a case it names and the old note does not."""
    found = _restriction(new)
    if found is None:
        return None
    phrase, case = found
    if case is None:
        return phrase
    return None if not case or case <= set(re.findall(r"[a-z0-9]+", old.lower())) else phrase


def changes_other_aspect(old: str, new: str) -> bool:
    """Whether the new note changes something the old one does not mention: "switched the
    project's default RHI to DX12" beside "the project targets Unreal Engine 5.3"."""
    changed = _CHANGED_WHAT.search(new)
    if changed is None:
        return False
    return aspect_of(frozenset(_words(changed.group("what")).all), _parse(old).content)


def aspect_of(moved: frozenset[str], old_content: frozenset[str]) -> bool:
    """Whether what the new fact changed ("the Unity project's color space", "Terraform state
    locking") names an aspect the old fact does not mention: another attribute."""
    extra = _minus(
        {_key(m, m) for m in moved} - _GENERIC - _NEUTRAL, {_key(c, c) for c in old_content}
    )
    return bool(extra)
