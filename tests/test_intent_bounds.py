"""Reading a huge message for what it asks takes time linear in its length (item 10 of issue 28).

Some intent rules backtrack in the square (or cube) of what they read: two whitespace runs side
by side, then a character that fails at the end. On these megabyte messages the old reading ran
for hours (the suite's timeout fails it); bounded to the message's opening it returns at once,
and what it says is still right. No clock is read: a rule that backtracked again would hang.
"""

from __future__ import annotations

import pytest

from engram.assistant import intent

MEGABYTE = 1_000_000
SPACES = " " * MEGABYTE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # each defeats one rule only after trying every split of the spaces
        ("forget that" + SPACES + "x", intent.Intent("", forget=False)),
        ("忘掉" + SPACES + "x", intent.Intent("", forget=False)),
        ("It is fine, not great" + SPACES + "x", intent.Intent("", correction=False)),
        ("no" + SPACES + "x", intent.Intent("", correction=False)),
        ("no," + SPACES + "thanks", intent.Intent("", praise=False)),
        ("thanks" + SPACES, intent.Intent("", praise=True)),
        ("x" * MEGABYTE + "forget that", intent.Intent("")),
    ],
)
def test_a_megabyte_message_is_read_in_linear_time(text: str, expected: intent.Intent) -> None:
    found = intent.read(text)
    assert found.text is text
    assert (found.remember, found.forget, found.correction, found.praise) == (
        expected.remember,
        expected.forget,
        expected.correction,
        expected.praise,
    )


def test_a_long_remember_keeps_the_whole_text_and_a_cut_is_not_the_end_of_the_message() -> None:
    fact = "my locker code is 4711 " * 50_000
    assert intent.read("remember this: " + fact).remember == fact.strip()
    # "forget that" and "…, not miles" speak of the whole message: a cut right after them is not
    cut = "forget that" + " " * (intent.HEAD_CHARS - len("forget that")) + "and the rest"
    assert not intent.read(cut).forget
    cut = "a" * (intent.HEAD_CHARS - len("in km, not miles")) + "in km, not miles" + " and more"
    assert not intent.read(cut).correction
    short = "in km, not miles"
    assert intent.read(short).correction
