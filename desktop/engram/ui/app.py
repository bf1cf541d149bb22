"""Desktop app start-up: the QApplication, style, and the main window shown before models load."""

from __future__ import annotations

import sys

from engram.core import log, settings


def run(argv: list[str]) -> int:
    from PySide6.QtWidgets import QApplication

    from engram.ui.main_window import MainWindow

    log.setup()
    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    app.setApplicationName("Engram")
    window = MainWindow(settings.load())
    window.show()
    return int(app.exec())
