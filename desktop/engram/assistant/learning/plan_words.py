"""A plan in the user's own words: the steps they listed, the step they are on, a step they say
they finished.

With the real 1.5B distilling, "I'm learning Spanish. My plan: 1) finish the Duolingo basics,
2) watch one Spanish series with subtitles, 3) have a 30-minute conversation with a tutor. I just
finished the Duolingo basics." became the goal "finish Duolingo basics" with two steps, marked
done during an unrelated conversation; "Spanish update: … so that step is done" became a new
plan "Watch La Casa de Papel with subtitles", and "Plan: week 1 run 3 km three times, week 2 …"
was never stored. A plan the user lists is read here, step by step, as said; the distiller's
plan stays for a plan told in prose.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engram.assistant import intent
from engram.memory.records import Memory
from engram.memory.text import one_root, query_terms

_CN_NUMBERS = {c: i for i, c in enumerate("一二三四五六七八九十", start=1)}
# "1) ", "1. ", "1、", "1：", "(1)", "（1）", "①"
_NUMBERED = re.compile(
    r"(?<![\w.,])(\d{1,2})(?:[)）、：]|\.(?=\s)|:(?=\s))\s*"
    r"|[(（](\d{1,2})[)）]\s*"
    r"|([①-⑳])\s*"
)
# "week 1", "Step 2:", "day 3", "第一周", "第2步"
_LABELLED = re.compile(
    r"(?i)\b(step|week|day|phase|stage|month|lesson|part)\s+(\d{1,2})\b"
    r"|第([一二三四五六七八九十\d]{1,3})(步|周|天|阶段|个月|课)"
)
_LAST_STEP_END = re.compile(r"[!?。！？\n]|\.(?!\d)")
_STEP_CHARS = 120
_SEPARATORS = " \t\n,;，；、。.:："
_JOINED = re.compile(
    r"(?i)(?:^(?:and|then|finally)\s+)|(?:\s+(?:and|then)$)|^(?:然后|最后)|(?:和|以及)$"
)
# What introduces the list ("My plan:", "Plan is", "计划：") and how a goal is said about oneself.
_INTRO = re.compile(
    r"(?i)(?:(?:\b(?:my|the|our)\s+)?\b(?:plan|steps|schedule|roadmap)(?:\s+is)?"
    r"|\bi\s+(?:need|have|want|plan|am\s+going)\s+to|\bi'?ll|\bi\s+will"
    r"|(?:我的)?(?:计划|步骤|安排)(?:是|如下)?)"
    r"[\s:：,，]*$"
)
_FIRST_PERSON = re.compile(
    r"(?i)^(?:(?:my|our)\s+goal\s+is\s+(?:to\s+)?|i'?m\s+|i\s+am\s+|i'?ve\s+been\s+|we'?re\s+"
    r"|i\s+want\s+to\s+|我的目标是|我(?:正在|在|要|想|打算)?)"
)
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s*")
_NOT = re.compile(r"(?i)\b(?:not|never|haven'?t|hasn'?t|didn'?t|isn'?t|aren'?t|yet)\b|还没|没有|未")
_FINISHED = re.compile(
    r"(?i)\b(?:done|finished|finish|completed?|through|ticked\s+off)\b"
    r"|完成|搞定|结束了|[\u4e00-\u9fff]完(?![整全美善])"
)
_STARTING = re.compile(
    r"(?i)\b(?:start(?:ing|ed)?|begin(?:ning)?|began|currently|now\s+on|i'?m\s+on)\b"
    r"|开始|这周是|本周是|现在是|正在"
)
_CURRENT = re.compile(
    r"(?i)\b(?:that|this|the\s+current|current|my\s+current)\s+(?:step|one|stage|phase|part)\b"
    r"|这一步|那一步|这步|这个阶段"
)


@dataclass(frozen=True)
class Listed:
    """A plan the user listed: its goal, its steps as said, the step they are on."""

    goal: str
    steps: tuple[str, ...]
    current: int


def listed(text: str) -> Listed | None:
    """The plan a message lists (two steps or more, numbered or labelled in order, after words
    that introduce a plan or say what the user works towards), with the step it says the user
    is on; None when it lists none."""
    found = _run(text)
    if found is None:
        return None
    start, end, steps = found
    before = text[:start].strip()
    if not (_INTRO.search(before) or intent.sets_goal(before)):
        return None  # "Please fix these in my essay: 1) the intro, 2) the end." plans nothing
    goal = _goal(before)
    if not goal or text[end : end + 1] in ("?", "？"):  # "What is 1) … and 2) …?" asks
        return None
    at = position(f"{text[:start]} {text[end:]}", {"steps": steps, "current_step": 0}) or 0
    return Listed(goal, tuple(steps), min(at, len(steps)))


def said_plan(texts: Iterable[str], shown: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The plan the user's messages ``texts`` give, as ``meta.plan`` keeps it: the last one they
    listed, or the ``shown`` active plan, moved on to the step they say they reached since;
    None when they neither list a plan nor move one on. Past the last step it is done."""
    spec: dict[str, Any] | None = None
    for text in texts:
        if (found := listed(text)) is not None:
            spec = {"goal": found.goal, "steps": list(found.steps), "current_step": found.current}
            continue
        base = spec or shown
        if not base or not base.get("steps"):
            continue
        was = base.get("current_step")
        was = was if isinstance(was, int) else 0
        if (moved := position(text, base)) is not None and moved > was:
            spec = {k: base.get(k) for k in ("goal", "steps")} | {"current_step": moved}
    if spec is not None and spec["current_step"] >= len(spec["steps"]):
        spec |= {"current_step": len(spec["steps"]) - 1, "done": True}
    return spec


