"""Relative days in what was said, read against the day it was said on.

"I went to the dentist yesterday", recalled three weeks later, says nothing of when without the
day it was said on; a small model given both still answered "yesterday". :func:`dated` writes the
day a relative expression means right after it ("yesterday (7 May 2023)"), in English and
Chinese, for the expressions people use most: yesterday, today, tomorrow, last/next week, month
and year, last Saturday, three days ago, 昨天, 上周, 上个月, 去年, 上周六, 三天前.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

# English names written out: ``calendar``'s follow the process locale, which Qt sets from the
# user's (a German desktop would read "Samstag" and write "Mai").
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
ISO_DAY = re.compile(r"(?<![\d-])\d{4}-\d{2}-\d{2}(?![\d-])")  # 2026-03-14
_WEEKDAYS = {name.lower(): i for i, name in enumerate(DAYS)}
_WEEKDAYS |= {name[:3].lower(): i for i, name in enumerate(DAYS)}
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a few": 3}
_NUMBERS_ZH = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "几": 3}
_DAY_WORDS = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))

_EN = re.compile(
    r"\b(?:(?P<day>yesterday|today|tonight|tomorrow)"
    r"|(?P<rel>last|next|this)\s+(?P<unit>week|weekend|month|year)"
    rf"|(?P<dir>last|this|next)\s+(?P<weekday>{_DAY_WORDS})\.?"
    r"|(?P<count>\d+|a few|a|one|two|three|four|five|six)\s+(?P<ago>days?|weeks?|months?|years?)"
    r"\s+ago)\b",
    re.IGNORECASE,
)
_ZH = re.compile(
    r"(?P<day>前天|昨天|今天|明天|今晚)"
    r"|(?P<wk>上|下|这)(?:个)?(?:周|星期|礼拜)(?P<weekday>[一二三四五六日天])?"
    r"|(?P<rel>上|下|这)个月|(?P<year>去年|今年|明年)"
    r"|(?P<count>\d+|[一两二三四五六七几])(?P<ago>天|个星期|周|个月|年)前"
)


def day_text(day: date, language: str) -> str:
    """A day as people write it: "8 May 2023", "2023年5月8日"."""
    if language.startswith("zh"):
        return f"{day.year}年{day.month}月{day.day}日"
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def _month(day: date, shift: int, language: str) -> str:
    index = day.year * 12 + day.month - 1 + shift
    year, month = divmod(index, 12)
    if language.startswith("zh"):
        return f"{year}年{month + 1}月"
    return f"{_MONTHS[month]} {year}"


def _week(day: date, shift: int, language: str) -> str:
    said = day_text(day, language)
    if language.startswith("zh"):
        return {-1: f"{said}的前一周", 0: f"{said}这一周", 1: f"{said}的后一周"}[shift]
    return {-1: f"the week before {said}", 0: f"the week of {said}", 1: f"the week after {said}"}[
        shift
    ]


def _weekday(day: date, weekday: int, direction: int) -> date:
    """The day of ``weekday`` before (-1), in the week of (0) or after (1) ``day``."""
    if direction < 0:
        return day - timedelta(days=(day.weekday() - weekday - 1) % 7 + 1)
    if direction > 0:
        return day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1)
    return day + timedelta(days=weekday - day.weekday())


def _ago(day: date, count: int, unit: str, language: str) -> str:
    if unit.startswith(("day", "天")):
        return day_text(day - timedelta(days=count), language)
    if unit.startswith(("week", "周", "个星期")):
        return day_text(day - timedelta(weeks=count), language)
    if unit.startswith(("month", "个月")):
        return _month(day, -count, language)
    return str(day.year - count) + ("年" if language.startswith("zh") else "")


def _english(match: re.Match[str], day: date) -> str:
    language = "en"
    if said := match["day"]:
        shift = {"yesterday": -1, "tomorrow": 1}.get(said.lower(), 0)
        return day_text(day + timedelta(days=shift), language)
    if match["unit"]:
        shift = {"last": -1, "this": 0, "next": 1}[match["rel"].lower()]
        unit = match["unit"].lower()
        if unit in ("week", "weekend"):
            return _week(day, shift, language)
        if unit == "month":
            return _month(day, shift, language)
        return str(day.year + shift)
    if match["weekday"]:
        direction = {"last": -1, "this": 0, "next": 1}[match["dir"].lower()]
        weekday = _WEEKDAYS[match["weekday"].lower().rstrip(".")]
        return day_text(_weekday(day, weekday, direction), language)
    count = match["count"].lower()
    number = int(count) if count.isdigit() else _NUMBERS[count]
    return _ago(day, number, match["ago"].lower(), language)


def _chinese(match: re.Match[str], day: date) -> str:
    language = "zh_CN"
    if said := match["day"]:
        shift = {"前天": -2, "昨天": -1, "明天": 1}.get(said, 0)
        return day_text(day + timedelta(days=shift), language)
    if match["wk"]:
        direction = {"上": -1, "这": 0, "下": 1}[match["wk"]]
        if match["weekday"]:
            monday = day - timedelta(days=day.weekday()) + timedelta(weeks=direction)
            return day_text(monday + timedelta(days=_WEEKDAYS_ZH[match["weekday"]]), language)
        return _week(day, direction, language)
    if match["rel"]:
        return _month(day, {"上": -1, "这": 0, "下": 1}[match["rel"]], language)
    if match["year"]:
        return f"{day.year + {'去年': -1, '今年': 0, '明年': 1}[match['year']]}年"
    count = match["count"]
    number = int(count) if count.isdigit() else _NUMBERS_ZH[count]
    return _ago(day, number, match["ago"], language)


def dated(text: str, said_at: float) -> str:
    """``text`` with the day each relative expression means after it, in brackets."""
    day = datetime.fromtimestamp(said_at).date()
    text = _EN.sub(lambda m: f"{m[0]} ({_english(m, day)})", text)
    return _ZH.sub(lambda m: f"{m[0]}（{_chinese(m, day)}）", text)
