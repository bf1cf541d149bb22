"""The welcome panel of an empty chat: what Engram is, which model answers (the offline starter
pair, or a tiny demo model), the recommended models for this machine (size, time, one click,
progress) and, while no large model of at least 1B parameters is installed, that learning starts
with a larger model.

It also offers the starter download when the starter model is missing. Everything it shows is
set in :meth:`WelcomePanel.refresh`, so a language change retranslates it. What it says is read
(catalogue, machine, the large model's GGUF header: 17-26 ms warm, more from a cold disk) by a
:class:`WelcomeCheck` on a thread of its own that lives while a check is pending; until the first
answer the panel shows a placeholder line. The recommendation is the one the model manager and
``engram models recommend`` show (``model_admin.offer``: on a first start the decode speed is
estimated from the cores, low on purpose); it is worked out again, by the same function,
whenever a decode speed is measured here (the build check's short benchmark at the first load, or
an answer long enough to time), without a restart (read at once while the chat is empty, else
once it is empty again).

Which installed model answers is chosen by the bundled quality check (``model_admin.check_quality``:
each model's score and decode speed here, kept per machine state): while the settings still use
the starter default, the panel runs it in the background once a decode speed was measured (the
first load's benchmark or a timed answer) or the starter models were fetched, never before the
first answer can start; until it finishes the current model stands. Then the panel says which
model answers and why, as the model manager and ``engram models recommend`` do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from PySide6.QtCore import QEvent, QObject, Qt, QThread, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from engram.assistant import model_admin as models
from engram.assistant.model_admin import ModelEntry, Offer, Pair, Progress
from engram.core import log
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError, Problem
from engram.core.settings import Settings, SettingsStore
from engram.ui import errors, i18n, labels
from engram.ui.elided import ElidedLabel
from engram.ui.model_manager import ModelManager
from engram.ui.settings_signals import SettingsSignals
from engram.ui.starter_dialog import StarterDialog
from engram.ui.threads import Worker, start_worker, stop_thread, worker_slot

_log = log.get("ui.welcome")


class Facts(NamedTuple):
    """What the panel says: the offer for this machine, the small model's entry, and why
    learning waits (each None when unknown or nothing to say); the pair the quality check
    chose (``checked``, its reason the check's) and whether the check is still to run here."""

    offer: Offer | None = None
    small: ModelEntry | None = None
    waits: Problem | None = None
    checked: Pair | None = None
    check_pending: bool = False
    measured: bool = False  # the decode speed was measured here (not estimated from the cores)


def check(prefs: Settings) -> Facts:
    """Read the catalogue, the machine and the large model's size (reads its GGUF header)."""
    try:
        cat = models.catalogue()
    except EngramError as exc:  # a broken user catalogue: the window shows the problem
        _log.warning("welcome panel without the catalogue: %s", type(exc).__name__)
        return Facts()
    machine = models.probe(gpu=False)
    offer = models.offer(cat, machine)
    small = next((e for e in cat.models if e.id == prefs.small_model), None)
    try:
        waits = None if prefs.learn_with_small_models else models.learning_problem(prefs, cat)
    except EngramError:  # an unknown or broken large model: the load reports it
        waits = None
    verdict = machine.verdict
    checked = (
        offer.pair if offer and verdict and verdict.chosen.model_id == offer.pair.small else None
    )
    pending = models.quality_pending(prefs, cat)
    return Facts(offer, small, waits, checked, pending, machine.measured)


class QualityRun(Worker):
    """Runs the quality check off the UI thread (each model in a child process at a lower
    priority), then makes its choice the answering model unless the user chose one."""

    progressed = Signal(str, int, int)  # model id, items done, items
    done = Signal(object)  # Problem | None: what changed in the settings

    def __init__(self, store: SettingsStore) -> None:
        super().__init__()
        self.store = store
        self.cancel = CancelToken()  # set from the UI thread: the running child is killed

    @worker_slot()
    def run(self) -> None:
        entries = models.quality_candidates()
        models.check_quality(
            entries, self.store.current, self.progressed.emit, self.cancel, background=True
        )
        self.done.emit(None if self.cancel.cancelled else models.adopt_quality(self.store))


class WelcomeCheck(Worker):
    """Runs :func:`check` off the UI thread."""

    checked = Signal(object)  # Facts

    @worker_slot(object)
    def check(self, prefs: Settings) -> None:
        self.checked.emit(check(prefs))


def _label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class WelcomePanel(QFrame):
    """Shown above an empty chat while there is something to say; hides once the chat starts.
    Call :meth:`stop` before letting go of it (a check may be running)."""

    starter_installed = Signal()  # the starter models were fetched: load them
    check_requested = Signal(object)  # Settings: read the facts for them (on the check thread)
    check_shutdown = Signal()
    speed_measured = Signal()  # a decode speed was measured here (emitted by the timing thread)
    quality_requested = Signal()
    quality_shutdown = Signal()

    def __init__(
        self,
        store: SettingsStore,
        chat: QScrollArea,
        show_models: Callable[[], ModelManager],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.store = store
        self.chat = chat
        self.show_models = show_models
        self._offer: Offer | None = None
        self._facts: Facts | None = None  # None until the check thread first answers
        self._checker: tuple[WelcomeCheck, QThread] | None = None  # while a check is pending
        self._checks = 0  # checks asked for and not answered yet
        self._stopped = False  # its window closed: no more checks
        self._speed_unread = False  # a decode speed was measured since the last check
        self._learning_said: Problem | None = None  # learning itself said its model is too small
        self._missing_starter: Problem | None = None
        self._fetched: dict[str, tuple[int, int]] = {}  # model id -> (done, total) while fetching
        self._quality: tuple[QualityRun, QThread] | None = None  # while the check runs
        self._quality_may_run = False  # a speed was measured or the starters fetched
        self._checking_model: tuple[str, int, int] | None = None  # the check's progress
        self._pending: set[str] = set()  # models of the pair still downloading
        self._model_settled = False  # the first model load ended (its build check timed it)
        self.title = _label("welcome_title")
        bold = self.title.font()
        bold.setBold(True)
        bold.setPointSizeF(bold.pointSizeF() * 1.25)
        self.title.setFont(bold)
        self.intro = _label("welcome_intro")
        self.demo = _label("welcome_demo")
        self.learning = _label("welcome_learning")
        self.answering = _label("welcome_answering")  # the quality check's choice and why
        self.checking = _label("welcome_checking")  # the placeholder until the facts arrive
        self.offer_label = _label("welcome_offer")
        self.offer_button = QPushButton()
        self.offer_button.clicked.connect(self.download_offer)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.hide()
        self.starter_button = QPushButton()
        self.starter_button.clicked.connect(self.download_starter)
        offer_row = QHBoxLayout()
        offer_row.addWidget(self.offer_label, 1)
        offer_row.addWidget(self.offer_button)
        layout = QVBoxLayout(self)
        for label in (
            self.title, self.intro, self.checking, self.demo, self.answering, self.learning,
        ):  # fmt: skip
            layout.addWidget(label)
        layout.addLayout(offer_row)
        layout.addWidget(self.progress)
        layout.addWidget(self.starter_button, 0, Qt.AlignmentFlag.AlignLeft)
        # The status bar's line while learning waits for a larger model (the window places it);
        # shortened rather than widening the window (its tooltip says why learning waits).
        self.learning_note = ElidedLabel(min_width=60)
        self.learning_note.setObjectName("learning_note")
        self.signals = SettingsSignals(store, self)
        self.signals.changed.connect(self._on_settings_changed)
        self.speed_measured.connect(self._on_speed_measured, Qt.ConnectionType.QueuedConnection)
        self._stop_hearing_speed = models.on_speed_measured(self.speed_measured.emit)
        self.destroyed.connect(self._stop_hearing_speed)
        content = chat.widget()
        if content is not None:  # bubbles come and go as children of the chat's column
            content.installEventFilter(self)
        self.refresh()

    # -- what to show ------------------------------------------------------------------------

    def refresh(self, recheck: bool = True) -> None:
        """Show what to say in the current language; ``recheck`` also asks the check thread to
        read the catalogue, the machine and the large model's size again (only when models or
        settings changed, not for a language change); its answer refreshes the panel again."""
        prefs = self.store.current
        if recheck or self._facts is None:
            self._request_check(prefs)
        facts = self._facts or Facts()
        self._offer, small, problem = facts.offer, facts.small, facts.waits
        problem = problem or self._learning_said
        self.title.setText(self.tr("Welcome to Engram"))
        self.intro.setText(
            self.tr(
                "Engram is an assistant that runs on this computer and remembers what matters "
                "from your chats. Nothing leaves the machine, and every memory can be seen, "
                "changed or deleted (Memories, Ctrl+M)."
            )
        )
        self.checking.setText(self.tr("Looking at this computer and its models…"))
        self.checking.setVisible(self._waiting())
        name = small.name if small else prefs.small_model
        if small is not None and small.starter:
            self.demo.setText(
                self.tr(
                    "You are chatting with {name}, the offline starter: quick on any computer, "
                    "good at short answers and at using its tools. A larger model answers better."
                ).format(name=name)
            )
        else:
            self.demo.setText(
                self.tr(
                    "You are chatting with {name}, a tiny demo model: quick, but often wrong."
                ).format(name=name)
            )
        self.demo.setVisible(small is not None and (small.demo or small.starter))
        self._show_answering(facts)
        why = errors.translate(problem)[0] if problem else ""
        self.learning.setText(why)
        self.learning.setVisible(problem is not None)
        self.learning_note.setText(self.tr("Learning starts with a larger model"))
        self.learning_note.setToolTip(errors.text(problem) if problem else "")
        self.learning_note.setVisible(problem is not None)
        self._show_offer()
        self.starter_button.setText(self.tr("Download the starter models"))
        self.starter_button.setVisible(self._missing_starter is not None)
        if self._missing_starter is not None:
            self.demo.setText(errors.translate(self._missing_starter)[0])  # the button is the way
            self.demo.show()
        self._follow_chat()

    def _waiting(self) -> bool:
        """No recommendation yet: the facts are unread, or the decode speed is not measured
        while the first model load (whose build check times this machine) has not ended or its
        facts are not read again since. The estimate from the cores is low on purpose, so a
        pair shown before the measurement would be replaced on screen moments later."""
        facts = self._facts
        if facts is None:
            return True
        return not facts.measured and (not self._model_settled or self._checks > 0)

    def model_settled(self) -> None:
        """The model loaded or failed to: a decode speed measured by its build check is read
        now, and without one the recommendation stands on the cores' estimate."""
        if not self._model_settled:
            self._model_settled = True
            self.refresh()

    def _show_answering(self, facts: Facts) -> None:
        """Which model answers and why (the quality check's result), or that it is running."""
        prefs = self.store.current
        language = i18n.resolve(prefs.language)
        checked = facts.checked  # said here while it answers, else beside its Use them
        in_use = checked is not None and checked.small == prefs.small_model
        if self._checking_model is not None:
            model_id, done, total = self._checking_model
            self.answering.setText(
                self.tr(
                    "Checking which installed model answers best here ({model}: {done} of "
                    "{total}); the current one answers meanwhile."
                ).format(model=model_id, done=done, total=total)
            )
        elif checked is not None and in_use:
            self.answering.setText(checked.reason_in(language))
        self.answering.setVisible(self._checking_model is not None or in_use)

    def _request_check(self, prefs: Settings) -> None:
        if self._stopped:
            return
        if self._checker is None:
            checker = WelcomeCheck()
            self._checker = start_worker(self, checker, "engram-welcome-check", (
                (self.check_requested, checker.check), (self.check_shutdown, checker.shutdown),
                (checker.checked, self._on_checked), (checker.failed, self._on_check_failed),
            ))  # fmt: skip
        self._checks += 1
        self.check_requested.emit(prefs)

    def _on_checked(self, facts: Facts) -> None:
        self._checks -= 1
        if not self._checks:  # the thread is kept only while a check is pending
            self._end_check_thread()
        self._facts = facts
        self.refresh(recheck=False)
        self._start_quality()

    def _start_quality(self) -> None:
        """Run the quality check in the background when it is due and may run now."""
        facts = self._facts
        due = facts is not None and facts.check_pending
        if self._stopped or self._quality is not None or not (due and self._quality_may_run):
            return
        run = QualityRun(self.store)
        self._quality = start_worker(self, run, "engram-quality-check", (
            (self.quality_requested, run.run), (self.quality_shutdown, run.shutdown),
            (run.progressed, self._on_quality_progress), (run.done, self._on_quality_done),
            (run.failed, self._on_quality_failed),
        ))  # fmt: skip
        self.quality_requested.emit()

    def _on_quality_progress(self, model_id: str, done: int, total: int) -> None:
        self._checking_model = (model_id, done, total)
        self.refresh(recheck=False)

    def _on_quality_done(self, changed: Problem | None) -> None:
        self._end_quality()
        if changed is not None:
            self._say(changed)
        self.refresh()

    def _on_quality_failed(self, problem: Problem) -> None:  # logged by the check's thread
        _log.warning("the quality check did not finish: %s", problem.template)
        self._end_quality()
        self.refresh(recheck=False)

    def _say(self, changed: Problem) -> None:
        window = self.window()
        if isinstance(window, QMainWindow):
            window.statusBar().showMessage(errors.translate(changed)[0], 8000)

    def _end_quality(self) -> None:
        self._checking_model = None
        if self._quality is not None:
            run, thread = self._quality
            run.cancel.cancel()
            stop_thread(thread, self.quality_shutdown)
            self._quality = None

    def _on_check_failed(self, _problem: Problem) -> None:  # logged by the check thread
        self._on_checked(Facts())

    def _on_speed_measured(self) -> None:
        """This computer's decode speed is known now (or better known): the recommendation may
        change (a 2-core machine is offered a smaller pair than its RAM alone would get). Worked
        out again while the chat is empty (the panel's place); after an answer in a chat, once
        the chat is empty again, not again on a thread after every answer meanwhile."""
        self._speed_unread = True
        self._quality_may_run = True
        self._follow_chat()
        self._start_quality()

    def learning_waits(self, problem: Problem | None) -> None:
        """Learning reported (``problem``) or no longer reports that its large model is too
        small: the status bar's note says so at once, without waiting for a check."""
        if problem != self._learning_said:
            self._learning_said = problem
            self.refresh(recheck=False)

    def stop(self) -> None:
        """Stop following the settings and end the check thread, if a check is pending (the
        window calls this when it closes; a panel of its own stops when it is closed)."""
        self._stopped = True
        self.signals.close()
        self._stop_hearing_speed()
        self._end_check_thread()
        self._end_quality()

    def _end_check_thread(self) -> None:
        if self._checker is not None:
            stop_thread(self._checker[1], self.check_shutdown)
            self._checker = None
            self._checks = 0

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        self.stop()
        super().closeEvent(event)

    def _show_offer(self) -> None:
        offer = self._offer
        chosen = self.store.current
        in_use = offer is not None and (chosen.small_model, chosen.large_model) == (
            offer.pair.small,
            offer.pair.large,
        )
        visible = offer is not None and not in_use and not self._waiting()
        self.offer_label.setVisible(visible)
        self.offer_button.setVisible(visible and not self._fetched)
        if offer is None or not visible:
            return
        named = {entry.id: entry.name for entry in offer.models}
        names = {role: named[getattr(offer.pair, role)] for role in ("small", "large")}
        if offer.missing:
            self.offer_label.setText(
                self.tr(
                    "Recommended for this machine: {small} to answer and {large} to learn "
                    "({cost} to download; you can keep chatting meanwhile)."
                ).format(cost=labels.offer_cost(offer), **names)
            )
            self.offer_button.setText(self.tr("Download and use them"))
        else:
            fit = self.tr("{small} and {large} are installed and fit this machine.")
            checked = self._facts.checked if self._facts else None
            why = checked.reason_in(i18n.resolve(chosen.language)) if checked == offer.pair else ""
            self.offer_label.setText(" ".join(filter(None, (fit.format(**names), why))))
            self.offer_button.setText(self.tr("Use them"))

    def wanted(self) -> bool:
        """Is there something to say: a demo model, learning waiting, or a missing starter?"""
        shown = (self.checking, self.demo, self.answering, self.learning, self.starter_button)
        return any(w.isVisibleTo(self) for w in shown) or bool(self._fetched)

    def _follow_chat(self) -> None:
        content = self.chat.widget()
        empty = content is None or not content.findChildren(QFrame, options=_DIRECT)
        if empty and self._speed_unread:
            self._speed_unread = False
            self.refresh()  # it follows the chat again, the speed read
            return
        self.setVisible(empty and self.wanted())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if event.type() in (QEvent.Type.ChildAdded, QEvent.Type.ChildRemoved):
            self._follow_chat()
        return False

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.LanguageChange:
            self.refresh(recheck=False)
        super().changeEvent(event)

    # -- actions -----------------------------------------------------------------------------

    def download_offer(self) -> ModelManager | None:
        """Fetch what the recommended pair lacks (in the model manager) and use it; the bar here
        follows the download."""
        offer = self._offer
        if offer is None:
            return None
        manager = self.show_models()
        queued = Qt.ConnectionType.QueuedConnection
        manager.worker.progress.connect(self._on_progress, queued)
        manager.worker.finished.connect(self._on_finished, queued)
        self._fetched = {entry.id: (0, entry.download_bytes()) for entry in offer.missing}
        self._pending = set(self._fetched)
        if self._fetched:
            self.progress.setValue(0)
            self.progress.show()
        manager.download_pair(offer.pair)
        self.refresh()
        return manager

    def _on_progress(self, p: Progress) -> None:
        if p.model_id not in self._fetched:
            return
        self._fetched[p.model_id] = (p.done, p.total)
        self._show_progress()

    def _show_progress(self) -> None:
        done = sum(d for d, _ in self._fetched.values())
        total = sum(t for _, t in self._fetched.values()) or 1
        self.progress.setValue(int(1000 * done / total))
        self.progress.setFormat(
            self.tr("Downloading: {done} of {total}").format(
                done=labels.human_bytes(done), total=labels.human_bytes(total)
            )
        )

    def _on_finished(self, model_id: str, _state: str, _problem: object) -> None:
        self._pending.discard(model_id)
        if model_id in self._fetched:  # a small file may finish before its first report
            total = self._fetched[model_id][1]
            self._fetched[model_id] = (total, total)
            self._show_progress()
        if self._fetched and not self._pending:
            self._fetched = {}
            self.progress.hide()
            self.refresh()

    def on_load_failed(self, problem: Problem) -> None:
        """The model did not load; when a starter model is missing, offer to fetch it here (no
        terminal needed)."""
        try:
            missing = any(not models.installed(e) for e in models.catalogue().starters())
        except EngramError:
            missing = False
        if missing:
            self._missing_starter = problem
            self.refresh()

    def download_starter(self, index: str | None = None) -> StarterDialog:
        """Fetch the starter models with a progress dialog; loads them when done."""
        dialog = StarterDialog(self, index)
        dialog.accepted.connect(self._on_starter_installed)
        dialog.open()
        dialog.start()
        return dialog

    def _on_starter_installed(self) -> None:
        self._missing_starter = None
        self._quality_may_run = True
        self.refresh()
        self.starter_installed.emit()

    def _on_settings_changed(self, old: Settings, new: Settings) -> None:
        def learning(s: Settings) -> tuple[object, ...]:  # what the panel says about learning
            return (s.small_model, s.large_model, s.cloud, s.learn_with_small_models)

        self.refresh(recheck=learning(old) != learning(new))


_DIRECT = Qt.FindChildOption.FindDirectChildrenOnly
