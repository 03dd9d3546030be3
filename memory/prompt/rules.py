"""Standing rules: what the user (or the assistant, as a constraint) laid down for a project.

A task prompt gets the project's standing rules even when it does not name them: "house
rules", "from now on", "never ...", "don't use X", "X only", "please stop ...ing", and the
constraints the assistant stated while solving something else ("Safari 15.1 is our floor",
"the cap is 40 credits/day"). ``memory.context`` gives them a reserved share of the budget.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...hooks.text import plain_words
from ..extract.standing import REJECTS, RULE_SAID, is_correction, is_rule, said_rule
from .config import CONTEXT, ContextConfig
from .exchanges import worth

if TYPE_CHECKING:
    from ..records import Hit
    from ..storage.store import FactRow, Store

_RULE_WORDS = ("rule rules floor ceiling policy convention stay stays requirement constraint cap "
               "limit budget quota exceed most newer pinned pin stuck maximum max minimum "
               "allow allowed until only").split()
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

    # A user turn that states one rule usually lists several: keep the whole turn. So does a
    # turn that turns the agent's work down and asks for it again ("nej, ingen testify här.
    # vi kör go-cmp ... gör om"): what it says is how that work is done here.
    turns = {r.source for r in rows if r.source and is_rule(r.text)}
    by_turn: dict[str, list[FactRow]] = {}
    for r in sorted(rows, key=lambda r: r.id):
        if r.source:
            by_turn.setdefault(r.source, []).append(r)
    corrections = {src for src, said in by_turn.items() if is_correction([r.text for r in said])}
    turns |= corrections
    picked = [r for r in reversed(rows) if is_rule(r.text) or (r.source and r.source in turns)]
    # Constraints the assistant stated ("X only", "never Y"); [] without an FTS index.
    said = store.recent_current(
        project, "assistant", config.said_rule_rows, match=" OR ".join(_RULE_WORDS)
    )
    said_rules = [r for r in reversed(said) if said_rule(r.text)]
    # A constraint that points back ("Until then nothing may need ...") is read with the
    # sentence it points to ("... the upgrade request is OPS-412."), said just before it.
    pointing = {r.id - 1: r for r in said_rules if BACK_REFERENCE.match(r.text)}
    before = store.facts(list(pointing)) if pointing else {}
    for r in said_rules:
        prev = before.get(r.id - 1)
        if prev is not None and prev.source == r.source and prev.status == "current":
            picked.append(prev)
        picked.append(r)
    out = []
    for r in picked:
        # A rule turn's short sentences are its rules ("mocktail, no mockito."), not filler.
        if r.id in skip or not (worth(r.text, config) or (
                r.role == "user" and len(plain_words(r.text)) >= config.rule_turn_words)):
            continue
        rule = ((r.role != "user" and RULE_SAID.search(r.text) is not None) or is_rule(r.text)
                or (r.role == "user" and r.source in corrections))
        out.append(HitType(
            id=r.id, text=r.text, score=0.0, project=r.project, session=r.session,
            source=r.source, role=r.role, kind=r.kind, recorded_at=r.recorded_at,
            valid_from=r.valid_from, valid_to=r.valid_to,
            path=RULE_PATH if rule else "said with a standing rule",
        ))
    return out


RULE_PATH = "standing rule"
HOW_PATH = "how a standing rule is applied"
# A rule that points back at what the user said just before it: "redo that one and keep it
# that way from now on", "do it like this everywhere".
POINTS_BACK = re.compile(
    r"\b(?:that|this|the same) way\b|\blike (?:that|this)\b|\b(?:do|use|keep) (?:that|this|it)"
    r" (?:from now on|going forward|always|everywhere)|\bthat one\b",
    re.I,
)
_USE_THAT = re.compile(
    r"\b(?:use|keep|do|follow|copy|reuse|apply)(?:s|es)? (?:that|this|those|these)\b", re.I)
BACK_REFERENCE = re.compile(
    r"^(until then|so|that means|this means|which means|because of (that|this)|therefore|"
    r"hence|as a result|until (that|it) (lands|ships|happens))\b",
    re.I,
)


_STOP = frozenset("""that this with from have into they them then than when what your their
there these those been were will would should could also just only some more other every each
anything everything going forward always never please don't does done make sure""".split())


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z][a-z0-9_]{3,}", text.lower()) if w not in _STOP}