PLANS = 5  # the newest active plans a message may name one of


def named(plans: Sequence[Memory], message: str) -> Memory:
    """Of ``plans`` (newest first), the one ``message`` shares the most words with, else the
    newest: a question about this week's swim names the swimming plan, not a newer one."""
    said = set(query_terms(message))
    return max(plans, key=lambda m: len(said & set(query_terms(m.content))))  # first wins


def moves(text: str, plan: Mapping[str, Any]) -> bool:
    """Does the message say something of ``plan`` was finished or begun (what may move it on)?
    "涨完是多少？" (how much after the rise) finishes nothing of an IELTS plan."""
    if not (_FINISHED.search(text) or _STARTING.search(text)):
        return False
    said = _words(_FINISHED.sub(" ", _STARTING.sub(" ", text)))
    told = " ".join([str(plan.get("goal") or ""), *map(str, plan.get("steps") or [])])
    return any(_has(w, said) for w in _words(told))


def position(text: str, plan: Mapping[str, Any]) -> int | None:
    """The step ``plan`` is on after a message that says a step of it is finished ("I just
    finished the Duolingo basics", "这一步算完成了": the next one) or begins ("I'm starting
    week 1 today"); None when it says neither."""
    steps = [str(s) for s in plan.get("steps") or []]
    current = plan.get("current_step")
    current = current if isinstance(current, int) else 0
    moved: int | None = None
    for sentence in _SENTENCE.split(text):
        finished, starting = _FINISHED.search(sentence), _STARTING.search(sentence)
        if not (finished or starting) or (finished and _NOT.search(sentence)):
            continue
        step = _step_named(sentence, steps)
        if step is None and finished and _CURRENT.search(sentence):
            step = current
        if step is None:
            continue
        moved = max(moved or 0, step + 1) if finished else step
    return moved


def _run(text: str) -> tuple[int, int, list[str]] | None:
    """The longest run of markers numbered one after another (the same label each time), as
    (where the list starts, where it ends, the steps; a labelled step keeps its label)."""
    best: tuple[int, int, list[str]] | None = None
    for marks in (_numbered(text), _labelled(text)):
        for run in _runs(marks):
            if len(run) < 2 or (best is not None and len(run) <= len(best[2])):
                continue
            labelled = run[0][3]
            steps = []
            for i, (begin, after, _n, _label) in enumerate(run):
                if i + 1 < len(run):
                    stop = run[i + 1][0]
                else:
                    tail = _LAST_STEP_END.search(text, after)
                    stop = min(tail.start() if tail else len(text), after + _STEP_CHARS)
                steps.append(_clean(text[begin if labelled else after : stop]))
            if all(steps):
                best = (run[0][0], stop, steps)
    return best


