"""Rule-based, multilingual cause/effect extraction: one sentence in, directed spans out.

Why rules and no model: the memory runs offline on a laptop, and `why()` needs directed
edges ("X caused Y") with a cheap, explainable provenance (the cue word). A cue lexicon with a
*direction* per cue covers the phrasing agents and users actually write ("the deploy broke
checkout", "rolled back because the migration locked the table", "Dadurch ..."), and it runs in
well under a millisecond per sentence because every cue lives in one compiled alternation.

How a sentence is read:

1. One regex (all cues of all languages, longest first, word-bounded, case-insensitive) finds the
   cue occurrences left to right. Each cue has a `_Kind` that says where cause and effect sit:

   ========  =======================================  ==========================================
   kind      shape                                    example
   ========  =======================================  ==========================================
   FWD       cause CUE effect                         "X led to Y", "X verursachte Y"
   GATED     cause VERB effect, subject must be an    "Higher rates increased costs" (not
             event, not an agent                      "The company increased its budget")
   BWD       effect CUE cause / CUE cause, effect     "Y because X", "Because X, Y", "Weil X, Y"
   PASSIVE   effect was VERB-ed by cause              "The truck was delayed by heavy traffic"
   ADV       cause, CUE effect / CUE effect           "X, so Y"; sentence-initial "Deshalb Y"
             (back-reference to previous sentence)
   COND      When/If cause, effect                    "When the CPU heats up, it throttles"
   SOV       cause effect CUE  (verb-final)           "Akciğer hasarı öksürüğe yol açar"
   POSTP     cause CUE effect  (postposition)         "Yağmur yüzünden maç iptal edildi"
   ========  =======================================  ==========================================

2. Context checks veto the ambiguous cues: temporal "since 2019", "so that", "so far",
   "after lunch" without a failure verb, "made of", a quoted "because", and so on. Precision
   matters more than recall: a wrong causal edge misleads `why()`, a missing one only shortens it.

3. Each side is cut to its clause (commas that open a new clause, relative pronouns, the next
   cue) and trimmed of cue words, discourse words ("and", "so", "then", "the fact that") and
   trailing punctuation. Identifiers and numbers are kept verbatim.

4. A side that is only an anaphor ("This", "Because of that", "Dadurch", "Bu nedenle") is
   reported with `backref="cause"` (or "effect"), so the caller links it to the previous
   sentence of the same session.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Protocol

__all__ = ["CausalExtractor", "CausalSpan", "RuleCausalExtractor", "extract_causes"]


@dataclass(frozen=True)
class CausalSpan:
    """One directed causal relation found in a sentence.

    `cause` and `effect` are event phrases cut from the sentence (no cue word, no trailing
    punctuation). `backref` says which side, if any, is only a pointer to the previous sentence.
    """

    cause: str
    effect: str
    cue: str
    confidence: float
    backref: str | None = None


class CausalExtractor(Protocol):
    """The seam: anything that turns one sentence into directed causal spans."""

    def extract(self, sentence: str) -> list[CausalSpan]: ...


class _Kind(Enum):
    FWD = "fwd"
    GATED = "gated"
    BWD = "bwd"
    PASSIVE = "passive"
    ADV = "adv"
    COND = "cond"
    SOV = "sov"
    POSTP = "postp"
    FIXBY = "fixby"


@dataclass(frozen=True)
class _Cue:
    kind: _Kind
    confidence: float
    lang: str
    # Clause-level cues ("since", "da", "car", "want") only count after a comma or at the
    # start of the sentence, where they cannot be a preposition or an English noun.
    clause_only: bool = False
    # Cues that only count at the very start of the sentence ("Durch X, ...", "Door X ...").
    initial_only: bool = False


# --------------------------------------------------------------------------------------------
# The lexicon. Each entry: (kind, confidence, lang, flags, phrases). Phrases are plain words
# separated by spaces (matched with any whitespace between); a phrase starting with "re:" is a
# raw regex fragment. Longest phrases are tried first.
# --------------------------------------------------------------------------------------------

_F, _G, _B, _P, _A, _C, _S, _PP = (
    _Kind.FWD, _Kind.GATED, _Kind.BWD, _Kind.PASSIVE, _Kind.ADV, _Kind.COND, _Kind.SOV,
    _Kind.POSTP,
)
_CLAUSE, _INITIAL = "clause", "initial"

_PASSIVE_VERBS = (
    "caused|triggered|driven|prompted|sparked|fueled|fuelled|delayed|blocked|disrupted|damaged"
    "|slowed|interrupted|broken|stopped|halted|prevented|destroyed|killed|injured|hit|affected"
    "|forced|motivated|provoked|exacerbated|worsened|hampered|hindered|limited|offset|outweighed"
)

_LEXICON: tuple[tuple[_Kind, float, str, str, tuple[str, ...]], ...] = (
    # ---------------------------------------------------------------- English
    (_F, 0.9, "en", "", (
        "caused", "causes", "cause", "led to", "leads to", "lead to", "leading to", "has led to",
        "had led to", "have led to", "resulted in", "results in", "result in", "resulting in",
        "gave rise to", "gives rise to", "give rise to", "giving rise to", "triggered", "triggers",
        "trigger", "triggering", "causing", "is why", "was why", "which is why", "that is why",
        "that's why", "is the reason why", "is the reason for", "was the reason for",
        "was the reason why", "is responsible for", "was responsible for", "sparked", "sparks",
        "sparking", "prompted", "prompts", "prompting", "contributed to", "contributes to",
        "contributing to", "brought about", "brings about",
    )),
    (_G, 0.6, "en", "", (
        "broke", "breaks", "made", "makes", "making", "produced", "produces", "forced", "forces",
        "forcing", "increased", "increases", "increasing", "reduced", "reduces", "reducing",
        "raised", "raises", "raising", "lowered", "lowers", "decreased", "decreases", "cut",
        "cuts", "boosted", "boosts", "improved", "improves", "improving", "worsened", "worsens",
        "worsen", "delayed", "delays", "damaged", "damages", "damage", "shortened", "shortens",
        "lengthened", "drained", "drains", "stopped", "stops", "prevented", "prevents",
        "blocked", "blocks", "killed", "kills", "killing", "slowed", "slows", "allowed",
        "allows", "enabled", "enables", "kept", "keeps", "left", "leaving", "pushed", "pushes",
        "drove", "drives", "amplifies", "amplified", "narrow", "narrows", "narrowed",
        "dried out", "funded", "generated", "generates", "created", "creates", "stimulates",
        "precipitate", "precipitated", "raise", "increase", "reduce", "injuring", "injured",
        "destroyed", "disrupted", "disrupts", "crashed", "crashes", "overloaded", "saturated",
        "exhausted", "exceeded", "led", "leads", "let", "lets", "worsen", "warm", "removed", "removes", "eliminated", "introduced", "introduces",
        "releases", "released", "traps", "trapped", "warms", "warmed", "slows down",
        "slowed down", "sped up", "speeds up", "fixed", "fixes", "solved", "resolved",
        "mitigated", "invalidated", "corrupted", "locked", "exposed", "evoked", "affected",
        "affects", "hurt", "hurts", "harmed", "harms", "doubled", "tripled", "halved",
        "expanded", "expands", "dropped", "drops", "shrank", "shrinks", "lifted", "lifts",
        "accelerated", "accelerates", "weakened", "weakens", "strengthened", "strengthens",
        "exhausts", "overloads", "flooded", "floods",
    )),
    # ---------------------------------------------------------------- French (gated verbs)
    (_G, 0.55, "fr", "", (
        "a inondé", "a laissé", "a réduit", "a bloqué", "a retardé", "a endommagé",
        "endommage", "a empêché", "empêche", "a permis", "permet", "a détruit", "a aggravé",
        "aggrave", "a saturé", "sature",
    )),
    # ---------------------------------------------------------------- Dutch (gated verbs)
    (_G, 0.55, "nl", "", (
        "verhoogde", "verhoogt", "verlaagde", "verlaagt", "verminderde", "vermindert",
        "vertraagde", "vertraagt", "blokkeerde", "blokkeert", "verhinderde", "verhindert",
        "beschadigde", "beschadigt", "overbelastte", "vulde",
    )),
    (_B, 0.9, "en", "", (
        "because of", "because", "due to", "as a result of", "as a consequence of",
        "on account of", "owing to", "all because of", "is due to", "was due to", "were due to",
        "resulting from", "stemming from", "stems from", "stemmed from", "arising from",
        "arising out of", "in the wake of", "in wake of", "in response to", "in reaction to",
        "attributed to", "blamed on", "was the result of", "is the result of",
        "was the outcome of", "the result of", "in protest against", "in protest of",
        "in protest over", "in protest at",
    )),
    (_B, 0.7, "en", "", (
        "thanks to", "following", "in connection with", "in support of", "demanding",
        "demanding that", "protesting", "protesting against", "in a bid to", "in order to",
        "in an attempt to", "over",
    )),
    (_B, 0.7, "en", _CLAUSE, ("since", "as")),
    # "arrested for looting", "fixed it by restarting", "marched to protest": checked in _valid.
    (_B, 0.45, "en", "", ("for", "by", "to")),
    (_B, 0.5, "en", "", ("after",)),
    (_P, 0.8, "en", "", (
        rf"re:(?:was|were|is|are|been|being|be|got|get|gets)\s+(?:\w+ly\s+)?(?:{_PASSIVE_VERBS})\s+by",
        rf"re:(?:{_PASSIVE_VERBS})\s+by",
    )),
    (_A, 0.85, "en", "", (
        "therefore", "thus", "hence", "consequently", "as a result", "as a consequence",
        "because of this", "because of that", "for this reason", "for that reason",
        "and thus", "and therefore", "and hence", "and so", "so",
    )),
    (_C, 0.5, "en", _INITIAL, ("when", "whenever", "if", "once")),
    # ---------------------------------------------------------------- German
    (_F, 0.9, "de", "", (
        "führte zu", "führt zu", "führten zu", "führen zu", "führte dazu , dass",
        "führt dazu , dass", "führten dazu , dass", "führte dazu", "führt dazu",
        "verursachte", "verursachten", "verursacht", "bewirkte", "bewirkt",
        "hatte zur folge , dass", "hatte zur folge", "sodass", "so dass", "löste", "lösten",
        "ist der grund für", "war der grund für",
    )),
    (_G, 0.55, "de", "", (
        "erhöht", "erhöhte", "senkt", "senkte", "steigert", "steigerte", "verringert",
        "verringerte", "ermöglicht", "ermöglichte", "verhinderte", "verhindert", "verzögerte",
        "verzögert", "beschädigte",
    )),
    (_B, 0.9, "de", "", (
        "weil", "wegen", "aufgrund", "auf grund", "infolge", "aufgrund von", "infolge von",
        "verursacht durch", "aus diesem grund",
    )),
    (_B, 0.75, "de", _CLAUSE, ("da", "denn")),
    (_B, 0.6, "de", _INITIAL, ("durch",)),
    (_A, 0.85, "de", "", (
        "deshalb", "daher", "dadurch", "deswegen", "darum", "folglich", "somit",
        "infolgedessen", "aus diesem grund",
    )),
    (_C, 0.5, "de", _INITIAL, ("wenn", "sobald", "falls")),
    # ---------------------------------------------------------------- French
    (_F, 0.9, "fr", "", (
        "a entraîné", "ont entraîné", "entraîne", "entraînent", "entraînera", "a provoqué",
        "ont provoqué", "provoque", "provoquent", "a causé", "ont causé", "causent",
        "a conduit à", "conduit à", "mène à", "a mené à", "est la raison pour laquelle",
    )),
    (_B, 0.9, "fr", "", (
        "parce que", "parce qu'", "à cause de", "à cause du", "à cause des", "en raison de",
        "en raison du", "en raison des", "causé par", "causée par", "provoqué par",
        "provoquée par", "puisque", "dû à", "due à", "à la suite de", "suite à", "suite au",
        "suite aux", "grâce à", "grâce au", "grâce aux",
    )),
    (_B, 0.75, "fr", _CLAUSE, ("car",)),
    (_A, 0.8, "fr", "", (
        "donc", "par conséquent", "en conséquence", "c'est pourquoi", "c’est pourquoi",
        "c'est pour cela que", "de ce fait", "ainsi",
    )),
    (_C, 0.5, "fr", _INITIAL, ("lorsque", "lorsqu'", "quand", "si", "dès que")),
    # ---------------------------------------------------------------- Spanish
    (_F, 0.9, "es", "", (
        "provocó", "provoca", "provocan", "provocaron", "causó", "causan", "causaron",
        "llevó a", "lleva a", "llevaron a", "llevó al", "condujo a", "dio lugar a",
        "da lugar a", "resultó en", "ocasionó", "generó",
    )),
    (_G, 0.55, "es", "", (
        "redujo", "reduce", "reducen", "redujeron", "aumentó", "aumenta", "aumentan",
        "aumentaron", "subió", "disminuyó", "cerró", "agrietó", "elevó", "eleva",
    )),
    (_B, 0.9, "es", "", (
        "porque", "debido a", "debido al", "a causa de", "a causa del", "por culpa de",
        "como resultado de", "como consecuencia de", "ya que", "puesto que", "gracias a",
        "causado por", "causada por", "provocado por", "provocada por",
    )),
    (_A, 0.8, "es", "", (
        "por lo tanto", "por eso", "por ello", "así que", "como resultado", "en consecuencia",
        "por consiguiente", "por lo que",
    )),
    (_C, 0.5, "es", _INITIAL, ("cuando", "si")),
    # ---------------------------------------------------------------- Dutch
    (_F, 0.9, "nl", "", (
        "leidde tot", "leidt tot", "leiden tot", "leidden tot", "heeft geleid tot",
        "veroorzaakte", "veroorzaakt", "veroorzaakten", "zorgde voor", "zorgt voor",
        "zorgden voor", "resulteerde in", "resulteert in", "waardoor",
    )),
    (_B, 0.9, "nl", "", (
        "omdat", "doordat", "als gevolg van", "vanwege", "wegens", "dankzij",
        "veroorzaakt door",
    )),
    (_B, 0.75, "nl", _CLAUSE, ("want",)),
    (_B, 0.6, "nl", _INITIAL, ("door",)),
    (_A, 0.85, "nl", "", ("daardoor", "daarom", "dus", "als gevolg", "hierdoor", "dientengevolge")),
    (_C, 0.5, "nl", _INITIAL, ("wanneer", "als", "zodra")),
    # ---------------------------------------------------------------- Turkish
    (_B, 0.9, "tr", "", ("çünkü",)),
    (_PP, 0.85, "tr", "", (
        "yüzünden", "nedeniyle", "sebebiyle", "dolayı", "sonucunda", "sonucu olarak",
        r"re:\w+(?:d|t)(?:ığı|iği|uğu|üğü|ıkları|ikleri|ukları|ükleri)\s+için",
        r"re:\w+(?:dığından|diğinden|duğundan|düğünden|tığından|tiğinden|tuğundan|tüğünden)",
    )),
    (_S, 0.85, "tr", "", (
        "yol açtı", "yol açar", "yol açıyor", "yol açmıştır", "yol açabilir", "neden oldu",
        "neden olur", "neden olmuştur", "neden olabilir", "sebep oldu", "sebep olur",
        "zarar verir", "zarar verdi",
    )),
    (_S, 0.6, "tr", "", (
        "düşürür", "düşürdü", "artırır", "artırdı", "azaltır", "azalttı", "engelledi",
        "engeller", "geciktirdi", "geciktirir", "bozdu", "bozar",
    )),
    (_A, 0.85, "tr", "", (
        "bu nedenle", "bu yüzden", "bu sebeple", "bundan dolayı", "dolayısıyla", "bu yüzden de",
    )),
    # ---------------------------------------------------------------- Portuguese
    (_F, 0.9, "pt", "", (
        "causou", "causaram", "levou a", "levou ao", "levou à", "levaram a", "leva a",
        "provocou", "provocaram", "resultou em", "resulta em", "resultaram em", "ocasionou",
    )),
    (_B, 0.9, "pt", "", (
        "devido a", "devido ao", "devido à", "por causa de", "por causa do", "por causa da",
        "já que", "uma vez que", "graças a", "causado por", "causada por",
    )),
    (_A, 0.8, "pt", "", (
        "portanto", "por isso", "como resultado", "consequentemente", "por conseguinte",
        "então", "assim",
    )),
    (_C, 0.5, "pt", _INITIAL, ("quando", "se")),
)

# "X broke out" / "made of" / "so far": a gated or adverbial cue followed by one of these is not
# causal. Keys are lowercased cue texts; values are regexes tried right after the cue.
_VETO_AFTER: dict[str, re.Pattern[str]] = {
    cue: re.compile(pattern, re.IGNORECASE)
    for cue, pattern in {
        "so": r"\s*(?:that\b|far\b|-|called\b|much\b|many\b|long\b|good\b|on\b|to speak\b|as\b|"
        r"[a-z]+ly\b|\w+\s+that\b|\w+\s*[.!?]?\s*$)",
        "made": r"\s+(?:of|by|up|out|sure|it|a|an|the decision|with|in|from|for|to\s+\w+)\b",
        "makes": r"\s+(?:of|by|up|sure|it|a|an|with|for)\b",
        "making": r"\s+(?:of|by|up|sure|it|a|an|with|for)\b",
        "broke": r"\s+(?:out|down|up|into|through|away|off|in)\b",
        "breaks": r"\s+(?:out|down|up|into|through|away|off|in)\b",
        "left": r"\s+(?:for|to|the\s+(?:party|company|building|country|city|office|room|house))\b"
        r"|\s*[,.]|\s+(?:at|on|in|after|before|with|early|behind|without)\b",
        "leaving": r"\s+(?:for|to|the\s+(?:party|company|building|country|city|office|room|house))\b"
        r"|\s+(?:at|on|in|after|before|with|early|behind|without)\b",
        "as": r"\s+(?:well|a|an|the|of|part|soon|long|far|much|many|such|if|though|per|to|"
        r"for|usual|expected|planned|before|always|such|\d)\b",
        "for": r"",
        "over": r"\s+(?:the\s+(?:past|last|next|weekend|years?|months?|weeks?|days?)|\d|a\s+"
        r"(?:year|month|week|day|decade))\b",
        "following": r"\s+(?:day|week|month|year|morning|evening|steps?|code|command|error|"
        r"lines?|way|instructions)\b",
        "cut": r"\s+(?:off|across|through|short)\b",
        "cause": r"\s+(?:of|for|and|is|was|analysis)\b",
        "causes": r"\s+(?:of|for|and|are|were)\b",
        "if": r"\s+(?:any|not|so|possible|needed|necessary|only)\b",
        "as a result": r"\s+of\b",
        "as a consequence": r"\s+of\b",
        "so dass": r"",
        "dus": r"\s*[,.]?\s*$",
        "ainsi": r"\s+que\b",
        "assim": r"\s+como\b",
        "fixed": r"\s+(?:at|in|on|to|price|rate|size|width|point)\b",
        "then": r"",
        "led": r"(?!\s+(?:[\w'’-]+\s+){1,3}to\b)",
        "leads": r"(?!\s+(?:[\w'’-]+\s+){1,3}to\b)",
        "let": r"\s+(?:me|us|them|him|her|you|go|down)\b",
        # Verbs that are also intransitive: "latency dropped to 5 ms", "the team expanded in 2020".
        **{
            v: r"\s+(?:to|by|from|in|at|on|off|out|below|above|over|under|sharply|\d)"
            for v in ("dropped", "drops", "expanded", "expands", "shrank", "shrinks", "lifted",
                      "lifts", "accelerated", "accelerates", "weakened", "weakens",
                      "strengthened", "strengthens", "flooded", "floods")
        },
        "lets": r"\s+(?:me|us|them|him|her|you|go|down)\b",
    }.items()
}
# "for" is only causal in "for + gerund/this reason"; the veto above is empty and the check lives
# in _valid(). "the cause of", "a cause for" never start a forward relation.
_VETO_BEFORE: dict[str, re.Pattern[str]] = {
    cue: re.compile(pattern + r"\s*$", re.IGNORECASE)
    for cue, pattern in {
        "cause": r"\b(?:the|a|an|root|main|likely|probable|possible|no|this|that|its|his|her|"
        r"their|our|la|une|le|de)",
        "causes": r"\b(?:the|root|main|likely|possible|its|their|our)",
        "following": r"\b(?:the|a|by|in|of|is|are|was|were|be)",
        "made": r"\b(?:be|been|was|were|is|are|being|has|have|had)",
        "as": r"\b(?:such|same|so|as|just|known|well|seen|used|served|act|acts|acted)",
        "left": r"\b(?:is|was|were|are|be|been|has|have|had|the|on|to|turn|turned|far)",
        "fixed": r"\b(?:is|was|were|are|be|been|the|a)",
        "over": r"\b(?:is|was|were|are|game|all|take|took|taken|switch|switched|move|moved|"
        r"roll|rolled|hand|handed|turn|turned|run|ran|went|go|come|came|carry|carried|look|"
        r"looked|think|thinking|thought|hand|control|power|win|won|lead|priority|preference)",
        "leading to": r"\b(?:the\s+\w+|road|path|door|stairs|steps)",
        "a": r"",
    }.items()
}

_FAILURE_VERBS = re.compile(
    r"\b(?:fail(?:s|ed|ing)?|crash(?:es|ed|ing)?|broke|break(?:s|ing)?|broken|went down|goes down|"
    r"stopp?(?:ed|s|ing)?\s+working|stopped|died|dies|collapsed?|errored|errors|timed out|"
    r"times out|regress(?:ed|es)?|hung|hangs|froze|freezes|spiked?|dropped|plunged|plummeted|"
    r"surged|soared|rose|jumped|fell|panicked|panics|leaked|leaks|overheated|degraded|"
    r"was (?:killed|injured|arrested|detained|shot|cancelled|canceled|suspended|fired|removed|"
    r"banned|closed|disabled|rolled back|reverted|lost)|were (?:killed|injured|arrested|detained|"
    r"shot|cancelled|suspended|fired|removed|banned|closed|disabled|lost)|resigned|protested|"
    r"rolled back|reverted|rebooted|restarted|OOM|OOMed|broke down|went on strike|struck|"
    r"(?:was|were|are|is|been|got|be)\s+(?:\w+\s+)?(?:killed|injured|wounded|hurt|arrested|"
    r"detained|damaged|destroyed|delayed|blocked|cancell?ed|canceled|postponed|halted|suspended|"
    r"evacuated|lathicharged|dispersed|stranded|disrupted|affected|throttled|dropped|lost))\b",
    re.IGNORECASE,
)

# "arrested X for looting": "for + gerund" is causal after a sanction or praise verb.
_SANCTION = re.compile(
    r"\b(?:arrest\w*|charg\w*|booked|detain\w*|jail\w*|sentenc\w*|fin(?:e|ed|es)|punish\w*|"
    r"blam\w*|critici[sz]\w*|praise\w*|thank\w*|apologi[sz]\w*|sued?|suspend\w*|fired|"
    r"expel\w*|bann\w*|penali[sz]\w*|condemn\w*|slam\w*|protest\w*|attack\w*|beat(?:en)?|"
    r"assault\w*|killed|punish\w*|rebuk\w*|reprimand\w*|reject\w*|flagged|rolled back|"
    r"reverted|failed|known|famous|responsible)\b[^,;]*$",
    re.IGNORECASE,
)
# "marched to the district office to protest": a purpose "to" after a protest verb. News style,
# rare in engineering notes, so it costs little precision there.
_PROTEST = re.compile(
    r"\b(?:protest\w*|march\w*|rall(?:y|ied|ies)|gather\w*|strike|struck|demonstrat\w*|"
    r"assembled|staged|took to the streets?|squatted|sit-in|dharna|bandh|agitat\w*|blockade\w*|"
    r"picket\w*|boycott\w*|came out|converged|thronged|block\w*|laid siege|gheraoed|"
    r"sat|held|organi[sz]ed|called|launched|went|walked|stormed|shut|closed|rushed|"
    r"dispatched|deployed|mobili[sz]ed)\b[^,;.]*$",
    re.IGNORECASE,
)
_ATTRIBUTION_LEAD = re.compile(
    r"^.*?\b(?:(?:said|says|added|stated|told\s+\w+)\s+(?:on\s+\w+\s+)?(?:that\s+)?|"
    r"(?:claimed|alleged|reported|noted|explained|believes?|thinks?)\s+that\s+)(?=\w)",
    re.IGNORECASE,
)
_ATTRIBUTION_TRAIL = re.compile(
    r"\s*,\s*(?:[\w.'’-]+\s+){0,6}(?:said|says|added|reported|told|stated|claimed|alleged)"
    r"\b.*$|\s*,\s*(?:said|says|according to)\b.*$",
    re.IGNORECASE,
)

# A finite-looking verb: used to tell a clause ("since the cache was cold") from a time phrase
# ("since Monday", "after lunch").
_FINITE = re.compile(
    r"\b(?:is|are|was|were|has|have|had|did|does|do|got|gets|can|could|would|will|went|came|"
    r"became|began|took|made|left|ran|fell|rose|broke|hit|cut|set|put|\w{2,}ed|\w{3,}s)\b",
    re.IGNORECASE,
)
_TIME_WORDS = re.compile(
    r"^\s*(?:\d|the (?:beginning|start|end|dawn|early|late|last|first|morning|weekend)|"
    r"(?:last|early|late|mid|this|next)\b|yesterday|today|then|now|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|lunch|dinner|breakfast|midnight|noon|work|school|"
    r"class|that time|then|ever|long|version|v\d|release|the release|the update|the upgrade|"
    r"the migration|the deploy|the restart|the launch|a while|years?|months?|weeks?|days?|"
    r"hours?|minutes?)\b",
    re.IGNORECASE,
)

# A pronoun, a named person or an organisation is an agent: "The company increased its budget"
# is a decision, not a cause. Gated verbs need an event-like subject.
_AGENT_HEADS = frozenset(
    """i we you he she they me us him them who someone somebody everyone people person company
    companies bank banks team teams firm firms user users customer customers engineer engineers
    manager managers agent agents driver drivers government governments police reserve fed ceo
    cfo cto board committee department ministry minister president officials official owner
    staff employee employees developer developers admin admins administrator operator operators
    client clients patient patients doctor doctors student students teacher teachers worker
    workers authorities authority court judge organizers protesters protestors group members
    member party state administration leader leaders director management vendor vendors
    supplier suppliers partner partners platform university school council union army troops
    officers man woman men women boy girl children parents family friend friends mom dad
    wife husband""".split()
)
_EVENTISH_SUFFIX = re.compile(
    r"(?:ing|tion|sion|ment|ity|ness|age|ure|sis|ance|ence|ure|cy|ism|ies|ts|es|ss)$", re.IGNORECASE
)

_ANAPHOR_SET = frozenset(
    p.strip()
    for p in """this|that|it|these|those|this change|that change|this bug|that bug|this issue|
    that issue|this problem|that problem|this error|that error|this fix|this update|the change|
    because of that|because of this|as a result|as a consequence|therefore|thus|hence|so|
    consequently|for this reason|for that reason|that's why|that is why|this is why|which|
    das|dies|dieses|diese|es|deshalb|daher|dadurch|deswegen|darum|folglich|somit|
    infolgedessen|aus diesem grund|cela|ceci|ça|ce|c'est pourquoi|c’est pourquoi|donc|
    par conséquent|en conséquence|de ce fait|ainsi|esto|eso|ello|por eso|por ello|por lo tanto|
    así que|como resultado|en consecuencia|por consiguiente|por lo que|dit|dat|het|daardoor|
    daarom|dus|hierdoor|als gevolg|dientengevolge|bu|bunlar|şu|bu nedenle|bu yüzden|
    bu sebeple|bundan dolayı|dolayısıyla|bu yüzden de|isso|isto|portanto|por isso|então|assim|
    consequentemente|por conseguinte""".split("|")
)

# Words stripped from the edges of a side. Leading: conjunctions and discourse words. Trailing:
# modals and adverbs left over before a cue ("can cause", "also led to").
_LEAD_STRIP = re.compile(
    r"^(?:(?:and|but|or|so|then|which|that|who|whom|whose|also|thereby|thus|hence|therefore|"
    r"consequently|furthermore|moreover|however|meanwhile|in turn|in fact|the fact that|"
    r"the fact|it is|und|aber|dann|dass|et|mais|puis|que|qu'|y|pero|luego|e|mas|en|maar|dat|"
    r"toen|ve|ama|ki|eventually|finally|ultimately|which in turn|only|partly|largely|"
    r"mainly|mostly|primarily|directly|indirectly|simply|just|even|all)\b[\s,]*)+",
    re.IGNORECASE,
)
_TRAIL_STRIP = re.compile(
    r"(?:[\s,]+(?:can|could|may|might|will|would|should|must|also|often|further|directly|"
    r"indirectly|eventually|ultimately|finally|then|in turn|which|that|who|and|but|partly|largely|mainly|mostly|primarily|allegedly|reportedly|apparently|"
    r"probably|likely|only|just|even|all|not only|kan|kann|peut|puede|pode|ook|auch|aussi|"
    r"también|também|ve)\b)+$",
    re.IGNORECASE,
)
_EDGE_PUNCT = " \t\n,;:.!?\"'“”‘’«»„-–—"

# Where a side stops. The right side of a cue runs to the first of these; the left side starts
# after the last one.
_HARD_BOUNDARY = re.compile(r"\s*(?:[;:]|\s[-–—]\s|\(|\))\s*")
_RIGHT_CLAUSE_END = re.compile(
    r"\s*,\s*(?=(?:which|who|whom|where|while|whereas|but|although|though|and\s+(?:then\s+)?"
    r"(?:the|a|an|this|that|it|we|they|he|she|i)\b|leading|causing|resulting|prompting|"
    r"forcing|making|increasing|reducing|improving|triggering|sparking|leaving|killing|"
    r"injuring|according|said|says|saying|officials|police|reports?|sources|"
    r"die|der|das|was|wo|aber|qui|que|mais|lo que|que|pero|waardoor|wat|die|maar|ama|"
    r"o que|mas)\b)"
    r"|\s+(?:which|who)\s+(?=\w)",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w'’.-]+", re.UNICODE)


_PASSIVE_AUX = ("was", "were", "is", "are", "been", "being", "be", "got", "get", "gets")


def _phrase_regex(phrase: str) -> str:
    """Turn a lexicon phrase into a regex fragment (spaces match any whitespace)."""
    if phrase.startswith("re:"):
        return phrase[3:]
    parts = [re.escape(p) for p in phrase.split()]
    return r"\s*".join(parts) if "," in phrase else r"\s+".join(parts)


def _first_words(phrase: str) -> tuple[str, ...]:
    """The lowercase words a phrase can start with: the index key of the cue table."""
    if not phrase.startswith("re:"):
        return (phrase.split()[0].lower(),)
    if phrase.startswith(r"re:\w+"):
        return ("*",)  # a suffix cue (Turkish "-dığı için"): scanned separately
    if phrase.startswith("re:(?:was|"):
        return _PASSIVE_AUX
    return tuple(_PASSIVE_VERBS.split("|"))


_Table = dict[str, tuple[tuple[re.Pattern[str], _Cue], ...]]


def _compile_lexicon() -> tuple[_Table, re.Pattern[str], tuple[_Cue, ...]]:
    """Index every cue by its first word, longest phrase first.

    One big alternation tried at every character is ~100x slower than looking up each word of
    the sentence in a dict and trying only the few cues that start with it.
    """
    entries: dict[str, tuple[str, _Cue]] = {}
    for kind, conf, lang, flags, phrases in _LEXICON:
        cue = _Cue(kind, conf, lang, clause_only=flags == _CLAUSE, initial_only=flags == _INITIAL)
        for phrase in phrases:
            entries.setdefault(_phrase_regex(phrase), (phrase, cue))
    table: dict[str, list[tuple[int, re.Pattern[str], _Cue]]] = {}
    suffix: list[tuple[str, _Cue]] = []
    for fragment, (phrase, cue) in entries.items():
        rank = 100 if phrase.startswith("re:") else len(phrase)
        compiled = re.compile(rf"(?:{fragment})(?![\w'’-])", re.IGNORECASE)
        for word in _first_words(phrase):
            if word == "*":
                suffix.append((fragment, cue))
            else:
                table.setdefault(word, []).append((rank, compiled, cue))
    ordered: _Table = {
        w: tuple((p, c) for _, p, c in sorted(v, key=lambda t: -t[0])) for w, v in table.items()
    }
    suffix_re = re.compile(
        "|".join(f"(?P<s{i}>{f})" for i, (f, _) in enumerate(suffix)) + r"(?![\w'’-])",
        re.IGNORECASE,
    )
    return ordered, suffix_re, tuple(c for _, c in suffix)


_TABLE, _SUFFIX_RE, _SUFFIX_CUES = _compile_lexicon()
_WORD_START = re.compile(r"(?<![\w'’-])[\w'’]+", re.UNICODE)
_WHEN = frozenset({"when", "whenever", "wenn", "lorsque", "quand", "cuando", "quando", "wanneer"})
_AUX_BEFORE = re.compile(
    r"\b(?:was|were|is|are|be|been|being|get|got|gets|has|have|had|not|n't|to|who|wurde|"
    r"wurden|werden|wird|est|sont|a été|fue|fueron|foi|werd|werden|is)\s+(?:\w+ly\s+)?$",
    re.IGNORECASE,
)
_NOUNISH = frozenset(
    "increase increases raise raises cut cuts damage damages delay delays drains blocks stops "
    "kills cause causes trigger triggers result results leads let lets warm narrow reduce "
    "worsen made".split()
)
_DET_BEFORE = re.compile(
    r"\b(?:a|an|the|this|that|its|their|our|his|her|no|any|each|every|some)\s+"
    r"(?:[\w'’%-]+\s+)?$",
    re.IGNORECASE,
)
_FIX_BY = re.compile(
    r"\b(fixed|resolved|solved|mitigated|worked around|repaired|unblocked|restored)\s+(.+)$",
    re.IGNORECASE,
)
_QUOTES = "\"“”'‘’«»„"


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    text: str
    cue: _Cue


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip(_EDGE_PUNCT)).lower()


def _trim(text: str) -> str:
    """Cut a side down to its event phrase: no discourse words, modals or edge punctuation."""
    out = text.strip(_EDGE_PUNCT)
    for _ in range(3):
        before = out
        stripped = _LEAD_STRIP.sub("", out).strip(_EDGE_PUNCT)
        if stripped:
            out = stripped
        stripped = _TRAIL_STRIP.sub("", out).strip(_EDGE_PUNCT)
        if stripped:
            out = stripped
        if out == before:
            break
    if out.count("(") < out.count(")"):
        out = out.rstrip(")").strip(_EDGE_PUNCT)
    if out.count("(") > out.count(")") and out.endswith("("):
        out = out[:-1].strip(_EDGE_PUNCT)
    return re.sub(r"\s+", " ", out)


def _is_anaphor(text: str) -> bool:
    return _norm(text) in _ANAPHOR_SET


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _agentive(subject: str) -> bool:
    """True when a gated verb's subject looks like an agent (person, org, pronoun), not an event."""
    words = _words(subject)
    if not words:
        return False
    first, head = words[0].lower(), words[-1].lower().rstrip("'’s")
    if first in _AGENT_HEADS or head in _AGENT_HEADS:
        return True
    if len(words) == 1:
        word = words[0]
        if word.isupper() or _EVENTISH_SUFFIX.search(word) or word[:1].islower():
            return False
        return True  # a bare capitalised name: "Alice", "Tom"
    if len(words) == 2 and words[0][:1].isupper() and words[1][:1].isupper():
        return not _EVENTISH_SUFFIX.search(words[1])  # "Mark Smith"
    return False


