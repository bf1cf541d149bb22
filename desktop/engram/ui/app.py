"""Desktop app start-up: QApplication, crash handler, and a window shown before models load."""

from __future__ import annotations

import sys

from engram.core import log, settings


def run(argv: list[str]) -> int:
    from PySide6.QtWidgets import QApplication

    from engram.ui import i18n, theme
    from engram.ui.crash import CrashReporter
    from engram.ui.main_window import MainWindow

    log.setup()
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0], *argv])
    app.setApplicationName("Engram")
    prefs = settings.load()
    i18n.install(app, prefs.language)
    theme.apply(app, prefs.theme)
    reporter = CrashReporter()
    reporter.install()
    window = MainWindow(prefs)
    window.show()
    return int(app.exec())
