"""Learning shows its steps: a job says it loads the model, reads the chat (which of the waiting
chats, and how many of its tokens the model has read), proposes memories (the tokens written so
far, moving during the long model call), checks each proposal and saves; the status bar says it
in English and Chinese."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from engram.assistant.events import Status, Step
from engram.assistant.learning import consolidation
from engram.assistant.learning.consolidation import ConsolidationWorker, run_job
from engram.assistant.learning.distiller_backends import LocalDistiller
from engram.core import paths
from engram.core.cancel import CancelToken
from engram.core.messages import Message
from engram.memory.jobs import JobQueue
from engram.memory.store import MemoryStore
from engram.models.background import LazyModel
from engram.models.local import CallStats
from engram.ui.status_line import StatusLine
from test_consolidation import embedder, store  # noqa: F401  (shared fixtures)
from test_consolidation_support import ScriptedModel, chat, memories_answer
from test_live_switches import _zh
from waiting import wait_until

PROMPT = 400  # tokens of the distill request, as the fake model reads it in batches


@pytest.fixture(autouse=True)
def every_tick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Report every move of the model call, not two a second."""
    monkeypatch.setattr(consolidation, "TICK_SECONDS", 0.0)


class ReadingModel:
    """A local model as the learning thread holds it: its ``structured`` call reads the prompt
    in batches (``reading()`` moves), then writes tokens (``last_stats`` counts them), calling
    the stop check between batches and tokens as llama.cpp does; the answer is scripted."""

    def __init__(self, answers: ScriptedModel) -> None:
        self.answers = answers
        self._reading: tuple[int, int] | None = None
        self.last_stats: CallStats | None = None

    def reading(self) -> tuple[int, int] | None:
        return self._reading

    def structured(
        self,
        messages: Sequence[Message],
        json_schema: dict[str, Any],
        max_tokens: int = 512,
        cancelled: Callable[[], bool] = lambda: False,
        attempts: int = 3,
    ) -> dict[str, Any]:
        self.last_stats = CallStats(PROMPT, 0, max_tokens)
        for read in (100, 200, 300, 400):
            self._reading = (read, PROMPT)
            cancelled()
        self._reading = None
        for _ in range(40):
            self.last_stats.generated_tokens += 1
            cancelled()
        return self.answers.structured(messages, json_schema, max_tokens)


def _distiller(model: ReadingModel) -> LocalDistiller:
    return LocalDistiller(LazyModel(lambda: model, 600.0))  # type: ignore[arg-type,return-value]


def test_a_job_reports_each_step_and_moves_during_the_long_model_call(
    store: MemoryStore,  # noqa: F811
) -> None:
    chat(store, [("My cat is called Miso and I live in Lyon.", "Nice!")])
    queue = JobQueue(store.conn)
    assert queue.enqueue(1) is not None
    job = queue.claim()
    assert job is not None
    answers = ScriptedModel(
        memories_answer(
            ("fact", "The user's cat is called Miso."), ("fact", "The user lives in Lyon.")
        )
    )
    said: list[tuple[str, float, Step | None]] = []
    result = run_job(
        job, store, queue, _distiller(ReadingModel(answers)), CancelToken(),
        lambda phase, fraction, _model, step: said.append((phase, fraction, step)),
    )  # fmt: skip
    assert result.outcome == "done" and len(result.learned) == 2

    steps = [step for _phase, _fraction, step in said if step is not None]
    names = [step.name for step in steps]
    assert names[0] == "loading"  # the large model was not loaded yet
    assert names.index("reading") < names.index("proposing") < names.index("checking")
    assert names[-1] == "saving"
    assert names == sorted(
        names, key=["loading", "reading", "proposing", "checking", "saving"].index
    )
    # During the one long model call the step moves: the chat read batch by batch, then the
    # proposal written token by token.
    read = [(s.done, s.total) for s in steps if s.name == "reading" and s.total]
    assert read == [(100, PROMPT), (200, PROMPT), (300, PROMPT), (400, PROMPT)]
    written = [s.done for s in steps if s.name == "proposing" and s.done]
    assert len(written) >= 10 and written == sorted(written) and written[-1] == 40
    checked = [(s.done, s.total) for s in steps if s.name == "checking"]
    assert checked == [(1, 2), (2, 2)]
    fractions = [fraction for _phase, fraction, _step in said]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert len(set(fractions)) >= 10  # the share moves with the steps, not only at their ends


