"""The date and time tool: today, weekdays, date arithmetic and time zones (zoneinfo).

It reads short phrases rather than free prose: ``today``, ``now``, ``tomorrow``, ``friday``,
``2026-03-01``, ``3 weeks from friday``, ``10 days ago``, ``in 2 months``, ``days until
2026-12-25``, ``weekday of 2026-07-04``; an optional IANA time zone answers for that place.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engram.assistant.tools.base import Tool, ToolContext, ToolError
from engram.core.errors import tr
from engram.memory.when import DAYS, ISO_DAY

HINT = tr(
    "Ask for 'today', 'now', a weekday, an ISO date (2026-03-01), '3 weeks from friday', "
    "'10 days ago', 'in 2 months', 'days until 2026-12-25' or 'weekday of 2026-07-04'."
)
WEEKDAYS = [name.lower() for name in DAYS]  # not calendar.day_name: see memory.when.DAYS
_ZH_DAYS = {"今天": 0, "明天": 1, "后天": 2, "昨天": -1, "前天": -2}
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "天": 1, "周": 7, "星期": 7}
_MONTHS = {"month": 1, "months": 1, "year": 12, "years": 12, "个月": 1, "年": 12}
_SHIFT = re.compile(
    r"^(?:in\s+)?(?P<n>-?\d+)\s*(?P<unit>[a-z]+|天|周|星期|个月|年)"
    r"(?:\s+(?P<dir>from|after|before|ago|later)(?:\s+(?P<base>.+))?|后|前|以后|以前)?$"
)
_UNTIL = re.compile(r"^days?\s+(?:until|till|to)\s+(?P<target>.+)$")
_BETWEEN = re.compile(r"^days?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$")
_WEEKDAY_OF = re.compile(r"^(?:weekday|day)\s+(?:of|on)\s+(?P<day>.+)$")
# What a message asks of its ISO dates, in its own words (see :func:`query_in`).
_COUNTS_DAYS = re.compile(r"(?i)\bhow\s+many\s+days\b|\bdays\s+(?:between|from)\b|多少天|几天")
_DAYS_UNTIL = re.compile(r"(?i)\bdays?\s+(?:left\s+)?(?:until|till|before)\b|还有(?:多少|几)天")
_ASKS_WEEKDAY = re.compile(
    r"(?i)\bday\s+of\s+the\s+week\b|\bweekday\b|\bwhat\s+day\s+(?:is|was|will)\b"
    r"|星期几|周几|礼拜几"
)


def _zone(name: str | None) -> ZoneInfo | None:
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ToolError(
            tr("Unknown time zone {zone!r}."),
            tr("Use an IANA name such as Europe/Paris or Asia/Shanghai."),
            zone=name,
        ) from exc


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def _day(phrase: str, today: date) -> date:
    """A single day named by ``phrase`` (relative to ``today``)."""
    text = phrase.strip().lower().rstrip("?.")
    if text in ("today", "now", "") or text in _ZH_DAYS:
        return today + timedelta(days=_ZH_DAYS.get(text, 0))
    if text == "tomorrow":
        return today + timedelta(days=1)
    if text == "yesterday":
        return today - timedelta(days=1)
    words = text.split()
    if words and words[0] in ("next", "this"):
        words = words[1:]
    if len(words) == 1 and words[0] in WEEKDAYS:
        ahead = (WEEKDAYS.index(words[0]) - today.weekday()) % 7
        return today + timedelta(days=ahead or (7 if text.startswith("next") else 0))
    try:
        return date.fromisoformat(text)
    except ValueError:
        pass
    shift = _SHIFT.match(text)
    if shift:
        return _shifted(shift, today)
    raise ToolError(tr("The date tool cannot read {phrase!r}."), HINT, phrase=phrase)


def _shifted(shift: re.Match[str], today: date) -> date:
    count, unit = int(shift.group("n")), shift.group("unit")
    direction = shift.group("dir") or ""
    backwards = direction in ("before", "ago") or shift.group(0).endswith(("前", "以前"))
    base = _day(shift.group("base"), today) if shift.group("base") else today
    sign = -1 if backwards else 1
    if unit in _MONTHS:
        return _add_months(base, sign * count * _MONTHS[unit])
    if unit not in _UNITS:
        raise ToolError(tr("The date tool does not know the unit {unit!r}."), HINT, unit=unit)
    return base + timedelta(days=sign * count * _UNITS[unit])


def _label(day: date) -> str:
    return f"{day.isoformat()} ({DAYS[day.weekday()]})"


def answer(query: str, now: datetime) -> str:
    """The answer to one date question, relative to ``now`` (an aware datetime)."""
    text = " ".join(query.strip().lower().split())
    today = now.date()
    if text in ("now", "time", "current time", "现在"):
        return f"{now.strftime('%Y-%m-%d %H:%M')} ({DAYS[now.weekday()]}, {now.tzname()})"
    if match := _UNTIL.match(text):
        target = _day(match.group("target"), today)
        return f"{(target - today).days} days from {today.isoformat()} to {_label(target)}"
    if match := _BETWEEN.match(text):
        first, second = _day(match.group("a"), today), _day(match.group("b"), today)
        return f"{(second - first).days} days from {_label(first)} to {_label(second)}"
    if match := _WEEKDAY_OF.match(text):
        return _label(_day(match.group("day"), today))
    return _label(_day(text, today))


def query_in(message: str) -> dict[str, Any] | None:
    """The arguments of a call for what ``message`` asks of the ISO dates it writes: the days
    between two ("How many days lie between 2025-03-01 and 2025-07-04?",
    "2025-03-01和2025-07-04之间隔了几天？"), the days until one, or one's weekday ("Which weekday
    was 1999-12-31?"); None for anything else (the model writes the call). The small model had
    called the date tool with the first date alone, then the calculator with the two dates
    subtracted, and answered a negative number of days."""
    days = ISO_DAY.findall(message)
    if len(days) == 2 and _COUNTS_DAYS.search(message):
        return {"query": f"days between {days[0]} and {days[1]}"}
    if len(days) == 1 and _DAYS_UNTIL.search(message):
        return {"query": f"days until {days[0]}"}
    if len(days) == 1 and _ASKS_WEEKDAY.search(message):
        return {"query": f"weekday of {days[0]}"}
    return None


_DAYS = re.compile(r"^(-?\d+) days from ")


def days_in(result: str) -> str | None:
    """The count of days a result gives ("104 days from 2026-01-01 …"); None for a date."""
    found = _DAYS.match(result)
    return found.group(1) if found else None


def _run(arguments: dict[str, Any], ctx: ToolContext) -> str:
    zone = _zone(arguments.get("timezone"))
    now = datetime.fromtimestamp(ctx.now(), tz=zone).astimezone(zone)
    return answer(str(arguments.get("query") or "today"), now)


TOOL = Tool(
    name="datetime",
    description=(
        "Today's date, the time now (optionally in an IANA time zone), weekdays and date "
        "arithmetic: 'today', 'now', '3 weeks from friday', '10 days ago', 'in 2 months', "
        "'days until 2026-12-25', 'days between 2026-01-01 and 2026-04-15', "
        "'weekday of 2026-07-04'."
    ),
    description_zh=(
        "今天的日期、现在的时间（可指定 IANA 时区）、星期几和日期计算：'today'、'now'、"
        "'3 weeks from friday'、'10 days ago'、'in 2 months'、'days until 2026-12-25'、"
        "'days between 2026-01-01 and 2026-04-15'、'weekday of 2026-07-04'。"
    ),
    schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 200},
            "timezone": {"type": "string", "maxLength": 64},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    run=_run,
    reads_outside=False,
    arguments_in=query_in,
    value=days_in,
)
