"""Causal rows: the cause -> effect spans a fact asserts (``causal_assertions``) and the links
between facts (``causal_links``) that the walks read one level per statement."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import apsw

from .base import (
    AssertionRow,
    Base,
    LinkRow,
    id_list,
)
from .filters import Scope, where


class Causal(Base):
    """Causal spans and links."""

    def add_causal_assertions(
        self,
        fact_id: int,
        rows: Sequence[tuple[str, str, str, float, str | None, bytes | None, bytes | None]],
    ) -> list[int]:
        """Store (cause, effect, cue, confidence, backref, cause_vec, effect_vec) spans that
        ``fact_id`` asserts; return their ids in order. Call inside a transaction."""
        ids = []
        for row in rows:
            ids.append(
                self.conn.execute(
                    "INSERT INTO causal_assertions(fact_id, cause, effect, cue, confidence, "
                    "backref, cause_vec, effect_vec) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (fact_id, *row),
                ).fetchone()[0]
            )
        self._index_spans(
            fact_id, [(aid, row[5], row[6]) for aid, row in zip(ids, rows, strict=True)]
        )
        return ids

    def _index_spans(
        self, fact_id: int, rows: Sequence[tuple[int, bytes | None, bytes | None]]
    ) -> None:
        size = 4 * self.vec_dim if self.vec_dim else 0
        rows = [r for r in rows if r[1] and r[2] and len(r[1]) == len(r[2]) == size]
        if not rows:
            return
        project = self.conn.execute(
            "SELECT coalesce(project, '') FROM facts WHERE id = ?", (fact_id,)
        ).fetchone()[0]
        self._put_span_bits([(aid, cv, ev, project) for aid, cv, ev in rows])  # type: ignore[misc]

    def assertions_without_vectors(
        self, limit: int = 256
    ) -> list[tuple[int, int, str, str, str, str | None, str]]:
        """(assertion id, fact id, cause, effect, cue, backref, fact text) of spans stored
        without vectors."""
        if self.vec_dim is None:
            return []
        return list(
            self.conn.execute(
                "SELECT a.id, a.fact_id, a.cause, a.effect, a.cue, a.backref, f.text "
                "FROM causal_assertions a JOIN facts f ON f.id = a.fact_id "
                "WHERE a.cause_vec IS NULL OR a.effect_vec IS NULL ORDER BY a.id LIMIT ?",
                (limit,),
            )
        )

    def set_span_vectors(self, rows: Sequence[tuple[int, int, bytes, bytes]]) -> None:
        """Store and index (assertion id, fact id, cause vector, effect vector); call inside
        a transaction."""
        self.conn.executemany(
            "UPDATE causal_assertions SET cause_vec = ?, effect_vec = ? WHERE id = ?",
            [(cv, ev, aid) for aid, _fid, cv, ev in rows],
        )
        for aid, fid, cv, ev in rows:
            self._index_spans(fid, [(aid, cv, ev)])

    def span_search(
        self, blob: bytes, project: str | None, limit: int
    ) -> list[tuple[int, float]]:
        """Facts whose cause or effect span is nearest ``blob``: (fact id, cosine distance of
        its nearest span) nearest first, within the project's partition."""
        if self.vec_dim is None:
            return []
        try:
            bits = [
                r[0]
                for r in self.conn.execute(
                    "SELECT rowid FROM span_bits WHERE embedding MATCH "
                    "vec_quantize_binary(vec_f32(?)) AND k = ? AND project = ?",
                    (blob, 3 * limit, project or ""),
                )
            ]
        except apsw.SQLError:
            return []  # no span index (a read-only file from before it existed)
        if not bits:
            return []
        best: dict[int, float] = {}
        for fid, dist in self.conn.execute(
            "SELECT a.fact_id, vec_distance_cosine("
            "CASE j.value % 2 WHEN 0 THEN a.cause_vec ELSE a.effect_vec END, ?) "
            "FROM json_each(?) j JOIN causal_assertions a ON a.id = j.value / 2",
            (blob, id_list(bits)),
        ):
            if dist is not None and dist < best.get(fid, 9.0):
                best[fid] = dist
        return sorted(best.items(), key=lambda x: x[1])[:limit]

    def causal_assertions(self, ids: Sequence[int]) -> dict[int, list[AssertionRow]]:
        """fact id -> the spans it asserts (with span vectors when stored)."""
        if not ids:
            return {}
        out: dict[int, list[AssertionRow]] = {}
        for row in self.conn.execute(
            "SELECT id, fact_id, cause, effect, cue, confidence, backref, cause_vec, effect_vec "
            "FROM causal_assertions WHERE fact_id IN (SELECT value FROM json_each(?)) ORDER BY id",
            (id_list(ids),),
        ):
            out.setdefault(row[1], []).append(AssertionRow(*row))
        return out

    def add_causal_links(
        self, rows: Iterable[tuple[int, int, str, float, int | None, str | None, str]]
    ) -> None:
        """Upsert (cause, effect, via, score, assertion id, cue, created_at) links; a pair
        keeps its best-scored reason. Call inside a transaction."""
        self.conn.executemany(
            "INSERT INTO causal_links(cause_fact, effect_fact, via, score, assertion_id, cue, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(cause_fact, effect_fact) DO UPDATE SET via = excluded.via, "
            "score = excluded.score, assertion_id = excluded.assertion_id, cue = excluded.cue "
            "WHERE excluded.score > causal_links.score",
            rows,
        )

    def causal_edges(
        self, ids: Sequence[int], direction: str, scope: Scope, fanout: int
    ) -> list[LinkRow]:
        """One level of a walk: the links from each listed fact towards its causes
        (``direction="causes"``) or effects, whose far end is in scope; at most ``fanout``
        per listed fact, best-scored first. The links are read first (CROSS JOIN fixes the
        order): left to itself, the planner would scan the whole project's facts."""
        if not ids:
            return []
        near, far = ("effect_fact", "cause_fact") if direction == "causes" else (
            "cause_fact", "effect_fact"
        )
        scope_sql, scope_args = where(scope)
        rows = self.conn.execute(
            f"""
            SELECT near, far, score, via, cue FROM (
                SELECT l.{near} AS near, l.{far} AS far, l.score, l.via, l.cue,
                       row_number() OVER (PARTITION BY l.{near} ORDER BY l.score DESC) AS r
                FROM causal_links l CROSS JOIN facts f ON f.id = l.{far}
                WHERE l.{near} IN (SELECT value FROM json_each(?)) AND {scope_sql}
            ) WHERE r <= ? ORDER BY near, score DESC
            """,
            (id_list(ids), *scope_args, fanout),
        )
        return [LinkRow(*r) for r in rows]

    def count_links(self) -> int:
        """Causal links stored (0 before the causal schema exists)."""
        if not self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'causal_links'"
        ).fetchone():
            return 0
        return self.conn.execute("SELECT count(*) FROM causal_links").fetchone()[0]
