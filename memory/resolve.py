"""Merge guards and update detection for the write path: pure text rules, no database, no model.

Two questions are answered here, both about a pair of short fact sentences:

* ``safe_to_merge(a, b)``: the caller already found ``a`` and ``b`` near-identical (embedding
  cosine or token overlap). Merging is allowed only when nothing would be lost, so any
  difference in a value (number, version, date, time, amount, identifier, name), in polarity
  (negation, in seven languages) or on the two sides of an antonym pair vetoes it.
* ``detect_update(old, new)``: does the newer fact make the older one no longer current? It
  answers with an ``Update`` (reason, kind, confidence) or ``None``. Four rules are tried in
  order, after a cheap check that the two share a word, name or caller entity:

  1. *polarity*: the same statement with its negation or an antonym flipped;
  2. *replacement*: an explicit "instead of Y" / "replaced Y with" / "switched from Y" whose
     ``Y`` the old fact states;
  3. *value*: the same subject and the same single-valued attribute with another value, or a
     move/switch cue ("moved to", "raised to", "umgestellt auf", ...) whose destination fills a
     slot the old fact fills differently; for the other languages, a cue plus the same words
     around another value or name;
  4. *state*: the new fact ends something the old one describes as ongoing ("closed",
     "cancelled", "paused", "left").

Precision is preferred over recall throughout: a false supersession hides a true fact from the
user, while a missed one only leaves two facts current. Multi-valued relations ("uses",
"stores", "supports") therefore never supersede on a different name without a cue, and past
events ("hired forty engineers", "wrote the runbook") are never ended by a state change.

The module is larger than the house guideline because about a third of it is lexicon (stop
words, negators, cues, antonyms, verb families in seven languages); that table block is the
natural part to move into its own module if it grows further.

Sentences are parsed once into a small frozen ``_Parse`` (tokens, light stems, values, names,
negation count, cues, a subject/verb/object split by a verb lexicon) and cached, because one new
fact is compared against every current fact that shares an entity with it. The English rules do
the structural work; the other languages (German, French, Spanish, Dutch, Turkish, Portuguese)
contribute negators, cues and stop words, which is enough for the token-alignment rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["FactView", "Update", "detect_update", "safe_to_merge"]


@dataclass(frozen=True)
class FactView:
    """The text of a fact and the canonical (lowercased) entity keys the caller extracted."""

    text: str
    entities: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Update:
    """Why a newer fact supersedes an older one.

    ``kind`` is one of ``"value"``, ``"cue"``, ``"polarity"`` or ``"state"``.
    """

    reason: str
    kind: str
    confidence: float


# --------------------------------------------------------------------------- lexicons


def _mapping(text: str) -> dict[str, str]:
    """``"a=b c=d"`` -> ``{"a": "b", "c": "d"}``: keeps the lexicon tables dense and readable."""
    return dict(item.split("=", 1) for item in text.split())


_STOP = frozenset(
    """
    the a an of to in on at for with by from and or but is are was were be been being am it its
    this that these those as so we our ours us i you your he she they them their his her my me
    has have had do does did will would can could should must may might shall there here then
    than also just only all any some each every which who whom what when where how why into
    onto over under about per via same own still very too let s also been currently again since
    der die das den dem des ein eine einen einem einer und oder ist sind war waren wir ich es
    wurde wurden wird werden hat haben
    zu auf für mit von im am an bei nach aus als wird werden hat haben unser unsere unseren
    le la les l un une des du de d et ou est sont nous on en dans pour avec par sur au aux ce
    cette été notre nos se
    el los las y o es son del con por para al lo nuestro nuestra su sus
    het een en zijn wij op met voor van naar bij ons onze
    bir ve ile için bu şu da biz
    os um uma são do da dos das em na com nós nosso nossa é foi
    est été es fue ha sido werd wordt heeft
    """.split()
)

# Counted once per clause; French "pas/plus/jamais" only count when no "ne" did (below).
_NEGATORS = frozenset(
    """
    not no never without cannot nor none nothing nobody
    nicht kein keine keinen keinem keiner keines nie niemals ohne
    ne jamais sans aucun aucune
    nunca jamás sin ni
    niet geen nooit zonder
    değil yok asla
    não nem sem
    """.split()
)
_FRENCH_SECOND_NEG = frozenset({"pas", "plus", "jamais", "rien", "personne"})
_TURKISH_NEG_SUFFIX = re.compile(r"\w+m[ıiuü]yor\w*|\w+m[ae]d[ıiuü]\w*|\w+m[ae]y[ae]c[ae]k\w*")
_TURKISH_HINT = re.compile(r"[ıışğ]|\b(?:artık|yerine|değil|ve|bir|için)\b")

_NUMBER_WORDS = (
    {
        w: str(i)
        for i, w in enumerate(
            "zero one two three four five six seven eight nine ten eleven twelve".split()
        )
    }
    | {
        w: str(10 * i)
        for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
        if w != "_"
    }
    | {"hundred": "100", "thousand": "1000", "million": "1000000", "dozen": "12"}
)

_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_UNITS = _mapping(
    "ms=ms millisecond=ms milliseconds=ms s=s sec=s secs=s second=s seconds=s min=min mins=min "
    "minute=min minutes=min m=min h=h hr=h hrs=h hour=h hours=h d=d day=d days=d week=wk "
    "weeks=wk kb=kb mb=mb gb=gb tb=tb k=k b=b %=% percent=% x=x px=px rps=rps qps=qps rpm=rpm"
)

_IRREGULAR = _mapping(
    "is=be are=be was=be were=be am=be been=be be=be has=have had=have ran=run left=leave "
    "rose=rise risen=rise fell=fall fallen=fall wrote=write written=write built=build led=lead "
    "took=take made=make sent=send went=go gone=go chose=choose chosen=choose began=begin "
    "became=become held=hold kept=keep brought=bring grew=grow gave=give saw=see found=find "
    "got=get bound=bind broke=break paid=pay said=say told=tell thought=think lost=lose "
    "lower=low lowest=low higher=high highest=high fewer=few"
)
_PAST_IRREGULAR = frozenset(
    "was were had ran left rose fell wrote built led took made sent went chose began became "
    "held kept brought grew gave saw found got bound broke paid said told thought lost".split()
)


def _stem(word: str) -> str:
    """A light, deterministic English stemmer: equal stems for the inflections we compare."""
    w = word.lower()
    if w in _IRREGULAR:
        w = _IRREGULAR[w]  # a base form: only the final-e rule below still applies
    elif len(w) <= 3 or not w.isalpha():
        return w
    elif w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("ied") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ing") and len(w) > 5:
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4:
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    # Undouble "stopp"/"runn" but not "fill"/"pass"/"add" (the latter are words themselves).
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1].isalpha():
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def _stems(words: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in words.split())


_PairSets = tuple[tuple[frozenset[str], frozenset[str]], ...]
_Flip = tuple[frozenset[str], frozenset[str], bool]


def _pairs(text: str) -> _PairSets:
    """``"on/off; min minimum/max maximum"`` -> stem sets for each side of each pair."""
    sides = (pair.split("/") for pair in text.split(";"))
    return tuple((_stems(left), _stems(right)) for left, right in sides)


# Antonym pairs, compared on stems. ``_STATE_PAIRS`` are the ones where the second side ends what
# the first started; they double as state-change evidence.
_ANTONYM_WORDS = (
    "enable enabled/disable disabled; on/off; min minimum/max maximum; "
    "increase increased/decrease decreased reduce reduced; before/after; "
    "allow allowed/deny denied block blocked forbid; accept accepted/reject rejected; true/false; "
    "success successful succeed/failure fail failed; pass passed passing/fail failed failing; "
    "add added/remove removed; start started/stop stopped; up/down; "
    "high higher highest/low lower lowest; more/less fewer; fast faster/slow slower; "
    "include included/exclude excluded; public/private; sync synchronous/async asynchronous; "
    "always/never; open opened/close closed; rise rose raised/drop dropped fall fell; "
    "online/offline; install installed/uninstall uninstalled; create created/delete deleted; "
    "join joined/leave left; read-only readonly/read-write writable; strict/lenient; "
    "valid/invalid; encrypted/unencrypted plaintext; lock locked/unlock unlocked; warm/cold; "
    "early earlier/late later; old older/new newer; morning/evening; first/last; yes/no"
)
_ANTONYMS = _pairs(_ANTONYM_WORDS)
_STATE_PAIRS = _pairs(
    "open opened launch launched/close closed shut; start started/stop stopped; "
    "join joined hire hired/leave left quit fire fired; add added/remove removed; "
    "create created/delete deleted; install installed/uninstall uninstalled; "
    "enable enabled/disable disabled; subscribe subscribed/cancel cancelled canceled"
)

# Verb families: predicates that fill the same attribute slot. ``_FUNCTIONAL`` ones hold one value
# at a time, so a different value supersedes even without a cue.
_FAMILY_WORDS = {
    "locate": "work works worked working based located sits sit office stationed remote remotely",
    "live": "live lives lived living reside resides",
    "move": "move moves moving relocate relocated transfer transferred",
    "report": "report reports reported reporting",
    "be": "is are was were be been",
    "have": "has have had",
    "use": "use uses used using adopt adopted rely relies run runs running switch switched "
    "migrate migrated replace replaced store stores stored host hosts hosted",
    "version": "upgrade upgraded downgrade downgraded bump bumped pin pinned",
    "prefer": "prefer prefers preferred like likes want wants",
    "set": "set sets default defaults configure configured change changed raise raised lower "
    "lowered increase increased decrease decreased reduce reduced slip slipped postpone "
    "postponed reschedule rescheduled",
    "point": "point points pointed resolve resolves route routes routed",
    "listen": "listen listens bind binds serve serves expose exposes",
    "own": "own owns owned maintain maintains maintained",
    "lead": "lead leads led manage manages managed",
}
_FAMILY = {_stem(w): fam for fam, words in _FAMILY_WORDS.items() for w in words.split()}
_FUNCTIONAL = frozenset({"locate", "live", "report", "be", "prefer", "set", "point", "listen"})
# Nouns that name an attribute: "the default branch is main" states a value, while "the API is
# public" states one property among many.
_SLOT_NOUNS = _stems(
    "default branch name version value setting mode model provider owner limit timeout port "
    "host region level size format strategy backend engine driver registry target runtime "
    "deadline schedule url endpoint address domain path location database queue broker "
    "language framework manager runner image shell theme tier plan currency"
)
# Families that may supersede each other's slot (a move ends a location, a version bump or a
# "set to" changes a copula value, an upgrade changes what is used).
_COMPATIBLE = frozenset(
    frozenset(pair.split(":"))
    for pair in "move:locate move:live version:use version:be set:be move:be version:have".split()
)

_TERMINAL = _stems(
    "close closed shut cancel cancelled canceled pause paused halt halted leave left quit "
    "resign resigned deprecate deprecated retire retired remove removed delete deleted drop "
    "dropped discontinue discontinued stop stopped end ended terminate terminated archive "
    "archived sunset decommission decommissioned abandon abandoned revert reverted kill killed "
    "uninstall uninstalled unsubscribe unsubscribed suspend suspended scrap scrapped churn "
    "churned"
)
_OTHER_VERBS = _stems(
    "add added fix fixed need needs require requires include includes support supports call "
    "calls read reads write writes send sends return returns depend depends deploy deploys "
    "deployed build builds join joined start starts started open opened launch launched hire "
    "hired supply supplies rebuild rebuilds cost costs take takes make makes get gets create "
    "created rename renamed keep keeps handle handles fetch fetches publish publishes target "
    "targets cause caused block blocks allow allows accept accepts reject rejects wrote "
    "deliver delivered order ordered reach reachable rise rose fall fell drop dropped ran "
    "implement implemented introduce introduced enable enabled disable disabled expire expires "
    "timeout times apply applies check checks go goes went install installed"
)
_VERB_STEMS = frozenset(_FAMILY) | _TERMINAL | _OTHER_VERBS
_AUX = frozenset("is are was were has have had will can should must does do did be been".split())
_AGENT = frozenset("we i you our team us wir ich nous on nosotros wij biz nós".split())
_PREPOSITIONS = frozenset(
    "in on at for with by from to into onto over under about via since during after before "
    "as per inside within outside between across behind through until".split()
)
_DETERMINERS = frozenset("the a an its their our his her my your this that these those".split())
_NOUN_FOLLOWERS = frozenset("and or is are was were has have of".split())
_POSSESSIVES = frozenset("her his their its my our your".split())
_ARTICLES = frozenset("the a an its their our his her my your this that to".split())
_GENERIC_OBJECT = _stems("company team job project organisation organization account role")

# Update cues: (regex, surface label, has a destination after it). Compiled once.
_CUE_SPECS = [
    (r"\bfrom now on\b|\bgoing forward\b|\bhenceforth\b", "from now on"),
    (r"\bno longer\b|\bnot\b.{0,40}\bany ?more\b", "no longer"),
    (r"\bnow\b", "now"),
    (r"\binstead of\b|\binstead\b", "instead of"),
    (r"\b(?:switch|switched|switching) (?:\S+ ){0,4}?(?:to|from)\b", "switched to"),
    (r"\b(?:moved|relocated|moving) (?:\S+ ){0,4}?(?:to|from)\b", "moved to"),
    (r"\b(?:migrated|migrating) (?:\S+ ){0,4}?(?:to|from)\b", "migrated to"),
    (r"\breplac(?:ed|ing)\b", "replaced"),
    (r"\b(?:changed|changing) (?:it )?(?:to|from)\b", "changed to"),
    (r"\b(?:upgraded|downgraded|bumped|upgrading) (?:\S+ )?(?:to|from)\b", "upgraded to"),
    (r"\brenamed\b", "renamed to"),
    (
        r"\b(?:raised|lowered|increased|decreased|reduced|slipped|postponed|pushed|set) "
        r"(?:\S+ ){0,3}?to\b",
        "changed to",
    ),
    (r"\b(?:closed|shut down|deprecated|decommissioned|cancell?ed|discontinued)\b", "closed"),
    (r"\btook over\b|\btaken over\b|\bhanded (?:over|off)\b", "took over"),
    (r"\bjetzt\b|\bnun\b|\bab sofort\b", "jetzt"),
    (r"\bstattdessen\b|\bstatt\b|\banstelle\b", "stattdessen"),
    (r"\bnicht mehr\b|\bkein\w* \S+ mehr\b", "nicht mehr"),
    (r"\bumgestellt\b|\bgewechselt\b|\bersetzt\b|\bmigriert\b|\bumgezogen\b", "umgestellt auf"),
    (r"\bdésormais\b|\bdorénavant\b|\bmaintenant\b", "désormais"),
    (r"\bau lieu d", "au lieu de"),
    (r"\bne \S+ plus\b", "ne ... plus"),
    (r"\bremplacée?s? par\b|\bpassée?s? (?:à|au|sur)\b|\bmigrée?s? vers\b", "remplacé par"),
    (r"\bahora\b", "ahora"),
    (r"\ben (?:lugar|vez) de\b", "en lugar de"),
    (r"\bya no\b", "ya no"),
    (r"\bcambiad[oa] a\b|\bcambiamos a\b|\breemplazad[oa]s? por\b|\bmigrad[oa] a\b", "cambiado a"),
    (r"\bnu\b|\bvoortaan\b", "nu"),
    (r"\bin plaats van\b", "in plaats van"),
    (r"\bniet meer\b|\bgeen \S+ meer\b", "niet meer"),
    (r"\bovergestapt\b|\bvervangen door\b|\bverhuisd\b", "overgestapt op"),
    (r"\bartık\b", "artık"),
    (r"\byerine\b", "yerine"),
    (r"\bgeçti\w*|\btaşındı\w*|\bgeçtik\b", "geçti"),
    (r"\bagora\b|\ba partir de agora\b", "agora"),
    (r"\bem vez de\b", "em vez de"),
    (r"\bnão\b.{0,30}\bmais\b", "não mais"),
    (r"\bmud(?:ou|amos) para\b|\bsubstituíd[oa]s? por\b|\bmigr(?:ou|amos) para\b", "mudou para"),
]
# Separate patterns beat one big alternation here: each starts with a literal that the regex
# engine scans for quickly, while an alternation is tried at every position.
_CUES = tuple((re.compile(p), label) for p, label in _CUE_SPECS)
_CUE_WORDS = frozenset(
    _stems(
        "now instead longer anymore jetzt nun stattdessen statt mehr désormais maintenant plus "
        "ahora ya nu voortaan meer artık yerine agora mais henceforth umgestellt gewechselt "
        "ersetzt migriert umgezogen remplacé remplacée passé passée migré cambiado cambiamos "
        "reemplazado migrado overgestapt vervangen verhuisd geçti geçtik taşındı mudou mudamos "
        "substituído migramos désormais dorénavant sofort"
    )
)
# Cues that name a destination ("moved to X"): the destination fills the slot that changed.
_DEST = re.compile(
    r"\b(?:moved|relocated|switched|migrated|changed|upgraded|downgraded|bumped|raised|lowered|"
    r"moving|switching|migrating|changing|upgrading|"
    r"increased|decreased|reduced|slipped|postponed|pushed|renamed|set|is now|are now)"
    r"(?: over| it| back)?(?: to| from \S+ to)?\s+(.+)"
    r"|\b(?:umgestellt auf|gewechselt (?:zu|auf)|migriert (?:auf|nach|zu)|passée? (?:à|au|sur)|"
    r"migrée? vers|cambiad[oa] a|cambiamos a|migrad[oa] a|overgestapt (?:op|naar)|"
    r"mud(?:ou|amos) para|migr(?:ou|amos) para|verhuisd naar)\s+(.+)"
)
_DEST_STOP = re.compile(
    r"[,;()]|\.(?:\s|$)|\b(?:instead|because|since|but|and|which|so|after|with|using|via)\b"
)
# "instead of Y", "replaced Y with", "Y replaced by", "switched from Y": Y is what was replaced.
# After-patterns capture a short phrase whose head is taken; before-patterns capture the head.
_W = r"[\w@./:+#-]+"
_REPLACED_AFTER = tuple(
    re.compile(p + rf"((?:{_W})(?: {_W}){{0,3}})")
    for p in (
        r"\binstead of (?:using )?",
        r"\breplac(?:ed|ing) ",
        r"\b(?:switched|migrated|moved|changed|upgraded|converted) (?:\w+ ){0,3}?from ",
        r"\b(?:statt|anstatt|anstelle von) ",
        r"\bau lieu d(?:e |u |es |')",
        r"\ben (?:lugar|vez) de(?:l)? ",
        r"\bin plaats van ",
        r"\bem vez de ",
    )
)
_REPLACED_BEFORE = tuple(
    re.compile(rf"({_W}) " + p)
    for p in (
        r"(?:was |were |is |has been |have been |got )?replaced (?:by|with)\b",
        r"(?:a été |est |ont été )?remplacée?s? par\b",
        r"(?:fue |ha sido )?reemplazad[oa]s? por\b",
        r"(?:is |werd )?vervangen door\b",
        r"yerine\b",
        r"(?:foi )?substituíd[oa]s? por\b",
    )
)
_REPLACED_HINT = re.compile(
    r"instead|replac|from|statt|anstelle|lieu|lugar|vez|plaats|remplac|reemplaz|vervang|yerine|"
    r"substitu"
)
_PHRASE_END = frozenset(
    {
        "with",
        "by",
        "to",
        "and",
        "or",
        "for",
        "as",
        "in",
        "on",
        "from",
        "door",
        "par",
        "por",
        "durch",
        "mit",
        "which",
        "because",
    }
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


def _values(raw: tuple[str, ...], low: tuple[str, ...]) -> frozenset[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for i, tok in enumerate(low):
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
    vals = _values(raw, low)
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
    content = frozenset(stems[i] for i in content_idx)

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

    vi = _first_verb(low, stems)
    if vi is None:
        verb, past, subject_idx, obj_idx = None, False, content_idx, []
    else:
        # Skip an auxiliary ("is building", "was moved", "has been") to reach the main verb.
        main = vi
        while main + 1 < len(low) and low[main] in _AUX and _is_verb_form(low[main + 1]):
            if _FAMILY.get(stems[main + 1]) == "be" and low[main] not in ("has", "have", "had"):
                break
            main += 1
        st = stems[main]
        verb = _FAMILY.get(st, st)
        past = low[vi] in _PAST_IRREGULAR or (low[vi].endswith("ed") and vi == main)
        subject_idx = [i for i in content_idx if i < vi]
        obj_idx = [i for i in content_idx if i > main]
    subject = frozenset(stems[i] for i in subject_idx)
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


# --------------------------------------------------------------------------- merge guard


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


# --------------------------------------------------------------------------- update rules


def _flipped_pairs(o: _Parse, n: _Parse, pairs: _PairSets) -> list[_Flip]:
    """Antonym pairs where one sentence has only one side and the other only the other side.

    Each item is ``(left, right, forward)``; ``forward`` means the old fact had the left side.
    """
    out: list[_Flip] = []
    for left, right in pairs:
        ol, orr = o.all_stems & left, o.all_stems & right
        nl, nr = n.all_stems & left, n.all_stems & right
        if ol and not orr and nr and not nl:
            out.append((left, right, True))
        elif orr and not ol and nl and not nr:
            out.append((left, right, False))
    return out


def _value_conflict(o: frozenset[tuple[str, str]], n: frozenset[tuple[str, str]]) -> list[str]:
    """Value kinds present on both sides with different values (``"30 -> 45 s"``)."""
    out = []
    for key in {k for k, _ in o} & {k for k, _ in n}:
        ov = {v for k, v in o if k == key}
        nv = {v for k, v in n if k == key}
        if ov != nv and not (ov <= nv and len(nv) > len(ov)):
            unit = "" if key in ("num", "ver", "weekday", "month", "time", "date", "year") else key
            out.append(f"{'/'.join(sorted(ov))} -> {'/'.join(sorted(nv))} {unit}".strip())
    return out


def _polarity(o: _Parse, n: _Parse) -> Update | None:
    flips = _flipped_pairs(o, n, _ANTONYMS)
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


def _replacement(o: _Parse, n: _Parse, same: bool) -> Update | None:
    """ "instead of Y", "replaced Y with Z", "switched from Y", "Y yerine": Y was current."""
    gone = n.replaced & (o.content | {_stem(x) for x in o.names})
    if not gone:
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
_STOP_STEMS = frozenset(
    _stem(w) for w in (_STOP | _CONNECTIVES) - {"same", "own"}
) | ((_STOP | _CONNECTIVES) - {"same", "own"})


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


def _state(o: _Parse, n: _Parse, same: bool) -> Update | None:
    """The new fact ends something the old one describes as started or ongoing.

    Past events are history and stay current: "Apple hired forty engineers in Rotterdam" is not
    undone by "The office in Rotterdam closed", and "Marta wrote the runbook" is not undone by
    "Marta left the company".
    """
    if n.terminal is None:
        return None
    head = n.term_head
    for _left, _right, forward in _flipped_pairs(o, n, _STATE_PAIRS):
        if forward and head and head in o.content:
            return Update(f"state ended: {head} ({n.terminal})", "state", 0.85)
    related = same or n.agent_subject or bool(o.names & n.names)
    if head and head in o.content and not o.past and related:
        return Update(f"state ended: {head} ({n.terminal})", "state", 0.8)
    if n.term_generic and o.verb in ("be", "have") and not o.past and o.subject & n.subject:
        return Update(f"state ended: {n.terminal} after '{o.verb}' state", "state", 0.7)
    return None


def detect_update(
    old: FactView, new: FactView, *, similarity: float | None = None
) -> Update | None:
    """Decide whether ``new`` makes ``old`` no longer current.

    Args:
        old: the current fact.
        new: the fact being written.
        similarity: cosine similarity of the two sentence embeddings, when a model is loaded.
            It is supporting evidence only: a value change without an update cue needs at
            least 0.5, and nothing below 0.25 is flagged.

    Returns:
        An ``Update`` saying why, or None when the two can both stay current (complements,
        restatements, different attributes or roles, historical events).
    """
    if similarity is not None and similarity < 0.25:
        return None
    o, n = _parse(old.text), _parse(new.text)
    if o.low == n.low:
        return None
    shared = (o.content & n.content) | (o.names & n.names) | (old.entities & new.entities)
    if not shared:
        return None
    same = _same_subject(o, n, old.entities & new.entities)
    return (
        _polarity(o, n)
        or _replacement(o, n, same)
        or _moved_value(o, n, same)
        or _slot_value(o, n, same, similarity)
        or _aligned_value(o, n)
        or _state(o, n, same)
    )
