"""The last update rule: the new sentence says that something changed, about what the old one
states, in phrasing the structural rules could not align.

The rules of ``coding`` and ``explicit`` align slots and values, and unseen phrasing defeats
them ("log pipeline = Vector -> Loki as of this week", "Entscheidung revidiert: ...",
"handover done, Priya holds the payments pager"). This rule asks for three things instead:

* a change stated in the new sentence: a verb of change, "now", "no longer", "after all", an
  arrow, in the languages the rules read (``CHANGE``);
* the embedding similarity of two sentences about the same thing (``SHIFT_SIMILARITY``): the
  rule never runs without a model;
* two content words in common, so that similarity of topic, or a shared subject, is not
  enough ("Bob joined the company in 2021" / "Bob now reports to Dana").

It obeys every guard the other rules obey (a plan, a condition, "also", another scope or
subject, one restricted case) and its own: an old fact that reports an event, "also" in the
other languages, a story of what came before, two different numbered things (#212 and #213),
chained arrows, a replaced value the old fact does not hold ("instead of midnight"), another
attribute named as the slot or amounts of another dimension, the same values again, the same
change told twice, and a refinement that repeats everything the old one says.

The write path lets it retire only the closest current fact (``ingest._closest``), never a fact
of the same session and never a rule, preference, constraint or cause (``ingest._STANDING``):
a change stated in passing must not erase a session's story or a standing rule.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ...hooks.text import HAN_OR_KATAKANA_RUN, cjk_pairs, code_name_words, fold, link_stem
from .coding import coexisting, unasserted
from .explicit import amounts_comparable, other_scope, other_subject, past_event, restricted_case

__all__ = [
    "CHANGE", "SHIFT_SIMILARITY", "change_stated", "change_cues", "replacement_cues",
    "states_cause",
]

SHIFT_SIMILARITY = 0.5  # cosine of two sentences about one thing (0.45 let in false updates:
# on the stored transcripts of the nine scenario sets, 12 of 16 more were story, not change)
# ... when both name the same thing as code ("`.nvmrc`", "DATABASE_URL", "#77"): the name says
# what they are about, and a short change note is far in meaning from a long description.
SHIFT_SIMILARITY_NAMED = 0.3
# A thing named as code: a code span, a path or file, an identifier, a numbered issue.
_CODE_NAME = re.compile(
    r"`[^`\s]{2,60}`|#\d{2,}|(?<![\w.])\.?[A-Za-z][\w\-]*(?:[/.][\w\-]+)+|"
    r"(?<![\w.])\.[A-Za-z][\w\-]+|"
    r"\b[A-Za-z]+_\w+|\b[a-z]+[A-Z]\w*"
)
_NOT_A_NAME = re.compile(r"^(?:e\.g|i\.e|etc|vs|v?\d[\w.]*)$", re.IGNORECASE)


def _names(text: str) -> set[str]:
    found = (m.strip("`.").lower() for m in _CODE_NAME.findall(text))
    return {m for m in found if m and not _NOT_A_NAME.match(m)}


def _named_in_both(old: str, new: str) -> bool:
    """Both name the same thing as code, or one spells out the other's code name
    (``LOG_LEVEL`` / "the log level", ``batch_size`` / "the batch size")."""
    return bool(_names(old) & _names(new)) or _spelled_out(old, new) or _spelled_out(new, old)


def _spelled_out(coded: str, prose: str) -> bool:
    """A code name of ``coded`` of two words or more, every word of it in ``prose`` outside
    the code names ``prose`` writes itself (``node:18-alpine`` is not "node alpine" spelled
    out)."""
    words = content_words(_CODE_NAME.sub(" ", prose))
    for name in (m.strip("`.") for m in _CODE_NAME.findall(coded)):  # case kept: targetSdk
        parts = {s for w in code_name_words(name) if (s := link_stem(w)) is not None}
        if len(parts) >= 2 and parts <= words:
            return True
    return False

# "for now" keeps a value and "now that the board boots Zephyr" gives a reason that holds;
# "now" alone announces a value.
_FOR_NOW = re.compile(
    r"\b(?:for now|until now|by now|right now|just now)\b|\bnow that\b[^,;.]*", re.IGNORECASE
)
# "changed" names the new value ("changed the DSN to ..."); "the mounted files changed" reports
# an event.
CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|as of|from now on|going forward|no longer|any ?more|instead|"
    r"after all|anymore|"
    r"switch(?:ed|es)|swapp(?:ed)|swaps|mov(?:ed|es)|migrat(?:ed|es|ion is)|upgrad(?:ed|es)|"
    r"downgrad(?:ed|es)|bump(?:ed|s)|rais(?:ed|es)|lower(?:ed|s)|increas(?:ed|es)|"
    r"decreas(?:ed|es)|reduc(?:ed|es)|doubled|halved|port(?:ed|ing)|rewr(?:ote|itten)|rebuilt|"
    r"renamed|replac(?:ed|es)|changed(?=(?:\s+\S+){0,5}?\s+(?:to|from)\b)|took over|"
    r"taken over|handed|handover|transferred|"
    # "killed" ends a thing ("we killed the flag"); "got OOM killed" reports a process event
    r"cut over|removed|dropped|deleted|(?<!oom )(?<!got )(?<!was )(?<!were )killed|retired|"
    r"decommissioned|sunset|scrapped|"
    # "scratch GraphQL", "scratch that"; not "from scratch" or "scratch space" (a noun)
    r"(?<!\ba )(?<!from )scratch(?!\s+(?:space|disk|dirs?|director(?:y|ies)|area|files?|pad|"
    r"buffers?|volumes?|buckets?|schemas?|storage|tables?)\b)|"
    r"reverted|reversed|walked back|reopened|resolved|fixed|closed|lifted|folded|"
    r"went from|out the door|updated(?=(?:\s+\S+){0,5}?\s+to\b)|superseded|back to|went back|"
    r"goes back|go back|reversal|"
    r"undone|undid|(?:is|are) gone|(?:is|are) back|from today|as of today|starting today|"
    # de
    r"jetzt|inzwischen|mittlerweile|nicht mehr|umgestiegen|migriert|ersetzt|umbenannt|"
    r"verschoben|übergeben|revidiert|aufgehoben|behoben|gewechselt|aktualisiert|erhöht|"
    r"gesenkt|übernommen|rückgängig|ab sofort|ab jetzt|von nun an|gibt es nicht mehr|"
    # es
    r"ahora|ya no|ya podemos|migramos|migrado|cambiamos|cambiado|reemplaz\w*|sustitu\w*|"
    r"movimos|movido|renombr\w*|resuelto|arreglado|en vez de|en lugar de|actualizad\w*|"
    r"actualizamos|aument\w*|subimos|bajamos|reducid\w*|asumid\w*|pasó a|anulad\w*|"
    r"revertid\w*|a partir de ahora|ya no existe|"
    # fr
    r"désormais|maintenant|migré|remplacé|renommé|déplacé|résolu|corrigé|à la place|"
    r"passé à|passée à|descendu|monté|mis à jour|mise à jour|augmenté\w*|baissé\w*|"
    r"réduit\w*|repris|annulé\w*|à partir de maintenant|n'existe plus|"
    # pt
    r"agora|movi|substituí\w*|renomead\w*|resolvido|em vez de|passou a|atualizad\w*|"
    r"atualizamos|aumentamos|aumentou|reduzi\w*|assumiu|passou para|a partir de agora|"
    r"não existe mais|"
    # nl
    r"nu|inmiddels|tegenwoordig|niet meer|overgestapt|vervangen|hernoemd|verplaatst|"
    r"overgedragen|opgelost|bijgewerkt|geüpdatet|verhoogd|verlaagd|overgenomen|"
    r"teruggedraaid|vanaf nu|bestaat niet meer|"
    # it
    r"ora|adesso|non più|migrato|sostituito|rinominato|spostato|risolto|invece di|"
    r"aggiornat\w*|aumentat\w*|ridott\w*|preso in carico|passat[oa] a\w*|annullat\w*|"
    r"d'ora in poi|da questo mese|non esiste più|"
    # tr
    r"artık|yerine|taşındı|geçtik|değiştirildi|çözüldü|güncellendi|güncelledik|artırıldı|"
    r"artırdık|düşürüldü|devraldı|geri alındı|bundan sonra"
    r")\b(?!-)|->|\u2192|\bne\s+\S+\s+plus\b",  # not inside a compound: "fixed-width"
    re.IGNORECASE,
)
# More ways of saying it changed, only what ``CHANGE`` (searched first) lacks: the verbs of
# change in their other done forms ("bump php to ^8.3", "reverts", "we're dropping lang=ts",
# "backed out of Lighthouse", "Priya rotated off"; a gerund alone is no change: "renaming a
# column breaks the sync"), and the changes of owner, plan and bug status that name no verb
# of change ("took the policy over", "decided against", "happened again"). "Turns out"
# is not one: it tells a cause found ("turned out the re-imaging wiped the cache").
# Changes that only report a value or a state that moved, written in the looser forms (both
# ``_MORE_CHANGE`` and ``_VALUE_CUE`` read them): a state back ("works again"), a change
# finished ("the upgrade is done", "finished the migration"), a value set ("set
# LOG_LEVEL=debug", "set it to 5", "gesetzt", "mudei").
_STATE_AGAIN = (
    r"(?:works?|working|passe[sd]|passing|green|fails?|failing|flak\w+|broken|crash\w*|"
    r"down|up|open|allowed|enabled|disabled|on|off) again"
)
_CHANGE_DONE = (
    r"(?:upgrade|migration|cutover|rollout|switchover|handover|move|port|rename)s? "
    r"(?:is |was |are )?(?:done|finished|complete[d]?|live)"
)
_FINISHED = (
    r"(?:finished|completed|done with) (?:the |our |all )?(?:[\w-]+ )?(?:upgrade|migration|"
    r"cutover|rollout|switchover|move|port)"
)
_SET_VALUE = r"\bset (?:the |our )?[\w.\-/]+ ?(?:=|to\b)"
_SET_VERBS = (
    r"gesetzt|gezet|ingesteld|mudei|mudamos|puse|pusimos|ho messo|abbiamo messo|alzato|"
    r"abbassato|j'ai mis|on a mis"
)
_MORE_CHANGE = re.compile(
    r"\b(?:bump|renames|reverts|reopens|recreat(?:ed|es)|redistribut(?:ed|es)|"
    r"restructur(?:ed|es)|decommissions|deprecat(?:ed|es)|sunset(?:ted|s)|scraps|"
    r"cancel+(?:ed|s)|"
    # the one doing it, in the progressive: "we're dropping", not "renaming a column breaks"
    r"(?:'re|'m|\bare|\bam|\bis)\s+(?:bump|switch|swapp|migrat|upgrad|downgrad|replac|renam|"
    r"revert|reopen|dropp|scrapp|cancel+|delet|remov|retir|sunsett|mov)ing|"
    r"rotated off|backed out|back(?:ing)? out|"
    r"(?:took|taken|takes|taking)\b.{1,60}?\bover\b|left (?:the|last|on|in)\b|"
    r"(?:has|have) left|decided against|sticking with|"
    r"supersed\w*|red herring|was never|were never|happened again|"
    r"signed off|(?:is|are) open again|(?:now|fully) on|moving to|"
    # a state back ("works again", "flaking again"), a change finished ("the upgrade is
    # done", "finished the migration"), a value set ("set LOG_LEVEL=debug", "set it to 5"),
    # a plan called off ("the split is off"), a decision turned ("in the end we go with")
    + _STATE_AGAIN + "|" + _CHANGE_DONE + "|" + _FINISHED + "|" + _SET_VALUE + "|" + _SET_VERBS
    + "|"
    r"(?:is|are) off\b|in the end|"
    r"abgeschaltet|umgezogen|fällt weg|am ende|"  # de
    r"uitgezet|gaat niet door|uiteindelijk|"  # nl
    r"voltamos atrás|no fim|"  # pt
    r"cambié|al final|"  # es
    r"alla fine|"  # it
    r"au final|"  # fr
    # de, nl, it, es, pt, fr, tr
    r"umgestellt|abgelöst|übernimmt|teruggezet|overgestapt|overgezet|ripensat\w*|"
    r"portato|portata|abbiamo portato|restano|trocamos|trocou|desligad\w*|"
    r"a partir de|düzeltildi|kaldırıldı|yayında|"
    # a practice stopped, said by those who stop it: "on arrête de générer les tuiles à la
    # volée", "wir hören auf, ...", "dejamos de", "paramos de", "smettiamo di", "we stoppen
    # met", "vi slutar", "przestajemy", "we stopped hand-writing"
    r"on arr[êe]te (?:de|d'|le|la|les)|nous arr[êe]tons|arr[êe]ter de|"
    r"wir h[öo]ren (?:auf|mit)|schluss mit|dejamos de|paramos de|deixamos de|smettiamo di|"
    r"(?:we |wij )?stoppen met|vi slutar|przestajemy|bırakıyoruz|bıraktık|"
    r"we(?:'re| are)? (?:stop|stopped|stopping) [\w\-]+ing"
    r")\b(?!-)",
    re.IGNORECASE,
)
# The same in Chinese and Japanese, written without spaces (no word boundaries).
_CJK_CHANGE = re.compile(
    r"移行|撤廃|変更|更新|修正済|修正した|廃止|切り替え|置き換え|引き継|"
    r"已修复|修复了|调去|改为|改成|迁移|换成|替换|取消|现在由|不再|已废弃"
)


_CHANGES = (CHANGE, _MORE_CHANGE, _CJK_CHANGE)  # the surest first


def change_cue(text: str) -> re.Match[str] | None:
    """Where ``text`` says something changed (``CHANGE``, then the looser forms), if it does."""
    text = _FOR_NOW.sub(" ", text)
    return next((m for rx in _CHANGES if (m := rx.search(text))), None)


def change_cues(text: str) -> list[str]:
    """Every phrase of ``text`` that says something changed, lower-cased, in order."""
    text = _FOR_NOW.sub(" ", text)
    found = [m for rx in _CHANGES for m in rx.finditer(text)]
    return [m.group(0).lower() for m in sorted(found, key=lambda m: m.start())]


# The cues that report a value or a state that moved ("now finishes in 48 s", "dropped from
# 412 to 9", "fixed", "works again", "set LOG_LEVEL=debug", an arrow), not a thing replaced,
# moved, dropped or a decision reversed: a reader that asks what replaced what leaves them out.
_VALUE_CUE = re.compile(
    r"now|these days|nowadays|as of|->|\u2192|fixed|resolved|closed|reopened|lifted|raised|"
    r"lowered|increased|decreased|reduced|doubled|halved|rebuilt|back to|happened again|went from|"
    r"red herring|was never|were never|signed off|jetzt|inzwischen|mittlerweile|ahora|"
    r"maintenant|désormais|agora|nu|inmiddels|tegenwoordig|ora|adesso|artık|"
    + "|".join((_STATE_AGAIN, _CHANGE_DONE, _FINISHED, _SET_VALUE, _SET_VERBS))
)


def replacement_cues(text: str) -> list[str]:
    """The cues of ``text`` that say a thing was replaced, moved, dropped or a decision
    reversed (``change_cues`` without the ones that only report a value or state moved)."""
    return [cue for cue in change_cues(text) if not _VALUE_CUE.fullmatch(cue)]


# What came before the current state, told as history: "before we moved to Flutter".
_BEFORE = re.compile(
    r"\b(?:before (?:we|the|it|they|our)|bevor|avant (?:que|de|la|le)|antes de (?:que|la|el)|"
    r"voordat|prima (?:che|di)|first version|erste version|première version|primera versión|"
    r"started (?:life|out) as)\b",
    re.IGNORECASE,
)
# Cues that end or undo a state rather than name a new value: they need no new value.
_ENDING = re.compile(
    r"no longer|any ?more|after all|remov|dropp|delet|kill|retir|decommission|sunset|scrap|"
    r"scratch|revert|revers|walked back|reopen|resolv|fix|clos|lift|nicht mehr|revidiert|"
    r"aufgehoben|behoben|ya no|ya podemos|resuelto|arreglado|résolu|corrigé|ne\s|resolvido|"
    r"niet meer|opgelost|non più|risolto|çözüldü|supersed|reversal|undone|undid|"
    r"(?:is|are) (?:gone|back)|"
    r"rückgängig|gibt es nicht mehr|anulad|revertid|ya no existe|annulé|n'existe plus|"
    r"não existe mais|teruggedraaid|bestaat niet meer|annullat|non esiste più|geri alındı|"
    r"撤廃|廃止|解除|已修复|修复了|已取消|取消了|不再|已废弃",
    re.IGNORECASE,
)
# A value: a number, a name written with a capital inside the sentence, an identifier.
_VALUE = re.compile(r"(?<=\s)[A-Z][\w.+#-]*|[\w.+#-]*\d[\w.+#-]*|\w+[_./@:-][\w./@:-]+|`[^`]+`")
# A value beside the old one, in the other languages ("coding.coexisting" reads English).
_ALSO = re.compile(
    r"\b(?:auch|neben|zusätzlich|también|además|aussi|également|en plus|ook|naast|também|além|"
    r"anche|inoltre|ayrıca|yanında)\b",
    re.IGNORECASE,
)
# A numbered thing: an issue, a ticket, a pull request.
_NUMBERED = re.compile(r"(?:#|\b(?:issue|ticket|bug|pr|jira)\s*#?)\s*(\d{2,})", re.IGNORECASE)
# Words that take something away: a new sentence holding every old word but one of these
# says the old no longer holds ("Redis is no longer used for sessions").
_TAKEN = re.compile(
    r"\b(?:no|not|never|removed|dropped|deleted|gone|killed|anymore|no longer|instead|"
    r"replac\w*|off|nicht|kein\w*|plus|ya no|niet|geen|não|non)\b|->|\u2192",
    re.IGNORECASE,
)


_VERB = (
    r"(?:moved|changed|set|raised|lowered|bumped|increased|reduced|capped|switched|upgraded|"
    r"downgraded|updated|migrated|pointed|doubled|halved)"
)
_PHRASE = r"(?P<x>(?!(?:to|at|from)\b)[\w\-./`']+(?:\s+[\w\-./`']+){0,3}?)"
# Where a sentence names the slot it changes: "the eviction policy was changed to",
# "changed the eviction policy to", "support hours are now".
_SLOT = (
    re.compile(
        _PHRASE
        + r"\s+(?:was|were|is|are|got|has been|have been)\s+(?:now\s+)?"
        + _VERB
        + r"\s+(?:to|at|from|up|down)\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b" + _VERB + r"\s+(?:the\s+|our\s+|its\s+)?" + _PHRASE + r"\s+(?:to|at|from)\s",
        re.IGNORECASE,
    ),
    re.compile(_PHRASE + r"\s+(?:is|are)\s+now\b", re.IGNORECASE),
    re.compile(_PHRASE + r"\s+" + _VERB + r"\s+(?:to|from)\b", re.IGNORECASE),
)
_NOT_HEAD = frozenset(
    "the a an our its their this that now then also just it they we since because when after so "
    "and which who".split()
)
# Nouns that name the thing, not one of its attributes: "bumped the function to Timeout: 120".
_THING = frozenset(
    "app application service services function lambda job jobs image images project build "
    "file files config module package library tool server cluster worker workers repo".split()
)


def _other_slot(old: str, new: str) -> str | None:
    """The attribute ``new`` changes when it names one and ``old`` names none of them: "The
    Redis cache runs on an r6g.large" / "Changed the Redis cache eviction policy to ..."."""
    heads = []
    for pattern in _SLOT:
        for m in pattern.finditer(new):
            words = [re.sub(r"'s$", "", w.strip("`'\".,").lower()) for w in m.group("x").split()]
            words = [w for w in words if w and w not in _NOT_HEAD]
            if words and re.search(r"[a-z]", words[-1]):
                heads.append(words[-1])
    if not heads:
        return None
    old_words, low = content_words(old), old.lower()
    for head in heads:
        if head in _THING or content_words(head) & old_words or head in low:
            return None
    return heads[0]


