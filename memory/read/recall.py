"""Hybrid multi-hop recall: FTS5 BM25 and sqlite-vec kNN seeds, fused; then a bounded walk
over shared entities and session neighbours; then one ranking over every candidate.

Why not plain reciprocal rank fusion: on conversational memory it loses to BM25 alone
(measured in evals/locomo.py). So seeds are fused by normalised scores, every candidate
(seed or walked) is re-scored against the query with its own vector, and walked facts
inherit part of the score of the fact that reached them. Each level of the walk is one SQL
statement over the whole frontier, never one query per node.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import apsw

from ...hooks.text import QUERY_STOP
from ..errors import StoreError
from ..ml.embed import Embedder
from ..records import Hit
from ..storage.connection import pack_vector
from ..storage.filters import Scope
from ..storage.store import FactRow, Store

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class RecallConfig:
    """Weights and bounds of one recall strategy; named recipes live in RECIPES."""

    seed_limit: int = 40
    w_bm25: float = 0.5  # sentence BM25, normalised by the best
    w_ctx: float = 1.0  # BM25 of the passage the sentence was said in
    w_cos: float = 0.7  # cosine similarity to the query, min-max normalised over candidates
    hops: int = 1
    entity_fanout: int = 60  # facts fetched per hop level
    max_entity_degree: int = 40  # entities on more facts than this are too common to bridge
    walk_decay: float = 0.7
    walk_from: int = 8  # seeds that start the walk
    neighbour_window: int = 2  # turns each side: the reply to a reply is still context
    neighbour_decay: float = 0.5
    use_vectors: bool = True
    prf_docs: int = 5  # pseudo-relevance feedback: expand the query with words of the best seeds
    prf_terms: int = 8
    w_prf: float = 0.5


RECIPES: dict[str, RecallConfig] = {
    "hybrid": RecallConfig(),
    "bm25": RecallConfig(w_ctx=0.0, w_cos=0.0, hops=0, neighbour_window=0, use_vectors=False),
    "dense": RecallConfig(w_bm25=0.0, w_ctx=0.0, hops=0, neighbour_window=0),
}


def fts_query(text: str, skip: frozenset[str] = frozenset()) -> str | None:
    """An FTS5 MATCH expression: the query's content words OR-ed, each quoted (no syntax
    from user text ever reaches FTS5), leaving out the words in ``skip``."""
    words = [w for w in query_words(text) if w not in skip]
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in words[:32])


def query_words(text: str) -> list[str]:
    """The lowercased content words of a query, first occurrence order."""
    words: list[str] = []
    for w in _WORD.findall(text.lower()):
        if w in QUERY_STOP or (len(w) < 2 and not w.isdigit()) or w in words:
            continue
        words.append(w)
    return words


COMMON_SHARE = 0.1  # a word in more than this share of facts (and COMMON_MIN) is not searched
COMMON_MIN = 1_000


def common_words(store: Store, words: list[str], keep_one: bool = True) -> frozenset[str]:
    """Words of a large store in so many facts that BM25 gives them next to no weight, while
    scoring their long posting lists is what a query costs; with ``keep_one``, the rarest
    word is never among them (a query of only common words still searches)."""
    size = store.max_fact_id()
    if size <= COMMON_MIN or not words:
        return frozenset()
    try:
        docs = store.term_docs(words)
    except (apsw.Error, StoreError):
        return frozenset()  # e.g. a read-only file on an old SQLite without fts5vocab
    cap = max(COMMON_MIN, size * COMMON_SHARE)
    common = {w for w in words if docs.get(w, 0) > cap}
    if keep_one and len(common) == len(words):
        common.discard(min(words, key=lambda w: docs.get(w, 0)))
    return frozenset(common)


def key_terms_query(
    words: list[str], docs: dict[str, int], max_docs: int, n: int = 4
) -> str | None:
    """An FTS5 MATCH of the ``n`` rarest of ``words`` (``content_terms`` of a sentence):
    cheap enough to run for every written sentence, where OR-ing every word would score most
    of the index. ``docs`` (``Store.term_docs``) says how many facts hold each word; a word
    in none is left out, and so is one in more than ``max_docs``: its posting list is long
    and its BM25 weight near zero."""
    kept = [w for w in words if 0 < docs.get(w, 0) <= max_docs]
    best = sorted(kept, key=lambda w: docs[w])[:n]
    return " OR ".join(f'"{w}"' for w in best) if best else None


def content_terms(text: str) -> list[str]:
    """Lowercased words of ``text`` worth searching for, first occurrence order."""
    words: list[str] = []
    for w in _WORD.findall(text):
        lw = w.lower()
        if lw in QUERY_STOP or lw in words or len(lw) < 3 and not (len(w) == 2 and w.isupper()):
            # Two-letter acronyms are kept: "CI", "DB", "PR", "S3" name things.
            continue
        words.append(lw)
    return words


@dataclass
class _Cand:
    id: int
    bm25: float = 0.0  # normalised 0..1
    ctx: float = 0.0  # passage bm25, normalised 0..1
    prf: float = 0.0  # passage bm25 of the expanded query, normalised 0..1
    vec: float = 0.0  # seed cosine similarity, min-max normalised
    walk: float = 0.0  # inherited score
    cos: float | None = None
    path: str = ""
    reasons: list[str] = field(default_factory=list)


def recall(
    store: Store,
    embedder: Embedder | None,
    query: str,
    *,
    k: int,
    scope: Scope,
    config: RecallConfig = RECIPES["hybrid"],
    query_vector: list[float] | None = None,
) -> tuple[list[Hit], dict[int, FactRow]]:
    """Rank facts in ``scope`` for ``query``; return hits best first and their rows.

    The stages: seeds by BM25 over sentences and over the passages they were said in
    (``_seed_text``), seeds by vector (``_seed_vectors``), the query expanded with words of
    the best seeds (``_feedback``), the walk from the best seeds (``_walk``), the cosine of
    every candidate (``_rescore``), then one ranking (``_hits``)."""
    cands: dict[int, _Cand] = {}
    text = _seed_text(store, query, cands, scope, config)
    qblob, lo, hi = _seed_vectors(store, embedder, query, query_vector, cands, scope, config)

    def cos_n(c: _Cand) -> float:
        return 0.0 if c.cos is None else min(1.0, max(0.0, (c.cos - lo) / (hi - lo)))

    def seed_score(c: _Cand) -> float:
        return (
            config.w_bm25 * c.bm25 + config.w_ctx * c.ctx + config.w_cos * cos_n(c)
            + config.w_prf * c.prf
        )

    seeds = _feedback(store, query, cands, text, seed_score, config)
    _walk(store, cands, seeds, scope, config, seed_score)
    if qblob is not None and config.w_cos > 0:
        _rescore(store, cands, qblob)

    def final(c: _Cand) -> float:
        return seed_score(c) + c.walk

    ranked = sorted(cands.values(), key=final, reverse=True)[:k]
    return _hits(store, ranked, final, scope)


@dataclass
class _TextSeeds:
    """The query as the BM25 stages searched it: its FTS5 MATCH (None: nothing to search),
    the common words left out of it, and how to credit facts by the passages they were said
    in (``passages(expr, field, reason)``)."""

    match: str | None
    skip: frozenset[str]
    passages: Callable[[str, str, str], None]


def _seed_text(
    store: Store, query: str, cands: dict[int, _Cand], scope: Scope, config: RecallConfig,
) -> _TextSeeds:
    """Seeds by BM25: each fact's sentence, normalised by the best, and the best passage it
    was said in."""
    skip = common_words(store, query_words(query)) if config.w_bm25 > 0 else frozenset()
    match = fts_query(query, skip) if config.w_bm25 > 0 else None
    if match:
        rows = store.fts_search(match, scope, config.seed_limit)
        if rows:
            best = -rows[0][1] or 1.0
            for rank, (fid, score) in enumerate(rows):
                c = cands.setdefault(fid, _Cand(fid))
                c.bm25 = max(0.0, -score / best)
                c.reasons.append(f"bm25 #{rank + 1}")

    def passages(expr: str, field: str, reason: str) -> None:
        """Credit each fact with the normalised BM25 of the best passage it was said in."""
        rows = store.passage_search(expr, scope, config.seed_limit)
        best = (-rows[0][1] or 1.0) if rows else 1.0
        for fid, score in rows:
            c = cands.setdefault(fid, _Cand(fid))
            setattr(c, field, max(0.0, -score / best))
            if not c.reasons:
                c.reasons.append(reason)

    if match and config.w_ctx > 0:
        passages(match, "ctx", "passage bm25")
    return _TextSeeds(match, skip, passages)


def _seed_vectors(
    store: Store, embedder: Embedder | None, query: str, query_vector: list[float] | None,
    cands: dict[int, _Cand], scope: Scope, config: RecallConfig,
) -> tuple[bytes | None, float, float]:
    """Seeds by vector (nearest neighbours in scope); returns the query's packed vector (None
    without vectors) and the range of seed cosines that normalises them."""
    qblob: bytes | None = None
    lo, hi = 0.0, 1.0
    if embedder is not None and config.use_vectors and store.vec_dim is not None:
        vec = query_vector if query_vector is not None else embedder.embed_batch([query])[0]
        qblob = pack_vector(vec)
        hits = store.vec_search(qblob, scope.partition, config.seed_limit + 10)
        if hits:
            allowed = store.in_scope([h[0] for h in hits], scope)
            kept = [(fid, 1.0 - dist) for fid, dist in hits if fid in allowed][: config.seed_limit]
            if kept:
                hi = kept[0][1]
                lo = min(kept[-1][1], hi - 1e-6)
            for rank, (fid, sim) in enumerate(kept):
                c = cands.setdefault(fid, _Cand(fid))
                c.cos = sim
                c.reasons.append(f"vector #{rank + 1}")
    return qblob, lo, hi


def _feedback(
    store: Store, query: str, cands: dict[int, _Cand], text: _TextSeeds,
    seed_score: Callable[[_Cand], float], config: RecallConfig,
) -> list[_Cand]:
    """Pseudo-relevance feedback: the passages matching the query expanded with words the
    best seeds share; returns the seeds best first, each with the path that found it."""
    seeds = sorted(cands.values(), key=seed_score, reverse=True)
    if config.prf_docs and seeds:
        expanded = _expand(
            store, query, [c.id for c in seeds[: config.prf_docs]], config.prf_terms, text.skip
        )
        if expanded:
            text.passages(expanded, "prf", "expanded query")
            seeds = sorted(cands.values(), key=seed_score, reverse=True)
    for c in seeds:
        c.path = "seed (" + ", ".join(c.reasons) + ")"
    return seeds


def _walk(
    store: Store, cands: dict[int, _Cand], seeds: list[_Cand], scope: Scope,
    config: RecallConfig, seed_score: Callable[[_Cand], float],
) -> None:
    """Walk from the best seeds: shared entities, then session neighbours; a reached fact
    inherits part of the score of the fact that reached it."""
    frontier = [c.id for c in seeds[: config.walk_from]]
    for _hop in range(config.hops):
        if not frontier:
            break
        frontier = _walk_entities(store, cands, frontier, scope, config, seed_score)
    if config.neighbour_window > 0 and seeds:
        anchors = [c.id for c in seeds[: config.walk_from]]
        for aid, nid in store.session_neighbours(anchors, config.neighbour_window, scope):
            inherited = seed_score(cands[aid]) * config.neighbour_decay
            c = cands.get(nid)
            if c is None:
                c = cands[nid] = _Cand(nid, path=f"next to #{aid} in its session")
            if inherited > c.walk:
                c.walk = inherited
                if not c.path.startswith("seed"):
                    c.path = f"next to #{aid} in its session"


def _rescore(store: Store, cands: dict[int, _Cand], qblob: bytes) -> None:
    """The cosine to the query of every candidate the vector search did not return."""
    missing = [fid for fid, c in cands.items() if c.cos is None]
    for fid, dist in store.distances(missing, qblob).items():
        cands[fid].cos = 1.0 - dist


def _hits(
    store: Store, ranked: list[_Cand], final: Callable[[_Cand], float], scope: Scope
) -> tuple[list[Hit], dict[int, FactRow]]:
    """The ranked candidates as hits, with their rows."""
    rows = store.facts([c.id for c in ranked])
    sessions = store.sessions_of([c.id for c in ranked])
    # In a past view a hit carries its status as recorded then, not as it is now.
    then = store.lifecycle_as_of(list(rows), scope.as_of) if scope.as_of is not None else {}
    out = []
    for c in ranked:
        r = rows.get(c.id)
        if r is None:
            continue
        status, superseded_by = then.get(r.id, (r.status, r.superseded_by))
        out.append(
            Hit(
                id=r.id,
                text=r.text,
                score=round(final(c), 6),
                project=r.project,
                session=r.session,
                source=r.source,
                role=r.role,
                kind=r.kind,
                recorded_at=r.recorded_at,
                valid_from=r.valid_from,
                valid_to=r.valid_to,
                path=c.path,
                status=status,
                superseded_by=superseded_by,
                sessions=sessions.get(r.id, ()),
            )
        )
    return out, rows


def _expand(
    store: Store, query: str, ids: list[int], n_terms: int, skip: frozenset[str] = frozenset()
) -> str | None:
    """The query's words plus the words shared by most of the best seeds (RM3-style)."""
    rows = store.facts(ids)
    texts = [rows[i].text for i in ids if i in rows]  # the best seed first
    qwords = {w for w in _WORD.findall(query.lower())}
    df: dict[str, int] = {}  # in the order first seen: ties go to the better seeds' words
    for t in texts:
        for w in dict.fromkeys(_WORD.findall(t.lower())):
            if w in QUERY_STOP or w in qwords or w in skip or len(w) < 3 or w.isdigit():
                continue
            df[w] = df.get(w, 0) + 1
    # (A set here made the tie order, and so the block, hang on the process's hash seed.)
    ranked = [w for w, n in sorted(df.items(), key=lambda x: -x[1]) if n >= 2]
    common = common_words(store, ranked[: 2 * n_terms], keep_one=False)
    extra = [w for w in ranked if w not in common][:n_terms]
    base = fts_query(query, skip)
    if not extra or not base:
        return None
    return base + " OR " + " OR ".join(f'"{w}"' for w in extra)


