"""How a model family asks for a tool, and how calls and results are written back into the chat.

Three formats:

- ``hermes`` (Qwen2.5, Qwen3, Hermes): the template renders ``tools``; the model writes
  ``<tool_call>{"name": …, "arguments": {…}}</tool_call>``, results come back as ``tool`` messages.
- ``llama3`` (Llama 3.1–3.3): the template renders ``tools``; the model writes a bare JSON
  ``{"name": …, "parameters": {…}}`` (optionally after ``<|python_tag|>``).
- ``json`` (templates without tool support, the starter SmolLM2 and Gemma 3): the tools are
  described in the system part; an answer that starts with ``{`` is a call, written again under
  a llama.cpp grammar that allows only one JSON object ``{"tool": …, "arguments": {…}}`` of a
  registered tool; anything else is free text. Results come back as a user message (such
  templates know no ``tool`` role).

:class:`Splitter` reads the stream: the answer's text passes through as it comes, a call is held
back and parsed when the stream ends. In the ``json`` and ``llama3`` formats a call may also come
after some text, on a line of its own that opens with ``{"tool"`` or ``{"name"``: such a line is
held back from its first character and never shown. So is a call in any shape a small model
writes anywhere in its text (Qwen2.5-Coder-0.5B after a recalled message: ```` ```json
({"name": "calculator", "arguments": [...]}) ````): a JSON object naming a tool and then its
arguments, bare, in a Markdown fence or in brackets, or a ``<tool_call>`` tag, well-formed or
not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engram.assistant.events import CallNotRead
from engram.assistant.tools.base import Registry, ToolOutput
from engram.core import prompts
from engram.core.messages import Message
from engram.models import schema_check
from engram.models.local import CALL_OPENINGS

HERMES, LLAMA3, JSON = "hermes", "llama3", "json"
OPEN_TAG, CLOSE_TAG = "<tool_call>", "</tool_call>"
PYTHON_TAG = "<|python_tag|>"
RESULT_OPEN, RESULT_CLOSE = "<tool_result>", "</tool_result>"
# How a call opens an answer, and a later line of it (spaces removed), in any format.
_OPENINGS = CALL_OPENINGS
_LINE_OPENINGS = ('{"tool"', '{"name"', OPEN_TAG)
_FENCE = re.compile(r"```[A-Za-z]*")
# A name as the model wrote it, in any script: {"name": "重量请用公斤说", "arguments": …} from
# the 0.5B is a call's shape all the same.
_NAME = re.compile(r'[^"]+')
# A tool's name as a list's first item, before its arguments (the 0.5B's ["calculator", {…}]);
# group 1 is set once the arguments open, else the text so far may still become one.
_LISTED = re.compile(r'"(?:[a-z_][\w.-]*(?:"(?:,(\{.*)?)?)?)?$', re.DOTALL)
_CALL_HEADS = ('{"name":"', '{"tool":"')
_ARGUMENTS = ('","arguments"', '","parameters"')
# The characters a call written into the text may open with (a fence, a bracket, the object).
_CALL_STARTS = "`([{<"
# The tags that delimit calls and results: a result must not close its block or open a call.
_TAGS = re.compile(r"</?\s*(?:tool_call|tool_response|tool_result)\s*>", re.IGNORECASE)


def detect(template: str) -> str:
    """The call format a chat template supports (``json`` when it renders no tools)."""
    if "tools" not in template:
        return JSON
    if OPEN_TAG in template:
        return HERMES
    if '"parameters"' in template and ("ipython" in template or PYTHON_TAG in template):
        return LLAMA3
    return JSON


@dataclass(frozen=True)
class ToolCall:
    """One call as the model wrote it: ``name`` and ``arguments`` when it could be read."""

    raw: str
    name: str = ""
    arguments: Any = None
    error: str = ""  # why the text is not a usable call

    @property
    def ok(self) -> bool:
        return not self.error


def _json_object(text: str) -> tuple[Any, str]:
    """The first JSON value in ``text`` (control characters inside strings allowed)."""
    start = text.find("{")
    if start < 0:
        return None, "no JSON object"
    try:
        value, _end = json.JSONDecoder(strict=False).raw_decode(text, start)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg} at character {exc.pos})"
    return value, ""


def parse(text: str, fmt: str) -> ToolCall:
    """Read one call out of the text the model wrote for it."""
    body = text.strip()
    if fmt == HERMES:
        body = body.removeprefix(OPEN_TAG).split(CLOSE_TAG, 1)[0]
    elif fmt == LLAMA3:
        body = body.removeprefix(PYTHON_TAG)
    value, error = _json_object(body)
    if error:
        return ToolCall(text, error=error)
    if not isinstance(value, dict):
        return ToolCall(text, error="the call is not a JSON object")
    name = value.get("tool", value.get("name"))
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):  # some models write the arguments as a JSON string
        decoded, problem = _json_object(arguments)
        arguments = decoded if not problem else arguments
    if not isinstance(name, str) or not name:
        return ToolCall(text, error='the call names no tool ("name")')
    return ToolCall(text, name, arguments)


def _call_shape(text: str) -> bool | None:
    """Does ``text`` open with a call written as text: True, False, or None while the next
    characters decide. A call is ``{"name": "<tool>", "arguments"`` (or ``tool``/``parameters``),
    spaces anywhere, after an optional Markdown fence and one bracket; or ``<tool_call>``."""
    if "```".startswith(text):
        return None  # a fence may be opening
    rest = text
    if fence := _FENCE.match(rest):
        rest = rest[fence.end() :]
    compact = "".join(rest.split())
    bracketed = compact[:1] in ("(", "[")
    if bracketed:
        compact = compact[1:]
        # ["calculator", {"expression": …}]: a name as the first item, then its arguments
        if named := _LISTED.match(compact):
            return True if named.group(1) else None
    if not compact or OPEN_TAG.startswith(compact):
        return None if compact != OPEN_TAG else True
    if compact.startswith(OPEN_TAG):
        return True
    for head in _CALL_HEADS:
        if head.startswith(compact):
            return None
        if not compact.startswith(head):
            continue
        after = compact[len(head) :]
        name = _NAME.match(after)
        if name is None:
            return None if not after else False
        after = after[name.end() :]
        if not after:
            return None
        if after.startswith(_ARGUMENTS):
            return True
        return None if any(key.startswith(after) for key in _ARGUMENTS) else False
    return False


_NAMED = re.compile(r'\{"name":"([^"]*)"')


def _object_opens_call(start: str, fmt: str, names: Collection[str]) -> bool | None:
    """Does an answer opening with ``{`` make a call: True, False (it is data the user asked
    for, ``{"name": "Ada", "born": 1815}``), or None while the next characters decide. A call
    names a registered tool or is followed by its arguments (:func:`_call_shape`), or opens with
    the format's own key: ``{"tool"`` of the ``json`` format in any, ``{"name"`` in ``llama3``."""
    compact = "".join(start.split())
    shape = _call_shape(compact)
    keys = ('{"tool"', '{"name"') if fmt == LLAMA3 else ('{"tool"',)
    if shape or compact.startswith(keys):
        return True
    if any(key.startswith(compact) for key in keys):
        return None
    named = _NAMED.match(compact)
    return True if named and named.group(1) in names else shape


def _call_in(text: str) -> tuple[int, bool]:
    """Where a call written as text opens in ``text`` and whether that is sure (False: the
    characters from there may still become one); ``(len(text), False)`` without one."""
    undecided = len(text)
    for at, char in enumerate(text):
        if char not in _CALL_STARTS:
            continue
        shape = _call_shape(text[at:])
        if shape:
            return at, True
        if shape is None:
            undecided = min(undecided, at)
    return undecided, False


class Splitter:
    """Separates the answer's text from a tool call while tokens stream in.

    ``feed`` returns the text that is surely answer (nothing of a call is ever shown);
    ``finish`` returns the rest of the answer and the call's text ('' when there was none).

    Whatever the format, an answer that opens with ``<tool_call>`` or ``<|python_tag|>`` is a
    call (:attr:`opened_with_call`: models of every family write bare JSON calls, with or
    without their tags), and so is one opening with a JSON object that names a tool (``names``,
    the registered tools; :func:`_object_opens_call`) — an object of data the user asked for
    is the answer — and a later line opening with ``{"tool"`` or ``{"name"``; in any
    format, ``<tool_call>`` or an object naming a tool and then its arguments opens one anywhere
    (bare, fenced or bracketed: :func:`_call_shape`).
    """

    def __init__(self, fmt: str, names: Collection[str] = ()) -> None:
        self.fmt = fmt
        self.names = frozenset(names)  # the registered tools: ``{"name": "<one>"`` is a call
        self._held = ""
        self._call: str | None = None
        self._started = False  # the answer's first characters are known not to be a call
        self._line_start = True  # the held text begins a line
        self.opened_with_call = False

    def feed(self, piece: str) -> str:
        if self._call is not None:
            self._call += piece
            return ""
        self._held += piece
        if not self._started:
            start = self._held.lstrip()
            if not start:
                return ""
            if start.startswith("{"):
                opens = _object_opens_call(start, self.fmt, self.names)
                # decided as data: its first line is no call "on a line of its own" either
                self._line_start = opens is not False
            else:
                shape = _call_shape(start)
                opens = True if start.startswith(_OPENINGS) or shape else shape
                if any(opening.startswith(start) for opening in _OPENINGS):
                    opens = opens or None
            if opens:
                self._call, self._held, self.opened_with_call = self._held, "", True
                return ""
            if opens is None:
                return ""  # may still become one
            self._started = True
        return self._release()

    def _release(self) -> str:
        """The held text, except what opens (or may still open) a call."""
        held = self._held
        at, sure = _call_in(held)
        if sure:
            out, self._call, self._held = held[:at], held[at:], ""
            return out
        undecided = len(held) - at
        newline = held.rfind("\n")
        begin = newline + 1 if newline >= 0 else (0 if self._line_start else None)
        keep = undecided
        if begin is not None:
            line = held[begin:]
            compact = "".join(line.split())
            if compact.startswith(_LINE_OPENINGS):  # from its fence, when it has one
                start = min(at, begin)
                out, self._call, self._held = held[:start], held[start:], ""
                return out
            if any(opening.startswith(compact) for opening in _LINE_OPENINGS):
                keep = max(keep, len(line))
        out = held[: len(held) - keep]
        self._held = held[len(out) :]
        self._line_start = out.endswith("\n") if out else self._line_start
        return out

    @property
    def calling(self) -> bool:
        """The stream has turned out to be a call."""
        return self._call is not None

    def finish(self) -> tuple[str, str]:
        held, self._held = self._held, ""
        return held, self._call or ""


def never_shown(stream: Iterator[str]) -> Iterator[str | CallNotRead]:
    """An answer written without tools, as it comes; a call the model writes into it anyway (a
    shape :func:`_call_shape` knows) is never shown: the answer ends before it, with
    :class:`CallNotRead`. A JSON answer the user asked for is text here, not a call."""
    held = ""
    try:
        for piece in stream:
            held += piece
            at, sure = _call_in(held)
            if at:
                yield held[:at]
                held = held[at:]
            if sure:
                yield CallNotRead()
                return
    finally:
        if (close := getattr(stream, "close", None)) is not None:
            close()  # a generator: the model stops writing
    if held:
        yield held


def without_tags(text: str) -> str:
    """A tool's result without the tags of calls and results (it is data inside one)."""
    previous = None
    while previous != text:  # removal can join pieces into a new tag: repeat until stable
        previous, text = text, _TAGS.sub("", text)
    return text


def call_message(fmt: str, call: ToolCall) -> Message:
    """The assistant's turn that made ``call``, as the template expects to see it again."""
    if fmt == JSON or not call.ok or not isinstance(call.arguments, dict):
        return {"role": "assistant", "content": call.raw.strip()}
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"type": "function", "function": {"name": call.name, "arguments": call.arguments}}
        ],
    }


