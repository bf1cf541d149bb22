"""Tools benchmark: what the tool list and the tool loop cost, and MCP calls against the bare SDK.

Run: ``.venv/bin/python bench/tools.py [--reps N]``. In one run, on a temporary ENGRAM_HOME:

1. A turn that calls no tool, on the starter model, with the tool list in the prompt and without:
   time from Enter to the first token after the draft was prefetched (as the window does while
   the user types), and the prompt tokens llama.cpp re-evaluated at Enter. Target ratio <= 1.05.
2. The loop's own cost per tool step (parse, validate, permission, run bookkeeping, the next
   prompt, storing the step), excluding the tool's run time and generation: a scripted model
   that answers at once, on a real SQLite file. Target p95 <= 20 ms.
3. An MCP stdio server (tests/mcp_server.py): the first call (start included) and later calls
   through McpHub against the SDK alone in the same run. Target ratio <= 1.2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
os.environ["ENGRAM_HOME"] = tempfile.mkdtemp(prefix="engram-bench-tools-")

from engram.assistant.events import Token  # noqa: E402
from engram.assistant.session import open_session  # noqa: E402
from engram.assistant.tools import builtins, loop  # noqa: E402
from engram.assistant.tools.base import Registry, Tool, ToolContext  # noqa: E402
from engram.assistant.tools.mcp import McpHub, ServerConfig  # noqa: E402
from engram.assistant.turn.pipeline import Assistant  # noqa: E402
from engram.core import paths  # noqa: E402
from engram.core.settings import Settings, ToolSettings  # noqa: E402
from engram.memory import db  # noqa: E402
from engram.memory.episodes import EpisodeLog  # noqa: E402
from engram.models.capabilities import Capabilities  # noqa: E402

SERVER = [sys.executable, str(REPO / "tests" / "mcp_server.py")]
MESSAGES = [
    "Hello! How are you today?",
    "Can you suggest a name for a small black cat?",
    "What should I cook for dinner tonight?",
    "Give me one tip for sleeping better.",
    "Thanks, that helps.",
]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# -- 1. time to first token with and without the tool list ------------------------------------


def ttft(reps: int) -> None:
    results: dict[str, list[tuple[float, int, int]]] = {"without tools": [], "with tools": []}
    for rep in range(reps):
        for label in results if rep % 2 == 0 else reversed(results):
            tools = ToolSettings(enabled=label == "with tools")
            session = open_session(Settings(max_answer_tokens=16, tools=tools))
            try:
                assistant = session.assistant
                conversation = assistant.new_conversation("bench")
                for text in MESSAGES:
                    assistant.prefetch(conversation, text)
                    start = time.perf_counter()
                    first = None
                    for event in assistant.turn(conversation, text):
                        if first is None and isinstance(event, Token):
                            first = time.perf_counter() - start
                    stats = session.model.last_stats
                    assert stats is not None and first is not None
                    results[label].append((first, stats.evaluated_tokens, stats.prompt_tokens))
            finally:
                session.close()
    print("1. Turn without a tool call (starter model, prefetched draft), per turn:")
    medians = {}
    for label, rows in results.items():
        firsts = [r[0] for r in rows]
        medians[label] = statistics.median(firsts)
        print(
            f"   {label:14} TTFT median {medians[label] * 1000:6.1f} ms, p95 "
            f"{_pct(firsts, 0.95) * 1000:6.1f} ms; re-evaluated at Enter median "
            f"{statistics.median(r[1] for r in rows):.0f} of "
            f"{statistics.median(r[2] for r in rows):.0f} prompt tokens"
        )
    ratio = medians["with tools"] / medians["without tools"]
    print(f"   ratio with/without: {ratio:.3f} (target <= 1.05)")


# -- 2. the loop's own cost per step ----------------------------------------------------------


class InstantModel:
    """Answers from a script at once: only the loop's own work is timed."""

    n_ctx = 4096
    capabilities = Capabilities(chat_template="")  # a template in the JSON call format

    def __init__(self) -> None:
        self.script: list[str] = []
        self.last = ""

    def count_tokens(self, text: str) -> int:
        return len(text) // 4 + 1

    def stream_chat(
        self, messages: Any, max_tokens: int = 0, cancelled: Any = None, **options: Any
    ) -> Iterator[str]:
        if "grammar" not in options:  # a call is written again under the grammar: the same one
            self.last = self.script.pop(0)
        yield self.last

    def prefill(self, messages: Any, cancelled: Any = None, **_: Any) -> int:
        return 0


