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
held back from its first character and never shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engram.assistant.tools.base import Registry, ToolOutput
from engram.core import resources
from engram.models import schema_check

HERMES, LLAMA3, JSON = "hermes", "llama3", "json"
OPEN_TAG, CLOSE_TAG = "<tool_call>", "</tool_call>"
PYTHON_TAG = "<|python_tag|>"
RESULT_OPEN, RESULT_CLOSE = "<tool_result>", "</tool_result>"
# How a call opens in the json and llama3 formats (spaces removed): a later line opening so is held
_CALL_STARTS = ('{"tool"', '{"name"')
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


class Splitter:
    """Separates the answer's text from a tool call while tokens stream in.

    ``feed`` returns the text that is surely answer (nothing of a call is ever shown);
    ``finish`` returns the rest of the answer and the call's text ('' when there was none).
    """

    def __init__(self, fmt: str, calls: bool = True) -> None:
        self.fmt = fmt
        self.calls = calls
        self._held = ""
        self._call: str | None = None
        self._decided = not calls
        self._line_start = False  # the held text starts a line

    def feed(self, piece: str) -> str:
        if self._call is not None:
            self._call += piece
            return ""
        if self._decided and self.fmt != HERMES:
            if not self.calls:
                return piece
            self._held += piece
            return self._release_lines()
        self._held += piece
        if self.fmt != HERMES:
            start = self._held.lstrip()
            if not start:
                return ""
            self._decided = True
            if start.startswith("{") or start.startswith(PYTHON_TAG[: len(start)]):
                self._call, self._held = self._held, ""
                return ""
            self._line_start = True
            return self._release_lines()
        return self._release_hermes()

    def _release_lines(self) -> str:
        """The held text, except a last line that opens (or may still open) a call."""
        newline = self._held.rfind("\n")
        start = newline + 1 if newline >= 0 else (0 if self._line_start else len(self._held))
        line = self._held[start:]
        compact = "".join(line.split())
        if any(compact.startswith(opening) for opening in _CALL_STARTS):
            out, self._call, self._held = self._held[:start], line, ""
            return out
        keep = line if any(opening.startswith(compact) for opening in _CALL_STARTS) else ""
        out = self._held[: len(self._held) - len(keep)]
        self._held = keep
        self._line_start = bool(keep) or out.endswith("\n") or (not out and self._line_start)
        return out

    def _release_hermes(self) -> str:
        at = self._held.find(OPEN_TAG)
        if at >= 0:
            out, self._call, self._held = self._held[:at], self._held[at:], ""
            return out
        # Keep back only what could still grow into the opening tag.
        keep = next(
            (n for n in range(min(len(OPEN_TAG) - 1, len(self._held)), 0, -1)
             if OPEN_TAG.startswith(self._held[-n:])),
            0,
        )  # fmt: skip
        out = self._held[: len(self._held) - keep]
        self._held = self._held[len(out) :]
        return out

    @property
    def calling(self) -> bool:
        """The stream has turned out to be a call."""
        return self._call is not None

    def finish(self) -> tuple[str, str]:
        held, self._held = self._held, ""
        if self._call is None and self.fmt == LLAMA3 and held.lstrip().startswith(PYTHON_TAG):
            return "", held
        return held, self._call or ""


def without_tags(text: str) -> str:
    """A tool's result without the tags of calls and results (it is data inside one)."""
    previous = None
    while previous != text:  # removal can join pieces into a new tag: repeat until stable
        previous, text = text, _TAGS.sub("", text)
    return text


def call_message(fmt: str, call: ToolCall) -> dict[str, Any]:
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


def result_message(fmt: str, name: str, output: ToolOutput, text: str) -> dict[str, Any]:
    """The result of a call (``text``: the output already sanitised) as the next message."""
    status = "error" if output.is_error else "ok"
    if fmt != JSON:
        return {"role": "tool", "name": name, "content": text}
    payload = json.dumps({"tool": name, "status": status, "result": text}, ensure_ascii=False)
    return {"role": "user", "content": f"{RESULT_OPEN}\n{payload}\n{RESULT_CLOSE}"}


def instructions(registry: Registry, language: str) -> str:
    """The system part's description of the tools, for templates that cannot render them."""
    suffix = "zh_CN" if language.startswith("zh") else "en"
    head = resources.read_text("prompts", f"tools_{suffix}.txt").strip()
    lines = [
        f"- {tool.name}: {tool.describe(language)} "
        f"{json.dumps(_compact(tool.schema), ensure_ascii=False)}"
        for tool in registry
    ]
    return head + "\n" + "\n".join(lines)


def _compact(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The argument names and types only: fewer tokens in every prompt."""
    props: Mapping[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    return {
        name + ("" if name in required else "?"): spec.get("enum", spec.get("type", "any"))
        for name, spec in props.items()
    }


def grammar(registry: Registry) -> str:
    """A llama.cpp grammar for one JSON call of a registered tool (the ``json`` format)."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    alternatives = [
        {
            "type": "object",
            "properties": {"tool": {"const": tool.name}, "arguments": _loose(tool.schema)},
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for tool in registry
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
