"""Export and import of a whole memory as one JSON Lines file.

The file is a header line, then one line per row of every content table (``facts``,
``passages``, ``statements``, ``events``, ``entities``, ``fact_entities``, the causal
tables, and any table a later migration adds), parents before children, ids included,
then one line per stored vector:

    {"format": "reasongraph-export", "version": 1, "embed_model": ..., "embed_dim": ..., ...}
    {"table": "facts", "row": {"id": 1, "text": "...", ...}}
    {"vector": 1, "f32": "<base64 of little-endian float32>"}

Rows are copied as they are, so an import into an empty memory reproduces the same ids,
history and entity bridges, and the FTS5 indexes are rebuilt by the insert triggers: recall
then returns the same hits in the same order. Vectors are reused when the importing memory
uses the model named in the header (or no model yet); otherwise every fact is re-embedded.
Tables are found by introspection (``Store.transfer_tables``) rather than listed here, so a
new migration's tables travel without touching this module. Blob cells are written as
``{"$b64": "..."}``. Derived or local state is left out: FTS and vec0 shadow tables, the
``meta`` settings, ``_migrations`` and the capture ``inbox``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
from pathlib import Path
from typing import IO, TYPE_CHECKING

from .. import progress
from ..errors import InvalidInput
from ..extract.kinds import KINDS
from ..storage import connection as db
from ..storage.transfer import Column, TableShape
from ..timeutil import parse_when, to_iso, utc_now
from . import ingest

if TYPE_CHECKING:
    from ..ml.embed import Embedder
    from ..storage.store import Store

FORMAT = "reasongraph-export"
VERSION = 1
_BATCH = 1000


def export(store: Store, path: Path) -> int:
    """Write the whole memory to ``path`` (created owner-only, replaced atomically);
    return the number of facts written."""
    path = Path(path).expanduser()
    tmp = path.with_name(path.name + ".tmp")
    facts = 0
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out, store.snapshot():
            tables = store.transfer_tables()
            header = {
                "format": FORMAT,
                "version": VERSION,
                "exported_at": to_iso(utc_now()),
                "migrations": store.applied_migrations(),
                "tables": {name: cols for name, cols in tables},
                "embed_model": store.meta("embed_model") if store.vec_dim else None,
                "embed_dim": store.vec_dim,
            }
            _line(out, header)
            for name, cols in tables:
                for values in store.rows_of(name, cols):
                    row = dict(zip(cols, map(_encode, values), strict=True))
                    _line(out, {"table": name, "row": row})
                    facts += name == "facts"
            for fid, _project, blob in store.vectors():
                _line(out, {"vector": fid, "f32": base64.b64encode(blob).decode("ascii")})
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return facts


# Values a column may hold beyond its type (the writers' vocabularies).
ENUMS: dict[tuple[str, str], frozenset[str | None]] = {
    ("facts", "status"): frozenset({"current", "superseded", "retracted"}),
    ("facts", "kind"): frozenset(KINDS),
    ("events", "action"): frozenset({"assert", "restate", "supersede", "retract", "revive"}),
    ("causal_links", "via"): frozenset({"join", "assert", "backref", "story"}),
    ("causal_assertions", "backref"): frozenset({"cause", "effect", None}),
}
# Integer columns that name a fact without a declared foreign key.
SOFT_REFS: dict[tuple[str, str], tuple[str, str]] = {
    ("facts", "superseded_by"): ("facts", "id"),
    ("events", "other_id"): ("facts", "id"),
}
_TIME_COLUMNS = ("_at", "valid_from", "valid_to")
_UNIT_COLUMNS = {("causal_links", "score"), ("causal_assertions", "confidence")}


def import_(store: Store, embedder: Embedder | None, path: Path) -> int:
    """Load an export into this memory, which must hold no facts yet; return the number of
    facts imported. Every line is checked first (JSON, tables, columns, types, enums,
    ranges, keys, references, vector lengths), then written in one transaction: a bad
    file writes nothing.

    Raises:
        InvalidInput: the memory is not empty, or the file is not a valid export (the
            message names the first bad line).
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise InvalidInput(f"no export file at {path}")
    if not store.is_empty():
        raise InvalidInput("import needs an empty memory: this file already holds facts")
    tables = store.transfer_tables()
    filled = store.first_filled(name for name, _ in tables)
    if filled is not None:
        raise InvalidInput(f"import needs an empty memory: this file already holds {filled} rows")
    check = _Checker(path, store.table_shapes(name for name, _ in tables))
    try:
        header = check.run()
    except RecursionError:
        raise InvalidInput(f"{path}: a line is nested too deeply to be an export") from None
    model, dim = header.get("embed_model"), header.get("embed_dim")
    reuse = bool(model and dim) and (
        embedder is None or (embedder.name == model and embedder.dim == dim)
    )
    if reuse:
        store.ensure_vectors(str(model), int(dim))  # type: ignore[call-overload]
    # Checked above; what the checks cannot see (a full disk, a lock) is a StoreError from
    # the transaction, which rolls the whole import back.
    facts = _write(store, path, reuse)
    if reuse:
        store.rebuild_span_index()  # spans came in as rows, with their vectors
    if embedder is not None:
        # Another model (or an export without vectors): embed every fact with this one.
        store.ensure_vectors(embedder.name, embedder.dim)
        ingest.backfill(store, embedder)
    return facts


