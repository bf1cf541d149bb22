"""The shared starter model of the test suite answers each test as a fresh load of it would."""

from __future__ import annotations

from pathlib import Path

import pytest

import tiny
from conftest import as_freshly_loaded
from engram.assistant.app import LoadedModels
from engram.models import roles
from engram.models.background import ForegroundGate

OPENING = {"role": "system", "content": "You are a helpful assistant. Answer in a few words."}
QUESTION = [OPENING, {"role": "user", "content": "Name three fruits."}]


def _answer(models: LoadedModels) -> str:
    return "".join(models.small.stream_chat(QUESTION, max_tokens=16))  # sampled: the seed counts


@pytest.mark.slow
def test_a_shared_model_is_put_back_to_answer_as_a_fresh_load(
    starter_pair: tuple[LoadedModels, int], starter_models: Path
) -> None:
    models, seed = starter_pair
    fresh = roles.load_local(tiny.settings(), "small")
    try:
        expected = "".join(fresh.stream_chat(QUESTION, max_tokens=16))
    finally:
        fresh.close()
    # What earlier tests leave behind: saved states (of this very question), a KV cache that
    # opens the same way, a later seed, a gate.
    for messages in (QUESTION, [OPENING, {"role": "user", "content": "Tell a story."}]):
        list(models.small.stream_chat(messages, max_tokens=8))
    models.small.gate = ForegroundGate()
    as_freshly_loaded(models.small, seed)
    assert models.small.gate is None and models.small.last_stats is None
    assert _answer(models) == expected
    stats = models.small.last_stats
    assert stats is not None
    # The shared opening came from the KV cache; no saved state of the question was restored.
    assert len(models.small.prompt_tokens([OPENING])) - 4 <= stats.reused_tokens
    assert stats.reused_tokens < stats.prompt_tokens - 8
