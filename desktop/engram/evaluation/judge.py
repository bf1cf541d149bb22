"""Verdicts on answers by the large model, and the lexical stand-in for plan adherence.

The judge sees the question, the reference and the answer, and must reply with grammar-constrained
JSON (``LocalModel.structured``), so its verdict is always one of two words. Its instructions are
``resources/prompts/judge_en.txt`` and ``judge_plan_en.txt``: English only, it judges answers in
either language. An empty answer (a failed one) is wrong without asking.
"""

from __future__ import annotations

from typing import Any

from engram.assistant.learning import distill
from engram.core import prompts
from engram.core.messages import Message
from engram.core.stream_filter import visible
from engram.memory.text import query_terms

UNANSWERABLE = 5  # the LoCoMo category of questions the conversation never answers
NOT_MENTIONED = "not mentioned"  # the reference the judge gets for those
MIN_COVERED = 0.5  # the lexical proxy: share of the step's content words the answer repeats
VERDICT_TOKENS = 24


def _schema(yes: str, no: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"verdict": {"type": "string", "enum": [yes, no]}},
        "required": ["verdict"],
        "additionalProperties": False,
    }


class Judge:
    """Asks a model for a verdict; 1.0 for correct (consistent), 0.0 for wrong (inconsistent)."""

    def __init__(self, model: distill.StructuredModel) -> None:
        self.model = model

    def _verdict(self, prompt: str, user: str, yes: str, no: str) -> float:
        messages: list[Message] = [
            {"role": "system", "content": prompts.text(prompt, "en")},
            {"role": "user", "content": user},
        ]
        reply = self.model.structured(messages, _schema(yes, no), max_tokens=VERDICT_TOKENS)
        return float(reply["verdict"] == yes)

    def correct(self, question: str, reference: str, answer: str, category: int) -> float:
        """Whether ``answer`` says what ``reference`` says (lenient on phrasing)."""
        answer = visible(answer)  # the judge sees what the user saw, never the reasoning
        if not answer.strip():
            return 0.0
        wanted = NOT_MENTIONED if category == UNANSWERABLE else reference
        user = f"Question: {question}\nReference answer: {wanted}\nAssistant's answer: {answer}"
        return self._verdict("judge", user, "correct", "wrong")

    def follows_plan(self, question: str, step: str, answer: str) -> float:
        """Whether ``answer`` is consistent with the plan step the user is on."""
        answer = visible(answer)
        if not answer.strip():
            return 0.0
        user = f"Question: {question}\nCurrent plan step: {step}\nAssistant's answer: {answer}"
        return self._verdict("judge_plan", user, "consistent", "inconsistent")


def covers_step(answer: str, step: str) -> float:
    """The lexical proxy: 1.0 when the answer repeats at least half of the step's content words.

    Content words are the search terms of ``memory.text.query_terms`` (no stopwords; CJK bigrams).
    """
    wanted = set(query_terms(step))
    if not wanted:
        return 0.0
    said = set(query_terms(answer))
    return float(len(wanted & said) / len(wanted) >= MIN_COVERED)
