"""The inbox drain: exchanges the Stop hook captured become facts, exactly once.

``hooks/capture.py`` (standard library only) appends each exchange to ``inbox`` with
``INSERT OR IGNORE`` on (session, turn). A drain claims one pending row at a time, ingests
its prompt (role user) and reply (role assistant) through the engine's write path (sentences,
entities, causes, contradictions), recorded at the row's ``created_at`` (the hook's clock,
so replays keep their dates), and marks it done, dropping its text (the facts hold it now,
and ``forget`` must be able to erase every copy).

Exactly once, across processes and crashes:

- A claim (``claimed_by``, ``claimed_at``) is taken in a short ``BEGIN IMMEDIATE``; two
  drains never hold the same row. A claim whose owner is dead (same host, pid gone) or
  older than ``LEASE_SECONDS`` may be taken over.
- Each part of a row is written in ONE engine transaction whose statements carry the
  source ``inbox:<id>:<role>``. A row taken over from a dead drain is checked part by part:
  a part whose statements exist was committed before the crash and is not written again.
  So a crash between the write and the "done" mark costs nothing and duplicates nothing.

The inbox table's queries live in ``storage/inbox.py`` (the append, the hooks' wire format,
is still written here as in ``hooks/capture.py``); this module keeps the drain's logic.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from ..errors import GraphMemoryError, InvalidInput, StoreError
from ..extract.kinds import is_question
from ..prepared import Provenance
from ..storage import connection as db
from ..storage import inbox as queue
from ..timeutil import parse_when, to_iso, utc_now
from ..write import ingest

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ..prepared import Prepared
    from ..records import RememberResult
    from ..storage.store import Store

log = logging.getLogger("reasongraph.inbox")

LEASE_SECONDS = 600  # a claim older than this is taken over even if its owner looks alive
CRASH_ENV = "REASONGRAPH_DRAIN_CRASH_AFTER"  # tests only: die after N writes, before "done"


@dataclass(frozen=True)
class DrainReport:
    """What one drain did."""

    ingested: int = 0  # rows written and marked done
    failed: int = 0  # rows the engine refused (marked failed with the error)
    recovered: int = 0  # rows taken over from a dead drain
    spooled: int = 0  # spool files moved into the inbox first
    remaining: int = 0  # rows still pending when the drain stopped


def worker_id() -> str:
    """``host:pid:nonce`` naming this drain in ``claimed_by``."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _owner_alive(claimed_by: str) -> bool:
    host, _, rest = claimed_by.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return True  # another machine: only the lease can tell
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def append(conn: apsw.Connection, row: Mapping[str, object]) -> bool:
    """Add one captured exchange (the hook's row: session, turn, project, harness, prompt,
    response, created_at) unless its (session, turn) is already in; True when it was new."""
    with db.transaction(conn):
        return queue.add(conn, {
            "session": str(row["session"]), "turn": str(row["turn"]),
            "project": row.get("project"), "harness": row.get("harness"),
            "prompt": row.get("prompt"), "response": row.get("response"),
            "created_at": str(row.get("created_at") or to_iso(utc_now())),
        })


