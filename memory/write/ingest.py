"""The write path: clean, redact, split, classify, extract, embed, deduplicate, and store
in one short transaction; then check the new facts against current ones for updates.

Sentence splitting and extraction happen before the write lock is taken, and so does the
embedding of the first WRITE_CHUNK facts; a longer write embeds each next step on a worker
thread while the transaction writes the current one (see ``write``). Exact duplicates are caught by
the UNIQUE content hash (also across processes racing on the same sentence); near
duplicates by vector similarity guarded by ``merge_guard.safe_to_merge``.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from ...hooks.common import strip_blocks
from ...hooks.redact import redact
from .. import progress
from ..causal import links as causal_links
from ..causal.links import SpanPlan
from ..errors import InvalidInput, NotFound
from ..extract.dates import resolve_valid_time
from ..extract.entities import extract_entities
from ..extract.kinds import classify_kind, is_task
from ..extract.sentences import split_sentences
from ..extract.standing import is_rule, is_standing
from ..ml.embed import Embedder
from ..prepared import Prepared, Provenance
from ..records import RememberResult, Revision
from ..storage import connection as db
from ..storage.filters import Scope
from ..storage.store import Store
from ..timeutil import to_iso
from ..updates.detect import FactView, Update, detect_update, plainly_complement
from ..updates.explicit import names_config_file, other_file
from ..updates.judge import Judge, judge_for
from .merge_guard import safe_to_merge

_SURROGATES = re.compile("[\ud800-\udfff]")
MAX_CHARS = 1_000_000  # per remember() call; larger input is refused, not truncated
PASSAGE_CHARS = 1_200  # long texts are kept as passages of about this size
NEAR_DUPLICATE = 0.95  # cosine similarity above which two sentences may be one fact
MIN_UPDATE_SIMILARITY = 0.25  # below this cosine updates.detect_update never flags
JUDGE_MIN_SIMILARITY = 0.3  # the learned judge is asked only about a fact at least this close
JUDGE_MARGIN = 0.1  # ... and only when the next nearest is this much further (busy projects)
STORY_FANOUT = 50  # the causal links of a new fact read to tell a story step from a change
UPDATE_NEIGHBOURS = 40  # current facts compared with each new fact for contradictions
CLOSEST_MARGIN = 0.05  # cosine within which two updated facts are both "the closest" one
FILE_LOOKBACK = 3  # sentences said before a config value in its turn that may name its file
# Facts a change that only similarity ties to them (``updates.shift``) never retires: a rule,
# a preference or a cause outlives the next "I replaced ..." that shares its words. Nor does it
# retire a fact of its own session, whose earlier sentences tell the problem it fixes. Nor does
# a state ending said in a rule's own conversation retire the rule.
_STANDING = frozenset({"preference", "constraint", "cause"})
# The roles of a captured conversation's sentences: narrative, which goes on with a story. The
# weakest update rule (``shift``) is right on them about one time in three (the stored
# transcripts of thirteen scenario sets, labelled), so it retires only facts a deliberate note
# (``remember``, an agent's MCP call) changes.
_NARRATIVE = frozenset({"user", "assistant"})
# A word in more facts than this finds no candidates: it is not what makes a sentence a
# duplicate or an update of another, and scoring its postings is what a write would wait on.
COMMON_DOCS = 400

def clean_input(value: object) -> str:
    """Validate one input text: a str (or UTF-8 bytes), non-empty, under MAX_CHARS."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", errors="replace")
    if not isinstance(value, str):
        raise InvalidInput(f"remember takes text or a list of texts, not {type(value).__name__}")
    if len(value) > MAX_CHARS:
        raise InvalidInput(
            f"text is {len(value):,} characters; the limit is {MAX_CHARS:,} per call: split it"
        )
    # NULs and lone surrogates cannot be stored faithfully: replace, never half-write.
    return _SURROGATES.sub("\ufffd", value.replace("\x00", " "))


def normalise(text: str) -> str:
    """Form used for the exact-duplicate hash: NFKC, casefolded, whitespace collapsed,
    trailing punctuation dropped."""
    t = unicodedata.normalize("NFKC", text).casefold()
    t = re.sub(r"\s+", " ", t).strip()
    return t.rstrip(" .!;")


