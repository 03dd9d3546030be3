"""Standing rules: what the user (or the assistant, as a constraint) laid down for a project.

A task prompt gets the project's standing rules even when it does not name them: "house
rules", "from now on", "never ...", "don't use X", "X only", "please stop ...ing", and the
constraints the assistant stated while solving something else ("Safari 15.1 is our floor",
"the cap is 40 credits/day"). ``memory.context`` gives them a reserved share of the budget.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .config import CONTEXT, ContextConfig
from .exchanges import worth

if TYPE_CHECKING:
    from ..records import Hit
    from ..storage.store import Store

RULE = re.compile(
    r"\b(house (rules?|style)|rules?:|from now on|always|never|convention|we prefer|i prefer|"
    r"prefer(ably)? \w+ over|must(n't| not)?|don't ever|"
    r"no [\w\-]+(\(\))? (outside|in|anywhere|unless)|"
    r"before you (tell|say|report|mark)|is our floor|our policy|policy is|budget is|at most|"
    r"never exceed|cap(ped)? at|hard limit|more rules|"
    # prohibitions and exclusive choices: "please stop hand-writing ...", "don't use default
    # exports anywhere", "named exports only", "keep them all in tests/factories.py"
    r"(please )?stop [\w\-]+ing|(don't|do not|never) (use|add|put|write|call|import|commit|"
    r"push|create|hardcode|hand[\w\-]*|mock|log|print|rely|touch|change)|"
    r"i don't want (to|any)|[\w\-]+ only(?=[;.!,]|$)|keep (\w+ ){0,2}in)(?!\w)",
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
    r"never exceed|at most \d)",
    re.I,
)
_RULE_WORDS = ("rule rules floor ceiling policy convention stay requirement constraint cap limit "
               "budget quota exceed most").split()
_TASK_START = re.compile(
    r"(please\s+)?(let'?s|implement|add|write|create|build|make|style|refactor|fix|set up|"
    r"wire|port|introduce|support|draft|generate|update|change|rename|move|convert|extend|"
    r"rewrite|replace|remove|delete|drop|switch|migrate|upgrade|bump|install|enable|disable|"
    r"deploy|ship|split|pull in|kick off|run|integrate|optimi[sz]e|clean up|"
    r"can you|could you|i('d| would) like|i want to|i('m| am) going to|"
    r"i('m| am) (adding|writing|building|implementing|changing|moving|switching))\b",
    re.I,
)




def is_task(prompt: str) -> bool:
    """Whether the prompt asks for work: one of its sentences starts like a request."""
    return any(_TASK_START.match(p) for p in re.split(r"(?<=[.!?:])\s+|\n+", prompt.strip()))


ASKS = re.compile(
    r"(^|[.!?:;]\s+|\n)(what|which|why|how|where|who|when)\b[^.!?\n]*\?", re.I
)
RULES_HEAD = "[standing rules and constraints of this project]"


def standing_rules(
    store: Store, project: str | None, cos_of: dict[int, float], skip: set[int],
    config: ContextConfig = CONTEXT,
) -> list[Hit]:
    """Rules and preferences the user stated for this project ("house rules: ...", "from
    now on ...", "never ..."): they apply to every new task even when it does not mention
    them, so a task prompt gets the most similar few."""
    from ..records import Hit as HitType

    rows = store.recent_current(project, "user", config.rule_rows)

    def is_rule(text: str) -> bool:
        return bool(RULE.search(text)) and not NOT_RULE.search(text)

    # A user turn that states one rule usually lists several: keep the whole turn.
    turns = {r.source for r in rows if r.source and is_rule(r.text)}
    picked = [r for r in reversed(rows) if is_rule(r.text) or (r.source and r.source in turns)]
    # Constraints the assistant stated ("X only", "never Y"); [] without an FTS index.
    said = store.recent_current(
        project, "assistant", config.said_rule_rows, match=" OR ".join(_RULE_WORDS)
    )
    picked += [r for r in reversed(said)
               if RULE_SAID.search(r.text) and not NOT_RULE.search(r.text)]
    out = []
    for r in picked:
        if r.id in skip or not worth(r.text, config):
            continue
        out.append(HitType(
            id=r.id, text=r.text, score=0.0, project=r.project, session=r.session,
            source=r.source, role=r.role, kind=r.kind, recorded_at=r.recorded_at,
            valid_from=r.valid_from, valid_to=r.valid_to, path="standing rule",
        ))
    return out
