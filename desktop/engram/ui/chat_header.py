"""The bar above the chat: which models answer (installed ones only), the last answer's speed
and context use, and the chat's own actions (export, temporary, plan)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QToolButton, QWidget

from engram.ui.elided import ElidedLabel

ROLES = ("small", "large")
STATS_MIN_WIDTH = 60
COMBO_CHARS = 12  # the switcher's width in characters (longer names show in full when open)


class ChatHeader(QWidget):
    """Emits ``model_chosen(role, model id)`` when the user picks another installed model."""

    model_chosen = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("chat_header")
        self.combos: dict[str, QComboBox] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(6)
        captions = {"small": self.tr("Model:"), "large": self.tr("Large:")}
        tips = {
            "small": self.tr("The model that answers (installed models only)"),
            "large": self.tr("The model for “Ask large model” and learning (installed only)"),
        }
        for role in ROLES:
            caption = QLabel(captions[role])
            caption.setObjectName("header_caption")
            combo = QComboBox()
            combo.setObjectName(f"{role}_model")
            combo.setToolTip(tips[role])
            combo.setAccessibleName(tips[role])
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(COMBO_CHARS)
            combo.activated.connect(lambda _index, r=role: self._chosen(r))
            layout.addWidget(caption)
            layout.addWidget(combo)
            self.combos[role] = combo
        # the header never widens the window: the numbers give way first (the tooltip keeps them)
        self.stats = ElidedLabel(min_width=STATS_MIN_WIDTH)
        self.stats.setObjectName("answer_stats")
        layout.addWidget(self.stats, 1)
        self.tools = QHBoxLayout()
        self.tools.setSpacing(4)
        layout.addLayout(self.tools)

    def add_button(self, text: str, tip: str, checkable: bool = False) -> QToolButton:
        """A button at the header's right end (export, temporary chat, plan)."""
        button = QToolButton()
        button.setObjectName("header_button")
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setCheckable(checkable)
        self.tools.addWidget(button)
        return button

    def show_models(
        self, models: list[tuple[str, str, tuple[str, ...]]], chosen: dict[str, str]
    ) -> None:
        """``models``: (id, name, roles) of the installed chat models; ``chosen``: role → id."""
        for role, combo in self.combos.items():
            combo.blockSignals(True)
            combo.clear()
            for model_id, name, roles in models:
                if role in roles or model_id == chosen.get(role):
                    combo.addItem(name, model_id)
            if (index := combo.findData(chosen.get(role))) < 0:
                combo.addItem(self.tr("{id} (not installed)").format(id=chosen.get(role)))
                index = combo.count() - 1
            combo.setCurrentIndex(index)
            combo.blockSignals(False)

    def _chosen(self, role: str) -> None:
        model_id = self.combos[role].currentData()
        if isinstance(model_id, str):
            self.model_chosen.emit(role, model_id)