def import_spool(conn: apsw.Connection, folder: Path) -> int:
    """Move exchanges spooled by the hook (file missing or locked) into the inbox."""
    if not folder.is_dir():
        return 0
    moved = 0
    for path in sorted(folder.glob("*.json")):
        try:
            append(conn, json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("skipping unreadable spool file %s: %s", path.name, exc)
            path.rename(path.with_suffix(".bad"))
            continue
        path.unlink(missing_ok=True)
        moved += 1
    return moved


def pending(conn: apsw.Connection) -> int:
    return queue.pending_count(conn)


def _claim(conn: apsw.Connection, worker: str, now: datetime) -> tuple[tuple, bool] | None:
    """Claim the oldest claimable pending row: (row, taken over from another drain)."""
    stale = to_iso(now - timedelta(seconds=LEASE_SECONDS))
    with db.transaction(conn):
        for row in queue.oldest_pending(conn):
            owner, at = row[8], row[9]
            takeover = owner is not None and owner != worker
            if takeover and (at or "") > stale and _owner_alive(owner):
                continue
            queue.claim(conn, row[0], worker, to_iso(now))
            return row[:8], owner is not None
    return None


@dataclass(frozen=True)
class Host:
    """What a drain needs of the memory it runs in: the store, the lock that serialises the
    one connection, and the locked write of prepared sentences (``Memory`` passes its own)."""

    store: Store
    lock: AbstractContextManager[object]
    write: Callable[[list[Prepared], list[str], Provenance], RememberResult]
    # links a why-question's answer to the earlier fact it explains (``causal.questions``)
    explain: Callable[[str, list[int], Provenance], object] | None = None


def _questions(prompt: object) -> str:
    """The questions of a prompt (``is_question``), joined: they are stored in the answer's
    passages, not as facts of their own, when the exchange has an answer."""
    if not prompt or not str(prompt).strip():
        return ""
    text = ingest.clean_input(str(prompt)[: ingest.MAX_CHARS])
    asked = " ".join(s for s in ingest.sentences_of(text) if is_question(s))
    return " ".join(asked.split())[: ingest.PASSAGE_CHARS // 2]


def _ingest(host: Host, row: tuple, recovering: bool) -> None:
    iid, session, turn, project, harness, prompt, response, created = row
    try:
        moment = parse_when(created)
    except InvalidInput:
        moment = utc_now()
    stamp = to_iso(moment)
    asked = _questions(prompt) if response and str(response).strip() else ""
    for role, text in (("user", prompt), ("assistant", response)):
        if not text or not str(text).strip():
            continue
        source = f"inbox:{iid}:{role}"
        if recovering:
            with host.lock:
                if queue.part_written(host.store.conn, source):
                    continue
        cleaned = ingest.clean_input(str(text)[: ingest.MAX_CHARS])
        if role == "user":  # a question is context for its answer, not a fact
            items, passages = ingest.prepare(
                [cleaned], project, moment, skip=is_question if asked else None
            )
        else:  # ... and the answer's passages open with it, to be found by its words
            items, passages = ingest.prepare([cleaned], project, moment, lead=asked)
        if not items:
            continue
        prov = Provenance(
            project=project, session=session, role=role, source=source, harness=harness,
            turn=turn, stated_at=stamp, recorded_at=stamp,
        )
        written = host.write(items, passages, prov)
        if role == "assistant" and asked and host.explain is not None:
            host.explain(asked, written.ids, prov)


def drain(
    host: Host,
    *,
    limit: int | None = None,
    worker: str | None = None,
    spool: Path | None = None,
    stop: Callable[[], bool] | None = None,
) -> DrainReport:
    """Ingest pending inbox rows until none is left (or ``limit`` rows, or ``stop()``)."""
    worker = worker or worker_id()
    conn = host.store.conn
    spooled = 0
    if spool is not None:
        with host.lock:
            spooled = import_spool(conn, spool)
    done = failed = recovered = 0
    crash_after = int(os.environ.get(CRASH_ENV, "0") or 0)
    while (limit is None or done + failed < limit) and not (stop and stop()):
        with host.lock:
            claimed = _claim(conn, worker, utc_now())
        if claimed is None:
            break
        row, recovering = claimed
        recovered += recovering
        try:
            _ingest(host, row, recovering)
        except StoreError as exc:  # locked for too long: leave it pending for the next drain
            log.warning("inbox item %s left pending: %s", row[0], exc)
            with host.lock:
                queue.release(conn, row[0])
            break
        except GraphMemoryError as exc:
            with host.lock, db.transaction(conn):
                queue.mark_failed(conn, row[0], str(exc)[:500], to_iso(utc_now()))
            failed += 1
            continue
        if crash_after and done + 1 >= crash_after:
            os._exit(3)  # simulate a kill between the write and the "done" mark
        with host.lock, db.transaction(conn):
            queue.mark_done(conn, row[0], to_iso(utc_now()))
        done += 1
    with host.lock:
        left = pending(conn)
    return DrainReport(
        ingested=done, failed=failed, recovered=recovered, spooled=spooled, remaining=left
    )
