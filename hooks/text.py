"""Words: the stop lists, stemmers, content-word splitters and calendar names, in one place.

Standard library only (``re``), so that the hook scripts can import it after their warm path
(``relay.run_by_server``), like ``common.py``; the engine imports it as ``hooks.text`` and the
installer copies it with the scripts. Every word table and stemmer of the package lives here.

The stop lists differ on purpose, each tuned with the rule that reads it; merging them would
change what is recalled, linked or detected. They are composed from shared parts where they
share them:

- ``QUERY_STOP``: English function words and chat fillers a search query drops
  (``memory.read.recall``: FTS5 query words, query expansion).
- ``PROMPT_STOP``: ``QUERY_STOP`` plus ``REQUEST_WORDS`` (words of a request that name no
  topic: "please", "let's", "show") plus ``TASK_WORDS``: the words of a prompt the injected
  context matches on (``memory.prompt.exchanges.content_words``, ``prompt.context``).
- ``HOOK_PROMPT_STOP``: ``QUERY_STOP`` plus ``REQUEST_WORDS`` plus "let's one two": the
  prepare hook's own recall when no server runs (``identifier_words``); it has no
  ``TASK_WORDS``, and drops the numbers "one" and "two", as it always has.
- ``LINK_STOP``: function words of the seven languages the causal extractor reads, for the
  cheap multilingual word overlap of ``memory.causal.links``.
- ``FACT_STOP``: function words of the same languages as the fact-sentence rules see them
  (``memory.updates``: update and contradiction detection, merge guard); it leaves out the
  negations, "if", "because", "before" and "after" (the rules read them) and has
  possessives and "same", "own", "still", "currently", which ``LINK_STOP`` lacks.
- ``ENTITY_STOP``: words that are never an entity name on their own, capitalised or not
  (``memory.extract.entities``), with contractions and greetings; ``CALENDAR_WORDS`` beside it.

The stemmers, each with its own job:

- ``prefix_stem``: the first letters of a word (all but three, at least four): how a prompt
  word is matched against fact tokens ("migration" finds "migrate", "migrating").
- ``stem``: a light English inflection stemmer with irregular verbs, whose output keys the
  update-detection tables (``memory.updates.lexicon``).
- ``index_forms``: the forms a Porter stemmer may have indexed a word under (FTS5 lookups).
- ``link_stem``: a folded word cut to five letters, function words dropped (word overlap).
"""

from __future__ import annotations

import re
import unicodedata


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _mapping(text: str) -> dict[str, str]:
    """``"a=b c=d"`` -> ``{"a": "b", "c": "d"}``."""
    return dict(item.split("=", 1) for item in text.split())


# -- calendar names ----------------------------------------------------------------------------

MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # MONTHS.index(name) + 1 is the month number
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTH_NUMBERS = {m[:3]: i + 1 for i, m in enumerate(MONTHS)}  # "jan" -> 1 ... "dec" -> 12
WEEKDAY_NUMBERS = {d[:3]: i for i, d in enumerate(WEEKDAYS)}  # "mon" -> 0 ... "sun" -> 6
MONTH_PATTERN = "|".join(MONTHS)  # regular-expression alternations of the full names
WEEKDAY_PATTERN = "|".join(WEEKDAYS)
WORKDAY_PATTERN = "|".join(WEEKDAYS[:5])  # monday ... friday
# Calendar words as they are written in chat, full and abbreviated, and holidays: never names.
CALENDAR_WORDS = (
    frozenset(MONTHS) | frozenset(WEEKDAYS) | frozenset(MONTH_NUMBERS) | frozenset(WEEKDAY_NUMBERS)
    | _words("tues thur thurs sept weekend christmas easter")
)

# -- stop lists (see the module docstring for which caller reads which, and why) -----------------

