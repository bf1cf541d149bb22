"""Fitting a conversation into the context: what stays, and a start that holds between drops."""

from __future__ import annotations

import itertools
import random

from engram.assistant.turn import context
from engram.core.messages import Message


def _words(text: str) -> int:
    return len(text.split())


def _said(rng: random.Random, n: int) -> list[Message]:
    roles = ("user", "assistant")
    return [
        {"role": roles[i % 2], "content": " ".join(["word"] * rng.randint(5, 150))}
        for i in range(n)
    ]


def test_a_history_that_fits_is_kept_whole() -> None:
    history = _said(random.Random(1), 6)
    fitted = context.fit("system", history, "question", n_ctx=4096, reserve=512, count=_words)
    assert fitted.messages[1:-1] == history and fitted.dropped_turns == 0
    assert [fitted.messages[0]["content"], fitted.messages[-1]["content"]] == ["system", "question"]


def test_a_long_chat_drops_its_oldest_messages_in_steps_and_keeps_its_start_between_them() -> None:
    """Every prompt fits; between two drops each prompt begins with the whole previous one (so
    llama.cpp reads only the new turn); a drop leaves at least the budget minus a step."""
    rng = random.Random(7)
    chat = _said(rng, 240)
    n_ctx, reserve, system = 4096, 896, "system"  # the app's context, answer and memory budget
    starts, reread = [], 0
    previous: list[Message] = []
    for turn in range(2, len(chat), 2):
        question = " ".join(["ask"] * rng.randint(3, 40))  # questions of every length
        fitted = context.fit(system, chat[:turn], question, n_ctx, reserve, count=_words)
        history = fitted.messages[1:-1]
        budget = n_ctx - reserve - _words(system) - _words(question) - 2 * context.TEMPLATE_OVERHEAD
        assert sum(_words(m["content"]) + context.TEMPLATE_OVERHEAD for m in history) <= budget
        assert history == chat[fitted.dropped_turns : turn]  # the newest messages, in order
        starts.append(fitted.dropped_turns)
        if history[: len(previous)] != previous:
            reread += 1
            step = int(budget * context.DROP_STEP)
            kept = sum(_words(m["content"]) + context.TEMPLATE_OVERHEAD for m in history)
            assert kept >= budget - step - 160, turn  # a step and at most one long message
        previous = history
    assert starts[-1] > 60  # the chat outgrew its context many times over
    moves = sum(1 for a, b in itertools.pairwise(starts) if a != b)
    assert reread == moves and moves <= len(starts) // 6, starts  # dropping one a turn: ~all


def test_a_message_longer_than_the_context_leaves_no_history() -> None:
    history = _said(random.Random(3), 4)
    long = " ".join(["x"] * 5000)
    fitted = context.fit("system", history, long, n_ctx=1024, reserve=256, count=_words)
    assert fitted.messages[1:-1] == [] and fitted.dropped_turns == 4
    assert 0 < _words(fitted.messages[-1]["content"]) < 1024 and fitted.truncated_chars > 0
