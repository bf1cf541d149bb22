"""Fetching the starter models from the window: a progress dialog over a worker thread.

The same fetch as ``engram models fetch-starter``
(:func:`engram.assistant.model_admin.fetch_starter`), run on a
:class:`~engram.ui.threads.Worker`; Cancel stops it between chunks and leaves nothing behind.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QProgressBar, QVBoxLayout, QWidget

from engram.assistant import model_admin as models
from engram.assistant.model_admin import DownloadCancelledError, Progress
from engram.core.cancel import CancelToken
from engram.core.errors import Problem
from engram.ui import errors
from engram.ui.labels import human_bytes
from engram.ui.threads import Worker, stop_thread, worker_slot, worker_thread


class StarterFetcher(Worker):
    """Runs the starter fetch on its thread and reports by signals."""

    progress = Signal(object)  # Progress
    done = Signal()
    cancelled = Signal()

    def __init__(self, index: str | None = None) -> None:
        super().__init__()
        self.index = index  # None: pip's index setting, else pypi.org
        self.token = CancelToken()

    @worker_slot()
    def fetch(self) -> None:
        try:
            models.fetch_starter(
                report=lambda _line: None,
                progress=self.progress.emit,
                cancel=self.token,
                index=self.index,
            )
        except DownloadCancelledError:
            self.cancelled.emit()
            return
        self.done.emit()


class StarterDialog(QDialog):
    """Downloads the starter models with a progress bar; accepted when they are installed."""

    fetch_requested = Signal()
    shutdown_requested = Signal()

    def __init__(self, parent: QWidget | None = None, index: str | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Download the starter models"))
        self.label = QLabel(self.tr("Connecting to the Python package index…"))
        self.label.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setObjectName("notice")
        self.problem.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.resize(460, 0)
        self.fetcher = StarterFetcher(index)
        self._thread = worker_thread(self, self.fetcher, "engram-starter-fetch")
        queued = Qt.ConnectionType.QueuedConnection
        self.fetcher.progress.connect(self._on_progress, queued)
        self.fetcher.done.connect(self._on_done, queued)
        self.fetcher.failed.connect(self._on_failed, queued)
        self.fetch_requested.connect(self.fetcher.fetch, queued)
        self.shutdown_requested.connect(self.fetcher.shutdown, queued)
        self._thread.start()

    def start(self) -> None:
        """Begin the download (the dialog shows its progress)."""
        self.fetch_requested.emit()

    def _on_progress(self, p: Progress) -> None:
        self.bar.setValue(int(p.fraction * 1000))
        self.label.setText(
            self.tr("Downloading {name}: {done} of {total}").format(
                name=p.model_id, done=human_bytes(p.done), total=human_bytes(p.total)
            )
        )

    def _on_done(self) -> None:
        self.bar.setValue(1000)
        self._stop()
        self.accept()

    def _on_failed(self, problem: Problem) -> None:
        self.problem.setText(errors.text(problem))
        self.problem.show()
        self.buttons.setStandardButtons(QDialogButtonBox.StandardButton.Close)

    def reject(self) -> None:
        """Cancel: the fetch stops at its next chunk and the dialog closes."""
        self.fetcher.token.cancel()
        self._stop()
        super().reject()

    def _stop(self) -> None:
        self.fetcher.token.cancel()
        stop_thread(self._thread, self.shutdown_requested)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        self._stop()
        super().closeEvent(event)
