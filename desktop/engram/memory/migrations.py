"""Every schema change of the database file, in order, and the vector tables of each generation.

``MIGRATIONS`` is append-only: a migration's name is recorded in the ``migrations`` table when it is
applied, so names are permanent and an applied migration is never edited (its DDL is written out
literally, not built from constants that may change). Each runs in its own transaction. A file
that records a migration this list does not hold was written by a newer Engram and is refused.

Vector tables are per embedding model: ``vectors_<space>_g<generation>`` holds one generation's
vectors for ``memories``, ``episodes`` or ``situations`` (what a memory applies to). Migration
0005 creates the file's current generation (0016 its situations' table);
re-embedding with another model (``memory.reembed``) creates the next one with
``create_vector_tables`` and drops the old one with ``drop_vector_tables``. Both live here, so
this module is the one place that defines the schema.

Full-text rows are kept in step with their base rows by triggers, so every insert, update and
delete changes both in the same transaction. The FTS5 tables are contentless (the text lives
only in the base table) and use ``secure-delete`` so deleted words leave the index.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import apsw

from engram.core import log
from engram.core.errors import StoreError, tr

_log = log.get("memory.migrations")

Migration = tuple[str, Callable[[apsw.Connection], None]]
VECTOR_SPACES = ("memories", "episodes", "situations")
# Bumped by deletes and out-of-order vector writes; search caches revalidate against it.
BUMP_VECTOR_VERSION = (
    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vector_version'"
)


def _conversations_episodes(conn: apsw.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL DEFAULT '',
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE episodes (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            turn_index INTEGER NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
            content TEXT NOT NULL,
            created_at REAL NOT NULL,
            token_count INTEGER,
            status TEXT NOT NULL DEFAULT 'complete'
                CHECK (status IN ('complete', 'cancelled', 'error')),
            model TEXT
        );
        CREATE INDEX episodes_conversation ON episodes(conversation_id, turn_index);
        """
    )


def _memories(conn: apsw.Connection) -> None:
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


def _fulltext(conn: apsw.Connection) -> None:
    """Contentless FTS5 indexes of memories and episodes, kept in step by triggers."""
    for table in ("memories", "episodes"):
        _fulltext_index(conn, table)


def _fulltext_index(conn: apsw.Connection, table: str) -> None:
    """A contentless FTS5 index of ``table``'s content, filled and kept in step by triggers."""
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


def _memory_browse_indexes(conn: apsw.Connection) -> None:
    """Browsing memories by status (and kind) newest first reads an index instead of sorting."""
    conn.execute(
        """
        CREATE INDEX memories_browse_kind
            ON memories(status, kind, pinned DESC, updated_at DESC, id DESC);
        CREATE INDEX memories_browse
            ON memories(status, pinned DESC, updated_at DESC, id DESC);
        """
    )


def _vector_tables(conn: apsw.Connection) -> None:
    """The current generation's vector tables (files from before this migration have them).

    Until now the store created generation 1 when it first opened a file, so a file only ever
    opened by the episode log has none; this makes them part of every file's schema.
    """
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('vector_generation', '1')")
    for (generation,) in conn.execute("SELECT value FROM meta WHERE key = 'vector_generation'"):
        create_vector_tables(conn, int(generation), ("memories", "episodes"))


def _excluded_episodes(conn: apsw.Connection) -> None:
    """Messages said while memory was paused (or in a temporary chat) are never learned from."""
    conn.execute("ALTER TABLE episodes ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0")


def _temporary_conversations(conn: apsw.Connection) -> None:
    """A temporary chat is neither learned from nor recalled elsewhere, and deleted when closed."""
    conn.execute("ALTER TABLE conversations ADD COLUMN temporary INTEGER NOT NULL DEFAULT 0")


def _memory_ids_never_reused(conn: apsw.Connection) -> None:
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


def _tool_episodes(conn: apsw.Connection) -> None:
    """Episodes of role ``tool`` (one call and its result), linked to the answer that made them.

    Widening the role CHECK rewrites only the table's stored SQL, the way SQLite documents for
    CHECK changes (``writable_schema``; no row changes, so no rebuild that would cascade).
    """
    old = "CHECK (role IN ('system', 'user', 'assistant'))"
    (sql,) = next(conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'episodes'"))
    if old not in sql:
        raise StoreError(
            tr("The episodes table of this database has an unexpected schema."),
            tr("Back up the file and report it; Engram will not change it."),
        )
    (version,) = next(conn.execute("PRAGMA schema_version"))
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'episodes'",
        (sql.replace(old, "CHECK (role IN ('system', 'user', 'assistant', 'tool'))"),),
    )
    conn.execute(f"PRAGMA schema_version = {int(version) + 1}")
    conn.execute("PRAGMA writable_schema = OFF")
    conn.execute(
        """
        ALTER TABLE episodes ADD COLUMN answer_id INTEGER REFERENCES episodes(id) ON DELETE CASCADE;
        CREATE INDEX episodes_answer ON episodes(answer_id) WHERE answer_id IS NOT NULL;
        """
    )


