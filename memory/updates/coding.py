"""Update rules for the statements coding agents write, and the guards every rule obeys.

``detect.detect_update`` asks ``unasserted`` first: a plan, a question, a conditional, a trial
or a proposal states no new current value, so nothing is superseded by it ("We plan to move to
React 18", "Should we upgrade to 1.28?", "If the extension works, we'll move to 16"). It asks
``coexisting`` before the value rules: "also", "as well", "alongside" add a value beside the
old one instead of replacing it.

Then, after the general rules, three kinds of coding statement are read on the *main clause*
of each sentence (what follows "because", "after", "since", ";" is a reason or a time, not the
slot; a leading "After the cutover," is dropped):

* ``slot_swap``: the same subject, the same frame of words, another value or name in the slot,
  and a sign that the new one is current (an update cue or "these days"). The old value must be
  absent from the new sentence (a refinement restates it), the new sentence may not bring a
  subject word of its own (another service, cluster or environment), and the two may not each
  keep a noun the other lacks (the api's replicas vs the worker's replicas);
* ``problem_resolved``: the old fact reports a problem as open (broken, failing, a leak, an
  issue in progress), the new one says it is fixed, resolved, gone or passes again, about the
  same thing (two shared content words, or a shared identifier such as "#212"); or the old one
  reports a fix and the new one says the problem is back;
* ``constraint_lifted``: the old fact is a prohibition or a requirement ("can't", "never",
  "must not", "need two approvals", "is blocked"), the new one lifts it ("lifted", "removed",
  "is allowed", "can ... now", "no longer restricts") about the same thing.

Like the rest of the package: pure functions of the two texts, precision before recall.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .lexicon import _PREPOSITIONS, _stem
from .parse import _Parse, _parse

__all__ = [
    "coexisting",
    "constraint_lifted",
    "owner_changed",
    "problem_resolved",
    "slot_swap",
    "unasserted",
]

# --------------------------------------------------------------------------- guards

# A modal, a future, a plan, a wish or a trial before the statement: nothing is asserted yet.
_PLAN = re.compile(
    r"\b(?:will|won't|would|might|could|should|shall|gonna|going to|plan(?:s|ned|ning)? to|"
    r"intend(?:s|ing)? to|want(?:s|ed)? to|would like|'d like|hope to|thinking (?:about|of)|"
    r"consider(?:s|ing)?|evaluat(?:e|es|ing)|propos(?:e|es|ed|al|ing)|maybe|perhaps|probably|"
    r"possibly|someday|eventually|at some point|tried|trying|try|not decided|undecided|"
    r"let's|let us|proposal|idea is|next (?:week|month|quarter|sprint|year|release)|"
    r"later this|tomorrow|not (?:started|done|merged|shipped)(?: yet)?|"
    r"wants? (?:the|it|them|us|this|that|our)(?= )"
    r")\b"
    r"|(?:\w)'ll\b|(?:\w)'d\b"
)
_MAY = re.compile(r"\bmay\b")
_SETTLED = re.compile(
    r"\b(?:won't|will not|will no longer)\b(?=[^.;]*\b(?:anymore|any more|any longer|no longer)\b)"
    r"|\bwill no longer\b"
)  # the modal, lowercase; "in May" is a month
# A condition or an exception: the new value holds only in some case.
_CONDITION = re.compile(
    r"(?:^|[,;:]\s*|\s)(?:if|unless|once|whenever|in case|provided that|as soon as|"
    r"only (?:for|if|when|with|in|on)|except|but only)\b"
    r"|^\s*when\b"
)
# A question without its question mark: "Why don't we send emails through Postmark".
_QUESTION = re.compile(
    r"^\s*(?:why|how|what|who|which|whether|is there|are there|"
    r"(?:should|could|would|can|do|does|did|is|are|has|have|shall)\s+"
    r"(?:we|i|you|they|it|anyone|someone|the|this|that|our)\b)"
)
_ALSO = re.compile(
    r"\b(?:also|as well|alongside|in addition|additionally|besides|either|next to|both|"
    r"on top of|together with|separately|separate from)\b|\btoo\s*(?:[.,;!]|$)"
)


# A statement placed well in the past reports history: "We upgraded from 9 to 10 last spring".
_HISTORY = re.compile(
    r"\b(?:last (?:spring|summer|autumn|fall|winter|year)|(?:a|one|two|three|\d+) years? ago|"
    r"back (?:then|in (?:19|20)\d\d)|in (?:19|20)\d\d\b(?! onwards)|used to|originally|"
    r"at first|initially)\b"
)


def unasserted(text: str) -> str | None:
    """Why ``text`` asserts no current state (a plan, a question, a condition, a past
    period), or None."""
    low = text.lower().replace("\u2019", "'").strip()
    if _HISTORY.search(low) and not re.search(r"\b(?:now|since|anymore|no longer)\b", low):
        return "history"
    if re.search(r"\?(?![\w\-%\[]+=)", low):  # not a query string's: "GET /items?page=2"
        return "question"
    if _QUESTION.search(low):
        return "question"
    if _CONDITION.search(low):
        return "condition"
    # "won't be published anymore", "will no longer run": the end is stated, not planned.
    # A plan in the first clause: "the offset helper is deleted; every list endpoint should
    # use keyset pagination from here on" states what was done, then a rule.
    settled = _SETTLED.sub(" ", low.split(";", 1)[0])
    if _PLAN.search(settled) or _MAY.search(text.split(";", 1)[0]):
        return "plan"
    return None


def coexisting(text: str) -> bool:
    """Whether ``text`` adds a value beside another ("also", "as well", "alongside")."""
    return _ALSO.search(text.lower()) is not None


# --------------------------------------------------------------------------- main clause

# What follows one of these is a reason, a time or a side remark, not the slot that changed.
_SUBORDINATE = re.compile(
    r"\s*;|,\s|\s[-\u2013\u2014]\s|\s\((?!\s*\S+\s*\))"
    r"|\s(?:because|so that|so|which|while|thanks to|due to|now that|"
    r"as part of|along with|when)\s"
    # "after the upgrade" is a time; "expires after 7 days" is the value.
    r"|\s(?:after|since|until|during)\s(?!(?:about |around |roughly |only )?(?:\d|a |an |"
    r"one |two |three |four |five |six |seven |eight |nine |ten |twelve |fifteen |twenty |"
    r"thirty |forty |sixty |ninety ))",
    re.IGNORECASE,
)
_LEADING = re.compile(
    r"^\s*(?:after|since|with|thanks to|following|as of|from|starting|following|once|"
    r"as part of)\b[^,]*,\s*",
    re.IGNORECASE,
)
# A leading time or reason without its comma ends where the subject's determiner starts:
# "After Monday's release the worker answers on 9090".
_LEADING_BARE = re.compile(
    r"^\s*(?:after|since|with|thanks to|following|as of)\s+(?:\S+\s+){1,4}?"
    r"(?=(?:the|our|all|every|each)\s)",
    re.IGNORECASE,
)


@lru_cache(maxsize=16384)
def _main_clause(text: str) -> str:
    t = _LEADING.sub("", text.strip())
    t = _LEADING_BARE.sub("", t)
    return _SUBORDINATE.split(t, maxsplit=1)[0].strip(" .")


# Words that carry no slot: time expressions, the currency cues' own words, light verbs.
_NEUTRAL = frozenset(
    _stem(w)
    for w in (
        "now today yesterday week weekend month morning evening night tonight last this these "
        "days day currently anymore longer again already recently lately instead officially "
        "get got go goes went gone turned turn up down over back new newer latest current version"
    ).split()
)
_CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|from now on|going forward|no longer|any ?more|instead|"
    r"switch(?:ed|es)?|mov(?:ed|es)|migrat(?:ed|es)|upgrad(?:ed|es)|downgrad(?:ed|es)|bump(?:ed|s)|"
    r"rais(?:ed|es)|lower(?:ed|s)|increas(?:ed|es)|decreas(?:ed|es)|reduc(?:ed|es)|"
    r"went (?:up|down)|turned (?:up|down)|port(?:ed)? to|rewr(?:ote|itten)|rebuilt|"
    r"renamed|replac(?:ed|es)|changed|took over|taken over|handed|transferred|cut over|"
    r"since (?:the|last|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|"
    r"february|march|april|may|june|july|august|september|october|november|december|v?\d))\b"
)


_MAX_CLAUSE = 8  # content words in a main clause that states one slot
_MOVE = re.compile(r"\b(?:mov(?:ed|es|ing)|relocat(?:ed|es|ing))\b")
# A tool or an author in the slot ("built with MkDocs", "written by Ana"): another slot than
# a location, so a move does not change it.
_TOOL = re.compile(r"\b(?:with|by|using|via)\s+\S+\s*$")


def _slot_words(p: _Parse) -> set[str]:
    """Stems of the names and values: the slot's fillers, whose change is the update."""
    out = {_stem(x) for x in p.names} | set(p.names)
    out |= {v for _, v in p.values}
    return out


