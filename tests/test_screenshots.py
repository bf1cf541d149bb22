"""``engram screenshots``: every window renders in both languages, readable, CJK included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QWidget

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
    qapp: QApplication, tmp_path: Path, starter_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: dict[str, list[object]] = {}
    save = screenshots._save

    def look(widget: QWidget, path: Path) -> Path:
        """What each shot shows, read from its widgets just before it is saved."""
        shot = path.stem.rsplit("-", 1)[0]  # without the language
        if shot == "first-run":
            checks.setdefault(shot, []).append(widget.sidebar.chat_items())  # type: ignore[attr-defined]
        elif shot == "chat-details":
            chips = widget.chat.bubbles()[-1].chips  # type: ignore[attr-defined]
            checks.setdefault(shot, []).append([item.content for item in chips.items])
            toast = widget.notice.label.text()  # type: ignore[attr-defined]
            checks.setdefault("learned-links", []).append(re.findall(r'href="(\w+)"', toast))
        elif shot == "settings-tools":
            bar = widget.tools_page.verticalScrollBar()  # type: ignore[attr-defined]
            checks.setdefault(shot, []).append(bar.value() - bar.minimum())
        return save(widget, path)

    monkeypatch.setattr(screenshots, "_save", look)
    written = screenshots.render(tmp_path)
    assert checks["first-run"] == [[], []]  # a fresh home: no chats in the sidebar
    assert checks["learned-links"] == [["manage", "undo_learning"]] * 2  # as the app offers
    assert checks["settings-tools"] == [0, 0]  # the Tools page from its top
    for language, recalled in zip(("en", "zh_CN"), checks["chat-details"], strict=True):
        conversations, learned = screenshots.SAMPLES[language]
        assert len(recalled) == 10 and len(set(recalled)) == 10  # ten distinct memories
        assert set(recalled) == {content for _kind, content, *_ in learned}
        assert not set(recalled) & {title for title, _ in conversations}  # no titles as facts
    windows = (
        "main-window", "chat-details", "memory-browser", "settings", "model-manager",
        "model-manager-search",
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
