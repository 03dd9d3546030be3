"""Causal memory: the why / trace / chain / what-if walks over cause -> effect links.

The links themselves are made on the write path (``memory/causal_links.py``): every new fact's
cause/effect spans are stored and joined to the facts of its project that name the same event.
This module only reads them. Every walk is a breadth-first search with one SQL statement per
level over the whole frontier (``Store.causal_edges``), an explicit depth limit, a fan-out
limit per node and a visited set, so a cycle in the graph ends the walk instead of looping
and a dense graph costs at most ``MAX_DEPTH`` statements and ``MAX_NODES`` facts.

``why(question)``: the question names an effect. Target facts are the facts in scope that
match it (hybrid recall, then re-scored by the similarity of the question to the fact and
to the effect spans it asserts); from each, the walk goes backwards to the roots (facts with
no recorded cause off their path). A root's score is the relevance of the target it explains
times the mean strength of the links on its best path times a bonus per link, so the deepest
root that strong links support comes first; a cause that has causes of its own still competes,
at ``EXPLAINED`` of its score. A target with no recorded cause at all, and none stated in
itself, has the fact told just before it about the same thing (``_precursor``: in its session
or the few before, at least ``PRECEDES_FLOOR`` similar) stand in for its cause, at ``PRECEDES``
of the weight, cited with ``via="precedes"``: a story told step by step without a word of
cause ("Seitdem warten Anfragen ..." then "Die Checkout-Anfragen liefen in Timeouts."); so
does the one told before a root that is such a dead end, ranked below it. The chain is
returned root first, each step citing the fact id, its session and its date.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import InvalidInput, NotFound
from ..read.recall import recall
from ..records import Cause, Step, TraceNode, WhatIf
from ..storage.base import LinkRow
from ..storage.connection import MAX_ROWID, unpack_vector
from ..storage.filters import Scope
from . import links as causal_links
from .links import set_extractor

if TYPE_CHECKING:
    from ..ml.embed import Embedder
    from ..storage.store import FactRow, Store

__all__ = [
    "Cause", "Step", "TraceNode", "WhatIf", "chain",
    "set_extractor", "trace", "what_if", "why",
]

MAX_DEPTH = 6  # links walked from the start at most
FANOUT = 20  # links followed per fact and level, strongest first
MAX_NODES = 2_000  # facts a single walk may reach
TARGETS = 8  # facts a question may be about
TARGET_FLOOR = 0.6  # ... each at least this share of the best one's relevance
SELF_ROOT = 0.5  # a target that states its own cause ("X because Y") and has no linked cause
DEPTH_BONUS = 0.05  # per link: prefer the root that explains the most of the chain
EXPLAINED = 0.75  # a cause that has causes of its own: its path score counts this much
PRECEDES = 0.6  # a target with no recorded cause: the fact told just before about the same
PRECEDES_FLOOR = 0.5  # ... thing (at least this similar) stands in for its cause, at this much




# -- walks -------------------------------------------------------------------------------------


@dataclass
class _Walk:
    """The result of a bounded breadth-first walk: per reached fact its depth, the weight of
    the start it came from, the sum of link strengths on its best path, and the link that
    reached it (its ``near`` end is one step closer to the start)."""

    depth: dict[int, int] = field(default_factory=dict)
    base: dict[int, float] = field(default_factory=dict)
    total: dict[int, float] = field(default_factory=dict)
    parent: dict[int, LinkRow] = field(default_factory=dict)
    ends: set[int] = field(default_factory=set)  # reached facts with no further link
    edges: list[LinkRow] = field(default_factory=list)  # every link read on the way
    expanded: set[int] = field(default_factory=set)  # facts whose links were read

    def score(self, fid: int) -> float:
        """The start's weight times the mean strength of the links on the way."""
        n = self.depth[fid]
        return self.base[fid] * (self.total[fid] / n if n else 1.0)


