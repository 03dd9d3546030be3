"""The vector tables: float32 fact vectors (``fact_vecs``), their sign-bit kNN index
(``fact_bits``) and the span index (``span_bits``), all made for one embedding model."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from . import connection as db
from .base import (
    Base,
    id_list,
)


class Vectors(Base):
    """Fact and span vectors, and the nearest-neighbour searches over them."""

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
            self.conn.execute("DROP TRIGGER IF EXISTS facts_bits_delete")
            self.conn.execute("DROP TABLE IF EXISTS fact_vecs")
            self.conn.execute("DROP TABLE IF EXISTS fact_bits")
            # The float32 vectors live in a plain table: exact re-ranking reads them by
            # primary key (vec0 answers `rowid IN (...)` with a full scan).
            self.conn.execute(
                "CREATE TABLE fact_vecs (id INTEGER PRIMARY KEY, embedding BLOB NOT NULL, "
                "project TEXT)"
            )
            # The kNN index: one bit per dimension (the sign), 32x smaller than the floats,
            # partitioned by project so that a scoped search scans only that project. Its
            # candidates are re-ranked by true cosine from fact_vecs.
            self.conn.execute(
                f"CREATE VIRTUAL TABLE fact_bits USING vec0("
                f"embedding bit[{int(dim)}], project text partition key)"
            )
            self.conn.execute(
                "CREATE TRIGGER facts_bits_delete AFTER DELETE ON facts BEGIN "
                "DELETE FROM fact_bits WHERE rowid = old.id; END"
            )
            # Span vectors of another model are meaningless next to the new ones: they are
            # dropped here and embedded again by the back-fill (ingest.backfill).
            self.conn.execute("UPDATE causal_assertions SET cause_vec = NULL, effect_vec = NULL")
            self._create_span_index(dim)
            self.set_meta("embed_model", model)
            self.set_meta("embed_dim", str(dim))
        self.vec_dim = dim
        return True

    def _create_span_index(self, dim: int) -> None:
        """The kNN index of cause and effect span vectors (sign bits, by project): row
        ``2 * assertion id`` is the cause span, ``2 * id + 1`` the effect span. A fact that
        asserts nothing causal can only link to facts that do, so its candidates are
        searched here, among spans, instead of among every fact."""
        self.conn.execute("DROP TRIGGER IF EXISTS assertions_bits_delete")
        self.conn.execute("DROP TABLE IF EXISTS span_bits")
        self.conn.execute(
            f"CREATE VIRTUAL TABLE span_bits USING vec0("
            f"embedding bit[{int(dim)}], project text partition key)"
        )
        self.conn.execute(
            "CREATE TRIGGER assertions_bits_delete AFTER DELETE ON causal_assertions BEGIN "
            "DELETE FROM span_bits WHERE rowid = 2 * old.id; "
            "DELETE FROM span_bits WHERE rowid = 2 * old.id + 1; END"
        )
        rows = self.conn.execute(
            "SELECT a.id, a.cause_vec, a.effect_vec, coalesce(f.project, '') "
            "FROM causal_assertions a JOIN facts f ON f.id = a.fact_id "
            "WHERE a.cause_vec IS NOT NULL AND a.effect_vec IS NOT NULL"
        ).fetchall()
        self._put_span_bits([r for r in rows if len(r[1]) == len(r[2]) == 4 * dim])

    def _put_span_bits(self, rows: Sequence[tuple[int, bytes, bytes, str]]) -> None:
        """Index (assertion id, cause vector, effect vector, project) rows."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO span_bits(rowid, embedding, project) "
            "VALUES (?, vec_quantize_binary(vec_f32(?)), ?)",
            [(2 * aid + side, vec, project) for aid, cv, ev, project in rows
             for side, vec in ((0, cv), (1, ev))],
        )

    def rebuild_span_index(self) -> None:
        """Index every stored span vector again (after rows were loaded in bulk)."""
        if self.vec_dim is not None:
            with db.transaction(self.conn):
                self._create_span_index(self.vec_dim)

    def ensure_span_index(self) -> None:
        """Create the span index in a file whose vector tables predate it (one-time upgrade,
        back-filled from the stored span vectors)."""
        if self.vec_dim is None or self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'span_bits'"
        ).fetchone():
            return
        with db.transaction(self.conn):
            if not self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'span_bits'"
            ).fetchone():
                self._create_span_index(self.vec_dim)

    def facts_without_vectors(self, limit: int = 512) -> list[tuple[int, str, str | None]]:
        if self.vec_dim is None:
            return []
        return list(
            self.conn.execute(
                "SELECT id, text, project FROM facts WHERE id NOT IN (SELECT id FROM fact_vecs) "
                "ORDER BY id LIMIT ?",
                (limit,),
            )
        )

    def put_vectors(self, rows: Iterable[tuple[int, str | None, bytes]]) -> None:
        """Insert (id, project, float32 blob) rows; call inside a transaction."""
        rows = [(fid, blob, project or "") for fid, project, blob in rows]
        self.conn.executemany(
            "INSERT OR REPLACE INTO fact_vecs(rowid, embedding, project) VALUES (?, ?, ?)", rows
        )
        self.conn.executemany(
            "INSERT OR REPLACE INTO fact_bits(rowid, embedding, project) "
            "VALUES (?, vec_quantize_binary(vec_f32(?)), ?)",
            rows,
        )

    def vec_search(
        self, blob: bytes, project: str | None, limit: int
    ) -> list[tuple[int, float]]:
        """Nearest vectors: (fact id, cosine distance) nearest first, in one partition or all.

        Two stages: a Hamming kNN over the sign bits picks ``2 * limit`` candidates, then
        their float vectors re-rank them by cosine (the scan reads 32x fewer bytes). The
        kNN's cost grows with k times the store (about 0.1 ms per unit of k at 100k facts),
        so the oversampling is kept at two."""
        if self.vec_dim is None:
            return []
        where = "embedding MATCH vec_quantize_binary(vec_f32(?)) AND k = ?"
        args: tuple[object, ...] = (blob, max(2 * limit, 40))
        if project is not None:
            where += " AND project = ?"
            args += (project,)
        ids = [r[0] for r in self.conn.execute(f"SELECT rowid FROM fact_bits WHERE {where}", args)]
        ranked = sorted(self.distances(ids, blob).items(), key=lambda x: x[1])
        return ranked[:limit]

    def distances(self, ids: Sequence[int], blob: bytes) -> dict[int, float]:
        """Cosine distance from ``blob`` to each listed fact that has a vector."""
        if not ids or self.vec_dim is None:
            return {}
        return dict(
            self.conn.execute(
                "SELECT id, vec_distance_cosine(embedding, ?) FROM fact_vecs "
                "WHERE id IN (SELECT value FROM json_each(?))",
                (blob, id_list(ids)),
            ).fetchall()
        )

    def fact_vectors(self, ids: Sequence[int]) -> dict[int, bytes]:
        """fact id -> its float32 vector blob (facts without a vector are absent)."""
        if not ids or self.vec_dim is None:
            return {}
        return dict(
            self.conn.execute(
                "SELECT id, embedding FROM fact_vecs WHERE id IN (SELECT value FROM json_each(?))",
                (id_list(ids),),
            ).fetchall()
        )
