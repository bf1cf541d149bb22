"""Long-chat benchmark: a chat past its context, answered with the window kept between drops.

Run: ``.venv/bin/python bench/long_chat.py [--model ID] [--turns N] [--context N]``. In one run,
on the small model (the starter pair's Qwen2.5-Coder-0.5B unless ``--model`` names another) and
a temporary ENGRAM_HOME: a chat already longer than the context (``--context``, default the
app's 4,096 tokens) goes on for ``--turns`` turns, each adding an exchange of ~300 tokens
before the measured question, as a real chat with real answers does. Engram's fitting (the
oldest messages go in steps, ``assistant.turn.context``) against the one it replaced (one
message dropped per turn, as they stop fitting), on the same chat, in the same run: prompt
tokens llama.cpp evaluated per answer, and the time from Enter to the first token.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(REPO / "desktop"))

from engram.assistant.session import open_session  # noqa: E402
from engram.assistant.turn import context  # noqa: E402
from engram.core import heap  # noqa: E402
from engram.core.settings import Settings  # noqa: E402
from turn import engram_ttft, temp_home  # noqa: E402  (also sets the models folder)

TOPICS = ["garden", "bicycle", "violin lessons", "trip to Porto", "tax forms", "sourdough"]


def said(i: int) -> tuple[str, str]:
    """The i-th exchange of the chat: a user message and an answer, ~150 tokens each."""
    topic = TOPICS[i % len(TOPICS)]
    user = f"Message {i} about my {topic}: " + f"I spent the afternoon on the {topic} again, " * 12
    answer = f"Answer {i}: " + f"That sounds like real progress with the {topic}; keep notes. " * 10
    return user, answer


def one_per_turn(costs: list[int], budget: int) -> int:
    """The fitting Engram used before: the newest messages that fit, dropped one by one."""
    kept = 0
    for cost in reversed(costs):
        if cost > budget:
            break
        budget -= cost
        kept += 1
    return len(costs) - kept


@contextmanager
def fitting(rule: str) -> Iterator[None]:
    original = context._first_kept
    if rule == "one per turn":
        context._first_kept = one_per_turn
    try:
        yield
    finally:
        context._first_kept = original


def run(model_id: str, turns: int, n_ctx: int, rule: str) -> tuple[list[int], list[float]]:
    """Evaluated prompt tokens and seconds to the first token of each measured answer."""
    settings = Settings(
        language="en", max_answer_tokens=8, small_model=model_id, context_size=n_ctx
    )
    session = open_session(settings)
    heap.settle()
    log = session.assistant.log
    conversation = log.new_conversation(f"long chat, {rule}").id
    evaluated: list[int] = []
    seconds: list[float] = []
    try:
        with fitting(rule):
            exchanges = n_ctx // 200  # ~1.5 contexts of chat before the first measured turn
            for i in range(exchanges):
                user, answer = said(i)
                log.append(conversation, "user", user)
                log.append(conversation, "assistant", answer)
            engram_ttft(session, conversation, "What did I say about my garden?")  # warm
            for turn in range(turns):
                user, answer = said(exchanges + turn)
                log.append(conversation, "user", user)
                log.append(conversation, "assistant", answer)
                ttft, _ = engram_ttft(session, conversation, f"Question {turn}: what next?")
                stats = session.model.last_stats
                assert stats is not None
                evaluated.append(stats.evaluated_tokens)
                seconds.append(ttft)
                print(
                    f"  {rule:>13} turn {turn + 1:>2}: prompt {stats.prompt_tokens:>5},"
                    f" evaluated {stats.evaluated_tokens:>5}, first token {ttft:6.2f} s",
                    flush=True,
                )
    finally:
        session.close()
    return evaluated, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default=Settings().small_model, help="the small model's id")
    parser.add_argument("--turns", type=int, default=10, help="measured turns per fitting")
    parser.add_argument("--context", type=int, default=Settings().context_size)
    args = parser.parse_args()
    results = {}
    with temp_home():
        for rule in ("steps", "one per turn"):
            results[rule] = run(args.model, args.turns, args.context, rule)
    (ours, our_s), (theirs, their_s) = results["steps"], results["one per turn"]
    print(f"\nmodel {args.model}, context {args.context}, {args.turns} turns past the context")
    print(f"{'fitting':>14} {'evaluated/turn':>15} {'first token s (mean)':>21} {'median':>8}")
    for rule, (tokens, secs) in results.items():
        print(
            f"{rule:>14} {statistics.mean(tokens):>15.0f} {statistics.mean(secs):>21.2f}"
            f" {statistics.median(secs):>8.2f}"
        )
    print(
        f"ratios (steps / one per turn): evaluated tokens"
        f" {sum(ours) / sum(theirs):.2f}x, mean time to first token"
        f" {statistics.mean(our_s) / statistics.mean(their_s):.2f}x"
    )
    return 0


if __name__ == "__main__":
    start = time.perf_counter()
    code = main()
    print(f"took {time.perf_counter() - start:.0f} s")
    raise SystemExit(code)
