"""The bar above the chat: which models answer (installed ones only), the last answer's speed
and context use, and the chat's own actions (export, temporary, plan)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QToolButton,
    QWidget,
)

from engram.ui.elided import ElidedLabel
from engram.ui.flow_layout import FlowLayout
from engram.ui.i18n import Retranslating

ROLES = ("small", "large")
STATS_MIN_WIDTH = 60
COMBO_MIN_CHARS = 8  # the switchers' narrowest width in characters, when short of room


class ModelCombo(QComboBox):
    """A model switcher as wide as its longest name while the header has room; with less room
    the name is shortened in the middle ("SmolLM2 1…ct (Q4_1)"), and the tooltip has it whole."""

    def __init__(self) -> None:
        super().__init__()
        self._tip = ""
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.currentIndexChanged.connect(self.name_in_tooltip)

    def set_tip(self, tip: str) -> None:
        """What the switcher is for (its accessible name, and its tooltip under the name)."""
        self._tip = tip
        self.setAccessibleName(tip)
        self.name_in_tooltip()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        """The frame and arrow around COMBO_MIN_CHARS characters, whatever the names' length."""
        hint = self.sizeHint()
        metrics = self.fontMetrics()
        longest = max(
            (metrics.horizontalAdvance(self.itemText(i)) for i in range(self.count())), default=0
        )
        narrowest = metrics.horizontalAdvance("x" * COMBO_MIN_CHARS)
        hint.setWidth(hint.width() - max(0, longest - narrowest))
        return hint

    def shown_text(self) -> str:
        """The current name as it fits the box now (shortened in the middle when it must be)."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        return self.fontMetrics().elidedText(
            self.currentText(), Qt.TextElideMode.ElideMiddle, field.width()
        )

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def name_in_tooltip(self) -> None:
        """The whole name of the current model, then what the switcher is for."""
        name = self.currentText()
        self.setToolTip(f"{name}\n{self._tip}" if name else self._tip)


class Caption(QLabel):
    """A switcher's caption ("Model:", "Large:") as wide as the widest of ``peers`` (itself
    among them), its text at the right: when the switchers wrap onto lines of their own, their
    boxes start at the same place."""

    def __init__(self, peers: list[Caption]) -> None:
        super().__init__()
        self.peers = peers
        self.setObjectName("header_caption")
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        peers.append(self)

    def _widest(self, hint: QSize) -> QSize:
        hint.setWidth(max(QLabel.sizeHint(peer).width() for peer in self.peers))
        return hint

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return self._widest(super().sizeHint())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return self._widest(super().minimumSizeHint())

    def setText(self, text: str) -> None:  # noqa: N802 (Qt API)
        super().setText(text)
        for peer in self.peers:  # a longer caption widens the others too
            peer.updateGeometry()


class AnswerNumbers(ElidedLabel):
    """The last answer's speed and context use; hidden, taking no room, until there are some."""

    def __init__(self, min_width: int) -> None:
        super().__init__(min_width=min_width)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt API)
        super().setText(text)
        self.setVisible(bool(text))


class ChatHeader(Retranslating, QWidget):
    """Emits ``model_chosen(role, model id)`` when the user picks another installed model."""

    model_chosen = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("chat_header")
        self.combos: dict[str, ModelCombo] = {}
        self.captions: dict[str, Caption] = {}
        peers: list[Caption] = []
        self._models: tuple[list[tuple[str, str, tuple[str, ...]]], dict[str, str]] | None = None
        # Three parts, each switcher and the actions (the last answer's numbers, the buttons),
        # side by side while they fit; with less room the actions wrap onto a line of their own,
        # at its right end, and then the large model's switcher does. The header never widens
        # the window: only a part wider than a whole line gives way (names shortened in the
        # middle, the numbers ending in "…"), so two names that differ in the middle ("Qwen2.5
        # Coder 0.5B …" and "… 1.5B …") are never both cut to the same text. The captions are
        # equally wide, so switchers on lines of their own line up.
        layout = FlowLayout(self, spacing=12, last_right=True)
        layout.setContentsMargins(4, 0, 4, 0)
        for role in ROLES:
            caption = Caption(peers)
            combo = ModelCombo()
            combo.setObjectName(f"{role}_model")
            combo.activated.connect(lambda _index, r=role: self._chosen(r))
            switcher = QHBoxLayout()
            switcher.addWidget(caption)
            switcher.addWidget(combo)
            layout.addWidget(_part(switcher))
            self.captions[role] = caption
            self.combos[role] = combo
        self.stats = AnswerNumbers(min_width=STATS_MIN_WIDTH)
        self.stats.setObjectName("answer_stats")
        self.tools = QHBoxLayout()
        self.tools.addWidget(self.stats, 1)
        layout.addWidget(_part(self.tools))
        self.retranslate()

    def retranslate(self) -> None:
        self.captions["small"].setText(self.tr("Model:"))
        self.captions["large"].setText(self.tr("Large:"))
        self.combos["small"].set_tip(self.tr("The model that answers (installed models only)"))
        self.combos["large"].set_tip(
            self.tr("The model for “Ask large model” and learning (installed only)")
        )
        if self._models is not None:  # "(not installed)" in the current language
            self.show_models(*self._models)

    def add_button(self, checkable: bool = False) -> QToolButton:
        """A button at the header's right end (export, temporary chat, plan); its owner names
        it (and again on a language change)."""
        button = QToolButton()
        button.setObjectName("header_button")
        button.setCheckable(checkable)
        self.tools.addWidget(button)
        return button

    def show_models(
        self, models: list[tuple[str, str, tuple[str, ...]]], chosen: dict[str, str]
    ) -> None:
        """``models``: (id, name, roles) of the installed chat models; ``chosen``: role → id."""
        self._models = (models, chosen)
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
            combo.name_in_tooltip()
            combo.updateGeometry()  # the longest name may have changed

    def _chosen(self, role: str) -> None:
        model_id = self.combos[role].currentData()
        if isinstance(model_id, str):
            self.model_chosen.emit(role, model_id)


def _part(row: QHBoxLayout) -> QWidget:
    """One part of the header: its widgets side by side."""
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(4)
    part = QWidget()
    part.setLayout(row)
    return part
