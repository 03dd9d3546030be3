"""The word tables of the fact-sentence rules: stop words, negators, cues, antonyms and verbs.

Private to ``memory.fact_parse``, ``memory.merge_guard`` and ``memory.updates`` (the names keep
their underscore, as in ``memory.extract.causal_lexicon``). Split out because the lexicon is
data, a third of the rules, and changes for other reasons (a new cue, a new language, a new verb
family) than the parsing and the update rules do.

Everything here is built once at import: plain word lists are written as whitespace-separated
strings and turned into frozensets, stem sets (through the light English stemmer
``hooks.text.stem``, by whose output the tables are keyed) or compiled regular expressions.
The stop words, month and weekday names and the stemmer are ``hooks.text``'s.
Seven languages are covered: the English tables do the structural work (verb families, slot
nouns, antonyms, terminal verbs); German, French, Spanish, Dutch, Turkish and Portuguese
contribute stop words, negators and update cues, which is enough for the token-alignment rules.
"""

from __future__ import annotations

import re

from ...hooks.text import FACT_STOP, MONTHS, WEEKDAYS, stem


def _mapping(text: str) -> dict[str, str]:
    """``"a=b c=d"`` -> ``{"a": "b", "c": "d"}``: keeps the lexicon tables dense and readable."""
    return dict(item.split("=", 1) for item in text.split())


_STOP = FACT_STOP  # the fact rules' function words (hooks.text)

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

_WEEKDAYS = frozenset(WEEKDAYS)
_MONTHS = frozenset(MONTHS)
_UNITS = _mapping(
    "ms=ms millisecond=ms milliseconds=ms s=s sec=s secs=s second=s seconds=s min=min mins=min "
    "minute=min minutes=min m=min h=h hr=h hrs=h hour=h hours=h d=d day=d days=d week=wk "
    "weeks=wk kb=kb mb=mb gb=gb tb=tb k=k b=b %=% percent=% x=x px=px rps=rps qps=qps rpm=rpm"
)

_PAST_IRREGULAR = frozenset(
    "was were had ran left rose fell wrote built led took made sent went chose began became "
    "held kept brought grew gave saw found got bound broke paid said told thought lost".split()
)


_stem = stem  # the light English stemmer the tables below are keyed by (hooks.text)


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
# A number after one of these is the value of an attribute ("port 8080", "version 3", "the
# top 10"), never the label of a numbered thing ("Service 3", "ticket 12"); see fact_parse.
_VALUE_BEFORE_NUMBER = _stems(
    "port version timeout limit size count number total max min maximum minimum ttl budget "
    "threshold quota capacity retry retries attempt attempts concurrency level tier rate "
    "length width height depth weight age score rank percent top first last next past "
    "previous bottom extra additional another around roughly nearly almost exactly "
    "approximately least most over under up"
)
# A copula followed by one of these identifies its subject with a unique slot ("Java 17 is the
# minimum", "Port 8080 is now our default"): the subject then states that slot's value. The
# update cues and ``_ADVERBS`` between the copula and the article are skipped.
_DEFINITE = frozenset("the its their our his her my your this that".split())
_ADVERBS = frozenset("still currently also again already just".split())
# Time units of the other languages: after one, a number is a quantity, not a label ("Zaman
# aşımı 30 saniye"). Kept apart from ``_UNITS``, whose keys name the kind of a value.
_UNIT_WORDS = frozenset(
    """
    sekunde sekunden minute minuten stunde stunden tag tage tagen woche wochen
    seconde secondes heure heures jour jours semaine semaines
    segundo segundos minuto minutos hora horas día días dia dias semana semanas
    seconden minuten uur dag dagen weken
    saniye dakika saat gün hafta
    """.split()
)

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
