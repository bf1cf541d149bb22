"""Task-sequence evaluation: the format and its errors, the rule checks, the four conditions, the
report; a scripted model for the exact mechanics and the starter models end to end (slow)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engram.cli.main import main
from engram.core.errors import InputError
from engram.evaluation import report, task_runner, tasks
from engram.evaluation.tasks import Call, Check, ToolCheck, passes
from engram.memory import embed
from test_consolidation_support import ScriptedModel, ScriptedSource, memories_answer
from test_lessons import LESSON, KmChat
from test_memory_store import embedder  # noqa: F401  (shared fixture)

DATA = Path(__file__).parent / "data"
SETS = [DATA / "tasks_en.json", DATA / "tasks_zh.json"]


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


SEQUENCE = _set(
    {
        "id": "teach",
        "kind": "units",
        "messages": ["How long is a half marathon?"],
        "check": {"answer_matches": r"\bkm\b"},
        "feedback": {
            "kind": "correction",
            "text": "No, that's wrong: give distances in kilometres.",
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
    assert any("give distances in kilometres" in m[-1]["content"] for _k, m in distiller.calls)
    # and was asked for lessons: the job carried the correction as an outcome signal.
    assert any("Outcome signals:\n[2] correction" in m[-1]["content"] for _k, m in distiller.calls)
    last = chat.prompts[-1]
    assert LESSON in last and "<memory>" in last

    report.write_tasks(tmp_path, records, "scripted")
    text = (tmp_path / "report.md").read_text("utf-8")
    # Two tasks test (the weather one passes anyway): +50 points against both other conditions.
    assert text.count("+50.0 points") == 2
    assert re.search(r"\| test \| units \| ✗ \| [✓✗] \| ✗ \| ✓ \|", text)
    assert "| teach* | units |" in text
    with Image.open(tmp_path / "chart.png") as image:
        assert image.size[0] > 200


@pytest.mark.slow
def test_engram_eval_runs_a_task_set_with_the_starter_models(
    starter_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(["eval", str(SETS[0]), "--limit", "3", "--out", str(out), "--context", "1024"])
    assert code == 0, capsys.readouterr().err
    records = json.loads((out / "tasks.json").read_text("utf-8"))["records"]
    checks = {t.id: t.check for t in tasks.load(SETS[0]).tasks}
    assert set(records) == set(task_runner.CONDITIONS)
    for condition, rows in records.items():
        assert [r["task"] for r in rows] == [t.id for t in tasks.load(SETS[0]).tasks[:3]]
        for row in rows:  # whatever the 135M model says, the verdict is the check's
            check = checks[row["task"]]
            calls = [Call(c["name"], c["arguments"]) for c in row["calls"]]
            assert row["passed"] == (passes(check, row["answer"], calls) and "error" not in row), (
                condition
            )
    assert "| units-teach-distance* | units |" in (out / "report.md").read_text("utf-8")