def _walk(
    store: Store,
    starts: dict[int, float],
    direction: str,
    scope: Scope,
    max_depth: int = MAX_DEPTH,
    stop_at: int | None = None,
) -> _Walk:
    w = _Walk()
    for fid, weight in starts.items():
        w.depth[fid], w.base[fid], w.total[fid] = 0, weight, 0.0
    frontier = list(starts)
    for level in range(1, max_depth + 1):
        if not frontier or len(w.depth) >= MAX_NODES:
            w.ends.update(frontier)
            return w
        edges = store.causal_edges(frontier, direction, scope, FANOUT)
        w.edges += edges
        w.expanded.update(frontier)
        # A fact is an end when every link from it goes back to a fact already reached:
        # none at all (a root), or only into a cycle closing on the way it came.
        onward = {e.near for e in edges if e.far not in w.depth}
        w.ends.update(f for f in frontier if f not in onward)
        nxt: list[int] = []
        for e in edges:
            known = w.depth.get(e.far)
            if known is not None and known < level:
                continue  # reached closer to the start already (this also ends cycles)
            base, total = w.base[e.near], w.total[e.near] + e.score
            if known is not None and base * total / level <= w.score(e.far):
                continue  # a stronger path reached it at this level
            if known is None:
                if len(w.depth) >= MAX_NODES:
                    continue
                nxt.append(e.far)
            w.depth[e.far], w.base[e.far], w.total[e.far] = level, base, total
            w.parent[e.far] = e
        if stop_at is not None and stop_at in w.depth:
            return w
        frontier = nxt
    w.ends.update(frontier)  # the depth limit: the last level counts as the farthest known
    return w


def _path(w: _Walk, fid: int) -> list[tuple[int, LinkRow | None]]:
    """From the start to ``fid``: (fact, link that reached it)."""
    out: list[tuple[int, LinkRow | None]] = []
    guard = 0
    while guard <= MAX_DEPTH + 1:
        link = w.parent.get(fid)
        out.append((fid, link))
        if link is None:
            break
        fid = link.near
        guard += 1
    out.reverse()
    return out


def _date(row: FactRow) -> str | None:
    return row.valid_from or row.stated_at


def _steps(store: Store, facts: list[tuple[int, LinkRow | None]]) -> list[Step]:
    rows = store.facts([f for f, _ in facts])
    out = []
    for fid, link in facts:
        r = rows.get(fid)
        if r is None:
            continue
        out.append(
            Step(
                id=fid, text=r.text, session=r.session, date=_date(r),
                cue=link.cue if link else None, via=link.via if link else None,
            )
        )
    return out


