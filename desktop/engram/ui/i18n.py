"""The UI language: English (the source strings) or 简体中文, loaded from Qt translation files.

The language comes from the settings; "system" is resolved by
:func:`engram.core.prompts.for_setting`, the one rule the prompts follow too, so the window and
the answers agree. Changing it in
Settings switches the translators at once (:func:`switch`); Qt then sends every widget a
LanguageChange event and each window retranslates itself.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import as_file
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QLibraryInfo, QTranslator
from PySide6.QtGui import QFontDatabase

from engram.core import log, prompts, resources

_log = log.get("ui.i18n")
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}
_SCRIPTS = {
    "en": QFontDatabase.WritingSystem.Latin,
    "zh_CN": QFontDatabase.WritingSystem.SimplifiedChinese,
}


def resolve(setting: str) -> str:
    """ "en" or "zh_CN"; "system" picks Chinese on a Chinese desktop, English elsewhere (the
    prompts' rule, :func:`engram.core.prompts.for_setting`)."""
    return prompts.for_setting(setting)


def install(app: QCoreApplication, setting: str) -> list[QTranslator]:
    """Install Engram's and Qt's own translators for the chosen language; return them."""
    language = resolve(setting)
    if language == "en":
        return []
    engram = QTranslator(app)
    with as_file(resources.path("translations", f"engram_{language}.qm")) as qm:
        if not engram.load(str(qm)):
            _log.warning("translation %s could not be loaded; showing English", qm)
            return []
    installed = [engram]
    qt = QTranslator(app)
    if qt.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        installed.append(qt)
    for translator in installed:
        app.installTranslator(translator)
    return installed


def uninstall(app: QCoreApplication, translators: list[QTranslator]) -> None:
    """Back to English (used when rendering both languages in one process)."""
    for translator in translators:
        app.removeTranslator(translator)
        translator.deleteLater()


def switch(
    app: QCoreApplication, translators: list[QTranslator], setting: str
) -> list[QTranslator]:
    """Replace the installed translators with those of ``setting``; return the new ones."""
    uninstall(app, translators)
    return install(app, setting)


# A text shown to the user: already translated, or made again in the current language on demand.
Text = str | Callable[[], str]


def said(text: Text) -> str:
    """The text in the current language (a callable is asked again)."""
    return text() if callable(text) else text


class Retranslating:
    """For a widget class (listed before the Qt class): :meth:`retranslate` sets every text
    it shows; it runs again on each language change, when Qt's LanguageChange event reaches the
    widget (Settings → Language sends it to every widget at once)."""

    def retranslate(self) -> None:
        """Set the widget's texts in the current language (called again on a change)."""

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        parent: Any = super()
        parent.changeEvent(event)


def has_font(language: str) -> bool:
    """Is a font installed that writes ``language`` ("en" or "zh_CN")?"""
    return bool(QFontDatabase.families(_SCRIPTS[language]))