def _write(store: Store, path: Path, reuse: bool) -> int:
    """Insert the checked file's rows (and vectors when ``reuse``) in one transaction."""
    facts = 0
    projects: dict[int, str | None] = {}
    with path.open(encoding="utf-8") as src, db.transaction(store.conn):
        src.readline()
        store.defer_foreign_keys()
        batch: list[tuple[object, ...]] = []
        batch_key: tuple[str, tuple[str, ...]] | None = None
        vectors: list[tuple[int, str | None, bytes]] = []
        for n, raw in enumerate(src, start=2):
            if not raw.strip():
                continue
            if n % _BATCH == 0:
                progress.report("lines read", n)
            rec = json.loads(raw)
            if "vector" in rec:
                if reuse:
                    fid = rec["vector"]
                    vectors.append((fid, projects.get(fid), base64.b64decode(rec["f32"])))
                    if len(vectors) >= _BATCH:
                        store.put_vectors(vectors)
                        vectors = []
                continue
            table, row = rec["table"], rec["row"]
            key = (table, tuple(row))
            if key != batch_key or len(batch) >= _BATCH:
                if batch_key is not None and batch:
                    store.insert_rows(batch_key[0], batch_key[1], batch)
                batch, batch_key = [], key
            batch.append(tuple(_decode(v) for v in row.values()))
            if table == "facts":
                facts += 1
                projects[row["id"]] = row.get("project")
        if batch_key is not None and batch:
            store.insert_rows(batch_key[0], batch_key[1], batch)
        if vectors:
            store.put_vectors(vectors)
    return facts


