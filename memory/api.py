"""``Memory``: the one facade that the server, hooks' server side, CLI and evals use.

It owns a ``Store`` (the file) and an ``EmbedderSlot`` (the model, loaded lazily or in the
background) and delegates: writes to ``ingest``, reads to ``recall``. Opening means ready:
the file is created and migrated by the constructor.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .causal import walks as causal
from .config import Settings, default_cache_dir
from .errors import InvalidInput
from .extract.backends import using
from .ml.embed import Embedder, EmbedderSlot
from .ml.slots import ModelSlots, choose
from .prepared import Prepared, Provenance
from .read.recall import RECIPES, RecallConfig, recall
from .records import Cause, Erased, Event, Hit, RememberResult, Status, Step, TraceNode, WhatIf
from .storage import connection as db
from .storage.filters import Scope
from .storage.store import Store
from .timeutil import parse_when, to_iso, utc_now
from .write import ingest, revision, transfer

if TYPE_CHECKING:  # hooks section (memory/inbox.py, memory/context.py)
    from collections.abc import Callable

    from .prompt import context, inbox

log = logging.getLogger("reasongraph")


class Memory:
    """A memory file: remember statements, recall them with citations, walk their causes."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        embedder: str | Embedder | None = None,
        background: bool = False,
        cache_dir: str | os.PathLike[str] | None = None,
        entity_model: str | None = None,
        split_model: str | None = None,
        rerank_model: str | None = None,
    ) -> None:
        """Open (creating and migrating) the memory file at ``path``.

        Args:
            path: the SQLite file; None = ``REASONGRAPH_DB`` or the user data folder.
            embedder: a model name, local model folder, ``"none"``, or an ``Embedder``;
                None = ``REASONGRAPH_EMBED_MODEL`` or the packaged MiniLM.
            background: start loading the model in a thread now; until it is ready,
                reads run on FTS5 alone and say so in ``status``.
            cache_dir: where embedding models named by fastembed name are kept.
            entity_model: GLiNER name or folder for entities (with the rules); None =
                ``REASONGRAPH_ENTITY_MODEL``, else the rules alone. See ``memory/slots.py``.
            split_model: SaT name or folder for sentence splitting; None =
                ``REASONGRAPH_SPLIT_MODEL``, else pysbd.
            rerank_model: fastembed cross-encoder name or folder that reorders recall's
                best hits; None = ``REASONGRAPH_RERANK_MODEL``, else no reranking.
        """
        settings = Settings.from_env()
        self.path = Path(path).expanduser() if path is not None else settings.db_path
        self.store = Store(self.path)
        spec = embedder if not isinstance(embedder, str | None) else choose("embed", embedder).spec
        cache = Path(cache_dir) if cache_dir else (settings.cache_dir or default_cache_dir())
        self._slot = EmbedderSlot(spec, cache)
        self._models = ModelSlots(
            entity_model=entity_model, split_model=split_model, rerank_model=rerank_model
        )
        self._lock = threading.RLock()  # one apsw connection, many server threads
        self._backfilled = False
        if background:
            self._slot.start()
            self._models.start()

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _embedder(self, wait: bool = True) -> Embedder | None:
        emb = self._slot.get(wait=wait)
        if emb is not None and self.store.read_only:
            # A file this process may only read: use its vectors when they are this model's,
            # else recall runs on FTS5 alone (embedding the facts would be a write).
            same = self.store.vec_dim == emb.dim and self.store.meta("embed_model") == emb.name
            return emb if same else None
        if emb is not None and not self._backfilled:
            self._backfilled = True
            if (
                self.store.ensure_vectors(emb.name, emb.dim)
                or self.store.facts_without_vectors(1)
                or self.store.assertions_without_vectors(1)
            ):
                ingest.backfill(self.store, emb)
        return emb

    def wait_for_model(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the embedding model that is loading (without
        holding the lock: writes and reads go on); True when it is ready."""
        self._slot.wait(timeout)
        return self._slot.ready

    @property
    def model_ready(self) -> bool:
        """True once the embedding model is loaded (never blocks)."""
        return self._slot.ready

    @property
    def model_status(self) -> str:
        """One line: which embedder is in use, loading, or why recall is FTS5-only."""
        if self._slot.ready:
            emb = self._slot.get(wait=False)
            return f"embeddings: {emb.name if emb else '?'}"
        if self._slot.loading:
            return f"embeddings: loading {self._slot.wanted}; recall uses FTS5 until ready"
        if self._slot.error:
            return self._slot.error
        return f"embeddings: {self._slot.wanted} (loads on first use)"

    @property
    def model_notes(self) -> tuple[str, ...]:
        """One status line per optional model slot (entities, splitter, reranker)."""
        return self._models.notes()

    # -- writes ------------------------------------------------------------------------------

    def remember(
        self,
        text_or_texts: str | Sequence[str],
        *,
        project: str | None = None,
        session: str | None = None,
        role: str | None = None,
        when: object = None,
        source: str | None = None,
        harness: str | None = None,
        turn: str | None = None,
    ) -> list[int]:
        """Store statements; return the fact id of each sentence kept (new or restated)."""
        return self.remember_detailed(
            text_or_texts, project=project, session=session, role=role, when=when,
            source=source, harness=harness, turn=turn,
        ).ids

    def remember_detailed(
        self,
        text_or_texts: str | Sequence[str],
        *,
        project: str | None = None,
        session: str | None = None,
        role: str | None = None,
        when: object = None,
        source: str | None = None,
        harness: str | None = None,
        turn: str | None = None,
    ) -> RememberResult:
        """Like ``remember`` but says which facts were new, restated or superseded."""
        texts = (
            [text_or_texts]
            if isinstance(text_or_texts, (str, bytes, bytearray))
            else list(text_or_texts)
            if isinstance(text_or_texts, (list, tuple))
            else None
        )
        if texts is None:
            raise InvalidInput(
                f"remember takes text or a list of texts, not {type(text_or_texts).__name__}"
            )
        cleaned = [ingest.clean_input(t) for t in texts]
        if sum(len(t) for t in cleaned) > ingest.MAX_CHARS:
            raise InvalidInput(
                f"the texts add up to over {ingest.MAX_CHARS:,} characters: split them"
            )
        now = utc_now()
        stated = parse_when(when) if when is not None else now
        with using(self._models.backends()):
            items, passages = ingest.prepare(cleaned, project, stated)
        if not items:
            raise InvalidInput("nothing to remember: the text is empty or has no words")
        prov = Provenance(
            project=_opt_str(project, "project"),
            session=_opt_str(session, "session"),
            role=_opt_str(role, "role"),
            source=_opt_str(source, "source"),
            harness=_opt_str(harness, "harness"),
            turn=_opt_str(turn, "turn"),
            stated_at=to_iso(stated),
            recorded_at=to_iso(now),
        )
        self._slot.get(wait=True)  # wait for a loading model without holding the lock
        with self._lock:
            emb = self._embedder()
        return ingest.write(self.store, emb, items, passages, prov, lock=self._lock)

    # -- reads -------------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        k: int = 10,
        project: str | None = None,
        session: str | None = None,
        all_projects: bool = False,
        as_of: object = None,
        valid_at: object = None,
        include_history: bool = False,
        recipe: str | RecallConfig = "hybrid",
        wait_for_model: bool = True,
        rerank: bool | None = None,
    ) -> list[Hit]:
        """Facts relevant to ``query``, best first, each citing id, dates, scope and path.

        Only ``project``'s facts are seen when it is given (None = every project); pass
        ``all_projects=True`` to look across projects on purpose. ``rerank``: reorder the
        best hits with the reranker slot's cross-encoder (None = when one is configured).
        """
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("recall needs a non-empty query text")
        if not isinstance(k, int) or k < 1 or k > 200:
            raise InvalidInput("k must be an integer from 1 to 200")
        config = RECIPES[recipe] if isinstance(recipe, str) else recipe
        scope = self._scope(project, session, all_projects, as_of, valid_at, include_history)
        if config.use_vectors and wait_for_model:
            self._slot.get(wait=True)
        if rerank is not False and wait_for_model:
            self._models.reranker.get(wait=True)  # loads outside the lock: writes go on
        with self._lock:
            emb = self._embedder(wait=wait_for_model) if config.use_vectors else None
            reranker = self._models.reranker.get(wait=False) if rerank is not False else None
            depth = max(k, reranker.depth) if reranker is not None else k  # type: ignore[attr-defined]
            hits, _ = recall(self.store, emb, query[:4000], k=depth, scope=scope, config=config)
        if reranker is not None:
            hits = reranker.rerank(query[:4000], hits)[:k]  # type: ignore[attr-defined]
        return hits

    def _scope(
        self,
        project: str | None,
        session: str | None = None,
        all_projects: bool = False,
        as_of: object = None,
        valid_at: object = None,
        include_history: bool = False,
    ) -> Scope:
        return Scope(
            project=_opt_str(project, "project"),
            session=_opt_str(session, "session"),
            all_projects=bool(all_projects),
            as_of=to_iso(parse_when(as_of)) if as_of is not None else None,
            valid_at=to_iso(parse_when(valid_at)) if valid_at is not None else None,
            include_history=bool(include_history),
        )

    # -- causes (memory/causal.py) -------------------------------------------------------------

    def why(
        self,
        question_or_fact: str | int,
        *,
        k: int = 3,
        project: str | None = None,
        session: str | None = None,
        all_projects: bool = False,
        as_of: object = None,
        valid_at: object = None,
    ) -> list[Cause]:
        """Root causes of what the question (or fact id) is about: up to k, each with its
        chain of cited steps, root first."""
        scope = self._scope(project, session, all_projects, as_of, valid_at)
        self._slot.get(wait=True)
        with self._lock:
            return causal.why(self.store, self._embedder(), question_or_fact, k=k, scope=scope)

    def trace(
        self,
        fact_or_text: str | int,
        *,
        direction: str = "effects",
        depth: int = 6,
        project: str | None = None,
        all_projects: bool = False,
        as_of: object = None,
    ) -> list[TraceNode]:
        """The causal graph reachable from a fact (effects or causes), ordered by depth."""
        scope = self._scope(project, None, all_projects, as_of)
        self._slot.get(wait=True)
        with self._lock:
            return causal.trace(
                self.store, self._embedder(), fact_or_text, direction=direction, depth=depth,
                scope=scope,
            )

    def chain(self, from_fact: int, to_fact: int) -> list[Step] | None:
        """The ordered causal path from one fact to another, or None."""
        with self._lock:
            return causal.chain(self.store, from_fact, to_fact)

    def what_if(self, fact: int) -> WhatIf:
        """If ``fact`` were false: which downstream effects collapse and which survive
        through another path. Changes nothing."""
        with self._lock:
            return causal.what_if(self.store, fact)

    # -- truth over time (memory/revision.py, memory/transfer.py) ----------------------------

    def revise(
        self,
        fact: int,
        new_text: str,
        *,
        reason: str,
        session: str | None = None,
        role: str | None = None,
    ) -> int:
        """Supersede ``fact`` with ``new_text`` (stored as a new fact); return the new id."""
        self._slot.get(wait=True)
        with self._lock, using(self._models.backends()):
            return revision.revise(
                self.store, self._embedder(), fact, new_text, reason=reason, session=session,
                role=role,
            )

    def retract(
        self, fact: int, *, reason: str, session: str | None = None, role: str | None = None
    ) -> None:
        """Mark ``fact`` as no longer true (kept in history; revived if stated again)."""
        with self._lock:
            revision.retract(self.store, fact, reason=reason, session=session, role=role)

    def forget(
        self,
        *,
        fact: int | None = None,
        project: str | None = None,
        session: str | None = None,
    ) -> int:
        """Erase facts for good (one fact, a session or a project), leaving no bytes of
        their text in the file; return how many facts were deleted. The only hard delete."""
        return self.forget_detailed(fact=fact, project=project, session=session).facts

    def forget_detailed(
        self,
        *,
        fact: int | None = None,
        project: str | None = None,
        session: str | None = None,
    ) -> Erased:
        """Like ``forget``, and says what else was erased: captured exchanges not yet
        drained, the hooks' spool files and per-session state files beside the file."""
        with self._lock:
            return revision.forget(self.store, fact=fact, project=project, session=session)

    def history(self, fact_or_entity: int | str) -> list[Event]:
        """The timeline of a fact (or of every fact naming an entity), oldest first."""
        with self._lock:
            return revision.history(self.store, fact_or_entity)

    def export(self, path: str | os.PathLike[str]) -> int:
        """Write facts, entities, links and history to one JSON Lines file; return rows."""
        with self._lock:
            return transfer.export(self.store, Path(path))

    def import_(self, path: str | os.PathLike[str]) -> int:
        """Load an export into this (empty) memory; re-embed if the model differs."""
        self._slot.get(wait=True)
        with self._lock:
            return transfer.import_(self.store, self._embedder(), Path(path))

    def status(self) -> Status:
        """Counts, file size, schema version and model state."""
        with self._lock:
            counts = self.store.counts()
            links = self.store.count_links()
            return Status(
                facts=counts["facts"],
                current_facts=counts["current_facts"],
                entities=counts["entities"],
                links=links,
                sessions=counts["sessions"],
                projects=counts["projects"],
                file_bytes=self.store.file_bytes(),
                schema_version=self.store.schema_version,
                embedder=self._slot.wanted,
                embedder_ready=self._slot.ready,
                notes=(self.model_status, *self._models.notes()),
            )


    # -- hooks (memory/inbox.py, memory/context.py) ----------------------------------------

    def drain(
        self,
        *,
        limit: int | None = None,
        worker: str | None = None,
        spool: str | os.PathLike[str] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> inbox.DrainReport:
        """Ingest the exchanges the hooks captured (the ``inbox`` table, and first any
        ``spool`` folder of exchanges the hook could not write), each exactly once, recorded
        at its capture time. Safe to run in several processes at once."""
        from .prompt import inbox

        with using(self._models.backends()):
            return inbox.drain(
                inbox.Host(self.store, self._lock, self._write_prepared, self._explain),
                limit=limit,
                worker=worker, spool=Path(spool) if spool else None, stop=stop,
            )

    def capture(self, row: Mapping[str, object]) -> bool:
        """Append one exchange the Stop hook captured (``hooks/capture.py``'s row, already
        cleaned and redacted) to the inbox, once per (session, turn); True when it was new.
        The warm server writes here, through this connection: two SQLite libraries in one
        process must never share a file."""
        from .prompt import inbox

        with self._lock:
            return inbox.append(self.store.conn, row)

    def context_for(
        self,
        prompt: str,
        *,
        project: str | None,
        session: str | None = None,
        budget: int = 2000,
        exclude: Sequence[int] = (),
        now: object = None,
        wait_for_model: bool = False,
    ) -> context.Context:
        """The block the prompt hook injects: facts of ``project`` relevant to ``prompt``,
        worded as data with id, date and session, within ``budget`` characters; empty when
        nothing clears the relevance floor. ``exclude``: fact ids the session already saw."""
        from .prompt import context

        moment = parse_when(now) if now is not None else utc_now()
        with self._lock:
            emb = self._embedder(wait=wait_for_model)
            return context.build(
                self.store, emb, prompt, walk=self.model_ready, project=project, session=session,
                budget=budget, exclude=frozenset(exclude), now=moment,
            )

    def _explain(self, question: str, answer: list[int], prov: Provenance) -> None:
        """A captured why-question's answer explains an earlier fact: link them."""
        from .causal import questions

        if not questions.asks_why(question):
            return
        with self._lock:
            emb = self._embedder()
            if emb is None:
                return
            with db.transaction(self.store.conn):
                questions.link_answer(self.store, emb, question, answer, prov,
                                      prov.recorded_at or to_iso(utc_now()))

    def _write_prepared(
        self, items: list[Prepared], passages: list[str], prov: Provenance
    ) -> RememberResult:
        """The locked half of ``remember_detailed`` for callers that prepared the sentences
        and the provenance themselves (the inbox records at the capture time)."""
        self._slot.get(wait=True)
        with self._lock:
            emb = self._embedder()
        return ingest.write(self.store, emb, items, passages, prov, lock=self._lock)


def _opt_str(value: object, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be text, not {type(value).__name__}")
    return value
