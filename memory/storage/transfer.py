"""Transfer: the tables an export carries, read in order, and the bulk insert of an import
(``memory/write/transfer.py`` holds the file format)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .base import (
    Base,
    marks,
)


@dataclass(frozen=True)
class Column:
    """One column as the schema declares it: what an imported cell must be."""

    name: str
    affinity: str  # "INTEGER", "REAL", "TEXT", "BLOB" or "" (any)
    not_null: bool
    has_default: bool
    rowid_key: bool  # INTEGER PRIMARY KEY: the rowid, 1 .. 2**63-1


@dataclass(frozen=True)
class TableShape:
    """A content table's columns, unique keys and references, read from the schema."""

    columns: dict[str, Column]
    uniques: list[tuple[str, ...]] = field(default_factory=list)  # primary key first
    refs: list[tuple[str, str, str]] = field(default_factory=list)  # (column, table, column)


def _affinity(declared: str) -> str:
    """SQLite's affinity rules (https://sqlite.org/datatype3.html, 3.1), by declared type."""
    t = declared.upper()
    if "INT" in t:
        return "INTEGER"
    if any(w in t for w in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in t or not t:
        return "BLOB" if "BLOB" in t else ""
    if any(w in t for w in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return ""


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

    def table_shapes(self, tables: Iterable[str]) -> dict[str, TableShape]:
        """What the schema says of each of ``tables``: types, NOT NULL, defaults, primary
        and unique keys, foreign keys (an import checks every row against these)."""
        shapes: dict[str, TableShape] = {}
        for name in tables:
            info = list(self.conn.execute(f"PRAGMA table_xinfo('{name}')"))
            pk = [c[1] for c in sorted(info, key=lambda c: c[5]) if c[5] > 0]
            columns = {
                c[1]: Column(
                    name=c[1], affinity=_affinity(c[2] or ""), not_null=bool(c[3]),
                    has_default=c[4] is not None,
                    rowid_key=pk == [c[1]] and (c[2] or "").upper() == "INTEGER",
                )
                for c in info if c[6] == 0
            }
            uniques = [tuple(pk)] if pk else []
            for index in self.conn.execute(f"PRAGMA index_list('{name}')"):
                if index[2] and index[3] != "pk":  # unique, not the primary key itself
                    cols = tuple(
                        r[2] for r in self.conn.execute(f"PRAGMA index_info('{index[1]}')")
                    )
                    if None not in cols and cols not in uniques:
                        uniques.append(cols)
            refs = [
                (r[3], r[2], r[4] or "id")
                for r in self.conn.execute(f"PRAGMA foreign_key_list('{name}')")
            ]
            shapes[name] = TableShape(columns=columns, uniques=uniques, refs=refs)
        return shapes

    def first_filled(self, tables: Iterable[str]) -> str | None:
        """The first of ``tables`` that holds a row, or None when all are empty."""
        for name in tables:
            if self.conn.execute(f'SELECT 1 FROM "{name}" LIMIT 1').fetchone():
                return name
        return None

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
