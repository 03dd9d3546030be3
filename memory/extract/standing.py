"""Standing rules in a sentence: what a user lays down for a project ("house rules", "from
now on", "never ...", "don't use X", "X only") and the binding constraints an assistant states
while solving something else ("Safari 15.1 is our floor", "the cap is 40 credits/day").

Patterns only, so that both the prompt block (``memory.prompt.rules``, which gives the rules a
share of the budget) and the write path (``memory.write.ingest``, whose weakest update rule
never retires a rule) read a rule the same way.
"""

from __future__ import annotations

import re

__all__ = ["GENERAL", "NOT_RULE", "RULE", "RULE_SAID", "is_rule", "is_standing", "said_rule"]

RULE = re.compile(
    r"\b(house (rules?|style)|rules?:|from now on|always|never|convention|we prefer|i prefer|"
    r"prefer(ably)? \w+ over|must(n't| not)?|don't ever|"
    r"no [\w\-]+(\(\))?( (or|and|nor) [\w\-]+(\(\))?)? (outside|in|anywhere|unless|except)|"
    r"before you (tell|say|report|mark)|is our floor|our policy|policy is|budget is|at most|"
    r"never exceed|cap(ped)? at|hard limit|more rules|"
    # prohibitions and exclusive choices: "please stop hand-writing ...", "don't use default
    # exports anywhere", "named exports only", "keep them all in tests/factories.py"
    r"(please )?stop [\w\-]+ing|(don't|do not|never) (use|add|put|write|call|import|commit|"
    r"push|create|hardcode|hand[\w\-]*|mock|log|print|rely|touch|change)|"
    r"i don't want (to|any)|[\w\-]+ only(?=[;.!,]|$)|keep (\w+ ){0,2}in)(?!\w)",
    re.I,
)
# A standing preference said in passing beside a task, in general words rather than a fixed
# phrase: a scope that reaches past this task ("in new code", "anything that touches ...",
# "every module should ...", "going forward"), a choice against an alternative ("X, not Y",
# "instead of"), a prohibition opening a clause ("..., don't inline schemas").
GENERAL = re.compile(
    r"\b(in (any|every)thing new|in (all |any )?new (code|files?|modules?|components?|tests?|"
    r"endpoints?|services?|migrations?|screens?|classes|\w+s)\b|going forward|"
    r"in (the )?future|by default\b|"
    r"(every|each|all|any|anything|everything) ((?!(so|we|i|you|they|that|which|because|when|"
    r"if|and|but|then|to)\b)\w+ ){0,8}(should|must|shall|has to|have to|"
    r"needs? to|goes through|go through|uses?|gets?)\b|"
    r"(use|prefer|want) [^.;!?]{1,60}, not (\w|@)|instead of (using )?\w+ing\b|"
    r"live[sd]? in one place|"
    # a scope over every such thing, then what to do: "for any mailer you touch, make sure
    # there's a preview", "on every endpoint, ensure ..."
    r"(for|in|on|with) (any|every|each|all) [\w\- ]{1,40}?,? (please )?(make sure|ensure|"
    r"remember to|always))"
    r"|(^|[,;:]\s+|\b(and|also|btw|but),?\s+)(please\s+)?(don't|do not|never|no more)\s+"
    r"(?!(know|think|see|understand|get|mind|worry|care|remember)\b)[a-z]+",
    re.I,
)
# Not a rule: "I never asked for that", "we always had ...".
NOT_RULE = re.compile(r"\b(i|we|you|they|it) (never|always) \w+ed\b|\?\s*$", re.I)
# A binding constraint in the assistant's words, found while solving something else ("Safari
# 15.1 is our floor", "the binary must stay under 8 MB", "Finance's cap ... is 40 credits/day").
RULE_SAID = re.compile(
    r"\b(rules? (for|in) (this|our|the) (repo|project|codebase)|is our (floor|ceiling|limit)|"
    r"our policy|policy is|the convention|convention is|(must|has to|have to) stay|"
    r"hard (limit|requirement)|constraint is|"
    r"(cap|limit|budget|quota|floor|ceiling)( for [\w\s\-']{1,40})? is (\$?\d|at)|"
    r"never exceed|at most \d|"
    # a version pin the project is held to: "nothing in this repo may need a Terraform newer
    # than 1.8.5", "we're stuck on 1.8 until the upgrade lands", "the pin stays at ~> 1.8"
    r"nothing (\w+ ){0,4}(may|can|must|should) (need|use|require|exceed)|"
    r"\b(no|not) newer than\b|\bnewer than v?\d[\w.]* (is|are) out\b|"
    r"(pin|pinned|stuck|stays?) (on|at|to) [~>=^ ]*v?\d|"
    # a ceiling or a floor said as such: "a hard ceiling of 192 KiB", "the maximum payload we
    # allow at SF10 is 51 bytes", "locked to iPadOS 16: they can't move to 17 until 2027",
    # "nothing iOS 17-only without a fallback"
    r"(hard |upper |lower )?(ceiling|floor) of \d|"
    r"(maximum|max|minimum|min|largest|biggest|smallest) [\w\-/ ]{1,30}"
    r"(we allow|allowed|permitted|supported)|can'?t (move|go|upgrade|switch|update) to "
    r"[\w.\- ]{1,20} until|nothing [\w.\- ]{1,20}-only|"
    # a requirement over every such thing: "every POST that moves money now requires an
    # Idempotency-Key header", "all public endpoints must go through the rate limiter"
    r"(every|each|all|any) [\w\-/` ]{1,60}? (now )?(requires?|must|has to|have to|"
    r"needs? to|goes through|go through)\b)",
    re.I,
)


def is_rule(text: str) -> bool:
    """Whether ``text`` lays down a standing rule (a fixed phrase or general words)."""
    return bool(RULE.search(text) or GENERAL.search(text)) and not NOT_RULE.search(text)


def said_rule(text: str) -> bool:
    """Whether ``text`` states a binding constraint in passing ("Safari 15.1 is our floor")."""
    return RULE_SAID.search(text) is not None and not NOT_RULE.search(text)


def is_standing(text: str) -> bool:
    """A standing rule, or a binding constraint stated in passing."""
    return is_rule(text) or said_rule(text)
