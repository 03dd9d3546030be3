"""Transfer: the tables an export carries, read in order, and the bulk insert of an import
(``memory/write/transfer.py`` holds the file format)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .base import (
    Base,
    marks,
)


class Transfer(Base):
    """Whole-table reads and bulk inserts for export and import."""

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
            f'INSERT INTO "{table}"({cols}) VALUES ({marks(len(columns))})', rows
        )

    def defer_foreign_keys(self) -> None:
        """Check foreign keys at COMMIT instead of per row (bulk loads in any table order)."""
        self.conn.execute("PRAGMA defer_foreign_keys = ON")

    def applied_migrations(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM _migrations ORDER BY rowid")]