def _walk_entities(
    store: Store,
    cands: dict[int, _Cand],
    frontier: list[int],
    scope: Scope,
    config: RecallConfig,
    seed_score,  # type: ignore[no-untyped-def]
) -> list[int]:
    """One hop over shared entities from ``frontier``; returns the newly reached facts."""
    ents = store.entities_of(frontier)
    entity_ids = sorted({eid for lst in ents.values() for eid, _, _ in lst})
    degrees = store.entity_degrees(entity_ids, cap=config.max_entity_degree + 1)
    bridges = [e for e in entity_ids if 1 < degrees.get(e, 0) <= config.max_entity_degree]
    if not bridges:
        return []
    # Which frontier fact (best first) reached each entity, with its display name.
    origin: dict[int, tuple[int, str]] = {}
    for fid in sorted(frontier, key=lambda f: -(seed_score(cands[f]) + cands[f].walk)):
        for eid, _name, display in ents.get(fid, []):
            origin.setdefault(eid, (fid, display))
    reached: list[int] = []
    for eid, fid in store.facts_with_entities(bridges, scope, config.entity_fanout):
        src, display = origin[eid]
        base = seed_score(cands[src]) + cands[src].walk
        # Rarer entities are stronger bridges.
        inherited = base * config.walk_decay / (1.0 + 0.1 * degrees.get(eid, 1))
        c = cands.get(fid)
        if c is None:
            c = cands[fid] = _Cand(fid, path=f"via entity '{display}' from #{src}")
            reached.append(fid)
        if inherited > c.walk:
            c.walk = inherited
            if not c.path.startswith("seed"):
                c.path = f"via entity '{display}' from #{src}"
    return reached
