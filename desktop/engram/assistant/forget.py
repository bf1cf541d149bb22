""" "forget that" / "忘掉这个" said in a chat: which memory it means, forgetting it with an undo.

The memory meant is the one last remembered in the chat ("remember this: …") when that came
after the last answer, else the memory the last answer used (its recorded injections, checked
against the answer's words). Forgetting archives it at once (never recalled again); an undo
makes it active again; :func:`purge` deletes what was not undone, text and all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.assistant import utilization
from engram.assistant.events import Remembered, TurnEvent, TurnStarted
from engram.assistant.recall import Recall
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore

_EN = re.compile(
    r"^\s*(?:please\s+)?forget\s+(?:that|this|it|about\s+(?:that|it))(?:,?\s*please)?\s*[.!]*\s*$",
    re.IGNORECASE,
)
_ZH = re.compile(
    r"^\s*请?(?:忘掉|忘记|忘了|删掉|别记着?)(?:这个|这条|那个|它|吧)?吧?\s*[。！!.]*\s*$"
)


def is_request(text: str) -> bool:
    """Whether the whole message asks to forget what was just remembered or used."""
    return bool(_EN.match(text) or _ZH.match(text))


@dataclass(frozen=True)
class Forgotten:
    """A memory "forget that" archived; ``undo`` with :func:`undo`."""

    memory_id: int
    content: str


class LastMentioned:
    """Follows a chat's turn events: the memory last remembered in it, per conversation."""

    def __init__(self) -> None:
        self._remembered: dict[int, int] = {}
        self._conversation = 0

    def see(self, event: TurnEvent) -> None:
        if isinstance(event, TurnStarted):  # a new turn: "that" now means what it brings
            self._conversation = event.conversation_id
            self._remembered.pop(event.conversation_id, None)
        elif isinstance(event, Remembered):
            self._remembered[self._conversation] = event.memory_id

    def target(self, conversation_id: int, log: EpisodeLog, recall: Recall) -> int | None:
        """The memory "forget that" means in this conversation, or None."""
        if (remembered := self._remembered.get(conversation_id)) is not None:
            return remembered
        answer = next(
            (e for e in reversed(log.episodes(conversation_id)) if e.role == "assistant"), None
        )
        if answer is None:
            return None
        given = recall.injected([answer.id]).get(answer.id, [])
        used = utilization.used(answer.content, given) or given[:1]
        return next((item.memory_id for item in used if item.memory_id is not None), None)

    def forget(self, conversation_id: int, log: EpisodeLog, recall: Recall) -> Forgotten | None:
        """Archive the memory meant (None when there is none)."""
        memory_id = self.target(conversation_id, log, recall)
        memory = recall.store.get(memory_id) if memory_id is not None else None
        if memory is None or memory.status != "active":
            return None
        recall.store.update(memory.id, status="archived")
        self._remembered.pop(conversation_id, None)
        return Forgotten(memory.id, memory.content)


def undo(store: MemoryStore, forgotten: Forgotten) -> None:
    """Make a forgotten memory active again."""
    if store.get(forgotten.memory_id) is not None:
        store.update(forgotten.memory_id, status="active")


def purge(store: MemoryStore, forgotten: list[Forgotten]) -> None:
    """Delete for good what was forgotten and not undone (text, vector and full-text rows)."""
    for item in forgotten:
        memory = store.get(item.memory_id)
        if memory is not None and memory.status == "archived":
            store.delete(item.memory_id)