def _verb_like(p: _Parse) -> set[str]:
    out = {p.verb} if p.verb else set()
    out |= {s for s, t in zip(p.stems, p.low, strict=True) if t.endswith("ed") and len(t) > 4}
    return out


def _numbers(p: _Parse) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for k, v in p.values:
        if k in ("weekday", "month", "date", "year", "decade"):
            continue
        out.setdefault(k, set()).add(v)
    return out


def _value_swap(mo: _Parse, mn: _Parse, new_all: _Parse) -> str | None:
    """Another number in the same slot: "30 -> 60 s", or one version for one version."""
    no, nn = _numbers(mo), _numbers(mn)
    if not no or not nn:
        return None
    old_vals = {v for vs in no.values() for v in vs}
    if old_vals & ({v for _, v in new_all.values} | {v for vs in nn.values() for v in vs}):
        return None  # the old value is still stated: a refinement or a coexisting value
    for key in no.keys() & nn.keys():
        if no[key] != nn[key]:
            return f"{'/'.join(sorted(no[key]))} -> {'/'.join(sorted(nn[key]))}"
    if len(no) == 1 and len(nn) == 1 and len(old_vals) == 1:
        (ko, vo), (kn, vn) = next(iter(no.items())), next(iter(nn.items()))
        if len(vn) == 1 and (
            "ver" in (ko, kn)
            or "version" in (ko, kn)
            or ko in mn.content
            or kn in mo.content
            or {ko, kn} <= _SIZE_UNITS
        ):
            return f"{next(iter(vo))} -> {next(iter(vn))}"
    return None