def content_hash(project: str | None, text: str) -> str:
    return hashlib.sha256(f"{project or ''}\x00{normalise(text)}".encode()).hexdigest()


def sentences_of(text: str) -> list[str]:
    """The sentences ``prepare`` reads in one text (code blocks stripped, secrets redacted)."""
    return split_sentences(redact(strip_blocks(text)))


def prepare(
    texts: Sequence[str], project: str | None, stated_at: datetime,
    *, skip: Callable[[str], bool] | None = None, lead: str = "",
) -> tuple[list[Prepared], list[str]]:
    """Pure part of the write path: sentences with kind, entities, valid time and hash, and
    the passages (texts, or windows of long texts) they were said in. A sentence ``skip``
    accepts stays in its passage but is no fact; ``lead`` (the question a reply answers)
    opens every passage, on a line of its own, so that the passage is found by its words."""
    out: list[Prepared] = []
    passages: list[str] = []
    seen: set[str] = set()
    head = [lead.strip()] if lead.strip() else []
    for raw in texts:
        window: list[str] = list(head)
        for sentence in sentences_of(raw):
            if len(window) > len(head) and (
                sum(len(w) + 1 for w in window) + len(sentence) > PASSAGE_CHARS
            ):
                passages.append(_joined(window, head))
                window = list(head)
            window.append(sentence)
            if skip is not None and skip(sentence):
                continue
            digest = content_hash(project, sentence)
            if digest in seen:
                continue
            seen.add(digest)
            span = resolve_valid_time(sentence, stated_at)
            valid_from = to_iso(span[0]) if span else to_iso(stated_at)
            valid_to = to_iso(span[1]) if span and span[1] else None
            out.append(
                Prepared(
                    text=sentence,
                    hash=digest,
                    kind=classify_kind(sentence),
                    entities=extract_entities(sentence),
                    valid_from=valid_from,
                    valid_to=valid_to,
                    passage=len(passages),
                )
            )
        if len(window) > len(head):
            passages.append(_joined(window, head))
    return out, passages


def _joined(window: list[str], head: list[str]) -> str:
    """A passage's text; a lead is set off by a line break (``Store.passage_leads``)."""
    if head:
        return head[0] + "\n" + " ".join(window[1:])
    return " ".join(window)


WRITE_CHUNK = 16  # facts written per step while the next step's vectors are computed


def _embedded(embedder: Embedder | None, chunk: list[Prepared]) -> list[list[SpanPlan]]:
    """The vectors of one chunk (set on its items) and its causal span plans: the work a
    step of ``write`` needs done before it runs, and that needs no database."""
    if embedder is not None and chunk:
        for p, v in zip(chunk, embedder.embed_batch([p.text for p in chunk]), strict=True):
            p.vector = v
    return causal_links.prepare_write(embedder, chunk)


@contextlib.contextmanager
def _pipelined(
    embedder: Embedder | None, chunks: list[list[Prepared]]
) -> Iterator[Iterator[list[list[SpanPlan]]]]:
    """Yield an iterator of ``_embedded`` per chunk that computes chunk j + 1 on a worker
    thread while the caller writes chunk j: onnxruntime releases the GIL, so on two cores
    the model and the write path's Python run at the same time instead of one after the
    other. One chunk (every small write) is embedded inline. The first ``next`` returns
    only once chunk 0 is embedded; on leaving, the worker is joined."""
    if len(chunks) <= 1:
        yield (_embedded(embedder, c) for c in chunks)
        return
    with ThreadPoolExecutor(1, thread_name_prefix="reasongraph-embed") as pool:

        def steps() -> Iterator[list[list[SpanPlan]]]:
            ahead = pool.submit(_embedded, embedder, chunks[0])
            for j in range(len(chunks)):
                ready = ahead.result()
                if j + 1 < len(chunks):
                    ahead = pool.submit(_embedded, embedder, chunks[j + 1])
                yield ready

        yield steps()


