"""Distillation: the large model turns a job's episodes into candidate memories, a summary, a plan.

The model answers under a JSON schema (grammar-constrained for local models, validated for cloud
ones), asked by the prompts laid out here; what comes back is cleaned by
:mod:`~engram.assistant.learning.proposals` (invented episode ids and garbage dropped, a memory
about the user kept only when the user said it, :mod:`~engram.assistant.learning.grounding`),
and everything is written in the user's language (detected from the episodes). A lesson in the
user's words that quotes a text to use is given an example answer written by the same model.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engram.assistant import intent
from engram.assistant.learning.grounding import (
    MAX_SITUATIONS,
    SITUATION_CHARS,
    Reader,
    is_garbage,
    listed,
)
from engram.assistant.learning.proposals import (
    ASKED,
    MAX_EPISODE_CHARS,
    Candidate,
    Distillation,
    Outcome,
    parse,
    quoted,
    told,  # noqa: F401  (bench/lesson_following.py reads distill.told)
)
from engram.core import log, prompts, sanitize
from engram.core.errors import EngramError
from engram.core.messages import Message
from engram.memory import kinds
from engram.memory.episodes import Episode
from engram.memory.records import EXAMPLE
from engram.memory.text import normalized, text_language

_log = log.get("assistant.distill")


@dataclass(frozen=True)
class Limits:
    """How much one distillation may write: bounded strings keep every answer complete JSON."""

    memories: int = 8
    chars: int = 160  # per memory; the summary gets twice as much

    @property
    def max_tokens(self) -> int:
        """Room for the longest answer the schema allows (about a token per character)."""
        situations = MAX_SITUATIONS * (SITUATION_CHARS // 3 + 4)
        return 200 + self.memories * (self.chars + 30 + situations) + 3 * self.chars


def line_schema(max_chars: int) -> dict[str, Any]:
    """A one-line string schema: the pattern keeps control characters (which the grammar's
    plain string allows but JSON does not) out of grammar-constrained output."""
    return {
        "type": "string",
        "maxLength": max_chars,
        "pattern": f'^[^"\\\\\\n\\r\\t]{{0,{max_chars}}}$',
    }


def schema(limits: Limits) -> dict[str, Any]:
    """The JSON schema of a distillation answer."""
    return {
        "type": "object",
        "properties": {
            "memories": {
                "type": "array",
                "maxItems": limits.memories,
                "items": {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "enum": list(kinds.LISTED)},
                        "content": line_schema(limits.chars),
                        "applies_to": {
                            "type": "array",
                            "items": line_schema(SITUATION_CHARS),
                            "maxItems": MAX_SITUATIONS,
                        },
                        "importance": {"type": "integer", "minimum": 1, "maximum": 5},
                        "episodes": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
                    },
                    "required": ["kind", "content", "applies_to", "importance", "episodes"],
                    "additionalProperties": False,
                },
            },
            "summary": line_schema(2 * limits.chars),
            "plan": {
                "type": "object",
                "properties": {
                    "goal": line_schema(limits.chars),
                    "steps": {
                        "type": "array",
                        "items": line_schema(limits.chars // 2),
                        "maxItems": 5,
                    },
                    "current_step": {"type": "integer", "minimum": 0, "maximum": 5},
                },
                "required": ["goal", "steps", "current_step"],
                "additionalProperties": False,
            },
        },
        "required": ["memories", "summary", "plan"],
        "additionalProperties": False,
    }


class StructuredModel(Protocol):
    """What distillation needs from a model: one JSON object valid under a schema."""

    def structured(
        self, messages: Sequence[Message], json_schema: dict[str, Any], max_tokens: int = ...
    ) -> dict[str, Any]: ...


def detect_language(episodes: Sequence[Episode]) -> str:
    """``zh_CN`` when the user writes mostly Chinese, else ``en`` (only the user's words count)."""
    said = "".join(e.content for e in episodes if e.role == "user") or "".join(
        e.content for e in episodes
    )
    return text_language(said)


def transcript(episodes: Sequence[Episode]) -> str:
    """The episodes as numbered lines the model can cite: ``[12] user: ...``."""
    lines = []
    for e in episodes:
        text = " ".join(sanitize.clean(e.content).split())  # data, never a turn of its own
        if len(text) > MAX_EPISODE_CHARS:
            text = text[:MAX_EPISODE_CHARS] + "…"
        lines.append(f"[{e.id}] {e.role}: {text}")
    return "\n".join(lines)


_OUTCOMES_HEADING = {"en": "Outcome signals:", "zh_CN": "结果信号："}
_PLAN_HEADING = {"en": "The user's active plan:", "zh_CN": "用户当前的计划："}
EXAMPLE_LINES, EXAMPLE_LINE_CHARS, EXAMPLE_TOKENS = 8, 240, 480
_EXAMPLE_HEADINGS = {
    "en": ("QUESTION:", "ANSWER:", "USER SAID:"),
    "zh_CN": ("问题：", "回答：", "用户说："),
}
# Said once more when an example left out a text the user quoted (then the texts, quoted).
_EXAMPLE_MUST_HOLD = {
    "en": "The new answer must contain, word for word: ",
    "zh_CN": "新的回答必须原样用上：",
}


EXAMPLE_SCHEMA = {
    "type": "object",
    "properties": {
        "lines": {
            "type": "array",
            "items": line_schema(EXAMPLE_LINE_CHARS),
            "minItems": 1,
            "maxItems": EXAMPLE_LINES,
        }
    },
    "required": ["lines"],
    "additionalProperties": False,
}


def demonstration(
    model: StructuredModel, asked: str, answer: str, words: str, language: str
) -> str | None:
    """``asked`` answered again the way the user's ``words`` about ``answer`` say, written by the
    distilling model, or None: only for words that quote a text to use, and only an answer that
    holds every quoted text and is not the old one (an example must show the form it teaches:
    the 1.5B's examples of a unit or a date were as wrong as the answers they corrected, while
    Qwen2.5-Coder-0.5B, shown an example of a quoted form, followed it: bench lab in
    docs/evaluation.md)."""
    literals = quoted(words)
    if not literals or not answer.strip():
        return None
    language = language if language in _EXAMPLE_HEADINGS else "en"
    said = "\n\n".join(
        f"{heading}\n{sanitize.clean(text)}"
        for heading, text in zip(_EXAMPLE_HEADINGS[language], (asked, answer, words), strict=True)
    )
    text = _example(model, said, answer, language)
    if text is not None and not all(literal in text for literal in literals):
        # Asked once more, naming the quoted texts: for "以后列举的时候用“- ”开头，不要编号。" the
        # 1.5B listed "登山鞋\n相机\n水杯", then, told to use “- ”, "- 登山鞋\n- 相机\n- 水杯".
        named = ", ".join(f"“{sanitize.clean(literal)}”" for literal in literals)
        text = _example(model, f"{said}\n\n{_EXAMPLE_MUST_HOLD[language]}{named}", answer, language)
        if text is not None and not all(literal in text for literal in literals):
            _log.info("an example for a lesson was dropped: it leaves out a text the user quoted")
            return None
    return text


def _example(model: StructuredModel, said: str, answer: str, language: str) -> str | None:
    """The distilling model's new answer for ``said`` (the question, its answer and what the
    user said of it), or None: a model error, garbage, or the old ``answer`` again."""
    request: list[Message] = [
        {"role": "system", "content": prompts.text("demonstrate", language)},
        {"role": "user", "content": said},
    ]
    try:
        raw = model.structured(request, EXAMPLE_SCHEMA, EXAMPLE_TOKENS)
    except EngramError as exc:  # the lesson is kept without an example
        _log.info("no example for a lesson: %s", exc.message)
        return None
    lines = [str(line).rstrip() for line in listed(raw.get("lines"))]
    text = "\n".join(lines).strip()
    if not text or is_garbage(text) or normalized(text) == normalized(answer):
        return None
    return text


def demonstrated(
    model: StructuredModel,
    candidates: Sequence[Candidate],
    episodes: Sequence[Episode],
    language: str,
) -> tuple[Candidate, ...]:
    """``candidates`` with an example (:func:`demonstration`, ``meta.example``: the question and
    its new answer) on each lesson in the user's words that quotes a text to use."""
    said = {e.id: e for e in episodes}
    found = []
    for candidate in candidates:
        asked = candidate.meta.get(ASKED)
        if candidate.kind != kinds.LESSON or not isinstance(asked, str):
            found.append(candidate)
            continue
        meta = {k: v for k, v in candidate.meta.items() if k != ASKED}
        answer = next(
            (
                said[i].content
                for i in candidate.episode_ids
                if i in said and said[i].role == "assistant"
            ),
            "",
        )
        if example := demonstration(model, asked, answer, candidate.content, language):
            meta[EXAMPLE] = {"asked": asked, "answer": example}
        found.append(dataclasses.replace(candidate, meta=meta))
    return tuple(found)


def messages(
    episodes: Sequence[Episode],
    language: str,
    outcomes: Sequence[Outcome] = (),
    plan: dict[str, Any] | None = None,
) -> list[Message]:
    """The distill request; with outcome signals it also asks for lessons from them, with the
    active plan (``meta.plan``) it asks whether the conversation advanced or finished it."""
    system, said = prompts.text("distill", language), transcript(episodes)
    if outcomes:
        system = f"{system}\n\n{prompts.text('lesson', language)}"
        lines = "\n".join(o.line() for o in outcomes)
        said = f"{said}\n\n{_OUTCOMES_HEADING[language]}\n{lines}"
    if plan:
        system = f"{system}\n\n{prompts.text('plan_update', language)}"
        shown = {k: plan.get(k) for k in ("goal", "steps", "current_step")}
        text = sanitize.clean(json.dumps(shown, ensure_ascii=False))
        said = f"{said}\n\n{_PLAN_HEADING[language]}\n{text}"
    return [{"role": "system", "content": system}, {"role": "user", "content": said}]


def distill(
    model: StructuredModel,
    episodes: Sequence[Episode],
    limits: Limits | None = None,
    outcomes: Sequence[Outcome] = (),
    plan: dict[str, Any] | None = None,
    read: Reader = intent.read,
) -> tuple[Distillation, dict[str, Any]]:
    """Ask the model to distill the episodes; returns the cleaned result and the raw answer
    (``read``: how a user's message is read, as the turn reads it)."""
    limits = limits or Limits()
    language = detect_language(episodes)
    request = messages(episodes, language, outcomes, plan)
    raw = model.structured(request, schema(limits), limits.max_tokens)
    result = parse(raw, episodes, language, outcomes, plan, read)
    shown = demonstrated(model, result.candidates, episodes, language)
    return dataclasses.replace(result, candidates=shown), raw
