"""History and erasure: the lifecycle as recorded at a past time, the event log, and the
hard delete behind ``forget``."""

from __future__ import annotations

from collections.abc import Sequence

from .base import (
    Base,
    id_list,
)


class History(Base):
    """The event log read back, and erasure."""

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
            (at, id_list(ids)),
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
        ids = id_list(fact_ids)
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
        js = id_list(ids)
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
                (id_list(entity_ids),),
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