def write(
    store: Store,
    embedder: Embedder | None,
    items: list[Prepared],
    passages: list[str],
    prov: Provenance,
    *,
    detect_updates: bool = True,
    supersede: tuple[int, str] | None = None,
    lock: contextlib.AbstractContextManager[object] | None = None,
) -> RememberResult:
    """Embed ``items`` and store them; return what happened.

    The items are written in steps of WRITE_CHUNK (each step: duplicates, inserts, causal
    links, then updates), each step its own transaction, under ``lock`` (the memory's own
    lock, when a caller shares the connection between threads). A step's vectors are
    computed before its transaction starts, while the step before it is written, so a bulk
    write holds the file and the lock for one step at a time (a fraction of a second) and
    other writers and readers get in between. Each step sees the facts, updates and links
    of the steps before it, as consecutive calls would; a write cut short leaves whole facts
    of its first steps, never a half-written one.

    Args:
        supersede: ``(fact id, reason)`` for a revision: in the same transaction, that fact
            is superseded by the first of ``items`` (which is never merged into it).
        lock: held for each step (and the back-fill), released between steps.
    """
    lock = lock if lock is not None else contextlib.nullcontext()
    judge = judge_for(embedder.name) if embedder is not None and detect_updates else None
    with lock:
        if embedder is not None and items and store.ensure_vectors(embedder.name, embedder.dim):
            backfill(store, embedder)
    chunks = [items[i : i + WRITE_CHUNK] for i in range(0, len(items), WRITE_CHUNK)]
    result = RememberResult(ids=[], created=[], restated=[], superseded=[])
    statement = {
        "project": prov.project,
        "session": prov.session,
        "role": prov.role,
        "source": prov.source,
        "harness": prov.harness,
        "turn": prov.turn,
        "stated_at": prov.stated_at,
        "recorded_at": prov.recorded_at,
    }
    passage_ids: list[int] = []
    revised: int | None = None
    with _pipelined(embedder, chunks) as steps:
        for j, chunk in enumerate(chunks):
            causal_ctx = next(steps)  # embedded before this step's transaction starts
            with lock, db.transaction(store.conn):
                if j == 0:
                    passage_ids = store.add_passages(
                        passages, prov.project, prov.session, prov.recorded_at
                    )
                    revised = _check_revisable(store, supersede[0]) if supersede else None
                near = _write_step(store, chunk, passage_ids, statement, prov, revised, result)
                causal_links.on_write(store, chunk, prov, causal_ctx)
                if j == 0 and supersede is not None and revised is not None:
                    target = chunk[0].fact_id
                    assert target is not None
                    reason = supersede[1]
                    store.set_status(revised, "superseded", prov.recorded_at, superseded_by=target)
                    store.add_event(
                        revised, "supersede", prov.recorded_at, other_id=target, reason=reason,
                        session=prov.session, role=prov.role,
                    )
                    result.superseded.append(Revision(revised, target, reason))
                if detect_updates:
                    _apply_updates(store, chunk, near, prov, result, judge)
            if len(chunks) > 1:
                progress.report("facts stored", min(len(items), (j + 1) * WRITE_CHUNK), len(items))
                _step_aside(store)
    return result


STEP_ASIDE = 0.05  # seconds a bulk write pauses between steps while another writer waits


def _step_aside(store: Store) -> None:
    """Between two steps of a bulk write: let a waiting writer in. One in another process
    marks that it waits (``db.others_waiting``) and polls every 10 ms, so a pause of a few of
    its polls hands it the lock; a thread of this process waiting for ``lock`` gets it while
    this one sleeps (a released lock is otherwise taken back at once by the thread that
    holds the interpreter)."""
    time.sleep(STEP_ASIDE if db.others_waiting(store.conn) else 0.001)


