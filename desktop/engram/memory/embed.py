"""Text embeddings behind a small interface, and the checks every stored vector must pass."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from engram.core.errors import InputError, ModelLoadError, tr

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


# The model reads at most 512 tokens (fewer than 8,000 characters in any language); what lies
# beyond is cut before tokenising, so a 5 MB message costs what its first page costs.
MAX_EMBED_CHARS = 8_000


class FastEmbedder:
    """A fastembed ONNX model loaded from a local folder on first use; thread-safe, batched."""

    def __init__(
        self,
        folder: Path,
        model_name: str,
        dim: int,
        batch_size: int = 64,
        languages: tuple[str, ...] = (),
    ) -> None:
        self.folder = folder
        self.model_name = model_name
        self._dim = dim
        # The languages its vectors tell apart (the catalogue's ISO codes; empty: not known).
        self.languages = languages
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self.model_name

    @property
    def dim(self) -> int:
        return self._dim

    def _load(self) -> Any:
        if self._model is None:
            from fastembed import TextEmbedding

            try:
                self._model = TextEmbedding(self.model_name, specific_model_path=str(self.folder))
            except Exception as exc:
                raise ModelLoadError(
                    tr("Cannot load the embedding model from {folder} ({error})."),
                    tr("Fetch the starter models again (`engram models fetch-starter`)."),
                    folder=self.folder,
                    error=str(exc),
                ) from exc
        return self._model

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        heads = [text[:MAX_EMBED_CHARS] for text in texts]
        with self._lock:
            model = self._load()
            out = np.asarray(list(model.embed(heads, batch_size=self.batch_size)), dtype=np.float32)
        return check_vectors(normalize(out), self._dim)


def minilm(folder: Path) -> FastEmbedder:
    """The starter embedding model (all-MiniLM-L6-v2, 384 dimensions) from ``folder``."""
    return FastEmbedder(folder, "sentence-transformers/all-MiniLM-L6-v2", 384)


def normalize(vectors: Vectors) -> Vectors:
    """Scale each row to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)


def check_vectors(vectors: Any, dim: int) -> Vectors:
    """Vectors as a float32 (n, dim) array, or InputError for a wrong shape, NaN or zero vector."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2 or array.shape[1] != dim:
        raise InputError(
            tr("A vector has shape {shape}, but the store uses {dim} dimensions."),
            tr("Embed with the store's embedding model, or re-embed the store for the new one."),
            shape=array.shape,
            dim=dim,
        )
    if not np.isfinite(array).all():
        raise InputError(
            tr("A vector contains NaN or infinity."), tr("Check the embedding model output.")
        )
    norms = np.linalg.norm(array, axis=1)
    if (norms < 1e-6).any():
        raise InputError(tr("A vector is all zeros."), tr("Check the embedding model output."))
    result: Vectors = (array / norms[:, None]).astype(np.float32)
    return result
