"""The steps that shape the memories: their table, browsing indexes, ids never reused, the
record of every write, the user's saved ones, the situations they apply to, tombstones."""

from __future__ import annotations

import apsw

from engram.memory.migrations.generations import create_vector_tables


def memories(conn: apsw.Connection) -> None:
    """Memories, provenance, injections and the consolidation job queue."""
    conn.execute(
        """
        CREATE TABLE memories (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN (
                'fact', 'preference', 'profile', 'lesson', 'summary', 'plan')),
            content TEXT NOT NULL CHECK (length(content) > 0),
            importance REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
            confidence REAL NOT NULL DEFAULT 0.8 CHECK (confidence BETWEEN 0 AND 1),
            pinned INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'active'
                CHECK (status IN ('active', 'superseded', 'archived')),
            superseded_by INTEGER REFERENCES memories(id) ON DELETE SET NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_used_at REAL,
            use_count INTEGER NOT NULL DEFAULT 0,
            feedback INTEGER NOT NULL DEFAULT 0,
            origin TEXT NOT NULL CHECK (origin IN ('local', 'cloud', 'user')),
            conversation_id INTEGER REFERENCES conversations(id) ON DELETE SET NULL,
            meta TEXT NOT NULL DEFAULT '{}'
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


def memory_browse_indexes(conn: apsw.Connection) -> None:
    """Browsing memories by status (and kind) newest first reads an index instead of sorting."""
    conn.execute(
        """
        CREATE INDEX memories_browse_kind
            ON memories(status, kind, pinned DESC, updated_at DESC, id DESC);
        CREATE INDEX memories_browse
            ON memories(status, pinned DESC, updated_at DESC, id DESC);
        """
    )


def memory_ids_never_reused(conn: apsw.Connection) -> None:
    """The next memory id only grows, so a deleted memory's id never names another one.

    SQLite gives a new row the largest id + 1, which reuses the id of a deleted newest row;
    writers take ``memory_next_id`` instead, and a trigger keeps it past every inserted id.
    """
    conn.execute(
        """
        INSERT OR REPLACE INTO meta(key, value)
            SELECT 'memory_next_id', COALESCE(MAX(id), 0) + 1 FROM memories;
        CREATE TRIGGER memories_next_id AFTER INSERT ON memories BEGIN
            UPDATE meta SET value = MAX(CAST(value AS INTEGER), new.id + 1)
            WHERE key = 'memory_next_id';
        END;
        """
    )


def memory_writes(conn: apsw.Connection) -> None:
    """Every write of a memory and where it came from (``records.Provenance``): who wrote it
    (``via``: the user's own words or action, a tool call the user allowed, an import, the
    distiller and its ``model`` and ``job_id``, hygiene) and what changed. The memories written
    before are recorded once, as ``earlier``, with what their origin says."""
    conn.execute(
        """
        CREATE TABLE memory_writes (
            id INTEGER PRIMARY KEY,
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            at REAL NOT NULL,
            change TEXT NOT NULL,
            via TEXT NOT NULL,
            model TEXT,
            job_id INTEGER,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX memory_writes_memory ON memory_writes(memory_id, at);
        INSERT INTO memory_writes(memory_id, at, change, via, detail)
            SELECT id, created_at, 'created', 'earlier', 'origin ' || origin FROM memories;
        """
    )


def writes_keep_the_earlier_text(conn: apsw.Connection) -> None:
    """A write that changed a memory's text keeps the text it had before (``content_before``),
    so the memory browser can show it and put it back; NULL for every other write, and for
    the writes recorded before this migration (their earlier text was not kept)."""
    conn.execute("ALTER TABLE memory_writes ADD COLUMN content_before TEXT")


def saved_memories_index(conn: apsw.Connection) -> None:
    """The user's own active memories newest first (``MemoryStore.saved``, read every turn)
    from an index of those rows alone, not a walk past 100k distilled ones."""
    conn.execute(
        """
        CREATE INDEX memories_saved ON memories(updated_at DESC, id DESC)
            WHERE origin = 'user' AND status = 'active';
        """
    )


def situations(conn: apsw.Connection) -> None:
    """Each situation a preference or a lesson applies to (``meta.applies_to``, written by the
    distiller) as a row of its own, with a vector of its own: recall takes a lesson's closest
    situation, not only the one vector that embeds its text with all of them. The rows of the
    memories already there are copied; their vectors are embedded by the backfill."""
    conn.execute(
        """
        CREATE TABLE situations (
            id INTEGER PRIMARY KEY,
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            content TEXT NOT NULL
        );
        CREATE INDEX situations_memory ON situations(memory_id);
        INSERT INTO situations(memory_id, content)
            SELECT m.id, trim(s.value)
            FROM memories m,
                 json_each(CASE WHEN json_valid(m.meta) THEN m.meta ELSE '{}' END,
                           '$.applies_to') s
            WHERE s.type = 'text' AND trim(s.value) != ''
            ORDER BY m.id, s.key;
        """
    )
    for (generation,) in conn.execute("SELECT value FROM meta WHERE key = 'vector_generation'"):
        create_vector_tables(conn, int(generation), ("situations",))


def tombstones(conn: apsw.Connection) -> None:
    """What the user deleted, marked wrong or forgot, kept so that learning does not write it
    again from the chats it came from or was given in (``memory.tombstones``): the memory's id
    and kind, a digest of its normalised words (not the words: a deleted memory's text leaves
    the file), its vector with the model that made it, those chats, when, and why."""
    conn.execute(
        """
        CREATE TABLE tombstones (
            id INTEGER PRIMARY KEY,
            memory_id INTEGER NOT NULL,
            kind TEXT NOT NULL,
            digest TEXT NOT NULL,
            model TEXT,
            embedding BLOB,
            conversations TEXT NOT NULL DEFAULT '[]',
            reason TEXT NOT NULL,
            at REAL NOT NULL
        );
        CREATE INDEX tombstones_memory ON tombstones(memory_id);
        CREATE INDEX tombstones_digest ON tombstones(digest);
        """
    )
