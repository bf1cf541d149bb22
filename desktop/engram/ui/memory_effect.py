""" "What does memory add?": the short check of :func:`engram.evaluation.app.memory_effect`, run
from the model manager on a worker thread, with a progress bar, Cancel and a chart of the result.

The check answers the first tests of the shipped task set of the window's language (with the
tasks that teach them) twice with the user's own models: without memory, and with what Engram
learns from the teaching tasks, lessons included. It runs in a temporary folder that is removed
when it ends or is cancelled; the user's memories are never read or written. The chart draws the
share of tests passed per kind, without memory against with what was learned, in the theme's
colours and the window's fonts (Chinese included), which the report's Pillow chart cannot.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QEvent,
    QObject,
    QRectF,
    QSize,
    Qt,
    QThread,
    Signal,
)
from PySide6.QtGui import QCloseEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from engram.core.cancel import CancelToken
from engram.core.errors import Problem
from engram.core.settings import Settings
from engram.evaluation.app import EFFECT_CONDITIONS, EFFECT_TESTS, Effect, EffectStep, memory_effect
from engram.ui import errors, i18n
from engram.ui.i18n import Retranslating
from engram.ui.threads import Worker, start_worker, stop_thread, worker_slot

WITHOUT, WITH = EFFECT_CONDITIONS
# The shipped sets' kinds, as the chart names them (any other kind is shown as it is).
KINDS = {
    "units": QT_TRANSLATE_NOOP("MemoryEffect", "units"),
    "format": QT_TRANSLATE_NOOP("MemoryEffect", "format"),
    "tools": QT_TRANSLATE_NOOP("MemoryEffect", "tools"),
    "preferences": QT_TRANSLATE_NOOP("MemoryEffect", "preferences"),
    "plan": QT_TRANSLATE_NOOP("MemoryEffect", "plan"),
}


class EffectWorker(Worker):
    """Runs the short check on its thread; says where it is and what it found."""

    stepped = Signal(object)  # EffectStep
    measured = Signal(object)  # Effect, or None: cancelled

    def __init__(self, cancel: CancelToken) -> None:
        super().__init__()
        self.cancel = cancel

    @worker_slot(str, int)
    def run(self, language: str, tests: int) -> None:
        self.measured.emit(memory_effect(language, self.stepped.emit, self.cancel, tests))


class EffectChart(QWidget):
    """Bars of the share of tests passed, all and per kind: without memory (muted) against with
    what was learned (the accent colour), each with "passed/tests" above it."""

    BAR, GAP, GROUP_GAP, PAD, PLOT = 26, 4, 22, 8, 150

    def __init__(self) -> None:
        super().__init__()
        self.effect: Effect | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def show_effect(self, effect: Effect) -> None:
        self.effect = effect
        self.updateGeometry()
        self.update()

    def groups(self) -> list[tuple[str, str | None]]:
        """(label, kind) of each group: all the tests, then each kind in file order."""
        if self.effect is None:
            return []
        kinds = [
            (QCoreApplication.translate("MemoryEffect", str(KINDS[k])) if k in KINDS else k, k)
            for k in self.effect.kinds
        ]
        return [(QCoreApplication.translate("MemoryEffect", "all"), None), *kinds]

    def _legend(self) -> list[str]:
        return [
            QCoreApplication.translate("MemoryEffect", "without memory"),
            QCoreApplication.translate("MemoryEffect", "with what it learned"),
        ]

    def _slot(self) -> int:
        """The width of one group: its two bars, or its label, whichever is wider."""
        metrics = self.fontMetrics()
        labels = [metrics.horizontalAdvance(g) + 10 for g, _ in self.groups()]
        return max(2 * self.BAR + self.GAP + self.GROUP_GAP, *labels)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API): every group and label shows
        metrics = self.fontMetrics()
        legend = sum(14 + metrics.horizontalAdvance(n) + 18 for n in self._legend())
        width = max(self._slot() * len(self.groups()), legend) + 2 * self.PAD
        return QSize(width, self.PLOT + 3 * metrics.height() + 2 * self.PAD + 20)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return self.minimumSizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        if self.effect is None:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        colours = (
            palette.color(QPalette.ColorRole.PlaceholderText),
            palette.color(QPalette.ColorRole.Link),
        )
        metrics = painter.fontMetrics()
        line = metrics.height()
        top = self.PAD + line + 4
        bottom = top + self.PLOT
        groups, slot = self.groups(), self._slot()
        width = 2 * self.BAR + self.GAP
        left = max(self.PAD, (self.width() - slot * len(groups)) // 2)
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        painter.drawLine(left, bottom, left + slot * len(groups), bottom)
        for g, (label, kind) in enumerate(groups):
            x = left + g * slot + (slot - width) // 2
            for s, condition in enumerate((WITHOUT, WITH)):
                passed, tests = self.effect.passed(condition, kind)
                height = round((bottom - top) * passed / tests) if tests else 0
                bar = QRectF(x + s * (self.BAR + self.GAP), bottom - height, self.BAR, height)
                painter.fillRect(bar, colours[s])
                painter.setPen(text)
                above = QRectF(bar.left() - 10, bar.top() - line - 2, self.BAR + 20, line)
                painter.drawText(above, Qt.AlignmentFlag.AlignCenter, f"{passed}/{tests}")
            painter.setPen(text)
            under = QRectF(left + g * slot, bottom + 4, slot, line)
            painter.drawText(under, Qt.AlignmentFlag.AlignCenter, label)
        x, y = left, bottom + line + 16
        for s, name in enumerate(self._legend()):
            painter.fillRect(QRectF(x, y + (line - 10) / 2, 10, 10), colours[s])
            painter.setPen(text)
            painter.drawText(x + 14, y + metrics.ascent(), name)
            x += 14 + metrics.horizontalAdvance(name) + 18
        painter.end()


class MemoryEffectDialog(Retranslating, QDialog):
    """Says what the check does, runs it on Start with its progress, stops it on Cancel (or when
    the dialog or its window closes) and shows the chart and what it means."""

    run_requested = Signal(str, int)
    shutdown_requested = Signal()

    def __init__(
        self,
        settings: Settings,
        command: str,
        parent: QWidget | None = None,
        tests: int = EFFECT_TESTS,
    ) -> None:
        """``command``: the terminal command of the full measurement; ``tests``: how many
        tests the short check answers (each with the tasks that teach it)."""
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.language = "zh" if i18n.resolve(settings.language) == "zh_CN" else "en"
        self.command, self.tests = command, tests
        self.effect: Effect | None = None
        self._step: EffectStep | None = None
        self._cancel: CancelToken | None = None
        self.worker: EffectWorker | None = None  # kept: the thread deletes it when it ends
        self.thread_: QThread | None = None
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.chart = EffectChart()
        self.chart.hide()
        self.meaning = QLabel()
        self.meaning.setWordWrap(True)
        self.meaning.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.meaning.hide()
        self.buttons = QDialogButtonBox()
        self.start_button = QPushButton()
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton()
        self.close_button = QPushButton()
        self.buttons.addButton(self.start_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.close_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.close_button.clicked.connect(self.close)
        self.cancel_button.hide()
        layout = QVBoxLayout(self)
        for widget in (self.about, self.bar, self.status, self.chart, self.meaning):
            layout.addWidget(widget)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.resize(620, 0)
        if parent is not None:  # its window closing stops the check too
            parent.window().installEventFilter(self)
        self.retranslate()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("What does memory add?"))
        self.about.setText(
            self.tr(
                "Engram answers the first {tests} tests of its task set, each with the tasks that"
                " teach it, twice with your models: without memory, and with what it learns from"
                " the teaching tasks (lessons included). It uses a temporary folder: your"
                " memories are not touched. This takes a few minutes to half an hour; you can"
                " cancel at any time.\n\nThe full measurement (40 tasks, four conditions, about"
                " an hour) runs in a terminal:\n{command}"
            ).format(tests=self.tests, command=self.command)
        )
        self.start_button.setText(self.tr("Start"))
        self.cancel_button.setText(self.tr("Cancel"))
        self.close_button.setText(self.tr("Close"))
        self._show_step()
        self._show_meaning()
        self._fit()

    def _fit(self) -> None:
        """Tall enough for its wrapped texts and the chart at its width (they come and go)."""
        layout = self.layout()
        assert layout is not None  # made in __init__
        layout.activate()
        height = layout.totalHeightForWidth(self.width())
        if height > self.height():
            self.resize(self.width(), height)

    def running(self) -> bool:
        return self._cancel is not None

    def start(self) -> None:
        """Run the check on a worker thread of its own."""
        if self.running():
            return
        self._cancel = CancelToken()
        self.effect = None
        self.chart.hide()
        self.meaning.hide()
        self.start_button.hide()
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        self.bar.show()
        self.bar.setRange(0, 0)
        self.status.show()
        worker = EffectWorker(self._cancel)
        self.worker, self.thread_ = start_worker(
            self,
            worker,
            "engram-memory-effect",
            (
                (self.run_requested, worker.run),
                (self.shutdown_requested, worker.shutdown),
                (worker.stepped, self._on_step),
                (worker.measured, self._on_measured),
                (worker.failed, self._on_failed),
            ),
        )
        self._on_step(EffectStep(""))
        self.run_requested.emit(self.language, self.tests)
        self._fit()

    def cancel(self) -> None:
        """Stop the check: the answer or the learning under way stops within a token."""
        if self._cancel is None:
            return
        self._cancel.cancel()
        self.cancel_button.setEnabled(False)
        self.status.setText(self.tr("Stopping…"))

    def _on_step(self, step: EffectStep) -> None:
        self._step = step
        if step.total:
            self.bar.setRange(0, step.total)
            self.bar.setValue(step.done)
        self._show_step()

    def _show_step(self) -> None:
        step = self._step
        if step is None or not self.running():
            return
        if self._cancel is not None and self._cancel.cancelled:
            self.status.setText(self.tr("Stopping…"))
        elif not step.condition:
            self.status.setText(self.tr("Loading your models…"))
        elif step.condition == WITHOUT:
            template = (
                self.tr("Teaching task {number} of {count}, without memory")
                if step.teaching
                else self.tr("Test {number} of {count}, without memory")
            )
            self.status.setText(template.format(number=step.number, count=step.count))
        else:
            template = (
                self.tr("Teaching task {number} of {count}, with memory: answering, then learning")
                if step.teaching
                else self.tr("Test {number} of {count}, with memory")
            )
            self.status.setText(template.format(number=step.number, count=step.count))

    def _on_measured(self, effect: Effect | None) -> None:
        self.effect = effect
        self._finish()
        if effect is None:
            self.status.setText(self.tr("Stopped. Nothing was kept."))
            return
        self.status.hide()
        self.chart.show_effect(effect)
        self.chart.show()
        self.meaning.show()
        self._show_meaning()
        self._fit()

    def _show_meaning(self) -> None:
        effect = self.effect
        if effect is None:
            return
        without, tests = effect.passed(WITHOUT)
        learned, _ = effect.passed(WITH)
        if learned > without:
            said = self.tr(
                "With what it learned, Engram passed {learned} of {tests} tests, and {without}"
                " without memory: memory helped on this short check."
            )
        elif learned == without:
            said = self.tr(
                "With what it learned, Engram passed {learned} of {tests} tests, and {without}"
                " without memory: memory made no difference on this short check."
            )
        else:
            said = self.tr(
                "With what it learned, Engram passed {learned} of {tests} tests, and {without}"
                " without memory: memory did not help on this short check."
            )
        self.meaning.setText(
            said.format(learned=learned, tests=tests, without=without)
            + "\n"
            + self.tr(
                "{tests} tests are few: a difference of one or two can be chance. The command"
                " above measures the whole set."
            ).format(tests=tests)
        )

    def _on_failed(self, problem: Problem) -> None:
        self._finish()
        self.status.setText(errors.text(problem))

    def _finish(self) -> None:
        """The check ended (done, cancelled or failed): its thread goes, Start comes back."""
        self._cancel = None
        self._stop_thread()
        self.bar.hide()
        self.cancel_button.hide()
        self.start_button.show()
        self.start_button.setText(self.tr("Run again") if self.effect else self.tr("Start"))

    def _stop_thread(self) -> None:
        if self.thread_ is not None:
            stop_thread(self.thread_, self.shutdown_requested)
            self.thread_ = None

    def stop(self) -> None:
        """Cancel a check under way and wait for its thread (the dialog or its window closes)."""
        if self._cancel is not None:
            self._cancel.cancel()
        self._cancel = None
        self._stop_thread()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.Close and self.running():
            self.stop()
        return False

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        self.stop()
        super().closeEvent(event)

    def reject(self) -> None:  # Esc
        self.close()
