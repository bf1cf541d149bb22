"""The welcome panel of an empty chat: what Engram is, that the starter model is a small demo, the
recommended models for this machine (size, time, one click, progress) and, while no large model
of at least 1B parameters is installed, that learning starts with a larger model.

It also offers the starter download when the starter model is missing. Everything it shows is
set in :meth:`WelcomePanel.refresh`, so a language change retranslates it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from engram.core import log
from engram.core.errors import EngramError, Problem
from engram.core.settings import Settings, SettingsStore
from engram.models import catalogue, hardware, roles
from engram.models.download import Progress
from engram.ui import errors, labels
from engram.ui.model_manager import ModelManager
from engram.ui.settings_signals import SettingsSignals
from engram.ui.starter_dialog import StarterDialog

_log = log.get("ui.welcome")


def _label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class WelcomePanel(QFrame):
    """Shown above an empty chat while there is something to say; hides once the chat starts."""

    starter_installed = Signal()  # the starter models were fetched: load them

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
        self._offer: hardware.Offer | None = None
        self._facts: (
            tuple[hardware.Offer | None, catalogue.ModelEntry | None, Problem | None] | None
        ) = None
        self._missing_starter: Problem | None = None
        self._fetched: dict[str, tuple[int, int]] = {}  # model id -> (done, total) while fetching
        self._pending: set[str] = set()  # models of the pair still downloading
        self.title = _label("welcome_title")
        bold = self.title.font()
        bold.setBold(True)
        bold.setPointSizeF(bold.pointSizeF() * 1.25)
        self.title.setFont(bold)
        self.intro = _label("welcome_intro")
        self.demo = _label("welcome_demo")
        self.learning = _label("welcome_learning")
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
        for label in (self.title, self.intro, self.demo, self.learning):
            layout.addWidget(label)
        layout.addLayout(offer_row)
        layout.addWidget(self.progress)
        layout.addWidget(self.starter_button, 0, Qt.AlignmentFlag.AlignLeft)
        # The status bar's line while learning waits for a larger model (the window places it).
        self.learning_note = QLabel()
        self.learning_note.setObjectName("learning_note")
        self.signals = SettingsSignals(store, self)
        self.signals.changed.connect(self._on_settings_changed)
        content = chat.widget()
        if content is not None:  # bubbles come and go as children of the chat's column
            content.installEventFilter(self)
        self.refresh()

    # -- what to show ------------------------------------------------------------------------

    def refresh(self, recheck: bool = True) -> None:
        """Show what to say in the current language; ``recheck`` first reads the catalogue, the
        machine and the large model's size again (about 60 ms: only when models or settings
        changed, not for a language change)."""
        prefs = self.store.current
        if recheck or self._facts is None:
            self._facts = self._check(prefs)
        self._offer, small, problem = self._facts
        self.title.setText(self.tr("Welcome to Engram"))
        self.intro.setText(
            self.tr(
                "Engram is an assistant that runs on this computer and remembers what matters "
                "from your chats. Nothing leaves the machine, and every memory can be seen, "
                "changed or deleted (Memories, Ctrl+M)."
            )
        )
        is_demo = small is not None and small.starter
        self.demo.setText(
            self.tr(
                "You are chatting with {name}, a tiny demo model: quick, but often wrong."
            ).format(name=small.name if small else prefs.small_model)
        )
        self.demo.setVisible(is_demo)
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

    def _check(
        self, prefs: Settings
    ) -> tuple[hardware.Offer | None, catalogue.ModelEntry | None, Problem | None]:
        """The offer for this machine, the small model's entry, and why learning waits."""
        try:
            cat = catalogue.load()
        except EngramError as exc:  # a broken user catalogue: the window shows the problem
            _log.warning("welcome panel without the catalogue: %s", type(exc).__name__)
            return None, None, None
        offer = hardware.offer(cat, hardware.probe(gpu=False))
        small = next((e for e in cat.models if e.id == prefs.small_model), None)
        try:
            waits = None if prefs.learn_with_small_models else roles.learning_problem(prefs, cat)
        except EngramError:  # an unknown or broken large model: the load reports it
            waits = None
        return offer, small, waits

    def _show_offer(self) -> None:
        offer = self._offer
        chosen = self.store.current
        in_use = offer is not None and (chosen.small_model, chosen.large_model) == (
            offer.pair.small,
            offer.pair.large,
        )
        visible = offer is not None and not in_use
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
            self.offer_label.setText(
                self.tr("{small} and {large} are installed and fit this machine.").format(**names)
            )
            self.offer_button.setText(self.tr("Use them"))

    def wanted(self) -> bool:
        """Is there something to say: a demo model, learning waiting, or a missing starter?"""
        return any(
            w.isVisibleTo(self) for w in (self.demo, self.learning, self.starter_button)
        ) or bool(self._fetched)

    def _follow_chat(self) -> None:
        content = self.chat.widget()
        empty = content is None or not content.findChildren(QFrame, options=_DIRECT)
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
            missing = any(not hardware.installed(e) for e in catalogue.load().starters())
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
        self.refresh()
        self.starter_installed.emit()

    def _on_settings_changed(self, old: Settings, new: Settings) -> None:
        fields = ("small_model", "large_model", "cloud", "learn_with_small_models")
        self.refresh(recheck=any(getattr(old, f) != getattr(new, f) for f in fields))


_DIRECT = Qt.FindChildOption.FindDirectChildrenOnly