_SIZE_UNITS = frozenset("kb mb gb tb mi gi ki b".split())


_OPENER = re.compile(r"(?:^|[:!.?]\s+)([A-Z]\w*)")


def _openers(text: str) -> set[str]:
    """Capitalised words that open a sentence or follow a colon: capitals, not names."""
    return {m.lower() for m in _OPENER.findall(text)}


def _name_swap(mo: _Parse, mn: _Parse, o_all: _Parse, n_all: _Parse, caps: set[str]) -> str | None:
    """Another name in the object: "Redis -> Memcached", "us-east-1 -> eu-west-1"."""
    old = {x for x in mo.names - caps if x not in n_all.low and _stem(x) not in n_all.content}
    new = {x for x in mn.names - caps if x not in o_all.low and _stem(x) not in o_all.content}
    old |= {x for x in mo.low if x in o_all.replaced}
    if not new and n_all.dest:  # "switched the workspace over to pnpm": the destination
        new = {x for x in n_all.dest if x not in o_all.content and x not in _NEUTRAL}
        if not old:
            old = {x for x in mo.obj if x not in n_all.content and x not in _NEUTRAL}
    if not old or not new or len(old) > 2 or len(new) > 3:
        return None
    return f"{sorted(old)[0]} -> {sorted(new)[0]}"


def _head(p: _Parse) -> frozenset[str]:
    """The subject's words before its first preposition: "the monthly export (from the
    orders database)"."""
    cut = next((i for i, t in enumerate(p.low) if t in _PREPOSITIONS), len(p.low))
    return p.subject & frozenset(p.stems[:cut])


