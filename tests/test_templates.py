"""Engram's prompt layout renders through every catalogue family's own chat template.

The official templates are stored in tests/data/templates/ (shared with the prompt-hygiene
tests). Each is loaded as the chat template of the real starter GGUF, and the exact prompt a turn
would send (system part, history, memory block inside the new message, tool steps) is rendered by
``LocalModel.prompt_tokens`` and read back as text.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.assistant import events
from engram.assistant.turn import prompt
from engram.models import chat_shape
from engram.models.local import LocalModel

TEMPLATES = Path(__file__).parent / "data" / "templates"
SMOL = "smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"
# The family of each stored template: what marks a user turn and an assistant turn.
FAMILIES = {
    "smollm2": ("<|im_start|>user", "<|im_start|>assistant"),
    "tools-qwen2.5": ("<|im_start|>user", "<|im_start|>assistant"),
    "tools-qwen3": ("<|im_start|>user", "<|im_start|>assistant"),
    "tools-llama-3.2": ("<|start_header_id|>user", "<|start_header_id|>assistant"),
    "tools-gemma-3": ("<start_of_turn>user", "<start_of_turn>model"),
}
MEMORY = events.Recalled("fact", "The user's sister lives in Hangzhou.", 1.0, 0.0, memory_id=7)


def _load(starter_models: Path, family: str) -> LocalModel:
    template = (TEMPLATES / f"{family}.jinja").read_text(encoding="utf-8")
    return LocalModel(starter_models / SMOL, n_ctx=2048, state_cache_mb=0, chat_template=template)


@pytest.fixture(params=sorted(FAMILIES))
def family(
    request: pytest.FixtureRequest, starter_models: Path
) -> Iterator[tuple[str, LocalModel]]:
    loaded = _load(starter_models, request.param)
    try:
        yield request.param, loaded
    finally:
        loaded.close()


def _text(model: LocalModel, messages: list[dict[str, object]]) -> str:
    tokens = model.prompt_tokens(messages)  # type: ignore[arg-type]
    return model.llama.detokenize(tokens, special=True).decode("utf-8")  # type: ignore[no-any-return]


def _engram_prompt(language: str = "en") -> list[dict[str, str]]:
    system = prompt.system_part(language)
    block = prompt.memory_block([MEMORY], language)
    history = [
        {"role": "user", "content": "I am learning to play the violin."},
        {"role": "assistant", "content": "That is wonderful! How long have you played?"},
    ]
    return events.PromptParts(system, history, block, "Where does my sister live?").messages()


def test_every_family_renders_the_layout_in_order(family: tuple[str, LocalModel]) -> None:
    name, model = family
    user, assistant = FAMILIES[name]
    messages = _engram_prompt()
    text = _text(model, messages)
    system = str(messages[0]["content"])
    assert text.count(system[:60]) == 1, name  # the system part, once
    violin = text.index("learning to play the violin")
    answer = text.index("That is wonderful")
    block = text.rindex(prompt.BLOCK_OPEN)  # (the rules in the system part name it too)
    question = text.index("Where does my sister live?")
    assert text.index(system[:60]) < violin < answer < block < question, name
    assert text.count(prompt.BLOCK_OPEN) == str(messages).count(prompt.BLOCK_OPEN)
    # The memory block sits inside the last user turn, and the prompt ends by opening the answer.
    assert text.rindex(user) < block and text.rindex(assistant) > question, name
    assert text.count(user) == 2, name  # the earlier message and the new one


def test_gemma_3_folds_the_system_part_into_the_first_user_turn(starter_models: Path) -> None:
    model = _load(starter_models, "tools-gemma-3")
    try:
        text = _text(model, _engram_prompt("zh_CN"))
        first_user = text.index("<start_of_turn>user")
        assert "<start_of_turn>system" not in text
        assert first_user < text.index(prompt.system_part("zh_CN")[:20]) < text.index("violin")
    finally:
        model.close()


def test_repeated_roles_are_joined_for_templates_that_demand_alternation(
    starter_models: Path,
) -> None:
    # An answer that failed is not stored, so two user messages can follow each other.
    messages = [
        {"role": "system", "content": "You are Engram."},
        {"role": "assistant", "content": "(a reply whose question fell out of the window)"},
        {"role": "user", "content": "First question."},
        {"role": "user", "content": "Second question."},
    ]
    for name in ("tools-gemma-3", "tools-qwen3"):
        model = _load(starter_models, name)
        try:
            text = _text(model, messages)
            assert text.index("First question.") < text.index("Second question.")
            assert model._shape.alternating == (name == "tools-gemma-3")
            assert ("fell out of the window" in text) == (name != "tools-gemma-3")
        finally:
            model.close()


def test_tool_steps_render_for_the_families_with_a_tool_role(starter_models: Path) -> None:
    call = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"type": "function", "function": {"name": "calculator", "arguments": {"x": "2+2"}}}
        ],
    }
    steps = [*_engram_prompt()[:-1], {"role": "user", "content": "What is 2+2?"}, call]
    steps.append({"role": "tool", "name": "calculator", "content": "4"})
    for name in ("tools-qwen2.5", "tools-qwen3", "tools-llama-3.2"):
        model = _load(starter_models, name)
        try:
            text = _text(model, steps)
            assert "calculator" in text and text.rindex("4") > text.index("What is 2+2?"), name
        finally:
            model.close()


def test_qwen3_is_asked_not_to_think(starter_models: Path) -> None:
    model = _load(starter_models, "tools-qwen3")
    try:
        assert _text(model, _engram_prompt()).endswith("<think>\n\n</think>\n\n")
    finally:
        model.close()


# A template in the style of Gemma 2's, which refuses a system message outright.
NO_SYSTEM = (
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}"
    "{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{% endif %}{% set role = 'model' if message['role'] == 'assistant' else message['role'] %}"
    "{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}"
)


def test_a_template_without_a_system_role_gets_it_in_the_first_user_turn(
    starter_models: Path,
) -> None:
    model = LocalModel(starter_models / SMOL, n_ctx=2048, state_cache_mb=0, chat_template=NO_SYSTEM)
    try:
        assert model._shape == chat_shape.Shape(system_role=False, alternating=True)
        messages = _engram_prompt()
        text = _text(model, messages)
        system = str(messages[0]["content"])
        assert text.index("<start_of_turn>user") < text.index(system[:40]) < text.index("violin")
    finally:
        model.close()


def test_fit_keeps_every_text_of_a_well_formed_chat() -> None:
    chat: list[dict[str, object]] = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "U1"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "U2"},
    ]
    assert chat_shape.fit(chat, chat_shape.Shape()) == chat  # type: ignore[arg-type]
    folded = chat_shape.fit(chat, chat_shape.Shape(system_role=False, alternating=True))  # type: ignore[arg-type]
    assert folded == [
        {"role": "user", "content": "S\n\nU1"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "U2"},
    ]
    alone = chat_shape.fit([{"role": "system", "content": "S"}], chat_shape.Shape(False, True))
    assert alone == [{"role": "user", "content": "S"}]
