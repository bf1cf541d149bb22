"""The tool loop of one answer: the model may call a tool, read its result and go on, up to a
step limit, then answers. Runs with whichever model answers (small, or large when escalated).

The tool list sits in the stable front of the prompt (the system part, or the template's tool
section), so a turn that calls nothing costs about what it did without tools. Results are
untrusted data: they pass the prompt sanitiser and go back to the model as tool messages.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import Any

from engram.assistant.events import ToolCalled, ToolResult
from engram.assistant.tools import calls
from engram.assistant.tools.base import (
    MAX_RESULT_CHARS,
    Registry,
    Tool,
    ToolContext,
    ToolOutput,
    cut,
)
from engram.assistant.tools.permissions import Permissions
from engram.core import log
from engram.core.errors import EngramError, Problem, tr

_log = log.get("assistant.tools.loop")
DEFAULT_MAX_STEPS = 4
# Per-message overhead of a chat template (role headers, separators), in tokens, when fitting.
MESSAGE_OVERHEAD_TOKENS = 8
SHORTER_RESULTS = (2000, 1000, 400, 100)  # result lengths tried when the context is full
Message = dict[str, Any]
LoopEvent = str | ToolCalled | ToolResult  # a piece of the answer, or a step


def _transcript(
    fmt: str, made: list[tuple[Message, str, ToolOutput, str]], limit: int
) -> list[Message]:
    """The steps so far as messages, each result cut to ``limit`` characters."""
    transcript: list[Message] = []
    for said, name, output, text in made:
        shown, left_out = cut(text, limit)
        if left_out:
            shown = (
                shown.rsplit("\n", 1)[0]
                + f"\n[… {left_out:,} characters left out: the context is full]"
            )
        transcript += [said, calls.result_message(fmt, name, output, shown)]
    return transcript


def _fitted(
    fmt: str,
    made: list[tuple[Message, str, ToolOutput, str]],
    messages: list[Message],
    model: Any,
    max_tokens: int,
) -> list[Message]:
    """The steps so far, results shortened as much as it takes for the prompt to leave room
    for an answer (the context holds the conversation, the steps and the answer)."""
    transcript = _transcript(fmt, made, MAX_RESULT_CHARS)
    if not made or not hasattr(model, "n_ctx"):
        return transcript
    room = model.n_ctx - max_tokens - _tokens(model, messages)
    for limit in SHORTER_RESULTS:
        if _tokens(model, transcript) <= room:
            break
        transcript = _transcript(fmt, made, limit)
    return transcript


def _tokens(model: Any, chat: list[Message]) -> int:
    return sum(
        model.count_tokens(str(m.get("content") or "")) + MESSAGE_OVERHEAD_TOKENS for m in chat
    )


def can_call(model: object) -> bool:
    """Whether a model can be offered tools: a local model with its chat template (tools rendered
    by it or a grammar); other runtimes answer without tools."""
    return hasattr(model, "chat_template")


@dataclass(frozen=True)
class Step:
    """One call and its result, as stored in the conversation."""

    call: calls.ToolCall
    output: ToolOutput

    def text(self) -> str:
        """The step as a ``tool`` episode: the call, then what it gave back (failures too: the
        distiller learns from them)."""
        said = (
            json.dumps(self.call.arguments, ensure_ascii=False) if self.call.ok else self.call.raw
        )
        error = "error: " if self.output.is_error else ""
        return f"{self.call.name or '?'} {said}\n→ {error}{self.output.text}"


@dataclass
class Toolbox:
    """The tools an assistant may call, who allows them, and how many calls an answer may make."""

    registry: Registry
    permissions: Permissions = field(default_factory=Permissions)
    context: ToolContext = field(default_factory=ToolContext)
    max_steps: int = DEFAULT_MAX_STEPS
    more: Callable[[], Iterable[Tool]] | None = None  # MCP tools, listed when first needed
    _grammar: Any = field(default=None, repr=False)

    def tools(self) -> Registry:
        """The registry, with the tools of ``more`` added the first time it is asked for."""
        more, self.more = self.more, None
        for tool in more() if more is not None else ():
            try:
                self.registry.add(tool)
            except EngramError as exc:
                _log.warning("tool left out: %s", type(exc).__name__)
        return self.registry

    def format_of(self, model: object) -> str:
        """The call format of ``model``'s chat template (``json`` for models without one)."""
        return calls.detect(str(getattr(model, "chat_template", "") or ""))

    def system_text(self, model: object, language: str) -> str:
        """What the system part says about tools ('' when the template renders them itself)."""
        if not len(self.tools()) or self.format_of(model) != calls.JSON:
            return ""
        return calls.instructions(self.registry, language)

    def template_tools(self, model: object, language: str) -> list[dict[str, Any]] | None:
        """The tool specs the chat template renders (None for the ``json`` format)."""
        if not len(self.tools()) or self.format_of(model) == calls.JSON:
            return None
        return self.registry.specs(language)

    def grammar(self) -> Any:
        """The llama.cpp grammar of one call in the ``json`` format (built once)."""
        if self._grammar is None:
            from llama_cpp.llama_grammar import LlamaGrammar

            text = calls.grammar(self.tools())
            self._grammar = LlamaGrammar.from_string(text, verbose=False)
        return self._grammar

    def run(self, call: calls.ToolCall, conversation_id: int) -> ToolOutput:
        """Run one call the model made: unreadable, unknown, wrongly typed or denied calls
        give an error output the model can read."""
        start = time.perf_counter()
        if not call.ok:
            problem = Problem(
                tr("The tool call could not be read: {error}. Write one JSON object."),
                error=call.error,
            )
            return ToolOutput(problem.message, True, time.perf_counter() - start)
        found = self.registry.check(call.name, call.arguments)
        tool = self.registry.get(call.name)
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        if found is None and tool is not None and not self.permissions.allowed(tool, arguments):
            found = Problem(
                tr("The user did not allow {name} to run. Answer without it."), name=tool.name
            )
        if found is not None:
            return ToolOutput(found.message, True, time.perf_counter() - start)
        ctx = replace(self.context, conversation_id=conversation_id)
        return self.registry.call(call.name, call.arguments, ctx)


