"""Fact kinds: what a sentence *does* (decides, prefers, constrains, explains ...).

Recall ranks decisions and constraints above small talk, and ``why()`` follows causes, so
each stored sentence gets one kind. The classifier is a priority-ordered list of cue-word
rules; the first rule whose pattern occurs wins, so the order encodes which reading is
stronger when cues mix ("We switched to Redis because ..." is a decision, not a cause).

    question > plan (explicit) > decision > constraint (strong) > preference
             > constraint (weak) > cause > event > plan (weak) > observation

Cues are English first, plus the most common German, French, Spanish, Dutch, Turkish and
Portuguese words for decisions, preferences and constraints. Matching is case-insensitive
and on word boundaries; a sentence with no cue is an ``observation``.
"""

from __future__ import annotations

import re

from ...hooks.text import MONTH_PATTERN, WEEKDAY_PATTERN, WORKDAY_PATTERN

__all__ = ["KINDS", "classify_kind", "is_question", "is_task"]

KINDS: tuple[str, ...] = (
    "decision",
    "preference",
    "constraint",
    "cause",
    "event",
    "question",
    "plan",
    "observation",
)


def _cues(*alternatives: str) -> re.Pattern[str]:
    """Compile word-bounded, case-insensitive alternatives (each may itself be a regex)."""
    return re.compile(r"(?<![\w\-])(?:" + "|".join(alternatives) + r")(?![\w\-])", re.IGNORECASE)


_PLAN_STRONG = _cues(
    r"todo",
    r"fixme",
    r"next,? (?:we|i)(?:'ll| will| should| need to| can)",
    r"next steps?",
    r"(?:we|i) plan to",
    r"plan(?:s|ning)? (?:is )?to",
    r"(?:we|i)(?:'re| are|'m| am) (?:planning|going) to",
    r"going to (?!be\b)",
    r"follow[- ]up",
    r"later (?:today|this week)",
    r"roadmap",
)

_DECISION = _cues(
    r"(?:we|i|they|team) (?:have |has |had )?(?:decided|chose|chosen|picked|opted|settled|agreed)",
    r"decided (?:to|on|against)",
    r"decision (?:is|was) to",
    r"(?:we|i)(?:'ll| will| shall) (?:use|go with|adopt|stick with|keep|switch|migrate|move)",
    r"(?:we|i)(?:'re| are| am|'m) (?:using|going with|switching|moving|sticking with)",
    r"switched (?:to|from|over)",
    r"migrated (?:to|from)",
    r"moved (?:to|from|over to)",
    r"replaced \S+(?: \S+){0,3} with",
    r"going with",
    r"settled on",
    r"opted for",
    r"agreed",
    r"let's (?:use|go with|stick with|switch)",
    r"ruled out",
    r"rejected",
    r"dropped \S+ (?:for|in favou?r of)",
    r"in favou?r of",
    # de / fr / es / nl / tr / pt
    r"entschieden",
    r"beschlossen",
    r"wir (?:nehmen|verwenden|nutzen|benutzen)",
    r"umgestiegen auf",
    r"(?:avons|a|ont) (?:décidé|choisi|opté)",
    r"décidé",
    r"nous utiliserons",
    r"on va utiliser",
    r"decidimos",
    r"hemos (?:decidido|elegido)",
    r"elegimos",
    r"vamos a usar",
    r"usaremos",
    r"besloten",
    r"gekozen",
    r"overgestapt",
    r"karar (?:verd|veril|ald)\w*",
    r"seçtik",
    r"kullanaca\w*",
    r"escolhemos",
    r"vamos usar",
    r"optamos",
)

_CONSTRAINT_STRONG = _cues(
    r"must(?:n't| not| never)?",
    r"cannot",
    r"can't(?! wait| believe| thank| stop| imagine)",
    r"can not",
    r"may not",
    r"(?:should|shall) never",
    r"(?:should|shall)n't",
    r"has to",
    r"have to",
    r"needs? to be",
    r"required",
    r"requires?",
    r"mandatory",
    r"not allowed",
    r"forbidden",
    r"prohibited",
    r"policy",
    r"budget",
    r"at most",
    r"at least",
    r"no more than",
    r"no less than",
    r"(?:max(?:imum)?|min(?:imum)?|under|below|within) \d[\d.,]*\s?(?:ms|s|sec|seconds|mb|gb|kb|%|"
    r"minutes|min|hours|requests|rps|qps)",
    r"sla",
    r"quota",
    r"rate[- ]limit(?:ed)?",
    r"compliance",
    r"gdpr",
    r"muss",
    r"müssen",
    r"darf nicht",
    r"dürfen nicht",
    r"nicht erlaubt",
    r"höchstens",
    r"maximal",
    r"erforderlich",
    r"doit",
    r"doivent",
    r"il faut",
    r"interdit",
    r"obligatoire",
    r"au plus",
    r"au maximum",
    r"debe",
    r"deben",
    r"no puede",
    r"obligatorio",
    r"como máximo",
    r"moet(?:en)?",
    r"mag niet",
    r"verplicht",
    r"maximaal",
    r"hoogstens",
    r"zorunda\w*",
    r"zorunlu",
    r"gerek(?:ir|iyor|li)\w*",
        r"olmamalı",
    r"en fazla",
    r"yasak",
    r"deve(?:m)?",
    r"não pode",
    r"obrigatório",
    r"no máximo",
)