def result_message(fmt: str, name: str, output: ToolOutput, text: str) -> Message:
    """The result of a call (``text``: the output already sanitised) as the next message."""
    status = "error" if output.is_error else "ok"
    if fmt != JSON:
        return {"role": "tool", "name": name, "content": text}
    payload = json.dumps({"tool": name, "status": status, "result": text}, ensure_ascii=False)
    return {"role": "user", "content": f"{RESULT_OPEN}\n{payload}\n{RESULT_CLOSE}"}


def instructions(registry: Registry, language: str, names: Collection[str]) -> str:
    """The system part's description of the tools in ``names``, for templates that cannot
    render them."""
    head = prompts.text("tools", language)
    lines = [
        f"- {tool.name}: {tool.describe(language)} "
        f"{json.dumps(_compact(tool.schema), ensure_ascii=False)}"
        for tool in registry
        if tool.name in names
    ]
    return head + "\n" + "\n".join(lines)


def answer_note(language: str, request: str) -> str:
    """What follows the results when the answer is due: answer ``request`` (the user's message,
    already sanitised) in words, from the results."""
    note = prompts.text("tool_answer", language)
    return note.replace("{request}", " ".join(request.split()))


def _compact(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The argument names and types only: fewer tokens in every prompt."""
    props: Mapping[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    return {
        name + ("" if name in required else "?"): spec.get("enum", spec.get("type", "any"))
        for name, spec in props.items()
    }


def grammar(registry: Registry, names: Collection[str] | None = None, key: str = "tool") -> str:
    """A llama.cpp grammar for one JSON call ``{key: name, "arguments": {…}}`` of a registered
    tool (of ``names`` only, when given): ``tool`` in the ``json`` format, ``name`` where the
    family's own calls say ``name``."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    alternatives = [
        {
            "type": "object",
            "properties": {key: {"const": tool.name}, "arguments": _loose(tool.schema)},
            "required": [key, "arguments"],
            "additionalProperties": False,
        }
        for tool in registry
        if names is None or tool.name in names
    ]
    return str(json_schema_to_gbnf(json.dumps({"oneOf": alternatives})))


def _loose(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's schema for the grammar: lengths dropped (they blow up the grammar; the arguments
    are checked against the full schema before the tool runs)."""
    out: dict[str, Any] = {}
    for key, value in schema_check.for_grammar(dict(schema)).items():
        if key in ("minLength", "maxLength"):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: _loose(v) if isinstance(v, dict) else v for k, v in value.items()}
        else:
            out[key] = _loose(value) if isinstance(value, dict) else value
    return out
