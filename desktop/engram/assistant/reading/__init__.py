"""The one place that reads a user's message for what it asks (issue 45's seam).

Exact commands ("remember this:", "forget that") are rules (:mod:`engram.assistant.intent`).
What a message *means* for the answer before it (a correction, a standing instruction) is read
by the embedder the turn already has: the message's nearest prototype sentences (:mod:`.meaning`)
decide wherever the embedder reads the message's language and has a calibrated margin for it.
Only where it cannot (an English-only embedder and a Chinese message) do the phrase rules of
:mod:`engram.assistant.intent` read it. A correction read here is the user's reaction to the
answer: it judges the answer, queues a learning job at once, and its words become a lesson.
"""

from __future__ import annotations

import dataclasses

from engram.assistant import intent
from engram.assistant.intent import Intent
from engram.assistant.reading.meaning import Act, MeaningReader
from engram.memory.embed import Embedder

__all__ = ["Act", "MeaningReader", "read"]


def read(text: str, embedder: Embedder | None = None) -> Intent:
    """What ``text`` asks for: its commands by the rules, and whether it corrects the answer
    before it by its meaning, with an ``embedder`` that reads it (else by the rules)."""
    said = intent.read(text)
    if said.remember is not None or said.forget or embedder is None:
        return said
    corrects = MeaningReader.of(embedder).corrects(text)
    if corrects is None or corrects == said.correction:
        return said
    return dataclasses.replace(said, correction=corrects, praise=said.praise and not corrects)
