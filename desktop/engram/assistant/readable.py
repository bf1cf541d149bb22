"""Which earlier messages may be read back to a model, by the turn's recall and the memory tool
alike: no tool step, no answer the user turned down, and none of Engram's own answers unless the
user accepted it or asks what the assistant said."""

from __future__ import annotations

from collections.abc import Sequence

from engram.assistant import intent
from engram.memory.outcomes import Outcomes
from engram.memory.records import EpisodeHit
from engram.memory.store import MemoryStore

# Messages embedded before a search: a big import is caught up by episode_index.Backfill, and
# its messages are found by their words until then.
INDEX_PER_TURN = 64


def readable(store: MemoryStore, found: Sequence[EpisodeHit], query: str) -> list[EpisodeHit]:
    """The earlier messages a search found that may be read back for ``query``: no tool step,
    no answer the user turned down, and none of Engram's own answers unless the user accepted it
    or asks what the assistant said (given its earlier answers, the 0.5B repeats them, right or
    wrong)."""
    wrong, accepted = Outcomes(store).judged([h.episode.id for h in found])
    answers = intent.asks_about_answers(query)
    return [
        h
        for h in found
        if h.episode.id not in wrong
        and h.episode.role != "tool"
        and (h.episode.role != "assistant" or answers or h.episode.id in accepted)
    ]
