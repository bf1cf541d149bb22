"""Shared pieces for the consolidation tests: a scripted distiller and a store on a real file.

The scripted distiller is for exact-output checks and fault injection only; the same paths run
with the real starter model in ``test_consolidation_model.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from engram.assistant.events import LargeModelState
from engram.assistant.learning import distill, reconcile
from engram.assistant.learning.distill import StructuredModel
from engram.core.messages import Message
from engram.memory import embed
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore

Answer = Callable[[list[Message]], dict[str, Any]]


def minilm(models_dir: Path) -> embed.FastEmbedder:
    return embed.minilm(models_dir / "all-minilm-l6-v2-int8")


def episode_ids(messages: Sequence[Message]) -> list[int]:
    """The ``[id]`` numbers of the transcript in a distill request."""
    return [int(i) for i in re.findall(r"^\[(\d+)\]", messages[-1]["content"], re.MULTILINE)]


def memories_answer(*items: tuple[str, str], summary: str = "") -> Answer:
    """A distill answer citing the first episode of the request for every memory."""

    def answer(messages: list[Message]) -> dict[str, Any]:
        ids = episode_ids(messages)[:1]
        return {
            "memories": [
                {
                    "kind": kind,
                    "content": content,
                    "applies_to": [],
                    "importance": 4,
                    "episodes": ids,
                }
                for kind, content in items
            ],
            "summary": summary,
            "plan": {"goal": "", "steps": [], "current_step": 0},
        }

    return answer


class ScriptedModel:
    """Answers distill, reconcile and "is this memory still true" (``untrue``) requests from
    scripts; records every request."""

    def __init__(
        self,
        distill_answer: Answer,
        reconcile_answer: Answer | None = None,
        fail: Exception | None = None,
        untrue_answer: Answer | None = None,
        example_answer: Answer | None = None,
    ) -> None:
        self.distill_answer = distill_answer
        self.reconcile_answer = reconcile_answer or (
            lambda _m: {"decision": "add", "target_id": 0, "content": ""}
        )
        self.untrue_answer = untrue_answer or (lambda _m: {"memory": "still true"})
        self.example_answer = example_answer or (lambda _m: {"lines": [""]})
        self.fail = fail
        self.calls: list[tuple[str, list[Message]]] = []

    def structured(
        self, messages: Sequence[Message], json_schema: dict[str, Any], max_tokens: int = 512
    ) -> dict[str, Any]:
        if self.fail is not None:
            raise self.fail
        answers = {
            "reconcile": self.reconcile_answer,
            "untrue": self.untrue_answer,
            "distill": self.distill_answer,
            "example": self.example_answer,
        }
        if json_schema is reconcile.SCHEMA:
            kind = "reconcile"
        elif json_schema is reconcile.UNTRUE_SCHEMA:
            kind = "untrue"
        elif json_schema is distill.EXAMPLE_SCHEMA:
            kind = "example"
        else:
            kind = "distill"
            assert json_schema == distill.schema(distill.Limits())
        self.calls.append((kind, list(messages)))
        return answers[kind](list(messages))


class ScriptedSource:
    """A DistillerSource handing out one scripted model (or failing to)."""

    origin = "local"

    def __init__(self, model: StructuredModel | None, error: Exception | None = None) -> None:
        self.model = model
        self.error = error
        self.acquired = 0

    def acquire(self, cancelled: Callable[[], bool]) -> StructuredModel:
        self.acquired += 1
        if self.error is not None:
            raise self.error
        assert self.model is not None
        return self.model

    def state(self) -> LargeModelState:
        return "loaded"

    def idle(self) -> None:
        pass


def chat(store: MemoryStore, turns: Sequence[tuple[str, str]], title: str = "") -> list[int]:
    """Store a conversation of (user, assistant) pairs; returns the episode ids."""
    log = EpisodeLog(store.conn)
    conversation = log.new_conversation(title)
    ids = []
    for user, assistant in turns:
        ids.append(log.append(conversation.id, "user", user).id)
        ids.append(log.append(conversation.id, "assistant", assistant).id)
    return ids
