"""Which tools a message may lead to, read from the user's own words (English and Chinese).

A small model offered tools answers plain questions with made-up calls ("What is the capital of
France?" became a calculator call for Qwen2.5-Coder-0.5B), and a text it reads (a file, a tool's
result) can talk it into calls the user never asked for. So each answer is routed once, from
the user's message alone, before the model says anything:

- ``allowed``: the tools a call may name; a call to any other tool is never run, and an answer
  that opens with a call while nothing is allowed is written again as text.
- ``expected``: a built-in tool the message plainly asks for (an arithmetic expression, a date
  question); its call is generated at once under a grammar instead of hoping the model thinks of
  it, so "17.5% of 240" is computed, not guessed.

Cue words route the built-in tools, and a word of its name an MCP server's tool; with an
embedder that reads the message's language, its meaning routes every tool too
(:mod:`engram.assistant.reading.requests`): a rule only ever adds a tool, and so does meaning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engram.assistant.reading.requests import ToolReader
from engram.assistant.tools.base import Registry, Tool
from engram.assistant.tools.permissions import BUILT_IN
from engram.memory.embed import Embedder

_DIGIT = r"[0-9０-９]"
_NUMBER = rf"{_DIGIT}[0-9０-９.,]*"
_ZH_NUMBER = r"[0-9０-９零一二两三四五六七八九十百千万亿]+"

# An arithmetic expression, a percentage or a conversion the calculator does exactly.
_CALCULATE = re.compile(
    "|".join(
        (
            # "a - b" only with spaces: "3-5 days" is a range, "2027-03-14" a date
            rf"{_NUMBER}(?:\s+-\s+|\s*(?:[+*/×÷^x]|\*\*)\s*)\(?\s*{_NUMBER}",
            rf"{_NUMBER}\s*(?:%|percent\b|per cent\b)",
            rf"\b(?:plus|minus|times|divided by|multiplied by|to the power of)\s+{_NUMBER}",
            rf"(?:square root|sqrt|cube root)\s+(?:of\s+)?{_NUMBER}",
            rf"{_NUMBER}\s*(?:h|hours?|min(?:utes?)?|days?|weeks?)\s+(?:in|to)\s+"
            r"(?:hours?|minutes?|seconds?|days?|weeks?)\b",
            rf"{_ZH_NUMBER}\s*(?:加|减|乘以?|除以|的平方|次方)\s*{_ZH_NUMBER}",
            rf"百分之{_ZH_NUMBER}",
            rf"{_ZH_NUMBER}的{_ZH_NUMBER}次方",
        )
    ),
    re.IGNORECASE,
)
_CALCULATE_MAYBE = re.compile(
    r"\b(?:calculate|compute|how much|how many|total|sum|average|convert)\b"
    r"|计算|算一下|多少|总共|平均",
    re.IGNORECASE,
)
# A question about dates or the time that the clock answers.
_DATE = re.compile(
    "|".join(
        (
            r"\bwhat (?:day|date|weekday)\b",
            r"\bday of the week\b",
            r"\bweekday\b",
            r"\bhow many (?:days|weeks|months)\b",
            r"\bdays? (?:until|till|to go|between|since|left)\b",
            rf"\b{_DIGIT}+\s*(?:days?|weeks?|months?|years?)\s+(?:from|after|ago|before|later)\b",
            r"\bin\s+\d+\s+(?:days?|weeks?|months?)\b",
            r"\bwhat time is it\b",
            r"\b(?:what(?:'s| is) the )?(?:date|time) (?:today|now|in [A-Z][a-z]+)",
            r"\btoday'?s date\b",
            r"\btime zone\b|\btimezone\b",
            r"星期几|周几|礼拜几|几号|几月几日|多少天|几天|天后|天前|今天是|现在时间|什么日期|时区",
            # the time now, not "几点" alone: "我周六几点有课？" asks what the user said (what
            # time their class is), and the 0.5B answered it with the clock's date
            r"现在几点|几点了|几点钟了",
        )
    ),
    re.IGNORECASE,
)
# Words that may need the clock. Not "week", "time" or "birthday" alone: "a birthday wish" or
# "thank my dentist for last week" needs no date, and a small model allowed a tool calls it.
_DATE_MAYBE = re.compile(
    r"\b(?:what|which) (?:year|month)\b|\bwhen is\b|\b(?:date|deadline)\b"
    r"|\bhow long (?:ago|until|since)\b|\bwhat(?:'s| is) (?:today|tomorrow|yesterday)\b"
    r"|日期|截止|什么时候|哪一年|哪年",
    re.IGNORECASE,
)
_RECALL = re.compile(
    r"\b(?:did|have) I (?:ever )?(?:tell|told|say|said|mention|mentioned)\b|\bwhat did I\b"
    r"|\bdo you (?:remember|recall)\b|\bremind me\b|\blast time\b|\bearlier\b"
    r"|我(?:之前|以前|上次|曾经)?(?:说|提|讲)过|还记得|上次|之前",
    re.IGNORECASE,
)
_REMEMBER = re.compile(
    r"\bremember\b|\bdon'?t forget\b|\bkeep in mind\b|\bnote (?:that|down)\b|\bmake a note\b"
    r"|记住|别忘|不要忘|记下|记一下",
    re.IGNORECASE,
)
# The user's files; "notes" only as theirs ("write a note to Tom" is not about files).
_FILES = re.compile(
    r"\b(?:files?|folders?|documents?|docs|pdfs?|markdown|readme)\b|\.(?:md|txt|pdf)\b"
    r"|\b(?:my|the) notes\b|\bnotes (?:about|on)\b"
    r"|文件|文档|笔记|资料|目录",
    re.IGNORECASE,
)
# Built-in tool -> (what makes its call expected, what merely allows it).
_CUES: dict[str, tuple[re.Pattern[str] | None, re.Pattern[str]]] = {
    "calculator": (_CALCULATE, _CALCULATE_MAYBE),
    "datetime": (_DATE, _DATE_MAYBE),
    "recall": (None, _RECALL),
    "remember": (None, _REMEMBER),
    "files_list": (None, _FILES),
    "files_search": (None, _FILES),
    "files_read": (None, _FILES),
}
_WORD = re.compile(r"[a-z0-9]{3,}")


@dataclass(frozen=True)
class Route:
    """The tools one answer may call, and the one its message plainly asks for."""

    allowed: frozenset[str] = frozenset()
    expected: str | None = None


def route(
    message: str, registry: Registry, kept: bool = False, embedder: Embedder | None = None
) -> Route:
    """Route ``message`` (the user's own words) among the tools of ``registry``, by the rules
    and, with an ``embedder``, by its meaning. ``kept``: the application keeps the message's
    words as said ("remember this: …"), so no remember call is offered (it would only ask the
    user for the same memory again: the window waited on that question after "记住：…")."""
    tools = [t for t in registry if not (kept and t.name == "remember")]
    ruled = _ruled(message, tools)
    if embedder is None:
        return ruled
    built_in = {t.name for t in tools if t.source == BUILT_IN}
    meant = ToolReader.of(embedder).read(message, tools, built_in)
    if meant is None:
        return ruled
    return Route(ruled.allowed | meant.allowed, ruled.expected or meant.expected)


def _ruled(message: str, tools: list[Tool]) -> Route:
    """The route the cue words and the tools' names give."""
    allowed: set[str] = set()
    expected: str | None = None
    words = set(_WORD.findall(message.lower()))
    for tool in tools:
        cues = _CUES.get(tool.name)
        if cues is None:
            if words & set(_WORD.findall(tool.name.lower().replace("_", " "))):
                allowed.add(tool.name)
            continue
        strong, weak = cues
        if strong is not None and strong.search(message):
            allowed.add(tool.name)
            expected = expected or tool.name
        elif weak.search(message):
            allowed.add(tool.name)
    return Route(frozenset(allowed), expected)
