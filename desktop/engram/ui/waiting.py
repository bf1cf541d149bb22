"""What an answer is waiting for, shown in its bubble until its first words: a moving bar, the
stage (reading memories, loading the large model, reading the prompt, running a tool) and the
seconds it has taken so far. Never a blank bubble."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from engram.ui.i18n import Retranslating, Text, said

TICK_MS = 1000
SECONDS_SHOWN_AFTER = 2  # a wait shorter than this shows no count


class WaitingLine(Retranslating, QWidget):
    """A busy bar, what is happening and for how long (a percentage when it is known)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("waiting_line")
        self.bar = QProgressBar()
        self.bar.setObjectName("waiting_bar")
        self.bar.setRange(0, 0)  # busy: nothing says how far along the stage is
        self.bar.setTextVisible(False)
        self.bar.setFixedSize(56, 6)
        self.stage = QLabel()
        self.stage.setObjectName("waiting_stage")
        self.stage.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(8)
        layout.addWidget(self.bar)
        layout.addWidget(self.stage, 1)
        self._text: Text = ""
        self._share: float | Callable[[], float | None] | None = None
        self._since = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self.retranslate)
        self._timer.start()

    def set_stage(
        self, text: Text, share: float | Callable[[], float | None] | None = None
    ) -> None:
        """Say what the answer waits for now (``share``: how far along, 0..1, when known; a
        callable is asked again each second)."""
        self._text, self._share = text, share
        self.retranslate()

    def _show_share(self) -> None:
        share = self._share() if callable(self._share) else self._share
        if share is None:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, 100)
            self.bar.setValue(round(max(0.0, min(1.0, share)) * 100))

    def elapsed(self) -> float:
        """Seconds since the message was sent."""
        return time.monotonic() - self._since

    def retranslate(self) -> None:
        """The stage in the current language, with the seconds waited so far."""
        self._show_share()
        text = said(self._text)
        seconds = int(self.elapsed())
        if seconds >= SECONDS_SHOWN_AFTER:
            text = self.tr("{stage} · {seconds} s").format(stage=text, seconds=seconds)
        self.stage.setText(text)
        self.setAccessibleName(text)

    def stop(self) -> None:
        self._timer.stop()
