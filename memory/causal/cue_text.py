"""Context patterns and span trimming for the causal extractor: pure string functions.

Private to `memory.extract.causal` (the names keep their underscore). The regexes here decide
whether an ambiguous cue is causal in its context ("since Monday" is not, "arrested for looting"
is) and cut each side down to its event phrase: clause boundaries, fronted adjuncts, discourse
words, attribution ("X said"), anaphors.
"""

from __future__ import annotations

import re

from ...hooks.text import MONTH_PATTERN, WEEKDAY_PATTERN

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
_SANCTION_NOUN = re.compile(
    r"\b(?:arrest\w*|charged|booked|detain\w*|jailed|sentenced|convicted|punish\w*|"
    r"critici[sz]\w*|condemn\w*|slam\w*|lambast\w*|flay\w*|fined|sued|apologi[sz]\w*|"
    r"praised|thanked|held responsible|accus\w*|protest\w*|agitat\w*|strike|struck work|"
    r"dharna|demonstrat\w*|suspended|dismissed|expelled|penali[sz]ed)\b[^,;]*$",
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
# The narrow core of _PROTEST for cues that are common outside news ("against", "seeking").
_PROTEST_CORE = re.compile(
    r"\b(?:protest\w*|march\w*|rall(?:y|ied|ies)|strikes?|striking|struck work|demonstrat\w*|"
    r"took to the streets?|sit-in|dharna|bandh|hartal|agitat\w*|blockade\w*|picket\w*|"
    r"boycott\w*|slogans?|sloganeering|stir|gherao\w*|petition\w*|memorandum|"
    r"hunger[- ]strike|walk-?out|walked out|staged)\b[^;.]*$",
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
_AS_CLAUSE = re.compile(
    r"\s+(?:the|his|her|their|its|our|this|these|those|some|many|several|most|all|he|she|"
    r"they|it|we|i|there|police|[A-Z][\w'’.-]*|\d[\d,]*)\s+(?:[\w'’-]+\s+){0,6}?"
    r"(?:was|were|is|are|had|has|have|did|does|could|would|will|went|came|began|became|took|"
    r"fell|rose|ran|broke|made|got|kept|grew|shrank|sank|froze|hung|lost|left|sent|spent|"
    r"held|stood|spread|gave|drew|blew|tore|sold|told|hit|cut|shut|can|cannot|can't|won't|"
    r"wasn't|weren't|isn't|aren't|hadn't|hasn't|haven't|didn't|doesn't|\w{2,}ed)\b",
)
_TIME_WORDS = re.compile(
    r"^\s*(?:\d|the (?:beginning|start|end|dawn|early|late|last|first|morning|weekend)|"
    r"(?:last|early|late|mid|this|next)\b|yesterday|today|then|now|"
    + WEEKDAY_PATTERN + "|" + MONTH_PATTERN
    + r"|lunch|dinner|breakfast|midnight|noon|work|school|"
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
    r"indirectly|eventually|ultimately|finally|then|in turn|which|that|who|and|but|partly|"
    r"largely|mainly|mostly|primarily|allegedly|reportedly|apparently|"
    r"probably|likely|only|just|even|all|not only|kan|kann|peut|puede|pode|ook|auch|aussi|"
    r"también|também|ve)\b)+$",
    re.IGNORECASE,
)
# A fronted adjunct before the clause: "Earlier ,", "On Saturday morning ,", "In June 2007 ,".
_LEAD_ADJUNCT = re.compile(
    r"((?:however|earlier|meanwhile|later|also|now|today|yesterday|recently|initially|"
    r"finally|in|on|at|during|since|last|this|over|amid|according to|by|for|from|with|"
    r"within|until|till|after|before|then)\b[^,]{0,45}?)\s*,\s*",
    re.IGNORECASE,
)
_EDGE_PUNCT = " \t\n,;:.!?\"'“”‘’«»„-–—"

# Where a side stops. The right side of a cue runs to the first of these; the left side starts
# after the last one.
_HARD_BOUNDARY = re.compile(r"\s*(?:;|(?<!\d):(?!\d)|\s[-–—]\s|\(|\))\s*")
# A call ("session.begin()") or an acronym gloss ("Communist Party of India ( Marxist-Leninist )
# members") is part of its phrase, not a boundary: it is masked before boundaries are searched.
_SHORT_PAREN = re.compile(
    r"(?<=[\w.])\([^()\s]*\)"  # a call: "session.begin()", "get(id)"
    r"|\(\s*[A-Z][\w.&'’-]*(?:\s+[A-Z][\w.&'’-]*){0,3}\s*\)"  # a gloss: "( TRS )", "(NIA)"
)
# A news dateline ("June 13 , 2013 00:00 IST", "12:30 hrs", "09:42 AM SRINAGAR :") separates a
# headline from the body; each part is read as its own sentence.
# It needs the year right before the clock time, so "the 01:30 UTC batch failed" is not one.
_DATELINE = re.compile(
    r"(?<![-/\d])\b(?:19|20)\d\d\s*,?\s+\d{1,2}:\d{2}(?:\s*(?:IST|hrs|GMT|[AaPp]\.?[Mm]\b\.?))?"
    r"(?:\s+[A-Z][A-Z.'’ -]*[A-Z]\s*:)?"
)
_RIGHT_CLAUSE_END = re.compile(
    r"\s*,\s*(?=(?:which|who|whom|where|while|whereas|but|although|though|and\s+(?:then\s+)?"
    r"(?:the|a|an|this|that|it|we|they|he|she|i)\b|leading|causing|resulting|prompting|"
    r"forcing|making|increasing|reducing|improving|triggering|sparking|leaving|killing|"
    r"injuring|according|said|says|saying|officials|police|reports?|sources|"
    r"die|der|das|was|wo|aber|qui|que|mais|lo que|que|pero|waardoor|wat|die|maar|ama|"
    r"o que|mas|including|even as)\b)"
    r"|\s+(?:which|who)\s+(?=\w)"
    r"|\s+(?:in|during|after|following|under|by|with|at)\s+which\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w'’.-]+", re.UNICODE)


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
        lead = _LEAD_ADJUNCT.match(out)
        if lead and not _FINITE.search(lead.group(1)) and len(_words(out[lead.end() :])) >= 2:
            out = out[lead.end() :]
        if out == before:
            break
    if out.count("(") < out.count(")"):
        out = out.rstrip(")").strip(_EDGE_PUNCT)
    if out.count("(") > out.count(")") and out.endswith("("):
        out = out[:-1].strip(_EDGE_PUNCT)
    return re.sub(r"\s+", " ", out)


_SUBORDINATOR = re.compile(
    r"(?:,\s*|\s)(?:that|said|says|told)\s+",
    re.IGNORECASE,
)


def _last_clause(left: str) -> str:
    """The clause right before a backward cue: "He said that riots ensued | following X".

    The effect of "Y following X" is Y's own clause, not the matrix clause it is embedded in;
    the cut only happens when what remains still has a subject and a finite verb.
    """
    for m in reversed(list(_SUBORDINATOR.finditer(left))):
        rest = left[m.end() :]
        if len(_words(rest)) >= 2 and _FINITE.search(rest):
            return rest
    return left


def _mask_parens(text: str) -> str:
    """`text` with short parentheticals blanked out (same length), for boundary searches."""
    if "(" not in text:
        return text
    return _SHORT_PAREN.sub(lambda m: "_" * len(m.group()), text)


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