def _fact_id(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("#").isdigit():
        return int(value.strip().lstrip("#"))
    return None


def _require(store: Store, fid: int) -> FactRow:
    row = store.fact(fid) if 1 <= fid <= MAX_ROWID else None
    if row is None:
        raise NotFound("fact", fid)
    return row


FIX_TARGET = 0.6  # relevance kept by a fact that reports a fix, as a why-target


def _targets(
    store: Store, embedder: Embedder | None, question: str, scope: Scope
) -> dict[int, float]:
    """Facts in scope the question is about, with a relevance in 0..1."""
    if not question.strip():
        raise InvalidInput("why needs a question or a fact id")
    qvec = embedder.embed_batch([question[:4000]])[0] if embedder is not None else None
    hits, _ = recall(
        store, embedder, question[:4000], k=TARGETS * 2, scope=scope, query_vector=qvec
    )
    if not hits:
        return {}
    ids = [h.id for h in hits]
    best_hit = max(h.score for h in hits) or 1.0
    rel: dict[int, float] = {h.id: max(0.0, h.score / best_hit) for h in hits}
    if qvec is not None:
        q = causal_links.Side(question, qvec)
        blobs = store.fact_vectors(ids)
        spans = store.causal_assertions(ids)
        for fid in ids:
            sims = []
            if fid in blobs:
                side = causal_links.Side("", unpack_vector(blobs[fid]), frozenset())
                sims.append(causal_links.similarity(q, side))
            for a in spans.get(fid, []):
                if a.effect_vec and a.backref != "effect":
                    side = causal_links.Side(a.effect, unpack_vector(a.effect_vec))
                    sims.append(causal_links.similarity(q, side))
            if sims:
                rel[fid] = 0.5 * rel[fid] + 0.5 * max(sims)
    # A why-question asks about a problem or a decision; a fix of it shares its words but
    # is what came after, so it is a weaker target than the event it fixed.
    texts = store.facts(ids)
    for fid in ids:
        if fid in texts and causal_links.is_fix(texts[fid].text):
            rel[fid] *= FIX_TARGET
    best = max(rel.values()) or 1.0
    ranked = sorted(rel.items(), key=lambda x: -x[1])[:TARGETS]
    return {fid: r / best for fid, r in ranked if r >= TARGET_FLOOR * best}


def why(
    store: Store, embedder: Embedder | None, target: str | int, *, k: int, scope: Scope
) -> list[Cause]:
    """Up to ``k`` root causes of what ``target`` (a question or a fact id) is about, best
    first, each with its cited chain from the root to the fact it explains."""
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 50:
        raise InvalidInput("k must be an integer from 1 to 50")
    fid = _fact_id(target)
    if fid is not None:
        _require(store, fid)
        starts = {fid: 1.0}
    elif isinstance(target, str):
        starts = _targets(store, embedder, target, scope)
    else:
        raise InvalidInput(f"why takes a question or a fact id, not {type(target).__name__}")
    if not starts:
        return []
    # One bounded walk per target, so that targets never hide each other's causes (a target
    # can well be a cause of another); a root reached from several keeps its best chain.
    best: dict[int, tuple[float, list[tuple[int, LinkRow | None]]]] = {}

    def offer(pool: dict, fid: int, score: float, path: list) -> None:  # type: ignore[type-arg]
        if fid not in pool or score > pool[fid][0]:
            pool[fid] = (score, path)

    dead_ends: set[int] = set()  # facts a walk read and found no recorded cause of
    for start, weight in starts.items():
        w = _walk(store, {start: weight}, "causes", scope)
        dead_ends |= w.expanded - {e.near for e in w.edges}
        found = False
        for fid, (score, path, root) in _best_paths(w, start).items():
            if root:
                found = True
                offer(best, fid, score, path)
            else:
                offer(best, fid, score * EXPLAINED, path)
        if not found:
            # No linked cause, but the fact states its own ("Users were logged out because
            # Redis evicted their keys"): it is its own root, the cause inside it.
            rows = store.causal_assertions([start]).get(start, [])
            if any(r.backref != "cause" for r in rows):
                conf = max(r.confidence for r in rows)
                offer(best, start, weight * SELF_ROOT * conf, [(start, None)])
            elif not w.edges and (pre := _precursor(store, start, scope)) is not None:
                # Nothing recorded as its cause: a story told step by step without a word
                # of cause ("Seitdem warten Anfragen ..." then "Die Checkout-Anfragen liefen
                # in Timeouts."). The fact told before it about the same thing, and what
                # that one's causes are, stand in, cited as "precedes".
                pid, sim = pre
                step = (start, LinkRow(start, pid, sim, "precedes", None))
                pw = _walk(store, {pid: weight * PRECEDES * sim}, "causes", scope)
                rooted = False
                for fid, (score, path, root) in _best_paths(pw, pid).items():
                    rooted = rooted or root
                    offer(best, fid, score if root else score * EXPLAINED, [*path, step])
                if not rooted:
                    offer(best, pid, weight * PRECEDES * sim, [(pid, None), step])
    # A root that is a dead end (nothing recorded as its cause) may be a step of a story
    # told on without a word of cause: the fact told just before it stands in, below it.
    for fid, (score, path) in sorted(best.items(), key=lambda x: (-x[1][0], x[0]))[:k]:
        if fid not in dead_ends:
            continue
        pre = _precursor(store, fid, scope)
        if pre is not None and pre[0] not in {f for f, _ in path}:
            pid, sim = pre
            offer(best, pid, score * PRECEDES * sim,
                  [(pid, None), (fid, LinkRow(fid, pid, sim, "precedes", None)), *path[1:]])
    ranked = sorted(best.items(), key=lambda x: (-x[1][0], x[0]))[:k]
    out = []
    for fid, (score, facts) in ranked:
        steps = _steps(store, facts)
        if steps:
            out.append(
                Cause(
                    id=fid, text=steps[0].text, score=round(score, 4), chain=steps,
                    session=steps[0].session, date=steps[0].date,
                )
            )
    return out


def _precursor(store: Store, fid: int, scope: Scope) -> tuple[int, float] | None:
    """The fact in ``scope`` told before ``fid`` (in its session or the few before it, as the
    causal linker's locality has it) most like it, with its similarity, if close enough."""
    row = store.facts([fid]).get(fid)
    if row is None:
        return None
    _ranks, near = causal_links.session_ranks(store, fid, row.session, row.project)
    visible = store.in_scope(near, scope)
    found = store.facts([c for c in near if c in visible])
    rows = {c: found[c] for c in near if c in found}
    if not rows:
        return None
    blobs = store.fact_vectors([fid, *rows])
    me = causal_links.Side(row.text, _unpacked(blobs.get(fid)))
    sim, best = max((sim, c) for c, sim in causal_links.similarities(me, rows, blobs).items())
    return (best, sim) if sim >= PRECEDES_FLOOR else None


def _unpacked(blob: bytes | None) -> list[float] | None:
    return unpack_vector(blob) if blob else None


def _best_paths(
    w: _Walk, start: int
) -> dict[int, tuple[float, list[tuple[int, LinkRow | None]], bool]]:
    """Per fact the walk reached from ``start``: its best score, its cited path (root first)
    and whether it is a root.

    The breadth-first walk reaches each fact by its shortest path; a root cause stated two
    steps back ("the tyre burst" -> "the truck stopped" -> "the delivery was late") is often
    also linked straight to the effect, and the shortest path would then skip the step in
    between and leave that step looking like a root of its own. Here every simple path of up
    to ``MAX_DEPTH`` links over the links read counts: a fact scores by its best path, the
    start's weight times the mean link strength times a bonus per link (the deepest
    supported root first), and it is a root only when none of its causes lies off that path
    (no cause at all, or only ones closing a cycle back to the start)."""
    out_edges: dict[int, list[LinkRow]] = {}
    for e in w.edges:
        if e.far != e.near:
            out_edges.setdefault(e.near, []).append(e)
    base = w.base[start]
    # layer d: fact -> (sum of link strengths, link that reached it at depth d)
    layers: list[dict[int, tuple[float, LinkRow | None]]] = [{start: (0.0, None)}]

    def on_path(d: int, fid: int, target: int) -> bool:
        while d >= 0:
            if fid == target:
                return True
            link = layers[d][fid][1]
            if link is None:
                return False
            fid, d = link.near, d - 1
        return False

    for d in range(1, MAX_DEPTH + 1):
        layer: dict[int, tuple[float, LinkRow | None]] = {}
        for near, (total, _link) in layers[d - 1].items():
            for e in out_edges.get(near, ()):
                t = total + e.score
                if e.far in layer and layer[e.far][0] >= t:
                    continue
                if on_path(d - 1, near, e.far):
                    continue  # a cycle: the path already went through this fact
                layer[e.far] = (t, e)
        if not layer:
            break
        layers.append(layer)
    best: dict[int, tuple[float, int]] = {}
    for d in range(1, len(layers)):
        for fid, (total, _link) in layers[d].items():
            if fid == start:
                continue
            sc = base * (total / d) * (1.0 + DEPTH_BONUS * d)
            if fid not in best or sc > best[fid][0]:
                best[fid] = (sc, d)
    out: dict[int, tuple[float, list[tuple[int, LinkRow | None]], bool]] = {}
    for fid, (sc, d) in best.items():
        nodes: list[int] = []
        links: list[LinkRow | None] = []
        f, depth = fid, d
        while depth >= 0:
            nodes.append(f)
            link = layers[depth][f][1]
            links.append(link)
            if link is None:
                break
            f, depth = link.near, depth - 1
        # nodes: fid ... start; links[i] reached nodes[i] from nodes[i + 1]
        cited = [(nodes[0], None)] + [(nodes[i + 1], links[i]) for i in range(len(nodes) - 1)]
        on = set(nodes)
        root = fid not in w.expanded or all(e.far in on for e in out_edges.get(fid, ()))
        out[fid] = (sc, cited, root)
    return out


def _start(store: Store, embedder: Embedder | None, target: str | int, scope: Scope) -> int | None:
    fid = _fact_id(target)
    if fid is not None:
        _require(store, fid)
        return fid
    if not isinstance(target, str):
        raise InvalidInput(f"expected a fact id or text, not {type(target).__name__}")
    starts = _targets(store, embedder, target, scope)
    return max(starts, key=lambda f: starts[f]) if starts else None


def _nodes(store: Store, w: _Walk, exclude: set[int]) -> list[TraceNode]:
    ids = sorted(
        (f for f in w.depth if f not in exclude), key=lambda f: (w.depth[f], -w.score(f), f)
    )
    rows = store.facts(ids)
    return [
        TraceNode(
            id=f, text=rows[f].text, depth=w.depth[f],
            via=w.parent[f].near if f in w.parent else None,
            score=round(w.parent[f].score, 4) if f in w.parent else 1.0,
            cue=w.parent[f].cue if f in w.parent else None,
        )
        for f in ids
        if f in rows
    ]


def trace(
    store: Store,
    embedder: Embedder | None,
    target: str | int,
    *,
    direction: str,
    depth: int,
    scope: Scope,
) -> list[TraceNode]:
    """The facts reachable from ``target`` along effects (or causes), ordered by depth."""
    if direction not in ("effects", "causes"):
        raise InvalidInput(f"direction must be 'effects' or 'causes', not {direction!r}")
    if not isinstance(depth, int) or isinstance(depth, bool) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"depth must be an integer from 1 to {MAX_DEPTH}")
    start = _start(store, embedder, target, scope)
    if start is None:
        return []
    w = _walk(store, {start: 1.0}, direction, scope, max_depth=depth)
    return _nodes(store, w, {start})


