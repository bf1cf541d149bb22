"""The models an evaluation runs on, from settings: the small model answers, the large one learns
(and judges), the embedder fills each sample's store; loaded for the run and freed after it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from engram.assistant.learning.distiller_backends import DistillerSource, LocalDistiller
from engram.assistant.session import embedder_for
from engram.core.settings import Settings
from engram.memory.embed import Embedder
from engram.models import roles
from engram.models.background import LazyModel
from engram.models.local import LocalModel


@dataclass(frozen=True)
class Models:
    """The loaded models of one evaluation run."""

    small: LocalModel
    large: LocalModel
    embedder: Embedder

    def distiller(self) -> DistillerSource:
        """The large model as the distiller of a task run (loaded for the whole run)."""
        return LocalDistiller(LazyModel(lambda: self.large, float("inf")))


@contextmanager
def loaded(settings: Settings) -> Iterator[Models]:
    """Load the settings' small and large models and embedder; free them when the run ends."""
    small = roles.load_local(settings, "small")
    try:
        large = roles.load_local(settings, "large")
        try:
            yield Models(small, large, embedder_for(settings))
        finally:
            large.close()
    finally:
        small.close()
