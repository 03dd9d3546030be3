"""Links that a why-question makes: the answer explains what the question asks about.

In a coding session the chain of causes is often told one question at a time, days apart:
"the invoice went out three times" (monday), "Why was that event consumed three times?" ->
"the worker missed its heartbeat..." (a week later). The answer names no cue that points
back, and the two sessions may share no rare word; the question is the link. When an
exchange's user asks why, the earlier fact most similar to the question (an effect) gets the
answer's sentence most similar to it as its cause, ``via='question'``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..storage.connection import pack_vector

if TYPE_CHECKING:
    from ..ml.embed import Embedder
    from ..prepared import Provenance
    from ..storage.store import Store

# A question that asks for a cause, in the languages the cue lexicon covers.
WHY = re.compile(
    r"\b(?:why|how come|what (?:caused|causes|led to|made)|what's causing|reason for|"
    # "It worked last winter. What changed?": the difference is the cause asked for.
    r"what(?:'s| has| had)? changed|what(?:'s| is| was) different|"
    r"warum|wieso|weshalb|pourquoi|por ?qu[eé]|perch[eé]|come mai|waarom|neden|niye|"
    r"por que)\b|为什么|为何|なぜ|どうして",
    re.IGNORECASE,
)
MIN_COS = 0.38  # question to the earlier fact it asks about (true references on the
# development scenarios: 0.32-0.66, pronouns ("that query", "it") keep them low)
CANDIDATES = 8
_NARRATION = re.compile(r"^(?:let me|i'll|i will|ok(?:ay)?\b|first\b)", re.IGNORECASE)


def asks_why(question: str) -> bool:
    return bool(question) and WHY.search(question) is not None


def link_answer(
    store: Store, embedder: Embedder, question: str, answer: Sequence[int], prov: Provenance,
    now: str,
) -> tuple[int, int] | None:
    """Inside a write transaction: link the answer's best sentence (cause) to the earlier
    fact of the project the why-question asks about (effect); the pair, or None when the
    question asks about nothing stored (no earlier fact within ``MIN_COS``)."""
    if not answer or not asks_why(question):
        return None
    exchange = (prov.source or "").rsplit(":", 1)[0] + ":"
    qblob = pack_vector(embedder.embed_batch([question])[0])
    near = store.vec_search(qblob, prov.project, CANDIDATES + len(answer) + 8)
    ids = [fid for fid, _ in near]
    rows = store.facts(ids)
    own = {fid for fid, src in store.statement_sources(ids)
           if src and exchange != ":" and src.startswith(exchange)}
    effect = next(
        (fid for fid, dist in near
         if fid in rows and fid not in own and fid not in answer
         and rows[fid].status == "current" and 1.0 - dist >= MIN_COS),
        None,
    )
    if effect is None:
        return None
    answers = store.facts(list(answer))
    pool = [fid for fid in answer if fid in answers and not _NARRATION.match(answers[fid].text)]
    if not pool:
        return None
    eblob = pack_vector(embedder.embed_batch([rows[effect].text])[0])
    dist = store.distances(pool, eblob)
    cause = min(pool, key=lambda f: dist.get(f, 2.0))
    score = round(1.0 - dict(near)[effect], 4)
    store.add_causal_links([(cause, effect, "question", score, None, "why", now)])
    return cause, effect
