"""``Store``: the only module that writes SQL against the memory file.

It opens (and migrates) the file, owns the vector table, and offers small set-based reads
that recall and the causal walks compose: every read takes a list of ids and answers in one
statement, so that a walk costs one SQL round per level, never one per node. Storage knows
nothing of extraction or ranking; keeping SQL here is what lets another backend replace it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import apsw

from . import db
from .errors import StoreError
from .migrations import migrate

FACT_COLUMNS = (
    "id, text, kind, project, session, role, source, harness, turn, stated_at, recorded_at, "
    "valid_from, valid_to, status, superseded_by, retired_at"
)


@dataclass(frozen=True)
class FactRow:
    """One row of ``facts`` as stored."""

    id: int
    text: str
    kind: str
    project: str | None
    session: str | None
    role: str | None
    source: str | None
    harness: str | None
    turn: str | None
    stated_at: str
    recorded_at: str
    valid_from: str | None
    valid_to: str | None
    status: str
    superseded_by: int | None
    retired_at: str | None


def _marks(n: int) -> str:
    return ",".join("?" * n)


class Store:
    """The memory file: facts, statements, entities, events, vectors and the inbox."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.conn = db.connect(self.path, readonly=readonly)
        self.schema_version = migrate(self.conn) if not readonly else 0
        self.vec_dim = self._vec_dim()

    def close(self) -> None:
        self.conn.close()

    # -- meta and the vector table -------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def _vec_dim(self) -> int | None:
        if not self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'fact_vecs'"
        ).fetchone():
            return None
        dim = self.meta("embed_dim")
        return int(dim) if dim else None

    def ensure_vectors(self, model: str, dim: int) -> bool:
        """Make ``fact_vecs`` hold vectors of ``model``; return True if it was (re)created
        empty, so that the caller back-fills every fact."""
        if self.vec_dim == dim and self.meta("embed_model") == model:
            return False
        with db.transaction(self.conn):
            if self.meta("embed_model") == model and self._vec_dim() == dim:
                self.vec_dim = dim
                return False
            self.conn.execute("DROP TABLE IF EXISTS fact_vecs")
            # Partitioned by project so that a scoped kNN scans only that project's vectors.
            self.conn.execute(
                f"CREATE VIRTUAL TABLE fact_vecs USING vec0("
                f"embedding float[{int(dim)}] distance_metric=cosine, "
                f"project text partition key)"
            )
            self.set_meta("embed_model", model)
            self.set_meta("embed_dim", str(dim))
        self.vec_dim = dim
        return True

    def facts_without_vectors(self, limit: int = 512) -> list[tuple[int, str, str | None]]:
        if self.vec_dim is None:
            return []
        return list(
            self.conn.execute(
                "SELECT id, text, project FROM facts WHERE id NOT IN (SELECT rowid FROM fact_vecs) "
                "ORDER BY id LIMIT ?",
                (limit,),
            )
        )

    def put_vectors(self, rows: Iterable[tuple[int, str | None, bytes]]) -> None:
        """Insert (id, project, float32 blob) rows; call inside a transaction."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO fact_vecs(rowid, embedding, project) VALUES (?, ?, ?)",
            ((fid, blob, project or "") for fid, project, blob in rows),
        )

    # -- writes (callers wrap them in db.transaction) -------------------------------------

    def fact_id_by_hash(self, digest: str) -> int | None:
        row = self.conn.execute("SELECT id FROM facts WHERE hash = ?", (digest,)).fetchone()
        return row[0] if row else None

    def insert_fact(self, values: dict[str, object]) -> int | None:
        """Insert one fact; None when a fact with the same hash already exists."""
        cols = ", ".join(values)
        cur = self.conn.execute(
            f"INSERT INTO facts({cols}) VALUES ({_marks(len(values))}) "
            f"ON CONFLICT(hash) DO NOTHING RETURNING id",
            tuple(values.values()),
        )
        row = cur.fetchone()
        return row[0] if row else None

    def add_passages(
        self, texts: Sequence[str], project: str | None, session: str | None, at: str
    ) -> list[int]:
        ids = []
        for text in texts:
            row = self.conn.execute(
                "INSERT INTO passages(text, project, session, recorded_at) VALUES (?, ?, ?, ?) "
                "RETURNING id",
                (text, project, session, at),
            ).fetchone()
            ids.append(row[0])
        return ids

    def add_statement(self, fact_id: int, values: dict[str, object]) -> None:
        cols = ", ".join(["fact_id", *values])
        self.conn.execute(
            f"INSERT INTO statements({cols}) VALUES ({_marks(len(values) + 1)})",
            (fact_id, *values.values()),
        )

    def add_event(
        self,
        fact_id: int,
        action: str,
        at: str,
        *,
        other_id: int | None = None,
        reason: str | None = None,
        session: str | None = None,
        role: str | None = None,
    ) -> None:
        self.conn.execute(
            "INSERT INTO events(fact_id, action, other_id, reason, session, role, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (fact_id, action, other_id, reason, session, role, at),
        )

    def set_status(
        self, fact_id: int, status: str, at: str | None, superseded_by: int | None = None
    ) -> None:
        self.conn.execute(
            "UPDATE facts SET status = ?, retired_at = ?, superseded_by = ? WHERE id = ?",
            (status, at if status != "current" else None, superseded_by, fact_id),
        )

    def ensure_entities(self, mentions: Sequence[tuple[str, str, str]]) -> dict[str, int]:
        """Insert (name, display, type) entities that are new; return name -> id for all."""
        if not mentions:
            return {}
        self.conn.executemany(
            "INSERT INTO entities(name, display, type) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING",
            mentions,
        )
        names = [m[0] for m in mentions]
        return dict(
            self.conn.execute(
                f"SELECT name, id FROM entities WHERE name IN ({_marks(len(names))})", names
            ).fetchall()
        )

    def link_entities(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Link (entity_id, fact_id) pairs, ignoring ones that exist."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO fact_entities(entity_id, fact_id) VALUES (?, ?)", pairs
        )

    # -- reads -----------------------------------------------------------------------------

    def facts(self, ids: Sequence[int]) -> dict[int, FactRow]:
        if not ids:
            return {}
        rows = self.conn.execute(
            f"SELECT {FACT_COLUMNS} FROM facts WHERE id IN ({_marks(len(ids))})", list(ids)
        )
        return {r[0]: FactRow(*r) for r in rows}

    def fact(self, fact_id: int) -> FactRow | None:
        return self.facts([fact_id]).get(fact_id)

    def sessions_of(self, ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
        """Every session that stated each fact, in order of statement."""
        if not ids:
            return {}
        out: dict[int, list[str]] = {}
        for fid, session in self.conn.execute(
            f"SELECT fact_id, session FROM statements WHERE fact_id IN ({_marks(len(ids))}) "
            f"AND session IS NOT NULL ORDER BY rowid",
            list(ids),
        ):
            lst = out.setdefault(fid, [])
            if session not in lst:
                lst.append(session)
        return {k: tuple(v) for k, v in out.items()}

    def fts_search(
        self, match: str, scope_sql: str, scope_args: Sequence[object], limit: int
    ) -> list[tuple[int, float]]:
        """BM25 seeds: (fact id, bm25) best first, inside the scope predicate on ``f``."""
        try:
            return list(
                self.conn.execute(
                    f"SELECT f.id, bm25(facts_fts) AS s FROM facts_fts "
                    f"JOIN facts f ON f.id = facts_fts.rowid "
                    f"WHERE facts_fts MATCH ? AND {scope_sql} ORDER BY s LIMIT ?",
                    (match, *scope_args, limit),
                )
            )
        except apsw.SQLError as exc:
            raise StoreError(f"full-text query failed: {exc}") from None

    def passage_search(
        self,
        match: str,
        project: str | None,
        scope_sql: str,
        scope_args: Sequence[object],
        limit: int,
    ) -> list[tuple[int, float]]:
        """BM25 over passages, credited to the in-scope facts said in them:
        (fact id, best passage bm25), best first."""
        try:
            return list(
                self.conn.execute(
                    f"""
                    WITH p AS (
                        SELECT pa.id AS pid, bm25(passages_fts) AS s FROM passages_fts
                        JOIN passages pa ON pa.id = passages_fts.rowid
                        WHERE passages_fts MATCH ? AND (? IS NULL OR pa.project = ?)
                        ORDER BY s LIMIT ?
                    )
                    SELECT f.id, min(p.s) AS s FROM p
                    JOIN statements st ON st.passage_id = p.pid
                    JOIN facts f ON f.id = st.fact_id
                    WHERE {scope_sql} GROUP BY f.id ORDER BY s LIMIT ?
                    """,
                    (match, project, project, limit, *scope_args, limit * 4),
                )
            )
        except apsw.SQLError as exc:
            raise StoreError(f"full-text query failed: {exc}") from None

    def vec_search(
        self, blob: bytes, project: str | None, limit: int
    ) -> list[tuple[int, float]]:
        """Nearest vectors: (fact id, cosine distance) nearest first, in one partition or all."""
        if self.vec_dim is None:
            return []
        if project is None:
            sql = "SELECT rowid, distance FROM fact_vecs WHERE embedding MATCH ? AND k = ?"
            args: tuple[object, ...] = (blob, limit)
        else:
            sql = (
                "SELECT rowid, distance FROM fact_vecs WHERE embedding MATCH ? AND k = ? "
                "AND project = ?"
            )
            args = (blob, limit, project)
        return list(self.conn.execute(sql, args))

    def distances(self, ids: Sequence[int], blob: bytes) -> dict[int, float]:
        """Cosine distance from ``blob`` to each listed fact that has a vector."""
        if not ids or self.vec_dim is None:
            return {}
        return dict(
            self.conn.execute(
                f"SELECT rowid, vec_distance_cosine(embedding, ?) FROM fact_vecs "
                f"WHERE rowid IN ({_marks(len(ids))})",
                (blob, *ids),
            ).fetchall()
        )

    def entities_of(self, ids: Sequence[int]) -> dict[int, list[tuple[int, str, str]]]:
        """fact id -> [(entity id, name, display)]."""
        if not ids:
            return {}
        out: dict[int, list[tuple[int, str, str]]] = {}
        for fid, eid, name, display in self.conn.execute(
            f"SELECT fe.fact_id, e.id, e.name, e.display FROM fact_entities fe "
            f"JOIN entities e ON e.id = fe.entity_id WHERE fe.fact_id IN ({_marks(len(ids))})",
            list(ids),
        ):
            out.setdefault(fid, []).append((eid, name, display))
        return out

    def entity_degrees(self, entity_ids: Sequence[int]) -> dict[int, int]:
        if not entity_ids:
            return {}
        return dict(
            self.conn.execute(
                f"SELECT entity_id, count(*) FROM fact_entities "
                f"WHERE entity_id IN ({_marks(len(entity_ids))}) GROUP BY entity_id",
                list(entity_ids),
            ).fetchall()
        )

    def facts_with_entities(
        self,
        entity_ids: Sequence[int],
        scope_sql: str,
        scope_args: Sequence[object],
        limit: int,
    ) -> list[tuple[int, int]]:
        """(entity id, fact id) for facts in scope mentioning any listed entity, newest first."""
        if not entity_ids:
            return []
        return list(
            self.conn.execute(
                f"SELECT fe.entity_id, f.id FROM fact_entities fe JOIN facts f ON f.id = fe.fact_id "
                f"WHERE fe.entity_id IN ({_marks(len(entity_ids))}) AND {scope_sql} "
                f"ORDER BY f.id DESC LIMIT ?",
                (*entity_ids, *scope_args, limit),
            )
        )

    def session_neighbours(
        self, ids: Sequence[int], window: int, scope_sql: str, scope_args: Sequence[object]
    ) -> list[tuple[int, int]]:
        """(anchor id, neighbour id) for facts of the same session within ``window`` places."""
        if not ids:
            return []
        rows = self.conn.execute(
            f"""
            WITH anchors(aid) AS (SELECT value FROM json_each(?)),
            ordered AS (
                SELECT f.id, f.session,
                       row_number() OVER (PARTITION BY f.session ORDER BY f.id) AS pos
                FROM facts f
                WHERE f.session IN (SELECT session FROM facts WHERE id IN anchors)
                  AND {scope_sql}
            )
            SELECT a.id, b.id FROM ordered a JOIN ordered b
              ON a.session = b.session AND b.pos BETWEEN a.pos - ? AND a.pos + ? AND b.id != a.id
            WHERE a.id IN anchors
            """,
            (_json_ids(ids), *scope_args, window, window),
        )
        return list(rows)

    def counts(self) -> dict[str, int]:
        q = self.conn.execute
        return {
            "facts": q("SELECT count(*) FROM facts").fetchone()[0],
            "current_facts": q("SELECT count(*) FROM facts WHERE status = 'current'").fetchone()[0],
            "entities": q("SELECT count(*) FROM entities").fetchone()[0],
            "sessions": q(
                "SELECT count(DISTINCT session) FROM statements WHERE session IS NOT NULL"
            ).fetchone()[0],
            "projects": q(
                "SELECT count(DISTINCT project) FROM facts WHERE project IS NOT NULL"
            ).fetchone()[0],
        }

    def count_links(self) -> int:
        """Causal links stored (0 before the causal schema exists)."""
        if not self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'causal_links'"
        ).fetchone():
            return 0
        return self.conn.execute("SELECT count(*) FROM causal_links").fetchone()[0]

    def file_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                total += p.stat().st_size
        return total


def _json_ids(ids: Sequence[int]) -> str:
    return "[" + ",".join(str(int(i)) for i in ids) + "]"