def test_the_worker_says_which_of_the_waiting_chats_it_reads(store: MemoryStore) -> None:  # noqa: F811
    for said in ("My cat is called Miso.", "I live in Lyon.", "I play the cello."):
        chat(store, [(said, "Noted.")])
    queue = JobQueue(store.conn)
    for conversation in (1, 2, 3):
        assert queue.enqueue(conversation) is not None
    answers = ScriptedModel(memories_answer(("fact", "The user has a hobby.")))
    statuses: list[Status] = []
    worker = ConsolidationWorker(
        lambda: MemoryStore.open(paths.database_path(), store.embedder),
        _distiller(ReadingModel(answers)),
        on_status=statuses.append,
        poll=0.05,
    )
    worker.start()
    try:
        wait_until(lambda: queue.counts().get("done", 0) == 3, timeout=30)
    finally:
        worker.stop()
    chats = {
        (s.step.chat, s.step.chats)
        for s in statuses
        if s.state == "distilling" and s.step is not None and s.step.name == "reading"
    }
    assert chats == {(1, 3), (2, 3), (3, 3)}
    assert statuses[-1].state == "idle" and statuses[-1].step is None


@pytest.mark.parametrize(
    ("status", "english"),
    [
        (Status("distilling", 0.0, step=Step("loading")),
         "Learning… 0% · loading the model"),
        (Status("distilling", 0.05, step=Step("reading", chat=1, chats=1)),
         "Learning… 5% · reading the chat"),
        (Status("distilling", 0.1, step=Step("reading", 1200, 3000, chat=2, chats=5)),
         "Learning… 10% · reading the chat (1,200 of 3,000 tokens) · chat 2 of 5"),
        (Status("distilling", 0.2, step=Step("proposing", chat=2, chats=5)),
         "Learning… 20% · proposing memories · chat 2 of 5"),
        (Status("distilling", 0.22, step=Step("proposing", 85, 768, chat=1, chats=1)),
         "Learning… 22% · proposing memories (85 tokens)"),
        (Status("distilling", 0.61, step=Step("checking", 3, 7, chat=2, chats=5)),
         "Learning… 61% · checking memory 3 of 7 · chat 2 of 5"),
        (Status("distilling", 0.95, step=Step("saving", chat=5, chats=5)),
         "Learning… 95% · saving · chat 5 of 5"),
    ],
)  # fmt: skip
def test_the_status_bar_says_the_step_in_both_languages(
    qtbot: QtBot, ui_language: str, status: Status, english: str
) -> None:
    line = StatusLine(_label())
    qtbot.addWidget(line)
    line.show_learning(status)
    shown = line.learning_state.full_text()
    assert line.learning_state.toolTip() == shown  # whole, however narrow the window
    if ui_language == "en":
        assert shown == english
        return
    assert shown != english and "·" in shown  # said in Chinese, part by part
    step = status.step
    assert step is not None
    phrases = {
        "loading": "loading the model",
        "reading": "reading the chat ({done} of {total} tokens)" if step.total
        else "reading the chat",
        "proposing": "proposing memories ({count} tokens)" if step.done
        else "proposing memories",
        "checking": "checking memory {index} of {count}",
        "saving": "saving",
    }  # fmt: skip
    said = _zh("StatusLine", phrases[step.name]).split("{")[0]
    assert said and said in shown
    if step.chats > 1:
        assert _zh("StatusLine", "chat {chat} of {chats}").split("{")[0] in shown


def _label() -> Any:
    from PySide6.QtWidgets import QLabel

    return QLabel()


def test_the_step_shows_in_a_900_px_window_without_widening_it(qtbot: QtBot) -> None:
    window = QMainWindow()
    line = StatusLine(_label())
    window.setStatusBar(line)
    window.resize(900, 200)
    window.show()
    qtbot.addWidget(window)
    line.model_loaded("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    step = Step("reading", 1200, 3000, chat=2, chats=5)
    line.show_learning(Status("distilling", 0.11, queued=5, model="loaded", step=step))
    qtbot.wait(50)
    assert window.width() == 900
    # The step shows, the small model's name giving way; the whole of it in the tooltip.
    assert line.learning_state.text().startswith("Learning… 11% · reading the chat (1,200 of")
    assert line.learning_state.toolTip().endswith("· chat 2 of 5")
    line.show_learning(Status("idle", model="loaded"))
    assert line.learning_state.text() == "Memory up to date"
