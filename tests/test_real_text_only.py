"""An answer written as text (after a tool's result, or instead of a call nobody asked for) may
still hold code: the real 0.5B writes a C function's braces and a JSON object."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.core.settings import Settings
from engram.models import roles
from engram.models.local import LocalModel
from test_real_models import real_pair  # noqa: F401  (the real starter pair, fetched once)

pytestmark = [pytest.mark.real, pytest.mark.slow]


@pytest.fixture
def small(real_pair: Path) -> Iterator[LocalModel]:  # noqa: F811
    model = roles.load_local(Settings(temperature=0.0), "small")
    yield model
    model.close()


@pytest.mark.parametrize(
    ("asked", "wanted"),
    [
        ("Write a C function that returns the larger of two ints. Start with one sentence.", "{"),
        (
            "Show a JSON object for a person named Ana, aged 31,"
            " after one sentence of explanation.",
            '"name": "Ana"',
        ),
    ],
)
def test_a_text_only_answer_may_write_braces(small: LocalModel, asked: str, wanted: str) -> None:
    said = "".join(small.stream_chat([{"role": "user", "content": asked}], 120, text_only=True))
    assert wanted in said and "{" in said, said
