"""Reading the user's words (assistant/reading): with the default multilingual embedder a
message's meaning decides whether it corrects the answer before it, in both languages and in
wording no rule knows; commands stay rules; an embedder with no calibrated margin leaves it to
the rules. Every sentence here was written for these tests (none is from an evaluation set)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tiny
from engram.assistant import intent, reading
from engram.assistant.reading import MeaningReader
from engram.assistant.session import embedder_of
from engram.memory import embed
from engram.models import catalogue, starter

USE = "use-multilingual-v3"


@pytest.fixture(scope="module")
def use_model(starter_models: Path) -> embed.Embedder:
    entry = catalogue.load().get(USE)
    starter.fetch([entry], report=lambda _line: None)
    return embedder_of(entry)


@pytest.mark.parametrize(
    "text",
    [
        "nah, I asked for grams, not cups",
        "too long, just give me the two main steps",
        "不是这个意思，我要的是简短的版本",
        "以后回复我都别用英文",
    ],
)
def test_corrections_in_the_users_own_words_are_read(use_model: embed.Embedder, text: str) -> None:
    assert reading.read(text, use_model).correction


@pytest.mark.parametrize(
    "text",
    [
        "What's a good name for a goldfish?",
        "My neighbour always parks in front of my garage.",
        "明天早上几点的火车去苏州？",
        "谢谢，那顺便推荐一家咖啡馆吧",
    ],
)
def test_ordinary_messages_are_not_read_as_corrections(
    use_model: embed.Embedder, text: str
) -> None:
    assert not reading.read(text, use_model).correction


def test_commands_stay_rules(use_model: embed.Embedder) -> None:
    kept = reading.read("remember this: I prefer window seats", use_model)
    assert kept.remember == "I prefer window seats" and not kept.correction
    assert reading.read("forget that", use_model).forget


def test_the_reader_has_no_say_without_a_calibrated_margin(starter_models: Path) -> None:
    english_only = embedder_of(catalogue.load().get(tiny.EMBEDDER))
    assert embed.floors_of(english_only, "en").correction_margin == 1.0
    assert MeaningReader.of(english_only).corrects("nah, I asked for grams, not cups") is None
    text = "No, that's wrong: it's in Berlin."  # the rules read this one
    assert reading.read(text, english_only) == intent.read(text)


def test_acts_and_margins_are_read(use_model: embed.Embedder) -> None:
    reader = MeaningReader.of(use_model)
    found = reader.read("I'm allergic to shellfish, by the way.")
    assert found is not None and found.act == "preference"
    assert reader.read("   ") is None
