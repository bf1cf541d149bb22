"""Model capabilities: declared once by each runtime, checked where a model is handed to a
turn, and read from the declaration, never by probing the model's attributes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engram.assistant.events import Finished, ToolCalled
from engram.assistant.tools import loop
from engram.assistant.turn.chat_model import reading_of
from engram.assistant.turn.pipeline import Assistant
from engram.core import paths
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.models.capabilities import Capabilities, declared
from engram.models.cloud import CloudClient, ServedModel
from engram.models.local import CallStats, LocalModel
from test_tools import ECHO, ScriptedModel, _registry

SMOL = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"
CALL = '{"tool": "echo", "arguments": {"text": "kumquat"}}'


class Undeclared:
    """A runtime written without capabilities: it answers, and has every attribute the turn
    once probed for (a chat template, answer stats, reading progress), yet declares nothing."""

    n_ctx = 4096
    chat_template = ""
    last_stats = CallStats(12, 0, 16)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def reading(self) -> tuple[int, int] | None:
        return (3, 12)

    def stream_chat(
        self, messages: Any, max_tokens: int = 512, cancelled: Any = None, **_: Any
    ) -> Iterator[str]:
        yield "Hello."

    def prefill(self, messages: Any, cancelled: Any = None, **_: Any) -> int:
        return 0


@pytest.fixture
def log() -> Iterator[EpisodeLog]:
    conn = db.connect(paths.database_path())
    try:
        yield EpisodeLog(conn)
    finally:
        conn.close()


def test_a_model_that_declares_no_capabilities_is_refused_where_it_is_handed_over(
    log: EpisodeLog,
) -> None:
    refused = r"^Undeclared declares no capabilities: a chat model needs a `capabilities`"
    with pytest.raises(TypeError, match=refused):
        Assistant(log, Undeclared())  # type: ignore[arg-type]
    assistant = Assistant(log, ScriptedModel(["Hi."]))  # type: ignore[arg-type]
    kept = assistant.model
    with pytest.raises(TypeError, match=refused):
        assistant.model = Undeclared()  # type: ignore[assignment]
    assert assistant.model is kept
    # Escalated to for one message, it is refused before anything is stored.
    with pytest.raises(TypeError, match=refused):
        list(assistant.turn(0, "Hello there", escalate_to=Undeclared()))  # type: ignore[arg-type]
    assert log.conversations() == []
    # A declaration of another type is no declaration.
    shaped = Undeclared()
    shaped.capabilities = {"tools": True}  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="declares no capabilities"):
        declared(shaped)


def _turn(
    log: EpisodeLog, capabilities: Capabilities, replies: list[str], **attributes: Any
) -> tuple[ScriptedModel, list[object]]:
    """One turn with tools (echo) of a scripted model declaring ``capabilities``, with
    ``attributes`` set on it besides."""
    model = ScriptedModel(replies)
    model.capabilities = capabilities
    for name, value in attributes.items():
        setattr(model, name, value)
    assistant = Assistant(log, model, tools=loop.Toolbox(_registry(ECHO)))  # type: ignore[arg-type]
    return model, list(assistant.turn(0, "Echo kumquat please"))


def test_tools_are_offered_to_a_model_that_declares_its_chat_template(log: EpisodeLog) -> None:
    model, events = _turn(log, Capabilities(chat_template=""), [CALL, "It echoed kumquat."])
    assert [e.name for e in events if isinstance(e, ToolCalled)] == ["echo"]
    assert "- echo:" in model.prompts[0][0]["content"]  # the system part describes it
    # A template attribute is not a declaration: without one, no tool is described or run.
    model, events = _turn(log, Capabilities(), ["It is kumquat."], chat_template="")
    assert not any(isinstance(e, ToolCalled) for e in events)
    assert "- echo:" not in model.prompts[0][0]["content"]
    assert not loop.can_call(model)


def test_answer_stats_and_reading_are_read_only_when_declared(log: EpisodeLog) -> None:
    stats = CallStats(40, 8, 16)
    for declares in (False, True):
        capabilities = Capabilities(chat_template=None, stats=declares, reading=declares)
        model, events = _turn(
            log, capabilities, ["Hello."], last_stats=stats, reading=lambda: (5, 40)
        )
        finished = next(e for e in events if isinstance(e, Finished))
        assert finished.stats is (stats if declares else None)
        assert finished.context == model.n_ctx
        read = reading_of(model)  # type: ignore[arg-type]
        assert read == ((5, 40) if declares else None)


def test_each_runtime_declares_what_it_can_do(starter_models: Path) -> None:
    served = ServedModel("http://127.0.0.1:9/v1", "served")
    assert served.capabilities == CloudClient.capabilities == Capabilities()
    assert not served.capabilities.tools  # the server renders the template: no tools
    local = LocalModel(starter_models / SMOL, n_ctx=512, state_cache_mb=0)
    try:
        assert declared(local) == Capabilities(
            chat_template=local.chat_template,
            stats=True,
            reading=True,
            markers=local.prompt_markers,
        )
        assert local.capabilities.tools and "<|im_start|>" in local.capabilities.markers
    finally:
        local.close()
