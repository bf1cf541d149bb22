"""The UI language: English (the source strings) or 简体中文, loaded from Qt translation files.

The language is chosen at start-up from the settings ("system" follows the desktop's locale);
changing it in Settings takes effect on the next start.
"""

from __future__ import annotations

from importlib.resources import as_file

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from engram.core import log, resources

_log = log.get("ui.i18n")
LANGUAGES = {"en": "English", "zh_CN": "简体中文"}


def resolve(setting: str) -> str:
    """ "en" or "zh_CN"; "system" picks Chinese on a Chinese desktop, English elsewhere."""
    if setting in LANGUAGES:
        return setting
    return "zh_CN" if QLocale.system().language() == QLocale.Language.Chinese else "en"


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
