"""Desktop app start-up: QApplication, crash handler, and a window shown before models load."""

from __future__ import annotations

import sys
from importlib.resources import as_file

from engram.core import log, resources, settings


def run(argv: list[str]) -> int:
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from engram.ui import theme
    from engram.ui.appearance import Appearance
    from engram.ui.crash import CrashReporter
    from engram.ui.heap_settler import HeapSettler
    from engram.ui.main_window import MainWindow

    log.setup()
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0], *argv])
    app.setApplicationName("Engram")
    with as_file(resources.path("icons", "engram.svg")) as icon:
        app.setWindowIcon(QIcon(str(icon)))
    store = settings.SettingsStore.load()  # the one owner of the settings while the app runs
    follower = Appearance(app, store)
    theme.apply(app, store.current.theme)
    reporter = CrashReporter()
    reporter.install()
    window = MainWindow(store)
    follower.setParent(window)
    settler = HeapSettler(window)  # start-up is over once the models are in
    window.worker.loaded.connect(settler.settle)
    window.show()
    quit_after = _quit_after(argv)
    if quit_after is not None:  # for smoke tests and start-up benchmarks
        from PySide6.QtCore import QTimer

        QTimer.singleShot(quit_after, window.close)
    return int(app.exec())


def _quit_after(argv: list[str]) -> int | None:
    """Milliseconds from ``--quit-after MS`` (close the window after that long), else None."""
    if "--quit-after" in argv:
        index = argv.index("--quit-after")
        if index + 1 < len(argv) and argv[index + 1].isdigit():
            return int(argv[index + 1])
    return None