# What the new sentence says it replaced: "instead of midnight", "statt Loki".
_REPLACED = re.compile(
    r"\b(?:instead of|rather than|in place of|statt|anstelle von|en vez de|en lugar de|"
    r"au lieu de|à la place de|in plaats van|invece di|em vez de)\s+(?:the\s+|a\s+)?"
    r"[`'\"]?(?P<x>[\w.\-/:@+#]+)",
    re.IGNORECASE,
)


def _replaced_elsewhere(old: str, new: str) -> bool:
    """Whether ``new`` names what it replaced and ``old`` names none of it: the change is to
    another slot ("the nightly job starts at 01:30 now instead of midnight" does not change
    "the nightly job runs on Jenkins")."""
    low, old_words = old.casefold(), content_words(old)
    named = [m.group("x") for m in _REPLACED.finditer(new)]
    named = [x for x in named if x.casefold() not in {"now", "then", "here", "there"}]
    return bool(named) and not any(
        x.casefold() in low or content_words(x) & old_words for x in named
    )


def change_stated(old: str, new: str, similarity: float | None) -> str | None:
    """Why ``new`` says that what ``old`` states has changed, or None. ``similarity`` is the
    cosine of the two sentences; without it the rule says nothing."""
    named = _named_in_both(old, new)
    if similarity is None or similarity < (SHIFT_SIMILARITY_NAMED if named else SHIFT_SIMILARITY):
        return None
    cue = change_cue(new)
    if cue is None:
        return None
    old_words, new_words = content_words(old), content_words(new)
    if len(old_words & new_words) < (1 if named else 2):
        return None  # one word in common, the subject at most: "Bob joined" / "Bob now reports"
    if states_cause(old) or states_cause(new):
        return None  # "A high-sugar diet leads to increased insulin resistance": a cause, no change
    if _event(old):
        return None  # "Users were logged out because ...": an event stays history
    if unasserted(new) or coexisting(new) or _ALSO.search(new) or _BEFORE.search(new):
        return None
    if other_scope(old, new) or other_subject(old, new) or restricted_case(old, new):
        return None
    numbered_old, numbered_new = set(_NUMBERED.findall(old)), set(_NUMBERED.findall(new))
    if numbered_old and numbered_new and not numbered_old & numbered_new:
        return None  # "#212 is in progress" / "#213 is closed": two issues
    if cue.group(0) in ("->", "\u2192") and len(re.findall(r"->|\u2192", new)) > 1:
        return None  # "Input -> Sim -> Render": a sequence, not a change
    if _replaced_elsewhere(old, new):
        return None
    if _other_slot(old, new) or not amounts_comparable(old, new):
        return None  # the same thing's other attribute: its eviction policy, its memory
    if not _ENDING.match(cue.group(0)) and not _new_value(old, new):
        return None  # the same values again: "Sessions live in Memcached these days"
    if _stem5(cue.group(0)) in old_words:
        return None  # the old one told the same change: "leak fixed as of v2.3.0"
    if old_words <= new_words and not _TAKEN.search(new):
        return None  # everything the old one says, and more: a refinement
    return f"changed (cue {cue.group(0).lower()!r}, similarity {similarity:.2f})"


