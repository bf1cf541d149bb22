"""Does the small model follow a lesson it is given? The prompt's form, apart from learning.

For each test of a task set (``resources/eval/tasks_<lang>.json``) that a lesson in the user's words
can govern (units, format, preferences; no tools, no plan), the small model answers twice through
``Assistant.turn`` (the path of the window and ``engram chat``), greedy:

- ``none``: no memory;
- ``lessons``: a store holding what a perfect learner would have kept from the set's teaching
  tasks: each correction or reason the user gave, as a lesson in their words applied to the
  question it followed (what ``distill.told`` keeps), and two unrelated facts;
- ``examples`` (with ``--large``): the same, and each lesson that quotes a text to use comes with
  its example, written as learning writes it (``distill.demonstration`` by the large model, from
  the small model's answer to the lesson's question without memory).

The tests' own checks score the answers. A third count is the statements about the user (ten
each in English and Chinese) that the model answered by reciting its system part. Nothing here is
a distiller: a gap between ``lessons`` and ``none`` is the prompt's, not learning's.

    .venv/bin/python bench/lesson_following.py [--language en|zh_CN] [--model ID] [--show]
        [--large qwen2.5-coder-1.5b-instruct]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

from engram.assistant import intent
from engram.assistant.events import Finished
from engram.assistant.learning import distill
from engram.assistant.session import embedder_for
from engram.assistant.turn import prompt
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core import resources
from engram.core import settings as settings_mod
from engram.core.prompts import language_of
from engram.evaluation import tasks
from engram.memory.episodes import EpisodeLog
from engram.memory.kinds import FACT, LESSON
from engram.memory.store import MemoryStore
from engram.models import roles
from engram.models.local import LocalModel

KINDS = ("units", "format", "preferences")
ANSWER_TOKENS = 96  # as engram eval's task runner
UNRELATED = {
    "en": ("The user has a dog called Biscuit.", "The user is learning the cello."),
    "zh_CN": ("用户养了一只叫饼干的狗。", "用户在学大提琴。"),
}
STATEMENTS = {
    "en": (
        "I don't wear clothing made from animal products like leather, wool, or silk.",
        "I prefer to adopt pets from shelters rather than purchasing from breeders.",
        "My name is Mia and I live in Berlin.",
        "I follow a strict gluten-free diet.",
        "I have two cats called Tofu and Miso.",
        "I work as a nurse on night shifts.",
        "I'm allergic to peanuts.",
        "I never fly; I take trains everywhere.",
        "I'm learning Spanish for a trip to Mexico next spring.",
        "I hate horror movies.",
    ),
    "zh_CN": (
        "我每周六上午十点上小提琴课。",
        "我对花生过敏。",
        "我是素食者。",
        "我住在上海，在一家银行工作。",
        "我不喝咖啡，只喝绿茶。",
        "我有一只叫豆豆的狗。",
        "我从不坐飞机。",
        "我正在学日语。",
        "我喜欢爬山。",
        "我晚上十一点以后不看手机。",
    ),
}


def lessons_of(task_set: tasks.TaskSet) -> list[tuple[str, str, str]]:
    """(kind, the user's words, the question they followed) of every teaching task whose
    feedback says what was wrong: what a perfect learner keeps as lessons."""
    return [
        (t.kind, intent.unframed(t.feedback.text), t.messages[-1])
        for t in task_set.tasks
        if t.feedback is not None and t.feedback.text and t.feedback.kind != "praise"
    ]


def seeded(
    path: Path,
    task_set: tasks.TaskSet,
    store_embedder: object,
    examples: dict[str, str] | None = None,
) -> MemoryStore:
    """A store with the set's lessons (their questions embedded beside them; with ``examples``,
    a lesson's words -> its example answer, those it has) and two facts."""
    store = MemoryStore.open(path, store_embedder)  # type: ignore[arg-type]
    for _kind, words, question in lessons_of(task_set):
        vector = store.space.embed([f"{words}\n{question}"])
        meta: dict[str, object] = {"applies_to": [question]}
        if examples and words in examples:
            meta["example"] = {"asked": question, "answer": examples[words]}
        store.add(words, LESSON, origin="local", meta=meta, vector=vector)
    for fact in UNRELATED[language_of(task_set.language)]:
        store.add(fact, FACT, origin="local")
    return store


def written_examples(
    task_set: tasks.TaskSet, small: LocalModel, settings: settings_mod.Settings, large_id: str
) -> dict[str, str]:
    """Each quoting lesson's example as learning writes it: the large model answers the lesson's
    question again the user's way, from the small model's answer without memory."""
    language = language_of(task_set.language)
    large = roles.load_local(dataclasses.replace(settings, large_model=large_id), "large")
    found = {}
    try:
        for _kind, words, question in lessons_of(task_set):
            if not distill.quoted(words):
                continue
            asked = [{"role": "user", "content": question}]
            first = "".join(small.stream_chat(asked, max_tokens=ANSWER_TOKENS))
            if example := distill.demonstration(large, question, first, words, language):
                found[words] = example
    finally:
        large.close()
    return found


def answer(assistant: Assistant, text: str) -> str:
    return next(e.text for e in assistant.turn(0, text) if isinstance(e, Finished))


def recited(text: str, language: str) -> bool:
    """Did an answer repeat the system part (a sentence of it, or "Engram …" as its start)?"""
    system = prompt.system_part(language)
    said = text.strip()
    return said.startswith("Engram") or any(
        line[:40] in said for line in system.splitlines() if line.strip()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--language", default="en", choices=("en", "zh_CN"))
    parser.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    parser.add_argument("--show", action="store_true", help="print every answer")
    parser.add_argument("--large", help="write examples with this model (a third condition)")
    args = parser.parse_args(argv)
    name = "tasks_en.json" if args.language == "en" else "tasks_zh.json"
    task_set = tasks.load(Path(str(resources.path("eval", name))))
    tests = [
        t
        for t in task_set.tasks
        if not t.teaches and t.kind in KINDS and t.check.tool is None and len(t.messages) == 1
    ]
    settings = dataclasses.replace(settings_mod.load(), small_model=args.model)
    small = roles.load_local(settings, "small")
    small.temperature = 0.0
    embedder = embedder_for(settings)
    start = time.perf_counter()
    examples = written_examples(task_set, small, settings, args.large) if args.large else {}
    conditions = ("none", "lessons", "examples") if args.large else ("none", "lessons")
    with tempfile.TemporaryDirectory() as folder:
        rows: dict[str, int] = {}
        for condition in conditions:
            shown = examples if condition == "examples" else None
            store = seeded(Path(folder) / f"{condition}.sqlite3", task_set, embedder, shown)
            recall = Recall(store, small.count_tokens) if condition != "none" else None
            assistant = Assistant(
                EpisodeLog(store.conn),
                small,
                max_answer_tokens=ANSWER_TOKENS,
                language=args.language,
                recall=recall,
            )
            passed = 0
            for test in tests:
                said = answer(assistant, test.messages[0])
                ok = tasks.passes(test.check, said)
                passed += ok
                if args.show:
                    print(f"  {condition:7} {'pass' if ok else 'FAIL'} {test.id}: {said[:100]!r}")
            rows[condition] = passed
            if condition == "none":
                bad = sum(
                    recited(answer(assistant, s), args.language) for s in STATEMENTS[args.language]
                )
            store.conn.close()
    small.close()
    took = time.perf_counter() - start
    print(
        f"{args.model}, {args.language}, {len(tests)} tests a lesson governs, greedy, {took:.0f} s"
    )
    print("| condition | tests passed |\n| --- | ---: |")
    for condition, passed in rows.items():
        print(f"| {condition} | {passed}/{len(tests)} |")
    print(f"lessons - none: {rows['lessons'] - rows['none']:+d} tests")
    if args.large:
        print(f"examples written: {len(examples)} of the lessons that quote a text")
    print(f"statements about the user answered with the system part: {bad}/10")
    return 0


if __name__ == "__main__":
    sys.exit(main())
