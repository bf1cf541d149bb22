"""Relative days read against the day they were said on, in English and Chinese."""

from __future__ import annotations

from datetime import datetime

import pytest

from engram.memory import when

SAID = datetime(2023, 5, 8, 14, 30).timestamp()  # a Monday


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went to a support group yesterday.", "yesterday (7 May 2023)"),
        ("Tomorrow I fly to Oslo", "Tomorrow (9 May 2023)"),
        ("We had a picnic last week", "last week (the week before 8 May 2023)"),
        ("I ran a charity race last Saturday!", "last Saturday (6 May 2023)"),
        ("the pottery workshop last Fri.", "last Fri (5 May 2023)"),
        ("camping next month", "next month (June 2023)"),
        ("a conference this month", "this month (May 2023)"),
        ("I read it last year", "last year (2022)"),
        ("I moved here 3 days ago", "3 days ago (5 May 2023)"),
        ("We met two weeks ago", "two weeks ago (24 April 2023)"),
        ("我昨天去了杭州。", "昨天（2023年5月7日）"),
        ("上周六我们去爬山了", "上周六（2023年5月6日）"),
        ("我上个月开始学游泳", "上个月（2023年4月）"),
        ("去年搬的家", "去年（2022年）"),
        ("三天前买的", "三天前（2023年5月5日）"),
        ("下周我要出差", "下周（2023年5月8日的后一周）"),
    ],
)
def test_a_relative_day_is_followed_by_the_day_it_means(text: str, expected: str) -> None:
    assert expected in when.dated(text, SAID)


def test_a_text_without_a_relative_day_is_left_as_it_is() -> None:
    for text in ("I love the last of the summer wine.", "Weekends are for climbing.", "我喜欢游泳"):
        assert when.dated(text, SAID) == text
