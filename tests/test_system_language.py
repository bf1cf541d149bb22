"""One rule for the "system" language: the window (``ui.i18n``) and the prompts
(``core.prompts``) read the desktop's language the same way, from the environment as it is now."""

from __future__ import annotations

import pytest

from engram.core import prompts
from engram.ui import i18n

CLEARED = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")


@pytest.mark.parametrize(
    ("variable", "value", "language"),
    [
        ("LANG", "zh_CN.UTF-8", "zh_CN"),
        ("LANG", "en_US.UTF-8", "en"),
        ("LC_ALL", "zh_CN.UTF-8", "zh_CN"),
        ("LC_ALL", "en_US.UTF-8", "en"),
    ],
)
def test_the_window_and_the_prompts_agree_on_the_system_language(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, language: str
) -> None:
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, value)
    assert prompts.for_setting("system") == language
    assert i18n.resolve("system") == language


def test_lc_all_overrides_lang_and_a_chosen_language_overrides_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in CLEARED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    assert prompts.for_setting("system") == i18n.resolve("system") == "zh_CN"
    monkeypatch.setenv("LC_ALL", "C")
    assert prompts.for_setting("system") == i18n.resolve("system") == "en"
    for setting in ("en", "zh_CN"):
        assert prompts.for_setting(setting) == i18n.resolve(setting) == setting