def _write_step(
    store: Store,
    chunk: list[Prepared],
    passage_ids: list[int],
    statement: dict[str, object],
    prov: Provenance,
    revised: int | None,
    result: RememberResult,
) -> dict[int, dict[int, float | None]]:
    """Inside the write transaction: insert or restate each item of ``chunk``; return the
    neighbours (by position in the chunk) that ``_apply_updates`` checks."""
    near: dict[int, dict[int, float | None]] = {}
    for i, p in enumerate(chunk):
        existing = store.fact_id_by_hash(p.hash)
        if existing is not None and existing == revised:
            raise InvalidInput(
                f"the new text says the same as fact #{revised}: nothing to revise"
            )
        if existing is None:
            near[i] = _neighbours(store, p, prov.project)
            p.near = list(near[i])  # the causal linker starts from these candidates
            existing = _near_duplicate(
                store, p, {k: v for k, v in near[i].items() if k != revised}
            )
        if existing is None:
            fid = store.insert_fact(
                {
                    "text": p.text,
                    "hash": p.hash,
                    "kind": p.kind,
                    **statement,
                    "valid_from": p.valid_from,
                    "valid_to": p.valid_to,
                }
            )
            assert fid is not None  # the hash was absent inside this transaction
            p.fact_id, p.new = fid, True
            result.created.append(fid)
            store.add_event(fid, "assert", prov.recorded_at, session=prov.session, role=prov.role)
            if p.vector is not None:
                store.put_vectors([(fid, prov.project, db.pack_vector(p.vector))])
            if p.entities:
                idmap = store.ensure_entities([(e.name, e.display, e.type) for e in p.entities])
                store.link_entities((idmap[e.name], fid) for e in p.entities if e.name in idmap)
        else:
            p.fact_id = existing
            result.restated.append(existing)
            row = store.fact(existing)
            # A replayed statement older than the retirement does not revive the fact.
            if row is not None and row.status != "current" and (
                row.retired_at is None or row.retired_at <= prov.recorded_at
            ):
                store.set_status(existing, "current", None)
                store.add_event(
                    existing, "revive", prov.recorded_at, reason="stated again",
                    session=prov.session, role=prov.role,
                )
                p.revived = True
                result.superseded.extend(_revert(store, existing, row.superseded_by, prov))
                near[i] = _neighbours(store, p, prov.project)
            else:
                store.add_event(
                    existing, "restate", prov.recorded_at, session=prov.session, role=prov.role
                )
        store.add_statement(p.fact_id, {**statement, "passage_id": passage_ids[p.passage]})
        result.ids.append(p.fact_id)
    return near


def _apply_updates(
    store: Store,
    chunk: list[Prepared],
    near: dict[int, dict[int, float | None]],
    prov: Provenance,
    result: RememberResult,
    judge: Judge | None = None,
) -> None:
    """Supersede the current facts that the new (or revived) facts of ``chunk`` update."""
    for i, p in enumerate(chunk):
        if p.fact_id is None or not (p.new or p.revived):
            continue
        before = [q.text for q in reversed(chunk[max(0, i - FILE_LOOKBACK):i])]
        for old_id, reason in _updates_for(store, p, near.get(i, {}), prov, before, judge):
            store.set_status(old_id, "superseded", prov.recorded_at, superseded_by=p.fact_id)
            store.add_event(
                old_id, "supersede", prov.recorded_at, other_id=p.fact_id,
                reason=reason, session=prov.session, role=prov.role,
            )
            result.superseded.append(Revision(old_id, p.fact_id, reason))


def _check_revisable(store: Store, fact_id: int) -> int:
    """Inside the write transaction: ``fact_id`` exists and has not been superseded already
    (another process may have revised it since the caller looked)."""
    row = store.fact(fact_id)
    if row is None:
        raise NotFound("fact", fact_id)
    if row.status == "superseded":
        by = f" by #{row.superseded_by}" if row.superseded_by is not None else ""
        raise InvalidInput(f"fact #{fact_id} was already superseded{by}: revise the newer fact")
    return fact_id


def _revert(
    store: Store, revived: int, replacement: int | None, prov: Provenance
) -> list[Revision]:
    """A superseded fact stated again is a reversal: the fact that had replaced it (if still
    current, and recorded before this statement) is superseded by it in turn."""
    if replacement is None:
        return []
    row = store.fact(replacement)
    if row is None or row.status != "current" or row.recorded_at > prov.recorded_at:
        return []
    reason = f"reverted: #{revived} stated again"
    store.set_status(replacement, "superseded", prov.recorded_at, superseded_by=revived)
    store.add_event(
        replacement, "supersede", prov.recorded_at, other_id=revived, reason=reason,
        session=prov.session, role=prov.role,
    )
    return [Revision(replacement, revived, reason)]


