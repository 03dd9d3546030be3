"""Full-text search: BM25 over facts and passages (FTS5), and word rarity from the index's
vocabulary."""

from __future__ import annotations

import json
from collections.abc import Sequence

import apsw

from ...hooks.text import index_forms
from ..errors import StoreError
from .base import (
    Base,
    id_list,
    text_list,
)
from .filters import Scope, where


class Search(Base):
    """FTS5 over ``facts_fts`` and ``passages_fts``."""

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
            forms = {w: index_forms(w) for w in missing}
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
        sql = (
            "SELECT term, doc FROM temp.facts_vocab "
            "WHERE term IN (SELECT value FROM json_each(?))"
        )
        for attempt in (0, 1):
            if not self._vocab_ready:
                self.conn.execute(
                    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.facts_vocab "
                    "USING fts5vocab(main, facts_fts, 'row')"
                )
                self._vocab_ready = True
            try:
                return self.conn.execute(sql, (text_list(terms),)).fetchall()
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
                        (id_list([t[0] for t in top]), project),
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

    def match_count(self, match: str) -> int:
        """How many facts an FTS5 MATCH expression finds; 0 when FTS5 cannot take it."""
        try:
            return self.conn.execute(
                "SELECT count(*) FROM facts_fts WHERE facts_fts MATCH ?", (match,)
            ).fetchone()[0]
        except apsw.Error:
            return 0

    def fts_passage_leads(
        self, match: str, scope: Scope, limit: int
    ) -> list[tuple[str, str]]:
        """(statement source, lead) of up to ``limit`` passages of the scope's project that
        match ``match`` and open with a lead (``Store.passage_leads``); [] when FTS5 cannot
        take the expression."""
        project = scope.partition
        try:
            rows = self.conn.execute(
                "SELECT pa.id, pa.text FROM passages_fts JOIN passages pa "
                "ON pa.id = passages_fts.rowid WHERE passages_fts MATCH ? "
                "AND pa.project IS ? AND instr(pa.text, char(10)) > 0 LIMIT ?",
                (match, project, limit),
            ).fetchall()
        except apsw.Error:
            return []
        if not rows:
            return []
        lead = {pid: text.split("\n", 1)[0] for pid, text in rows}
        return [
            (source, lead[pid]) for pid, source in self.conn.execute(
                "SELECT DISTINCT passage_id, source FROM statements "
                "WHERE passage_id IN (SELECT value FROM json_each(?))",
                (id_list(list(lead)),),
            ) if source
        ]

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
