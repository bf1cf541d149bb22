"""Memory chips under an answer: which memories it was given, and a way to say one is wrong."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMenu, QToolButton, QWidget

from engram.assistant.events import Recalled
from engram.assistant.memories import PLAN
from engram.ui import labels
from engram.ui.flow_layout import FlowLayout
from engram.ui.i18n import Retranslating

CHIP_CHARS = 28


def chip_text(item: Recalled) -> str:
    """A short label: the first words of the memory; an earlier message's in quotes."""
    content = " ".join(item.content.split())
    if item.memory_id is None:  # an earlier message, quoted: the user's words, not a memory
        short = content if len(content) <= CHIP_CHARS - 2 else content[: CHIP_CHARS - 3] + "…"
        return f"“{short}”"
    return content if len(content) <= CHIP_CHARS else content[: CHIP_CHARS - 1] + "…"


class MemoryChips(Retranslating, QWidget):
    """Chips that wrap onto new lines, one per memory or earlier message an answer was given
    (``Finished.recalled``: a message a memory was made from is folded into the memory's chip);
    memories get a menu with "This is wrong". An earlier message is a quote (property
    ``earlier``: the style sheet draws it apart), and says so in its tooltip."""

    wrong = Signal(int)  # memory id
    open_memory = Signal(int)  # memory id

    def __init__(self, items: Sequence[Recalled], used: Sequence[Recalled] = ()) -> None:
        super().__init__()
        self.setObjectName("chips")
        self.items = list(items)
        layout = FlowLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        self.caption = QLabel()
        self.caption.setObjectName("chips_caption")
        layout.addWidget(self.caption)
        used_ids = {(u.memory_id, u.episode_id) for u in used}
        self.used = [(item.memory_id, item.episode_id) in used_ids for item in self.items]
        self.buttons: list[QToolButton] = []
        self._menus: list[tuple[QAction, QAction] | None] = []
        for item, was_used in zip(self.items, self.used, strict=True):
            layout.addWidget(self._chip(item, was_used))
        self.retranslate()

    def retranslate(self) -> None:
        """The caption, each chip's tooltip, name and menu in the current language."""
        self.caption.setText(self.tr("Recalled:"))
        for item, was_used, button, menu in zip(
            self.items, self.used, self.buttons, self._menus, strict=True
        ):
            earlier = item.memory_id is None
            kind = self.tr("An earlier message") if earlier else labels.label(item.label)
            state = self.tr("used in this answer") if was_used else self.tr("given, not used")
            if item.label == PLAN:
                button.setText(self.tr("Plan: {text}").format(text=chip_text(item)))
                kind, state = self.tr("Your current plan"), self.tr("followed in every answer")
            tip = f"<b>{kind}</b> — {state}<br>{_escape(item.content)}"
            for source in item.folded:
                made = self.tr("Made from your earlier message:")
                tip += f"<br><br><i>{made}</i><br>“{_escape(source.content)}”"
            if button.objectName() == "chip_wrong":
                tip += "<br><i>" + self.tr("Marked wrong") + "</i>"
            button.setToolTip(tip)
            name = self.tr("Earlier message: {text}") if earlier else self.tr("Memory: {text}")
            button.setAccessibleName(name.format(text=item.content[:80]))
            if menu is not None:
                menu[0].setText(self.tr("Open in memory browser"))
                menu[1].setText(self.tr("This is wrong"))

    def _chip(self, item: Recalled, was_used: bool) -> QToolButton:
        button = QToolButton()
        button.setObjectName("chip_used" if was_used else "chip")
        if item.label == PLAN:
            button.setObjectName("chip_plan")
        button.setText(chip_text(item))
        button.setProperty("earlier", item.memory_id is None)
        actions = None
        if item.memory_id is not None:
            menu = QMenu(button)
            memory_id = item.memory_id
            actions = (
                menu.addAction("", lambda: self.open_memory.emit(memory_id)),
                menu.addAction("", lambda: self._mark_wrong(button, memory_id)),
            )
            button.setMenu(menu)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.buttons.append(button)
        self._menus.append(actions)
        return button

    def _mark_wrong(self, button: QToolButton, memory_id: int) -> None:
        self.wrong.emit(memory_id)

    def show_wrong(self, memory_id: int) -> None:
        """The memory was marked wrong: its chip says so."""
        for item, button in zip(self.items, self.buttons, strict=True):
            if item.memory_id == memory_id:
                button.setObjectName("chip_wrong")
                button.style().unpolish(button)
                button.style().polish(button)
        self.retranslate()  # the tooltip says so


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
