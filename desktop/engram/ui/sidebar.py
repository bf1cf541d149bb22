"""The conversation list: search, new, rename, delete, and choosing which one to show."""

from __future__ import annotations

import time

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QInputDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engram.memory.episodes import Conversation

SEARCH_DEBOUNCE_MS = 200


class Sidebar(QWidget):
    """Lists conversations; changes go out as signals (the window routes writes to its worker)."""

    selected = Signal(int)
    new_requested = Signal()
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    search_changed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("sidebar")
        self.new_button = QPushButton(self.tr("New chat"))
        self.new_button.setObjectName("new_chat")
        self.new_button.setAccessibleName(self.tr("Start a new chat"))
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search chats"))
        self.search.setAccessibleName(self.tr("Search chats"))
        self.search.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Chats"))
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 0, 8)
        layout.addWidget(self.new_button)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(lambda: self.search_changed.emit(self.search.text()))
        self.search.textChanged.connect(self._debounce.start)
        self.new_button.clicked.connect(self.new_requested)
        self.list.itemClicked.connect(self._on_clicked)
        self.list.customContextMenuRequested.connect(self._menu)

    def show_conversations(self, conversations: list[Conversation], current: int) -> None:
        self.list.clear()
        for conversation in conversations:
            item = QListWidgetItem(conversation.title or self.tr("Untitled chat"))
            item.setData(Qt.ItemDataRole.UserRole, conversation.id)
            item.setToolTip(
                time.strftime("%Y-%m-%d %H:%M", time.localtime(conversation.updated_at))
            )
            self.list.addItem(item)
            if conversation.id == current:
                self.list.setCurrentItem(item)

    def _on_clicked(self, item: QListWidgetItem) -> None:
        self.selected.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _menu(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        conversation_id = int(item.data(Qt.ItemDataRole.UserRole))
        menu = QMenu(self)
        menu.addAction(self.tr("Rename…"), lambda: self.ask_rename(conversation_id, item.text()))
        menu.addAction(self.tr("Delete…"), lambda: self.ask_delete(conversation_id, item.text()))
        menu.exec(self.list.viewport().mapToGlobal(pos))

    def ask_rename(self, conversation_id: int, title: str) -> None:
        new, ok = QInputDialog.getText(self, self.tr("Rename chat"), self.tr("Title:"), text=title)
        if ok and new.strip():
            self.rename_requested.emit(conversation_id, new.strip())

    def ask_delete(self, conversation_id: int, title: str) -> None:
        answer = QMessageBox.question(
            self,
            self.tr("Delete chat"),
            self.tr(
                "Delete “{title}” and all its messages? Memories learned from it are kept "
                "(you can erase them in the memory browser)."
            ).format(title=title),
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.delete_requested.emit(conversation_id)
