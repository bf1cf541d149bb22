"""`engram eval` end to end on a slice of the synthetic LoCoMo set with the starter models."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from engram.assistant.evaluation import chart, metrics
from engram.cli.main import main

DATA = Path(__file__).parent / "data" / "synthetic_locomo.json"


def _slice(folder: Path) -> Path:
    """Maya's first 16 turns with the question about her dog and two unanswerable ones."""
    sample = json.loads(DATA.read_text(encoding="utf-8"))[0]
    conv = sample["conversation"]
    qa = [q for q in sample["qa"] if q["evidence"] == ["D1:15"] or q["category"] == 5][:3]
    path = folder / "slice.json"
    keep = {k: conv[k] for k in ("speaker_a", "speaker_b", "session_1_date_time")}
    keep["session_1"] = conv["session_1"][:16]
    path.write_text(json.dumps([{"sample_id": "s", "conversation": keep, "qa": qa}]), "utf-8")
    return path


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    start = data.index(b"IDAT") + 4
    length = struct.unpack(">I", data[start - 8 : start - 4])[0]
    raw = zlib.decompress(data[start : start + length])
    assert len(raw) == height * (1 + 3 * width)
    return width, height


def _eval(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["eval", *args])
    return code, capsys.readouterr().err


def test_eval_answers_reports_and_resumes(
    starter_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, out = _slice(tmp_path), tmp_path / "out"
    common = [str(data), "--out", str(out), "--context", "768"]
    code, err = _eval([*common, "--limit", "2"], capsys)
    assert code == 0, err
    first = json.loads((out / "answers.json").read_text("utf-8"))["answers"]
    assert sorted(first) == ["s/0", "s/1"]
    code, err = _eval([*common, "--limit", "3"], capsys)
    assert code == 0, err
    answered = [line for line in err.splitlines() if line.startswith("[")]
    assert len(answered) == 4 and all(" s/2 " in line for line in answered)  # only the new one
    assert "consolidating" not in err  # the jobs of the first run are done
    answers: dict[str, dict[str, Any]] = json.loads((out / "answers.json").read_text("utf-8"))[
        "answers"
    ]
    assert {k: answers[k] for k in first} == first
    assert all(
        set(by) == {"recent", "episodes", "consolidated", "large"} for by in answers.values()
    )
    for by in answers.values():
        for condition, record in by.items():
            assert 0.0 <= record["f1"] <= 1.0 and record["exact"] in (0.0, 1.0)
            assert record["evidence_recall"] is None or 0.0 <= record["evidence_recall"] <= 1.0
            assert record["prompt_tokens"] > 0 and record["total_s"] >= record["first_token_s"]
            assert (record["injected"] > 0) == (condition in ("episodes", "consolidated"))
    report = (out / "report.md").read_text("utf-8")
    assert "Memory gain (3 − 1)" in report
    totals = report.split("F1 per category:")[0]
    assert totals.count("| 3 |") == 4, report  # every condition answered all three
    category = [line for line in report.splitlines() if line.startswith("| 1. small")][-1]
    counts = [int(c.split("(")[1].rstrip(") ")) for c in category.split("|")[2:-1]]
    assert counts[0] == sum(counts[1:]) == 3
    width, height = _png_size(out / "chart.png")
    assert width > 0 and height == chart.HEIGHT + 2 * chart.MARGIN
    assert list((out / "stores").glob("*.sqlite3"))


def test_retrieval_only_measures_recall_on_the_whole_set(
    starter_models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _eval([str(DATA), "--retrieval-only", "--out", str(tmp_path)], capsys)
    assert code == 0, err
    records = json.loads((tmp_path / "retrieval.json").read_text("utf-8"))["records"]
    assert len(records) == 32  # every question with evidence (not the unanswerable ones)
    for r in records:
        assert 0.0 <= r["recall@5"] <= r["recall@10"] <= r["recall@20"] <= 1.0
    summary = metrics.summarize(records, ["recall@10"])
    assert summary["all"]["n"] == sum(v["n"] for k, v in summary.items() if k != "all")
    assert summary["all"]["recall@10"] > 0.5
    assert "| all | 32 |" in (tmp_path / "report.md").read_text("utf-8")
    assert not (tmp_path / "answers.json").exists()


def test_bad_input_is_a_message_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _eval([str(tmp_path / "missing.json"), "--out", str(tmp_path)], capsys)
    assert code == 2 and "Cannot read the LoCoMo file" in err
    (tmp_path / "answers.json").write_text("{not json", "utf-8")
    data = _slice(tmp_path)
    code, err = _eval([str(data), "--out", str(tmp_path), "--limit", "1"], capsys)
    assert code == 2 and "not an answers file" in err and "Traceback" not in err
    assert (tmp_path / "answers.json").read_text("utf-8") == "{not json"  # kept as it was


def test_scores_and_chart() -> None:
    assert metrics.token_f1("The dog is Pepper.", "Pepper") == pytest.approx(0.5)
    assert metrics.exact_match("It is Pepper!", "pepper") == 1.0
    assert metrics.exact_match("Peppers", "pepper") == 0.0
    assert metrics.token_f1("她学钢琴", "钢琴") == pytest.approx(2 / 3)
    assert metrics.evidence_recall({1, 2}, [2, 3]) == 0.5
    assert metrics.evidence_recall(set(), [2]) is None
    canvas = chart.bars([[1.0, 0.0], [0.5, None]])
    bottom = chart.MARGIN + chart.HEIGHT - 1
    x = chart.MARGIN + chart.GAP // 2 + 1
    pixel = canvas.pixels[3 * (bottom * canvas.width + x) : 3 * (bottom * canvas.width + x) + 3]
    assert tuple(pixel) == chart.COLOURS[0]
    top = 3 * (chart.MARGIN * canvas.width + x)
    assert tuple(canvas.pixels[top : top + 3]) == chart.COLOURS[0]  # a full bar reaches the top