def how_applied(
    store: Store, rules_of_turn: list[Hit], skip: set[int], config: ContextConfig = CONTEXT,
) -> list[Hit]:
    """The assistant's sentences that show how a rule is applied ("Each module now declares
    LOG_MODULE_REGISTER(...)" for "every module should go through the logging subsystem"):
    those of the rule's own exchange, or of the turn before when the rule points back to it
    ("anything that touches the database uses that from now on"), that name something and
    share the rule's words; the best ``how_per_rule`` of them."""
    from ..records import Hit as HitType
    from ..storage import inbox as queue
    from ..storage.filters import Scope
    from .exchanges import identifiers

    first = rules_of_turn[0]
    if not first.source or not first.source.startswith("inbox:"):
        return []
    iid = int(first.source.split(":")[1])
    keys = [f"inbox:{iid}:assistant"]
    said = " ".join(h.text for h in rules_of_turn)
    # The turn before shows how a rule is applied when the rule points to it ("keep it that
    # way", "use that for every endpoint"), never when the rule turns it down ("no count for
    # this kind of thing": the turn before is what not to do).
    if (POINTS_BACK.search(said) or _USE_THAT.search(said)) and not REJECTS.match(first.text):
        before, _ = queue.turns_around(store.conn, iid)
        if before is not None:
            keys.append(f"inbox:{before}:assistant")
    want = _stems(said)
    # A turn that says nothing but the rule ("nice. lets keep it there, fail ci if it grows
    # past 1mb gz"): the whole reply applies it, whatever words it uses.
    asked = store.facts_stated_in([f"inbox:{iid}:user"], Scope(project=first.project))
    ruled = {h.id for h in rules_of_turn}
    only_rule = all(fid in ruled or len(re.findall(r"\w+", r.text)) <= 2
                    for fid, r in store.facts([f for f, _ in asked]).items())
    rows_in = store.facts_stated_in(keys, Scope(project=first.project))
    rows = store.facts([fid for fid, _ in rows_in])
    scored = []
    for fid, source in rows_in:
        r = rows.get(fid)
        names = identifiers(r.text, config) if r is not None else {}
        if r is None or fid in skip or r.status != "current" or not names:
            continue
        overlap = len(want & _stems(r.text))
        # What the rule points back to ("uses that") is what the turn before built.
        pointed = source != keys[0]
        if overlap or pointed or (only_rule and source == keys[0]):
            # The rule's own turn shows how it was applied ("MAX_GZIP_KB = 1024" in the CI
            # check for "fail ci if it grows past 1mb"); the turn before, what it points to.
            own = 0 if pointed else 2
            scored.append((-(2 * overlap + min(3, len(names)) + own), fid, r))
    scored.sort()
    return [HitType(
        id=r.id, text=_focus(r.text, want, config.rule_chars), score=0.0, project=r.project,
        session=r.session, source=r.source, role=r.role, kind=r.kind,
        recorded_at=r.recorded_at, valid_from=r.valid_from, valid_to=r.valid_to,
        path=HOW_PATH,
    ) for _, _, r in scored[: config.how_per_rule]]


def _focus(text: str, want: set[str], limit: int) -> str:
    """A long sentence cut to its clauses that share most of the rule's words (the shorter
    first among equals), in their order, within ``limit`` characters; when the best clause
    alone is longer, its head."""
    if len(text) <= limit:
        return text
    # A colon introduces what follows ("Debug names: added nameObject(...)"): no boundary.
    parts = [p for p in re.split(r"(?<=[.;])\s+", text) if p]
    ranked = sorted(range(len(parts)), key=lambda i: (-len(want & _stems(parts[i])),
                                                       len(parts[i])))
    if len(parts[ranked[0]]) > limit:  # the best clause alone is too long: its head, cut
        return parts[ranked[0]][:limit] + "..."
    keep: list[int] = []
    used = 0
    for i in ranked:
        if used + len(parts[i]) + 1 <= limit:
            keep.append(i)
            used += len(parts[i]) + 1
    return " ... ".join(parts[i] for i in sorted(keep))