def _episode_context(conn: apsw.Connection) -> None:
    """Each message's full-text row also holds the message before it (column ``ctx``).

    Search weighs ``ctx`` less than the message's own words, so an answer is found by the words
    of the question it answers. Triggers keep a message's ``ctx`` in step when the one before it
    is edited or deleted (a deleted message's words leave the index with it).
    """
    previous = (
        "engram_fts(COALESCE((SELECT p.content FROM episodes p"
        " WHERE p.conversation_id = {row}.conversation_id"
        " AND p.turn_index = {row}.turn_index - 1), ''))"
    )
    following = (
        "FROM episodes n WHERE n.conversation_id = {row}.conversation_id"
        " AND n.turn_index = {row}.turn_index + 1"
    )
    conn.execute(
        f"""
        DROP TRIGGER episodes_fts_insert;
        DROP TRIGGER episodes_fts_update;
        DROP TRIGGER episodes_fts_delete;
        DROP TABLE episodes_fts;
        CREATE VIRTUAL TABLE episodes_fts USING fts5(
            body, ctx, content='', contentless_delete=1,
            tokenize='porter unicode61 remove_diacritics 2'
        );
        INSERT INTO episodes_fts(episodes_fts, rank) VALUES ('secure-delete', 1);
        INSERT INTO episodes_fts(rowid, body, ctx)
            SELECT e.id, engram_fts(e.content), {previous.format(row="e")} FROM episodes e;
        CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes BEGIN
            INSERT INTO episodes_fts(rowid, body, ctx)
                VALUES (new.id, engram_fts(new.content), {previous.format(row="new")});
        END;
        CREATE TRIGGER episodes_fts_update AFTER UPDATE OF content ON episodes BEGIN
            DELETE FROM episodes_fts WHERE rowid = old.id;
            INSERT INTO episodes_fts(rowid, body, ctx)
                VALUES (new.id, engram_fts(new.content), {previous.format(row="new")});
            DELETE FROM episodes_fts WHERE rowid IN (SELECT n.id {following.format(row="new")});
            INSERT INTO episodes_fts(rowid, body, ctx)
                SELECT n.id, engram_fts(n.content), engram_fts(new.content)
                {following.format(row="new")};
        END;
        CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes BEGIN
            DELETE FROM episodes_fts WHERE rowid = old.id;
            DELETE FROM episodes_fts WHERE rowid IN (SELECT n.id {following.format(row="old")});
            INSERT INTO episodes_fts(rowid, body, ctx)
                SELECT n.id, engram_fts(n.content), '' {following.format(row="old")};
        END;
        """
    )


def _outcome_signals(conn: apsw.Connection) -> None:
    """Outcome signals on answers, the reason a job was queued, and the credit of lessons.

    A signal waits with ``job_id`` NULL until a consolidation job takes it. ``lesson_credit``
    holds, per lesson and signal, whether the answer the lesson went into helped (1) or hurt (0).
    """
    conn.execute(
        """
        CREATE TABLE signals (
            id INTEGER PRIMARY KEY,
            answer_episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            text TEXT,
            positive INTEGER NOT NULL,
            created_at REAL NOT NULL,
            job_id INTEGER REFERENCES consolidation_jobs(id) ON DELETE SET NULL
        );
        CREATE INDEX signals_answer ON signals(answer_episode_id);
        CREATE INDEX signals_job ON signals(job_id);
        ALTER TABLE consolidation_jobs ADD COLUMN reason TEXT NOT NULL DEFAULT 'turns';
        CREATE TABLE lesson_credit (
            memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
            signal_id INTEGER NOT NULL REFERENCES signals(id) ON DELETE CASCADE,
            helped INTEGER NOT NULL,
            PRIMARY KEY (memory_id, signal_id)
        );
        """
    )