def slot_swap(old: str, new: str) -> str | None:
    """The same subject and frame with another value or name, stated as current."""
    if not _CHANGE.search(new.lower()):
        return None
    o_all, n_all = _parse(old), _parse(new)
    mo, mn = _parse(_main_clause(old)), _parse(_main_clause(new))
    if len(mo.content) > _MAX_CLAUSE or len(mn.content) > _MAX_CLAUSE:
        return None  # a long clause states several things: one other name is no swap
    if mo.neg or mn.neg or o_all.terminal:
        return None  # a negation or an ending is the polarity and state rules' business
    if mo.labels != mn.labels and (mo.labels or mn.labels):
        return None  # "Service 3" and "Service 4": two subjects
    change = _value_swap(mo, mn, n_all) or _name_swap(
        mo, mn, o_all, n_all, _openers(old) | _openers(new)
    )
    if change is None:
        return None
    if _MOVE.search(new.lower()) and _TOOL.search(_main_clause(old).lower()):
        return None  # a move changes where a thing is, not what it is built with
    # The fillers that changed; a name both sentences keep ("MSRV", "Postgres") is an anchor.
    fillers = {x for x in _slot_words(mo) if x not in n_all.low and x not in n_all.content}
    fillers |= {x for x in _slot_words(mn) if x not in o_all.low and x not in o_all.content}
    fillers |= set(o_all.replaced)
    skip = fillers | _NEUTRAL | _verb_like(mo) | _verb_like(mn)
    only_old = mo.content - n_all.content - skip
    only_new = mn.content - o_all.content - skip
    shared = (mo.content & mn.content) - skip
    if not shared:
        return None  # nothing but the value in common: another statement
    if only_old and only_new:
        return None  # each keeps a word the other lacks: another thing or another attribute
    if only_new & (mn.subject | n_all.subject) and not n_all.agent_subject:
        return None  # the new subject names something more specific or else
    if len(only_old) > 1 or len(only_new) > 2:
        return None
    subject = mo.subject - _NEUTRAL - _verb_like(mo)
    if subject and not subject & mn.content - fillers:
        return None  # the old subject is not what the new one talks about, or was renamed
    if mo.agent_subject and not mn.agent_subject:
        # "We raised statement_timeout on the orders database ...": the slot is what we
        # acted on; a new subject its clause never names is another thing ("The monthly
        # export ... writes Parquet"), even if the old fact's reason mentions it.
        said = _head(mn) - _NEUTRAL - _verb_like(mn) - fillers
        if said and not said & mo.content:
            return None
    return change


# --------------------------------------------------------------------------- problems

_PROBLEM = re.compile(
    r"\b(?:bug|broken|breaks|fail(?:s|ing)?|error(?:s)?|leak(?:s|ing)?|loop|crash(?:es|ing)?|"
    r"flak(?:y|es|ing)|unresolved|open|in progress|known issue|regression|hang(?:s|ing)?|"
    r"times? out|timing out|segfault|doesn't|does not|don't|can't|cannot|won't|still|"
    r"reproduces|deadlock|race|n\+1|slow|\d{3}|"
    # the same in the other languages of the notes
    r"fehler|absturz|stürzt|crasha|falla|fallo|erreur|plante|bogue|fout|crasht|hata|çöküyor|"
    r"błąd|awaria|nicht behoben|não resolvido|no resuelto|non risolto|pas corrigé)\b"
    r"|不具合|クラッシュ|届かない|落ちる|错误|崩溃|没修|未修复|还没修"
)
_SOLVED = re.compile(
    r"\b(?:fixed|resolved|closed|solved|gone|patched|pass(?:es)? again|passing again|"
    r"works? again|green (?:again|for|since)|has been green|been stable|is clean|clean now|"
    r"root[- ]caused|no longer (?:flaky|leaking|crashing|failing)|quarantine removed|"
    r"working again|green again|stable now|is stable|no longer (?:fails?|reproduces|happens|"
    r"leaks|crashes|flakes|breaks|times out|occurs)|persists? (?:after|now)|fix(?:ed)? landed|"
    r"went away|cleared up|"
    r"behoben|gelöst|corrigée?|résolue?|corrigid[oa]|resolvid[oa]|resuelt[oa]|corregid[oa]|"
    r"solucionad[oa]|risolt[oa]|corrett[oa]|opgelost|verholpen|düzeltildi|çözüldü|"
    r"naprawion[yao])\b"
    r"|解消済み|解消した|修正済み|修好|已修复|修复了|解决了"
)
_SOLVED_OLD = re.compile(
    r"\b(?:fixed|resolved|solved|closed|behoben|gelöst|corrigée?|résolue?|corrigid[oa]|"
    r"resolvid[oa]|resuelt[oa]|corregid[oa]|risolt[oa]|opgelost|düzeltildi|çözüldü)\b"
    r"|解消済み|修正済み|已修复"
)
_BACK = re.compile(
    r"\b(?:is back|are back|came back|comes back|regressed|reopened|re-opened|broke again|"
    r"fails? again|failing again|didn't hold|did not hold|returned|recurs|reappeared|"
    r"riapert[oa]|è tornat[oa]|wieder offen|wieder da|wieder aufgetreten|rouverte?|"
    r"est revenue?|heropend|weer terug|reabiert[oa]|ha vuelto|reabert[oa]|voltou|"
    r"yeniden açıldı|tekrar ortaya çıktı)\b"
    r"|再発|又出现|复现了"
)
_GENERIC = frozenset(
    _stem(w)
    for w in (
        "bug issue problem fix fixed error test tests again now still open "
        "resolved closed known progress gone found stable"
    ).split()
)