def answer(
    toolbox: Toolbox,
    model: Any,
    messages: list[Message],
    *,
    language: str,
    conversation_id: int,
    max_tokens: int,
    cancelled: Callable[[], bool],
    clean: Callable[[str], str],
    steps: list[Step],
) -> Iterator[LoopEvent]:
    """Stream an answer that may call tools: its text pieces, and an event for each call and
    result (each step is also appended to ``steps``).

    In the ``json`` format the model starts freely; once its first characters show a call (a
    ``{``), that stream stops and the call is generated again under the call grammar, so a
    text answer never pays for grammar sampling and a call is always well-formed JSON.
    """
    fmt = toolbox.format_of(model)
    tools = toolbox.template_tools(model, language)
    made: list[tuple[Message, str, ToolOutput, str]] = []  # call, tool, output, text shown
    for step in range(toolbox.max_steps + 1):
        splitter = calls.Splitter(fmt, calls=step < toolbox.max_steps)
        preface: list[str] = []
        prompt = messages + _fitted(fmt, made, messages, model, max_tokens)
        options: dict[str, Any] = {"tools": tools} if tools else {}
        with closing(model.stream_chat(prompt, max_tokens, cancelled, **options)) as stream:
            for piece in stream:
                shown = splitter.feed(piece)
                if shown:
                    preface.append(shown)
                    yield shown
                if fmt == calls.JSON and splitter.calling:
                    break
        tail, call_text = splitter.finish()
        if call_text and fmt == calls.JSON and not cancelled():
            constrained = model.stream_chat(
                prompt, max_tokens, cancelled, temperature=0.0, grammar=toolbox.grammar()
            )
            call_text = "".join(constrained)
        if tail:
            yield tail
        if not call_text or cancelled():
            return
        call = calls.parse(call_text, fmt)
        yield ToolCalled(step + 1, call.name, call.arguments, call.error)
        output = toolbox.run(call, conversation_id)
        _log.debug("step %d: error=%s in %.3f s", step + 1, output.is_error, output.duration_s)
        steps.append(Step(call, output))
        yield ToolResult(
            step + 1, call.name, output.text, output.is_error, output.duration_s, output.cut_chars
        )
        said = calls.call_message(fmt, call)
        if preface and said.get("tool_calls"):
            said["content"] = "".join(preface)
        made.append((said, call.name, output, calls.without_tags(clean(output.text))))
