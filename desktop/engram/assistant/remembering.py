"""The user's own words about their memory, said in a chat: "remember this: …" keeps the text
at once, "forget that" / "忘掉这个" takes a memory back with an undo.

What "remember this" keeps is a fact of the user's own (origin ``user``), more important than
what the distiller infers; when it corrects a memory (a different number, date, name or a
negation) the old one is kept as superseded and the event says what changed.
The memory "forget that" means is the one last remembered in the chat when that came after the
last answer, else the memory the last answer used (its recorded injections, checked against the
answer's words). Forgetting archives it at once (never recalled again); an undo makes it active
again; :func:`purge` deletes what was not undone, text and all.
"""

from __future__ import annotations

import time

from engram.assistant.events import Forgotten, Remembered
from engram.assistant.turn import utilization
from engram.assistant.turn.recall import Recall
from engram.memory import changes
from engram.memory.episodes import EpisodeLog
from engram.memory.kinds import FACT
from engram.memory.records import Provenance
from engram.memory.store import MemoryStore

# What the user explicitly asks to remember matters more than what the distiller infers.
USER_IMPORTANCE = 0.8


def remember(
    store: MemoryStore,
    conversation_id: int,
    episode_id: int | None,
    content: str,
    kind: str = FACT,
    by: Provenance | None = None,
) -> Remembered:
    """Keep ``content`` as the user's own memory (of ``kind``), said in message ``episode_id``
    of the chat (None: asked for through the remember tool, whose call is stored with the
    answer); ``by`` says how it was asked for (recorded with the write)."""
    asked = time.time()
    memory = store.add(
        content,
        kind,
        importance=USER_IMPORTANCE,
        origin="user",
        conversation_id=conversation_id or None,
        source_episodes=[episode_id] if episode_id is not None else [],
        by=by,
    )
    old = store.replaced_by(memory.id) if memory.created_at >= asked else None
    if old is None:
        return Remembered(memory.id, memory.content)
    return Remembered(
        memory.id, memory.content, old.id, changes.update_between(old.content, memory.content)
    )


class LastMentioned:
    """What "that" can mean in each chat: the memory last remembered in it, or last forgotten
    and brought back by an undo, until the next turn."""

    def __init__(self) -> None:
        self._remembered: dict[int, int] = {}
        self._forgotten: dict[int, int] = {}  # what "forget that" archived, until the next turn

    def turn(self, conversation_id: int) -> None:
        """A new message in the chat: "that" now means what it brings."""
        self._remembered.pop(conversation_id, None)
        self._forgotten.pop(conversation_id, None)

    def remembered(self, conversation_id: int, memory_id: int) -> None:
        self._remembered[conversation_id] = memory_id

    def target(self, conversation_id: int, log: EpisodeLog, recall: Recall) -> int | None:
        """The memory "forget that" means in this conversation, or None."""
        if (remembered := self._remembered.get(conversation_id)) is not None:
            return remembered
        if (forgotten := self._forgotten.get(conversation_id)) is not None:
            memory = recall.store.get(forgotten)
            if memory is not None and memory.status == "active":  # an undo brought it back
                return forgotten
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
        recall.store.tombstones.bury(memory, "forgotten")
        recall.store.update(memory.id, status="archived")
        self._remembered.pop(conversation_id, None)
        self._forgotten[conversation_id] = memory.id
        return Forgotten(memory.id, memory.content)


def undo(store: MemoryStore, forgotten: Forgotten) -> None:
    """Make a forgotten memory active again (it may be learned again too)."""
    if store.get(forgotten.memory_id) is not None:
        store.update(forgotten.memory_id, status="active")
        store.tombstones.lift(forgotten.memory_id)


def purge(store: MemoryStore, forgotten: list[Forgotten]) -> None:
    """Delete for good what was forgotten and not undone (text, vector and full-text rows)."""
    for item in forgotten:
        memory = store.get(item.memory_id)
        if memory is not None and memory.status == "archived":
            store.delete(item.memory_id)
