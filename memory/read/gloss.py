"""English words for a prompt written in another language: the lexical path across languages.

The notes an agent leaves are mostly English, and the packaged MiniLM reads English only: a
prompt in German or French ("ein paar Kunden haben die Versandbestätigung doppelt bekommen")
shares neither words nor a meaningful vector with the note that answers it. ``glossary.tsv``
maps the everyday words of software work in de, es, fr, nl, pt, it, tr, ja, zh, pl, cs, sv,
id, ko and ru (its header names the columns) to English ones; ``english_gloss`` returns the
English words for the words of a non-English prompt it knows ("customer customers shipping
confirmation duplicate twice"), which recall then searches beside the prompt and embeds with
it. An English prompt gets nothing.

Matching: a word of an alphabet (Latin, Cyrillic) matches a form that it equals, or that it
starts with when the form has at least four letters and the rest is an inflection (a Turkish
word takes longer suffixes); a Korean word matches a form of two syllables or more it starts
with (the particle follows: "파일이" is "파일"); a long German or Dutch compound matches the
forms it is made of; Japanese and Chinese text matches forms it contains.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from ...hooks.text import CJK

GLOSSARY = Path(__file__).with_name("glossary.tsv")
HANGUL = re.compile("[\uac00-\ud7a3]")
HANGUL_ENDING = 4  # syllables of particles and endings after a Korean form, at most

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
# Function words that mark English text: a prompt with enough of them needs no gloss.
# Not the ones other languages share: "a" (fr, es, pt, it), "in" (de, nl, it), "is" (nl),
# "was" and "will" (de), "on" (fr).
_ENGLISH = frozenset(
    "the an and are were to of for with it that this we our did do does what why how when "
    "which can you be have has not but from by at there their they been would should could "
    "my your its any some".split()
)
ENGLISH_SHARE = 0.12  # of a prompt's words, for it to read as English
SUFFIX = 4  # letters an inflection adds to a form, at most ...
SUFFIX_TR = 9  # ... in Turkish, which chains suffixes ("müşterilerimize")
PREFIX_MIN = 4  # a form matched as a prefix has at least this many letters
COMPOUND_MIN = 10  # a German or Dutch word this long may be a compound of known parts
PART_MIN = 5  # ... whose parts have at least this many letters


@dataclass(frozen=True)
class _Tables:
    """The glossary's forms by how they are matched."""

    exact: dict[str, str]  # word = form, or form + inflection
    turkish: dict[str, str]  # ... with Turkish suffixes
    parts: dict[str, str]  # parts of German and Dutch compounds
    korean: dict[str, str]  # a Korean word starts with the form
    cjk: list[tuple[str, str]]  # Japanese and Chinese: forms found inside the text


@functools.lru_cache(maxsize=1)
def _table() -> _Tables:
    """Forms -> English words: exact forms, Turkish forms, compound parts (de/nl), Korean
    forms, and the CJK forms longest first (a longer form is matched before the shorter one
    inside it). The languages are the header's columns after "en"."""
    tables = _Tables({}, {}, {}, {}, [])
    exact, turkish, parts, korean = tables.exact, tables.turkish, tables.parts, tables.korean
    cjk: dict[str, str] = {}
    try:
        lines = GLOSSARY.read_text(encoding="utf-8").splitlines()
    except OSError:
        return tables
    if not lines:
        return tables
    langs = lines[0].split("\t")[1:]
    for line in lines[1:]:
        cells = line.split("\t")
        if len(cells) != 1 + len(langs) or not cells[0].strip():
            continue
        en = cells[0].strip()
        # A form spelled like an English word ("client" in French) is read in the prompt's
        # language: only a prompt that is not English is glossed. The glossary leaves out the
        # false friends that are common English words ("gift", "also", "pays").
        for lang, cell in zip(langs, cells[1:], strict=True):
            for form in (f.strip().lower() for f in cell.split("|")):
                if not form:
                    continue
                if lang in ("ja", "zh"):
                    cjk.setdefault(form, en)
                    continue
                if lang == "ko":
                    if len(form) >= 2:
                        korean.setdefault(form, en)
                    continue
                if len(form) < 3:
                    continue
                (turkish if lang == "tr" else exact).setdefault(form, en)
                if lang in ("de", "nl") and len(form) >= PART_MIN:
                    parts.setdefault(form, en)
    tables.cjk[:] = sorted(cjk.items(), key=lambda kv: -len(kv[0]))
    return tables


