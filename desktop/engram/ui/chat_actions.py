"""The header's actions on the chat shown: the model switchers (a pick goes through the settings
store; the worker follows it), Export as Markdown, Temporary, and the plan panel."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QLabel, QMainWindow, QSplitter

from engram.core.atomic import atomic_write
from engram.core.errors import EngramError
from engram.core.settings import SettingsStore
from engram.ui import markdown
from engram.ui.buttons import name_buttons
from engram.ui.chat_header import ChatHeader
from engram.ui.chat_view import ChatView
from engram.ui.notices import Notices
from engram.ui.plan_panel import PLAN_WIDTH, PlanPanel
from engram.ui.sidebar import SIDEBAR_MIN_WIDTH

CHAT_MIN_WIDTH = 480  # the chat's width kept when the plan opens, as far as the window allows


class ChatActions(QObject):
    """Adds Export, Temporary and Plan to ``header`` (Temporary's toggles are the window's:
    it changes the chat shown). Export writes what ``chat`` shows under ``title()``; Plan
    opens ``plan_panel``, the last part of ``splitter``."""

    plan_requested = Signal()

    def __init__(
        self,
        window: QMainWindow,
        header: ChatHeader,
        store: SettingsStore,
        notices: Notices,
        chat: ChatView,
        title: Callable[[], str],
        plan_panel: PlanPanel,
        splitter: QSplitter,
    ) -> None:
        super().__init__(window)
        self._window = window
        self.header = header
        self.store = store
        self.notices = notices
        self.chat = chat
        self.title = title
        self.plan_panel = plan_panel
        self.splitter = splitter
        self.export_button = header.add_button()
        self.export_button.clicked.connect(lambda _checked: self.export_chat())
        self.temporary_button = header.add_button(checkable=True)
        self.plan_button = header.add_button(checkable=True)
        self.plan_button.toggled.connect(self._toggle_plan)
        self._sidebar_lent = 0  # how much narrower the sidebar is while the plan is open
        header.model_chosen.connect(self._choose_model)
        self.temporary_marker = QLabel()
        self.temporary_marker.setObjectName("temporary_marker")
        self.temporary_marker.setWordWrap(True)
        self.temporary_marker.hide()
        self.retranslate()

    def retranslate(self) -> None:
        """The buttons and the temporary chat's marker in the current language."""
        export = self.tr("Save this chat as a Markdown file")
        temporary = self.tr("A chat that is not remembered and is deleted when you leave it")
        plan = self.tr("Show your plan: goal, steps and where you are")
        name_buttons((
            (self.export_button, self.tr("Export"), export, export),
            (self.temporary_button, self.tr("Temporary"), temporary, temporary),
            (self.plan_button, self.tr("Plan"), plan, plan),
        ))  # fmt: skip
        self.temporary_marker.setText(
            self.tr("Temporary chat: nothing here is remembered; it is deleted when you leave it.")
        )

    def show_temporary(self, on: bool, marker: bool = True) -> None:
        """Temporary checked or not, without asking for a chat; ``marker``: the dashed line
        above the chat follows."""
        if marker:
            self.temporary_marker.setVisible(on)
        self.temporary_button.blockSignals(True)
        self.temporary_button.setChecked(on)
        self.temporary_button.blockSignals(False)

    def show_models(self, models: list[tuple[str, str, tuple[str, ...]]]) -> None:
        """The installed chat models, listed by the worker, in the header's switchers."""
        prefs = self.store.current
        self.header.show_models(models, {"small": prefs.small_model, "large": prefs.large_model})

    def _choose_model(self, role: str, model_id: str) -> None:
        """The header's switcher: the worker follows the store and loads the model."""
        try:
            self.store.choose_models(**{role: model_id})
        except EngramError as exc:
            self.notices.problem(exc.problem)

    def _toggle_plan(self, on: bool) -> None:
        """The plan opens beside the chat, taking its room from the chat while the chat keeps
        CHAT_MIN_WIDTH; in a smaller window the plan narrows, then the sidebar, each to its
        minimum, before the chat gives more. Closed, its room goes back to the chat, and the
        sidebar gets back the width it lent."""
        sidebar, chat, plan = self.splitter.sizes()
        self.plan_panel.setVisible(on)
        if not on:  # the chat takes the plan's room and gives the sidebar back what it lent
            if plan:
                chat += plan + self.splitter.handleWidth()
                lent, self._sidebar_lent = self._sidebar_lent, 0
                self.splitter.setSizes([sidebar + lent, chat - lent, 0])
            return
        chat -= self.splitter.handleWidth()  # the plan's handle, about to show
        plan = PLAN_WIDTH
        short = max(0, CHAT_MIN_WIDTH - (chat - plan))
        for_plan = min(short, plan - self.plan_panel.minimumWidth())
        for_sidebar = max(0, min(short - for_plan, sidebar - SIDEBAR_MIN_WIDTH))
        plan -= for_plan
        self.splitter.setSizes(
            [sidebar - for_sidebar, chat - PLAN_WIDTH + for_plan + for_sidebar, plan]
        )
        self._sidebar_lent = for_sidebar
        self.plan_requested.emit()

    def export_chat(self, path: str = "") -> Path | None:
        """Save the chat shown as Markdown (asks where when no ``path``); returns the file."""
        shown = self.chat.bubbles()
        messages = [(b.role, b.text) for b in shown if b.role in ("user", "assistant")]
        bar = self._window.statusBar()
        if not messages:
            bar.showMessage(self.tr("There is nothing to export in this chat."), 4000)
            return None
        title = self.title()
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self._window,
                self.tr("Export chat"),
                str(Path.home() / f"{_file_name(title)}.md"),
                self.tr("Markdown (*.md)"),
            )
            if not path:
                return None
        names = {"user": self.tr("You"), "assistant": "Engram"}
        target = Path(path)
        try:
            with atomic_write(target) as out:
                out.write(markdown.chat_document(title, messages, names))
        except OSError as exc:
            self.notices.problem(
                self.tr("Could not save {path}: {error}").format(path=target, error=exc.strerror)
            )
            return None
        bar.showMessage(self.tr("Saved {path}").format(path=target), 6000)
        return target


def _file_name(title: str) -> str:
    """A file name made from a chat title (letters of any script kept)."""
    return re.sub(r"[^\w\- ]+", "", title).strip()[:60] or "chat"
