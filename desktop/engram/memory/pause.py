"""Whether memory is paused: a fact in the database, so every process that opens the file (the
window, a second window, ``engram chat``, ``engram learn``) honours a pause made in another one
at once, not when it next starts.

While paused nothing new is learned: messages are stored excluded (the application's rule reads
:func:`paused` for each one) and no learning job is claimed (:meth:`JobQueue.claim`), so the
jobs queued before the pause wait until memory is resumed.
"""

from __future__ import annotations

import apsw

from engram.memory import db

KEY = "memory_paused"


def paused(conn: apsw.Connection, default: bool = False) -> bool:
    """Whether memory is paused in this file (``default`` when nobody has said yet)."""
    found = said(conn)
    return default if found is None else found


def said(conn: apsw.Connection) -> bool | None:
    """Whether memory is paused in this file, or None when nobody has said yet."""
    found = db.scalar(conn, "SELECT value FROM meta WHERE key = ?", (KEY,))
    return None if found is None else found == "1"


def adopt(conn: apsw.Connection, found: bool) -> None:
    """At a process's start: a file that has never said takes ``found`` (the settings' value);
    one that has keeps its own, which is newer than any settings file (a window writes its
    settings whole, with the pause as it was when it read them)."""
    with db.transaction(conn):
        conn.execute(
            "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (KEY, "1" if found else "0")
        )


def set_paused(conn: apsw.Connection, value: bool) -> None:
    """Pause (True) or resume memory for every process that has the file open."""
    with db.transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (KEY, "1" if value else "0")
        )
