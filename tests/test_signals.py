"""Outcome signals found in the next user message: corrections, praise, the same question again."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engram.assistant.intent import read
from engram.assistant.learning import signals
from engram.assistant.learning.signals import Signal, detect, is_repeat

PRAISE = [
    "That worked, thanks!",
    "thank you, exactly what I needed",
    "Perfect.",
    "great answer",
    "谢谢，很有用",
    "太好了，成功了",
    "这个办法管用",
]
NOT_PRAISE = [
    "No thanks, I'll do it myself.",
    "What is a thank-you note?",
    "Tell me about the Thames.",
    "不对，我要的是摄氏度",
    "Convert 5 miles to km",
    "今天天气怎么样",
]
QUESTIONS = [
    "What is the weather in Berlin tomorrow?",
    "How many kilometres is a marathon?",
    "明天北京的天气怎么样？",
    "Summarise the meeting notes in three bullet points",
]


@pytest.mark.parametrize("text", PRAISE)
def test_praise_and_thanks_are_positive_signals(text: str) -> None:
    found = detect(read(text), 7, recent=["How do I restart the router?"])
    assert found == Signal("praise", 7, text) and found.positive


@pytest.mark.parametrize("text", NOT_PRAISE)
def test_ordinary_messages_and_polite_refusals_are_not_praise(text: str) -> None:
    assert not read(text).praise


@pytest.mark.parametrize(
    "text",
    [
        "Please give distances in kilometres, not miles. I live in Germany.",
        "Always answer in Celsius.",
        "Next time, use the calculator tool.",
        "以后请用公斤。",
        "下次记得写日期格式。",
    ],
)
def test_instructions_for_next_time_are_corrections(text: str) -> None:
    assert read(text).correction
    assert not read("What is the difference between a stoat, not a weasel and a ferret?").correction


def test_a_correction_carries_its_text_and_wins_over_thanks() -> None:
    text = "No, that's wrong, thanks anyway: I live in Shanghai."
    assert detect(read(text), 3) == Signal("correction", 3, text)
    assert not Signal("correction", 3).positive


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_same_question_asked_again_is_an_implicit_negative(question: str) -> None:
    again = question.rstrip("?？") + "??"
    found = detect(read(again), 11, recent=["hello there", question])
    assert found == Signal("repeat", 11, again) and not found.positive


def test_a_new_question_on_another_subject_is_no_signal() -> None:
    assert detect(read("How many kilometres is a marathon?"), 2, recent=QUESTIONS[2:]) is None
    assert not is_repeat("ok", ["ok"])  # too short to count as a question asked again


@given(
    st.sampled_from(QUESTIONS),
    st.lists(st.sampled_from(["please", "again", "now"]), max_size=2, unique=True),
)
def test_filler_words_keep_a_repeat(question: str, extra: list[str]) -> None:
    assert is_repeat(" ".join([question, *extra]), [question])
    assert not is_repeat(" ".join([question, *extra]), [q for q in QUESTIONS if q != question])


@given(st.text(max_size=80), st.text(max_size=80))
def test_overlap_is_symmetric_and_bounded(a: str, b: str) -> None:
    assert signals.overlap(a, b) == signals.overlap(b, a)
    assert 0.0 <= signals.overlap(a, b) <= 1.0


@given(st.text(max_size=120), st.integers(min_value=1, max_value=10**6))
def test_detection_never_fails_and_links_the_answer(text: str, answer: int) -> None:
    found = detect(read(text), answer, recent=[text[::-1]])
    assert found is None or (found.answer_episode_id == answer and found.text == text)


def test_every_kind_is_known_and_an_unknown_one_is_refused() -> None:
    assert {"thumbs_up", "thumbs_down", "tool_error", "tool_accepted"} <= set(signals.KINDS)
    assert "memory_wrong" not in signals.LESSON_KINDS
    with pytest.raises(ValueError):
        Signal("meh", 1)  # type: ignore[arg-type]