_PREFERENCE = _cues(
    r"(?:i|we) (?:really |strongly |generally |usually )?(?:prefer|like|love|hate|dislike|enjoy)",
    r"(?:i|we)(?:'d| would) (?:rather|prefer|like)",
    r"(?:i|we) (?:always|never|usually)",
    r"(?:always|never) (?:use|do|run|put|write|add|commit|push|call|make|include|import)",
    r"please (?:use|don't|do not|avoid|always|never|keep|prefer)",
    r"(?:don't|do not) use",
    r"my (?:favou?rite|preference|preferred)",
    r"favou?rite",
    r"prefer(?:red|ably)?",
    r"rather than",
    r"instead of",
    r"ich (?:bevorzuge|mag|liebe|hasse)",
    r"lieber",
    r"bitte (?:verwende|nutze|benutze|keine?)",
    r"je (?:préfère|n'aime pas)",
    r"j'aime",
    r"toujours",
    r"jamais",
    r"prefiero",
    r"(?:no )?me gusta",
    r"siempre",
    r"nunca",
    r"por favor (?:usa|use|no)",
    r"ik (?:heb liever|hou van|geef de voorkeur)",
    r"liever",
    r"altijd",
    r"nooit",
    r"tercih ed\w*",
    r"tercihim",
    r"severim",
    r"sevmem",
    r"lütfen",
    r"her zaman",
    r"asla",
    r"prefiro",
    r"(?:eu )?(?:não )?gosto",
    r"sempre",
)

_CONSTRAINT_WEAK = _cues(
    r"only",
    r"limit(?:s|ed)?",
    r"should",
    r"need(?:s)? to",
    r"nur",
    r"seulement",
    r"uniquement",
    r"solo",
    r"sólo",
    r"únicamente",
    r"alleen",
    r"sadece",
    r"yalnızca",
    r"somente",
    r"apenas",
)

_CAUSE = _cues(
    r"because",
    r"due to",
    r"caused(?: by)?",
    r"causes",
    r"causing",
    r"led to",
    r"leads? to",
    r"resulted in",
    r"results? in",
    r"as a result",
    r"therefore",
    r"hence",
    r"thus",
    r"consequently",
    r"since (?:the|it|we|they|our|this|that)\b",
    r"(?<=,) so",
    r"(?<=\band) so",
    r"so that",
    r"the reason",
    r"root cause",
    r"triggered(?: by)?",
    r"that's why",
    r"which is why",
    r"thanks to",
    r"weil",
    r"wegen",
    r"parce que",
    r"à cause de",
    r"porque",
    r"debido a",
    r"omdat",
    r"vanwege",
    r"çünkü",
    r"yüzünden",
)

_EVENT = _cues(
    r"yesterday",
    r"last (?:night|week|weekend|month|year|" + WEEKDAY_PATTERN + r"|sprint|time)",
    r"this (?:morning|afternoon)",
    r"earlier today",
    r"\d+ (?:minutes|hours|days|weeks|months|years) ago",
    r"(?:a|an|one|two|three|few) (?:minute|hour|day|week|month|year)s? ago",
    r"(?:on|in) (?:\d{1,2} )?(?:" + MONTH_PATTERN + ")",
    r"in (?:19|20)\d\d",
    r"on \d{4}-\d\d-\d\d",
    r"deployed",
    r"released",
    r"shipped",
    r"launched",
    r"failed",
    r"crashed",
    r"broke",
    r"went down",
    r"outage",
    r"incident",
    r"rolled back",
    r"reverted",
    r"merged",
    r"upgraded",
    r"downgraded",
    r"happened",
    r"occurred",
    r"went to",
    r"visited",
    r"attended",
    r"got (?:married|engaged|promoted|hired|fired|back)",
    r"gestern",
    r"ayer",
    r"gisteren",
    r"dün",
    r"ontem",
)

