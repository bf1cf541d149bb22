"""Task-sequence data sets: tasks in order, feedback after some answers, rule-based checks.

A file (JSON, UTF-8) holds ``{"format": "engram-tasks/1", "language": "en" | "zh", "tasks":
[...]}``.
Each task: ``id`` (unique), ``kind`` (what it is about, a report group), ``messages`` (the user's
messages, sent in one new conversation; the answer to the last one is checked), ``check`` and,
optionally, ``feedback`` given after the checked answer:

- ``check``: every key given must hold. ``answer_matches`` / ``answer_lacks``: a regular
  expression the answer must / must not match (case-insensitive search); ``answer_contains``: values
  that must all appear (case and spacing ignored); ``tool``: ``{"name": ..., "arguments": {argument:
  regex}}``, a call of that tool whose arguments match.
- ``feedback``: ``{"kind": "thumbs_down" | "thumbs_up" | "correction" | "praise", "text": ...}``.
  A correction or praise is sent as the user's next message; a thumb's text is what the user
  answered to "what was wrong?".
- ``setup``: true for a task that tells Engram something (a plan, progress on it) to be used
  later; like a task with feedback, it is reported apart from the tests.

No judge model is needed. A task with feedback teaches; the tasks without it test whether a
lesson of the same kind is followed (see docs/evaluation.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from engram.assistant.events import SignalKind
from engram.core.errors import InputError, tr

FORMAT = "engram-tasks/1"
FEEDBACK_KINDS: tuple[SignalKind, ...] = ("thumbs_down", "thumbs_up", "correction", "praise")
SAID_FEEDBACK = frozenset({"correction", "praise"})  # sent as the user's next message
CHECK_KEYS = ("answer_matches", "answer_lacks", "answer_contains", "tool")


@dataclass(frozen=True)
class ToolCheck:
    """A call the answer must make: the tool's name and a regex per argument (its JSON text)."""

    name: str
    arguments: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    """The rules an answer must pass (every one given)."""

    matches: str | None = None
    lacks: str | None = None
    contains: tuple[str, ...] = ()
    tool: ToolCheck | None = None


@dataclass(frozen=True)
class Feedback:
    """What the user says about the checked answer."""

    kind: SignalKind
    text: str = ""

    @property
    def said(self) -> bool:
        """Whether the feedback is a message in the conversation (else a thumb in the window)."""
        return self.kind in SAID_FEEDBACK


@dataclass(frozen=True)
class Task:
    """One task of a sequence."""

    id: str
    kind: str
    messages: tuple[str, ...]
    check: Check
    feedback: Feedback | None = None
    setup: bool = False  # tells Engram something (a plan, a change) rather than testing it

    @property
    def teaches(self) -> bool:
        """A task that teaches (feedback, or a set-up) rather than tests."""
        return self.feedback is not None or self.setup


@dataclass(frozen=True)
class TaskSet:
    """A file's tasks in order, in one language."""

    path: Path
    language: str
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class Call:
    """A tool call the model made while answering."""

    name: str
    arguments: object


def _space(text: str) -> str:
    return " ".join(text.lower().split())


def passes(check: Check, answer: str, calls: Sequence[Call] = ()) -> bool:
    """Whether an answer (and the tool calls made for it) passes every rule of the check."""
    if check.matches is not None and not re.search(check.matches, answer, re.IGNORECASE):
        return False
    if check.lacks is not None and re.search(check.lacks, answer, re.IGNORECASE):
        return False
    if any(_space(value) not in _space(answer) for value in check.contains):
        return False
    return check.tool is None or any(_called(check.tool, call) for call in calls)


def _called(wanted: ToolCheck, call: Call) -> bool:
    if call.name != wanted.name:
        return False
    given = call.arguments if isinstance(call.arguments, dict) else {}
    for name, pattern in wanted.arguments.items():
        if name not in given:
            return False
        value = given[name]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if not re.search(pattern, text, re.IGNORECASE):
            return False
    return True


def first_tests(task_set: TaskSet, count: int) -> TaskSet:
    """The first ``count`` tasks that test, each with the teaching tasks of its kind before it,
    in file order: a shorter run that still teaches what it tests."""
    tests = [t for t in task_set.tasks if not t.teaches][:count]
    kinds = {t.kind for t in tests}
    last = task_set.tasks.index(tests[-1]) if tests else -1
    kept = tuple(
        t
        for i, t in enumerate(task_set.tasks)
        if t in tests or (t.teaches and t.kind in kinds and i < last)
    )
    return TaskSet(task_set.path, task_set.language, kept)


