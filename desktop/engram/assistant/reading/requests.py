"""Which tools a message asks for, read by its meaning in the embedder's space.

The built-in tools bring example requests per language, and each language brings messages that
need no tool (``resources/reading/tools_<lang>.json``); a tool of another source (an MCP
server's) is known by what it declares, its description and its name's words. A message's
score for a tool is how much closer it is to the tool's texts (the mean of its
:data:`NEAREST` closest) than to the messages that need none (the mean of their
:data:`NEAREST_NONE` closest). A tool is allowed past the embedder's calibrated margin for
that language (``tool_margin`` for example requests, ``tool_description_margin`` for a
description alone), and a built-in tool that only reads (the clock, the calculator) is
expected — called at once — when it leads every other tool and passes ``tool_expect_margin``.
The margins are calibrated by ``bench/tool_routing.py`` on the development request sets; a
model with no calibrated margin (the default, 1.0) has no say, and the cue rules of
:mod:`engram.assistant.tools.route` decide alone.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engram.assistant.reading.shared import PerEmbedder
from engram.core import resources
from engram.memory.embed import Embedder, Floors, Vectors, floors_of, reads_language
from engram.memory.text import text_language

NEAREST = 3  # example requests a tool's score averages
NEAREST_NONE = 3  # messages needing no tool the baseline averages
# The built-in tools that only read and take what they need from the message: a call of one
# costs nothing and answers better than the small model's guess, so meaning may expect it.
EXPECTABLE = frozenset({"calculator", "datetime"})


class Described(Protocol):
    """What the reader needs of a tool: its name and what it says it does."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def description_zh(self) -> str: ...


@dataclass(frozen=True)
class Requested:
    """The tools a message reads as asking for (``allowed``), the one it plainly asks for
    (``expected``, or None), and each tool's score (its margin over needing no tool)."""

    allowed: frozenset[str] = frozenset()
    expected: str | None = None
    scores: tuple[tuple[str, float], ...] = ()


def prototype_key(name: str) -> str:
    """The prototypes a built-in tool shares: the three file tools are one way of asking."""
    return name.split("_", maxsplit=1)[0]


class ToolReader(PerEmbedder):
    """The request prototypes of each language and the tools' descriptions, embedded with one
    embedder; :meth:`of` shares one per embedder model across the process."""

    def __init__(self, embedder: Embedder) -> None:
        super().__init__(embedder)
        self._prototypes: dict[str, tuple[dict[str, Vectors], Vectors]] = {}
        self._described: dict[tuple[str, str, str], Vectors] = {}

    def _language(self, language: str) -> tuple[dict[str, Vectors], Vectors]:
        with self._lock:
            if language not in self._prototypes:
                data = json.loads(resources.read_text("reading", f"tools_{language}.json"))
                tools = {key: self.embedder.embed(texts) for key, texts in data["tools"].items()}
                self._prototypes[language] = (tools, self.embedder.embed(data["none"]))
            return self._prototypes[language]

    def _description(self, tool: Described) -> Vectors:
        key = (tool.name, tool.description, tool.description_zh)
        with self._lock:
            if key not in self._described:
                words = tool.name.replace("_", " ").replace("-", " ").replace(".", " ")
                texts = dict.fromkeys(
                    t for t in (tool.description, tool.description_zh, words) if t
                )
                self._described[key] = self.embedder.embed(list(texts))
            return self._described[key]

    def scores(
        self, text: str, tools: Iterable[Described], built_in: Collection[str] = ()
    ) -> dict[str, tuple[float, bool]]:
        """Each tool's margin over needing no tool for ``text`` (in a language the embedder
        reads), and whether it was read from example requests (else its description).
        ``built_in``: the names of Engram's own tools, which bring example requests."""
        language = text_language(text).split("_", maxsplit=1)[0]
        prototypes, none = self._language(language)
        vector = self.vector(text)
        baseline = float(np.sort(none @ vector)[-NEAREST_NONE:].mean())
        found: dict[str, tuple[float, bool]] = {}
        for tool in tools:
            examples = prototypes.get(prototype_key(tool.name)) if tool.name in built_in else None
            if examples is not None:
                score = float(np.sort(examples @ vector)[-NEAREST:].mean())
            else:
                score = float((self._description(tool) @ vector).max())
            found[tool.name] = (score - baseline, examples is not None)
        return found

    def read(
        self, text: str, tools: Iterable[Described], built_in: Collection[str] = ()
    ) -> Requested | None:
        """The tools ``text`` asks for by its meaning, or None where this reader cannot say (a
        language the embedder does not read, or no margin calibrated for it)."""
        language = text_language(text)
        floors = floors_of(self.embedder, language)
        if (
            not text.strip()
            or not reads_language(self.embedder, language)
            or min(floors.tool_margin, floors.tool_description_margin) >= _UNCALIBRATED
        ):
            return None
        scores = self.scores(text, tools, built_in)
        allowed = frozenset(
            name for name, (score, examples) in scores.items() if score >= _margin(floors, examples)
        )
        ranked = sorted(scores, key=lambda name: scores[name][0], reverse=True)
        expected = None
        if ranked and ranked[0] in EXPECTABLE and ranked[0] in allowed:
            lead = scores[ranked[0]][0] - (scores[ranked[1]][0] if len(ranked) > 1 else 0.0)
            if scores[ranked[0]][0] >= floors.tool_expect_margin and lead > 0:
                expected = ranked[0]
        return Requested(allowed, expected, tuple((name, scores[name][0]) for name in ranked))


_UNCALIBRATED = Floors().tool_margin


def _margin(floors: Floors, examples: bool) -> float:
    return floors.tool_margin if examples else floors.tool_description_margin