def _neighbours(store: Store, p: Prepared, project: str | None) -> dict[int, float | None]:
    """Current facts of ``project`` that could duplicate or be updated by ``p``: those
    sharing an entity (newest first) and the best full-text matches, with their cosine
    similarity to ``p`` when vectors exist. Indexed lookups only: no kNN scan per write."""
    from ..read.recall import content_terms, key_terms_query

    cands: dict[int, float | None] = {}
    for fid in store.current_facts_naming([e.name for e in p.entities], project, UPDATE_NEIGHBOURS):
        cands[fid] = None
    words = content_terms(p.text)
    docs = store.term_docs(words)
    match = key_terms_query(words, docs, COMMON_DOCS)
    if match:
        for fid, _ in store.fts_search(match, Scope.current_in(project), 8):
            cands[fid] = None
    cands.pop(p.fact_id, None)  # type: ignore[arg-type]
    if p.vector is not None and cands:
        for fid, dist in store.distances(list(cands), db.pack_vector(p.vector)).items():
            cands[fid] = 1.0 - dist
    return cands


def _near_duplicate(store: Store, p: Prepared, near: dict[int, float | None]) -> int | None:
    close = [fid for fid, sim in near.items() if sim is not None and sim >= NEAR_DUPLICATE]
    if not close:
        return None
    rows = store.facts(close)
    for fid in sorted(close, key=lambda f: -(near[f] or 0.0)):
        row = rows.get(fid)
        if row is not None and safe_to_merge(row.text, p.text):
            return fid
    return None


def _updates_for(
    store: Store, p: Prepared, near: dict[int, float | None], prov: Provenance,
    before: Sequence[str] = (),
    judge: Judge | None = None,
) -> list[tuple[int, str]]:
    """Current facts among ``near`` that the new fact ``p`` makes out of date. ``before``:
    the sentences said just before ``p`` in its write, nearest first. ``judge``: the learned
    judge, asked about a note's candidates the rules say nothing of."""
    ids = [fid for fid in near if fid != p.fact_id]
    if not ids:
        return []
    rows = store.facts(ids)
    ents = store.entities_of(ids)
    new_view = FactView(p.text, frozenset(e.name for e in p.entities))
    stated = prov.role not in _NARRATIVE
    asked = _judge_target(near, ids) if stated and judge is not None else None
    out = []
    for fid, row in rows.items():
        sim = near.get(fid)
        if sim is not None and sim < MIN_UPDATE_SIMILARITY:
            continue  # detect_update vetoes these anyway; skip the parse
        if row.status != "current" or row.recorded_at > prov.recorded_at:
            continue  # a replayed older statement never retires a fact recorded after it
        old_view = FactView(row.text, frozenset(n for _, n, _ in ents.get(fid, [])))
        update = detect_update(old_view, new_view, similarity=near.get(fid), stated=stated)
        if update is None and judge is not None and fid == asked:
            update = _judged(store, judge, fid, row.text, p)
        if update is None:
            continue
        if update.kind == "value" and _in_other_files(store, fid, row.text, p.text, before):
            continue
        standing = row.kind in _STANDING or is_standing(row.text)
        if update.kind in ("shift", "judged") and (row.session == prov.session or standing):
            continue  # a session's story, or a rule, a preference, a cause: see _STANDING
        if row.role == "user" and prov.role not in (None, "user") and (
                is_rule(row.text) or is_task(row.text)):
            # The user sets the rules: what the assistant did later ("Disabled the cop for
            # mailers") does not lift one ("for any mailer you touch, make sure ..."). And a
            # request states nothing current: "Bump Sidekiq to 7.2" is not retired by "took
            # us from 7.1.6 to 7.2.4", nor "Tag the AMIs" by the tags.
            continue
        if standing and update.kind == "state" and row.session and row.session == prov.session:
            # A rule is not ended by what its own conversation goes on to say ("no new Timecop
            # in our specs ..." then "I'm retiring the controller specs one by one.").
            continue
        out.append((fid, update.reason))
    return _closest(out, near)


def _judge_target(near: dict[int, float | None], ids: Sequence[int]) -> int | None:
    """The one current fact the learned judge may be asked about: the nearest to the new
    one, at least JUDGE_MIN_SIMILARITY close and JUDGE_MARGIN closer than the next. The judge
    reads mostly the new sentence's words of change, so never the neighbours that share its
    topic, and not when two facts are about as close (which one it changes is not its call)."""
    ranked = sorted(((s, f) for f in ids if (s := near.get(f)) is not None), reverse=True)
    if not ranked or ranked[0][0] < JUDGE_MIN_SIMILARITY:
        return None
    if len(ranked) > 1 and ranked[0][0] - ranked[1][0] < JUDGE_MARGIN:
        return None
    return ranked[0][1]


