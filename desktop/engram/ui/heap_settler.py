"""Settling the heap (``engram.core.heap``) on the GUI thread once the models are loaded."""

from __future__ import annotations

from PySide6.QtCore import QObject, Slot

from engram.core import heap


class HeapSettler(QObject):
    """Connected to the model worker's ``loaded``: settles the heap on the GUI thread (settling
    collects first, and Qt's Python wrappers must be collected there)."""

    @Slot()
    def settle(self) -> None:
        heap.settle()
