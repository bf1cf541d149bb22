"""Shows the exact prompt an answer was given, part by part, with token counts."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPlainTextEdit, QVBoxLayout, QWidget

from engram.assistant.events import PromptParts
from engram.core.messages import Message
from engram.ui import screen_fit


class PromptDialog(QDialog):
    """Read-only: system part, conversation, memory block and message, as sent to the model."""

    def __init__(
        self,
        parts: PromptParts,
        parent: QWidget | None = None,
        tool_steps: Sequence[tuple[str, str, str]] = (),
    ) -> None:
        """``tool_steps``: (tool, arguments, result) of the calls the answer made."""
        super().__init__(parent)
        self.setWindowTitle(self.tr("Prompt of this answer"))
        self.resize(760, 560)
        screen_fit.fit(self, parent.screen() if parent is not None else None, centre=False)
        tokens = parts.tokens
        sections = [
            (self.tr("System part"), tokens.get("system", 0), parts.system),
            *self._tools(parts),
            (
                self.tr("Conversation"),
                tokens.get("history", 0),
                _said(parts.history),
            ),
            (
                self.tr("Memory block"),
                tokens.get("memory", 0),
                # in the prompt's order: the lessons' examples, then the block in the message
                "\n\n".join(filter(None, [_said(parts.examples), parts.block])),
            ),
            (self.tr("Message"), tokens.get("user", 0), parts.user),
        ]
        text = "\n\n".join(
            self.tr("=== {title} ({tokens} tokens) ===").format(title=title, tokens=count)
            + f"\n{body}"
            for title, count, body in sections
        )
        for step, (name, arguments, result) in enumerate(tool_steps, 1):
            text += "\n\n" + self.tr("=== Tool call {step}: {name} ===").format(
                step=step, name=name
            )
            text += f"\n{arguments}\n→ {result}"
        self.view = QPlainTextEdit(text)
        self.view.setReadOnly(True)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.view.setAccessibleName(self.tr("Prompt"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
        layout.addWidget(buttons)

    def _tools(self, parts: PromptParts) -> list[tuple[str, int, str]]:
        """The tool list, when the chat template renders it beside the system part (else it
        is in the system part's text)."""
        if not parts.tools:
            return []
        title = self.tr("Tools (the chat template lists them)")
        return [(title, parts.tokens.get("tools", 0), parts.tools)]


def _said(messages: Sequence[Message]) -> str:
    """Messages as the viewer lists them: each with its role in front."""
    return "\n\n".join(f"[{m['role']}] {m['content']}" for m in messages)
