"""Reading a message's meaning by its nearest prototype sentences, in the embedder's space.

Each language brings prototype sentences per act (``resources/reading/prototypes_<lang>.json``:
correction, instruction, preference, praise, ordinary). A message's score for an act is the mean
of its three closest prototypes of that act; the message corrects the answer before it when a
correction or an instruction scores highest and beats the ordinary messages by the embedder's
``correction_margin`` for that language (a catalogue floor, calibrated on the development
phrasing sets by ``bench/reading.py``). A model with no calibrated margin (the default, 1.0)
has no say here.
The prototypes are embedded once per embedder and language; a message costs one embedding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from engram.assistant.reading.shared import PerEmbedder
from engram.core import resources
from engram.memory.embed import MINILM_FLOORS, Embedder, Vectors, floors_of, reads_language
from engram.memory.text import text_language

ACTS = ("correction", "instruction", "preference", "praise", "ordinary")
CORRECTING = ("correction", "instruction")
NEAREST = 3  # prototypes a score averages


@dataclass(frozen=True)
class Act:
    """What a message does, as read: the act that scored highest, and by how much a correcting
    act beat the ordinary messages (``margin``)."""

    act: str
    margin: float


class MeaningReader(PerEmbedder):
    """The prototypes of each language embedded with one embedder; :meth:`of` shares one per
    embedder model across the process."""

    def __init__(self, embedder: Embedder) -> None:
        super().__init__(embedder)
        self._prototypes: dict[str, dict[str, Vectors]] = {}

    def _vectors(self, language: str) -> dict[str, Vectors]:
        with self._lock:
            if language not in self._prototypes:
                data = json.loads(resources.read_text("reading", f"prototypes_{language}.json"))
                self._prototypes[language] = {
                    act: self.embedder.embed(data["labels"][act]) for act in ACTS
                }
            return self._prototypes[language]

    def read(self, text: str) -> Act | None:
        """The act ``text`` reads as, or None where the embedder cannot read its language."""
        language = text_language(text)
        if not text.strip() or not reads_language(self.embedder, language):
            return None
        prototypes = self._vectors(language.split("_")[0])
        vector = self.vector(text)
        scores = {
            act: float(np.sort(vectors @ vector)[-NEAREST:].mean())
            for act, vectors in prototypes.items()
        }
        best = max(scores, key=lambda act: scores[act])
        margin = max(scores[a] for a in CORRECTING) - scores["ordinary"]
        return Act(best, margin)

    def corrects(self, text: str) -> bool | None:
        """Does ``text`` read as a correction or a standing instruction, past the embedder's
        calibrated margin for its language? None where this reader cannot say (a language the
        embedder does not read, or no margin calibrated for it)."""
        margin = floors_of(self.embedder, text_language(text)).correction_margin
        found = self.read(text) if margin < MINILM_FLOORS.correction_margin else None
        if found is None:
            return None
        return found.act in CORRECTING and found.margin >= margin
