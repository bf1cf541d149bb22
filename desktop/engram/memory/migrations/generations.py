"""The vector tables of one generation: per embedding model, ``vectors_<space>_g<generation>``
holds one generation's vectors for ``memories``, ``episodes`` or ``situations``. Migrations 0005
and 0016 create the file's current generation; re-embedding with another model
(``memory.reembed``) creates the next one with :func:`create_vector_tables` and drops the old one
with :func:`drop_vector_tables`."""

from __future__ import annotations

from collections.abc import Sequence

import apsw

VECTOR_SPACES = ("memories", "episodes", "situations")
# Bumped by deletes and out-of-order vector writes; search caches revalidate against it.
BUMP_VECTOR_VERSION = (
    "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'vector_version'"
)


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
