"""``Store``: the only module that writes SQL against the memory file.

It opens (and migrates) the file, owns the vector table, and offers small set-based reads
that recall and the causal walks compose: every read takes a list of ids and answers in one
statement, so that a walk costs one SQL round per level, never one per node. Storage knows
nothing of extraction or ranking; keeping SQL here is what lets another backend replace it.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import apsw

from ..errors import StoreError
from . import connection as db
from .filters import Scope, where
from .migrations import migrate

FACT_COLUMNS = (
    "id, text, kind, project, session, role, source, harness, turn, stated_at, recorded_at, "
    "valid_from, valid_to, status, superseded_by, retired_at"
)
_F_FACT_COLUMNS = ", ".join("f." + c.strip() for c in FACT_COLUMNS.split(","))  # joined as f


class FactRow(NamedTuple):
    """One row of ``facts`` as stored (a named tuple: the write path reads tens per new
    fact, and a frozen dataclass of 16 fields costs 6x as much to build)."""

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


@dataclass(frozen=True)
class AssertionRow:
    """One stored cause -> effect span pair of a fact."""

    id: int
    fact_id: int
    cause: str
    effect: str
    cue: str
    confidence: float
    backref: str | None
    cause_vec: bytes | None
    effect_vec: bytes | None


@dataclass(frozen=True)
class LinkRow:
    """One causal link seen from the walk's side: ``near`` is the fact being expanded."""

    near: int
    far: int
    score: float
    via: str
    cue: str | None


def _marks(n: int) -> str:
    return ",".join("?" * n)