def reach(
    store: Store, starts: list[int], *, direction: str, depth: int, scope: Scope
) -> list[TraceNode]:
    """The facts reachable from any of ``starts`` (excluded themselves) within ``depth``
    links, nearest first: the prompt block follows the recorded causes of what it shows."""
    if not starts:
        return []
    w = _walk(store, dict.fromkeys(starts, 1.0), direction, scope, max_depth=depth)
    return _nodes(store, w, set(starts))


def chain(store: Store, from_fact: int, to_fact: int) -> list[Step] | None:
    """The ordered causal path from ``from_fact`` to ``to_fact`` (current facts), or None."""
    for f in (from_fact, to_fact):
        if _fact_id(f) is None or not isinstance(f, int):
            raise InvalidInput("chain takes two fact ids")
        _require(store, f)
    if from_fact == to_fact:
        return _steps(store, [(from_fact, None)])
    w = _walk(store, {from_fact: 1.0}, "effects", Scope(), stop_at=to_fact)
    if to_fact not in w.depth:
        return None
    return _steps(store, _path(w, to_fact))


def what_if(store: Store, fact: int) -> WhatIf:
    """If ``fact`` were false, which of its downstream effects lose every cause (collapsed)
    and which keep one through another path (survive). Reads only; changes nothing."""
    if _fact_id(fact) is None or not isinstance(fact, int):
        raise InvalidInput("what_if takes a fact id")
    _require(store, fact)
    scope = Scope()
    w = _walk(store, {fact: 1.0}, "effects", scope)
    down = [f for f in w.depth if f != fact]
    if not down:
        return WhatIf(fact=fact)
    causes: dict[int, set[int]] = {}
    for e in store.causal_edges(down, "causes", scope, FANOUT):
        causes.setdefault(e.near, set()).add(e.far)
    removed = set(down) | {fact}
    # Least fixpoint: a downstream fact stands if one of its causes is outside the removed
    # set (unaffected) or itself stands. Cycles with no outside support therefore collapse.
    stands: set[int] = set()
    changed = True
    while changed:
        changed = False
        for f in down:
            if f in stands:
                continue
            if any((c not in removed) or (c in stands) for c in causes.get(f, ())):
                stands.add(f)
                changed = True
    nodes = _nodes(store, w, {fact})
    return WhatIf(
        fact=fact,
        collapsed=[n for n in nodes if n.id not in stands],
        survives=[n for n in nodes if n.id in stands],
    )

