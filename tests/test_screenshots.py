"""``engram screenshots``: every window renders in both languages, readable, CJK included."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from engram.ui import screenshots


def _distinct_colours(image: QImage) -> int:
    step = 7
    return len(
        {
            image.pixel(x, y)
            for x in range(0, image.width(), step)
            for y in range(0, image.height(), step)
        }
    )


@pytest.mark.slow
@pytest.mark.usefixtures("cjk_font")
def test_main_window_renders_in_english_and_chinese(
    qapp: QApplication, tmp_path: Path, starter_models: Path
) -> None:
    written = screenshots.render(tmp_path)
    windows = (
        "main-window", "chat-details", "memory-browser", "settings", "model-manager",
        "first-run", "settings-answers", "settings-tools",
    )  # fmt: skip
    assert [p.name for p in written] == [
        f"{window}-{language}.png" for language in ("en", "zh_CN") for window in windows
    ]
    for path in written:
        image = QImage(str(path))
        assert image.width() >= 700 and image.height() >= 500
        assert _distinct_colours(image) > 20  # text and widgets, not a blank frame
    assert QImage(str(written[0])) != QImage(str(written[len(windows)]))