def _echo(arguments: dict[str, Any], _ctx: ToolContext) -> str:
    return f"echo: {arguments['text']}"


def loop_overhead(turns: int, steps: int = 4) -> None:
    conn = db.connect(paths.database_path())
    try:
        registry = Registry()
        schema = {"type": "object", "properties": {"text": {"type": "string"}}}
        registry.add(Tool("echo", "Echo.", "回显。", schema, _echo))
        model = InstantModel()
        toolbox = loop.Toolbox(registry, max_steps=steps)
        assistant = Assistant(EpisodeLog(conn), model, max_answer_tokens=16, tools=toolbox)  # type: ignore[arg-type]
        call = '{"tool": "echo", "arguments": {"text": "x"}}'
        per_step: list[float] = []
        timed = _timer(assistant, model)
        timed([call] * steps + ["done"])  # warm-up: grammar built, statements prepared
        for _ in range(turns):
            plain = timed(["done"])
            with_steps, tool_s = timed([call] * steps + ["done"], tools=True)
            per_step.append((with_steps - plain - tool_s) / steps)
        print(f"2. Loop overhead per tool step ({turns} turns of {steps} steps, real SQLite):")
        print(
            f"   p50 {statistics.median(per_step) * 1000:.2f} ms, p95 "
            f"{_pct(per_step, 0.95) * 1000:.2f} ms (target p95 <= 20 ms)"
        )
    finally:
        conn.close()


def _timer(assistant: Assistant, model: InstantModel) -> Callable[..., Any]:
    def timed(script: list[str], tools: bool = False) -> Any:
        model.script = list(script)
        start = time.perf_counter()
        events = list(assistant.turn(0, "Echo x please."))
        spent = time.perf_counter() - start
        tool_s = sum(getattr(e, "duration_s", 0.0) for e in events)
        return (spent, tool_s) if tools else spent

    return timed


# -- 3. MCP stdio against the bare SDK --------------------------------------------------------


async def _bare(calls: int) -> tuple[float, list[float]]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    start = time.perf_counter()
    params = StdioServerParameters(command=SERVER[0], args=SERVER[1:])
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            await session.list_tools()
            await session.call_tool("echo", {"text": "x"})
            first = time.perf_counter() - start
            later = []
            for _ in range(calls):
                t = time.perf_counter()
                await session.call_tool("echo", {"text": "x"})
                later.append(time.perf_counter() - t)
    return first, later


def _hub(calls: int) -> tuple[float, list[float]]:
    start = time.perf_counter()
    hub = McpHub([ServerConfig("bench", SERVER[0], tuple(SERVER[1:]))])
    try:
        tools = builtins.registry(more=hub.tools("bench"))
        tools.call("echo", {"text": "x"}, ToolContext())
        first = time.perf_counter() - start
        later = []
        for _ in range(calls):
            t = time.perf_counter()
            tools.call("echo", {"text": "x"}, ToolContext())
            later.append(time.perf_counter() - t)
    finally:
        hub.close()
    return first, later


def mcp(reps: int, calls: int = 30) -> None:
    firsts: dict[str, list[float]] = {"SDK alone": [], "McpHub": []}
    laters: dict[str, list[float]] = {"SDK alone": [], "McpHub": []}
    for rep in range(reps):
        for label in firsts if rep % 2 == 0 else reversed(firsts):
            first, later = asyncio.run(_bare(calls)) if label == "SDK alone" else _hub(calls)
            firsts[label].append(first)
            laters[label] += later
    print(f"3. MCP stdio server, {reps} starts and {reps * calls} later calls each:")
    for label, started in firsts.items():
        print(
            f"   {label:10} first call (start included) median "
            f"{statistics.median(started) * 1000:7.1f} ms; later calls median "
            f"{statistics.median(laters[label]) * 1000:5.2f} ms, p95 "
            f"{_pct(laters[label], 0.95) * 1000:5.2f} ms"
        )
    first_ratio = statistics.median(firsts["McpHub"]) / statistics.median(firsts["SDK alone"])
    later_ratio = statistics.median(laters["McpHub"]) / statistics.median(laters["SDK alone"])
    print(f"   ratio first {first_ratio:.3f}, later {later_ratio:.3f} (target <= 1.2)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4)
    args = parser.parse_args()
    mcp(max(2, args.reps))
    loop_overhead(turns=20 * args.reps)
    ttft(args.reps)


if __name__ == "__main__":
    main()
