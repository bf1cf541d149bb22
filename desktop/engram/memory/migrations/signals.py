"""The steps that keep what answers were given and how the user judged them: outcome
signals, signals that outlive their answers, every memory and message given to an answer."""

from __future__ import annotations

import apsw


def outcome_signals(conn: apsw.Connection) -> None:
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


def signals_outlive_answers(conn: apsw.Connection) -> None:
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


def everything_given(conn: apsw.Connection) -> None:
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
