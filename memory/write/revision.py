"""Revisions as append-only events: supersede, retract, revive; history; erasure.

Nothing here overwrites a fact. A revision is a new fact written through the normal write
path (redaction, entities, vectors, contradiction check) that supersedes the old one in the
same ``BEGIN IMMEDIATE`` transaction, so a crash leaves either the old state or the new one
and never two current versions. A retraction is one event plus a status change. A revival
is a retracted or superseded fact stated again (``ingest.write`` handles it; when the fact
had been superseded, its replacement is superseded in turn: a reversal). Every event
records who (session, role), when (transaction time) and why.

``forget`` is the one hard delete, for erasure: it deletes the facts and every row that
holds their words (see ``Store.erase``), merges the FTS5 segments so that no deleted token
stays in the index b-trees, and checkpoints the WAL with TRUNCATE. With ``secure_delete``
on every connection, freed cells and pages are zeroed; ``tests/test_forget.py`` checks the
raw bytes of the file and its ``-wal``.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from ...hooks import common as hook_files
from ...hooks.redact import redact
from ..errors import InvalidInput, NotFound
from ..extract.entities import canonical
from ..prepared import Provenance
from ..records import Erased, Event
from ..storage import connection as db
from ..storage import inbox as queue
from ..timeutil import to_iso, utc_now
from . import ingest

if TYPE_CHECKING:
    from ..ml.embed import Embedder
    from ..storage.store import Store

log = logging.getLogger("reasongraph")
_FACT_REF = re.compile(r"\s*#?(\d+)\s*")


def revise(
    store: Store,
    embedder: Embedder | None,
    fact: int,
    new_text: str,
    *,
    reason: str,
    session: str | None,
    role: str | None,
) -> int:
    """Store ``new_text`` as a new fact (in the old fact's project) that supersedes ``fact``;
    return the new fact's id (the first sentence's, when the text has several).

    Raises:
        NotFound: no fact has that id.
        InvalidInput: a bad id, an empty reason or text, a text that says the same as the
            fact, or a fact already superseded (revise its replacement instead).
    """
    fid = _fact_id(fact)
    why = _reason(reason)
    if not isinstance(new_text, str) or not new_text.strip():
        raise InvalidInput(
            "revise needs the corrected text (new_text); to withdraw a fact, retract it"
        )
    _who(session, role)
    row = store.fact(fid)
    if row is None:
        raise NotFound("fact", fid)
    now = utc_now()
    items, passages = ingest.prepare([ingest.clean_input(new_text)], row.project, now)
    if not items:
        raise InvalidInput("the corrected text has no words to remember")
    prov = Provenance(
        project=row.project, session=session, role=role, source=None, harness=None,
        turn=None, stated_at=to_iso(now), recorded_at=to_iso(now),
    )
    # ingest.write re-checks the old fact inside its transaction (another process may have
    # revised or erased it meanwhile) and supersedes it there.
    result = ingest.write(store, embedder, items, passages, prov, supersede=(fid, why))
    return result.ids[0]


def retract(
    store: Store, fact: int, *, reason: str, session: str | None, role: str | None
) -> None:
    """Mark ``fact`` as no longer true; it stays in history and revives if stated again.

    Raises:
        NotFound: no fact has that id.
        InvalidInput: a bad id or empty reason, or a fact that is not current.
    """
    fid = _fact_id(fact)
    why = _reason(reason)
    _who(session, role)
    now = to_iso(utc_now())
    with db.transaction(store.conn):
        row = store.fact(fid)
        if row is None:
            raise NotFound("fact", fid)
        if row.status == "retracted":
            raise InvalidInput(f"fact #{fid} is already retracted")
        if row.status == "superseded":
            by = f" by #{row.superseded_by}" if row.superseded_by is not None else ""
            raise InvalidInput(f"fact #{fid} was superseded{by}: retract the newer fact")
        store.set_status(fid, "retracted", now)
        store.add_event(fid, "retract", now, reason=why, session=session, role=role)


def forget(
    store: Store, *, fact: int | None, project: str | None, session: str | None
) -> Erased:
    """Erase one fact, every fact of a project, or every fact stated in a session (with the
    session's passages and captured exchanges), and the same text in the hooks' files
    beside the database (spool and per-session state); return what was erased.

    A fact stated in several sessions is erased with any of them: erasure errs on the side
    of removing. Raises NotFound for an unknown fact id, InvalidInput unless exactly one
    target is given.
    """
    given = [name for name, v in (("fact", fact), ("project", project), ("session", session))
             if v is not None]
    if len(given) != 1:
        raise InvalidInput("forget takes exactly one of: a fact id, a project or a session")
    for name, value in (("project", project), ("session", session)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise InvalidInput(f"forget: {name} must be a non-empty text")
    fid = _fact_id(fact) if fact is not None else None
    texts: tuple[str, ...] = ()
    if fid is not None:
        row = store.fact(fid)
        if row is None:
            raise NotFound("fact", fid)
        texts = (row.text,)
    # The files first: a drain that moves a spool file into the inbox meanwhile has put it
    # where the transaction below erases it.
    spooled, states = hook_files.forget_files(
        store.path, project=project, session=session, texts=texts
    )
    with db.transaction(store.conn):
        if fid is not None:
            if store.fact(fid) is None:
                raise NotFound("fact", fid)
            ids = [fid]
        else:
            ids = store.fact_ids_in(project=project, session=session)
        texts = tuple(store.fact_texts(ids)) if ids else texts
        pending = queue.pending_holding(
            store.conn, project=project, session=session, texts=list(texts)
        )
        deleted = store.erase(ids, project=project, session=session)
        store.compact_text_indexes()
    if fid is None and texts:
        # Sentences of the erased facts quoted in files of other sessions or projects.
        more_spool, more_states = hook_files.forget_files(store.path, texts=texts)
        spooled += more_spool
        states += more_states
    busy, _, _ = store.checkpoint()
    if busy:
        # Another connection is reading: the WAL keeps old page images until its next
        # checkpoint. The next forget (or any TRUNCATE checkpoint) finishes the job.
        log.warning("forget: the WAL could not be truncated while another reader is open")
    return Erased(facts=deleted, pending=pending, spool_files=spooled, state_files=states)


def history(store: Store, fact_or_entity: int | str) -> list[Event]:
    """The timeline of a fact, or of every fact naming an entity, oldest first.

    A fact's timeline includes the supersede events that name it as the replacement, so a
    revised fact shows where it came from. An entity is looked up by its canonical name
    (case-insensitive; "#12" or "12" is a fact id).
    """
    if isinstance(fact_or_entity, bool):
        raise InvalidInput("history takes a fact id or an entity name")
    if isinstance(fact_or_entity, str):
        m = _FACT_REF.fullmatch(fact_or_entity)
        if m:
            fact_or_entity = int(m.group(1))
    if isinstance(fact_or_entity, int):
        if not 1 <= fact_or_entity <= db.MAX_ROWID or store.fact(fact_or_entity) is None:
            raise NotFound("fact", fact_or_entity)
        rows = store.events([fact_or_entity])
    elif isinstance(fact_or_entity, str) and fact_or_entity.strip():
        name = fact_or_entity.strip()
        ids = store.entity_facts(canonical(name))
        if ids is None:
            ids = store.entity_facts(" ".join(name.lower().split()))
        if ids is None:
            raise NotFound("entity", name)
        rows = store.events(ids)
    else:
        raise InvalidInput("history takes a fact id or an entity name")
    return [
        Event(fact_id=f, action=a, at=at, reason=r, other_id=o, session=s, role=ro, text=t)
        for f, a, at, r, o, s, ro, t in rows
    ]


def _fact_id(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"a fact id is an integer, not {type(value).__name__}")
    if value < 1:
        raise InvalidInput(f"fact ids start at 1, not {value}")
    if value > db.MAX_ROWID:
        raise NotFound("fact", value)
    return value


def _reason(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("a reason is required: say why the fact changed")
    return redact(value.strip())


def _who(session: object, role: object) -> None:
    for name, value in (("session", session), ("role", role)):
        if value is not None and not isinstance(value, str):
            raise InvalidInput(f"{name} must be text, not {type(value).__name__}")
