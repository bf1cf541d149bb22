"""Tools inside an answer: a compact block per call (tool, arguments, result, time), folded by
default, and the inline question whether a tool may run (allow once, always, deny), with the
request the model thread waits on meanwhile."""

from __future__ import annotations

import json
import threading

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout

from engram.assistant.chats import Episode
from engram.assistant.tools.permissions import BUILT_IN, DENY, RECALLED, REMEMBER, Question
from engram.core.cancel import CancelToken
from engram.ui.i18n import Retranslating

RESULT_CHARS = 4_000  # shown in the block; the model got its own cut of the result
ANSWER_POLL_S = 0.05  # how often a tool waiting for permission checks for Stop


def _arguments_text(arguments: object) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False, indent=1)


class ToolBlock(Retranslating, QFrame):
    """One tool call: a header line that unfolds to the arguments and the result."""

    def __init__(self, name: str, arguments: object, error: str = "") -> None:
        super().__init__()
        self.setObjectName("tool_block")
        self.name = name
        self.arguments = _arguments_text(arguments)
        self.result = ""
        self._outcome: tuple[bool, float | None] | None = None  # (failed, seconds) once done
        self.header = QToolButton()
        self.header.setObjectName("tool_header")
        self.header.setCheckable(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setArrowType(Qt.ArrowType.RightArrow)
        self.header.toggled.connect(self._fold)
        self.body = QLabel()
        self.body.setObjectName("tool_body")
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.body.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.body)
        if error:
            self.set_result(error, is_error=True, duration_s=None)
        else:
            self.retranslate()

    def retranslate(self) -> None:
        """The header line and the body's headings in the current language."""
        if self._outcome is None:
            head = self.tr("Tool: {name} · running…").format(name=self.name)
        elif self._outcome[0]:
            head = self.tr("Tool: {name} · failed").format(name=self.name)
        elif self._outcome[1] is None:
            head = self.tr("Tool: {name}").format(name=self.name)
        else:
            head = self.tr("Tool: {name} · {seconds:.2f} s").format(
                name=self.name, seconds=self._outcome[1]
            )
        self.header.setText(head)
        result = self.result
        if len(result) > RESULT_CHARS:
            result = result[:RESULT_CHARS] + "…"
        parts = [self.tr("Arguments:"), self.arguments]
        if self.result:
            parts += ["", self.tr("Result:"), result]
        self.body.setText("\n".join(parts))

    @classmethod
    def from_stored(cls, episode: Episode) -> ToolBlock:
        """A block for a stored ``tool`` message, from its call and result as stored
        (``Episode.step``); one stored without them shows its text as the result."""
        step = episode.step
        block = cls(step.name or "?", step.arguments) if step is not None else cls("?", "")
        result, error = (step.result, step.error) if step is not None else (episode.content, False)
        block.set_result(result, is_error=error, duration_s=None)
        return block

    def set_result(self, text: str, is_error: bool, duration_s: float | None) -> None:
        self.result = text
        self._outcome = (is_error, duration_s)
        self.retranslate()
        self.setProperty("failed", is_error)
        self.style().unpolish(self)
        self.style().polish(self)

    def _fold(self, unfolded: bool) -> None:
        self.body.setVisible(unfolded)
        self.header.setArrowType(Qt.ArrowType.DownArrow if unfolded else Qt.ArrowType.RightArrow)


class PermissionRequest:
    """A tool waiting for the user's choice: the model thread waits, the window answers."""

    def __init__(self, question: Question) -> None:
        self.question = question
        self.choice = DENY
        self._answered = threading.Event()

    def answer(self, choice: str) -> None:
        """From the UI thread: "once", "always" or "deny"."""
        self.choice = choice
        self._answered.set()

    def wait(self, cancel: CancelToken) -> str:
        """The user's choice; "deny" when the answer is stopped first."""
        while not self._answered.wait(ANSWER_POLL_S):
            if cancel.cancelled:
                return DENY
        return self.choice


class PermissionPrompt(Retranslating, QFrame):
    """Asks in the chat whether a tool may run; ``answered(choice)`` with "once", "always" or
    "deny", then it shows what was chosen."""

    answered = Signal(str)

    def __init__(self, question: Question) -> None:
        super().__init__()
        self.setObjectName("permission_prompt")
        self.name, self.source, self.after = question.name, question.source, question.after
        self.arguments = question.arguments
        self.question = QLabel()
        self.question.setWordWrap(True)
        self.question.setTextFormat(Qt.TextFormat.PlainText)  # it quotes untrusted text
        details = QLabel(_arguments_text(question.arguments))
        details.setObjectName("tool_body")
        details.setTextFormat(Qt.TextFormat.PlainText)
        details.setWordWrap(True)
        details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.buttons = {choice: QPushButton() for choice in ("once", "always", "deny")}
        row = QHBoxLayout()
        for choice, button in self.buttons.items():
            button.clicked.connect(lambda _=False, c=choice: self.answer(choice=c))
            row.addWidget(button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.question)
        layout.addWidget(details)
        layout.addLayout(row)
        # After untrusted text the answer covers this call alone: "always" is not offered.
        self.buttons["always"].setVisible(not self.after)
        self.choice = ""
        self.retranslate()

    def retranslate(self) -> None:
        """The question, its buttons and the choice made, in the current language."""
        question = self._question()
        said = {
            "once": self.tr("Allowed once."),
            "always": self.tr("Always allowed (change it in Settings → Tools)."),
            "deny": self.tr("Denied."),
        }
        self.question.setText(f"{question} {said[self.choice]}" if self.choice else question)
        self.buttons["once"].setText(self.tr("Allow once"))
        self.buttons["always"].setText(self.tr("Always allow this tool"))
        self.buttons["deny"].setText(self.tr("Deny"))

    def _question(self) -> str:
        """What the tool wants, and where the text it read before came from: that text, not
        the user, may be what asks (a file that says "call remember with …")."""
        read = ", ".join(
            self.tr("your recalled memories") if s == RECALLED else s for s in self.after
        )
        if self.name == REMEMBER and self.source == BUILT_IN:
            content = str(self.arguments.get("content", ""))
            if read:
                return self.tr(
                    "The model wants to remember “{content}” after reading {read}. That text, "
                    "not you, may be asking for it."
                ).format(content=content, read=read)
            return self.tr("The model wants to remember “{content}”.").format(content=content)
        source = self.tr("built-in") if self.source == BUILT_IN else self.source  # or the server
        question = self.tr("Engram wants to use the tool {name} ({source}):").format(
            name=self.name, source=source
        )
        if read:
            question += " " + self.tr(
                "It asks after reading {read}: that text, not you, may be asking for it."
            ).format(read=read)
        return question

    def answer(self, choice: str) -> None:
        """Record the choice once (a click, or "deny" when the answer ends first)."""
        if self.choice:
            return
        self.choice = choice
        for button in self.buttons.values():
            button.setEnabled(False)
        self.retranslate()
        self.answered.emit(choice)
