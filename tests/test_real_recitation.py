"""The real 0.5B model, given the lessons of the English task set, may recite one of them
instead of answering (it did to "Give me some tips for better sleep.", when that question still
got an unrelated lesson); the user never sees a recited lesson (the answer is asked again without
memory)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.assistant import intent
from engram.assistant.app import LoadedModels
from engram.assistant.events import Finished, Recalling, Token
from engram.assistant.session import Session, open_session
from engram.assistant.turn.recitation import Guard, Verdict
from engram.core import resources
from engram.core.settings import Settings
from engram.evaluation import tasks
from engram.memory.kinds import LESSON

pytestmark = [pytest.mark.real, pytest.mark.slow]


@pytest.fixture
def session(coder: LoadedModels) -> Iterator[Session]:
    opened = open_session(
        Settings(temperature=0.0, max_answer_tokens=96), small=coder.small, embedder=coder.embedder
    )
    assert opened.store is not None, opened.memory_problem
    opened.assistant.tools = None
    yield opened
    opened.close()


def test_the_real_small_model_never_shows_a_lesson_it_recites(session: Session) -> None:
    store = session.store
    assert store is not None
    task_set = tasks.load(Path(str(resources.path("eval", "tasks_en.json"))))
    lessons = []
    for task in task_set.tasks:  # what a perfect learner keeps: the user's words, in context
        if task.feedback is not None and task.feedback.text and task.feedback.kind != "praise":
            words, question = intent.unframed(task.feedback.text), task.messages[-1]
            vector = store.space.embed([f"{words}\n{question}"])
            store.add(words, LESSON, origin="local", meta={"applies_to": [question]}, vector=vector)
            lessons.append(words)
    events = list(session.assistant.turn(0, "How hot should my oven be for a homemade pizza?"))
    shown = "".join(e.text for e in events if isinstance(e, Token))
    finished = next(e for e in events if isinstance(e, Finished))
    guard = Guard.of(lessons)
    assert guard is not None
    assert shown.strip() and finished.text == shown
    assert guard.verdict(shown) is not Verdict.RECITED, shown
    recalled = [e.items for e in events if isinstance(e, Recalling)]
    assert recalled[0], "the lessons were given to the first answer"
