"""The memory table's item model: pages fetched lazily while browsing, or a search result."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from engram.assistant.memories import Memories, Memory
from engram.ui import labels

PAGE = 256
UPDATED_COLUMN = 4
Index = QModelIndex | QPersistentModelIndex


class MemoryTableModel(QAbstractTableModel):
    """Rows are memories; browsing reads pages from ``memories`` only as the view scrolls."""

    def __init__(self, memories: Memories) -> None:
        super().__init__()
        self.memories = memories
        self.rows: list[Memory] = []
        self._kinds: Sequence[str] | None = None
        self._statuses: Sequence[str] | None = ("active",)
        self._more = True
        self._browsing = True
        self.headers: list[str] = []
        self.retranslate()

    def retranslate(self) -> None:
        """Column titles in the current language."""
        self.headers = [
            self.tr("Kind"),
            self.tr("Memory"),
            self.tr("Importance"),
            self.tr("Origin"),
            self.tr("Updated"),
            self.tr("Uses"),
            self.tr("Status"),
        ]
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self.headers) - 1)

    # -- filling -------------------------------------------------------------------------------

    def browse(self, kinds: Sequence[str] | None, statuses: Sequence[str] | None) -> None:
        """Show every memory matching the filters, newest (and pinned) first, page by page."""
        self.beginResetModel()
        self.rows = []
        self._kinds, self._statuses = kinds, statuses
        self._more = True
        self._browsing = True
        self.endResetModel()
        self.fetchMore(QModelIndex())

    def show_results(self, memories: list[Memory]) -> None:
        self.beginResetModel()
        self.rows = list(memories)
        self._more = False
        self._browsing = False
        self.endResetModel()

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: N802, B008
        return self._browsing and self._more and not parent.isValid()

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: N802, B008
        if not self.canFetchMore(parent):
            return
        page = self.memories.memories(
            self._kinds, self._statuses, limit=PAGE, offset=len(self.rows)
        )
        self._more = len(page) == PAGE
        if page:
            self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(page) - 1)
            self.rows.extend(page)
            self.endInsertRows()

    def memory(self, row: int) -> Memory | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    # -- Qt model API --------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.headers)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        memory = self.memory(index.row())
        if memory is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cell(memory, index.column())
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 1:
            return memory.content
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == UPDATED_COLUMN:
            return time.strftime("%Y-%m-%d %H:%M", time.localtime(memory.updated_at))
        if role == Qt.ItemDataRole.UserRole:
            return memory.id
        return None

    def _cell(self, memory: Memory, column: int) -> str:
        if column == 0:
            return ("📌 " if memory.pinned else "") + labels.label(memory.kind)
        if column == 1:
            return " ".join(memory.content.split())
        if column == 2:
            return f"{memory.importance:.2f}"
        if column == 3:
            return labels.label(memory.origin)
        if column == UPDATED_COLUMN:  # the day; the tooltip has the time too
            return time.strftime("%Y-%m-%d", time.localtime(memory.updated_at))
        if column == 5:
            return str(memory.use_count)
        return labels.label(memory.status)
