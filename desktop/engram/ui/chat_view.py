"""The message list: one bubble per message, streaming text coalesced to a steady frame rate."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QEnterEvent, QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engram.assistant.chats import EarlierAnswer
from engram.assistant.events import PromptParts, Recalled
from engram.ui import markdown, theme
from engram.ui.answer_versions import VersionSwitch
from engram.ui.chips import MemoryChips
from engram.ui.i18n import Retranslating, Text, said
from engram.ui.tool_block import ToolBlock
from engram.ui.waiting import WaitingLine

FRAME_MS = 33
RENDER_SHARE_INVERSE = 4
# Laying out a megabyte of rich text would freeze the window; longer messages show their start.
DISPLAY_CHARS = 20_000


class MessageBubble(Retranslating, QFrame):
    """One message: the user's as typed, the assistant's rendered from Markdown, in a coloured
    :attr:`frame` as tall as its content; under the frame, a row of buttons that shows while the
    pointer is over the message (copy, regenerate or edit — on the latest turn only —, thumbs,
    prompt). A language or theme change renders it again (code blocks take the theme's
    colours)."""

    # "regenerate" | "edit" | "prompt" | "thumbs_up" | "thumbs_down", the bubble
    action = Signal(str, object)

    def __init__(self, role: str, text: str = "", episode_id: int = 0) -> None:
        super().__init__()
        self.role = role
        self.episode_id = episode_id
        self.prompt: PromptParts | None = None
        self.code_blocks: list[str] = []
        self.changeable = False  # the latest turn, no answer running: regenerate or edit
        self._rendered_theme = ""
        self._caption: Text = ""
        self._marker: Text = ""
        self.earlier: list[EarlierAnswer] = []  # the answers Regenerate replaced, oldest first
        self.version = 0  # the answer shown: an index into earlier, or len(earlier), the latest
        self.frame = QFrame()
        self.frame.setObjectName(f"bubble_{role}")
        self.label = QLabel()
        self.label.setTextFormat(
            Qt.TextFormat.RichText if role == "assistant" else Qt.TextFormat.PlainText
        )
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        self.label.linkActivated.connect(self._on_link)
        self.label.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.label.customContextMenuRequested.connect(self._menu)
        self.chips: MemoryChips | None = None
        self.marker = QLabel()
        self.marker.setObjectName("bubble_marker")
        self.marker.setWordWrap(True)  # a long note wraps instead of widening the chat
        self.marker.hide()
        self.caption: QLabel | None = None  # a line above the message, once there is one
        self.vote = 0  # +1 / -1 once the user gave a thumb
        self.tool_blocks: list[ToolBlock] = []
        self.waiting: WaitingLine | None = None  # until the answer's first words
        self._layout = QVBoxLayout(self.frame)
        self._layout.setContentsMargins(12, 8, 12, 8)
        self._layout.addWidget(self.label)
        self._layout.addWidget(self.marker)
        self.actions_row = self._actions()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self.frame)
        outer.addWidget(self.actions_row)
        self.set_text(text)
        self.set_changeable(False)

    def retranslate(self) -> None:
        """The buttons, the caption, the marker and the message (its "Copy code" links and
        its note on a long text) in the current language."""
        for name, (label, tip) in self._button_texts().items():
            self.buttons[name].setText(label)
            self.buttons[name].setToolTip(tip)
            self.buttons[name].setAccessibleName(tip)
        if self.caption is not None:
            self.caption.setText(said(self._caption))
        self.show_version(self.version)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        """A theme change (a new palette or stylesheet): code blocks take the new colours."""
        kinds = (QEvent.Type.PaletteChange, QEvent.Type.StyleChange)
        stale = self.role == "assistant" and self._rendered_theme != theme.current()
        if event.type() in kinds and stale:
            self.show_version(self.version)
        super().changeEvent(event)

    def _button_texts(self) -> dict[str, tuple[str, str]]:
        """Each hover button's label (short words, readable in any font) and what it does."""
        texts = {"copy": (self.tr("Copy"), self.tr("Copy this message"))}
        if self.role == "assistant":
            # The thumbs before the buttons that come and go (Regenerate, Prompt): they never
            # move, so the answer that replaces a regenerated one never has its Good under the
            # pointer that clicked Regenerate (hovered, it looked pressed).
            texts |= {
                "thumbs_up": (self.tr("Good"), self.tr("A good answer: Engram learns from it")),
                "thumbs_down": (self.tr("Bad"), self.tr("A bad answer: Engram learns from it")),
                "regenerate": (self.tr("Regenerate"), self.tr("Answer this message again")),
                "prompt": (self.tr("Prompt"), self.tr("Show the prompt of this answer")),
            }
        elif self.role == "user":
            texts["edit"] = (self.tr("Edit"), self.tr("Edit and resend"))
        return texts

    def set_changeable(self, changeable: bool) -> None:
        """Regenerate (an answer) and Edit (the user's message) are offered only where they
        work: on the latest turn while no answer is running."""
        self.changeable = changeable
        for name in ("regenerate", "edit"):
            if name in self.buttons:
                self.buttons[name].setVisible(changeable)

    def _actions(self) -> QWidget:
        """The hover row under the frame, on the message's side; it keeps its height while
        hidden (the gap to the next message), so the chat never jumps."""
        row = QWidget()
        row.setObjectName("bubble_actions")
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.setSpacing(2)
        self.buttons: dict[str, QToolButton] = {}
        self.versions = VersionSwitch()  # shown once Regenerate replaced an answer
        self.versions.chosen.connect(self.show_version)
        if self.role == "user":
            layout.addStretch(1)
        for name, (label, tip) in self._button_texts().items():
            button = QToolButton()
            button.setObjectName("bubble_action")
            button.setText(label)
            button.setToolTip(tip)
            button.setAccessibleName(tip)
            button.setCheckable(name.startswith("thumbs"))
            button.clicked.connect(lambda _=False, n=name: self._act(n))
            layout.addWidget(button)
            self.buttons[name] = button
        # Last, so the thumbs stay where they were when it appears (under Regenerate's pointer)
        layout.addWidget(self.versions)  # hidden while the message has one answer
        if self.role != "user":
            layout.addStretch(1)
        policy = row.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        row.setSizePolicy(policy)
        row.hide()
        return row

    def _act(self, name: str) -> None:
        if name == "copy":
            self._copy()
            return
        if name.startswith("thumbs"):
            self.vote = 1 if name == "thumbs_up" else -1
            self.buttons["thumbs_up"].setChecked(self.vote > 0)
            self.buttons["thumbs_down"].setChecked(self.vote < 0)
        self.action.emit(name, self)

    def set_marker(self, text: Text) -> None:
        """A small note under the message (stopped, cut at the length limit); a callable is
        asked again on a language change."""
        self._marker = text
        self._show_marker()

    def _show_marker(self) -> None:
        text = said(self._marker) if self.latest_shown() else self.tr(
            "An earlier answer: Regenerate replaced it, and the chat goes on from the latest."
        )  # fmt: skip
        self.marker.setText(text)
        self.marker.setVisible(bool(text))

    def latest_shown(self) -> bool:
        """The latest answer is shown (not one Regenerate replaced)."""
        return self.version >= len(self.earlier)

    def set_earlier(self, earlier: Sequence[EarlierAnswer]) -> None:
        """The answers this message had before (oldest first); the latest is shown."""
        self.earlier = list(earlier)
        self.show_version(len(self.earlier))

    def show_version(self, index: int) -> None:
        """Show answer ``index`` (oldest first; ``len(earlier)`` is the latest). An earlier one
        comes without the latest's chips, tool steps, thumbs and prompt: they are not its."""
        self.version = max(0, min(index, len(self.earlier)))
        latest = self.latest_shown()
        self.versions.set_position(self.version, len(self.earlier) + 1)
        self._render(self.text if latest else self.earlier[self.version].content)
        for widget in (self.chips, *self.tool_blocks):
            if widget is not None:
                widget.setVisible(latest)
        for name in ("thumbs_up", "thumbs_down", "prompt"):
            if name in self.buttons:
                self.buttons[name].setEnabled(latest)
        self._show_marker()

    def enterEvent(self, event: QEnterEvent) -> None:  # noqa: N802 (Qt API)
        self.actions_row.show()
        if "prompt" in self.buttons:
            self.buttons["prompt"].setVisible(self.prompt is not None)
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        self.actions_row.hide()
        super().leaveEvent(event)

    def set_caption(self, text: Text) -> None:
        """A small line above the message (e.g. which model answered); a callable is asked
        again on a language change."""
        self._caption = text
        if self.caption is None:
            self.caption = QLabel()
            self.caption.setObjectName("bubble_caption")
            self._layout.insertWidget(0, self.caption)
        self.caption.setText(said(text))

    def add_block(self, block: QWidget) -> None:
        """A tool call or a permission question, above the answer's text (it came first)."""
        if isinstance(block, ToolBlock):
            self.tool_blocks.append(block)
            block.setVisible(self.latest_shown())  # not while an earlier answer is shown
        self._layout.insertWidget(self._layout.indexOf(self.label), block)

    def add_footer(self, widget: QWidget) -> None:
        """Something offered after the answer was read (Ask large model), under all of it."""
        self._layout.addWidget(widget, 0, Qt.AlignmentFlag.AlignLeft)

    def show_waiting(
        self, text: Text, share: float | Callable[[], float | None] | None = None
    ) -> WaitingLine:
        """Until the answer's first words: what it waits for, and since when."""
        if self.waiting is None:
            self.waiting = WaitingLine()
            self._layout.insertWidget(self._layout.indexOf(self.label), self.waiting)
        self.waiting.set_stage(text, share)
        return self.waiting

    def hide_waiting(self) -> None:
        """The answer is writing (or ended): no more waiting line."""
        if self.waiting is not None:
            self.waiting.stop()
            self._layout.removeWidget(self.waiting)
            self.waiting.deleteLater()
            self.waiting = None

    def set_chips(self, chips: MemoryChips) -> None:
        self.chips = chips
        chips.setVisible(self.latest_shown())  # not while an earlier answer is shown
        self._layout.insertWidget(self._layout.indexOf(self.marker), chips)

    def set_text(self, text: str) -> None:
        """The latest answer's text (shown unless an earlier answer is)."""
        self.text = text
        if self.latest_shown():
            self._render(text)

    def shown_text(self) -> str:
        """The text on screen: the latest answer, or the earlier one the user went back to."""
        return self.text if self.latest_shown() else self.earlier[self.version].content

    def _render(self, text: str) -> None:
        shown = text
        if len(text) > DISPLAY_CHARS:
            hidden = len(text) - DISPLAY_CHARS
            note = self.tr("(%n more characters not shown; the whole message is saved)", "", hidden)
            shown = f"{text[:DISPLAY_CHARS]}…\n\n*{note}*"
        if self.role == "assistant":
            self._rendered_theme = theme.current()
            shown, self.code_blocks = markdown.render(
                shown, self._rendered_theme, self.tr("Copy code")
            )
        self.label.setText(shown)
        self.label.setVisible(bool(text))  # no empty line while an answer waits for its words
        self.setAccessibleDescription(text[:200])

    def _on_link(self, href: str) -> None:
        if href.startswith("copy:"):
            index = int(href.removeprefix("copy:"))
            if 0 <= index < len(self.code_blocks):
                QGuiApplication.clipboard().setText(self.code_blocks[index])
        elif href.startswith(("http://", "https://")):
            QDesktopServices.openUrl(QUrl(href))

    def menu_actions(self) -> QMenu:
        """The bubble's menu: copy, and the actions that fit this message."""
        menu = QMenu(self)
        menu.addAction(self.tr("Copy message"), self._copy)
        if self.role == "assistant" and self.changeable:
            menu.addAction(self.tr("Regenerate"), lambda: self.action.emit("regenerate", self))
        if self.role == "assistant" and self.prompt is not None:
            menu.addAction(self.tr("Show prompt…"), lambda: self.action.emit("prompt", self))
        elif self.role == "user" and self.changeable:
            menu.addAction(self.tr("Edit and resend"), lambda: self.action.emit("edit", self))
        return menu

    def _menu(self, pos: QPoint) -> None:
        self.menu_actions().exec(self.label.mapToGlobal(pos))

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.shown_text())