def _anchor(o: _Parse, n: _Parse) -> bool:
    """Both sentences talk about the same problem or rule: two shared content words, or a
    shared identifier or name, and no noun on each side that the other lacks in the subject."""
    ids = {t for t in o.low if "#" in t or "_" in t or any(c.isdigit() for c in t)}
    ids &= set(n.low)
    names = o.names & n.names
    shared = (o.content & n.content) - _GENERIC - _NEUTRAL
    if {x.split("#")[1] for x in n.labels} != {x.split("#")[1] for x in o.labels}:
        if n.labels and o.labels:
            return False  # "Issue #212" and "Issue #213": two things
    if o.subject and n.subject:
        so, sn = o.subject - n.content - _GENERIC, n.subject - o.content - _GENERIC
        if so and sn and not ids:
            return False  # "Windows builds" vs "macOS builds"
    return bool(ids) or len(shared) >= 2 or (bool(names) and len(shared) >= 1)


def _clauses(old: str, new: str) -> tuple[str, str, _Parse, _Parse] | None:
    """The lowercased main clauses and their parses, or None when one is too long to state
    a single problem or rule (a long clause says several things)."""
    mo_text, mn_text = _main_clause(old), _main_clause(new)
    o, n = _parse(mo_text), _parse(mn_text)
    if len(o.content) > _MAX_CLAUSE or len(n.content) > _MAX_CLAUSE:
        return None
    return _plain(mo_text), _plain(new), o, n


def _plain(text: str) -> str:
    # Hyphenated words stay whole: "closed-minded" is not "closed".
    return re.sub(r"(\w)-(\w)", r"\1_\2", text.lower().replace("\u2019", "'"))


def problem_resolved(old: str, new: str, close: bool = False) -> str | None:
    """The new fact ends a problem the old one reports as open, or reopens a fixed one.
    ``close``: the two sentences mean nearly the same (the caller's embedding), which ties
    them to one problem where their words cannot (another language's words, characters)."""
    got = _clauses(old, new)
    if got is None:
        return None
    lo, ln, o, n = got
    tied = close or bool(_ids(old) & _ids(new))  # one problem: a shared id, or one meaning
    if _SOLVED_OLD.search(lo) and _BACK.search(ln) and (tied or _anchor(o, n)):
        return "problem back"
    if not _SOLVED.search(ln) or _SOLVED.search(lo) or not _PROBLEM.search(lo):
        return None
    if re.search(r"\b(?:not|never|isn't|wasn't|aren't)\b(?:\s+\w+){0,2}\s+(?:fixed|resolved)", ln):
        return None  # "not fixed yet"
    return "problem resolved" if tied or _anchor(o, n) else None


def _ids(text: str) -> set[str]:
    """Ticket and test identifiers: "MOB-221", "#212", "test_checkout_concurrency"."""
    return {
        m.lower()
        for m in re.findall(r"#\d+|\b[A-Z][A-Z0-9]+-\d+\b|\b\w+_\w+\b", text)
        if not m.isdigit()
    }


# --------------------------------------------------------------------------- constraints

