"""One reader per embedder model, shared across the process: its prototype sentences are
embedded once, on first use, whichever thread asks first."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import ClassVar, Self

import numpy as np

from engram.memory.embed import Embedder

# A message is read by each reader in turn (a correction, then the tools it asks for): embedded
# once, for all of them.
MESSAGES_CACHED = 8


class PerEmbedder:
    """A reader bound to one embedder; :meth:`of` gives every caller the same one per model.
    ``_lock`` also guards what a reader embeds lazily."""

    _readers: ClassVar[dict[tuple[type, str], PerEmbedder]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()
    _recent: ClassVar[OrderedDict[tuple[str, str], np.ndarray]] = OrderedDict()

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def vector(self, text: str) -> np.ndarray:
        """``text`` in this reader's embedding space (shared with the other readers)."""
        key = (self.embedder.model_id, text)
        with self._lock:
            found = self._recent.get(key)
        if found is None:
            found = self.embedder.embed([text])[0]
            with self._lock:
                self._recent[key] = found
                while len(self._recent) > MESSAGES_CACHED:
                    self._recent.popitem(last=False)
        return found

    @classmethod
    def of(cls, embedder: Embedder) -> Self:
        with cls._lock:
            key = (cls, embedder.model_id)
            reader = cls._readers.get(key)
            if reader is None:
                reader = cls._readers[key] = cls(embedder)
            assert isinstance(reader, cls)
            return reader
