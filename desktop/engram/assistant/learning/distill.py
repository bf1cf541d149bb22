"""Distillation: the large model turns a job's episodes into candidate memories, a summary, a plan.

The model answers under a JSON schema (grammar-constrained for local models, validated for cloud
ones). What comes back is checked again here: invented episode ids are dropped, empty or garbage
contents are dropped, and everything is written in the user's language (detected from the episodes).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engram.core import log, prompts, sanitize
from engram.core.messages import Message
from engram.memory import kinds
from engram.memory.episodes import Episode
from engram.memory.text import normalized

MAX_CONTENT_CHARS = 400
MAX_EPISODE_CHARS = 1500
_log = log.get("assistant.distill")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[^\W\d_]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")
_LOOP = re.compile(r"(\S.{0,11}?)\1{4,}", re.DOTALL)
_CONDITION = re.compile(r"(?i)(?:when(?:ever)?|if|before|after|once)\b|(?:当|如果|每当|在)")
_USER_FACT = re.compile(r"(?i)(?:the user|user) (?:is|was|has|lives|likes|works)\b")
_WORDS = re.compile(r"[a-z]{3,}|[\u4e00-\u9fff]")
# Words every lesson shares (its frame), left out when a lesson is compared with the prompts.
_FRAME = (
    "when whenever the user users asks asked ask because they and for how with that this then "
    "their them its are was has have not but you your 当 时 用 户 因 为 问 的 了 是 要 给"
)
_FUNCTION_WORDS = frozenset(_FRAME.split())
_PLACEHOLDER_WORDS = {"string", "content", "memory", "none", "null", "n/a", "todo", "...", "无"}


@dataclass(frozen=True)
class Limits:
    """How much one distillation may write: bounded strings keep every answer complete JSON."""

    memories: int = 8
    chars: int = 160  # per memory; the summary gets twice as much

    @property
    def max_tokens(self) -> int:
        """Room for the longest answer the schema allows (about a token per character)."""
        return 200 + self.memories * (self.chars + 30) + 3 * self.chars


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
                        "importance": {"type": "integer", "minimum": 1, "maximum": 5},
                        "episodes": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
                    },
                    "required": ["kind", "content", "importance", "episodes"],
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


@dataclass(frozen=True)
class Candidate:
    """A memory the distiller proposes, with the episodes it comes from."""

    kind: str
    content: str
    importance: float  # 0..1
    episode_ids: tuple[int, ...]
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Distillation:
    """Everything one distillation run produced, already cleaned."""

    language: str
    candidates: tuple[Candidate, ...]
    dropped: int  # candidates or ids thrown away as invalid


def detect_language(episodes: Sequence[Episode]) -> str:
    """``zh_CN`` when the user writes mostly Chinese, else ``en`` (only the user's words count)."""
    said = "".join(e.content for e in episodes if e.role == "user") or "".join(
        e.content for e in episodes
    )
    return text_language(said)


def text_language(text: str) -> str:
    """``zh_CN`` when the text is mostly Chinese, else ``en``."""
    # One Chinese character carries about as much as an English word.
    words = len(_LATIN_WORD.findall(text))
    return "zh_CN" if len(_CJK.findall(text)) > 1.5 * words else "en"


def transcript(episodes: Sequence[Episode]) -> str:
    """The episodes as numbered lines the model can cite: ``[12] user: ...``."""
    lines = []
    for e in episodes:
        text = " ".join(sanitize.clean(e.content).split())  # data, never a turn of its own
        if len(text) > MAX_EPISODE_CHARS:
            text = text[:MAX_EPISODE_CHARS] + "…"
        lines.append(f"[{e.id}] {e.role}: {text}")
    return "\n".join(lines)


@dataclass(frozen=True)
class Outcome:
    """A signal the job carries: how the user judged one answer (``text``: their words)."""

    answer_episode_id: int | None  # None: a regenerate or an edit dropped the answer
    kind: str
    text: str | None = None
    replaced: str | None = None  # the dropped answer's text

    def line(self) -> str:
        said = f" {json.dumps(sanitize.clean(self.text), ensure_ascii=False)}" if self.text else ""
        if self.replaced:
            gone = sanitize.clean(self.replaced[:MAX_EPISODE_CHARS])
            said += f" replaced: {json.dumps(gone, ensure_ascii=False)}"
        answer = "-" if self.answer_episode_id is None else self.answer_episode_id
        return f"[{answer}] {self.kind}{said}"


_OUTCOMES_HEADING = {"en": "Outcome signals:", "zh_CN": "结果信号："}
_PLAN_HEADING = {"en": "The user's active plan:", "zh_CN": "用户当前的计划："}


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


def is_garbage(content: str) -> bool:
    """Empty, placeholder-like, or without enough words to mean anything."""
    text = content.strip().strip("\"'“”.。")
    if normalized(text) in _PLACEHOLDER_WORDS:
        return True
    letters = _LETTER.findall(text)
    cjk = len(_CJK.findall(text))
    if cjk < 2 and len(letters) < 6:
        return True
    return len(set(text.lower())) < 4 or is_repetitive(text)  # "aaaaaa", "......"


def is_repetitive(text: str) -> bool:
    """A small model's loop: the same words, or the same run of up to 12 characters five times
    in a row ("......", "哈哈哈哈哈", ".1.1.1.1.1"). Never a share of distinct characters: every
    ordinary sentence of some length has few distinct letters."""
    words = text.lower().split()
    if len(words) >= 8 and len(set(words)) / len(words) < 0.4:
        return True
    return _LOOP.search(text) is not None


def lesson_problem(content: str, language: str) -> str:
    """Why a proposed lesson is not one ('' when it is): a lesson is a rule with its situation
    ("When …, …" / "当……时，……"), about what the assistant does, neither a fact about the user
    nor a sentence of Engram's own prompts (small models copy their instructions and examples)."""
    text = content.strip()
    if not _CONDITION.match(text):
        return "no situation"
    if _USER_FACT.match(text):
        return "a fact, not a rule"
    words = _content_words(text)
    for sentence in _prompt_sentences(language):
        if words and len(words & sentence) / len(words) >= 0.6:
            return "a sentence of the prompt"
    return ""


def _content_words(text: str) -> set[str]:
    return set(_WORDS.findall(text.lower())) - _FUNCTION_WORDS


@functools.cache
def _prompt_sentences(language: str) -> tuple[frozenset[str], ...]:
    """The content words of each sentence of the distill and lesson prompts."""
    text = f"{prompts.text('distill', language)}\n{prompts.text('lesson', language)}"
    sentences = re.split(r"[.。;；:：\n]+", text)
    return tuple(frozenset(w) for s in sentences if len(w := _content_words(s)) >= 3)


def parse(raw: dict[str, Any], episodes: Sequence[Episode], language: str) -> Distillation:
    """Clean a structured answer: keep valid candidates with real episode ids."""
    allowed = {e.id for e in episodes}
    everything = tuple(sorted(allowed))
    found: list[Candidate] = []
    seen: set[str] = set()
    dropped = 0

    def keep(kind: str, content: str, importance: float, ids: Sequence[Any], **meta: Any) -> None:
        nonlocal dropped
        content = " ".join(str(content).split())[:MAX_CONTENT_CHARS]
        key = normalized(content)
        if kind not in kinds.KINDS or is_garbage(content) or key in seen:
            dropped += 1
            return
        if kind == kinds.LESSON and (why := lesson_problem(content, language)):
            _log.info("a proposed lesson was dropped: %s", why)
            dropped += 1
            return
        valid = tuple(sorted({i for i in ids if isinstance(i, int) and i in allowed}))
        dropped += len({repr(i) for i in ids}) - len(valid)
        seen.add(key)
        found.append(Candidate(kind, content, importance, valid or everything, meta))

    for item in _listed(raw.get("memories")):
        if not isinstance(item, dict):
            dropped += 1
            continue
        level = item.get("importance")
        importance = (min(5, max(1, level)) / 5) if isinstance(level, int) else 0.5
        keep(
            str(item.get("kind", "")),
            str(item.get("content", "")),
            importance,
            _listed(item.get("episodes")),
        )
    summary = raw.get("summary")
    if isinstance(summary, str) and summary.strip():
        keep(kinds.SUMMARY, summary, 0.4, everything)
    plan = raw.get("plan")
    if isinstance(plan, dict) and isinstance(plan.get("goal"), str) and plan["goal"].strip():
        steps = list(dict.fromkeys(str(s).strip() for s in _listed(plan.get("steps"))))
        steps = [s for s in steps if s]
        step = plan.get("current_step")
        current = min(max(0, step if isinstance(step, int) else 0), max(0, len(steps) - 1))
        spec = {"goal": plan["goal"].strip(), "steps": steps, "current_step": current}
        if steps and isinstance(step, int) and step >= len(steps):  # past the last step: done
            spec["done"] = True
        keep(
            kinds.PLAN,
            plan_text(plan["goal"], steps, current, text_language(plan["goal"])),
            0.7,
            everything,
            plan=spec,
        )
    return Distillation(language, tuple(found), dropped)


def _listed(value: Any) -> list[Any]:
    """A list the distiller returned, or [] when it returned something else there."""
    return value if isinstance(value, list) else []


def plan_text(goal: str, steps: Sequence[str], current: int, language: str) -> str:
    """A plan as one readable memory."""
    goal = goal.strip().rstrip("。.")
    if language == "zh_CN":
        text = f"用户的目标：{goal}。"
        if steps:
            text += "步骤：" + "；".join(f"{i + 1}. {s}" for i, s in enumerate(steps))
            text += f"。当前在第 {current + 1} 步。"
        return text
    text = f"The user's goal: {goal}."
    if steps:
        text += " Steps: " + "; ".join(f"{i + 1}. {s}" for i, s in enumerate(steps))
        text += f". Currently on step {current + 1}."
    return text


def distill(
    model: StructuredModel,
    episodes: Sequence[Episode],
    limits: Limits | None = None,
    outcomes: Sequence[Outcome] = (),
    plan: dict[str, Any] | None = None,
) -> tuple[Distillation, dict[str, Any]]:
    """Ask the model to distill the episodes; returns the cleaned result and the raw answer."""
    limits = limits or Limits()
    language = detect_language(episodes)
    request = messages(episodes, language, outcomes, plan)
    raw = model.structured(request, schema(limits), limits.max_tokens)
    return parse(raw, episodes, language), raw
