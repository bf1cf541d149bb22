"""open_session with models lent by their owner: used as they are, left open at close."""

from __future__ import annotations

from pathlib import Path

import pytest

import tiny
from engram.assistant.events import Finished
from engram.assistant.session import embedder_for, open_session
from engram.models import roles


@pytest.mark.slow
def test_a_session_uses_lent_models_and_leaves_them_open(starter_models: Path) -> None:
    prefs = tiny.settings(max_answer_tokens=8)
    small = roles.load_local(prefs, "small")
    embedder = embedder_for(prefs)
    try:
        for _ in range(2):  # a second session on the same models: still loaded, still answering
            session = open_session(prefs, small=small, embedder=embedder)
            assert session.model is small and session.store is not None
            assert session.store.embedder is embedder
            assert small.gate is session.gate
            events = list(session.assistant.turn(0, "Hello there", lambda: False))
            assert isinstance(events[-1], Finished)
            session.close()
            assert not small.closed
    finally:
        small.close()
    own = open_session(prefs)
    own.close()
    assert own.model.closed  # a model the session loaded itself is closed with it
