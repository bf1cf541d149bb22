"""The steps that shape the chats: conversations and their messages (episodes), messages kept
from learning, temporary chats, tool steps and their columns, an episode's context, the answers
Regenerate replaced."""

from __future__ import annotations

import apsw

from engram.core.errors import StoreError, tr


def conversations_episodes(conn: apsw.Connection) -> None:
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


def excluded_episodes(conn: apsw.Connection) -> None:
    """Messages said while memory was paused (or in a temporary chat) are never learned from."""
    conn.execute("ALTER TABLE episodes ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0")


def temporary_conversations(conn: apsw.Connection) -> None:
    """A temporary chat is neither learned from nor recalled elsewhere, and deleted when closed."""
    conn.execute("ALTER TABLE conversations ADD COLUMN temporary INTEGER NOT NULL DEFAULT 0")


def tool_episodes(conn: apsw.Connection) -> None:
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


def episode_context(conn: apsw.Connection) -> None:
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


def tool_step_columns(conn: apsw.Connection) -> None:
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


def earlier_answers(conn: apsw.Connection) -> None:
    """The answers a message had before Regenerate replaced them, kept to be read again (never
    in a prompt, never learned from); they go with their conversation."""
    conn.execute(
        """
        CREATE TABLE earlier_answers (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            turn_index INTEGER NOT NULL,
            content TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE INDEX earlier_answers_turn ON earlier_answers(conversation_id, turn_index);
        """
    )