QUERY_STOP = _words(
    """a an the and or but if then else of to in on at by for with from as is are was were be
    been being am do does did doing have has had having i me my we our you your he him his she
    her it its they them their this that these those what which who whom whose when where why
    how there here not no nor so too very can could should would will shall may might must
    just than also about into over under again further once only own same some such both each
    few more most other any all up down out off s t don now ever did any yes yeah oh ok okay
    hey hi lol really get got like know think"""
)
REQUEST_WORDS = _words(
    """please thanks thank continue go ahead sure let lets want need make use new way thing
    things sounds good great fine right done next sorry still tell show give"""
)
TASK_WORDS = _words("remind explain walk help add adding write writing question quick")
PROMPT_STOP = QUERY_STOP | REQUEST_WORDS | TASK_WORDS
HOOK_PROMPT_STOP = QUERY_STOP | REQUEST_WORDS | _words("let's one two")

LINK_STOP = _words(
    """a an the and or but if then of to in on at by for with from as is are was were be been
    being do does did have has had it its this that these those there here not no so too very
    can could should would will may might must also than about into over under after before
    when while because due which who whom whose what why how their they them our we you your
    he she his her my me i more most less much many some any all each other such only just
    der die das den dem des ein eine einer eines einem einen und oder aber wenn dann von zu im
    in am an auf aus bei mit nach ist sind war waren wird werden wurde wurden hat haben hatte
    sich nicht auch noch durch für über unter vor weil da dass sein seine ihre ihr es er sie
    le la les un une des du de et ou mais si alors en au aux par pour sur dans avec est sont
    était a ont été il elle ils elles ce cette ces son sa ses leur leurs qui que ne pas plus
    el los las unos unas y o pero del al por para con sin es son fue fueron ha han su sus se
    lo que no más muy también
    het een en of maar als dan van voor met op aan bij naar is zijn was waren wordt werd heeft
    hebben had zich niet ook nog door om te er dit dat deze die hij zij ze wij ik
    bir ve ile da de bu şu için gibi daha çok en mi ne o"""
)

