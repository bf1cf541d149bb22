"""Migrations after 0001: memories, provenance, injections, the job queue and the full-text index.

Full-text rows are kept in step with their base rows by triggers, so every insert, update and delete
changes both in the same transaction. The FTS5 tables are contentless (the text lives only in the
base table) and use ``secure-delete`` so deleted words leave the index.
"""

from __future__ import annotations

import apsw

from engram.memory import db

KINDS = ("fact", "preference", "profile", "lesson", "summary", "plan")
STATUSES = ("active", "superseded", "archived")
ORIGINS = ("local", "cloud", "user")


@db.migration("0002_memories")
def _m0002(conn: apsw.Connection) -> None:
    kinds = ", ".join(f"'{k}'" for k in KINDS)
    statuses = ", ".join(f"'{s}'" for s in STATUSES)
    origins = ", ".join(f"'{o}'" for o in ORIGINS)
    conn.execute(
        f"""
        CREATE TABLE memories (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ({kinds})),
            content TEXT NOT NULL CHECK (length(content) > 0),
            importance REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
            confidence REAL NOT NULL DEFAULT 0.8 CHECK (confidence BETWEEN 0 AND 1),
            pinned INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ({statuses})),
            superseded_by INTEGER REFERENCES memories(id) ON DELETE SET NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_used_at REAL,
            use_count INTEGER NOT NULL DEFAULT 0,
            feedback INTEGER NOT NULL DEFAULT 0,
            origin TEXT NOT NULL CHECK (origin IN ({origins})),
            conversation_id INTEGER REFERENCES conversations(id) ON DELETE SET NULL,
            meta TEXT NOT NULL DEFAULT '{{}}'
        );
        CREATE INDEX memories_status_kind ON memories(status, kind);
        CREATE INDEX memories_conversation ON memories(conversation_id);
        CREATE TABLE memory_sources (
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            episode_id INTEGER,
            conversation_id INTEGER,
            turn_index INTEGER,
            source_deleted INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX memory_sources_memory ON memory_sources(memory_id);
        CREATE INDEX memory_sources_episode ON memory_sources(episode_id);
        CREATE TRIGGER episodes_keep_provenance AFTER DELETE ON episodes BEGIN
            UPDATE memory_sources SET episode_id = NULL, source_deleted = 1
            WHERE episode_id = old.id;
        END;
        CREATE TABLE injections (
            answer_episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            rank INTEGER NOT NULL,
            score REAL NOT NULL,
            PRIMARY KEY (answer_episode_id, memory_id)
        );
        CREATE INDEX injections_memory ON injections(memory_id);
        CREATE TABLE consolidation_jobs (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            first_episode_id INTEGER NOT NULL,
            last_episode_id INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'queued'
                CHECK (status IN ('queued', 'running', 'done', 'parked')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            next_attempt_at REAL NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX consolidation_jobs_due ON consolidation_jobs(status, next_attempt_at);
        INSERT OR IGNORE INTO meta(key, value) VALUES ('vector_version', '0');
        """
    )


@db.migration("0003_fulltext")
def _m0003(conn: apsw.Connection) -> None:
    for table in ("memories", "episodes"):
        conn.execute(
            f"""
            CREATE VIRTUAL TABLE {table}_fts USING fts5(
                body, content='', contentless_delete=1,
                tokenize='porter unicode61 remove_diacritics 2'
            );
            INSERT INTO {table}_fts({table}_fts, rank) VALUES ('secure-delete', 1);
            INSERT INTO {table}_fts(rowid, body) SELECT id, engram_fts(content) FROM {table};
            CREATE TRIGGER {table}_fts_insert AFTER INSERT ON {table} BEGIN
                INSERT INTO {table}_fts(rowid, body) VALUES (new.id, engram_fts(new.content));
            END;
            CREATE TRIGGER {table}_fts_update AFTER UPDATE OF content ON {table} BEGIN
                DELETE FROM {table}_fts WHERE rowid = old.id;
                INSERT INTO {table}_fts(rowid, body) VALUES (new.id, engram_fts(new.content));
            END;
            CREATE TRIGGER {table}_fts_delete AFTER DELETE ON {table} BEGIN
                DELETE FROM {table}_fts WHERE rowid = old.id;
            END;
            """
        )


@db.migration("0004_memory_browse_indexes")
def _m0004(conn: apsw.Connection) -> None:
    """Browsing memories by status (and kind) newest first reads an index instead of sorting."""
    conn.execute(
        """
        CREATE INDEX memories_browse_kind
            ON memories(status, kind, pinned DESC, updated_at DESC, id DESC);
        CREATE INDEX memories_browse
            ON memories(status, pinned DESC, updated_at DESC, id DESC);
        """
    )
