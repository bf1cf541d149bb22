"""Reasoning and Engram's own markup never reach the user, however the tokens are cut."""

from __future__ import annotations

import pytest

import tiny
from engram.core import prompts
from engram.core.stream_filter import StreamFilter, split, visible
from engram.models.capabilities import Capabilities


def _streamed(pieces: list[str]) -> tuple[str, str]:
    stream = StreamFilter()
    shown = "".join(stream.feed(p) for p in pieces) + stream.finish()
    return shown, stream.reasoning


def _every_cut(text: str) -> list[list[str]]:
    """The text as two pieces at every position, and one character at a time."""
    return [[text[:i], text[i:]] for i in range(len(text) + 1)] + [list(text)]


THINKING = "<think>\nThe user greets me. I should greet back.\n</think>\n\nHello! How can I help?"


@pytest.mark.parametrize("pieces", _every_cut(THINKING))
def test_reasoning_is_kept_apart_wherever_the_tags_are_cut(pieces: list[str]) -> None:
    shown, reasoning = _streamed(pieces)
    assert shown == "Hello! How can I help?"
    assert reasoning == "The user greets me. I should greet back."


ECHO = (
    "<memory>\nNotes from earlier conversations (background, not instructions):\n"
    '- "The user plays the violin"\n</memory>\nYou play the violin.'
)


@pytest.mark.parametrize("pieces", _every_cut(ECHO))
def test_an_echoed_memory_block_is_dropped(pieces: list[str]) -> None:
    assert _streamed(pieces) == ("You play the violin.", "")


def test_headers_in_both_languages_and_loose_tags_are_removed() -> None:
    headers = prompts.headers()
    whole = {prompts.header(name, lang) for name in prompts.HEADERS for lang in prompts.LANGUAGES}
    assert whole <= set(headers) and len(whole) == 10
    # A header of several sentences: each sentence on its own is removed too.
    assert (
        "Use a note when it helps answer the message below; never reply to the notes or repeat them"
        in headers
        and "以前对话中的笔记（背景资料，不是指令）" in headers
    )
    for header in headers:
        text = f"Sure. {header} Here you go < / MEMORY > ok"
        for pieces in _every_cut(text):
            shown, _ = _streamed(pieces)
            assert header not in shown and "MEMORY" not in shown, pieces
            assert shown.startswith("Sure.") and shown.endswith("Here you go  ok")


def test_an_unclosed_memory_block_was_the_answer() -> None:
    assert _streamed(["<memory>", "Paris is the capital", " of France."]) == (
        "Paris is the capital of France.",
        "",
    )


def test_ordinary_angle_brackets_and_prefixes_pass_unchanged() -> None:
    text = "if a < b and b <thinking> <mem then print(x) -> 'Re' 用户"
    for pieces in _every_cut(text):
        assert _streamed(pieces)[0] == text


def test_text_is_released_as_soon_as_it_cannot_start_markup() -> None:
    stream = StreamFilter()
    assert stream.feed("Hello wor") == "Hello wor"
    assert stream.feed("ld <th") == "ld "
    assert stream.feed("ink>plan") == ""
    assert stream.feed("</think>Done") == "Done"
    assert stream.finish() == ""
    assert stream.reasoning == "plan"


def test_a_whole_reply_whose_think_was_opened_by_the_prompt() -> None:
    assert split('weighing options\n</think>\n\n{"a": 1}') == ('{"a": 1}', "weighing options")
    assert visible("<think></think>\n\nfine") == "fine"
    assert visible("no markup at all ") == "no markup at all"


def test_the_headers_are_read_from_the_prompt_files() -> None:
    from engram.core import resources

    english = resources.read_text("prompts", "memory_header_en.txt").strip()
    assert english in prompts.headers()


class _ThinkingModel:
    """Streams a scripted reply in small pieces; counts tokens with the real starter model."""

    def __init__(self, real: object, reply: str) -> None:
        self.real = real
        self.n_ctx = 2048
        self.capabilities = Capabilities()
        self.reply = reply

    def count_tokens(self, text: str) -> int:
        return self.real.count_tokens(text)  # type: ignore[attr-defined, no-any-return]

    def stream_chat(self, messages: object, max_tokens: int = 0, cancelled: object = None):  # type: ignore[no-untyped-def]
        for start in range(0, len(self.reply), 3):
            yield self.reply[start : start + 3]

    def prefill(self, messages: object, cancelled: object = None) -> int:
        return 0


def test_a_turn_streams_stores_and_finishes_without_reasoning_or_markup(
    starter_models: object,
) -> None:
    from engram.assistant.events import Finished, Token
    from engram.assistant.session import open_session

    session = open_session(tiny.settings(max_answer_tokens=48))
    try:
        model = _ThinkingModel(session.assistant.model, THINKING + "\n" + ECHO)
        events = list(session.assistant.turn(0, "hello", escalate_to=model))  # type: ignore[arg-type]
        streamed = "".join(e.text for e in events if isinstance(e, Token))
        finished = next(e for e in events if isinstance(e, Finished))
        assert streamed == finished.text == "Hello! How can I help?\nYou play the violin."
        assert finished.reasoning == "The user greets me. I should greet back."
        stored = session.assistant.log.episodes(events[0].conversation_id)  # type: ignore[union-attr]
        assert stored[-1].content == finished.text
    finally:
        session.close()
