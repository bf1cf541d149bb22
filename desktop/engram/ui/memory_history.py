"""A memory's record in the memory browser: its history, every write of it newest first (when,
who, what changed and the text it had before) with an Undo beside each change of Engram's that
can still be taken back; who wrote it last; and for a lesson, how it has done.

Its texts belong to the memory browser's translations (the context ``MemoryBrowser``), where
they were written first.
"""

from __future__ import annotations

import time

from PySide6 import QtGui
from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from engram.assistant.memories import Memories, Memory, Write
from engram.ui import labels

BEFORE_CHARS = 300  # how much of a memory's earlier text its history shows (all of it on hover)


class MemoryHistory(QScrollArea):
    """The history of the memory shown; ``undo_requested`` (memory id, write id) asks for an
    Undo of one of Engram's writes."""

    undo_requested = Signal(int, int)

    def __init__(self, memories: Memories) -> None:
        super().__init__()
        self._memories = memories
        self.rows = QVBoxLayout()
        self.rows.setContentsMargins(0, 0, 0, 0)
        column_widget = QWidget()
        column = QVBoxLayout(column_widget)
        column.setContentsMargins(0, 0, 4, 0)
        column.addLayout(self.rows)
        column.addStretch(1)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(column_widget)
        self.undo_buttons: list[QPushButton] = []

    def show_memory(self, memory: Memory | None) -> None:
        """Every write of the memory (none for None), and the replacement of the memory it
        replaced, which can be undone from here."""
        while (item := self.rows.takeAt(0)) is not None:
            if (widget := item.widget()) is not None:
                widget.setParent(None)  # out of the window at once, not at the next event loop
                widget.deleteLater()
        self.undo_buttons = []
        if memory is None:
            return
        entries: list[tuple[int, Write, str | None, bool]] = [
            (memory.id, w, w.before, _can_undo(memory, w)) for w in self._memories.writes(memory.id)
        ]
        replaced = self._memories.replaced_by(memory.id)
        if replaced is not None and replaced.status == "superseded":
            # The memory this one replaced: its text, and its replacement undone from here.
            for w in self._memories.writes(replaced.id):
                if w.replaced_by == memory.id:
                    entries.append((replaced.id, w, replaced.content, w.undoable))
        entries.sort(key=lambda e: (e[1].at, e[1].id), reverse=True)
        for memory_id, write, before, undo in entries:
            self.rows.addWidget(self._row(memory_id, write, before, undo))

    def _row(self, memory_id: int, write: Write, before: str | None, undo: bool) -> QWidget:
        who = labels.label(write.via) + (f" ({write.model})" if write.model else "")
        day = time.strftime("%Y-%m-%d %H:%M", time.localtime(write.at))
        text = QCoreApplication.translate("MemoryBrowser", "{day} · {who}: {change}").format(
            day=day, who=who, change=_change(write, memory_id)
        )
        if before is not None:
            shown = before if len(before) <= BEFORE_CHARS else before[:BEFORE_CHARS] + "…"
            text += "\n" + QCoreApplication.translate("MemoryBrowser", "Before: {text}").format(
                text=shown
            )
        label = QLabel(text)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if before is not None:
            label.setToolTip(QtGui.Qt.convertFromPlainText(before[:2000]))
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 2, 0, 2)
        line.addWidget(label, 1)
        if undo:
            button = QPushButton(QCoreApplication.translate("MemoryBrowser", "Undo"))
            button.setToolTip(
                QCoreApplication.translate(
                    "MemoryBrowser", "Put back the text as it was before this change"
                )
            )
            button.setAccessibleName(
                QCoreApplication.translate("MemoryBrowser", "Undo this change of Engram's")
            )
            button.clicked.connect(lambda: self.undo_requested.emit(memory_id, write.id))
            line.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self.undo_buttons.append(button)
        return row


def _can_undo(memory: Memory, write: Write) -> bool:
    """Would undoing this write still change something?"""
    if not write.undoable:
        return False
    if write.before is not None:
        return write.before != memory.content
    return memory.status == "superseded" and memory.superseded_by == write.replaced_by


def _change(write: Write, memory_id: int) -> str:
    """What a write did, in the user's language (a change this version does not name is
    shown as recorded)."""
    if write.replaced_by is not None:
        return QCoreApplication.translate(
            "MemoryBrowser", "memory #{old} replaced by #{new}"
        ).format(old=memory_id, new=write.replaced_by)
    said = []
    for part in write.change.split(", "):
        field, _, value = part.partition(" → ")
        named = {
            "created": QCoreApplication.translate("MemoryBrowser", "created"),
            "content": QCoreApplication.translate("MemoryBrowser", "changed the text"),
            "importance": QCoreApplication.translate("MemoryBrowser", "changed the importance"),
            "confidence": QCoreApplication.translate("MemoryBrowser", "changed the confidence"),
            "pinned": QCoreApplication.translate("MemoryBrowser", "pinned"),
            "unpinned": QCoreApplication.translate("MemoryBrowser", "unpinned"),
            "kind": QCoreApplication.translate("MemoryBrowser", "kind → {value}").format(
                value=labels.label(value)
            ),
            "status": QCoreApplication.translate("MemoryBrowser", "status → {value}").format(
                value=labels.label(value)
            ),
        }
        said.append(named.get(field, part))
    text = ", ".join(said)
    if write.via == "user" and write.detail.startswith("undid write #"):
        text += " " + QCoreApplication.translate("MemoryBrowser", "(undo)")
    return text


def last_written(memories: Memories, memory: Memory) -> str:
    """Who wrote the memory last (and the distiller's model), and when ('' for no write)."""
    writes = memories.writes(memory.id)
    if not writes:
        return ""
    last = writes[-1]
    who = labels.label(last.via) + (f" ({last.model})" if last.model else "")
    day = time.strftime("%Y-%m-%d %H:%M", time.localtime(last.at))
    return "\n" + QCoreApplication.translate("MemoryBrowser", "Last written: {who}, {day}").format(
        who=who, day=day
    )


def lesson_record(memories: Memories, memory: Memory) -> str:
    """For a lesson: how it has done (answers it went into, helped, hurt), and whether it
    was retired for hurting more than it helped (Restore brings it back); '' for the rest."""
    record = memories.lesson_record(memory)
    if record is None:
        return ""
    line = QCoreApplication.translate(
        "MemoryBrowser", "Given to {used} answers · helped {helped} · hurt {hurt}"
    ).format(used=record.used, helped=record.helped, hurt=record.hurt)
    if memory.status == "archived" and memory.meta.get("retired") == "hurt":
        line += "\n" + QCoreApplication.translate(
            "MemoryBrowser", "Retired: it hurt more answers than it helped. Restore keeps it."
        )
    return "\n" + line
