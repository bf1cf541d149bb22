"""The user's chats as the front ends show them, without a session.

The window lists, searches and shows the chats on the UI thread through :class:`Chats` (a read
connection of its own), and ``engram chat`` lists them and checks the one to resume; what a
chat changes (a message, a rename, a deletion) goes through :class:`~engram.assistant.app.Engram`.
The value types shown (:class:`Conversation`, :class:`Episode`) are re-exported here.
"""

from __future__ import annotations

from types import TracebackType

from engram.core import paths
from engram.memory import db
from engram.memory.episodes import Conversation, Episode, EpisodeLog

__all__ = ["Chats", "Conversation", "Episode", "open_chats"]


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
