"""Tools chosen by meaning (assistant/reading/requests.py, tools/route.py): with an embedder that
reads the message's language, the common ways to ask the time, the date and the weekday call the
clock at once in both languages, where the cue rules alone miss them; look-alikes get no tool;
a tool of another source is offered by its description; an embedder with no calibrated margins
leaves routing to the rules. Every sentence here was written for these tests (none is from an
evaluation set or the reader's prototypes)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tiny
from engram.assistant.reading.requests import ToolReader
from engram.assistant.session import embedder_of
from engram.assistant.tools import builtins
from engram.assistant.tools.base import Registry, Tool
from engram.assistant.tools.permissions import BUILT_IN
from engram.assistant.tools.route import route
from engram.memory import embed
from engram.models import catalogue, starter

USE = "use-multilingual-v3"


def _forecast() -> Tool:
    return Tool(
        name="lookup_forecast",
        description="Weather forecast for a place: temperature, rain and wind.",
        description_zh="某地的天气预报：气温、降雨和风力。",
        schema={"type": "object", "properties": {}},
        run=lambda arguments, ctx: "",
        needs_permission=True,
        source="weather-server",
    )


@pytest.fixture(scope="module")
def use_model(starter_models: Path) -> embed.Embedder:
    entry = catalogue.load().get(USE)
    starter.fetch([entry], report=lambda _line: None)
    return embedder_of(entry)


@pytest.fixture(scope="module")
def minilm(starter_models: Path) -> embed.Embedder:
    return embedder_of(catalogue.load().get(tiny.EMBEDDER))


@pytest.fixture()
def tools() -> Registry:
    return builtins.registry(more=[_forecast()])


@pytest.mark.parametrize(
    "text",
    [
        "Got the time?",
        "Could you check what today's date is?",
        "Is today Tuesday by any chance?",
        "Which weekday are we on?",
        "今儿礼拜几？",
        "请问今天是几月几日？",
    ],
)
def test_asking_the_time_or_the_date_calls_the_clock(
    use_model: embed.Embedder, tools: Registry, text: str
) -> None:
    assert route(text, tools, embedder=use_model).expected == "datetime"


def test_the_rules_alone_miss_what_meaning_reads(
    use_model: embed.Embedder, tools: Registry
) -> None:
    for text in ("Got the time?", "Is today Tuesday by any chance?"):
        assert route(text, tools).expected is None
        assert route(text, tools, embedder=use_model).expected == "datetime"


@pytest.mark.parametrize(
    "text",
    [
        "Time heals all wounds, they say.",
        "Tuesday was a disaster at work.",
        "我们的时间观念不一样。",
        "My grandmother tells the best stories about rain.",
    ],
)
def test_look_alikes_get_no_tool(use_model: embed.Embedder, tools: Registry, text: str) -> None:
    routed = route(text, tools, embedder=use_model)
    assert routed.allowed == frozenset() and routed.expected is None


def test_a_tool_of_another_source_is_offered_by_its_description(
    use_model: embed.Embedder, tools: Registry
) -> None:
    text = "What's the forecast for Lyon this weekend, any rain?"
    assert "lookup_forecast" in route(text, tools, embedder=use_model).allowed
    assert (
        "lookup_forecast"
        not in route("Tell me a story about a lighthouse.", tools, embedder=use_model).allowed
    )


def test_remember_is_not_offered_for_kept_words(use_model: embed.Embedder, tools: Registry) -> None:
    text = "Please remember that the spare key is under the blue pot."
    assert "remember" in route(text, tools, embedder=use_model).allowed
    assert "remember" not in route(text, tools, kept=True, embedder=use_model).allowed


def test_an_embedder_without_calibrated_margins_leaves_routing_to_the_rules(
    use_model: embed.Embedder, minilm: embed.Embedder, tools: Registry
) -> None:
    text = "Got the time?"
    # MiniLM reads no Chinese: the rules alone route a Chinese message with it
    assert ToolReader.of(minilm).read("现在几点钟啦？", list(tools)) is None
    folder = catalogue.load().get(USE).folder()
    uncalibrated = embed.UseEmbedder(folder, "use-uncalibrated", use_model.dim, ("en", "zh"))
    assert ToolReader.of(uncalibrated).read(text, list(tools)) is None
    assert route(text, tools, embedder=uncalibrated) == route(text, tools)


def test_scores_rank_the_asked_tool_first(use_model: embed.Embedder, tools: Registry) -> None:
    built_in = {t.name for t in tools if t.source == BUILT_IN}
    found = ToolReader.of(use_model).read("What is 12 percent of 380 euros?", list(tools), built_in)
    assert found is not None and found.scores[0][0] == "calculator"