class _Checker:
    """One pass over an export that raises InvalidInput at the first bad line."""

    def __init__(self, path: Path, shapes: dict[str, TableShape]) -> None:
        self.path = path
        self.shapes = shapes
        self.keys: dict[tuple[str, tuple[str, ...]], set[tuple[object, ...]]] = {}
        self.refs: list[tuple[int, str, str, object, str, str]] = []
        self.vectors: list[tuple[int, int]] = []  # (line, fact id)

    def fail(self, n: int, what: str) -> InvalidInput:
        return InvalidInput(f"line {n} of {self.path}: {what}; nothing was imported")

    def run(self) -> dict[str, object]:
        with self.path.open(encoding="utf-8") as src:
            try:
                first = src.readline()
            except UnicodeDecodeError:
                raise InvalidInput(f"{self.path} is not UTF-8 text, not an export") from None
            header = _read(first, 1) if first.strip() else {}
            self.header(header)
            dim = header.get("embed_dim")
            n = 1
            try:
                for n, raw in enumerate(src, start=2):
                    if raw.strip():
                        self.record(n, _read(raw, n), dim)
            except UnicodeDecodeError:
                raise self.fail(n + 1, "the text is not UTF-8") from None
        self.references()
        return header

    def header(self, header: dict[str, object]) -> None:
        if header.get("format") != FORMAT:
            raise InvalidInput(f"{self.path} is not a reasongraph export (no header line)")
        version = header.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise InvalidInput(
                f"line 1 of {self.path}: the format version must be a whole number from 1, "
                f"not {version!r}"
            )
        if version > VERSION:
            raise InvalidInput(
                f"{self.path} was written by a newer version (format {version}; this build "
                f"reads {VERSION}): upgrade reasongraph-mcp"
            )
        model, dim = header.get("embed_model"), header.get("embed_dim")
        if model is not None and not isinstance(model, str):
            raise InvalidInput(f"line 1 of {self.path}: embed_model must be text or null")
        if dim is not None and (
            isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= 65536
        ):
            raise InvalidInput(
                f"line 1 of {self.path}: embed_dim must be a whole number from 1 to 65536"
            )

    def record(self, n: int, rec: dict[str, object], dim: object) -> None:
        if "vector" in rec:
            fid, f32 = rec["vector"], rec.get("f32")
            if isinstance(fid, bool) or not isinstance(fid, int) or not 1 <= fid <= db.MAX_ROWID:
                raise self.fail(n, f"vector {fid!r} is not a fact id")
            if not isinstance(dim, int):
                raise self.fail(n, "a vector, but the header names no embed_dim")
            blob = _b64(f32)
            if blob is None:
                raise self.fail(n, "the vector's f32 is not base64 text")
            if len(blob) != 4 * dim:
                raise self.fail(
                    n, f"the vector of fact {fid} has {len(blob)} bytes, not {4 * dim} "
                    f"({dim} float32)"
                )
            self.vectors.append((n, fid))
            return
        table, row = rec.get("table"), rec.get("row")
        if not isinstance(table, str) or table not in self.shapes:
            raise self.fail(
                n, f"table {table!r} is not part of this memory's schema (written by a "
                "newer version?)"
            )
        if not isinstance(row, dict):
            raise self.fail(n, f"the {table} row is not a JSON object")
        shape = self.shapes[table]
        unknown = set(row) - set(shape.columns)
        if unknown:
            raise self.fail(n, f"{table} has no column {sorted(unknown)[0]!r} here")
        for col in shape.columns.values():
            if col.name not in row:
                if (col.not_null and not col.has_default) or col.rowid_key:
                    raise self.fail(n, f"the {table} row has no {col.name}")
                continue
            self.cell(n, table, col, row[col.name])
        for cols in shape.uniques:
            if not all(c in row for c in cols):
                continue
            value = tuple(row[c] for c in cols)
            if None in value:
                continue
            seen = self.keys.setdefault((table, cols), set())
            if value in seen:
                shown = ", ".join(f"{c}={v!r}" for c, v in zip(cols, value, strict=True))
                raise self.fail(n, f"a second {table} row with {shown}")
            seen.add(value)
        refs = [*shape.refs, *(
            (c, *target) for (t, c), target in SOFT_REFS.items() if t == table
        )]
        for col_name, parent, parent_col in refs:
            value = row.get(col_name)
            if value is not None:
                self.refs.append((n, table, col_name, value, parent, parent_col))

    def cell(self, n: int, table: str, col: Column, value: object) -> None:
        where = f"{table}.{col.name}"
        if value is None:
            if col.not_null:
                raise self.fail(n, f"{where} may not be null")
            return
        if isinstance(value, dict):
            blob = _b64(value.get("$b64")) if set(value) == {"$b64"} else None
            if blob is None:
                raise self.fail(n, f"{where} holds a JSON object; expected a plain value")
            if col.affinity not in ("BLOB", ""):
                raise self.fail(n, f"{where} holds bytes; expected {col.affinity.lower()}")
            return
        if isinstance(value, list):
            raise self.fail(n, f"{where} holds a JSON list; expected a plain value")
        kind = col.affinity
        if kind == "INTEGER":
            if isinstance(value, bool) or not isinstance(value, int):
                raise self.fail(n, f"{where} must be a whole number, not {value!r:.40}")
            low = 1 if col.rowid_key or (table, col.name) in SOFT_REFS else -(2**63)
            if not low <= value <= db.MAX_ROWID:
                raise self.fail(n, f"{where} is out of range: {value}")
        elif kind == "REAL":
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
                value
            ):
                raise self.fail(n, f"{where} must be a number, not {value!r:.40}")
            if (table, col.name) in _UNIT_COLUMNS and not 0 <= value <= 1:
                raise self.fail(n, f"{where} must be from 0 to 1, not {value}")
        elif kind == "TEXT":
            if not isinstance(value, str):
                raise self.fail(n, f"{where} must be text, not {value!r:.40}")
            if col.name == "at" or col.name.endswith(_TIME_COLUMNS):
                try:
                    parse_when(value)
                except InvalidInput:
                    raise self.fail(n, f"{where} is not a date-time: {value!r:.40}") from None
        elif kind == "BLOB":
            raise self.fail(n, f"{where} must be bytes ({{\"$b64\": ...}}), not {value!r:.40}")
        allowed = ENUMS.get((table, col.name))
        if allowed is not None and value not in allowed:
            names = ", ".join(sorted(v for v in allowed if v is not None))
            raise self.fail(n, f"{where} is {value!r:.40}; it must be one of {names}")

    def references(self) -> None:
        """Every reference names a row of the file (the memory it goes into is empty)."""
        for n, table, col_name, value, parent, parent_col in self.refs:
            if (value,) not in self.keys.get((parent, (parent_col,)), set()):
                raise self.fail(n, f"{table}.{col_name} = {value!r} names no {parent} row")
        facts = self.keys.get(("facts", ("id",)), set())
        seen: set[int] = set()
        for n, fid in self.vectors:
            if (fid,) not in facts:
                raise self.fail(n, f"a vector for fact {fid}, which the file does not hold")
            if fid in seen:
                raise self.fail(n, f"a second vector for fact {fid}")
            seen.add(fid)


def _line(out: IO[str], record: dict[str, object]) -> None:
    out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
    out.write("\n")


def _read(raw: str, n: int) -> dict[str, object]:
    try:
        rec = json.loads(raw)
    except RecursionError:
        raise InvalidInput(f"line {n} of the export is nested too deeply") from None
    except ValueError:
        raise InvalidInput(f"line {n} of the export is not valid JSON") from None
    if not isinstance(rec, dict):
        raise InvalidInput(f"line {n} of the export is not a JSON object")
    return rec


def _encode(value: object) -> object:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$b64": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def _b64(value: object) -> bytes | None:
    """Strict base64 text decoded, or None."""
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _decode(value: object) -> object:
    if isinstance(value, dict) and set(value) == {"$b64"}:
        return base64.b64decode(str(value["$b64"]))
    if isinstance(value, (dict, list)):
        raise InvalidInput("an export cell holds a JSON object or list; expected a plain value")
    return value
