"""Migration 0012 on a file written with 0011: signals and lesson credit keep every row, and from
then on a signal outlives the answer it judged (its conversation's deletion still takes it)."""

from __future__ import annotations

from engram.core import paths
from engram.memory import db, migrations
from engram.memory.episodes import EpisodeLog

BEFORE = [name for name, _ in migrations.MIGRATIONS].index("0012_signals_outlive_answers")


def _said(conn: object, chat: int, turn: int, role: str, content: str) -> int:
    """A message written as a 0011 file holds it (today's EpisodeLog writes later columns)."""
    conn.execute(  # type: ignore[attr-defined]
        "INSERT INTO episodes(conversation_id, turn_index, role, content, created_at)"
        " VALUES (?, ?, ?, ?, 0)",
        (chat, turn, role, content),
    )
    return int(conn.last_insert_rowid())  # type: ignore[attr-defined]


def _count(conn: object, table: str) -> int:
    return int(db.scalar(conn, f"SELECT COUNT(*) FROM {table}"))  # type: ignore[arg-type]


def test_a_0011_file_keeps_its_signals_and_credit_and_signals_then_outlive_answers() -> None:
    path = paths.database_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = db.connect(path, migrate=False)
    migrations.apply(conn, path, migrations.MIGRATIONS[:BEFORE])
    log = EpisodeLog(conn)
    chat = log.new_conversation("bridges").id
    _said(conn, chat, 0, "user", "How far is it across the Humber Bridge?")
    answer = _said(conn, chat, 1, "assistant", "It is 1.4 miles.")
    other = log.new_conversation("other").id
    _said(conn, other, 0, "user", "Hello")
    kept = _said(conn, other, 1, "assistant", "Hi.")
    conn.execute(
        "INSERT INTO memories(id, kind, content, created_at, updated_at, origin)"
        " VALUES (7, 'lesson', 'When asked a distance, answer in km.', 0, 0, 'local');"
        "INSERT INTO consolidation_jobs(id, conversation_id, first_episode_id, last_episode_id,"
        " created_at, updated_at, reason) VALUES (3, ?, 1, ?, 0, 0, 'outcome');"
        "INSERT INTO signals(id, answer_episode_id, kind, text, positive, created_at, job_id)"
        " VALUES (11, ?, 'thumbs_down', 'in km', 0, 5.0, 3), (12, ?, 'praise', NULL, 1, 6.0, NULL);"
        "INSERT INTO lesson_credit(memory_id, signal_id, helped) VALUES (7, 11, 0), (7, 12, 1)",
        (chat, answer, answer, kept),
    )
    conn.close()

    conn = db.connect(path)  # applies 0012
    assert db.scalar(conn, "SELECT 1 FROM migrations WHERE name = '0012_signals_outlive_answers'")
    rows = db.rows(
        conn,
        "SELECT id, conversation_id, answer_episode_id, kind, text, replaced, positive,"
        " created_at, job_id FROM signals ORDER BY id",
    )
    assert [tuple(r.values()) for r in rows] == [
        (11, chat, answer, "thumbs_down", "in km", None, 0, 5.0, 3),
        (12, other, kept, "praise", None, None, 1, 6.0, None),
    ]
    credit = db.rows(conn, "SELECT memory_id, signal_id, helped FROM lesson_credit ORDER BY 2")
    assert [tuple(r.values()) for r in credit] == [(7, 11, 0), (7, 12, 1)]
    assert {r["table"] for r in db.rows(conn, "PRAGMA foreign_key_list(lesson_credit)")} == {
        "memories",
        "signals",
    }
    assert db.rows(conn, "PRAGMA foreign_key_check") == []
    indexes = {r["name"] for r in db.rows(conn, "PRAGMA index_list(signals)")}
    assert {"signals_answer", "signals_job", "signals_conversation"} <= indexes

    # The answer is dropped (a regenerate): its signal and the lesson's credit stay.
    EpisodeLog(conn).delete_from(chat, 1)
    assert db.scalar(conn, "SELECT answer_episode_id FROM signals WHERE id = 11") is None
    assert _count(conn, "signals") == 2 and _count(conn, "lesson_credit") == 2
    # The chat is deleted: its signals and their credit go with it, the other chat's stay.
    EpisodeLog(conn).delete_conversation(chat)
    assert [r["id"] for r in db.rows(conn, "SELECT id FROM signals")] == [12]
    assert _count(conn, "lesson_credit") == 1
    assert db.scalar(conn, "PRAGMA integrity_check") == "ok"
    conn.close()
