"""Task-sequence evaluation: the format and its errors, the rule checks, the four conditions, the
report; a scripted model for the exact mechanics and the starter models end to end (slow)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engram.assistant.learning import distill
from engram.cli.main import main
from engram.core.errors import InputError
from engram.evaluation import metrics, report, task_runner, tasks
from engram.evaluation import models as eval_models
from engram.evaluation.app import dataset_path
from engram.evaluation.tasks import Call, Check, ToolCheck, passes
from engram.memory import embed
from test_consolidation_support import ScriptedModel, ScriptedSource, memories_answer
from test_lessons import GUIDANCE, LESSON, KmChat
from test_memory_store import embedder  # noqa: F401  (shared fixture)

SETS = [dataset_path("tasks-en"), dataset_path("tasks-zh")]


@pytest.mark.parametrize("path", SETS, ids=["en", "zh"])
def test_the_shipped_sets_load_and_teach_before_they_test(path: Path) -> None:
    found = tasks.load(path)
    assert tasks.is_task_file(path) and len(found.tasks) >= 38
    assert found.language == ("zh" if path.stem.endswith("zh") else "en")
    kinds = {t.kind for t in found.tasks}
    assert {"units", "format", "preferences", "tools", "plan"} <= kinds
    for kind in kinds:  # every kind is taught first and tested at least twice afterwards
        of_kind = [t for t in found.tasks if t.kind == kind]
        assert of_kind[0].teaches
        assert sum(not t.teaches for t in of_kind) >= 2
    assert any(t.feedback and t.feedback.kind == "praise" for t in found.tasks)
    assert any(t.feedback and t.feedback.kind == "thumbs_down" for t in found.tasks)


def _write(folder: Path, data: Any, name: str = "set.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return path


def _set(*items: dict[str, Any]) -> dict[str, Any]:
    return {"format": tasks.FORMAT, "language": "en", "tasks": list(items)}


GOOD = {"id": "a", "kind": "units", "messages": ["How far?"], "check": {"answer_matches": "km"}}


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ("{not json", "is not a readable task file"),
        ({"format": "locomo", "tasks": [GOOD]}, 'must be "engram-tasks/1"'),
        (_set(), 'has no "tasks" list'),
        (_set(GOOD, GOOD), "the task id a is used twice"),
        (_set({**GOOD, "messages": []}), "task a: messages must be"),
        (_set({**GOOD, "check": {"answer_matches": "(unclosed"}}), "is not a regular expression"),
        (_set({**GOOD, "check": {"judge": "yes"}}), "task a: check must be"),
        (_set({**GOOD, "feedback": {"kind": "meh"}}), "task a: feedback.kind must be"),
        (_set({**GOOD, "feedback": {"kind": "correction"}}), "task a: feedback.text must be"),
        (_set({"kind": "x", "messages": ["hi"], "check": {}}), 'task 1 has no "id"'),
    ],
)
def test_a_bad_file_names_the_file_and_the_task(tmp_path: Path, data: Any, says: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    with pytest.raises(InputError) as caught:
        tasks.load(path)
    assert str(path) in caught.value.message and says in caught.value.message


def test_checks_apply_every_rule_given() -> None:
    check = Check(matches=r"\bkm\b", lacks=r"miles?", contains=("21.1",))
    assert passes(check, "About 21.1 KM.")
    assert not passes(check, "About 21.1 km (13.1 miles).")
    assert not passes(check, "About 21 km.")
    tool = Check(tool=ToolCheck("calculator", {"expression": r"2,?340"}))
    assert passes(
        tool, "409.5", [Call("datetime", {}), Call("calculator", {"expression": "2340*17.5%"})]
    )
    assert not passes(tool, "409.5", [Call("calculator", {"expression": "17.5% of 2000"})])
    assert not passes(tool, "409.5", [Call("calculator", "not an object")])
    assert not passes(tool, "409.5")


@pytest.mark.parametrize(
    ("name", "task", "answer", "passed"),
    [
        ("tasks-en", "units-test-body-temp", "Body temperature is 22 degrees Celsius.", False),
        ("tasks-en", "units-test-body-temp", "Around 36.5 degrees Celsius.", True),
        ("tasks-zh", "units-test-panda", "一只成年大熊猫的体重约为 1.5 公斤。", False),
        ("tasks-zh", "units-test-panda", "成年大熊猫约100千克。", True),
        ("tasks-zh", "units-test-luggage", "坐飞机托运行李一般限重 1.99 千克。", False),
        ("tasks-zh", "units-test-luggage", "一般限重23公斤。", True),
        ("tasks-zh", "units-test-money-latte", "纽约一杯星巴克拿铁的价格是 $1.99。", False),
        ("tasks-zh", "units-test-money-latte", "大约5美元，约合人民币36元。", True),
        ("tasks-zh", "units-test-money-ticket", "巴黎卢浮宫的门票价格是 1200 元。", False),
        ("tasks-zh", "units-test-money-ticket", "门票22欧元，约合170元人民币。", True),
        ("tasks-zh", "units-test-money-hotel", "约合人民币1,200元。", True),
        # The wrong value with a thousands separator passed before (the 0.5B said these):
        ("tasks-en", "units-test-everest", "Everest is about 8,871 kilometers tall.", False),
        ("tasks-en", "units-test-everest", "Mount Everest is 8,849 metres tall.", True),
        ("tasks-en", "units-test-everest", "About 8.85 km.", True),
        ("tasks-en", "units-test-london-paris", "About 1,400 kilometers.", False),
        ("tasks-en", "units-test-london-paris", "About 344 km.", True),
        ("tasks-en", "units-test-bridge", "It is 2,737 km long.", False),
        ("tasks-en", "units-test-bridge", "It is 2.7 km long.", True),
        ("tasks-en", "units-test-oven-pizza", "Heat it to 1,250 °C.", False),
        ("tasks-zh", "units-test-money-ticket", "门票约 1,200 元。", False),
        # A sign-off ends the message: the 0.5B, reminded, opened with it instead.
        ("tasks-en", "prefs-test-signoff-dentist", "Best regards, Mia. I thank you", False),
        ("tasks-en", "prefs-test-signoff-dentist", "Dear Lee,\nThanks!\nBest regards,\nMia", True),
        ("tasks-zh", "prefs-test-signoff-dentist", "此致，小林。我想感谢牙医。", False),
        ("tasks-zh", "prefs-test-signoff-dentist", "王医生您好：\n谢谢您。\n此致，小林", True),
    ],
)  # fmt: skip
def test_a_shipped_unit_check_wants_the_unit_and_a_plausible_value(
    name: str, task: str, answer: str, passed: bool
) -> None:
    """The real 0.5B passed unit tests with the right unit and a wrong value ("a normal body
    temperature is 22 degrees Celsius", "a giant panda weighs 1.5 kg")."""
    found = {t.id: t for t in tasks.load(dataset_path(name)).tasks}
    assert passes(found[task].check, answer) is passed


TAUGHT = "Answer in kilometres."  # the lesson the sequence's correction leaves: the user's words
SEQUENCE = _set(
    {
        "id": "teach",
        "kind": "units",
        "messages": ["How long is a half marathon?"],
        "check": {"answer_matches": r"\bkm\b"},
        "feedback": {
            "kind": "correction",
            "text": "No, that's wrong: answer in kilometres.",
        },
    },
    {
        "id": "weather",
        "kind": "other",
        "messages": ["Is it sunny in Rome?"],
        "check": {"answer_matches": "."},
    },
    {
        "id": "test",
        "kind": "units",
        "messages": ["How long is the Golden Gate Bridge?"],
        "check": {"answer_matches": r"\bkm\b"},
    },
)


def test_only_the_lessons_condition_carries_the_lesson_to_a_later_task(
    tmp_path: Path,
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    distiller = ScriptedModel(memories_answer(("lesson", LESSON), ("fact", "The user runs races.")))
    chat = KmChat()
    runner = task_runner.TaskRunner(chat, ScriptedSource(distiller), embedder, tmp_path / "out")
    records = runner.run(tasks.load(_write(tmp_path, SEQUENCE)))
    passed = {c: [r["passed"] for r in rows] for c, rows in records.items()}
    assert passed["none"] == [False, True, False]
    assert passed["distilled"] == [False, True, False]  # the fact came back, the lesson did not
    assert passed["lessons"] == [False, True, True]
    assert [r["signal"] for r in records["lessons"] if "signal" in r] == ["correction"]
    assert records["lessons"][0]["signal_detected"] is True  # found in the message itself
    assert all(r["memories_after"] >= 1 for r in records["distilled"])
    assert "memories_after" not in records["raw"][0]
    # The correction was said in the conversation: the distiller read it.
    assert any("answer in kilometres" in m[-1]["content"] for _k, m in distiller.calls)
    # and was asked for lessons: the job carried the correction as an outcome signal.
    assert any("Outcome signals:\n[2] correction" in m[-1]["content"] for _k, m in distiller.calls)
    last = chat.prompts[-1]
    assert TAUGHT in last and "<memory>" in last

    report.write_tasks(tmp_path, records, "scripted")
    text = (tmp_path / "report.md").read_text("utf-8")
    # Two tasks test (the weather one passes anyway): +50 points against both other conditions.
    assert text.count("+50.0 points") == 2
    assert re.search(r"\| test \| units \| ✗ \| [✓✗] \| ✗ \| ✓ \|", text)
    assert "| teach* | units |" in text
    with Image.open(tmp_path / "chart.png") as image:
        assert image.size[0] > 200


def test_without_a_lesson_stored_condition_4_takes_condition_3s_answers(
    tmp_path: Path,
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    """PrefEval teaches preferences only: condition 4's prompts are condition 3's, and so were
    its answers, at twice the time (the 1.5B distils every set-up again)."""
    stated = _set(
        {
            "id": "diet-pref",
            "kind": "diet",
            "messages": ["I follow a strict gluten-free diet."],
            "check": {"answer_matches": "."},
            "setup": True,
        },
        {
            "id": "diet-ask",
            "kind": "diet",
            "messages": ["Recommend a bakery in Rome."],
            "check": {"answer_matches": "gluten"},
        },
    )
    task_set = tasks.load(_write(tmp_path, stated))
    distiller = ScriptedModel(memories_answer(("preference", "The user eats gluten-free.")))
    chat = KmChat()
    out = tmp_path / "out"
    records = task_runner.TaskRunner(chat, ScriptedSource(distiller), embedder, out).run(
        task_set, ("distilled", "lessons"), resume="run"
    )
    assert len(chat.prompts) == 2  # condition 3's two answers; none asked for condition 4
    answers = {
        c: [(r["task"], r["answer"], r["passed"]) for r in rows] for c, rows in records.items()
    }
    assert answers["lessons"] == answers["distilled"]
    assert all(r["as_condition"] == "distilled" for r in records["lessons"])
    assert (out / "stores" / "lessons.sqlite3").is_file()
    text = report.tasks_markdown(records, "t")
    assert "no lesson was ever stored, so its prompts, answers and memories are those of 3." in text
    # With a lesson stored (the correction of SEQUENCE), condition 4 is asked anew.
    again = KmChat()
    lessons = ScriptedModel(memories_answer(("lesson", LESSON)))
    task_runner.TaskRunner(again, ScriptedSource(lessons), embedder, tmp_path / "taught").run(
        tasks.load(_write(tmp_path, SEQUENCE, "taught.json")), ("distilled", "lessons")
    )
    assert len(again.prompts) == 2 * 4  # three answers and the correction, in each condition


def test_a_limit_keeps_the_first_tests_with_what_teaches_them(tmp_path: Path) -> None:
    def task(name: str, kind: str, teaches: bool = False) -> dict[str, Any]:
        return {
            "id": name,
            "kind": kind,
            "messages": ["hi"],
            "check": {"answer_matches": "."},
            **({"setup": True} if teaches else {}),
        }

    path = _write(
        tmp_path,
        _set(
            task("diet-pref", "diet", True),
            task("pets-pref", "pets", True),
            task("music-pref", "music", True),
            task("pets-ask", "pets"),
            task("diet-ask", "diet"),
            task("music-ask", "music"),
        ),
    )
    kept = tasks.first_tests(tasks.load(path), 2)
    # The first two tests and the set-ups of their kinds, in file order; music is not tested.
    assert [t.id for t in kept.tasks] == ["diet-pref", "pets-pref", "pets-ask", "diet-ask"]
    assert [t.id for t in tasks.first_tests(tasks.load(path), 99).tasks] == [
        t["id"] for t in json.loads(path.read_text("utf-8"))["tasks"]
    ]


def test_the_interval_is_wilsons() -> None:
    low, high = metrics.wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-3)
    low, high = metrics.wilson(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-3), pytest.approx(0.7634, abs=1e-3))
    assert metrics.wilson(20, 20)[1] == 1.0 and metrics.wilson(0, 0) == (0.0, 1.0)
    low, high = metrics.mean_interval([0.0, 1.0, 0.5, 0.5])
    assert low < 0.5 < high and low >= 0.0 and high <= 1.0


class _StopError(Exception):
    pass


@pytest.mark.slow
def test_a_stopped_run_resumes_at_the_next_task_with_the_same_answers(
    tmp_path: Path,
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    task_set = tasks.load(_write(tmp_path, SEQUENCE))

    def runner(out: Path, chat: KmChat, stop_at: int | None = None) -> task_runner.TaskRunner:
        def progress(done: int, total: int, note: str) -> None:
            if done == stop_at:
                raise _StopError

        distiller = ScriptedModel(
            memories_answer(("lesson", LESSON), ("fact", "The user runs races."))
        )
        return task_runner.TaskRunner(
            chat, ScriptedSource(distiller), embedder, out, progress=progress
        )

    whole = runner(tmp_path / "whole", KmChat()).run(task_set, resume="run-1")
    stopped = KmChat()
    with pytest.raises(_StopError):  # stopped after the lessons condition's first task
        runner(tmp_path / "out", stopped, stop_at=10).run(task_set, resume="run-1")
    again = KmChat()
    resumed = runner(tmp_path / "out", again).run(task_set, resume="run-1")
    # Only the two tasks left were answered (one prompt each, one more for the correction)...
    assert len(again.prompts) == 2
    # ...and the lesson the first task taught came back from the saved store.
    assert TAUGHT in again.prompts[-1]
    answers = {
        c: [(r["task"], r["answer"], r["passed"]) for r in rows] for c, rows in whole.items()
    }
    assert {
        c: [(r["task"], r["answer"], r["passed"]) for r in rows] for c, rows in resumed.items()
    } == answers
    # Another identity (other data or models) starts afresh.
    fresh = KmChat()
    runner(tmp_path / "out", fresh).run(task_set, resume="run-2")
    assert len(fresh.prompts) == len(stopped.prompts) + len(again.prompts) > 2


def test_the_report_gives_n_intervals_the_ceiling_and_what_reached_the_tests(
    tmp_path: Path,
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    task_set = tasks.load(_write(tmp_path, SEQUENCE))
    told = json.loads(json.dumps(SEQUENCE))
    told["tasks"][2]["messages"] = [
        "Please answer in kilometres. How long is the Golden Gate Bridge?"
    ]
    ceiling = tasks.load(_write(tmp_path, told, "told.json"))
    distiller = ScriptedModel(memories_answer(("lesson", LESSON), ("fact", "The user runs races.")))
    records = task_runner.TaskRunner(
        KmChat(), ScriptedSource(distiller), embedder, tmp_path / "out"
    ).run(task_set, ("none", "lessons"), ceiling=ceiling)
    assert list(records) == ["none", "lessons", "ceiling"]
    test = {c: rows[2] for c, rows in records.items()}
    assert test["ceiling"]["passed"] and not test["none"]["passed"] and test["lessons"]["passed"]
    assert test["lessons"]["taught"] and test["lessons"]["lessons_recalled"] == 1
    assert not test["none"]["recalled"] and not test["none"]["taught"]
    text = report.tasks_markdown(records, "t", {"small model": "tiny (sha256 abc)"})
    assert "- small model: tiny (sha256 abc)" in text
    # Two tests: 1.0 vs 0.5 is +50 points, and the intervals show how little two tests say.
    assert "+50.0 points on 2 tests (95 % intervals 0.34–1.00 and 0.09–0.91)" in text
    lessons_row = next(line for line in text.splitlines() if line.startswith("| 4. small"))
    assert "| 1.000 (2/2) | 0.34–1.00 | 1.00 | 1/2 |" in lessons_row
    assert "a lesson was recalled into 1 tests, 1 of them passed" in text
    assert "Engram's own detection found 1 of 1" in text


class RecitingChat(KmChat):
    """Answers a prompt that carries lessons with the first of them, word for word."""

    def stream_chat(self, messages: list[dict[str, str]], *args: Any, **kwargs: Any) -> Any:
        said = "\n".join(m["content"] for m in messages)
        if GUIDANCE in said:
            yield said.split(GUIDANCE, 1)[1].split("\n- ", 1)[1].split("\n", 1)[0]
        else:
            yield from super().stream_chat(messages, *args, **kwargs)


def test_the_report_counts_answers_asked_again_after_reciting_their_prompt(
    tmp_path: Path,
    embedder: embed.FastEmbedder,  # noqa: F811
) -> None:
    task_set = tasks.load(_write(tmp_path, SEQUENCE))
    distiller = ScriptedModel(memories_answer(("lesson", LESSON)))
    records = task_runner.TaskRunner(
        RecitingChat(), ScriptedSource(distiller), embedder, tmp_path / "out"
    ).run(task_set, ("lessons",))
    test = records["lessons"][2]
    assert test["recited"] and test["answer"] == "It is 1.7 miles."  # asked again, no lesson
    assert not any(r["recited"] for r in records["lessons"][:2])
    text = report.tasks_markdown(records, "t")
    assert "1 answers began by reciting their prompt and were asked again without memory" in text


def test_a_replaying_distiller_runs_each_exact_request_once() -> None:
    scripted = ScriptedModel(memories_answer(("fact", "The user runs races.")))
    answers: dict[str, dict[str, Any]] = {}
    source = eval_models.Replaying(ScriptedSource(scripted), answers)
    ask = [{"role": "user", "content": "[1] user: I run races."}]
    schema = distill.schema(distill.Limits())
    first = source.acquire(lambda: False).structured(ask, schema)
    first["memories"].clear()  # the caller changing its copy changes nothing kept
    second = source.acquire(lambda: False).structured(ask, schema)
    assert second["memories"] and len(scripted.calls) == 1
    source.acquire(lambda: False).structured(ask, schema, max_tokens=10)
    assert len(scripted.calls) == 2 and source.origin == "local"


@pytest.mark.slow
def test_engram_eval_runs_a_task_set_with_the_starter_models(
    starter_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["eval", str(SETS[0]), "--limit", "1", "--out", str(out), "--context", "1024"]
    code = main([*argv, "--conditions", "none,lessons"])
    assert code == 0, capsys.readouterr().err
    saved = json.loads((out / "tasks.json").read_text("utf-8"))
    records = saved["records"]
    chosen = tasks.first_tests(tasks.load(SETS[0]), 1).tasks
    checks = {t.id: t.check for t in chosen}
    assert list(records) == ["none", "lessons"]
    for condition, rows in records.items():
        assert [r["task"] for r in rows] == [t.id for t in chosen]
        for row in rows:  # whatever the 135M model says, the verdict is the check's
            check = checks[row["task"]]
            calls = [Call(c["name"], c["arguments"]) for c in row["calls"]]
            assert row["passed"] == (passes(check, row["answer"], calls) and "error" not in row), (
                condition
            )
    assert re.fullmatch(r"\S+ \(sha256 [0-9a-f]{64}\)", saved["models"]["small"])
    text = (out / "report.md").read_text("utf-8")
    assert f"| {chosen[0].id}* | {chosen[0].kind} |" in text
    assert "greedy (temperature 0)" in text and "--conditions none,lessons" in text
    # Run again: everything was saved, so nothing is answered twice and the report is the same.
    assert main([*argv, "--conditions", "none,lessons"]) == 0
    assert json.loads((out / "tasks.json").read_text("utf-8"))["records"] == records
    assert "[0/" not in capsys.readouterr().err.split("resuming")[-1]
    with pytest.raises(SystemExit):
        main([*argv, "--conditions", "none,everything"])
    assert "everything': choose from none, raw, distilled, lessons" in capsys.readouterr().err
