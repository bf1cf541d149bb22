"""Routing a message to a tool: by the cue rules alone, and as the turn routes (rules and meaning).

On a request set (``resources/eval/tool_requests_<lang>.json``: messages that need one tool,
and look-alikes that need none, with the extra tools an MCP server would declare), with the
built-in tools and those extra tools installed, for the rules alone
(``tools.route`` without an embedder) and as the turn routes (``route`` with the embedder:
``assistant/reading/requests.py`` adds what the message's meaning asks for):

- offered: messages that need a tool and get it allowed (for the three file tools, any);
- called at once: clock and calculator requests whose call is expected (made under a grammar);
- needing none, offered one: look-alikes that get any tool allowed;
- needing none, called one: look-alikes that get a call made at once.

``--calibrate`` finds, on a development set, the smallest margins at which at most
``--target`` of the look-alikes get a tool offered (``tool_margin``, then
``tool_description_margin`` for tools known by their description alone) and at most half of
that get a call made at once (``tool_expect_margin``), and prints them for models.toml
(``[model.floors.<lang>]``). Without it the margins are the catalogue's. A blind set
(``bench/data/blind/``) is only ever measured.

    .venv/bin/python bench/tool_routing.py [--set FILE ...] [--model ID] [--calibrate]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import margins
from engram.assistant.reading.requests import EXPECTABLE, ToolReader
from engram.assistant.session import embedder_of
from engram.assistant.tools import builtins
from engram.assistant.tools.base import Registry, Tool
from engram.assistant.tools.permissions import BUILT_IN
from engram.assistant.tools.route import Route, route
from engram.memory.embed import Embedder, floors_of
from engram.models import catalogue

ROOT = Path(__file__).resolve().parents[1]
DEV = [ROOT / "resources/eval/tool_requests_en.json", ROOT / "resources/eval/tool_requests_zh.json"]
TARGET = 0.05
FILES = "files"  # the set's name for any of the three file tools


def installed(declared: Sequence[dict[str, str]]) -> Registry:
    """The built-in tools and the set's extra tools, as an MCP server would declare them."""
    more = [
        Tool(
            name=t["name"],
            description=t["description"],
            description_zh=t["description"],
            schema={"type": "object", "properties": {}},
            run=lambda arguments, ctx: "",
            needs_permission=True,
            source="bench",
        )
        for t in declared
    ]
    return builtins.registry(more=more)


def got(tool: str | None, routed: Route) -> bool:
    """Was the needed tool allowed?"""
    if tool == FILES:
        return any(name.startswith("files_") for name in routed.allowed)
    return tool in routed.allowed


def _rate(hits: Sequence[bool]) -> str:
    return f"{sum(hits)}/{len(hits)} ({sum(hits) / max(len(hits), 1):.2f})"


def report(items: list[dict[str, Any]], routes: dict[str, list[Route]]) -> None:
    needing = [n for n, i in enumerate(items) if i["tool"] is not None]
    none = [n for n, i in enumerate(items) if i["tool"] is None]
    expectable = [n for n in needing if items[n]["tool"] in EXPECTABLE]
    for name, found in routes.items():
        offered = [got(items[n]["tool"], found[n]) for n in needing]
        called = [found[n].expected == items[n]["tool"] for n in expectable]
        wrong_call = [
            found[n].expected is not None and found[n].expected != items[n]["tool"] for n in needing
        ]
        print(
            f"  {name:8} offered {_rate(offered)}  clock/calculator called at once "
            f"{_rate(called)}  another called {_rate(wrong_call)}\n"
            f"  {'':8} needing none: offered one {_rate([bool(found[n].allowed) for n in none])}"
            f"  called one {_rate([found[n].expected is not None for n in none])}"
        )


def calibrate(
    items: list[dict[str, Any]], reader: ToolReader, registry: Registry, target: float
) -> dict[str, float]:
    """The margins at which at most ``target`` of the look-alikes get a tool offered by
    example requests and by descriptions, and half that get a clock or calculator call."""
    none = [i for i in items if i["tool"] is None]
    tools = list(registry)
    built_in = {t.name for t in tools if t.source == BUILT_IN}
    scores = [reader.scores(i["text"], tools, built_in) for i in none]
    by_examples = [max(s for s, ex in found.values() if ex) for found in scores]
    by_description = [
        max((s for s, ex in found.values() if not ex), default=-1.0) for found in scores
    ]
    leading = [max(found[name][0] for name in EXPECTABLE if name in found) for found in scores]
    return {
        "tool_margin": margins.above(by_examples, target, len(none)),
        "tool_description_margin": margins.above(by_description, target, len(none)),
        "tool_expect_margin": margins.above(leading, target / 2, len(none)),
    }


def routes_of(
    items: list[dict[str, Any]], registry: Registry, embedder: Embedder
) -> dict[str, list[Route]]:
    ways: dict[str, Callable[[str], Route]] = {
        "rules": lambda text: route(text, registry),
        "turn": lambda text: route(text, registry, embedder=embedder),
    }
    return {name: [way(i["text"]) for i in items] for name, way in ways.items()}


def main() -> int:
    args = margins.arguments(__doc__, DEV, TARGET)
    embedder: Any = embedder_of(catalogue.load().get(args.model))
    reader = ToolReader.of(embedder)
    for path in args.set:
        data = json.loads(path.read_text("utf-8"))
        items, language = data["items"], data["language"]
        registry = installed(data.get("tools", []))
        if args.calibrate:
            found = calibrate(items, reader, registry, args.target)
            print(f"[model.floors.{language.split('_')[0]}]")
            for name, value in found.items():
                print(f"{name} = {value}")
            # the routes below with these margins: the embedder's own table, in this process
            embedder.floors[language.split("_")[0]] = floors_of(embedder, language).replaced(found)
        print(f"{path.name} ({args.model}):")
        report(items, routes_of(items, registry, embedder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