class ChatView(Retranslating, QScrollArea):
    """A scrolling column of bubbles that follows new text while the user is at the bottom."""

    memory_wrong = Signal(int, int)  # answer episode id, memory id: "This is wrong" on a chip
    open_memory = Signal(int)
    bubble_action = Signal(str, object)  # forwarded from MessageBubble.action

    def __init__(self) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.retranslate()
        self._column = QWidget()
        self._column.setObjectName("chat_column")
        self._layout = QVBoxLayout(self._column)
        self._layout.setSpacing(4)
        self._layout.addStretch(1)
        self.setWidget(self._column)
        self._bubbles: list[MessageBubble] = []
        self._streaming: MessageBubble | None = None
        self._pending = ""
        self._next_render = 0.0
        self._frame = QTimer(self)
        self._frame.setInterval(FRAME_MS)
        self._frame.timeout.connect(self._flush)
        self._follow = True
        self._changes_allowed = False  # no answer running: the latest turn may be changed
        self._carried: list[EarlierAnswer] = []  # for the answer that replaces a regenerated one
        self.verticalScrollBar().rangeChanged.connect(self._on_range_changed)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    def retranslate(self) -> None:
        self.setAccessibleName(self.tr("Conversation"))

    def allow_changes(self, allowed: bool) -> None:
        """While an answer runs (or no model is ready) no message offers Regenerate or Edit."""
        self._changes_allowed = allowed
        self._offer_changes()

    def _offer_changes(self) -> None:
        """Regenerate and Edit on the latest turn's messages, nowhere else."""
        latest = (self.latest("user"), self.latest("assistant"))
        for bubble in self._bubbles:
            bubble.set_changeable(self._changes_allowed and bubble in latest)

    def clear(self) -> None:
        self._frame.stop()
        self._streaming = None
        self._carried = []
        for bubble in self._bubbles:
            self._layout.removeWidget(bubble)
            bubble.deleteLater()
        self._bubbles.clear()

    def bubbles(self) -> list[MessageBubble]:
        """The messages shown, oldest first."""
        return list(self._bubbles)

    def drop_latest_turn(self, keep_answer: bool = False) -> None:
        """Remove the last user message and the answer after it (before a resend); with
        ``keep_answer`` (the same message sent again) the next answer keeps this one and those
        it had replaced, to be read again."""
        user = self.latest("user")
        if user is None:
            return
        answer = self.latest("assistant")
        self._carried = []
        if keep_answer and answer is not None:
            kept = [EarlierAnswer(answer.text, time.time())] if answer.text else []
            self._carried = [*answer.earlier, *kept]
        for bubble in self._bubbles[self._bubbles.index(user) :]:
            self._layout.removeWidget(bubble)
            bubble.deleteLater()
            if bubble is self._streaming:  # the answer it was waiting for goes with it
                self._frame.stop()
                self._streaming, self._pending = None, ""
        del self._bubbles[self._bubbles.index(user) :]
        self._offer_changes()

    def add(self, role: str, text: str, episode_id: int = 0) -> MessageBubble:
        bubble = MessageBubble(role, text, episode_id)
        bubble.action.connect(self.bubble_action)
        self._layout.insertWidget(self._layout.count() - 1, bubble)
        self._bubbles.append(bubble)
        self._follow = True
        self._offer_changes()
        return bubble

    def begin_answer(self) -> MessageBubble:
        self._streaming = self.add("assistant", "")
        if self._carried:
            self._streaming.set_earlier(self._carried)
            self._carried = []
        self._pending = ""
        self._frame.start()
        return self._streaming

    def append_token(self, text: str) -> None:
        self._pending += text

    def answering(self) -> MessageBubble | None:
        """The bubble an answer is streaming into (or waiting for its first words in)."""
        return self._streaming

    def streamed_text(self) -> str:
        """What the streaming answer has said so far (shown or not yet)."""
        shown = self._streaming.text if self._streaming is not None else ""
        return shown + self._pending

    def latest(self, role: str) -> MessageBubble | None:
        """The last bubble of ``role`` when it belongs to the latest turn, else None."""
        tail = self._bubbles[-2:]
        return next((b for b in reversed(tail) if b.role == role), None)

    def end_answer(
        self,
        text: str,
        recalled: Sequence[Recalled] = (),
        used: Sequence[Recalled] = (),
        episode_id: int = 0,
    ) -> None:
        self._frame.stop()
        if self._streaming is not None:
            self._streaming.hide_waiting()
            self._streaming.episode_id = episode_id
            self._streaming.set_text(text)
            if recalled:
                self.attach_chips(self._streaming, recalled, used)
        self._streaming = None
        self._pending = ""

    def attach_chips(
        self, bubble: MessageBubble, recalled: Sequence[Recalled], used: Sequence[Recalled] = ()
    ) -> None:
        """Show under an answer the memories it was given (highlighting the ones it used)."""
        chips = MemoryChips(recalled, used)
        chips.wrong.connect(lambda memory_id: self.memory_wrong.emit(bubble.episode_id, memory_id))
        chips.open_memory.connect(self.open_memory)
        bubble.set_chips(chips)

    def show_wrong(self, answer_episode_id: int, memory_id: int) -> None:
        """Mark a memory's chip under an answer as wrong."""
        for bubble in self._bubbles:
            if bubble.episode_id == answer_episode_id and bubble.chips is not None:
                bubble.chips.show_wrong(memory_id)

    def _flush(self) -> None:
        """Show the new text; a long answer re-renders less often, so the UI never stutters.

        Rendering Markdown grows with the answer, so the next frame waits for
        RENDER_SHARE_INVERSE times as long as this one took (at most ~20% of the UI thread).
        """
        if self._streaming is None or not self._pending:
            return
        now = time.perf_counter()
        if now < self._next_render:
            return
        self._streaming.set_text(self._streaming.text + self._pending)
        self._pending = ""
        spent = time.perf_counter() - now
        self._next_render = time.perf_counter() + spent * RENDER_SHARE_INVERSE

    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._follow = value >= bar.maximum() - 24

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)
