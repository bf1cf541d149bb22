"""Fitting a conversation into the model's context window.

The system part and the current message always stay; the oldest turns go first, a step at a time
(:data:`DROP_STEP`), so that the turns after a drop start the same way and llama.cpp reuses the
history it already read instead of reading all of it again. A current message too long on its
own is truncated, and the caller tells the user.
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
# When the history no longer fits, the oldest messages go in multiples of this share of the
# history's budget, counted from the conversation's start: the first message kept stays the same
# for the next turns, until the conversation has grown by another step (a turn adds ~100-500
# tokens; half of a 4,096 context's history is ~1,300). Dropping one message per turn instead
# changed the prompt's start every turn of a long chat, and the whole window (~3,000 tokens;
# a minute on a 2-core laptop) was read again for every answer. The messages dropped are still
# found by recall when they matter.
DROP_STEP = 0.5
STEP_QUANTUM = 64  # tokens: the step is rounded to it, so a few tokens more or less of
# question or system part do not move the grid the oldest messages are dropped on


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
    dropped = _first_kept([count(m["content"]) + TEMPLATE_OVERHEAD for m in history], budget)
    if dropped:
        _log.info("context full: dropped the %d oldest message(s)", dropped)
    messages: list[Message] = [
        {"role": "system", "content": system},
        *history[dropped:],
        {"role": "user", "content": user},
    ]
    return Fitted(messages, dropped, truncated)


def _first_kept(costs: list[int], budget: int) -> int:
    """How many of the oldest messages (of these token ``costs``) to drop so that the rest fit
    ``budget``: enough to free a whole number of steps (:data:`DROP_STEP`), at least."""
    over = sum(costs) - budget
    if over <= 0:
        return 0
    step = max(STEP_QUANTUM, int(budget * DROP_STEP) // STEP_QUANTUM * STEP_QUANTUM)
    freed, goal = 0, -(-over // step) * step  # the excess, rounded up to the step's grid
    for dropped, cost in enumerate(costs):
        if freed >= goal:
            return dropped
        freed += cost
    return len(costs)


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
