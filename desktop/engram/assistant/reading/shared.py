"""One reader per embedder model, shared across the process: its prototype sentences are
embedded once, on first use, whichever thread asks first."""

from __future__ import annotations

import threading
from typing import ClassVar, Self

from engram.memory.embed import Embedder


class PerEmbedder:
    """A reader bound to one embedder; :meth:`of` gives every caller the same one per model.
    ``_lock`` also guards what a reader embeds lazily."""

    _readers: ClassVar[dict[tuple[type, str], PerEmbedder]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    @classmethod
    def of(cls, embedder: Embedder) -> Self:
        with cls._lock:
            key = (cls, embedder.model_id)
            reader = cls._readers.get(key)
            if reader is None:
                reader = cls._readers[key] = cls(embedder)
            assert isinstance(reader, cls)
            return reader
