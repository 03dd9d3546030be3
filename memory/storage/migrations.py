"""Numbered schema migrations: ``mNNN_what`` functions applied in order, each in its own
transaction together with its bookkeeping row in ``_migrations``.

The data model (see DESIGN.md): ``facts`` are sentence-sized statements with provenance and
both time axes; ``statements`` keep every time a fact was said (re-statements add a row, not
a copy); ``entities`` bridge facts through ``fact_entities``; ``events`` is the append-only
history (assert, restate, supersede, retract, revive); ``inbox`` holds exchanges the hooks
captured and the server has not yet ingested. The vector table is created by the store once
the embedding dimension is known (``fact_vecs``), because it depends on the model.
"""

from __future__ import annotations

from collections.abc import Callable

import apsw

from ..errors import MigrationError
from ..timeutil import to_iso, utc_now


def m001_initial(conn: apsw.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            hash TEXT NOT NULL UNIQUE,      -- sha256 of project + normalised text: exact duplicates
            kind TEXT NOT NULL,             -- decision, preference, constraint, cause, event, ...
            project TEXT,                   -- scope key (absolute project dir); NULL = unscoped
            session TEXT,                   -- first session that stated it
            role TEXT,                      -- user, assistant, tool, agent
            source TEXT,                    -- opaque caller reference (turn id, file, commit)
            harness TEXT,                   -- claude-code, codex, opencode, cli, ...
            turn TEXT,
            stated_at TEXT NOT NULL,        -- when the statement was made (the caller's `when`)
            recorded_at TEXT NOT NULL,      -- transaction time: when this file learned it
            valid_from TEXT,                -- valid time: when it became true in the world
            valid_to TEXT,
            status TEXT NOT NULL DEFAULT 'current',  -- current, superseded, retracted
            superseded_by INTEGER,
            retired_at TEXT                 -- transaction time it stopped being current
        );
        CREATE INDEX facts_session ON facts(session, id);  -- id order is write order
        CREATE INDEX facts_project ON facts(project, status);

        -- The text a fact was said in (one remember() text, or a ~1,200-character window of
        -- a long one): ranking a sentence by its passage too keeps the words of the whole
        -- turn ("Caroline: ..." then three sentences) together.
        CREATE TABLE passages (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            project TEXT,
            session TEXT,
            recorded_at TEXT NOT NULL
        );

        CREATE TABLE statements (
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            passage_id INTEGER REFERENCES passages(id) ON DELETE SET NULL,
            project TEXT, session TEXT, role TEXT, source TEXT, harness TEXT, turn TEXT,
            stated_at TEXT NOT NULL,
            recorded_at TEXT NOT NULL
        );
        CREATE INDEX statements_fact ON statements(fact_id);
        CREATE INDEX statements_session ON statements(session);
        CREATE INDEX statements_passage ON statements(passage_id);

        CREATE TABLE entities (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,      -- canonical key, lowercased
            display TEXT NOT NULL,
            type TEXT NOT NULL
        );
        CREATE TABLE fact_entities (
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            PRIMARY KEY (entity_id, fact_id)
        ) WITHOUT ROWID;
        CREATE INDEX fact_entities_fact ON fact_entities(fact_id);

        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            action TEXT NOT NULL,           -- assert, restate, supersede, retract, revive
            other_id INTEGER,               -- for supersede: the fact that replaced this one
            reason TEXT,
            session TEXT,
            role TEXT,
            at TEXT NOT NULL                -- transaction time of the event
        );
        CREATE INDEX events_fact ON events(fact_id, at);

        CREATE TABLE inbox (
            id INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            turn TEXT NOT NULL,
            project TEXT,
            harness TEXT,
            prompt TEXT,
            response TEXT,
            created_at TEXT NOT NULL,       -- clock of the hook (REASONGRAPH_NOW in replays)
            state TEXT NOT NULL DEFAULT 'pending',  -- pending, done, failed
            claimed_by TEXT,
            claimed_at TEXT,
            done_at TEXT,
            error TEXT,
            UNIQUE (session, turn)
        );
        CREATE INDEX inbox_state ON inbox(state, id);

        -- External-content FTS5: the index refers to facts.text instead of copying it, and
        -- stays readable by older SQLite builds (the hooks' read-only fallback).
        CREATE VIRTUAL TABLE facts_fts USING fts5(
            text, content='facts', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
            INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
            INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE VIRTUAL TABLE passages_fts USING fts5(
            text, content='passages', content_rowid='id',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER passages_fts_insert AFTER INSERT ON passages BEGIN
            INSERT INTO passages_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
            INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        """
    )


def m002_causal(conn: apsw.Connection) -> None:
    """Causal memory: what each fact asserts (cause span -> effect span) and the fact -> fact
    links the walks follow. Both reference facts ON DELETE CASCADE, so erasing a fact erases
    its spans (their text) and every link through it."""
    conn.execute(
        """
        CREATE TABLE causal_assertions (
            id INTEGER PRIMARY KEY,
            fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            cause TEXT NOT NULL,            -- cause span, cut from the fact's text
            effect TEXT NOT NULL,           -- effect span
            cue TEXT NOT NULL,              -- the word(s) that signalled it: "because", "led to"
            confidence REAL NOT NULL,       -- the extractor's confidence in the direction
            backref TEXT,                   -- 'cause'/'effect': that side is the previous sentence
            cause_vec BLOB,                 -- float32 span embeddings (NULL without a model)
            effect_vec BLOB
        );
        CREATE INDEX causal_assertions_fact ON causal_assertions(fact_id);

        -- The graph the walks use: one row per (cause fact, effect fact). `via` says how the
        -- link was made: 'join' (an effect span of one fact names the cause span of the
        -- other), 'assert' (a plain fact is the event another fact asserts as cause or
        -- effect), 'backref' ("This broke checkout" -> the previous sentence of the session).
        CREATE TABLE causal_links (
            cause_fact INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            effect_fact INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
            via TEXT NOT NULL,
            score REAL NOT NULL,            -- link confidence 0..1 (similarity x cue confidence)
            assertion_id INTEGER REFERENCES causal_assertions(id) ON DELETE CASCADE,
            cue TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (cause_fact, effect_fact)
        ) WITHOUT ROWID;
        CREATE INDEX causal_links_effect ON causal_links(effect_fact, score);
        """
    )


MIGRATIONS: tuple[Callable[[apsw.Connection], None], ...] = (m001_initial, m002_causal)


def applied(conn: apsw.Connection) -> list[str]:
    """Names of the migrations already applied to ``conn``, in order."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    return [row[0] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def applied_count(conn: apsw.Connection) -> int:
    """How many migrations the file records (read-only: 0 for a file without them)."""
    if not conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'"
    ).fetchone():
        return 0
    return conn.execute("SELECT count(*) FROM _migrations").fetchall()[0][0]


def unknown_migrations(conn: apsw.Connection) -> list[str]:
    """Migrations the file records that this build does not know: a newer schema (read-only:
    a file without the bookkeeping table has none)."""
    known = {step.__name__ for step in MIGRATIONS}
    if not conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'"
    ).fetchone():
        return []
    return [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY rowid")
            if r[0] not in known]


def newer_schema_message(path: object, conn: apsw.Connection) -> str:
    """The one line that says which schema a newer file needs."""
    names = unknown_migrations(conn)
    needed = applied_count(conn)
    return (
        f"the memory file {path} has schema version {needed} (migration {names[0]}), newer "
        f"than this build's {len(MIGRATIONS)}: upgrade reasongraph-mcp to a release with schema "
        f"{needed} to write it; reads still work"
    )


def migrate(conn: apsw.Connection) -> int:
    """Apply every pending migration; return the schema version (number applied). Raises
    MigrationError for a file of a newer schema (migrations this build does not know)."""
    done = set(applied(conn))
    if done - {step.__name__ for step in MIGRATIONS}:
        raise MigrationError(newer_schema_message(conn.filename, conn))
    for step in MIGRATIONS:
        if step.__name__ in done:
            continue
        try:
            conn.execute("BEGIN IMMEDIATE")
            # Re-check inside the lock: another process may have migrated meanwhile.
            if conn.execute(
                "SELECT 1 FROM _migrations WHERE name = ?", (step.__name__,)
            ).fetchone():
                conn.execute("COMMIT")
                continue
            step(conn)
            conn.execute(
                "INSERT INTO _migrations(name, applied_at) VALUES (?, ?)",
                (step.__name__, to_iso(utc_now())),
            )
            conn.execute("COMMIT")
        except apsw.Error as exc:
            try:
                conn.execute("ROLLBACK")
            except apsw.Error:
                pass
            raise MigrationError(f"schema migration {step.__name__} failed: {exc}") from None
    return len(MIGRATIONS)
