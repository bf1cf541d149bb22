"""Fitting a conversation into the model's context window.

The system part and the current message always stay; the oldest turns go first. A current message
too long on its own is truncated, and the caller tells the user.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engram.core import log
from engram.core.messages import Message

_log = log.get("assistant.context")
# Tokens a chat template adds around each message (role markers, separators); generous on purpose.
TEMPLATE_OVERHEAD = 8
# A cheap upper bound used before exact tokenization: no tokenizer emits fewer than one token per
# four bytes of UTF-8, so text longer than this many bytes can never fit.
BYTES_PER_TOKEN_MAX = 4


@dataclass(frozen=True)
class Fitted:
    """The messages to send, and what had to give way."""

    messages: list[Message]
    dropped_turns: int
    truncated_chars: int


def fit(
    system: str,
    history: Sequence[Message],
    user: str,
    n_ctx: int,
    reserve: int,
    count: Callable[[str], int],
) -> Fitted:
    """Keep the system part and the new message; add history newest-first while it fits."""
    budget = n_ctx - reserve - count(system) - 2 * TEMPLATE_OVERHEAD
    user, truncated = _truncate(user, budget, count)
    budget -= count(user)
    kept: list[Message] = []
    for message in reversed(history):
        cost = count(message["content"]) + TEMPLATE_OVERHEAD
        if cost > budget:
            break
        kept.append(message)
        budget -= cost
    dropped = len(history) - len(kept)
    if dropped:
        _log.info("context full: dropped the %d oldest message(s)", dropped)
    messages = [
        {"role": "system", "content": system},
        *reversed(kept),
        {"role": "user", "content": user},
    ]
    return Fitted(messages, dropped, truncated)


def _truncate(text: str, budget: int, count: Callable[[str], int]) -> tuple[str, int]:
    if budget <= 0:
        return "", len(text)
    original = len(text)
    if len(text.encode("utf-8")) > budget * BYTES_PER_TOKEN_MAX:
        text = text.encode("utf-8")[: budget * BYTES_PER_TOKEN_MAX].decode("utf-8", "ignore")
    if count(text) <= budget:
        return text, original - len(text)
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if count(text[:mid]) <= budget:
            low = mid
        else:
            high = mid - 1
    return text[:low], original - low
