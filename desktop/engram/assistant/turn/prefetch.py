"""The prompt prepared while a message is typed, kept for the turn that sends it.

Retrieval runs on the draft (:meth:`~engram.assistant.turn.pipeline.Assistant.prefetch`) and the
model evaluates that prompt ahead of Enter. When the final message hardly differs, the turn keeps
the draft's memories, so its prompt shares everything up to the new text and llama.cpp evaluates
only that; a different message or choice is prepared anew.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engram.assistant import events

# The final message may add this many characters to the prefetched draft and keep its memories,
PREFETCH_SLACK_CHARS = 24
# when at least this share of the final choice was already chosen while typing.
PREFETCH_MIN_OVERLAP = 0.5

# A memory block for these items and the message, and how the model counts its tokens.
BlockFor = Callable[[list[events.Recalled], str], tuple[str, Callable[[str], int]]]


def overlap(before: list[events.Recalled], after: list[events.Recalled]) -> float:
    """Share of ``after`` (by memory or episode id) that ``before`` already had."""
    if not after:
        return 1.0 if not before else 0.0
    keys = {(i.memory_id, i.episode_id) for i in before}
    return sum((i.memory_id, i.episode_id) in keys for i in after) / len(after)


@dataclass
class Drafted:
    """The last draft's conversation, words, chosen memories and prompt (once, for one turn)."""

    kept: tuple[int, str, list[events.Recalled], events.PromptParts] | None = None

    def keep(
        self,
        conversation_id: int,
        draft: str,
        items: list[events.Recalled],
        parts: events.PromptParts,
    ) -> None:
        self.kept = (conversation_id, draft, items, parts)

    def reuse(
        self,
        conversation_id: int,
        text: str,
        items: list[events.Recalled],
        parts: events.PromptParts,
        block_for: BlockFor,
    ) -> tuple[list[events.Recalled], events.PromptParts]:
        """Keep the memories chosen while typing when the final choice hardly differs.

        The last keystrokes nudge the query's embedding, which can swap a near-tie; that is not
        worth re-evaluating the whole memory block. A different message or choice is.
        """
        prefetched, self.kept = self.kept, None
        if prefetched is None:
            return items, parts
        was_for, draft, old_items, old_parts = prefetched
        typed_on = text.startswith(draft) and len(text) - len(draft) <= PREFETCH_SLACK_CHARS
        same_place = was_for == conversation_id or (was_for == 0 and not old_parts.history)
        if not (typed_on and same_place and old_parts.history == parts.history):
            return items, parts
        if overlap(old_items, items) < PREFETCH_MIN_OVERLAP:
            return items, parts
        block, count = block_for(old_items, text)
        kept = events.PromptParts(
            old_parts.system,
            parts.history,
            block,
            parts.user,
            tools=parts.tools,
            examples=old_parts.examples,
        )
        return old_items, kept.counted(count)