_CONSTRAINT = re.compile(
    r"\b(?:can't|cannot|can not|don't|do not|never|must not|mustn't|may not|not allowed|"
    r"forbidden|prohibited|blocked|banned|disallowed|frozen|freeze|only|must|required?|"
    r"needs?|no \w+|max(?:imum)?|at most|limited to|restricted|read[-_ ]only|locked|"
    r"nobody|no one|"
    # the same in the other languages the rules read
    r"nicht erlaubt|darf (?:nicht|kein\w*)|d\u00fcrfen (?:nicht|kein\w*)|verboten|gesperrt|"
    r"no se puede|no podemos|no puede|prohibid[oa]s?|"
    r"interdit\w*|ne peut pas|ne pas|"
    r"(?:mag|mogen) (?:er )?(?:geen|niet)|verboden|"
    r"n\u00e3o pode|n\u00e3o podemos|proibid[oa]s?|"
    r"non si pu\u00f2|non possiamo|non pu\u00f2|vietat[oa]|"
    r"yasak\w*|olmaz)\b|\u7981\u6b62|\u3067\u304d\u306a\u3044|\u4e0d\u53ef|"
    r"\u4e0d\u80fd|\u4e0d\u5141\u8bb8"  # 禁止 できない 不可 不能 不允许
)
# A rule's end: lifted, over, cleared, allowed again, fine to use ("freeze over, merge away",
# "cleared for prod traffic", "writes are re-enabled", "async/await is fair game").
_LIFTED = re.compile(
    r"\b(?:lifted|removed|dropped|no longer (?:required|needed|blocked|restricts?|applies|"
    r"forbidden)|is over|ended|unblocked|unfrozen|allowed|permitted|cleared (?:to|for)|"
    r"are fine|is fine|is enough|are enough|can (?:\S+ ){0,6}?(?:now|again|freely)|"
    r"(?:now|again) can|may (?:\S+ ){0,3}?now|not required|re_?enabled|enabled again|"
    r"fair game|(?:is|are) (?:now )?safe|(?:freeze|ban|block|embargo|moratorium|restriction|"
    r"lock|lockdown|hold) (?:is |are )?(?:now )?over|"
    # "egress is open", "nothing blocks the bump", "the ceiling doesn't apply anymore", "the
    # no-GPL rule is gone", "got approved", "granted s3:PutObject"
    r"(?:is|are) (?:now )?open|nothing (?:blocks|stops|prevents)|"
    r"(?:doesn't|does not|don't|do not) apply|(?:isn't|is not|aren't) an? \w+ any ?more|"
    r"(?:rule|limit|cap|ceiling|ban|restriction|block) (?:is|are) gone|got approved|granted|"
    # the same in the other languages the rules read
    r"aufgehoben|wieder erlaubt|d\u00fcrfen wieder|k\u00f6nnen wieder|entf\u00e4llt|"
    r"levantad[oa]s?|ya se puede|ya podemos|se puede de nuevo|"
    r"lev\u00e9e?s?|autoris\u00e9e?s?|on peut (?:de nouveau|maintenant|d\u00e9sormais)|"
    r"opgeheven|mag weer|mogen weer|kunnen weer|toegestaan|"
    r"liberad[oa]s?|pode (?:\S+ ){0,3}?sem medo|j\u00e1 (?:pode|podemos)|"
    r"revocat[oa]|abolit[oa]|si pu\u00f2 di nuovo|possiamo di nuovo|"
    r"kald\u0131r\u0131ld\u0131|serbest)\b|"
    r"\u64a4\u5ec3|\u89e3\u9664|\u89e3\u7981|\u53d6\u6d88|\u653e\u5f00"  # 撤廃 解除 解禁 取消 放开
)
# The lift itself, which may still name the rule's words ("2.0 tagged, freeze over").
_ENDED = re.compile(
    r"\b(?:lifted|removed|dropped|no longer|ended|is over|ends|(?:freeze|ban|block|embargo|"
    r"moratorium|restriction|lock|lockdown|hold) (?:is |are )?(?:now )?over|"
    r"(?:doesn't|does not|don't|do not) apply|any ?more|"
    r"(?:rule|limit|cap|ceiling|ban|restriction|block) (?:is|are) gone|aufgehoben|"
    r"levantad[oa]s?|lev\u00e9e?s?|opgeheven|revocat[oa]|abolit[oa]|kald\u0131r\u0131ld\u0131)\b|"
    r"\u64a4\u5ec3|\u89e3\u9664|\u89e3\u7981"  # 撤廃 解除 解禁
)


