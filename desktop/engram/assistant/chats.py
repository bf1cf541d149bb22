"""The user's chats: as the front ends show them without a session, and as a session changes them.

The window lists, searches and shows the chats on the UI thread through :class:`Chats` (a read
connection of its own), and ``engram chat`` lists them and checks the one to resume; what a
chat changes (a new chat, a rename, a deletion, leaving a temporary one) goes through the
application's :class:`ChatManager` (``Engram.chats``), on the session's thread. The value types
shown (:class:`Conversation`, :class:`Episode`, :class:`EarlierAnswer`) are re-exported here.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType

from engram.assistant.state import AppState
from engram.core import log, paths
from engram.core.held import Held
from engram.memory import db
from engram.memory.episodes import Conversation, EarlierAnswer, Episode, EpisodeLog

__all__ = ["ChatManager", "Chats", "Conversation", "EarlierAnswer", "Episode", "open_chats"]

_log = log.get("assistant.chats")


def open_chats() -> Chats:
    """The chats, on a new connection for the calling thread (close it when done)."""
    return Chats(EpisodeLog(db.connect(paths.database_path())))


class Chats:
    """The chats on a connection of their own: read, one thread, then closed."""

    def __init__(self, log: EpisodeLog) -> None:
        self._log = log

    def __enter__(self) -> Chats:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._log.conn.close()

    def listed(self) -> list[Conversation]:
        """Every chat but the temporary ones, most recently active first."""
        return [c for c in self._log.conversations() if not c.temporary]

    def latest(self) -> Conversation | None:
        """The most recently active chat to reopen (never a temporary one)."""
        return self._log.latest_conversation()

    def search(self, query: str) -> list[Conversation]:
        """The chats whose title or messages match the words of ``query``, newest first
        (every chat when it is empty); never a temporary one, as in :meth:`listed`."""
        return [c for c in self._log.search_conversations(query) if not c.temporary]

    def conversation(self, conversation_id: int) -> Conversation | None:
        return self._log.conversation(conversation_id)

    def episodes(self, conversation_id: int) -> list[Episode]:
        """A chat's messages in order."""
        return self._log.episodes(conversation_id)

    def earlier_answers(self, conversation_id: int) -> dict[int, list[EarlierAnswer]]:
        """The answers Regenerate replaced, by the turn of the message they answered."""
        return self._log.earlier_answers(conversation_id)


class ChatManager:
    """The chats of an open session (``Engram.chats``): start, leave, read, rename, delete.

    A temporary chat holds a lock while this Engram has it open (:meth:`new`); it is deleted
    when left (:meth:`leave`, :meth:`leave_temporary`) or, after a crash, at the next start
    (:meth:`scrub_temporary`), while another Engram running at the same time keeps its own.
    """

    def __init__(self, state: AppState) -> None:
        self._state = state
        self._temporary: dict[int, Held] = {}  # the temporary chats this Engram has open

    def new(self, title: str = "", temporary: bool = False) -> int:
        """Start a chat; nothing in a ``temporary`` one is learned or recalled elsewhere, and
        it is deleted when left."""
        conversation_id = self._state.ready().assistant.new_conversation(title, temporary)
        if temporary and (held := Held.take(_lock_of(conversation_id))) is not None:
            self._temporary[conversation_id] = held
        return conversation_id

    def leave(self, conversation_id: int) -> None:
        """The user left a chat: a temporary one is deleted with its words."""
        held = self._temporary.pop(conversation_id, None)
        session = self._state.session
        if session is not None and conversation_id:
            chat = session.assistant.log.conversation(conversation_id)
            if chat is not None and chat.temporary:
                session.assistant.delete_conversation(conversation_id)
        if held is not None:
            held.release(remove=session is not None)

    def leave_temporary(self) -> None:
        """Leave (and so delete) every temporary chat still open: the Engram closes."""
        for conversation_id in list(self._temporary):
            self.leave(conversation_id)

    def scrub_temporary(self) -> None:
        """Delete the temporary chats no running Engram has open: left by a crash or a kill."""
        assistant = self._state.ready().assistant
        for conversation_id in assistant.log.temporary_conversations():
            if conversation_id in self._temporary:
                continue
            held = Held.take(_lock_of(conversation_id))
            if held is None:  # open in another window or terminal right now
                continue
            assistant.delete_conversation(conversation_id)
            held.release(remove=True)
            _log.info("deleted temporary conversation %d left by an earlier run", conversation_id)

    def messages(self, conversation_id: int) -> list[Episode]:
        """What the user and Engram said in a chat (no tool steps), in order."""
        episodes = self._state.ready().assistant.log.episodes(conversation_id)
        return [e for e in episodes if e.role in ("user", "assistant")]

    def rename(self, conversation_id: int, title: str) -> None:
        self._state.ready().assistant.log.rename(conversation_id, title)

    def delete(self, conversation_id: int) -> None:
        """Delete a chat and its messages; memories learned from it keep their provenance."""
        self._state.ready().assistant.delete_conversation(conversation_id)


def _lock_of(conversation_id: int) -> Path:
    """Where the lock of a temporary chat lives while an Engram has it open."""
    return paths.data_dir() / "temporary" / f"{conversation_id}.lock"