class Store:
    """The memory file: facts, statements, entities, events, vectors and the inbox."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.conn = db.connect(self.path, readonly=readonly)
        self.schema_version = migrate(self.conn) if not readonly else 0
        self.vec_dim = self._vec_dim()
        if not readonly:
            self.ensure_span_index()
        self._vocab_ready = False
        self._docs: dict[str, int] = {}  # word -> facts containing it (term_docs)
        self._docs_size = 0

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

    def _fts_top(self, table: str, match: str, n: int) -> list[tuple[int, float]]:
        """The ``n`` best (rowid, bm25) of one FTS5 table, ranked by FTS5 alone."""
        return self.conn.execute(
            f"SELECT rowid, bm25({table}) AS s FROM {table} WHERE {table} MATCH ? "
            f"ORDER BY s LIMIT ?",
            (match, n),
        ).fetchall()

    def fts_search(self, match: str, scope: Scope, limit: int) -> list[tuple[int, float]]:
        """BM25 seeds: (fact id, bm25) best first, inside ``scope``.

        As in ``passage_search``, the best matches are ranked by FTS5 alone first and then
        filtered by the scope (joining every match to its row before sorting costs several
        times more on a large store); only when the scope leaves too few of them does the
        ranking run inside the scope."""
        try:
            wide = limit * 4
            top = self._fts_top("facts_fts", match, wide)
            keep = self.in_scope([t[0] for t in top], scope)
            if len(keep) >= limit or len(top) < wide:
                return [t for t in top if t[0] in keep][:limit]
            scope_sql, scope_args = where(scope)
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

    def term_docs(self, words: Sequence[str]) -> dict[str, int]:
        """How many facts contain each (lowercase) word, from the full-text index's
        vocabulary, for ranking words by rarity.

        The index holds Porter stems; a word is matched by itself and its suffix-stripped
        forms, taking the largest count, so the figure is an estimate (0: not indexed).
        Counting reads a word's posting list, so the counts of common words are cached until
        the store has grown by a quarter: a rarity estimate does not need to be exact."""
        if not words:
            return {}
        size = self.max_fact_id()
        if size > self._docs_size * 1.25 + 100 or len(self._docs) > 50_000:
            self._docs, self._docs_size = {}, size
        missing = [w for w in dict.fromkeys(words) if w not in self._docs]
        if missing:
            forms = {w: _stem_forms(w) for w in missing}
            every = sorted({f for fs in forms.values() for f in fs})
            found = dict(self._vocab(every))
            counted = {w: max(found.get(f, 0) for f in fs) for w, fs in forms.items()}
            # Only long posting lists are worth caching; rare words (whose counts change
            # meaningfully with every write) are counted afresh.
            self._docs.update((w, n) for w, n in counted.items() if n >= 64)
            return {w: self._docs.get(w, counted.get(w, 0)) for w in words}
        return {w: self._docs[w] for w in words}

    def _vocab(self, terms: list[str]) -> list[tuple[str, int]]:
        """(term, facts containing it) from a temp fts5vocab table over ``facts_fts``. The
        table is made on first use; made inside a write transaction that rolled back, it is
        gone again, so a missing table is made once more."""
        sql = f"SELECT term, doc FROM temp.facts_vocab WHERE term IN ({_marks(len(terms))})"
        for attempt in (0, 1):
            if not self._vocab_ready:
                self.conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.facts_vocab "
                    "USING fts5vocab(main, facts_fts, 'row')"
                )
                self._vocab_ready = True
            try:
                return self.conn.execute(sql, terms).fetchall()
            except apsw.SQLError:
                if attempt:
                    raise
                self._vocab_ready = False
        return []

    def passage_search(self, match: str, scope: Scope, limit: int) -> list[tuple[int, float]]:
        """BM25 over passages, credited to the facts of ``scope`` said in them:
        (fact id, best passage bm25), best first.

        The best passages are taken from FTS5 alone first (joining every match to its row
        before sorting costs several times more); only when the project filter leaves too
        few of them does the query rank inside the project."""
        project = scope.partition
        try:
            wide = limit * 4
            top = self._fts_top("passages_fts", match, wide)
            if project is not None and top:
                keep = {
                    r[0]
                    for r in self.conn.execute(
                        "SELECT id FROM passages WHERE id IN (SELECT value FROM json_each(?)) "
                        "AND project = ?",
                        (_json_ids([t[0] for t in top]), project),
                    )
                }
                if len(keep) < limit and len(top) == wide:
                    top = self.conn.execute(
                        "SELECT pa.id, bm25(passages_fts) AS s FROM passages_fts "
                        "JOIN passages pa ON pa.id = passages_fts.rowid "
                        "WHERE passages_fts MATCH ? AND pa.project = ? ORDER BY s LIMIT ?",
                        (match, project, limit),
                    ).fetchall()
                else:
                    top = [t for t in top if t[0] in keep]
            top = top[:limit]
            if not top:
                return []
            scope_sql, scope_args = where(scope)
            return list(
                self.conn.execute(
                    f"""
                    WITH p(pid, s) AS MATERIALIZED (
                        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]')
                        FROM json_each(?)
                    )
                    SELECT f.id, min(p.s) AS s FROM p
                    CROSS JOIN statements st ON st.passage_id = p.pid
                    CROSS JOIN facts f ON f.id = st.fact_id
                    WHERE {scope_sql} GROUP BY f.id ORDER BY s LIMIT ?
                    """,
                    (json.dumps(top), *scope_args, limit * 4),
                )
            )
        except apsw.SQLError as exc:
            raise StoreError(f"full-text query failed: {exc}") from None

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
                (blob, _json_ids(ids)),
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

    def entity_degrees(self, entity_ids: Sequence[int], cap: int) -> dict[int, int]:
        """How many facts name each entity, counted up to ``cap`` (entities on none are
        left out). Callers only ask "at most N?", so a common entity costs N + 1 rows read,
        not its whole posting list (10,000 rows for a name in 10% of a 100k store)."""
        if not entity_ids:
            return {}
        rows = self.conn.execute(
            "SELECT value, (SELECT count(*) FROM (SELECT 1 FROM fact_entities "
            "WHERE entity_id = value LIMIT ?)) FROM json_each(?)",
            (cap, _json_ids(entity_ids)),
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
                f"ON f.id = fe.fact_id WHERE fe.entity_id IN ({_marks(len(entity_ids))}) "
                f"AND {scope_sql} ORDER BY f.id DESC LIMIT ?",
                (*entity_ids, *scope_args, limit),
            )
        )

    def current_facts_naming(self, names: Sequence[str], project: str | None, limit: int) -> list[int]:
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
            (_json_ids(ids), window, *scope_args),
        )
        return list(rows)

    # -- the hooks' block (context.py, exchanges.py, rules.py)

    def match_count(self, match: str) -> int:
        """How many facts an FTS5 MATCH expression finds; 0 when FTS5 cannot take it."""
        try:
            return self.conn.execute(
                "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH ?", (match,)
            ).fetchone()[0]
        except apsw.Error:
            return 0

    def fts_fact_texts(self, match: str, scope: Scope, limit: int) -> list[tuple[int, str]]:
        """(id, text) of up to ``limit`` facts matching ``match`` inside ``scope``, in no
        particular order; [] when FTS5 cannot take the expression."""
        scope_sql, scope_args = where(scope)
        try:
            return self.conn.execute(
                f"SELECT f.id, f.text FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
                f"WHERE facts_fts MATCH ? AND {scope_sql} LIMIT ?",
                (match, *scope_args, limit),
            ).fetchall()
        except apsw.Error:
            return []

    def statement_sources(self, ids: Sequence[int]) -> list[tuple[int, str | None]]:
        """(fact id, source) of every statement of the facts, newest statement first."""
        if not ids:
            return []
        return self.conn.execute(
            "SELECT fact_id, source FROM statements "
            "WHERE fact_id IN (SELECT value FROM json_each(?)) ORDER BY rowid DESC",
            (_json_ids(ids),),
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
            (json.dumps(list(sources)), *scope_args),
        ).fetchall()

    def first_text_stated_in(self, source: str) -> str | None:
        """The text of the first fact stated with ``source`` (e.g. an exchange's opening)."""
        row = self.conn.execute(
            "SELECT f.text FROM statements st JOIN facts f ON f.id = st.fact_id "
            "WHERE st.source = ? ORDER BY st.fact_id LIMIT 1",
            (source,),
        ).fetchone()
        return row[0] if row else None

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
                f"SELECT {_F_FACT_COLUMNS} FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid "
                f"WHERE facts_fts MATCH ? AND f.project IS ? AND f.status = 'current' "
                f"AND f.role = ? ORDER BY f.id DESC LIMIT ?",
                (match, project, role, limit),
            )]
        except apsw.Error:
            return []

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


    # -- causal (memory/causal.py): spans, links and the walks' one-statement-per-level reads --

    def add_causal_assertions(
        self, fact_id: int, rows: Sequence[tuple[str, str, str, float, str | None, bytes | None, bytes | None]]
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
        self._index_spans(fact_id, [(aid, row[5], row[6]) for aid, row in zip(ids, rows, strict=True)])
        return ids

    def _index_spans(self, fact_id: int, rows: Sequence[tuple[int, bytes | None, bytes | None]]) -> None:
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
            (blob, _json_ids(bits)),
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
            f"SELECT id, fact_id, cause, effect, cue, confidence, backref, cause_vec, effect_vec "
            f"FROM causal_assertions WHERE fact_id IN ({_marks(len(ids))}) ORDER BY id",
            list(ids),
        ):
            out.setdefault(row[1], []).append(AssertionRow(*row))
        return out

    def fact_vectors(self, ids: Sequence[int]) -> dict[int, bytes]:
        """fact id -> its float32 vector blob (facts without a vector are absent)."""
        if not ids or self.vec_dim is None:
            return {}
        return dict(
            self.conn.execute(
                "SELECT id, embedding FROM fact_vecs WHERE id IN (SELECT value FROM json_each(?))",
                (_json_ids(ids),),
            ).fetchall()
        )

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
            (_json_ids(ids), *scope_args, fanout),
        )
        return [LinkRow(*r) for r in rows]

    def previous_in_session(self, fact_id: int, session: str) -> int | None:
        """The fact stated just before ``fact_id``'s latest statement in ``session``."""
        row = self.conn.execute(
            "SELECT fact_id FROM statements WHERE session = ? AND fact_id != ? AND rowid < "
            "(SELECT max(rowid) FROM statements WHERE fact_id = ? AND session = ?) "
            "ORDER BY rowid DESC LIMIT 1",
            (session, fact_id, fact_id, session),
        ).fetchone()
        return row[0] if row else None

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
                (_json_ids(ids), *scope_args),
            )
        }

    # -- revision: history, erasure and transfer (memory/revision.py, memory/transfer.py) --

    def lifecycle_as_of(self, ids: Sequence[int], at: str) -> dict[int, tuple[str, int | None]]:
        """fact id -> (status, superseded_by) as recorded at transaction time ``at``, from the
        last assert/supersede/retract/revive event then (facts with none count as current)."""
        if not ids:
            return {}
        rows = self.conn.execute(
            """
            SELECT j.value, (SELECT e.action || ' ' || coalesce(e.other_id, '') FROM events e
                             WHERE e.fact_id = j.value AND e.at <= ?
                               AND e.action IN ('assert', 'supersede', 'retract', 'revive')
                             ORDER BY e.at DESC, e.id DESC LIMIT 1)
            FROM json_each(?) j
            """,
            (at, _json_ids(ids)),
        )
        out: dict[int, tuple[str, int | None]] = {}
        for fid, last in rows:
            action, _, other = (last or "assert ").partition(" ")
            if action == "supersede":
                out[fid] = ("superseded", int(other) if other else None)
            elif action == "retract":
                out[fid] = ("retracted", None)
            else:
                out[fid] = ("current", None)
        return out

    def events(self, fact_ids: Sequence[int], *, replaced: bool = True) -> list[tuple]:
        """Events of the listed facts (and, with ``replaced``, the supersede events naming
        them as the replacement), oldest first, each with the text of its fact:
        (fact_id, action, at, reason, other_id, session, role, text)."""
        if not fact_ids:
            return []
        ids = _json_ids(fact_ids)
        extra = (
            "OR (e.action = 'supersede' AND e.other_id IN (SELECT value FROM json_each(?)))"
            if replaced else ""
        )
        return list(
            self.conn.execute(
                f"SELECT e.fact_id, e.action, e.at, e.reason, e.other_id, e.session, e.role, "
                f"f.text FROM events e JOIN facts f ON f.id = e.fact_id "
                f"WHERE e.fact_id IN (SELECT value FROM json_each(?)) {extra} "
                f"ORDER BY e.at, e.id",
                (ids, ids) if replaced else (ids,),
            )
        )

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

    def erase(
        self, ids: Sequence[int], *, project: str | None = None, session: str | None = None
    ) -> int:
        """Hard-delete facts and everything that holds their words; call inside a transaction.

        Deletes the facts (statements, events, entity links and causal rows cascade), their
        vectors, the passages left unreferenced (passages still quoting other facts are
        rebuilt from those facts' texts), the entities left orphaned and, for a project or
        session, its passages and inbox rows. Surviving facts that a deleted fact had
        superseded stay superseded but lose the pointer and the reason (which may quote the
        deleted text). FTS rows go through the delete triggers; ``compact_text_indexes``
        then purges them from the FTS segments.
        """
        ids = sorted(set(ids))
        js = _json_ids(ids)
        q = self.conn.execute
        texts = dict(
            q("SELECT id, text FROM facts WHERE id IN (SELECT value FROM json_each(?))", (js,))
        )
        passages = {
            r[0]
            for r in q(
                "SELECT DISTINCT passage_id FROM statements WHERE passage_id IS NOT NULL "
                "AND fact_id IN (SELECT value FROM json_each(?))",
                (js,),
            )
        }
        if project is not None:
            passages |= {r[0] for r in q("SELECT id FROM passages WHERE project = ?", (project,))}
        if session is not None:
            passages |= {r[0] for r in q("SELECT id FROM passages WHERE session = ?", (session,))}
        entity_ids = [
            r[0]
            for r in q(
                "SELECT DISTINCT entity_id FROM fact_entities "
                "WHERE fact_id IN (SELECT value FROM json_each(?))",
                (js,),
            )
        ]
        if self.vec_dim is not None and ids:
            # fact_vecs is a plain table (secure_delete zeroes its freed cells); sqlite-vec
            # 0.1.9 clears a deleted vec0 slot (measured), and it holds only sign bits.
            self.conn.executemany("DELETE FROM fact_vecs WHERE id = ?", ((i,) for i in ids))
            self.conn.executemany("DELETE FROM fact_bits WHERE rowid = ?", ((i,) for i in ids))
        q(
            "UPDATE facts SET superseded_by = NULL WHERE superseded_by IN "
            "(SELECT value FROM json_each(?)) AND id NOT IN (SELECT value FROM json_each(?))",
            (js, js),
        )
        q(
            "UPDATE events SET other_id = NULL, reason = 'the replacing fact was erased' "
            "WHERE other_id IN (SELECT value FROM json_each(?)) "
            "AND fact_id NOT IN (SELECT value FROM json_each(?))",
            (js, js),
        )
        q("DELETE FROM facts WHERE id IN (SELECT value FROM json_each(?))", (js,))
        for pid in sorted(passages):
            kept = [
                r[0]
                for r in q(
                    "SELECT f.text FROM statements st JOIN facts f ON f.id = st.fact_id "
                    "WHERE st.passage_id = ? ORDER BY st.rowid",
                    (pid,),
                )
            ]
            old = q("SELECT text FROM passages WHERE id = ?", (pid,)).fetchone()
            if old is None:
                continue
            if not kept:
                q("DELETE FROM passages WHERE id = ?", (pid,))
                continue
            # External-content FTS has no update trigger: remove the old row, then re-add.
            new = " ".join(dict.fromkeys(kept))
            q(
                "INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', ?, ?)",
                (pid, old[0]),
            )
            q("UPDATE passages SET text = ? WHERE id = ?", (new, pid))
            q("INSERT INTO passages_fts(rowid, text) VALUES (?, ?)", (pid, new))
        if entity_ids:
            q(
                "DELETE FROM entities WHERE id IN (SELECT value FROM json_each(?)) "
                "AND id NOT IN (SELECT entity_id FROM fact_entities)",
                (_json_ids(entity_ids),),
            )
        if project is not None:
            q("DELETE FROM inbox WHERE project = ?", (project,))
        if session is not None:
            q("DELETE FROM inbox WHERE session = ?", (session,))
        for text in texts.values():
            # Captured exchanges may still quote an erased sentence: cut it out.
            q(
                "UPDATE inbox SET prompt = replace(prompt, ?1, ''), "
                "response = replace(response, ?1, '') "
                "WHERE instr(prompt, ?1) > 0 OR instr(response, ?1) > 0",
                (text,),
            )
        return len(texts)

    def compact_text_indexes(self) -> None:
        """Merge the FTS5 segments so that deleted entries leave the index b-trees (FTS5
        otherwise keeps a deleted row's tokens until a merge); with ``secure_delete`` the
        freed segment pages are zeroed. Call inside a transaction."""
        for table in ("facts_fts", "passages_fts"):
            self.conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")

    def checkpoint(self) -> tuple[int, int, int]:
        """Copy the WAL into the file and truncate it; return (busy, wal pages, copied)."""
        busy, log, copied = self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return busy, log, copied


    # Tables whose rows are not memory content: bookkeeping, settings of this file (the
    # embedding model travels in the export header), and the capture queue (pending
    # exchanges belong to the file that captured them).
    TRANSFER_SKIP = frozenset({"_migrations", "meta", "inbox", "fact_vecs"})  # vectors: apart

    def transfer_tables(self) -> list[tuple[str, list[str]]]:
        """Ordinary tables holding memory content, parents before children (by foreign
        keys), each with its columns: what an export carries besides vectors."""
        listed = list(
            self.conn.execute("SELECT name, type FROM pragma_table_list WHERE schema = 'main'")
        )
        # Shadow tables of virtual tables (vec0 does not mark all of its own as 'shadow').
        virtual = tuple(f"{name}_" for name, kind in listed if kind == "virtual")
        tables = {
            name: [
                c[1] for c in self.conn.execute(f"PRAGMA table_xinfo('{name}')") if c[6] == 0
            ]
            for name, kind in listed
            if kind == "table"
            and not name.startswith(("sqlite_", *virtual))
            and name not in self.TRANSFER_SKIP
        }
        parents = {
            name: {r[2] for r in self.conn.execute(f"PRAGMA foreign_key_list('{name}')")}
            & set(tables)
            for name in tables
        }
        order: list[str] = []
        while len(order) < len(tables):
            ready = sorted(t for t in tables if t not in order and parents[t] <= {*order, t})
            order += ready or sorted(t for t in tables if t not in order)  # a cycle: any order
        return [(t, tables[t]) for t in order]

    def rows_of(self, table: str, columns: Sequence[str]) -> Iterable[tuple]:
        """Every row of ``table`` in rowid (or primary key) order."""
        cols = ", ".join(f'"{c}"' for c in columns)
        without_rowid = self.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = ? AND sql LIKE '%WITHOUT ROWID%'", (table,)
        ).fetchone()
        order = "" if without_rowid else " ORDER BY rowid"
        return self.conn.execute(f'SELECT {cols} FROM "{table}"{order}')

    def vectors(self) -> Iterable[tuple[int, str | None, bytes]]:
        """(fact id, project, float32 blob) of every stored vector, by fact id."""
        if self.vec_dim is None:
            return iter(())
        return self.conn.execute(
            "SELECT v.rowid, f.project, v.embedding FROM fact_vecs v "
            "JOIN facts f ON f.id = v.rowid ORDER BY v.rowid"
        )

    def insert_rows(
        self, table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]
    ) -> None:
        """Insert rows as they are (ids included); call inside a transaction."""
        cols = ", ".join(f'"{c}"' for c in columns)
        self.conn.executemany(
            f'INSERT INTO "{table}"({cols}) VALUES ({_marks(len(columns))})', rows
        )

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction: every read inside sees the same committed state."""
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    def max_fact_id(self) -> int:
        """The highest fact id: the number of facts ever written, read off the primary key."""
        return self.conn.execute("SELECT coalesce(max(id), 0) FROM facts").fetchone()[0]

    def is_empty(self) -> bool:
        return self.conn.execute("SELECT NOT EXISTS (SELECT 1 FROM facts)").fetchone()[0] == 1

    def applied_migrations(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM _migrations ORDER BY rowid")]

    def defer_foreign_keys(self) -> None:
        """Check foreign keys at COMMIT instead of per row (bulk loads in any table order)."""
        self.conn.execute("PRAGMA defer_foreign_keys = ON")


_SUFFIXES = ("ing", "ed", "es", "s", "e", "ly", "er", "ation", "al", "ness")


def _stem_forms(word: str) -> list[str]:
    """The word and the forms a Porter stemmer may have indexed it under."""
    out = [word]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            out.append(word[: -len(suffix)])
    if word.endswith("y") and len(word) > 3:
        out.append(word[:-1] + "i")
    return out


def _json_ids(ids: Sequence[int]) -> str:
    return "[" + ",".join(str(int(i)) for i in ids) + "]"