def _judged(store: Store, judge: Judge, old_id: int, old: str, p: Prepared) -> Update | None:
    """The learned judge's verdict on a pair the rules said nothing of, unless their vetoes
    hold (a plan, another subject or scope, one case of it, a coexisting value)."""
    if p.vector is None or plainly_complement(old, p.text) or _one_story(store, old_id, p):
        return None
    blob = store.fact_vectors([old_id]).get(old_id)
    if blob is None:
        return None
    prob = judge.probability(old, p.text, db.unpack_vector(blob), p.vector)
    if prob < judge.threshold:
        return None
    return Update(f"reads as a change of it (learned judge, p={prob:.2f})", "judged", prob)


def _one_story(store: Store, old_id: int, p: Prepared) -> bool:
    """Whether the old fact is a step of a story rather than a state: it asserts a cause and
    its effect ("Because the ticket was not resolved quickly, the customer complained"), or
    the causal linker joined the two by a cue, either way. Each step of a story stays true,
    whatever words of change the next one uses ("Running out of toner stopped the printer").
    (A story link, two facts told one after the other about one thing, is what an update
    looks like too: it does not count.)"""
    assert p.fact_id is not None
    if store.causal_assertions([old_id, p.fact_id]):
        return True
    everywhere = Scope(include_history=True, all_projects=True)
    return any(e.far == old_id and e.via != "story" for way in ("causes", "effects")
               for e in store.causal_edges([p.fact_id], way, everywhere, STORY_FANOUT))


def _in_other_files(
    store: Store, old_id: int, old: str, new: str, before: Sequence[str]
) -> bool:
    """Whether the two values were set in different configuration files, each named by its
    sentence or by the nearest of the few said before it in its turn: a config block shown
    after "`deploy/nomad/pricing.nomad.hcl`:" does not change one shown after
    "`deploy/nomad/ledger.nomad.hcl`:", though both set `memory_max`."""
    def where(text: str, said_before: Iterable[str]) -> str:
        if names_config_file(text):
            return text
        return next((t for t in said_before if names_config_file(t)), "")

    new_file = where(new, before)
    if not new_file:
        return False
    old_file = where(old, store.texts_before(old_id, FILE_LOOKBACK))
    return bool(old_file) and other_file(old_file, new_file) is not None


def _closest(found: list[tuple[int, str]], near: dict[int, float | None]) -> list[tuple[int, str]]:
    """Of the current facts the rules found out of date, those closest to the new fact: a
    statement changes one thing, so only the facts as close as the closest one (give or take
    ``CLOSEST_MARGIN``: the same fact stated twice) are retired, not a neighbour that shares
    its topic ("bumped the API service to Python 3.12" and "`orders-api` runs on Python
    3.11"). Without vectors every one found is kept."""
    best = max((s for fid, _ in found if (s := near.get(fid)) is not None), default=None)
    if best is None:
        return found
    return [(fid, why) for fid, why in found if (near.get(fid) or 0.0) >= best - CLOSEST_MARGIN]


def backfill(store: Store, embedder: Embedder, batch: int = 256) -> int:
    """Embed facts that have no vector, and cause/effect spans that have none (stored while no
    model was loaded, or after a model change); return how many facts were embedded."""
    total = 0
    while True:
        rows = store.facts_without_vectors(batch)
        if not rows:
            break
        if total:
            progress.report("facts embedded", total)
        vectors = embedder.embed_batch([r[1] for r in rows])
        with db.transaction(store.conn):
            store.put_vectors(
                (r[0], r[2], db.pack_vector(v)) for r, v in zip(rows, vectors, strict=True)
            )
        total += len(rows)
    while True:
        spans = store.assertions_without_vectors(batch)
        if not spans:
            return total
        texts: list[str] = []
        for _aid, _fid, cause, effect, cue, backref, sentence in spans:
            texts += [cause, causal_links.effect_words(sentence, cue, effect, backref)]
        flat = embedder.embed_batch(texts)
        with db.transaction(store.conn):
            store.set_span_vectors(
                [
                    (row[0], row[1], db.pack_vector(flat[2 * i]), db.pack_vector(flat[2 * i + 1]))
                    for i, row in enumerate(spans)
                ]
            )
