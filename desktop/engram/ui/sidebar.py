"""The conversation list: chats grouped by date (Today, Yesterday, Previous 7 days, …) with
their time, search, new, rename, delete, and choosing which one to show."""

from __future__ import annotations

import datetime as dt

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QInputDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from engram.assistant.chats import Conversation
from engram.ui.i18n import Retranslating

SEARCH_DEBOUNCE_MS = 200
SIDEBAR_MIN_WIDTH = 180  # titles stay readable when the plan panel opens beside a small window
DATE_ROLE = Qt.ItemDataRole.UserRole + 1  # the time or date shown at the right of a chat


def group_of(updated: dt.datetime, now: dt.datetime) -> str:
    """The group a chat last changed at ``updated`` falls in: "today", "yesterday", "week",
    "month", or its "YYYY-MM" when older."""
    days = (now.date() - updated.date()).days
    if days <= 0:
        return "today"
    if days == 1:
        return "yesterday"
    if days < 7:
        return "week"
    if days < 30:
        return "month"
    return updated.strftime("%Y-%m")


class _ChatDelegate(QStyledItemDelegate):
    """Draws a chat's title elided on the left and its time or date in the right margin."""

    def sizeHint(  # noqa: N802 (Qt API)
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        """As tall as usual, never wider than the list: long titles elide instead."""
        size = super().sizeHint(option, index)
        return QSize(0, size.height() + 4) if index.data(DATE_ROLE) else QSize(0, size.height())

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        date = index.data(DATE_ROLE)
        if not date:
            super().paint(painter, option, index)
            return
        row = QStyleOptionViewItem(option)
        self.initStyleOption(row, index)
        title, row.text = row.text, ""
        style = option.widget.style() if option.widget else None
        if style is not None:  # background, hover and selection over the whole row
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, row, painter, option.widget)
        metrics = option.fontMetrics
        date_width = metrics.horizontalAdvance(date)
        text_rect = option.rect.adjusted(8, 0, -(date_width + 16), 0)
        painter.save()
        painter.setPen(option.palette.text().color())
        painter.drawText(
            text_rect,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(title, Qt.TextElideMode.ElideRight, text_rect.width()),
        )
        painter.setPen(option.palette.placeholderText().color())
        painter.drawText(
            option.rect.adjusted(0, 0, -8, 0),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            date,
        )
        painter.restore()


class Sidebar(Retranslating, QWidget):
    """Lists conversations; changes go out as signals (the window routes writes to its worker)."""

    selected = Signal(int)
    new_requested = Signal()
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    search_changed = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("sidebar")
        self.setMinimumWidth(SIDEBAR_MIN_WIDTH)
        self._shown: tuple[list[Conversation], dt.datetime | None] | None = None  # listed last
        self.new_button = QPushButton()
        self.new_button.setObjectName("new_chat")
        self.search = QLineEdit()
        self.search.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setWordWrap(False)
        self.list.setUniformItemSizes(False)
        self.list.setItemDelegate(_ChatDelegate(self.list))
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
        self.retranslate()

    def retranslate(self) -> None:
        self.new_button.setText(self.tr("New chat"))
        self.new_button.setAccessibleName(self.tr("Start a new chat"))
        self.search.setPlaceholderText(self.tr("Search chats"))
        self.search.setAccessibleName(self.tr("Search chats"))
        self.list.setAccessibleName(self.tr("Chats"))
        if self._shown is not None:  # headings, untitled chats and the empty line again
            current = self.list.currentItem()
            chosen = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
            conversations, now = self._shown
            self.show_conversations(conversations, int(chosen or 0), now)

    def show_conversations(
        self, conversations: list[Conversation], current: int, now: dt.datetime | None = None
    ) -> None:
        """List the chats (newest first) under a heading per date group."""
        self._shown = (conversations, now)
        self.list.clear()
        now = now or dt.datetime.now()
        heading = ""
        for conversation in conversations:
            updated = dt.datetime.fromtimestamp(conversation.updated_at)
            group = group_of(updated, now)
            if group != heading:
                heading = group
                self.list.addItem(self._heading(group))
            title = conversation.title or self.tr("Untitled chat")
            item = QListWidgetItem(title)
            item.setData(Qt.ItemDataRole.UserRole, conversation.id)
            item.setData(
                DATE_ROLE,
                updated.strftime("%H:%M" if group in ("today", "yesterday") else "%m-%d"),
            )
            item.setToolTip(f"{title}\n{updated:%Y-%m-%d %H:%M}")
            self.list.addItem(item)
            if conversation.id == current:
                self.list.setCurrentItem(item)
        if not conversations:  # a line instead of a blank column
            query = self.search.text().strip()
            note = QListWidgetItem(
                self.tr("No chat matches “{query}”.").format(query=query)
                if query
                else self.tr("Your chats will appear here.")
            )
            note.setFlags(Qt.ItemFlag.NoItemFlags)
            note.setForeground(self.list.palette().placeholderText())  # muted, like a hint
            self.list.addItem(note)

    def _heading(self, group: str) -> QListWidgetItem:
        names = {
            "today": self.tr("Today"),
            "yesterday": self.tr("Yesterday"),
            "week": self.tr("Previous 7 days"),
            "month": self.tr("Previous 30 days"),
        }
        item = QListWidgetItem(names.get(group, group))
        item.setFlags(Qt.ItemFlag.NoItemFlags)
        item.setData(Qt.ItemDataRole.AccessibleTextRole, item.text())
        font = item.font()
        font.setBold(True)
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        item.setFont(font)
        return item

    def chat_items(self) -> list[QListWidgetItem]:
        """The chats listed (headings left out), top to bottom."""
        items = (self.list.item(row) for row in range(self.list.count()))
        return [item for item in items if item.data(Qt.ItemDataRole.UserRole) is not None]

    def titles(self) -> list[str]:
        return [item.text() for item in self.chat_items()]

    def _on_clicked(self, item: QListWidgetItem) -> None:
        if item.data(Qt.ItemDataRole.UserRole) is not None:
            self.selected.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _menu(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos)
        if item is None or item.data(Qt.ItemDataRole.UserRole) is None:
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