# Function words of the other languages a note is read in, the most frequent few of each
# (de, fr, es, pt, it, nl, sv, pl, cs, id, tr): a note with more of them than of English ones
# is in another language, however many English identifiers it names.
_OTHER = frozenset(
    "der die das und ist nicht mit auf für ein eine wir ich es zu den dem des sich auch noch "
    "le la les et est pas avec pour une un des du dans que qui sur nous ce "
    "el los las y es con para por una lo del se al como pero "
    "o os é não com uma um do da na em mais "
    "il lo gli è non per che della nel si ma anche "
    "het en niet met voor een ook maar dat wel nog "
    "och är inte för att det som på jag vi ett av "
    "w z na nie się jest że jak ale przy dla od "
    "je se jsme jsou už tak "
    "yang dan di ini itu kita dari untuk tidak dengan ada "
    "ve bir bu için ile değil çok ama".split()
) - _ENGLISH
_OTHER_SCRIPT = re.compile("[\u0400-\u04ff\u0900-\u097f\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7a3]")
# Letters English does without: "gotówki", "różnica", "Lösung", "création", "ürünler".
_OTHER_LETTERS = re.compile(
    "[àâäãåçéèêëíìîïñóòôöõøúùûüýÿßąćęłńśźżčďěňřšťůžğışÀÂÄÃÅÇÉÈÊËÍÌÎÏÑÓÒÔÖÕØÚÙÛÜÝĄĆĘŁŃŚŹŻČĎĚŇŘŠŤŮŽĞŞ]"
)


def is_foreign(text: str) -> bool:
    """Whether a note is written in another language than English: a few letters of another
    script (Cyrillic, Devanagari, kana, Han, Hangul) or with accents English does without, or
    more of another language's function words than of English ones. Unlike ``is_english``,
    terse English ("The CFO wants daily revenue on a dashboard.") is not foreign for want of
    English function words."""
    if len(_OTHER_SCRIPT.findall(text)) >= 3 or len(_OTHER_LETTERS.findall(text)) >= 3:
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    other = sum(w in _OTHER for w in words)
    return other >= 2 and other > sum(w in _ENGLISH for w in words)


def is_english(text: str) -> bool:
    """Whether enough of the words of ``text`` are English function words."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return True
    return sum(w in _ENGLISH for w in words) / len(words) >= ENGLISH_SHARE


def _latin(word: str, exact: dict[str, str], turkish: dict[str, str]) -> str | None:
    if word in exact:
        return exact[word]
    if word in turkish:
        return turkish[word]
    for cut in range(len(word) - 1, PREFIX_MIN - 1, -1):  # the longest known prefix
        head = word[:cut]
        if len(word) - cut <= SUFFIX and head in exact:
            return exact[head]
        if len(word) - cut <= SUFFIX_TR and head in turkish and _turkish_suffix(word[cut:]):
            return turkish[head]
    return None


def _korean(word: str, korean: dict[str, str]) -> str | None:
    """The longest Korean form ``word`` starts with, the rest its particle or ending."""
    for cut in range(len(word), 1, -1):
        if len(word) - cut > HANGUL_ENDING:
            break
        if word[:cut] in korean:
            return korean[word[:cut]]
    return None


def _turkish_suffix(rest: str) -> bool:
    """Whether ``rest`` can be Turkish suffixes: by vowel harmony they hold a, e, ı, i, u, ü
    and an "o" only in "-yor"; so the Portuguese "dizendo" is not "dize" (string) + "ndo"."""
    return "o" not in rest.replace("yor", "") and "ö" not in rest


def _compound(word: str, parts: dict[str, str]) -> list[str]:
    """The known parts of a long word, longest first, not overlapping."""
    found: list[tuple[int, str]] = []
    taken = [False] * len(word)
    for size in range(len(word) - 1, PART_MIN - 1, -1):
        for start in range(0, len(word) - size + 1):
            piece = word[start:start + size]
            if piece in parts and not any(taken[start:start + size]):
                found.append((start, parts[piece]))
                taken[start:start + size] = [True] * size
    return [en for _, en in sorted(found)]


def english_gloss(text: str) -> str:
    """English words for the words of ``text`` the glossary knows, in order and once each;
    "" for an English text."""
    if is_english(text):
        return ""
    t = _table()
    exact, turkish, parts, cjk = t.exact, t.turkish, t.parts, t.cjk
    out: list[str] = []
    for word in (w.lower() for w in _WORD.findall(text)):
        if CJK.search(word):
            continue
        if HANGUL.search(word):
            en = _korean(word, t.korean)
            if en is not None:
                out.append(en)
            continue
        en = _latin(word, exact, turkish)
        if en is not None:
            out.append(en)
        elif len(word) >= COMPOUND_MIN:
            out += _compound(word, parts)
    if CJK.search(text):
        rest = text
        for form, en in cjk:
            if form in rest:
                out.append(en)
                rest = rest.replace(form, " ")
    seen: list[str] = []
    for en in out:
        for w in en.split():
            if w not in seen:
                seen.append(w)
    return " ".join(seen)
