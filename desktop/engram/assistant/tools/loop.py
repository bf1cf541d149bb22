"""The tool loop of one answer: the model may call a tool, read its result and go on, up to a
step limit, then answers. Runs with whichever model answers (small, or large when escalated).

The tool list sits in the stable front of the prompt (the system part, or the template's tool
section), so a turn that calls nothing costs about what it did without tools. Results are
untrusted data: they pass the prompt sanitiser and go back to the model as tool messages.

Each answer's message was routed once (:mod:`.route`; a message whose words the application
keeps, "remember this: …", may not call remember), and only the tools it allows are described
to the model (offered every built-in tool, a small model answers everyday messages such as
"I went to the dentist yesterday" with a call). A call the message
plainly asks for is generated at once under a grammar of that tool; otherwise the model starts
freely, and once its first characters show a call, that stream stops and the call is generated
again under a grammar of the tools the message allows, so a call is always well-formed JSON and
a text answer never pays for grammar sampling. When the message allows no tool, an answer that
opened with a call is written again as text (its first token may not open a call); a later line
that is a call of a tool not allowed is dropped, never shown. With the sources of each result
read since the prompt's own untrusted text, every call is checked by
:meth:`Permissions.allowed`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import Any

from engram.assistant.events import CallNotRead, ToolCalled, ToolResult
from engram.assistant.tools import calls
from engram.assistant.tools.base import (
    MAX_RESULT_CHARS,
    Registry,
    Tool,
    ToolContext,
    ToolOutput,
    cut,
)
from engram.assistant.tools.permissions import BUILT_IN, RECALLED, Permissions
from engram.assistant.tools.route import Route, route
from engram.core import log
from engram.core.errors import EngramError, Problem, tr
from engram.core.messages import Message
from engram.memory.embed import Embedder
from engram.memory.episodes import ToolStep
from engram.models.capabilities import Capable

_log = log.get("assistant.tools.loop")
DEFAULT_MAX_STEPS = 4
# Per-message overhead of a chat template (role headers, separators), in tokens, when fitting.
MESSAGE_OVERHEAD_TOKENS = 8
SHORTER_RESULTS = (2000, 1000, 400, 100)  # result lengths tried when the context is full
LoopEvent = str | ToolCalled | ToolResult | CallNotRead  # a piece of the answer, a step, or
# a call written into the text that could not be used


# One call of an answer: the call as the model's message, its tool, its output, the text shown.
Made = tuple[Message, str, ToolOutput, str]


def _transcript(fmt: str, made: list[Made], limit: int) -> list[Message]:
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
    made: list[Made],
    messages: list[Message],
    model: Any,
    max_tokens: int,
) -> list[Message]:
    """The steps so far, results shortened as much as it takes for the prompt to leave room
    for an answer (the context holds the conversation, the steps and the answer)."""
    transcript = _transcript(fmt, made, MAX_RESULT_CHARS)
    if not made:
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


def can_call(model: Capable) -> bool:
    """Whether a model can be offered tools: one that declares its chat template, a local model
    (tools rendered by it or a grammar); other runtimes answer without tools."""
    return model.capabilities.tools


@dataclass(frozen=True)
class Step:
    """One call and its result, as stored in the conversation."""

    call: calls.ToolCall
    output: ToolOutput

    def stored(self) -> ToolStep:
        """The step as its ``tool`` episode keeps it: the tool ('?' for a call that could not be
        read), the arguments as JSON (else the model's own text of the call), and what it gave
        back (failures too: the distiller learns from them)."""
        said = (
            json.dumps(self.call.arguments, ensure_ascii=False) if self.call.ok else self.call.raw
        )
        return ToolStep(self.call.name or "?", said, self.output.text, self.output.is_error)


@dataclass
class Toolbox:
    """The tools an assistant may call, who allows them, and how many calls an answer may make."""

    registry: Registry
    permissions: Permissions = field(default_factory=Permissions)
    context: ToolContext = field(default_factory=ToolContext)
    max_steps: int = DEFAULT_MAX_STEPS
    more: Callable[[], Iterable[Tool]] | None = None  # MCP tools, listed when first needed
    _grammars: dict[tuple[frozenset[str], str], Any] = field(default_factory=dict, repr=False)

    def tools(self) -> Registry:
        """The registry, with the tools of ``more`` added the first time it is asked for."""
        more, self.more = self.more, None
        for tool in more() if more is not None else ():
            try:
                self.registry.add(tool)
            except EngramError as exc:
                _log.warning("tool left out: %s", type(exc).__name__)
        return self.registry

    def format_of(self, model: Capable) -> str:
        """The call format of ``model``'s chat template (``json`` for models without one)."""
        return calls.detect(model.capabilities.chat_template or "")

    def system_text(self, model: Capable, language: str, names: Collection[str]) -> str:
        """What the system part says about the tools in ``names`` ('' when there are none or
        the template renders them itself)."""
        if not names or self.format_of(model) != calls.JSON:
            return ""
        return calls.instructions(self.tools(), language, names)

    def template_tools(
        self, model: Capable, language: str, names: Collection[str]
    ) -> list[dict[str, Any]] | None:
        """The specs of the tools in ``names`` for the chat template to render (None when there
        are none, and for the ``json`` format)."""
        if not names or self.format_of(model) == calls.JSON:
            return None
        return self.tools().specs(language, names) or None

    def route(self, message: str, kept: bool = False, embedder: Embedder | None = None) -> Route:
        """The tools an answer to ``message`` may call (see :mod:`.route`), read by its meaning
        too with an ``embedder``."""
        return route(message, self.tools(), kept, embedder)

    def grammar(self, names: Collection[str], fmt: str) -> Any:
        """The llama.cpp grammar of one call of one of ``names`` (built once per set)."""
        from llama_cpp.llama_grammar import LlamaGrammar

        key = (frozenset(names), "tool" if fmt == calls.JSON else "name")
        if key not in self._grammars:
            text = calls.grammar(self.tools(), key[0], key[1])
            self._grammars[key] = LlamaGrammar.from_string(text, verbose=False)
        return self._grammars[key]

    def run(
        self,
        call: calls.ToolCall,
        conversation_id: int,
        quiet: Problem | None = None,
        after: tuple[str, ...] = (),
    ) -> ToolOutput:
        """Run one call the model made for an answer in ``conversation_id`` (``quiet``: why
        nothing may be learned from it; ``after``: where the untrusted text the answer read
        before came from): unreadable, unknown, wrongly typed or denied calls give an error
        output the model can read."""
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
        ctx = replace(self.context, conversation_id=conversation_id, quiet=quiet)
        if found is None and tool is not None and tool.precheck is not None:
            try:  # a call that cannot run is not worth a question to the user
                tool.precheck(arguments, ctx)
            except EngramError as exc:
                found = exc.problem
        if (
            found is None
            and tool is not None
            and not self.permissions.allowed(tool, arguments, after)
        ):
            found = Problem(
                tr("The user did not allow {name} to run. Answer without it."), name=tool.name
            )
        if found is not None:
            return ToolOutput(found.message, True, time.perf_counter() - start)
        granted = self.permissions.granted
        ctx = replace(ctx, granted=granted, after=after)
        return self.registry.call(call.name, call.arguments, ctx)


def answer(
    toolbox: Toolbox,
    model: Any,
    messages: list[Message],
    *,
    request: str,
    language: str,
    conversation_id: int,
    max_tokens: int,
    cancelled: Callable[[], bool],
    clean: Callable[[str], str],
    steps: list[Step],
    quiet: Problem | None = None,
    routed: Route,
    read: tuple[str, ...] = (),
) -> Iterator[LoopEvent]:
    """Stream an answer that may call tools: its text pieces, and an event for each call and
    result (each step is also appended to ``steps``). ``routed``: where ``request`` (the user's
    own words) was routed as the prompt was laid out, the only tools described to the model;
    ``read``: where untrusted text already in the prompt came from (:data:`RECALLED`). How a
    call is made, and what happens to one not wanted, is in the module's docstring.
    """
    fmt = toolbox.format_of(model)
    tools = toolbox.template_tools(model, language, routed.allowed)
    toolbox.permissions.new_answer()
    made: list[Made] = []  # call, tool, output, text shown
    answered: set[str] = set()  # the expected tool once its call gave a result
    done: set[str] = set()  # the calls made so far, to refuse the same call again
    note: Message = {"role": "user", "content": calls.answer_note(language, clean(request))}
    after = dict.fromkeys(read)  # where the untrusted text the answer has read came from
    for step in range(toolbox.max_steps + 1):
        open_tools = routed.allowed - answered
        may_call = step < toolbox.max_steps and bool(open_tools)
        # After a result, with nothing left to call, the answer is text, asked for in words:
        # small models otherwise call the same tool again instead of reading its result.
        text_only = bool(made) and not may_call
        preface: list[str] = []
        fitted = messages + _fitted(fmt, made, messages, model, max_tokens)
        prompt = [*fitted, note] if text_only else fitted
        asking = _Asking(model, prompt, max_tokens, cancelled, {"tools": tools} if tools else {})
        if step == 0 and may_call and routed.expected:
            call_text = _from_words(toolbox, routed.expected, request) or _constrained(
                toolbox, asking, {routed.expected}, fmt
            )
            tail = ""
        else:
            tail, call_text, opened = yield from _free(toolbox, asking, fmt, text_only, preface)
            if call_text and opened and not cancelled():
                if not may_call:
                    _log.debug("step %d: a call nobody asked for; written as text", step + 1)
                    written: list[str] = []
                    yield from _kept(_as_text(asking), written)
                    yield from _result_left_out(toolbox.registry, made, routed.expected, written)
                    return
                # A free call is generated again under the grammar of the tools still open.
                call_text = _constrained(toolbox, asking, open_tools, fmt)
        if tail:
            yield tail
        if not call_text or cancelled():
            if not cancelled():
                answer = [*preface, tail]
                yield from _result_left_out(toolbox.registry, made, routed.expected, answer)
            return
        call = calls.parse(call_text, fmt)
        key = _call_key(toolbox, call)
        if not may_call or call.name not in open_tools or key in done:
            _log.debug("step %d: a call not wanted here is dropped", step + 1)
            asked = [*fitted, note] if made else fitted
            yield from _unwanted(replace(asking, prompt=asked), preface)
            yield from _result_left_out(toolbox.registry, made, routed.expected, preface)
            return
        done.add(key)
        output = yield from _run(toolbox, call, step + 1, conversation_id, quiet, after, steps)
        if not output.is_error and call.name == routed.expected:
            answered.add(call.name)
        said = calls.call_message(fmt, call)
        if preface and said.get("tool_calls"):
            said["content"] = "".join(preface)
        made.append((said, call.name, output, calls.without_tags(clean(output.text))))


@dataclass(frozen=True)
class _Asking:
    """One request to the model within an answer: its prompt and how it is generated."""

    model: Any
    prompt: list[Message]
    max_tokens: int
    cancelled: Callable[[], bool]
    options: dict[str, Any]


def _unwanted(asking: _Asking, said: list[str]) -> Iterator[str | CallNotRead]:
    """After a call not wanted here: an answer that said something ends with it (the user is
    told of the call); one that said nothing is written again as text (added to ``said``)."""
    if said:
        yield CallNotRead()
    else:
        yield from _kept(_as_text(asking), said)


def _free(
    toolbox: Toolbox, asking: _Asking, fmt: str, text_only: bool, preface: list[str]
) -> Generator[str, None, tuple[str, str, bool]]:
    """Let the model start freely: its text pieces until its first characters show a call
    (kept in ``preface``); returns the text held back at the end, the text of a call it wrote,
    and whether the answer opened with that call."""
    splitter = calls.Splitter(fmt, [tool.name for tool in toolbox.tools()])
    stream = asking.model.stream_chat(
        asking.prompt, asking.max_tokens, asking.cancelled, text_only=text_only, **asking.options
    )
    with closing(stream):
        for piece in stream:
            shown = splitter.feed(piece)
            if shown:
                preface.append(shown)
                yield shown
            if splitter.opened_with_call:
                break  # generated again: under the grammar, or as text
    tail, call_text = splitter.finish()
    return tail, call_text, splitter.opened_with_call


def _run(
    toolbox: Toolbox,
    call: calls.ToolCall,
    number: int,
    conversation_id: int,
    quiet: Problem | None,
    after: dict[str, None],
    steps: list[Step],
) -> Generator[LoopEvent, None, ToolOutput]:
    """Run one call (the answer's ``number``-th), saying so before and after; its output."""
    yield ToolCalled(number, call.name, call.arguments, call.error)
    output = toolbox.run(call, conversation_id, quiet, tuple(after))
    if (source := read_from(toolbox.registry, call)) is not None:
        after[source] = None
    _log.debug("step %d: error=%s in %.3f s", number, output.is_error, output.duration_s)
    steps.append(Step(call, output))
    yield ToolResult(
        number, call.name, output.text, output.is_error, output.duration_s, output.cut_chars
    )
    return output


def _result_left_out(
    registry: Registry,
    made: Sequence[Made],
    expected: str | None,
    said: Sequence[str],
) -> Iterator[str]:
    """The result of the call the message asked for (``expected``), after an answer ``said``
    that left its :attr:`~.base.Tool.value` out. Asked for "帮我算一下 12 乘以 7。", the 0.5B
    computed 84 and then answered "好的，我记住了。", copied from the chat; asked for the days
    between two dates, it read "104 days from 2026-01-01 …", called the calculator too and
    answered with the calculator's refusal, or with "3 days in hours = 72 hours"."""
    tool = registry.get(expected) if expected else None
    for _call, name, output, _shown in made:
        if tool is None or tool.value is None or name != tool.name or output.is_error:
            continue
        value = _digits(tool.value(output.text) or "")
        if value and value not in _digits("".join(said)):
            yield f"\n\n{output.text}"


def _kept(stream: Iterator[str | CallNotRead], written: list[str]) -> Iterator[str | CallNotRead]:
    """``stream`` as it is, its text also added to ``written``."""
    for piece in stream:
        if isinstance(piece, str):
            written.append(piece)
        yield piece


def _digits(text: str) -> str:
    """The digits and decimal points of a text ("1,234.5" and "1 234.5" read the same)."""
    return re.sub(r"[^0-9.]", "", text)


def read_from(registry: Registry, call: calls.ToolCall) -> str | None:
    """Where the result of ``call`` came from, as the user is told: the file a files tool read
    or listed, :data:`RECALLED` for the recall tool, an MCP tool with its server, else the
    tool; None for a tool whose result is Engram's own text (the calculator, the clock)."""
    tool = registry.get(call.name)
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    if tool is not None and not tool.reads_outside:
        return None
    if isinstance(path := arguments.get("path"), str) and path.strip():
        return path.strip()
    if tool is not None and tool.source != BUILT_IN:
        return f"{tool.name} ({tool.source})"
    return RECALLED if call.name == "recall" else call.name or "?"


def _call_key(toolbox: Toolbox, call: calls.ToolCall) -> str:
    """A call as the tool sees it (arguments outside its schema left out): the same call made
    twice has the same key."""
    tool = toolbox.registry.get(call.name)
    known = set(tool.schema.get("properties", {})) if tool is not None else set()
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    kept = {k: v for k, v in arguments.items() if k in known}
    return json.dumps([call.name, kept], sort_keys=True, default=str)


def _as_text(asking: _Asking) -> Iterator[str | CallNotRead]:
    """The answer written again as text: its first token may not open a call, and a call it
    writes later anyway is never shown (the 0.5B, told no tool, wrote
    '({"name": "calculator", …})' to "I went to the dentist yesterday")."""
    return calls.never_shown(
        asking.model.stream_chat(
            asking.prompt, asking.max_tokens, asking.cancelled, text_only=True, **asking.options
        )
    )


def _from_words(toolbox: Toolbox, name: str, request: str) -> str | None:
    """The call of ``name`` made from the user's own words when they hold its arguments whole
    (:attr:`Tool.arguments_in`), or None."""
    tool = toolbox.registry.get(name)
    read = tool.arguments_in if tool is not None else None
    arguments = read(request) if read is not None else None
    if arguments is None:
        return None
    return json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)


def _constrained(toolbox: Toolbox, asking: _Asking, names: Collection[str], fmt: str) -> str:
    """One call of one of ``names``, generated under their grammar at temperature 0."""
    grammar = toolbox.grammar(names, fmt)
    return "".join(
        asking.model.stream_chat(asking.prompt, asking.max_tokens, asking.cancelled,
                                 temperature=0.0, grammar=grammar, **asking.options)
    )  # fmt: skip
