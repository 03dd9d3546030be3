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
import json
import os
from pathlib import Path
from typing import IO, TYPE_CHECKING

from .. import progress
from ..errors import InvalidInput
from ..storage import connection as db
from ..timeutil import to_iso, utc_now
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


def import_(store: Store, embedder: Embedder | None, path: Path) -> int:
    """Load an export into this memory, which must hold no facts yet; return the number of
    facts imported. All or nothing: a bad line rolls the whole import back.

    Raises:
        InvalidInput: the memory is not empty, or the file is not a readable export.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise InvalidInput(f"no export file at {path}")
    if not store.is_empty():
        raise InvalidInput("import needs an empty memory: this file already holds facts")
    known = dict(store.transfer_tables())
    with path.open(encoding="utf-8") as src:
        first = src.readline()
        header = _read(first, 1) if first.strip() else {}
        if header.get("format") != FORMAT:
            raise InvalidInput(f"{path} is not a reasongraph export (no header line)")
        if not isinstance(header.get("version"), int) or header["version"] > VERSION:
            raise InvalidInput(
                f"{path} was written by a newer version (format {header.get('version')}): upgrade"
            )
        model, dim = header.get("embed_model"), header.get("embed_dim")
        reuse = bool(model and dim) and (
            embedder is None or (embedder.name == model and embedder.dim == dim)
        )
        if reuse:
            store.ensure_vectors(str(model), int(dim))
        facts = 0
        projects: dict[int, str | None] = {}
        with db.transaction(store.conn):
            store.defer_foreign_keys()
            batch: list[tuple[object, ...]] = []
            batch_key: tuple[str, tuple[str, ...]] | None = None
            vectors: list[tuple[int, str | None, bytes]] = []
            for n, raw in enumerate(src, start=2):
                if not raw.strip():
                    continue
                rec = _read(raw, n)
                if n % _BATCH == 0:
                    progress.report("lines read", n)
                if "vector" in rec:
                    if reuse:
                        fid = int(rec["vector"])
                        vectors.append((fid, projects.get(fid), base64.b64decode(rec["f32"])))
                        if len(vectors) >= _BATCH:
                            store.put_vectors(vectors)
                            vectors = []
                    continue
                table, row = rec.get("table"), rec.get("row")
                if table not in known or not isinstance(row, dict):
                    raise InvalidInput(
                        f"line {n} of {path}: table {table!r} is not part of this memory's "
                        f"schema (written by a newer version?)"
                    )
                unknown = set(row) - set(known[table])
                if unknown:
                    raise InvalidInput(
                        f"line {n} of {path}: {table} has no column {sorted(unknown)[0]!r} here"
                    )
                key = (table, tuple(row))
                if key != batch_key or len(batch) >= _BATCH:
                    if batch_key is not None and batch:
                        store.insert_rows(batch_key[0], batch_key[1], batch)
                    batch, batch_key = [], key
                batch.append(tuple(_decode(v) for v in row.values()))
                if table == "facts":
                    facts += 1
                    projects[int(row["id"])] = row.get("project")
            if batch_key is not None and batch:
                store.insert_rows(batch_key[0], batch_key[1], batch)
            if vectors:
                store.put_vectors(vectors)
    if reuse:
        store.rebuild_span_index()  # spans came in as rows, with their vectors
    if embedder is not None:
        # Another model (or an export without vectors): embed every fact with this one.
        store.ensure_vectors(embedder.name, embedder.dim)
        ingest.backfill(store, embedder)
    return facts


def _line(out: IO[str], record: dict[str, object]) -> None:
    out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
    out.write("\n")


def _read(raw: str, n: int) -> dict[str, object]:
    try:
        rec = json.loads(raw)
    except json.JSONDecodeError:
        raise InvalidInput(f"line {n} of the export is not valid JSON") from None
    if not isinstance(rec, dict):
        raise InvalidInput(f"line {n} of the export is not a JSON object")
    return rec


def _encode(value: object) -> object:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"$b64": base64.b64encode(bytes(value)).decode("ascii")}
    return value


def _decode(value: object) -> object:
    if isinstance(value, dict) and set(value) == {"$b64"}:
        return base64.b64decode(str(value["$b64"]))
    if isinstance(value, (dict, list)):
        raise InvalidInput("an export cell holds a JSON object or list; expected a plain value")
    return value
