"""What `engram eval` writes besides the answers: the chart, the report, the progress bar."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engram.cli.eval import ProgressBar
from engram.core.atomic import atomic_write_bytes
from engram.evaluation import chart, metrics, report


def _chart(title: str = "F1 per condition and category") -> chart.Chart:
    return chart.Chart(
        title,
        ["all", "category 5\nunanswerable"],
        ["1. small, recent turns", "2. small + memory (raw messages)"],
        [[1.0, 0.5], [0.0, None]],
        subtitle="engram eval: test",
    )


def _pixels(image: Image.Image) -> dict[tuple[int, int, int], int]:
    return {colour: n for n, colour in image.convert("RGB").getcolors(1 << 20) or []}


def test_chart_bars_follow_the_values_and_the_text_fits(tmp_path: Path) -> None:
    path = tmp_path / "chart.png"
    chart.write(path, _chart())
    with Image.open(path) as image:
        assert image.format == "PNG"
        pixels = _pixels(image)
        width, height = image.size
    # A colour fills its bars (value x plot height) and its legend swatch; grey text edges may
    # share the grey of the first series, so that one is counted with a little room.
    swatch, full = chart.SWATCH**2, chart.BAR * chart.PLOT_HEIGHT
    assert full + swatch <= pixels[chart.COLOURS[0]] < full + swatch + chart.BAR  # 1.0 and 0.0
    assert pixels[chart.COLOURS[1]] == full // 2 + swatch  # 0.5 and None
    assert sum(n for c, n in pixels.items() if max(c) < 100) > 500  # title, ticks, labels, values
    assert height > chart.PLOT_HEIGHT + 100  # title above, labels and legend below the plot
    longer = chart.render(_chart("A much longer title " * 6))
    assert longer.width > width  # the chart widens to fit the title
    with Image.open(path) as image:
        top = image.convert("RGB").crop((0, 0, width, chart.PAD + 4))
        assert set(_pixels(top)) == {chart.WHITE}  # nothing drawn into the margin


def test_binary_atomic_write_keeps_the_old_file_on_failure(tmp_path: Path) -> None:
    path = tmp_path / "out" / "file.bin"
    with atomic_write_bytes(path) as handle:
        handle.write(b"\x89PNG old")
    with pytest.raises(RuntimeError), atomic_write_bytes(path) as handle:
        handle.write(b"half of it")
        raise RuntimeError("disk full")
    assert path.read_bytes() == b"\x89PNG old"
    assert [p.name for p in path.parent.iterdir()] == ["file.bin"]  # no temporary file left


def _record(category: int, f1: float, **extra: Any) -> dict[str, Any]:
    return {"category": category, "f1": f1, "exact": float(f1 == 1.0), **extra}


def test_report_columns_follow_what_was_measured() -> None:
    plain = report.markdown({"recent": [_record(4, 1.0), _record(5, 0.0)]}, "t")
    assert "| judge |" not in plain and "judge per category" not in plain
    assert "no question with a plan step" in plain
    row = next(line for line in plain.splitlines() if line.startswith("| 1. small"))
    header = next(line for line in plain.splitlines() if line.startswith("| condition | n |"))
    column = [c.strip() for c in header.split("|")].index("plan adherence")
    assert row.split("|")[column].strip() == "–"
    judged = {
        "recent": [
            _record(4, 1.0, judge=1.0),
            _record(1, 0.2, judge=1.0, plan_adherence=1.0, plan_method="lexical"),
        ],
        "consolidated": [_record(4, 1.0, judge=1.0), _record(1, 0.0, judge=0.0)],
    }
    text = report.markdown(judged, "t")
    assert "| condition | n | F1 | exact | judge |" in text and "judge per category:" in text
    assert "Memory gain (3 − 1): -10.0 F1 points, -50.0 judge points." in text
    # 4 verdicts: 3 agree with exact match (the judge accepted the 0.2); chance explains half.
    assert "4 verdicts, 75% correct; it agrees with exact match on 75% (κ 0.50)" in text
    assert "lexical proxy" in text and "(1)" in text


def test_agreement_beyond_chance() -> None:
    assert metrics.agreement([(1, 1), (0, 0), (1, 1), (0, 0)]) == (1.0, 1.0)
    share, kappa = metrics.agreement([(0, 0)] * 9 + [(0, 1)])  # a judge that always says no
    assert share == 0.9 and kappa == 0.0
    assert metrics.agreement([(1, 1), (1, 1)]) == (1.0, None)  # nothing to tell apart


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    clock = iter([100.0, 110.0, 130.0])
    screen = Terminal()
    bar = ProgressBar(screen, clock=lambda: next(clock))
    bar(2, 10, "resuming")  # two were done before: the time left counts from here
    bar(3, 10, "s/0 recent")
    bar(4, 10, "s/0 episodes")
    bar.close()
    shown = screen.getvalue().split("\r\x1b[K")
    assert shown[1].startswith("[####----") and "2/10 ETA --" in shown[1]
    assert "3/10 ETA 1m10s  s/0 recent" in shown[2]  # 10 s for one, seven to go
    assert shown[3].startswith("[#########-") and "4/10 ETA 1m30s" in shown[3]
    assert shown[3].endswith("s/0 episodes\n")

    lines = io.StringIO()
    plain = ProgressBar(lines)
    plain(1, 4, "s/0 recent: f1 0.50")
    plain.close()
    assert lines.getvalue() == "[1/4] s/0 recent: f1 0.50\n"