FACT_STOP = _words(
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
    """
)

ENTITY_STOP = _words(
    """
    i a an the this that these those there here it its it's we you he she they me my our
    your his her their them us mine ours yours theirs him who whom whose which what when
    where why how whatever whoever wherever whenever if then else so but and or nor not no
    yes yeah yep nope ok okay sure fine great good nice cool awesome wow oh ah hmm hey hi
    hello thanks thank please sorry well also just now still even only maybe perhaps actually
    really basically anyway anyways btw let let's lets can could would should will shall may
    might must do does did done is are was were be been being am have has had having get got
    go going gone went make made take took use used using try tried add added fix fixed check
    checked run ran see saw look looked remind tell show give find found keep kept set put
    in on at to for from with without of by about after before during since until while as
    into onto over under above below between through because although though once whether
    all any some each every both either neither none many much more most few less least
    other others another such same own one two three first second last next
    today tomorrow yesterday tonight always never sometimes often usually again already yet
    agreed done right sounds seems looks thats that's what's here's there's i'm i've i'll
    i'd we're we've we'll you're you've you'll it'll he's she's they're they've don't
    doesn't didn't can't won't isn't aren't wasn't weren't haven't hasn't couldn't
    shouldn't wouldn't options option note notes update step steps first finally next
    instead meanwhile however therefore otherwise besides plus also congrats congratulations
    dear mr mrs ms dr sir madam bye goodbye cheers lol omg haha wait honestly totally
    definitely absolutely exactly true false null none
    """
)

# -- content words -----------------------------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*[A-Za-z0-9_]|[A-Za-z0-9]")
_PLAIN = re.compile(r"[a-z0-9_]+")


def identifier_words(text: str, stop: frozenset[str] = HOOK_PROMPT_STOP) -> list[str]:
    """Content words of a prompt, in order and once each, identifiers kept whole and also
    split into their parts ("app/api.py" gives "app/api.py", "app", "api", "py"); words in
    ``stop`` and single letters dropped (the prepare hook's own recall)."""
    out: list[str] = []
    for raw in _IDENT.findall(text.lower()):
        # The whole identifier, then its parts, in order (a set here made the order, and so
        # which words the hook searched, hang on the process's hash seed).
        for w in [raw, *re.split(r"[_.\-/]", raw)] if any(c in raw for c in "_.-/") else [raw]:
            if w and w not in stop and (len(w) > 1 or w.isdigit()) and w not in out:
                out.append(w)
    return out


# Short forms developers write for the words a note spells out.
_ABBREVIATION = {
    "svc": "service", "svcs": "services", "prod": "production", "fw": "firmware",
    "tf": "terraform", "pg": "postgres", "k8s": "kubernetes", "repo": "repository",
    "repos": "repositories", "cfg": "config", "conf": "config", "env": "environment",
    "db": "database", "dbs": "databases", "deps": "dependencies", "msg": "message",
    "msgs": "messages", "perms": "permissions", "auth": "authentication",
    "infra": "infrastructure",
}
_SPLIT_IDENT = re.compile(r"\w[_./:-]\w|^[a-z]+[A-Z]")  # snake, kebab, path; lowerCamel
_IDENT_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_CODE_NAME = re.compile(r"(?<![A-Za-z0-9_.:/-])[A-Za-z0-9_.:/-]*[A-Za-z][A-Za-z0-9_.:/-]*")


def code_name_words(text: str) -> list[str]:
    """The words of the prose name of each setting or service written as code, lower-cased:
    ``PAYMENTS_HTTP_TIMEOUT_MS`` gives payments, http, timeout, ms; ``targetSdk`` target,
    sdk; ``ingest-svc`` ingest, service; "prod" production. A name in capitals (PostgreSQL,
    GitHub) stays one word: its parts are not two things the text names."""
    out: list[str] = []
    for name in _CODE_NAME.findall(text):
        low = name.casefold()
        if low in _ABBREVIATION:
            out.append(_ABBREVIATION[low])
            continue
        if not _SPLIT_IDENT.search(name):
            continue
        parts = [p.casefold() for p in _IDENT_PART.findall(name)]
        if len(parts) > 1:
            out += [_ABBREVIATION.get(p, p) for p in parts if p.isalpha() and len(p) > 1]
    return out


# Chinese and Japanese letters, written without spaces between words: every rule that reads
# them (word counts, glosses, causal cues and links, update detection) builds on these ranges.
HIRAGANA = "\u3040-\u309f"
KATAKANA = "\u30a0-\u30ff\uff66-\uff9f"  # and the half-width block
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK = re.compile(f"[{HIRAGANA}{KATAKANA}{HAN}]")
_WIDE = re.compile(f"[{HIRAGANA}{KATAKANA}{HAN}\uac00-\ud7af]")  # and Hangul syllables
_OTHER_WORD = re.compile(r"[^\W\d_]+")


def other_script_words(text: str) -> int:
    """About how many words ``text`` has outside the ASCII letters ``identifier_words``
    reads: a word of another alphabet counts one, a run of Chinese, Japanese or Korean
    (written without spaces) one per two characters ("好的" is one, "为什么部署失败" three)."""
    count = 0
    for run in _OTHER_WORD.findall(text):
        if run.isascii():
            continue
        wide = len(_WIDE.findall(run))
        count += wide // 2 + (1 if len(run) > wide else 0)
    return count


_MARKS = re.compile("(?<=[A-Za-z])[\u0300-\u036f]+")  # the accents of Latin letters
_LETTERS = re.compile(r"[^\W\d_]{3,}")
HAN_OR_KATAKANA_RUN = re.compile(f"[{KATAKANA}{HAN}]{{2,}}")


def cjk_pairs(text: str) -> list[str]:
    """Every pair of Han or katakana characters of ``text``, in order and once each: Chinese
    and Japanese words, written without spaces, read without a segmenter ("部署失败" ->
    "部署", "署失", "失败"); kana particles left out."""
    return list(dict.fromkeys(run[i:i + 2] for run in HAN_OR_KATAKANA_RUN.findall(text)
                              for i in range(len(run) - 1)))


def fold(text: str) -> str:
    """Lower case without the accents of Latin letters, as the FTS5 index reads text
    (``unicode61 remove_diacritics 2``): "Übersetzung schlägt" -> "ubersetzung schlagt". Kana
    keep their voicing marks."""
    return unicodedata.normalize("NFC", _MARKS.sub("", unicodedata.normalize("NFD", text))).lower()


def search_terms(prompt: str) -> list[str]:
    """What the prepare hook's own recall searches for, in any script: the identifiers and
    words of the folded prompt, words of other alphabets whole ("dagıtım"), and for Chinese and
    Japanese, written without spaces, every pair of Han or katakana characters ("部署失败" ->
    "部署", "署失", "失败")."""
    folded = fold(prompt)
    other = [w for w in _LETTERS.findall(folded) if not w.isascii() and not CJK.search(w)]
    rest = re.sub("|".join(map(re.escape, other)), " ", folded) if other else folded
    out = identifier_words(rest, HOOK_PROMPT_STOP | LINK_STOP)
    out += [w for w in dict.fromkeys(other) if w not in LINK_STOP]
    return out + [p for p in cjk_pairs(prompt) if p not in out]


def plain_words(text: str, stop: frozenset[str] = PROMPT_STOP) -> list[str]:
    """Content words (``[a-z0-9_]+`` runs) of ``text``, in order and once each, words in
    ``stop`` and single characters dropped (the injected context's prompt words)."""
    out: list[str] = []
    for w in _PLAIN.findall(text.lower()):
        if w in stop or len(w) < 2 or w in out:
            continue
        out.append(w)
    return out


# -- stemmers ----------------------------------------------------------------------------------


def prefix_stem(word: str) -> str:
    """All but the last three letters of a word longer than five, at least four: a prefix
    that a token starting with it matches ("migration" -> "migrat")."""
    return word[: max(4, len(word) - 3)] if len(word) > 5 else word


def link_stem(word: str) -> str | None:
    """A folded (casefolded) word cut to five letters, or None for a function word of
    ``LINK_STOP`` or a word under three letters that is not a number: the cheap multilingual
    stem of ``memory.causal.links`` ("throttles"/"throttling") and of ``memory.updates.shift``."""
    if word in LINK_STOP or (len(word) < 3 and not word.isdigit()):
        return None
    return word[:5]


IRREGULAR = _mapping(
    "is=be are=be was=be were=be am=be been=be be=be has=have had=have ran=run left=leave "
    "rose=rise risen=rise fell=fall fallen=fall wrote=write written=write built=build led=lead "
    "took=take made=make sent=send went=go gone=go chose=choose chosen=choose began=begin "
    "became=become held=hold kept=keep brought=bring grew=grow gave=give saw=see found=find "
    "got=get bound=bind broke=break paid=pay said=say told=tell thought=think lost=lose "
    "lower=low lowest=low higher=high highest=high fewer=few"
)  # word -> the base form ``stem`` starts from


def stem(word: str) -> str:
    """A light, deterministic English stemmer: equal stems for the inflections we compare."""
    w = word.lower()
    if w in IRREGULAR:
        w = IRREGULAR[w]  # a base form: only the final-e rule below still applies
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
    # "cookie", "cookies" and "policy", "policies" meet at "cooki" and "polici".
    if len(w) > 3 and w.endswith("y") and w[-2] not in "aeiou":
        w = w[:-1] + "i"
    return w


_INDEX_SUFFIXES = ("ing", "ed", "es", "s", "e", "ly", "er", "ation", "al", "ness")


def index_forms(word: str) -> list[str]:
    """The word and the forms a Porter stemmer may have indexed it under."""
    out = [word]
    for suffix in _INDEX_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            out.append(word[: -len(suffix)])
    # Porter writes a final "y" as "i": "deploy", "deploys" and "deployed" are indexed as
    # "deploi", "policies" as "polici".
    out += [f[:-1] + "i" for f in out if f.endswith("y") and len(f) > 3]
    return out
