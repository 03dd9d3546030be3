"""Entities and their mentions (``fact_entities``): the write path links them, recall walks
over them, and the update detector finds a new fact's neighbours through them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .base import (
    Base,
    id_list,
    text_list,
)
from .filters import Scope, where


class Entities(Base):
    """Entities and the facts that name them."""

    def ensure_entities(self, mentions: Sequence[tuple[str, str, str]]) -> dict[str, int]:
        """Insert (name, display, type) entities that are new; return name -> id for all."""
        if not mentions:
            return {}
        self.conn.executemany(
            "INSERT INTO entities(name, display, type) VALUES (?, ?, ?) "
            "ON CONFLICT(name) DO NOTHING",
            mentions,
        )
        names = [m[0] for m in mentions]
        return dict(
            self.conn.execute(
                "SELECT name, id FROM entities WHERE name IN (SELECT value FROM json_each(?))",
                (text_list(names),),
            ).fetchall()
        )

    def link_entities(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Link (entity_id, fact_id) pairs, ignoring ones that exist."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO fact_entities(entity_id, fact_id) VALUES (?, ?)", pairs
        )

    def entities_of(self, ids: Sequence[int]) -> dict[int, list[tuple[int, str, str]]]:
        """fact id -> [(entity id, name, display)]."""
        if not ids:
            return {}
        out: dict[int, list[tuple[int, str, str]]] = {}
        for fid, eid, name, display in self.conn.execute(
            "SELECT fe.fact_id, e.id, e.name, e.display FROM fact_entities fe "
            "JOIN entities e ON e.id = fe.entity_id "
            "WHERE fe.fact_id IN (SELECT value FROM json_each(?))",
            (id_list(ids),),
        ):
            out.setdefault(fid, []).append((eid, name, display))
        return out

    def entity_degrees(self, entity_ids: Sequence[int], cap: int) -> dict[int, int]:
        """How many facts name each entity, counted up to ``cap`` (entities on none are
        left out). Callers only ask "at most N?", so a common entity costs N + 1 rows read,
        not its whole posting list (10,000 rows for a name in 10% of a 100k store)."""
        if not entity_ids:
            return {}
        rows = self.conn.execute(
            "SELECT value, (SELECT count(*) FROM (SELECT 1 FROM fact_entities "
            "WHERE entity_id = value LIMIT ?)) FROM json_each(?)",
            (cap, id_list(entity_ids)),
        )
        return {eid: n for eid, n in rows if n}

    def facts_with_entities(
        self, entity_ids: Sequence[int], scope: Scope, limit: int
    ) -> list[tuple[int, int]]:
        """(entity id, fact id) for facts in scope mentioning any listed entity, newest first."""
        if not entity_ids:
            return []
        scope_sql, scope_args = where(scope)
        # Mentions first, then their facts (CROSS JOIN fixes the order): the planner would
        # otherwise walk every fact of the project newest first, probing each.
        return list(
            self.conn.execute(
                f"SELECT fe.entity_id, f.id FROM fact_entities fe CROSS JOIN facts f "
                f"ON f.id = fe.fact_id WHERE fe.entity_id IN (SELECT value FROM json_each(?)) "
                f"AND {scope_sql} ORDER BY f.id DESC LIMIT ?",
                (id_list(entity_ids), *scope_args, limit),
            )
        )

    def current_facts_naming(
        self, names: Sequence[str], project: str | None, limit: int
    ) -> list[int]:
        """The newest current facts of ``project`` naming any of the entity keys ``names``,
        newest first: each entity's mentions are read newest first off its primary key and
        stop at ``limit``, so a common entity costs no more than a rare one."""
        names = list(dict.fromkeys(names))
        if not names:
            return []
        one = (
            "SELECT * FROM (SELECT fe.fact_id AS fid FROM entities e "
            "CROSS JOIN fact_entities fe ON fe.entity_id = e.id "
            "CROSS JOIN facts f ON f.id = fe.fact_id "
            "WHERE e.name = ? AND f.status = 'current' AND f.project IS ? "
            "ORDER BY fe.entity_id DESC, fe.fact_id DESC LIMIT ?)"
        )
        sql = " UNION ".join([one] * len(names)) + " ORDER BY fid DESC LIMIT ?"
        args: list[object] = []
        for name in names:
            args += [name, project, limit]
        return [r[0] for r in self.conn.execute(sql, (*args, limit))]

    def entity_facts(self, name: str) -> list[int] | None:
        """Ids of the facts naming the entity with canonical ``name``; None if no such entity."""
        row = self.conn.execute("SELECT id FROM entities WHERE name = ?", (name,)).fetchone()
        if row is None:
            row = self.conn.execute(
                "SELECT id FROM entities WHERE lower(display) = ? ORDER BY id LIMIT 1", (name,)
            ).fetchone()
        if row is None:
            return None
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT fact_id FROM fact_entities WHERE entity_id = ? ORDER BY fact_id", (row[0],)
            )
        ]
