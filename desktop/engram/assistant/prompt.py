"""Prompt assembly that keeps llama.cpp's prefix cache warm and keeps memories in their place.

Layout: the stable system part (persona, rules, pinned profile memories) first, then the
append-only conversation, then this turn's memory block inside the new user message. Only the
last message changes between turns, so llama.cpp re-evaluates about the new turn plus the block.

Memories are data: each is one JSON string literal (quotes and line breaks escaped) inside a
delimited block, and chat-template control sequences are removed from them, so a stored sentence
cannot close the block, start a new message or rewrite the system part.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engram.core import resources

# Control sequences of the common chat templates (ChatML, Llama 2/3, Gemma, Mistral, Phi, ...).
_CONTROL = re.compile(
    r"<\|[^|<>\n]{1,40}\|>|</?s>|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>|<\|?endoftext\|?>",
    re.IGNORECASE,
)
BLOCK_OPEN = "<memory>"
BLOCK_CLOSE = "</memory>"


def sanitize(text: str) -> str:
    """Text with chat-template control sequences and the block's own delimiters removed."""
    previous = None
    while previous != text:  # removal can join pieces into a new sequence: repeat until stable
        previous = text
        text = _CONTROL.sub("", text).replace(BLOCK_OPEN, "").replace(BLOCK_CLOSE, "")
    return text


def quote(text: str) -> str:
    """One memory as a JSON string literal: a single line that cannot end the block."""
    return json.dumps(sanitize(text).strip(), ensure_ascii=False)


@dataclass(frozen=True)
class Recalled:
    """One memory (or earlier message) put in front of the model for this turn."""

    label: str  # a memory kind, or "message" for an earlier raw message
    content: str
    score: float
    created_at: float
    memory_id: int | None = None
    episode_id: int | None = None
    role: str | None = None

    def line(self) -> str:
        day = time.strftime("%Y-%m-%d", time.localtime(self.created_at))
        who = f", {self.role}" if self.role else ""
        return f"[{self.label}, {day}{who}] {quote(self.content)}"


def _language_file(stem: str, language: str) -> str:
    suffix = "zh_CN" if language.startswith("zh") else "en"
    return resources.read_text("prompts", f"{stem}_{suffix}.txt").strip()


def system_part(
    language: str, profile: Sequence[Recalled] = (), plan: Recalled | None = None
) -> str:
    """Persona and rules, the pinned memories and the current plan (stable across turns)."""
    parts = [_language_file("system", language), _language_file("memory_rules", language)]
    if profile:
        parts.append(_block("profile_header", profile, language))
    if plan is not None:
        parts.append(_block("plan_header", [plan], language))
    return "\n\n".join(parts)


def memory_block(items: Sequence[Recalled], language: str) -> str:
    """This turn's recalled memories as a quoted, delimited block ('' when there are none)."""
    return _block("memory_header", items, language) if items else ""


def _block(header: str, items: Sequence[Recalled], language: str) -> str:
    lines = "\n".join(item.line() for item in items)
    return f"{BLOCK_OPEN}\n{_language_file(header, language)}\n{lines}\n{BLOCK_CLOSE}"


def user_message(block: str, text: str) -> str:
    """The new user message with this turn's memory block in front of it."""
    return f"{block}\n\n{text}" if block else text


@dataclass(frozen=True)
class PromptParts:
    """The exact prompt of one answer, part by part, with token counts (for inspection)."""

    system: str
    history: list[dict[str, str]]
    block: str
    user: str
    tokens: dict[str, int] = field(default_factory=dict)

    def messages(self) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": self.system},
            *self.history,
            {"role": "user", "content": user_message(self.block, self.user)},
        ]

    def counted(self, count: Callable[[str], int]) -> PromptParts:
        tokens = {
            "system": count(self.system),
            "history": sum(count(m["content"]) for m in self.history),
            "memory": count(self.block) if self.block else 0,
            "user": count(self.user),
        }
        return PromptParts(self.system, self.history, self.block, self.user, tokens)