def is_task_file(path: Path) -> bool:
    """Whether ``path`` looks like a task-sequence file (its format tag), read cheaply."""
    try:
        with path.open(encoding="utf-8") as handle:
            head = handle.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return f'"{FORMAT}"' in head


def load(path: Path) -> TaskSet:
    """Read and check a task file; every problem names the file and the task."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(
            tr("{path} is not a readable task file ({error})."),
            tr("Check the file, or see docs/evaluation.md for the format."),
            path=path,
            error=exc,
        ) from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(
            tr('{path} is not a task file: "format" must be "{format}".'),
            tr("See docs/evaluation.md for the format."),
            path=path,
            format=FORMAT,
        )
    language = data.get("language", "en")
    if language not in ("en", "zh"):
        raise InputError(
            tr('{path}: "language" must be "en" or "zh", not {value}.'), path=path, value=language
        )
    raw = data.get("tasks")
    if not isinstance(raw, list) or not raw:
        raise InputError(tr('{path} has no "tasks" list.'), path=path)
    tasks: list[Task] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        task = _task(path, index, item)
        if task.id in seen:
            raise InputError(
                tr("{path}: the task id {task} is used twice."), path=path, task=task.id
            )
        seen.add(task.id)
        tasks.append(task)
    return TaskSet(path, language, tuple(tasks))


def _task(path: Path, index: int, item: Any) -> Task:
    if not isinstance(item, dict):
        raise InputError(tr("{path}: task {task} is not an object."), path=path, task=index + 1)
    name = item.get("id")
    if not isinstance(name, str) or not name.strip():
        raise InputError(tr('{path}: task {task} has no "id".'), path=path, task=index + 1)

    def bad(key: str, expected: str) -> InputError:
        return InputError(
            tr("{path}: task {task}: {field} must be {expected}."),
            tr("See docs/evaluation.md for the format."),
            path=path,
            task=name,
            field=key,
            expected=expected,
        )

    kind = item.get("kind", "")
    if not isinstance(kind, str):
        raise bad("kind", "string")
    messages = item.get("messages")
    if (
        not isinstance(messages, list)
        or not messages
        or not all(isinstance(m, str) and m.strip() for m in messages)
    ):
        raise bad("messages", "[string, ...]")
    check = item.get("check")
    if not isinstance(check, dict) or not check or set(check) - set(CHECK_KEYS):
        raise bad("check", " | ".join(CHECK_KEYS))
    feedback = item.get("feedback")
    found = None
    if feedback is not None:
        if not isinstance(feedback, dict) or feedback.get("kind") not in FEEDBACK_KINDS:
            raise bad("feedback.kind", " | ".join(FEEDBACK_KINDS))
        text = feedback.get("text", "")
        if not isinstance(text, str) or (feedback["kind"] in SAID_FEEDBACK and not text.strip()):
            raise bad("feedback.text", "string")
        found = Feedback(cast(SignalKind, feedback["kind"]), text)
    setup = item.get("setup", False)
    if not isinstance(setup, bool):
        raise bad("setup", "true | false")
    checked = _check(path, name, check, bad)
    return Task(name, kind or "general", tuple(messages), checked, found, setup)


def _check(path: Path, task: str, check: dict[str, Any], bad: Any) -> Check:
    def regex(key: str, value: Any) -> str:
        if not isinstance(value, str):
            raise bad(key, "string")
        try:
            re.compile(value)
        except re.error as exc:
            raise InputError(
                tr("{path}: task {task}: {field} is not a regular expression ({error})."),
                path=path,
                task=task,
                field=key,
                error=exc,
            ) from exc
        return value

    contains = check.get("answer_contains", [])
    if isinstance(contains, str):
        contains = [contains]
    if not isinstance(contains, list) or not all(isinstance(v, str) and v for v in contains):
        raise bad("check.answer_contains", "[string, ...]")
    tool = None
    if "tool" in check:
        spec = check["tool"]
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise bad("check.tool.name", "string")
        arguments = spec.get("arguments", {})
        if not isinstance(arguments, dict):
            raise bad("check.tool.arguments", "{argument: regex}")
        tool = ToolCheck(
            spec["name"], {k: regex(f"check.tool.arguments.{k}", v) for k, v in arguments.items()}
        )
    return Check(
        matches=regex("check.answer_matches", check["answer_matches"])
        if "answer_matches" in check
        else None,
        lacks=regex("check.answer_lacks", check["answer_lacks"])
        if "answer_lacks" in check
        else None,
        contains=tuple(contains),
        tool=tool,
    )
