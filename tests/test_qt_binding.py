"""Guards against a Qt binding that corrupts reference counts (PySide6 6.12.0 on CPython 3.11).

That release drops a reference to None on every call of a method returning void; a desktop app
calling such methods for hours eventually frees None and the interpreter aborts.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QLabel

CALLS = 500


def test_void_methods_keep_the_reference_count_of_none(qapp: QApplication) -> None:
    label = QLabel()
    before = sys.getrefcount(None)
    for _ in range(CALLS):
        label.setText("x")
        QCoreApplication.processEvents()
    assert abs(sys.getrefcount(None) - before) < CALLS // 10
