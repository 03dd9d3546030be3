"""Facts and their statements, events and passages: the writes of the write path (callers
wrap them in ``db.transaction``) and the reads by id or by source."""

from __future__ import annotations

from collections.abc import Sequence

import apsw

from .base import (
    F_FACT_COLUMNS,
    FACT_COLUMNS,
    Base,
    FactRow,
    id_list,
    marks,
    text_list,
)
from .filters import Scope, where


class Facts(Base):
    """Facts, statements, events and passages."""

    def fact_id_by_hash(self, digest: str) -> int | None:
        row = self.conn.execute("SELECT id FROM facts WHERE hash = ?", (digest,)).fetchone()
        return row[0] if row else None

    def insert_fact(self, values: dict[str, object]) -> int | None:
        """Insert one fact; None when a fact with the same hash already exists."""
        cols = ", ".join(values)
        cur = self.conn.execute(
            f"INSERT INTO facts({cols}) VALUES ({marks(len(values))}) "
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
            f"INSERT INTO statements({cols}) VALUES ({marks(len(values) + 1)})",
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

    def facts(self, ids: Sequence[int]) -> dict[int, FactRow]:
        if not ids:
            return {}
        rows = self.conn.execute(
            f"SELECT {FACT_COLUMNS} FROM facts WHERE id IN (SELECT value FROM json_each(?))",
            (id_list(ids),),
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
            "SELECT fact_id, session FROM statements "
            "WHERE fact_id IN (SELECT value FROM json_each(?)) AND session IS NOT NULL "
            "ORDER BY rowid",
            (id_list(ids),),
        ):
            lst = out.setdefault(fid, [])
            if session not in lst:
                lst.append(session)
        return {k: tuple(v) for k, v in out.items()}

    def in_scope(self, ids: Sequence[int], scope: Scope) -> set[int]:
        """The listed facts that ``scope`` admits."""
        if not ids:
            return set()
        scope_sql, scope_args = where(scope)
        return {
            r[0]
            for r in self.conn.execute(
                f"SELECT f.id FROM facts f WHERE f.id IN (SELECT value FROM json_each(?)) "
                f"AND {scope_sql}",
                (id_list(ids), *scope_args),
            )
        }

    def session_neighbours(
        self, ids: Sequence[int], window: int, scope: Scope
    ) -> list[tuple[int, int]]:
        """(anchor id, neighbour id) for in-scope facts said just before or after each anchor
        in the same session (``window`` steps each side): one statement for all anchors,
        each step an index seek on (session, id)."""
        if not ids:
            return []
        scope_sql, scope_args = where(scope)
        rows = self.conn.execute(
            f"""
            WITH RECURSIVE walk(aid, s, cur, dir, step) AS (
                SELECT a.id, a.session, a.id, d.value, 0 FROM facts a, json_each('[-1, 1]') d
                WHERE a.id IN (SELECT value FROM json_each(?)) AND a.session IS NOT NULL
                UNION ALL
                SELECT aid, s,
                       CASE WHEN dir < 0
                            THEN (SELECT max(g.id) FROM facts g WHERE g.session = s AND g.id < cur)
                            ELSE (SELECT min(g.id) FROM facts g WHERE g.session = s AND g.id > cur)
                       END,
                       dir, step + 1
                FROM walk WHERE step < ? AND cur IS NOT NULL
            )
            SELECT walk.aid, f.id FROM walk JOIN facts f ON f.id = walk.cur
            WHERE walk.step > 0 AND {scope_sql}
            """,
            (id_list(ids), window, *scope_args),
        )
        return list(rows)

    def recent_in_project(
        self, project: str | None, before_id: int, window: int
    ) -> list[tuple[int, str | None]]:
        """(id, session) of ``project``'s facts among the ``window`` fact ids just below
        ``before_id``, newest first: write-order locality for the causal linker (one range
        seek on the primary key)."""
        return list(self.conn.execute(
            "SELECT id, session FROM facts WHERE id < ? AND id >= ? AND project IS ? "
            "ORDER BY id DESC",
            (before_id, before_id - window, project),
        ))

    def previous_in_session(self, fact_id: int, session: str) -> int | None:
        """The fact stated just before ``fact_id``'s latest statement in ``session``."""
        row = self.conn.execute(
            "SELECT fact_id FROM statements WHERE session = ? AND fact_id != ? AND rowid < "
            "(SELECT max(rowid) FROM statements WHERE fact_id = ? AND session = ?) "
            "ORDER BY rowid DESC LIMIT 1",
            (session, fact_id, fact_id, session),
        ).fetchone()
        return row[0] if row else None

    def texts_before(self, fact_id: int, n: int) -> list[str]:
        """The texts of up to ``n`` facts stated just before ``fact_id``'s latest statement
        with the same source (the same turn), nearest first."""
        return [r[0] for r in self.conn.execute(
            "SELECT f.text FROM statements st JOIN facts f ON f.id = st.fact_id "
            "WHERE st.source = (SELECT source FROM statements WHERE fact_id = ? "
            "ORDER BY rowid DESC LIMIT 1) AND st.fact_id != ? AND st.rowid < "
            "(SELECT max(rowid) FROM statements WHERE fact_id = ?) "
            "ORDER BY st.rowid DESC LIMIT ?",
            (fact_id, fact_id, fact_id, n),
        )]

    def statement_sources(self, ids: Sequence[int]) -> list[tuple[int, str | None]]:
        """(fact id, source) of every statement of the facts, newest statement first."""
        if not ids:
            return []
        return self.conn.execute(
            "SELECT fact_id, source FROM statements "
            "WHERE fact_id IN (SELECT value FROM json_each(?)) ORDER BY rowid DESC",
            (id_list(ids),),
        ).fetchall()

    def facts_stated_in(self, sources: Sequence[str], scope: Scope) -> list[tuple[int, str]]:
        """(fact id, source) of the in-scope facts stated with one of ``sources``, by id."""
        if not sources:
            return []
        scope_sql, scope_args = where(scope)
        return self.conn.execute(
            f"SELECT DISTINCT st.fact_id, st.source FROM statements st "
            f"JOIN facts f ON f.id = st.fact_id "
            f"WHERE st.source IN (SELECT value FROM json_each(?)) AND {scope_sql} "
            f"ORDER BY st.fact_id",
            (text_list(sources), *scope_args),
        ).fetchall()

    def first_text_stated_in(self, source: str) -> str | None:
        """The text of the first fact stated with ``source`` (e.g. an exchange's opening)."""
        row = self.conn.execute(
            "SELECT f.text FROM statements st JOIN facts f ON f.id = st.fact_id "
            "WHERE st.source = ? ORDER BY st.fact_id LIMIT 1",
            (source,),
        ).fetchone()
        return row[0] if row else None

    def passage_leads(self, sources: Sequence[str]) -> dict[str, str]:
        """source -> the lead of a passage its facts were said in (the text before its first
        line break: the question a captured answer replies to), for sources that have one."""
        if not sources:
            return {}
        out: dict[str, str] = {}
        for source, text in self.conn.execute(
            "SELECT st.source, pa.text FROM statements st JOIN passages pa "
            "ON pa.id = st.passage_id WHERE st.source IN (SELECT value FROM json_each(?)) "
            "AND instr(pa.text, char(10)) > 0",
            (text_list(sources),),
        ):
            out.setdefault(source, text.split("\n", 1)[0])
        return out

    def recent_current(
        self, project: str | None, role: str, limit: int, match: str | None = None
    ) -> list[FactRow]:
        """The newest current facts of ``project`` said by ``role``, newest first; with
        ``match``, only those matching that FTS5 expression ([] when FTS5 cannot take it)."""
        if match is None:
            return [FactRow(*r) for r in self.conn.execute(
                f"SELECT {FACT_COLUMNS} FROM facts WHERE project IS ? AND status = 'current' "
                f"AND role = ? ORDER BY id DESC LIMIT ?",
                (project, role, limit),
            )]
        try:
            return [FactRow(*r) for r in self.conn.execute(
                f"SELECT {F_FACT_COLUMNS} FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
                f"WHERE facts_fts MATCH ? AND f.project IS ? AND f.status = 'current' "
                f"AND f.role = ? ORDER BY f.id DESC LIMIT ?",
                (match, project, role, limit),
            )]
        except apsw.Error:
            return []

    def fact_ids_in(self, *, project: str | None = None, session: str | None = None) -> list[int]:
        """Facts of a project, or facts stated (first or again) in a session."""
        if project is not None:
            sql, args = "SELECT id FROM facts WHERE project = ?", (project,)
        else:
            sql = (
                "SELECT id FROM facts WHERE session = ? "
                "UNION SELECT fact_id FROM statements WHERE session = ?"
            )
            args = (session, session)
        return sorted(r[0] for r in self.conn.execute(sql, args))

    def fact_texts(self, ids: Sequence[int]) -> list[str]:
        """The texts of facts ``ids`` (those that exist), in id order."""
        return [r[0] for r in self.conn.execute(
            "SELECT text FROM facts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
            (id_list(ids),),
        )]

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

    def max_fact_id(self) -> int:
        """The highest fact id: the number of facts ever written, read off the primary key."""
        return self.conn.execute("SELECT coalesce(max(id), 0) FROM facts").fetchone()[0]

    def is_empty(self) -> bool:
        return self.conn.execute("SELECT NOT EXISTS (SELECT 1 FROM facts)").fetchone()[0] == 1
