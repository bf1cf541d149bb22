"""A session that learns: "remember this", and the background consolidation wired to the turns."""

from __future__ import annotations

import threading

import pytest

import tiny
from engram.assistant.app import Engram, LoadedModels
from engram.assistant.events import Finished, Recalling, Remembered, Status, TurnEvent
from engram.assistant.session import open_session
from engram.core.cancel import CancelToken
from engram.memory.injections import Injections

JOB_TIMEOUT = 180.0


def _events(session_turn: object) -> list[TurnEvent]:
    return list(session_turn)  # type: ignore[call-overload]


@pytest.mark.slow
def test_remember_this_is_stored_at_once_and_recalled_in_a_new_chat(
    loaded_models: LoadedModels,
) -> None:
    app = Engram(tiny.settings(max_answer_tokens=24), models=loaded_models)
    app.open()
    try:
        told = list(app.send(0, "Remember this: my dog is called Biscuit.", CancelToken()))
        remembered = [e for e in told if isinstance(e, Remembered)]
        assert [r.content for r in remembered] == ["my dog is called Biscuit."]
        store = app.session.store  # type: ignore[union-attr]
        assert store is not None
        memory = store.get(remembered[0].memory_id)
        assert memory is not None and memory.origin == "user"
        sources = store.sources(memory.id)
        assert [s.episode_id for s in sources] == [told[0].user_episode_id]  # type: ignore[union-attr]

        asked = list(app.send(0, "What is my dog called?", CancelToken()))
        recalling = next(e for e in asked if isinstance(e, Recalling))
        finished = next(e for e in asked if isinstance(e, Finished))
        assert memory.id in [item.memory_id for item in recalling.in_system]  # always in front
        injected = Injections(store.conn).of(finished.episode_id)
        assert memory.id in [m.id for m, _rank, _score in injected]
    finally:
        app.close()


@pytest.mark.slow
def test_turns_feed_the_background_distiller_which_learns_with_the_starter_model(
    loaded_models: LoadedModels,
) -> None:
    states: list[Status] = []
    done = threading.Event()

    def on_status(status: Status) -> None:
        states.append(status)
        if status.state == "idle" and any(s.state == "distilling" for s in states):
            done.set()

    prefs = tiny.settings(
        max_answer_tokens=24, consolidate_every_turns=1, learn_with_small_models=True
    )
    session = open_session(
        prefs, on_status=on_status, small=loaded_models.small, embedder=loaded_models.embedder
    )
    try:
        assert session.learning is not None
        _events(session.assistant.turn(0, "My sister lives in Hangzhou and works as a nurse."))
        assert done.wait(JOB_TIMEOUT), [s.state for s in states]
        queue = session.learning.scheduler.queue
        assert [job.status for job in queue.jobs()] == ["done"]
        assert session.learning.worker.jobs_done == 1
        assert not any(s.state == "failed" for s in states)
    finally:
        session.close()
    assert not session.learning.worker.is_alive()
