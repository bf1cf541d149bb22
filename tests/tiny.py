"""The tests' tiny model: SmolLM2-135M answers and learns in every test that only needs a model
to run (the real starter pair is for the ``real`` lane). Each test's ENGRAM_HOME starts with a
settings file naming it (conftest), and tests that build ``Settings`` themselves use these."""

from __future__ import annotations

from typing import Any

from engram.assistant.learning import distill
from engram.core import settings as stored
from engram.core.settings import Settings

MODEL = "smollm2-135m-instruct"
# The suite embeds with MiniLM (its floors are the reference ones); tests of the default
# multilingual embedder name it (test_bilingual.py).
EMBEDDER = "all-minilm-l6-v2-int8"
CHOICES = {"small_model": MODEL, "large_model": MODEL, "embedding_model": EMBEDDER}
# What one distillation by the tiny model may write: it rambles to the limits it is given.
LIMITS = distill.Limits(memories=3, chars=80)


def settings(**changes: Any) -> Settings:
    """Settings whose small and large model is the tiny one."""
    return Settings(**{**CHOICES, **changes})


def save(**changes: Any) -> None:
    """Save the tiny model's settings with ``changes`` in this test's home, for the ``engram``
    processes a test starts (``max_answer_tokens=16`` where any answer will do)."""
    stored.save(settings(**changes))