_PLAN_WEAK = _cues(
    r"(?:we|i)(?:'ll| will| shall)",
    r"tomorrow",
    r"next (?:week|month|year|sprint|" + WORKDAY_PATTERN + r"|time)",
    r"(?:want|wants|need|needs|hope|intend) to",
    r"planning",
    r"will (?:be|need|add|try|look)",
)

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("plan", _PLAN_STRONG),
    ("decision", _DECISION),
    ("constraint", _CONSTRAINT_STRONG),
    ("preference", _PREFERENCE),
    ("constraint", _CONSTRAINT_WEAK),
    ("cause", _CAUSE),
    ("event", _EVENT),
    ("plan", _PLAN_WEAK),
)


# A question without its mark, in the languages whose interrogatives are cheap to see: an
# opening "¿", a Chinese sentence-final particle, a Japanese "ka" ending.
_ASKED = re.compile(r"^\s*\u00bf|(?:吗|嗎|呢|ですか|ますか|でしょうか|か)[。.]?\s*$")


def is_question(sentence: str) -> bool:
    """Whether one sentence asks rather than states: it ends in "?" (or the full-width
    "？"), opens with "¿", or ends with a Chinese or Japanese question particle."""
    text = sentence.strip()
    return text.rstrip("\"')]*` ").endswith(("?", "\uff1f")) or bool(_ASKED.search(text))


def classify_kind(sentence: str) -> str:
    """Return the kind of one sentence: one of :data:`KINDS`.

    A question (``is_question``) is a ``question``; otherwise the first matching cue rule
    in priority order decides, and ``observation`` is the default.
    """
    text = sentence.strip()
    if is_question(text):
        return "question"
    for kind, pattern in _RULES:
        if pattern.search(text):
            return kind
    return "observation"


# A sentence that asks for work starts like a request: an imperative ("Bump Sidekiq to 7.2",
# "Tag the AMIs ...", "Peer the prod VPC ..."), "can you", "we need", "I'm adding".
_TASK_START = re.compile(
    r"((please|pls|plz)\s+)?(let'?s|implement|add|write|create|build|make|style|refactor|fix|"
    r"set up|wire|port|introduce|support|draft|generate|update|change|rename|move|convert|extend|"
    r"rewrite|replace|remove|delete|drop|switch|migrate|upgrade|bump|install|enable|disable|"
    r"deploy|ship|split|pull in|kick off|run|integrate|optimi[sz]e|clean up|dump|export|"
    r"import|expose|allow|let users|track|record|send|fetch|sync|wipe|reset|cover|test|"
    r"handle|validate|parse|cache|teach|show|list|tag|peer|pin|put|give|hook|plug|attach|"
    r"wrap|guard|schedule|retry|throttle|paginate|emit|notify|persist|ensure|make sure|"
    r"prevent|avoid|go ahead|bring|point|route|spin up|stand up|provision|configure|scaffold|"
    r"seed|backfill|rework|translate|locali[sz]e|document|harden|encrypt|compress|resize|"
    r"speed up|lock down|"
    r"\w+ need(s)? (a way|to be able)|we need|i need|users? (should|need|want)|"
    r"can (you|u)|could (you|u)|i('d| would) like|i want to|i('m| am) going to|"
    r"i('m| am) (adding|writing|building|implementing|changing|moving|switching))\b",
    re.I,
)


# A request headed as one ("feature:", "task:", "new module for the ingest pipeline:"), or
# that ends by telling the agent to start ("... 2 replicas. go", "do it").
_TASK_HEAD = re.compile(r"((new )?feature( request)?|task|todo|new [\w\-]+( [\w\-]+){0,4}):",
                        re.I)
_GO = re.compile(r"(go|go ahead|go for it|do it|ship it)[.!]*$", re.I)
# "... got merged 🎉 can u write the pest coverage for it?": asked anywhere, not only at the
# start of a sentence; not a question put as a request ("can you explain why ...").
_ASKS_FOR_WORK = re.compile(
    r"\b(can|could|would) (you|u|ya) (please |pls |plz )?(?!(tell|explain|remind|confirm|"
    r"check (if|whether)|see|say|think|imagine|believe|help me understand)\b)[a-z]", re.I)


def is_task(text: str) -> bool:
    """Whether ``text`` asks for work: one of its sentences starts like a request."""
    parts = re.split(r"(?<=[.!?:])\s+|\n+", text.strip())
    return (any(_TASK_START.match(p) or _TASK_HEAD.match(p) for p in parts)
            or _GO.match(parts[-1]) is not None or _ASKS_FOR_WORK.search(text) is not None)
