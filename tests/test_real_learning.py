"""The real 1.5B distiller over short conversations (the ``real`` lane, issue 25): a stated
preference becomes a preference memory, the assistant's words and name never become the user's,
a user who only asks leaves no memory about themselves, in English and in Chinese."""

from __future__ import annotations

import time

import pytest

from engram.assistant.learning import distill
from engram.memory import kinds
from engram.memory.episodes import Episode, Role
from engram.models.local import LocalModel

pytestmark = [pytest.mark.real, pytest.mark.slow]
ABOUT_USER = {kinds.FACT, kinds.PREFERENCE, kinds.PROFILE, kinds.PLAN}


@pytest.fixture
def large(coder_large: LocalModel) -> LocalModel:
    """The real 1.5B, loaded once per worker (conftest)."""
    return coder_large


def _episodes(*said: tuple[Role, str]) -> list[Episode]:
    now = time.time()
    return [
        Episode(i + 1, 1, i, role, text, now + i, None, "complete")
        for i, (role, text) in enumerate(said)
    ]


def test_a_stated_preference_is_a_preference_and_the_assistant_is_not_the_user(
    large: LocalModel,
) -> None:
    episodes = _episodes(
        ("user", "I'm vegetarian and I'm allergic to peanuts."),
        ("assistant", "Thanks! I'm Engram. You might enjoy a spicy Thai curry with cashews."),
    )
    result, raw = distill.distill(large, episodes)
    about = [c for c in result.candidates if c.kind in ABOUT_USER]
    assert any(c.kind == kinds.PREFERENCE for c in about), raw
    said = " ".join(c.content.lower() for c in about)
    assert "vegetarian" in said or "peanut" in said, raw
    for word in ("engram", "thai", "curry", "cashew"):
        assert word not in said, raw


def test_a_question_alone_leaves_no_memory_about_the_user(large: LocalModel) -> None:
    for question, reply in [
        ("What is the capital of Australia?", "The capital of Australia is Canberra."),
        ("澳大利亚的首都是哪里？", "澳大利亚的首都是堪培拉。"),
    ]:
        result, raw = distill.distill(large, _episodes(("user", question), ("assistant", reply)))
        assert [c for c in result.candidates if c.kind in ABOUT_USER] == [], raw


def test_a_chinese_preference_is_kept_in_chinese(large: LocalModel) -> None:
    episodes = _episodes(
        ("user", "我对花生过敏，吃东西的时候要特别小心。"),
        ("assistant", "好的，我记住了。出门可以随身带上抗过敏药。"),
    )
    result, raw = distill.distill(large, episodes)
    about = [c for c in result.candidates if c.kind in ABOUT_USER]
    assert any("花生" in c.content for c in about), raw
    assert not any("药" in c.content for c in about), raw
