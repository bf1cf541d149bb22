"""The plan panel beside the chat: the user's goal and steps, the current one marked; steps are
ticked off, edited (double-click) or dropped, and saved back to the plan memory."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engram.assistant.events import Plan
from engram.ui.i18n import Retranslating

PLAN_WIDTH = 280  # the panel's width when it opens beside the chat


class PlanPanel(Retranslating, QWidget):
    """Shows one plan; ``save_requested(Plan)`` when the user changed it."""

    save_requested = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("plan_panel")
        self.setMinimumWidth(PLAN_WIDTH * 3 // 4)
        self.plan: Plan | None = None
        self.title = QLabel()
        self.title.setObjectName("plan_title")
        self.empty = QLabel()
        self.empty.setWordWrap(True)
        self.empty.setObjectName("plan_empty")
        # Without a plan the line takes the panel's height, so the title stays at the top.
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.goal = QLineEdit()
        self.steps = QListWidget()
        self.steps.setWordWrap(True)
        self.steps.itemChanged.connect(self._on_ticked)
        self.tick_button = QPushButton()
        self.drop_button = QPushButton()
        self.save_button = QPushButton()
        self.save_button.setObjectName("send_button")
        self.tick_button.clicked.connect(self.tick)
        self.drop_button.clicked.connect(self.drop_selected)
        self.save_button.clicked.connect(self.save)
        buttons = QHBoxLayout()
        buttons.addWidget(self.tick_button)
        buttons.addWidget(self.drop_button)
        save_row = QHBoxLayout()
        save_row.addStretch(1)
        save_row.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.title)
        layout.addWidget(self.empty, 1)
        layout.addWidget(self.goal)
        layout.addWidget(self.steps, 1)
        layout.addLayout(buttons)
        layout.addLayout(save_row)
        self.retranslate()
        self.show_plan(None)

    def retranslate(self) -> None:
        self.title.setText(self.tr("Plan"))
        self.empty.setText(
            self.tr(
                "No plan yet. Tell Engram about a goal and its steps; it keeps track of where "
                "you are and follows it in every chat."
            )
        )
        self.goal.setAccessibleName(self.tr("Goal"))
        self.goal.setPlaceholderText(self.tr("Goal"))
        self.steps.setAccessibleName(self.tr("Steps"))
        self.tick_button.setText(self.tr("Step done"))
        self.tick_button.setToolTip(self.tr("Tick off the current step and go to the next"))
        self.drop_button.setText(self.tr("Drop step"))
        self.drop_button.setToolTip(self.tr("Remove the selected step from the plan"))
        self.save_button.setText(self.tr("Save"))
        self.steps.blockSignals(True)  # a tooltip is no edit of the plan
        for row in range(self.steps.count()):
            item = self.steps.item(row)
            item.setToolTip(self.tr("The current step") if item.font().bold() else "")
        self.steps.blockSignals(False)

    def show_plan(self, plan: Plan | None) -> None:
        self.plan = plan
        has = plan is not None
        self.empty.setVisible(not has)
        for widget in (self.goal, self.steps, self.tick_button, self.drop_button, self.save_button):
            widget.setVisible(has)
        if plan is None:
            return
        self.goal.setText(plan.goal)
        self.steps.blockSignals(True)
        self.steps.clear()
        for index, step in enumerate(plan.steps):
            item = QListWidgetItem(step)
            item.setFlags(
                Qt.ItemFlag.ItemIsEnabled
                | Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsEditable
                | Qt.ItemFlag.ItemIsUserCheckable
            )
            item.setCheckState(
                Qt.CheckState.Checked if index < plan.current else Qt.CheckState.Unchecked
            )
            font = item.font()
            font.setBold(index == plan.current)
            item.setFont(font)
            if index == plan.current:
                item.setToolTip(self.tr("The current step"))
            self.steps.addItem(item)
        self.steps.blockSignals(False)

    def edited(self) -> Plan | None:
        """The plan as shown now: the current step is the first one not ticked."""
        if self.plan is None:
            return None
        items = [self.steps.item(row) for row in range(self.steps.count())]
        current = next(
            (i for i, item in enumerate(items) if item.checkState() != Qt.CheckState.Checked),
            len(items),
        )
        return Plan(
            self.plan.memory_id, self.goal.text(), tuple(item.text() for item in items), current
        )

    def tick(self) -> None:
        """The current step is done."""
        plan = self.edited()
        if plan is not None and plan.current < self.steps.count():
            self.show_plan(Plan(plan.memory_id, plan.goal, plan.steps, plan.current + 1))

    def drop_selected(self) -> None:
        row = self.steps.currentRow()
        if row >= 0:
            self.steps.takeItem(row)
            self._on_ticked()

    def save(self) -> None:
        plan = self.edited()
        if plan is not None:
            self.save_requested.emit(plan)

    def _on_ticked(self, _item: QListWidgetItem | None = None) -> None:
        """Re-mark the current step after a tick or a drop."""
        plan = self.edited()
        if plan is not None:
            self.show_plan(plan)
