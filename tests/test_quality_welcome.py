"""The welcome panel says which model answers and why (the quality check's result, in English
and Chinese), and runs the check in the background once a decode speed was measured, making its
choice the answering model."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QScrollArea
from pytestqt.qtbot import QtBot

from engram.core import settings
from engram.models import catalogue, quality, starter
from engram.ui.welcome import WelcomePanel

SMALL, LARGE = "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct"


@pytest.fixture
def checked(starter_models: Path) -> None:
    """Both starter models installed and checked on this machine (1.5B: 9/16 at 11 tokens/s;
    0.5B: 4/16 at 25)."""
    cat = catalogue.load()
    starter.fetch([cat.get(SMALL), cat.get(LARGE)], report=lambda _line: None)
    quality.keep(cat.get(SMALL), quality.Result(SMALL, 4, 16, 25.0, 60.0))
    quality.keep(cat.get(LARGE), quality.Result(LARGE, 9, 16, 11.0, 90.0))


REASON = (
    "Answers with Qwen2.5 Coder 1.5B Instruct (Q4_K_M): 9/16 on the quality check at "
    "11 tokens/s; Qwen2.5 Coder 0.5B Instruct (Q4_K_M) scored 4/16."
)


@pytest.mark.usefixtures("checked")
def test_the_panel_says_which_model_answers_and_why_in_both_languages(qtbot: QtBot) -> None:
    store = settings.SettingsStore(settings.Settings(language="en"))  # the 0.5B answers
    panel = WelcomePanel(store, QScrollArea(), lambda: pytest.fail("no manager"))
    qtbot.addWidget(panel)
    panel.model_settled()  # no speed measured: the pair stands on the cores' estimate
    qtbot.waitUntil(lambda: not panel.checking.isVisibleTo(panel), timeout=10_000)
    assert not panel.answering.isVisibleTo(panel)  # the 1.5B does not answer yet: offered
    assert panel.offer_label.text().endswith(REASON) and panel.offer_button.text() == "Use them"
    store.choose_models(small=LARGE, large=LARGE)
    qtbot.waitUntil(lambda: panel.answering.isVisibleTo(panel), timeout=10_000)
    assert panel.answering.text() == REASON
    store.update(language="zh_CN")
    qtbot.waitUntil(
        lambda: panel.answering.text().startswith("用 Qwen2.5 Coder 1.5B"), timeout=10_000
    )
    assert "质量检查 9/16" in panel.answering.text() and "4/16" in panel.answering.text()
    panel.stop()


@pytest.mark.usefixtures("checked")
def test_once_a_speed_is_measured_the_check_runs_and_its_choice_answers(qtbot: QtBot) -> None:
    store = settings.SettingsStore(settings.Settings(language="en"))
    panel = WelcomePanel(store, QScrollArea(), lambda: pytest.fail("no manager"))
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel._facts is not None, timeout=10_000)
    assert store.current.small_model == SMALL  # the current default stands meanwhile
    panel.speed_measured.emit()
    qtbot.waitUntil(lambda: store.current.small_model == LARGE, timeout=20_000)
    assert store.current.large_model == LARGE  # learning at least as capable, one model
    qtbot.waitUntil(lambda: panel._quality is None, timeout=10_000)
    store.choose_models(small=SMALL)  # the user goes back: the check does not undo it
    panel.speed_measured.emit()
    qtbot.wait(300)
    assert store.current.small_model == SMALL and panel._quality is None
    panel.stop()


def test_a_model_the_user_chose_is_never_checked_over(qtbot: QtBot, starter_models: Path) -> None:
    store = settings.SettingsStore(settings.load())  # the tests' tiny model, chosen
    panel = WelcomePanel(store, QScrollArea(), lambda: pytest.fail("no manager"))
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel._facts is not None, timeout=10_000)
    panel.speed_measured.emit()
    assert panel._quality is None and not panel.answering.isVisibleTo(panel)
    panel.stop()