def _signals_outlive_answers(conn: apsw.Connection) -> None:
    """A signal stays when the answer it judged is dropped (regenerate, edit and resend).

    ``answer_episode_id`` becomes ``ON DELETE SET NULL`` (it cascaded), each signal names its
    conversation (deleting the chat still deletes its signals) and may keep the text of the
    answer it replaced (``replaced``) for the job that reads it. SQLite cannot change a foreign
    key in place, so the table is rebuilt and its rows copied with their ids. Dropping the old
    table deletes its rows first, which cascades to ``lesson_credit`` (with foreign keys on):
    those rows are kept aside and put back, so a rebuild loses no credit.
    """
    conn.execute(
        """
        CREATE TABLE signals_0012 (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            answer_episode_id INTEGER REFERENCES episodes(id) ON DELETE SET NULL,
            kind TEXT NOT NULL,
            text TEXT,
            replaced TEXT,
            positive INTEGER NOT NULL,
            created_at REAL NOT NULL,
            job_id INTEGER REFERENCES consolidation_jobs(id) ON DELETE SET NULL
        );
        INSERT INTO signals_0012(id, conversation_id, answer_episode_id, kind, text, positive,
                                 created_at, job_id)
            SELECT s.id, e.conversation_id, s.answer_episode_id, s.kind, s.text, s.positive,
                   s.created_at, s.job_id
            FROM signals s JOIN episodes e ON e.id = s.answer_episode_id;
        CREATE TEMP TABLE credit_0012 AS SELECT memory_id, signal_id, helped FROM lesson_credit;
        DELETE FROM lesson_credit;
        DROP TABLE signals;
        ALTER TABLE signals_0012 RENAME TO signals;
        INSERT INTO lesson_credit(memory_id, signal_id, helped)
            SELECT memory_id, signal_id, helped FROM temp.credit_0012
            WHERE signal_id IN (SELECT id FROM signals);
        DROP TABLE temp.credit_0012;
        CREATE INDEX signals_answer ON signals(answer_episode_id);
        CREATE INDEX signals_job ON signals(job_id);
        CREATE INDEX signals_conversation ON signals(conversation_id, job_id);
        """
    )


def _memory_writes(conn: apsw.Connection) -> None:
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


def _writes_keep_the_earlier_text(conn: apsw.Connection) -> None:
    """A write that changed a memory's text keeps the text it had before (``content_before``),
    so the memory browser can show it and put it back; NULL for every other write, and for
    the writes recorded before this migration (their earlier text was not kept)."""
    conn.execute("ALTER TABLE memory_writes ADD COLUMN content_before TEXT")


def _saved_memories_index(conn: apsw.Connection) -> None:
    """The user's own active memories newest first (``MemoryStore.saved``, read every turn)
    from an index of those rows alone, not a walk past 100k distilled ones."""
    conn.execute(
        """
        CREATE INDEX memories_saved ON memories(updated_at DESC, id DESC)
            WHERE origin = 'user' AND status = 'active';
        """
    )


def _situations(conn: apsw.Connection) -> None:
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


def _situations_fulltext(conn: apsw.Connection) -> None:
    """The words of each situation a memory applies to, for a message in a language the
    embedder cannot read: there a lesson is found by the words its situations share with the
    message ("一头大象有多重？" with "一个南瓜一般有多重？"), not by their vectors."""
    _fulltext_index(conn, "situations")


def _tombstones(conn: apsw.Connection) -> None:
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


def _tool_step_columns(conn: apsw.Connection) -> None:
    """A tool episode's call and result in columns of their own (``episodes.ToolStep``): the
    tool's name, its arguments as JSON (the model's own text of a call that could not be read),
    what it gave back and whether that is an error. They were only in the episode's text
    ("name {arguments}\\n→ [error: ]result"), which is kept for search and the distiller, and
    read back by cutting it up in SQL. The rows written before are cut up once, here, by the
    rule they were written with; the other roles' columns stay NULL."""
    conn.execute(
        """
        ALTER TABLE episodes ADD COLUMN tool_name TEXT;
        ALTER TABLE episodes ADD COLUMN tool_arguments TEXT;
        ALTER TABLE episodes ADD COLUMN tool_result TEXT;
        ALTER TABLE episodes ADD COLUMN tool_error INTEGER CHECK (tool_error IN (0, 1));
        UPDATE episodes SET
            tool_name = s.name,
            tool_arguments = substr(s.call, length(s.name) + 2),
            tool_error = substr(s.rest, 1, 7) = 'error: ',
            tool_result = CASE WHEN substr(s.rest, 1, 7) = 'error: ' THEN substr(s.rest, 8)
                               ELSE s.rest END
        FROM (
            SELECT id,
                   substr(content, 1, instr(content || ' ', ' ') - 1) AS name,
                   CASE WHEN cut > 0 THEN substr(content, 1, cut - 1) ELSE content END AS call,
                   CASE WHEN cut > 0 THEN substr(content, cut + 3) ELSE '' END AS rest
            FROM (
                SELECT id, content, instr(content, char(10) || '→ ') AS cut
                FROM episodes WHERE role = 'tool'
            )
        ) AS s
        WHERE episodes.id = s.id;
        """
    )


