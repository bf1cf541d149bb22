"""Desktop app start-up: QApplication, crash handler, and a window shown before models load."""

from __future__ import annotations

import sys

from engram.core import log, settings


def run(argv: list[str]) -> int:
    from PySide6.QtWidgets import QApplication

    from engram.ui import theme
    from engram.ui.crash import CrashReporter
    from engram.ui.main_window import MainWindow

    log.setup()
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setApplicationName("Engram")
    prefs = settings.load()
    theme.apply(app, prefs.theme)
    reporter = CrashReporter()
    reporter.install()
    window = MainWindow(prefs)
    window.show()
    return int(app.exec())
