"""While the model reads a long prompt, the answer's bubble says how many of its tokens it has
read, with a bar that fills (the slow part before the first word on a CPU: 75 s and 120 s with
the real pair on two cores); llama.cpp's own count of the tokens evaluated is what it shows."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from engram.assistant.app import LoadedModels
from engram.models.capabilities import Capabilities
from engram.models.local import LocalModel
from test_crash_recovery import _open, _use

ANSWER_TIMEOUT_MS = 60_000


class ReadingModel:
    """Reads its prompt (``read`` of 3,400 tokens, moved by the test) until ``go`` is set."""

    n_ctx = 4096
    capabilities = Capabilities(reading=True)

    def __init__(self) -> None:
        self.read: tuple[int, int] | None = None
        self.go = threading.Event()

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def reading(self) -> tuple[int, int] | None:
        return self.read

    def stream_chat(self, messages: list[Any], *_args: Any, **_kwargs: Any) -> Iterator[str]:
        self.read = (0, 3400)
        assert self.go.wait(30)
        self.read = None
        yield "Paris."

    def prefill(self, messages: list[Any], *_args: Any, **_kwargs: Any) -> int:
        return 0


@pytest.mark.slow
def test_the_bubble_counts_the_prompt_tokens_read_with_a_filling_bar(
    qtbot: QtBot, loaded_models: LoadedModels
) -> None:
    window = _open(qtbot, loaded_models)
    try:
        model = ReadingModel()
        _use(window, model)
        try:
            window.submit("What is the capital of France?")
            answer = window.chat.bubbles()[-1]
            qtbot.waitUntil(lambda: model.read is not None, timeout=ANSWER_TIMEOUT_MS)
            line = answer.waiting
            assert line is not None
            model.read = (1200, 3400)
            qtbot.waitUntil(lambda: "(1,200 of 3,400 tokens)" in line.stage.text(), timeout=5_000)
            assert line.stage.text().startswith("Thinking: reading the conversation")
            assert (line.bar.maximum(), line.bar.value()) == (100, 35)
            model.read = (3000, 3400)
            qtbot.waitUntil(lambda: line.bar.value() == 88, timeout=5_000)
            assert "(3,000 of 3,400 tokens)" in line.stage.text()
        finally:
            model.go.set()
        qtbot.waitUntil(lambda: not window.turns.busy, timeout=ANSWER_TIMEOUT_MS)
        assert answer.waiting is None and answer.text == "Paris."
    finally:
        window.close()


@pytest.mark.slow
def test_llama_cpp_says_how_far_it_has_read_a_long_prompt(small_model_path: Path) -> None:
    """Asked between its batches (llama.cpp's abort callback asks whether to stop), the model
    says how many prompt tokens it has read so far; once it writes, it says nothing. Batches of
    64 tokens make a prompt of a few hundred a long one."""
    model = LocalModel(small_model_path, n_ctx=1024, n_batch=64, state_cache_mb=0)
    long_story = "The harbour town kept its lighthouse lit every night of the year. " * 15
    messages = [{"role": "user", "content": long_story + "Where is the lighthouse?"}]
    seen: list[tuple[int, int] | None] = []

    def cancelled() -> bool:
        seen.append(model.reading())
        return False

    try:
        "".join(model.stream_chat(messages, max_tokens=2, cancelled=cancelled))
        stats = model.last_stats
        assert stats is not None and stats.prompt_tokens > 128  # more than two batches of 64
        read = [r for r in seen if r is not None]
        assert read and {total for _done, total in read} == {stats.prompt_tokens}
        done = sorted({d for d, _total in read})
        assert len(done) >= 2 and done[-1] < stats.prompt_tokens  # it moved, before the end
        assert model.reading() is None
    finally:
        model.close()
