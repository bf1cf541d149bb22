"""A layout that places widgets left to right and wraps them onto new lines, like words."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    """Items keep their size hint and wrap at the available width (height follows width); the
    items of a line are centred on it, hidden items take no room, and with ``last_right`` the
    last item sits at the right end of its line (a header's buttons)."""

    def __init__(
        self, parent: QWidget | None = None, spacing: int = 6, last_right: bool = False
    ) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._last_right = last_right
        self.setSpacing(spacing)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 (Qt API)
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt API)
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt API)
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 (Qt API)
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt API)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt API)
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 (Qt API)
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802 (Qt API)
        """As wide as the widest item: anything wider wraps instead of widening the parent."""
        size = QSize()
        for item in self._items:
            if not item.isEmpty():
                size = size.expandedTo(item.minimumSize())
        margins: QMargins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _place(self, rect: QRect, move: bool) -> int:
        """Lay the items out in ``rect`` (or only measure); returns the height used."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        gap = self.spacing()
        lines: list[list[tuple[QLayoutItem, int]]] = [[]]  # each line's items and their x
        x = area.x()
        shown = [item for item in self._items if not item.isEmpty()]
        for item in shown:
            width = item.sizeHint().width()
            if x + width > area.right() + 1 and lines[-1]:
                lines.append([])
                x = area.x()
            if self._last_right and item is shown[-1]:
                x = max(x, area.right() + 1 - width)
            lines[-1].append((item, x))
            x += width + gap
        y = area.y()
        for line in lines:
            height = max((item.sizeHint().height() for item, _x in line), default=0)
            for item, left in line if move else ():
                hint = item.sizeHint()
                top = y + (height - hint.height()) // 2
                width = min(hint.width(), area.right() + 1 - left)
                item.setGeometry(QRect(QPoint(left, top), QSize(width, hint.height())))
            y += height + gap
        return max(0, y - gap) - rect.y() + margins.bottom()