def _everything_given(conn: apsw.Connection) -> None:
    """All an answer was given, so that its chips are the same when its chat is opened again:
    where each memory was (``injections.place``: ``notes``, the memory block, or ``system``,
    the system part's pinned and saved memories and the plan) and the earlier messages of its
    notes (``injected_messages``, ranked with its memories). Before, a chat opened again showed
    no message an answer was given, and every pinned or saved memory as if it were a note.
    The rows written before keep ``notes``: it cannot be told now."""
    conn.execute(
        """
        ALTER TABLE injections ADD COLUMN place TEXT NOT NULL DEFAULT 'notes'
            CHECK (place IN ('notes', 'system'));
        CREATE TABLE injected_messages (
            answer_episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            episode_id INTEGER NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            rank INTEGER NOT NULL,
            score REAL NOT NULL,
            PRIMARY KEY (answer_episode_id, episode_id)
        );
        CREATE INDEX injected_messages_episode ON injected_messages(episode_id);
        """
    )


MIGRATIONS: tuple[Migration, ...] = (
    ("0001_conversations_episodes", _conversations_episodes),
    ("0002_memories", _memories),
    ("0003_fulltext", _fulltext),
    ("0004_memory_browse_indexes", _memory_browse_indexes),
    ("0005_vector_tables", _vector_tables),
    ("0006_excluded_episodes", _excluded_episodes),
    ("0007_temporary_conversations", _temporary_conversations),
    ("0008_memory_ids_never_reused", _memory_ids_never_reused),
    ("0009_tool_episodes", _tool_episodes),
    ("0010_episode_context", _episode_context),
    ("0011_outcome_signals", _outcome_signals),
    ("0012_signals_outlive_answers", _signals_outlive_answers),
    ("0013_memory_writes", _memory_writes),
    ("0014_writes_keep_the_earlier_text", _writes_keep_the_earlier_text),
    ("0015_saved_memories_index", _saved_memories_index),
    ("0016_situations", _situations),
    ("0017_situations_fulltext", _situations_fulltext),
    ("0018_tombstones", _tombstones),
    ("0019_everything_given", _everything_given),
    ("0020_tool_step_columns", _tool_step_columns),
)


def apply(
    conn: apsw.Connection, path: Path | None = None, migrations: Sequence[Migration] = MIGRATIONS
) -> list[str]:
    """Apply the missing migrations in order, each in its own transaction; return their names."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations ( name TEXT PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    applied = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    unknown = applied - {name for name, _ in migrations}
    if unknown:
        raise StoreError(
            tr(
                "The database {path} was written by a newer Engram "
                "(it has migrations {migrations} this version does not know)."
            ),
            tr("Update Engram to open it; this version will not touch it."),
            path=path or "",
            migrations=sorted(unknown),
        )
    done = []
    for name, fn in migrations:
        if name in applied:
            continue
        # Another process opening the same new file (a window and ``engram chat`` started
        # together) may have applied it since: asked again under the write lock.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")
                continue
            fn(conn)
            conn.execute(
                "INSERT INTO migrations(name, applied_at) VALUES (?, ?)", (name, time.time())
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        _log.info("applied migration %s", name)
        done.append(name)
    return done


def vector_table(space: str, generation: int) -> str:
    """The table holding one generation's vectors of one of :data:`VECTOR_SPACES`."""
    if space not in VECTOR_SPACES:
        raise ValueError(space)
    return f"vectors_{space}_g{int(generation)}"


def create_vector_tables(
    conn: apsw.Connection, generation: int, spaces: Sequence[str] = VECTOR_SPACES
) -> None:
    """Create one generation's vector tables (of ``spaces``) and the triggers that delete with
    the base rows.

    A vector row is ``id`` (the base row's), the float32 ``embedding`` and a 1-bit-per-dimension
    ``code`` for the coarse scan.
    """
    for space in spaces:
        name = vector_table(space, generation)
        conn.execute(
            f"""
            CREATE TABLE IF NOT EXISTS {name} (
                id INTEGER PRIMARY KEY, embedding BLOB NOT NULL, code BLOB NOT NULL);
            CREATE TRIGGER IF NOT EXISTS {name}_delete AFTER DELETE ON {space} BEGIN
                DELETE FROM {name} WHERE id = old.id;
                {BUMP_VECTOR_VERSION};
            END;
            """
        )


def drop_older_generations(conn: apsw.Connection, current: int) -> None:
    """Drop the vector tables of every generation before ``current``. A switch of models leaves
    the old ones in place, so that a search that read the old generation's number just before
    the switch still finds its tables; they go at the next start."""
    names = [
        str(name)
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vectors\\_%' "
            "ESCAPE '\\'"
        )
    ]
    for generation in {int(n.rsplit("_g", 1)[1]) for n in names if n.rsplit("_g", 1)[-1].isdigit()}:
        if generation < current:
            drop_vector_tables(conn, generation)


def drop_vector_tables(conn: apsw.Connection, generation: int) -> None:
    """Drop one generation's vector tables and their triggers."""
    for space in VECTOR_SPACES:
        name = vector_table(space, generation)
        conn.execute(f"DROP TRIGGER IF EXISTS {name}_delete; DROP TABLE IF EXISTS {name}")