def constraint_lifted(old: str, new: str) -> str | None:
    """The new fact lifts a prohibition or requirement the old one states."""
    got = _clauses(old, new)
    if got is None:
        return None
    lo, ln, o, n = got
    if (
        not _CONSTRAINT.search(lo)
        or not _LIFTED.search(ln)
        or _CONSTRAINT.search(ln.replace("no longer", ""))
        and not _ENDED.search(ln)
    ):
        return None
    if n.neg and not re.search(r"\bno longer\b|\bany ?more\b|(?:doesn't|does not|don't) apply", ln):
        return None
    if _anchor(o, n):
        return "constraint lifted"
    # The rule's reason or the lift's remark may hold the shared thing ("no optional chaining
    # in widget.js, it has to run on IE11" / "IE11 support dropped, widget.js can use ...").
    fo, fn = _parse(old), _parse(new)
    short = len(fo.content) <= _MAX_CLAUSE and len(fn.content) <= _MAX_CLAUSE
    return "constraint lifted" if short and _anchor(fo, fn) else None


# --------------------------------------------------------------------------- owners

_OWNING = re.compile(
    r"\b(?:own(?:s|ed|er|ership)?|maintain(?:s|ed)?|driv(?:es|en|e)|lead(?:s)?|led|"
    r"manag(?:es|ed|er)|on[- ]call|responsible|go(?:es)? to|in charge|maintainer|"
    r"point of contact|owner|lead|"
    r"(?:written|handled|done|run|reviewed|prepared|maintained) by)\b"
)
_HANDOVER = re.compile(
    r"\b(?:took over|takes over|taken over|took ownership|handed (?:\S+ ){0,4}?(?:over|off)|"
    r"passed (?:\S+ ){0,4}?to|transferred|from now on|now|switched to)\b"
)


def _people(p: _Parse) -> set[str]:
    """Names and teams a sentence mentions: capitalised names, "@handles", "X team"."""
    # A person or a team is a plain name or a handle, not an identifier ("infra-modules").
    out = {x for x in p.names if x[:1] == "@" or x.isalpha()}
    if p.initial:
        out.add(p.initial)
    out |= {m for h, m in p.mods if h == _stem("team")}
    return out


def owner_changed(old: str, new: str) -> str | None:
    """The same thing handed to another owner: "Priya owns billing" -> "Marco took over
    billing from Priya"; co-owners ("also helps maintain") are guarded by ``coexisting``."""
    lo, ln = old.lower(), new.lower()
    if not _OWNING.search(lo) or not _HANDOVER.search(ln):
        return None
    if re.search(r"\bco-?(?:maintainer|owner|lead)s?\b|\bjointly\b", ln):
        return None  # a second owner beside the first
    if not (_OWNING.search(ln) or re.search(r"\b(?:took|handed|passed|transferred)\b", ln)):
        return None
    o, n = _parse(old), _parse(new)
    if o.neg or n.neg:
        return None
    po, pn = _people(o), _people(n)
    explicit = re.search(
        r"\b(?:from|took|handed|passed|transferred|replac\w*|instead|moved|left|rotated|"
        r"no longer)\b", ln
    )
    persons = {x for x in po & pn if x.isalpha() and not x.isupper() and len(x) > 2}
    persons -= {x.lower() for x in re.findall(r"\b[A-Z]{2,}\b", old + " " + new)}
    if persons and not explicit:
        return None  # the old owner is still named beside the new one
    newcomers = pn - po - set(o.low) - {_stem(x) for x in o.low}
    if not po or not newcomers:
        return None
    thing = (o.content & n.content) - _GENERIC - _NEUTRAL - {_stem(x) for x in po | pn}
    thing -= {_stem(w) for w in "own owns maintain maintains team drive drives lead".split()}
    if not thing:
        return None
    only_o = o.obj - n.content - {_stem(x) for x in po | pn} - _NEUTRAL
    only_n = n.obj - o.content - {_stem(x) for x in po | pn} - _NEUTRAL
    handed = re.search(r"\b(?:took|takes|taken|handed|passed|transferred)\b", ln)
    if only_o and only_n and not n.dest and not handed:
        return None  # another thing owned (an explicit handover names its thing: see above)
    return f"owner changed: {sorted(po)[0]} -> {sorted(newcomers)[0]}"