Mark = tuple[int, int, int, str]  # where it starts, where its step starts, its number, its label


def _numbered(text: str) -> list[Mark]:
    marks = []
    for m in _NUMBERED.finditer(text):
        digits = m.group(1) or m.group(2)
        number = int(digits) if digits else ord(m.group(3)) - ord("①") + 1
        marks.append((m.start(), m.end(), number, ""))
    return marks


def _labelled(text: str) -> list[Mark]:
    marks = []
    for m in _LABELLED.finditer(text):
        if m.group(1):
            word, number = m.group(1).lower(), int(m.group(2))
        else:
            digits = m.group(3)
            number = int(digits) if digits.isdigit() else _chinese_number(digits)
            word = m.group(4)
        marks.append((m.start(), m.end(), number, f"{word} {number}" if m.group(1) else m.group(0)))
    return marks


def _chinese_number(text: str) -> int:
    """一 … 九十九 ("十二" is 12, "二十" is 20)."""
    if "十" not in text:
        return _CN_NUMBERS.get(text, 0)
    tens, _, ones = text.partition("十")
    return (_CN_NUMBERS.get(tens, 1) if tens else 1) * 10 + _CN_NUMBERS.get(ones, 0)


def _runs(marks: list[Mark]) -> list[list[Mark]]:
    """The marks in runs numbered n, n+1, … with the same kind of label."""
    runs: list[list[Mark]] = []
    for mark in marks:
        for run in runs:
            last = run[-1]
            if mark[2] == last[2] + 1 and _kind(mark[3]) == _kind(last[3]):
                run.append(mark)
                break
        else:
            runs.append([mark])
    return runs


def _kind(label: str) -> str:
    return re.sub(r"[\d一二三四五六七八九十\s]", "", label).lower()


def _clean(step: str) -> str:
    text = " ".join(step.split()).strip(_SEPARATORS)
    while (trimmed := _JOINED.sub("", text).strip(_SEPARATORS)) != text:
        text = trimmed
    return text


def _goal(before: str) -> str:
    """What the user works towards, from the words before the list ("I'm learning Spanish. My
    plan:" gives "Learning Spanish")."""
    text = _INTRO.sub("", before.strip()).strip(_SEPARATORS)
    said = [s for s in _SENTENCE.split(text) if s.strip(_SEPARATORS)]
    if not said:
        return ""
    goal = _FIRST_PERSON.sub("", said[-1].strip(_SEPARATORS), count=1).strip(_SEPARATORS)
    return goal[:1].upper() + goal[1:] if len(goal) >= 2 else ""


def _step_named(sentence: str, steps: list[str]) -> int | None:
    """The step a sentence speaks of: by the label it opens with ("week 2 run 5 km" is named by
    "week 2"), else by the words that step alone has ("Duolingo basics", "subtitles")."""
    lowered = sentence.lower()
    for i, step in enumerate(steps):
        label = _LABELLED.match(step)
        if label and re.search(rf"(?<!\w){re.escape(label.group(0).lower())}(?!\d)", lowered):
            return i
    said = _words(_FINISHED.sub(" ", _STARTING.sub(" ", sentence)))  # not "finished" itself
    best, best_shared = None, 0
    for i, step in enumerate(steps):
        others = set().union(*(_words(s) for j, s in enumerate(steps) if j != i))
        shared = sum(1 for w in _words(step) - others if _has(w, said))
        if shared > best_shared:
            best, best_shared = i, shared
    return best


def _words(text: str) -> set[str]:
    """Content terms of three letters or more, and CJK bigrams."""
    return {t for t in query_terms(text) if len(t) >= 3 or not t.isascii()}


def _has(term: str, said: set[str]) -> bool:
    """Is the term among ``said``, allowing for inflection ("watch" and "watched")?"""
    return term in said or (term.isascii() and any(one_root(term, w) for w in said))