@lru_cache(maxsize=16384)
def content_words(text: str) -> frozenset[str]:
    """Content words folded and cut to five letters, the causal linker's multilingual stem
    ("throttles"/"throttling"), the two-letter acronyms it drops, and the pairs of
    characters of Chinese and Japanese words ("支付服务" gives "支付", "付服", "服务")."""
    text = unicodedata.normalize("NFKC", text)
    words = re.findall(r"\w+", text.casefold())
    # A setting named as code names the words of its prose name: LOG_LEVEL, batch_size,
    # targetSdk, ingest-svc are "log level", "batch size", "target sdk", "ingest service".
    words += code_name_words(text)
    # Two-letter acronyms name things too: "the admin UI", "CI", "S3".
    acronyms = {w.casefold() for w in re.findall(r"\b[A-Z][A-Z0-9]\b", text)}
    # Chinese and Japanese words are read as pairs of characters, kana particles left out.
    stems = {s for w in words
             if (s := link_stem(fold(w))) is not None and not HAN_OR_KATAKANA_RUN.search(s)}
    return frozenset(stems | acronyms | set(cjk_pairs(text)))


# A cause -> effect statement: its words of change ("increased", "dropped") are its content.
_CAUSAL = re.compile(
    r"\b(?:caus(?:es?|ed|ing)|leads? to|led (?:\w+ ){0,4}to|results? in|resulted in|triggers?|"
    r"verursach\w*|führt zu|provoca\w*|"
    r"conduit à|entraîne\w*|leidt tot|veroorzaakt|(?<!por )(?<!a )causa\w*|porta a|yol açar|"
    r"neden olur)\b",
    re.IGNORECASE,
)
_REASON = re.compile(r"\s(?:because|since|after|when|so)\s|[,;:(]|\s[-\u2013\u2014]\s")
_PASSIVE_PAST = re.compile(r"\b(?:was|were)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn|lt|ht|ut)\b", re.I)
_PRESENT = re.compile(r"\b(?:is|are|has|have|does|do)\b|'(?:s|re|ve)\b", re.I)


