"""The steps that make things findable: the contentless full-text indexes (kept in step by
triggers) and the vector tables of the file's first generation."""

from __future__ import annotations

import apsw

from engram.memory.migrations.generations import create_vector_tables


def fulltext(conn: apsw.Connection) -> None:
    """Contentless FTS5 indexes of memories and episodes, kept in step by triggers."""
    for table in ("memories", "episodes"):
        fulltext_index(conn, table)


def fulltext_index(conn: apsw.Connection, table: str) -> None:
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


def vector_tables(conn: apsw.Connection) -> None:
    """The current generation's vector tables (files from before this migration have them).

    Until now the store created generation 1 when it first opened a file, so a file only ever
    opened by the episode log has none; this makes them part of every file's schema.
    """
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('vector_generation', '1')")
    for (generation,) in conn.execute("SELECT value FROM meta WHERE key = 'vector_generation'"):
        create_vector_tables(conn, int(generation), ("memories", "episodes"))


def situations_fulltext(conn: apsw.Connection) -> None:
    """The words of each situation a memory applies to, for a message in a language the
    embedder cannot read: there a lesson is found by the words its situations share with the
    message ("一头大象有多重？" with "一个南瓜一般有多重？"), not by their vectors."""
    fulltext_index(conn, "situations")
