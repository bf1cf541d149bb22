"""Conversations and episodes: every message, append-only, in the order it was said."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import apsw

from engram.memory import db
from engram.memory.text import fts_match, query_terms

Role = Literal["system", "user", "assistant", "tool"]
# complete, or an answer the user stopped (cancelled) or that failed part-way (error)
EpisodeStatus = Literal["complete", "cancelled", "error"]


@dataclass(frozen=True)
class ToolStep:
    """One tool call and its result, as a ``tool`` episode keeps them in columns of their own
    (``tool_name``, ``tool_arguments``, ``tool_result``, ``tool_error``; migration 0020)."""

    name: str  # the tool the call named; '?' for a call that could not be read
    arguments: str  # its arguments as JSON; the model's own text of a call that could not be read
    result: str  # what the tool gave back, or why it did not run
    error: bool = False  # the result is an error (it failed, was refused or could not be read)

    def text(self) -> str:
        """The step as its episode's text, which search and the distiller read: the call, then
        what it gave back (failures too: the distiller learns from them)."""
        failed = "error: " if self.error else ""
        return f"{self.name} {self.arguments}\n→ {failed}{self.result}"

    def columns(self) -> tuple[str, str, str, bool]:
        """The values of ``tool_name``, ``tool_arguments``, ``tool_result``, ``tool_error``."""
        return self.name, self.arguments, self.result, self.error

    @classmethod
    def from_text(cls, text: str) -> ToolStep:
        """A step read back from its text alone: a ``tool`` episode of an export written before
        steps had columns (the rule migration 0020 applied to the file's own rows)."""
        call, _, rest = text.partition("\n→ ")
        name = text.split(" ", 1)[0]
        failed = rest.startswith("error: ")
        return cls(name, call[len(name) + 1 :], rest.removeprefix("error: "), failed)


@dataclass(frozen=True)
class Episode:
    """One stored message."""

    id: int
    conversation_id: int
    turn_index: int
    role: Role
    content: str
    created_at: float
    token_count: int | None
    status: EpisodeStatus
    model: str | None = None  # "large" when the user asked the large model for this answer
    excluded: bool = False  # said while memory was paused or in a temporary chat: never learned
    step: ToolStep | None = None  # a ``tool`` episode's call and result

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Episode:
        """An episode from a row of :data:`EPISODE_COLUMNS`."""
        fields = dict(row)
        name, arguments = fields.pop("tool_name"), fields.pop("tool_arguments")
        result, error = fields.pop("tool_result"), fields.pop("tool_error")
        step = None if name is None else ToolStep(name, arguments or "", result or "", bool(error))
        return cls(**fields, step=step)


@dataclass(frozen=True)
class EarlierAnswer:
    """An answer Regenerate replaced: kept to be read again, never in a prompt or learned."""

    content: str
    created_at: float


@dataclass(frozen=True)
class Conversation:
    """One conversation (a chat in the sidebar)."""

    id: int
    title: str
    created_at: float
    updated_at: float
    temporary: bool = False  # neither learned from nor recalled elsewhere; deleted when closed


EPISODE_COLUMNS = (
    "id, conversation_id, turn_index, role, content, created_at, token_count, status, model,"
    " excluded, tool_name, tool_arguments, tool_result, tool_error"
)


class EpisodeLog:
    """Reads and appends conversations and episodes on one connection."""

    def __init__(self, conn: apsw.Connection) -> None:
        self.conn = conn

    def new_conversation(
        self, title: str = "", temporary: bool = False, at: float | None = None
    ) -> Conversation:
        """Start a conversation (``at``: when it started, for an import; else now)."""
        now = time.time() if at is None else at
        with db.transaction(self.conn):
            self.conn.execute(
                "INSERT INTO conversations(title, created_at, updated_at, temporary)"
                " VALUES (?, ?, ?, ?)",
                (title, now, now, int(temporary)),
            )
            new_id = self.conn.last_insert_rowid()
        return Conversation(new_id, title, now, now, temporary)

    def temporary_conversations(self) -> list[int]:
        """Ids of the temporary chats still in the file (to delete when closed or at start)."""
        return [
            int(row[0])
            for row in self.conn.execute(
                "SELECT id FROM conversations WHERE temporary = 1 ORDER BY id"
            )
        ]

    def conversation(self, conversation_id: int) -> Conversation | None:
        row = db.one(self.conn, "SELECT * FROM conversations WHERE id = ?", (conversation_id,))
        return Conversation(**row) if row else None

    def conversations(self) -> list[Conversation]:
        """All conversations, most recently active first."""
        return [
            Conversation(**row)
            for row in db.rows(
                self.conn, "SELECT * FROM conversations ORDER BY updated_at DESC, id DESC"
            )
        ]

    def titled(self, title: str) -> Conversation | None:
        """The oldest conversation with this title, if any."""
        row = db.one(
            self.conn, "SELECT * FROM conversations WHERE title = ? ORDER BY id LIMIT 1", (title,)
        )
        return Conversation(**row) if row else None

    def latest_conversation(self) -> Conversation | None:
        """The most recently active chat to reopen: never a temporary one (it lives only as long
        as the window or terminal that made it)."""
        return next((c for c in self.conversations() if not c.temporary), None)

    def rename(self, conversation_id: int, title: str) -> None:
        with db.transaction(self.conn):
            self.conn.execute(
                "UPDATE conversations SET title = ? WHERE id = ?", (title, conversation_id)
            )

    def delete_conversation(self, conversation_id: int) -> None:
        """Delete a conversation and its messages (their rows, full-text and vector entries).

        Memories distilled from it stay; their provenance is marked as a deleted source.
        ``MemoryStore.purge`` afterwards scrubs the words from the index pages and the WAL.
        """
        with db.transaction(self.conn):
            self.conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def delete_from(
        self, conversation_id: int, turn_index: int, keep: Episode | None = None
    ) -> None:
        """Delete a message and every later one of the conversation (to regenerate or edit),
        with the earlier answers of those messages; ``keep`` (an answer to the message at
        ``turn_index``, when it is sent again unchanged) joins that message's earlier answers."""
        kept_from = turn_index + 1 if keep is not None else turn_index
        with db.transaction(self.conn):
            self.conn.execute(
                "DELETE FROM earlier_answers WHERE conversation_id = ? AND turn_index >= ?",
                (conversation_id, kept_from),
            )
            if keep is not None:
                self.conn.execute(
                    "INSERT INTO earlier_answers(conversation_id, turn_index, content, created_at)"
                    " VALUES (?, ?, ?, ?)",
                    (conversation_id, turn_index, keep.content, keep.created_at),
                )
            self.conn.execute(
                "DELETE FROM episodes WHERE conversation_id = ? AND turn_index >= ?",
                (conversation_id, turn_index),
            )

    def earlier_answers(self, conversation_id: int) -> dict[int, list[EarlierAnswer]]:
        """The answers Regenerate replaced, by the turn of the message they answered, oldest
        first."""
        found: dict[int, list[EarlierAnswer]] = {}
        for row in db.rows(
            self.conn,
            "SELECT turn_index, content, created_at FROM earlier_answers"
            " WHERE conversation_id = ? ORDER BY id",
            (conversation_id,),
        ):
            found.setdefault(row["turn_index"], []).append(
                EarlierAnswer(row["content"], row["created_at"])
            )
        return found

    def search_conversations(self, query: str, limit: int = 50) -> list[Conversation]:
        """Conversations whose title or messages match the words of ``query``, newest first."""
        words = query.strip()
        if not words:
            return self.conversations()
        sql = "SELECT * FROM conversations WHERE title LIKE ? ESCAPE '\\'"
        params: list[object] = [f"%{_like_escape(words)}%"]
        match = fts_match(query_terms(words))
        if match:
            sql += (
                " OR id IN (SELECT e.conversation_id FROM episodes_fts f"
                " JOIN episodes e ON e.id = f.rowid WHERE episodes_fts MATCH ?)"
            )
            params.append(match)
        params.append(limit)
        sql += " ORDER BY updated_at DESC, id DESC LIMIT ?"
        return [Conversation(**row) for row in db.rows(self.conn, sql, params)]

    def append(
        self,
        conversation_id: int,
        role: str,
        content: str,
        token_count: int | None = None,
        status: str = "complete",
        model: str | None = None,
        excluded: bool = False,
        at: float | None = None,
        step: ToolStep | None = None,
    ) -> Episode:
        """Store one message at the end of a conversation (``excluded``: never learned from;
        ``at``: when it was said, for an import; else now; ``step``: a ``tool`` episode's call
        and result, see :meth:`append_step`)."""
        now = time.time() if at is None else at
        tool = step.columns() if step is not None else (None,) * 4
        with db.transaction(self.conn):
            turn = db.scalar(
                self.conn,
                "SELECT COALESCE(MAX(turn_index) + 1, 0) FROM episodes WHERE conversation_id = ?",
                (conversation_id,),
            )
            said = (conversation_id, turn, role, content, now, token_count, status, model, excluded)
            self.conn.execute(
                "INSERT INTO episodes(conversation_id, turn_index, role, content, created_at,"
                " token_count, status, model, excluded, tool_name, tool_arguments, tool_result,"
                " tool_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*said, *tool),
            )
            new_id = self.conn.last_insert_rowid()
            self.conn.execute(
                "UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id)
            )
        return Episode(
            new_id,
            conversation_id,
            int(turn),
            cast(Role, role),  # the table's CHECK refused anything else
            content,
            now,
            token_count,
            cast(EpisodeStatus, status),
            model,
            excluded,
            step,
        )

    def append_step(self, conversation_id: int, step: ToolStep, excluded: bool = False) -> Episode:
        """Store one tool call and its result as a ``tool`` episode: in its columns, and as its
        text (:meth:`ToolStep.text`) for search and the distiller."""
        return self.append(conversation_id, "tool", step.text(), excluded=excluded, step=step)

    def link_to_answer(self, episode_ids: Sequence[int], answer_id: int) -> None:
        """Mark tool episodes (a call and its result each) as made for the answer ``answer_id``."""
        with db.transaction(self.conn):
            self.conn.executemany(
                "UPDATE episodes SET answer_id = ? WHERE id = ?",
                [(answer_id, episode_id) for episode_id in episode_ids],
            )

    def tool_steps(self, answer_id: int) -> list[Episode]:
        """The tool episodes of one answer, in the order they ran."""
        return [
            Episode.from_row(row)
            for row in db.rows(
                self.conn,
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE answer_id = ? ORDER BY turn_index",
                (answer_id,),
            )
        ]

    def by_id(self, ids: Sequence[int]) -> dict[int, Episode]:
        """The episodes with these ids (missing ones are left out), keyed by id."""
        return {
            row["id"]: Episode.from_row(row)
            for row in db.rows(
                self.conn,
                f"SELECT {EPISODE_COLUMNS} FROM episodes"
                " WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(ids)),),
            )
        }

    def tools_called(self, conversation_id: int) -> set[str]:
        """The names of the tools called in a conversation, read from the tool episodes' own
        column, without the conversation's messages."""
        return {
            str(name)
            for (name,) in self.conn.execute(
                "SELECT DISTINCT tool_name FROM episodes"
                " WHERE conversation_id = ? AND role = 'tool' AND tool_name IS NOT NULL",
                (conversation_id,),
            )
        }

    def episodes(self, conversation_id: int) -> list[Episode]:
        """A conversation's messages in order."""
        return [
            Episode.from_row(row)
            for row in db.rows(
                self.conn,
                f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE conversation_id = ?"
                " ORDER BY turn_index",
                (conversation_id,),
            )
        ]


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