def states_cause(text: str) -> bool:
    """Whether ``text`` states a cause and its effect ("The slow cold starts led Google Play
    to flag the app, and it dropped in search"): a step of a story, whose words of change
    ("dropped") tell an effect, not the end of a state stored before."""
    return _CAUSAL.search(text) is not None


def _event(old: str) -> bool:
    """Whether ``old`` reports something that happened, not a state that holds: only a state
    can be superseded. Read on its main clause, before a reason or a remark."""
    main = _REASON.split(old, maxsplit=1)[0]
    if _PRESENT.search(main):
        return False
    return bool(_PASSIVE_PAST.search(main)) or past_event(main)


def _stem5(word: str) -> str:
    return word.casefold()[:5]


def _cjk_pairs(text: str) -> frozenset[str]:
    return frozenset(w for w in content_words(text) if HAN_OR_KATAKANA_RUN.search(w))


def _new_value(old: str, new: str) -> bool:
    """Whether ``new`` names a value ``old`` does not: a number, a name, an identifier."""
    low = old.casefold()
    if any(v.strip("`.,").casefold() not in low for v in _VALUE.findall(new) if v.strip("`.,")):
        return True
    # Chinese and Japanese names have no capitals: words the old one lacks ("由小李值班").
    return bool(_cjk_pairs(new) - _cjk_pairs(old))