class RuleCausalExtractor:
    """Cue-lexicon extractor: directed cause/effect spans for EN, DE, FR, ES, NL, TR and PT.

    `min_confidence` drops weak readings (conditionals, "after", news-style purpose cues) for
    callers that want only confident edges.
    """

    def __init__(self, min_confidence: float = 0.0) -> None:
        self.min_confidence = min_confidence

    def extract(self, sentence: str) -> list[CausalSpan]:
        """Return the causal spans of one sentence, left to right; [] when none is found."""
        text = sentence.strip()
        if not text:
            return []
        hits = [h for h in self._hits(text) if self._valid(text, h)]
        spans: list[CausalSpan] = []
        for i, hit in enumerate(hits):
            span = self._span(text, hits, i)
            if span is not None and span.confidence >= self.min_confidence:
                spans.append(span)
        return spans

    # -- finding cues ---------------------------------------------------------------------------

    @staticmethod
    def _hits(text: str) -> list[_Hit]:
        """Cue occurrences left to right, longest cue first, never overlapping."""
        found: list[_Hit] = []
        for word in _WORD_START.finditer(text):
            candidates = _TABLE.get(word.group().lower())
            if not candidates:
                continue
            for pattern, cue in candidates:
                m = pattern.match(text, word.start())
                if m:
                    found.append(_Hit(m.start(), m.end(), m.group(), cue))
                    break
        for m in _SUFFIX_RE.finditer(text):
            group = m.lastgroup
            assert group is not None
            found.append(_Hit(m.start(), m.end(), m.group(), _SUFFIX_CUES[int(group[1:])]))
        found.sort(key=lambda h: (h.start, -h.end))
        hits: list[_Hit] = []
        for hit in found:
            if not hits or hit.start >= hits[-1].end:
                hits.append(hit)
        return hits

    @staticmethod
    def _valid(text: str, hit: _Hit) -> bool:
        """Veto non-causal readings of ambiguous cues from the words around them."""
        cue = _norm(hit.text)
        before, after = text[: hit.start], text[hit.end :]
        lead = before.rstrip()
        at_start = not lead.strip(_EDGE_PUNCT + "([")
        after_comma = lead.endswith((",", ";", ":", "—", "–"))
        if hit.cue.initial_only and not at_start and not lead.endswith((";", ":")):
            # "X were injured when Y" / "the deploy failed when the disk filled up".
            if cue not in _WHEN or not _FAILURE_VERBS.search(before):
                return False
            return True
        if hit.cue.clause_only and not (at_start or after_comma):
            if cue not in ("since", "as", "for") or not _FINITE.search(after.split(",")[0]):
                return False
            if cue in ("as", "for"):
                return False
        # A quoted cue is a mention ("the word 'because'"), not a use.
        if before.endswith(tuple(_QUOTES)) or after.startswith(tuple(_QUOTES)):
            return False
        veto = _VETO_AFTER.get(cue)
        if veto is not None and veto.pattern and veto.match(after):
            return False
        veto = _VETO_BEFORE.get(cue)
        if veto is not None and veto.pattern and veto.search(before):
            return False
        if cue == "for":
            if re.match(r"\s+(?:this|that) reason\b", after, re.I):
                return True
            return bool(re.match(r"\s+(?:allegedly\s+|not\s+)?\w+ing\b", after, re.I)) and bool(
                _SANCTION.search(before)
            )
        if cue == "by":
            return bool(re.match(r"\s+(?:not\s+)?\w{2,}ing\b", after, re.I)) and not re.match(
                r"\s+(?:being|having|using|bring|nothing|something|anything|everything|during|"
                r"morning|evening|spring|string|king|thing|building|ceiling|ring)\b",
                after,
                re.I,
            )
        if cue == "to":
            return bool(
                re.match(
                    r"\s+(?:protest|demand|press|seek|oppose|condemn|mark|express|register|"
                    r"highlight|voice|show|urge|push|force|stop|prevent|save|support|draw|"
                    r"ensure|get|foil|block|disperse|control|restore|avoid)\b",
                    after,
                    re.I,
                )
            ) and bool(_PROTEST.search(before))
        if cue == "as":
            clause = re.split(r"[,;]", after, maxsplit=1)[0]
            return bool(_FINITE.search(clause)) and not _TIME_WORDS.match(after)
        if cue == "since":
            clause = re.split(r"[,;]", after, maxsplit=1)[0]
            return not _TIME_WORDS.match(after) and bool(_FINITE.search(clause))
        if cue == "after":
            return RuleCausalExtractor._causal_after(text, hit)
        if cue in ("so", "and so"):
            # "so" needs a clause on both sides: "X, so Y" or sentence-initial "So Y".
            return (at_start or after_comma or cue == "and so") and bool(
                _FINITE.search(after)
            )
        if cue == "if" or cue == "when" or cue == "once" or cue == "whenever":
            return "," in after
        if hit.cue.kind is _Kind.COND:
            return "," in after
        if cue == "over":
            # News style "protests over the killing": only after a protest/anger noun or verb.
            return bool(
                re.search(
                    r"\b(?:protest\w*|anger\w*|angry|outrage\w*|furor|furore|row|clash\w*|"
                    r"strike\w*|agitat\w*|demonstrat\w*|rall\w*|upset|concern\w*|fears?|"
                    r"worr\w*|dispute\w*|irked|fury|uproar)\b[^,;]{0,40}$",
                    before,
                    re.I,
                )
            )
        if hit.cue.kind is _Kind.PASSIVE:
            # "delayed by 48 hours" measures, it does not blame.
            return not re.match(
                r"\s+(?:\d|about\b|around\b|over\b|up to\b|more than\b|nearly\b|almost\b|"
                r"roughly\b|several\b|a few\b|an? (?:hour|day|week|month|minute|year)s?\b|"
                r"(?:one|two|three|four|five|six|seven|eight|nine|ten)\b)",
                after,
                re.I,
            )
        if hit.cue.kind is _Kind.GATED:
            return RuleCausalExtractor._gated_ok(text, hit)
        return True

    @staticmethod
    def _causal_after(text: str, hit: _Hit) -> bool:
        """'after' is causal only with a failure/consequence verb, or a news event clause."""
        before, after = text[: hit.start], text[hit.end :]
        clause = re.split(r"[,;]", after, maxsplit=1)
        if not before.strip(_EDGE_PUNCT):  # "After X, Y failed."
            return len(clause) > 1 and bool(_FAILURE_VERBS.search(clause[1]))
        if _FAILURE_VERBS.search(before):  # "Y failed after X"
            return True
        return False

    @staticmethod
    def _gated_ok(text: str, hit: _Hit) -> bool:
        before, after = text[: hit.start], text[hit.end :]
        # "was killed", "has increased", "who damaged": a passive, perfect or relative use has
        # no event subject to point at.
        if _AUX_BEFORE.search(before):
            return False
        cue = _norm(hit.text)
        # "a sudden increase in X", "the dividend cut reduces": a noun, not a verb.
        if re.match(r"\s+(?:in|of|to|from|on|at|for|and|or)\b", after, re.I) and cue in _NOUNISH:
            return False
        if cue in _NOUNISH and _DET_BEFORE.search(before):
            return False
        # "X made caused ...": the next word starts a cue itself. Check the whole cue, not its
        # first word: "a" opens French/Spanish cues ("a conduit à") and is also the article.
        rest = after.lstrip()
        nxt = _WORD_START.match(rest, 0)
        if nxt and any(
            c.kind in (_Kind.GATED, _Kind.FWD) and pattern.match(rest)
            for pattern, c in _TABLE.get(nxt.group().lower(), ())
        ):
            return False
        # "The CPU temperature exceeded 85°C": a reading that passes a number is a measurement.
        if re.match(r"\s*[$€£]?\d[\d.,]*\s*(?:%|°\w?|\w{1,3})?\s*[.!?]?\s*$", after):
            return False
        # ", reducing blood flow": a participle whose subject is the whole preceding clause.
        if cue.endswith("ing") and before.rstrip().endswith(","):
            return bool(_words(after))
        subject = RuleCausalExtractor._left(text, hit, 0)
        subject = re.split(r",", subject)[-1]
        subject = _trim(subject)
        if not subject:
            return False
        if _is_anaphor(subject):
            return True
        words = _words(subject)
        if len(words) > 14:
            return False
        if _agentive(subject):
            return False
        # Needs an object: "X increased." alone is a change, not a cause.
        obj = text[hit.end :].strip(_EDGE_PUNCT)
        return bool(_words(obj))

    # -- building spans ------------------------------------------------------------------------

    @staticmethod
    def _left(text: str, hit: _Hit, floor: int) -> str:
        """The text left of a cue, back to the last hard boundary (or `floor`)."""
        start = floor
        for m in _HARD_BOUNDARY.finditer(text, floor, hit.start):
            if m.end() <= hit.start:
                start = m.end()
        segment = text[start : hit.start]
        # "X, which caused Y": the cause is X.
        segment = re.sub(
            r"[\s,]*\b(?:which|that)(?:\s+(?:\w+ly|further|also|then|in turn|often))?\s*$",
            "",
            segment,
            flags=re.I,
        )
        return segment

    @staticmethod
    def _right(text: str, start: int, ceiling: int) -> str:
        """The text right of a cue up to its clause end (or `ceiling`)."""
        segment = text[start:ceiling]
        cut = len(segment)
        for pattern in (_HARD_BOUNDARY, _RIGHT_CLAUSE_END):
            m = pattern.search(segment)
            if m and m.start() > 0:
                cut = min(cut, m.start())
        return segment[:cut]

    def _span(self, text: str, hits: list[_Hit], i: int) -> CausalSpan | None:
        hit = hits[i]
        kind, conf = hit.cue.kind, hit.cue.confidence
        prev_end = hits[i - 1].end if i > 0 else 0
        nxt = hits[i + 1] if i + 1 < len(hits) else None
        # The right side stops at the next clause-level cue; verb cues nested inside a clause
        # ("X, so Y increased Z") keep their own span.
        ceiling = len(text)
        if nxt is not None and nxt.cue.kind in (_Kind.BWD, _Kind.ADV, _Kind.COND, _Kind.POSTP):
            ceiling = nxt.start
        floor = prev_end
        # A fronted clause ("Because X, Y"/"When X, Y") owns the text up to its comma: a verb cue
        # inside that clause must not reach across it.
        for j in range(i - 1, -1, -1):
            prev = hits[j]
            if self._fronted(text, prev):
                comma = text.find(",", prev.end)
                if comma == -1 and kind is _Kind.GATED:
                    return None  # "Durch X steigt Y": the fronted phrase already is the cause
                if comma != -1 and hit.start < comma:
                    ceiling = min(ceiling, comma)
                elif comma != -1:
                    floor = max(floor, comma + 1)
                break
        cue_text = re.sub(r"\s+", " ", hit.text.strip())
        backref: str | None = None

        if kind in (_Kind.BWD, _Kind.COND) and self._fronted(text, hit):
            rest = text[hit.end :]
            comma = rest.find(",")
            if comma == -1:
                split = self._np_split(rest)
                if split is None:
                    return None
                cause, effect = split
            else:
                cause, effect = rest[:comma], self._right(rest, comma + 1, len(rest))
            if _is_anaphor(cause) or not _trim(cause):
                backref = "cause"
        elif kind in (_Kind.BWD, _Kind.PASSIVE):
            effect = self._left(text, hit, floor)
            cause = self._right(text, hit.end, ceiling)
            if kind is _Kind.PASSIVE and _is_anaphor(effect):
                backref = "effect"  # "This was caused by X": the effect is the previous sentence
            elif kind is _Kind.PASSIVE:
                verb = re.sub(r"\s+by$", "", cue_text, flags=re.I)
                effect = f"{_trim(effect)} {verb}"
            if kind is _Kind.PASSIVE:
                cue_text = re.sub(r"^(?:was|were|is|are|been|being|be|got|get|gets)\s+", "",
                                  cue_text, flags=re.I)
            elif _norm(cue_text) == "by":
                # "We fixed the leak by restarting the pod": cause the means, effect "the leak fixed".
                fix = _FIX_BY.search(effect)
                if fix is not None:
                    effect = f"{_trim(fix.group(2))} {fix.group(1).lower()}"
                    conf = 0.7
            if kind is _Kind.BWD and _norm(cue_text) in _DE_PREPOSITIONS:
                # Verb-final German: "Anna hat X wegen einer Grippe im Krankenhaus behandelt".
                split = self._np_split(cause)
                if split is not None:
                    cause, tail = split
                    effect = f"{effect.strip()} {tail.strip()}"
            if _is_anaphor(cause):
                backref = "cause"
        elif kind is _Kind.ADV:
            left = _trim(self._left(text, hit, floor))
            effect = self._right(text, hit.end, ceiling)
            if not left or _is_anaphor(left):
                cause, backref = (left or cue_text), "cause"
            else:
                cause = left
        elif kind is _Kind.SOV:
            left = self._left(text, hit, floor)
            split = self._sov_split(left)
            if split is None:
                return None
            cause, effect = split
        elif kind is _Kind.COND:  # mid-sentence "when" after a failure verb (see _valid)
            effect = self._left(text, hit, floor)
            cause = self._right(text, hit.end, ceiling)
        else:  # FWD, GATED, POSTP
            cause = self._left(text, hit, floor)
            effect = self._right(text, hit.end, ceiling)
            if kind is _Kind.FWD and re.match(r"(?i)(?:löste|lösten)$", cue_text):
                m = re.search(r"\baus\b", effect)
                if m is None:
                    return None
                effect = effect[: m.start()]
            # "fixed Y by X": the cause is X and the effect "Y fixed".
            if kind is _Kind.GATED and _norm(cue_text) in ("fixed", "fixes", "solved", "resolved",
                                                           "mitigated"):
                by = re.search(r"\s+by\s+", effect, re.I)
                if by is not None:
                    obj, means = effect[: by.start()], effect[by.end() :]
                    cause, effect = means, f"{_trim(obj)} {_norm(cue_text)}"
        if backref != "cause":
            cause = _ATTRIBUTION_TRAIL.sub("", _ATTRIBUTION_LEAD.sub("", cause))
        effect = _ATTRIBUTION_TRAIL.sub("", _ATTRIBUTION_LEAD.sub("", effect))
        cause_t = cause.strip() if backref == "cause" else _trim(cause)
        effect_t = effect.strip(_EDGE_PUNCT) if backref == "effect" else _trim(effect)
        if not cause_t or not effect_t:
            if kind is _Kind.FWD and not cause_t:
                return None
            return None
        if backref is None and _is_anaphor(cause_t):
            if i > 0 and _norm(cause_t) in ("it", "they", "he", "she", "es", "sie", "il", "elle"):
                return None  # refers inside the sentence ("Because X, it increases Y")
            backref = "cause"
        elif backref is None and _is_anaphor(effect_t):
            backref = "effect"
        if backref is not None:
            conf = round(conf * 0.95, 3)
        return CausalSpan(cause_t, effect_t, cue_text, conf, backref)

    @staticmethod
    def _fronted(text: str, hit: _Hit) -> bool:
        if hit.cue.kind not in (_Kind.BWD, _Kind.COND):
            return False
        lead = text[: hit.start].rstrip()
        return not lead.strip(_EDGE_PUNCT + "([") or lead.endswith((";", ":"))

    @staticmethod
    def _np_split(rest: str) -> tuple[str, str] | None:
        """Split a fronted phrase without comma: 'Durch die Zinssenkung | steigt X'.

        German and Dutch put the finite verb right after the fronted phrase (verb second).
        German: the phrase ends before the first lowercase content word after a capitalised
        noun. Dutch (lowercase nouns): the verb is the word right before the next article.
        """
        words = list(re.finditer(r"\S+", rest))
        if len(words) < 2:
            return None
        german = any(w.group()[:1].isupper() for w in words)
        seen_noun = False
        for k, m in enumerate(words):
            w = m.group().strip(",.")
            lw = w.lower()
            if german:
                if seen_noun and w[:1].islower() and lw not in _NP_FUNCTION:
                    return rest[: m.start()], rest[m.start() :]
                if w[:1].isupper() or w[:1].isdigit():
                    seen_noun = True
            elif k >= 2 and lw in _NL_DET and words[k - 1].group().lower() not in _NL_DET:
                verb = words[k - 1]
                return rest[: verb.start()], rest[verb.start() :]
        return None

    @staticmethod
    def _sov_split(left: str) -> tuple[str, str] | None:
        """Turkish 'X(,) Y-e yol açtı': the cause is the subject, the effect the object.

        With a comma the subject is everything before it. Without one the object is the last
        word, plus the word before it when the last word is the head of a compound noun
        ("uyku kalitesini": possessive -sI before the case ending).
        """
        left = left.strip()
        if "," in left:
            cause, effect = left.rsplit(",", 1)
            return cause, effect
        words = left.split()
        if len(words) < 2:
            return None
        take = 1
        if len(words) >= 3 and re.search(r"(?:s[ıiuü]n[ıiuüae]|s[ıiuü]n[ae]|s[ıiuü]|n[ıiuü])$",
                                         words[-1].lower()):
            take = 2
        return " ".join(words[:-take]), " ".join(words[-take:])


_DE_PREPOSITIONS = frozenset({"wegen", "aufgrund", "auf grund", "infolge", "durch"})
_NP_FUNCTION = frozenset(
    "der die das den dem des ein eine einen einem einer eines von vom zur zum und mit für "
    "sein seine ihre ihrer seiner ihren seinen diese dieser diesen schweren schwere schwerer "
    "hohen hohe hoher neuen neue neuer starken starke starker".split()
)
_NL_DET = frozenset("de het een zijn haar hun deze dit die hij zij ze we wij ik er".split())


@lru_cache(maxsize=1)
def _default_extractor() -> RuleCausalExtractor:
    return RuleCausalExtractor()


def extract_causes(sentence: str) -> list[CausalSpan]:
    """Extract directed causal spans from one sentence with the shared default extractor."""
    return _default_extractor().extract(sentence)
