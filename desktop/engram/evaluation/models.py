"""The models an evaluation runs on, from settings: the small model answers, the large one learns
(and judges), the embedder fills each sample's store; loaded for the run and freed after it.

Answers are greedy (temperature 0), so the same models give the same answers run after run; the
large model's answers are greedy too, and kept by their exact input for the run, so a conversation
two conditions distil alike is distilled once.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from engram.assistant.events import LargeModelState
from engram.assistant.learning.distill import StructuredModel
from engram.assistant.learning.distiller_backends import (
    Cancelled,
    DistillerSource,
    LocalDistiller,
)
from engram.assistant.session import embedder_for
from engram.core.messages import Message
from engram.core.settings import Settings
from engram.memory.embed import Embedder
from engram.models import roles
from engram.models.background import LazyModel
from engram.models.local import LocalModel

# What a run reports as it goes: units done, units in all, what just happened.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Models:
    """The loaded models of one evaluation run."""

    small: LocalModel
    large: LocalModel
    embedder: Embedder
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)

    def distiller(self) -> DistillerSource:
        """The large model as the distiller of a task run (loaded for the whole run)."""
        return Replaying(LocalDistiller(LazyModel(lambda: self.large, float("inf"))), self.answers)


class Replaying:
    """A distiller whose answers are kept by their exact input: asked the same again, it gives
    the same answer without running (what a greedy model would have said anyway)."""

    def __init__(self, source: DistillerSource, answers: dict[str, dict[str, Any]]) -> None:
        self.source = source
        self.origin = source.origin
        self.answers = answers

    def acquire(self, cancelled: Cancelled) -> StructuredModel:
        return _Replayed(self.source.acquire(cancelled), self.answers)

    def state(self) -> LargeModelState:
        return self.source.state()

    def idle(self) -> None:
        self.source.idle()


@dataclass
class _Replayed:
    model: StructuredModel
    answers: dict[str, dict[str, Any]]

    def structured(
        self, messages: Sequence[Message], json_schema: dict[str, Any], max_tokens: int = 768
    ) -> dict[str, Any]:
        key = json.dumps([list(messages), json_schema, max_tokens], sort_keys=True)
        if key not in self.answers:
            self.answers[key] = self.model.structured(messages, json_schema, max_tokens)
        return copy.deepcopy(self.answers[key])  # the caller may change it


@contextmanager
def loaded(settings: Settings) -> Iterator[Models]:
    """Load the settings' small and large models and embedder; free them when the run ends."""
    small = roles.load_local(settings, "small")
    small.temperature = 0.0
    try:
        large = roles.load_local(settings, "large")
        try:
            yield Models(small, large, embedder_for(settings))
        finally:
            large.close()
    finally:
        small.close()


def identities(settings: Settings) -> dict[str, str]:
    """role -> the model's catalogue id and its file's sha256 (what a report names)."""
    found = {}
    for role in ("small", "large", "embedding"):
        entry = roles.entry_for(settings, role)
        sha = entry.files[0].sha256 if entry.files else None
        found[role] = f"{entry.id} (sha256 {sha})" if sha else entry.id
    return found
