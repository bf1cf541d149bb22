"""The one crash handler: a bug anywhere is logged with its traceback and shown as a dialog.

Known problems (EngramError) never get here; they are shown where they happen, with their hint.
"""

from __future__ import annotations

import faulthandler
import sys
import threading
import traceback
from types import TracebackType

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox

from engram.core import log, paths

_log = log.get("crash")


class CrashReporter(QObject):
    """Receives exceptions from any thread and shows them on the UI thread."""

    crashed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.crashed.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self._fault_file = (paths.logs_dir() / "faults.log").open("a", encoding="utf-8")
        faulthandler.enable(self._fault_file)

    def install(self) -> None:
        sys.excepthook = self._hook
        threading.excepthook = self._thread_hook

    def _hook(
        self, kind: type[BaseException], value: BaseException, tb: TracebackType | None
    ) -> None:
        text = "".join(traceback.format_exception(kind, value, tb))
        _log.error("unexpected error:\n%s", text)
        self.crashed.emit(f"{kind.__name__}: {value}")

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        self._hook(args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback)

    def _show(self, summary: str) -> None:
        box = QMessageBox(QApplication.activeWindow())
        box.setIcon(QMessageBox.Icon.Critical)
        box.setWindowTitle(self.tr("Engram hit a bug"))
        box.setText(
            self.tr(
                "Something went wrong inside Engram. Your conversations are saved.\n\n{summary}"
            ).format(summary=summary)
        )
        box.setInformativeText(
            self.tr("The details are in the log file: {path}").format(path=log.log_file())
        )
        open_log = box.addButton(self.tr("Open log"), QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Close)
        box.exec()
        if box.clickedButton() is open_log:
            QDesktopServices.openUrl(QUrl.fromLocalFile(log.log_file()))
