"""The chat's turns on screen: an answer streaming in from the model worker's ``TurnEvent``s (tool
blocks, permission questions, markers, the header's numbers), a stored chat when it is opened
again, and the buttons on each message (prompt, thumbs, regenerate, edit; after a thumb down on the
latest answer, Ask large model in the answer itself)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QMainWindow, QPushButton, QSizePolicy, QWidget

from engram.assistant.chats import EarlierAnswer, Episode
from engram.assistant.events import (
    CallNotRead,
    Cancelled,
    Event,
    Failed,
    Finished,
    Forgotten,
    NothingToForget,
    NotRemembered,
    PromptParts,
    Recalled,
    Recalling,
    Remembered,
    Token,
    ToolCalled,
    ToolResult,
    Truncated,
    TurnStarted,
)
from engram.core.errors import Problem
from engram.ui.chat_view import ChatView, MessageBubble
from engram.ui.elided import ElidedLabel
from engram.ui.i18n import Retranslating, Text
from engram.ui.notices import Notices
from engram.ui.prompt_dialog import PromptDialog
from engram.ui.tool_block import PermissionPrompt, PermissionRequest, ToolBlock


class RetryButton(Retranslating, QPushButton):
    """Under a message whose answer never came (a kill, a crash): answer it now."""

    def __init__(self, retry: Callable[[], None]) -> None:
        super().__init__()
        self.setObjectName("retry_button")
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)  # its text wide
        self.clicked.connect(retry)
        self.retranslate()

    def retranslate(self) -> None:
        self.setText(self.tr("Retry"))
        self.setToolTip(self.tr("Answer this message now"))


class AskLargeButton(Retranslating, QPushButton):
    """In an answer the user marked bad: ask the same question of the large model (the bubble's
    ``ask_large`` action; the turn controls send it)."""

    def __init__(self, bubble: MessageBubble) -> None:
        super().__init__()
        self.setObjectName("ask_large_offer")
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        self.bubble = bubble
        self.clicked.connect(self._ask)
        self.retranslate()

    def _ask(self) -> None:
        self.hide()  # offered once: the large model's answer follows
        self.bubble.action.emit(ASK_LARGE, self.bubble)

    def retranslate(self) -> None:
        self.setText(self.tr("Ask large model"))
        self.setToolTip(self.tr("Ask the same question of the large model: slower, but stronger"))


ASK_LARGE = "ask_large"  # a bubble's action: ask its question again, of the large model


class AnswerView(QObject):
    """Shows turns in ``chat``; problems and toasts go to ``notices``, the last answer's speed
    and context use to ``stats``. ``large_is_other()``: captions name the large model only when
    it is another file than the small one; ``busy()``: an answer is running; ``reading()``: how
    far the model has read the answer's prompt, (tokens read, prompt tokens), when it says."""

    turn_started = Signal(int)  # the conversation the answer belongs to (new for a first one)
    answered = Signal()  # an answer finished
    judge_requested = Signal(int, str, object)  # answer episode id, signal kind, text or None
    resend_requested = Signal(int, str)  # the latest user message's episode id, text to send
    unsent = Signal(str)  # a message that failed before it was stored: back to the message box

    def __init__(
        self,
        window: QMainWindow,
        chat: ChatView,
        notices: Notices,
        stats: ElidedLabel,
        large_is_other: Callable[[], bool],
        busy: Callable[[], bool],
    ) -> None:
        super().__init__(window)
        self._window = window
        self.chat = chat
        self.notices = notices
        self.stats = stats
        self.large_is_other = large_is_other
        self.busy = busy
        self.reading: Callable[[], tuple[int, int] | None] = lambda: None
        self.answers: dict[int, MessageBubble] = {}  # the stored answers shown, by episode id
        self.pending_prompts: list[PermissionPrompt] = []  # questions not answered yet
        self._prompt: PromptParts | None = None
        self._tool_blocks: dict[int, ToolBlock] = {}  # this answer's, by step
        self._call_not_read = False  # this answer wrote a call that could not be used
        self._finished: Finished | None = None  # the last answer, for the header's numbers
        self.unanswered: Episode | None = None  # the chat's last message, when its answer was
        # interrupted before it was stored (a kill, a crash)
        chat.bubble_action.connect(self._on_bubble_action)

    def retranslate(self) -> None:
        """The header's numbers in the current language (the bubbles retranslate themselves)."""
        if self._finished is not None:
            self.show_stats(self._finished)

    # -- a live answer -------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        if isinstance(event, Forgotten | NothingToForget):
            # "forget that" is no turn: the message goes; a toast says what went, with an undo
            self.chat.drop_latest_turn()
            self.notices.forgotten(event if isinstance(event, Forgotten) else None)
        elif isinstance(event, TurnStarted):
            self.turn_started.emit(event.conversation_id)
            self._tool_blocks = {}
            self._call_not_read = False
            user = self.chat.latest("user")
            if user is not None:
                user.episode_id = event.user_episode_id
            self._prompt = None
            answer = self.chat.answering() or self.chat.begin_answer()
            if event.escalated and self.large_is_other():
                answer.set_caption(self._by_large)
        elif isinstance(event, Remembered):
            self.notices.toast(self.tr("Remembered: {text}").format(text=event.content))
        elif isinstance(event, NotRemembered):
            self.notices.toast(event.problem)
        elif isinstance(event, Recalling):
            self._prompt = event.prompt
            self._wait(self._reading(len(event.items), sum(event.prompt.tokens.values())),
                       self._read_share)  # fmt: skip
        elif isinstance(event, Token):
            if (writing := self.chat.answering()) is not None:
                writing.hide_waiting()  # its first words
            self.chat.append_token(event.text)
        elif isinstance(event, ToolCalled):
            block = ToolBlock(event.name, event.arguments, event.error)
            self._tool_blocks[event.step] = block
            if (writing := self.chat.answering()) is not None:
                writing.hide_waiting()  # shown again under the block
            self._add_to_answer(block)
            name = event.name
            self._wait(lambda: self.tr("Running the tool {name}…").format(name=name))
        elif isinstance(event, ToolResult) and event.step in self._tool_blocks:
            self._tool_blocks[event.step].set_result(event.text, event.is_error, event.duration_s)
            name = event.name
            self._wait(lambda: self.tr("Reading what {name} gave back…").format(name=name))
        elif isinstance(event, Truncated):
            count = f"{event.chars:,}"
            self.notices.problem(
                lambda: self.tr(
                    "The message is too long for the model's context; the last {count} "
                    "characters were left out of this answer (the whole message is saved)."
                ).format(count=count)
            )
        elif isinstance(event, CallNotRead):
            self._call_not_read = True
        elif isinstance(event, Finished):  # its chips are those the chat shows when reopened
            self._end_answer(event.text, event.recalled, event.used, event.episode_id)
            if self._call_not_read:
                self._mark_latest(self._not_read)
            self.show_stats(event)
            self.answered.emit()
        elif isinstance(event, Cancelled):
            self._end_answer(event.text, event.recalled, event.used, event.episode_id)
            self._mark_latest(self._stopped)
        elif isinstance(event, Failed):
            self._failed(event)

    def _end_answer(
        self,
        text: str,
        recalled: tuple[Recalled, ...],
        used: tuple[Recalled, ...],
        episode_id: int,
    ) -> None:
        answer = self.chat.latest("assistant")
        self.chat.end_answer(text, recalled, used, episode_id)
        if answer is not None:
            answer.prompt = self._prompt

    def _failed(self, event: Failed) -> None:
        """The turn failed: what the answer said stays on screen, marked; a message that was
        never stored goes back to the message box. The problem says what happened."""
        user = self.chat.latest("user")
        if user is not None and not user.episode_id:  # failed before it was stored
            self.chat.drop_latest_turn()
            self.unsent.emit(user.text)
        elif self.chat.answering():
            text = event.text or self.chat.streamed_text()
            self.chat.end_answer(text, event.recalled, event.used, event.episode_id)
            self._mark_latest(self._interrupted)
        self.notices.problem(event.problem)

    def expect(self, large: bool, memory: bool) -> None:
        """A message was sent: its answer's bubble says at once what it waits for (``large``:
        the large model answers; ``memory``: memories are searched first)."""
        self.chat.begin_answer()
        if large:
            self._wait(lambda: self.tr("Asking the large model (it loads on first use)…"))
        elif memory:
            self._wait(lambda: self.tr("Reading your memories…"))
        else:
            self._wait(lambda: self.tr("Preparing the prompt…"))

    def _wait(self, text: Text, share: Callable[[], float | None] | None = None) -> None:
        """The answer being written waits for ``text`` (a callable: said again on a language
        change and each second), ``share()`` saying how far along it is when known."""
        if (writing := self.chat.answering()) is not None:
            writing.show_waiting(text, share)

    def _read_share(self) -> float | None:
        read = self.reading()
        return read[0] / read[1] if read and read[1] else None

    def _reading(self, memories: int, tokens: int) -> Text:
        """The model reads its prompt: the slow part on a CPU, before the first word; how many
        of its tokens it has read, once it says."""
        whole = self._reading_all(memories, tokens)

        def text() -> str:
            read = self.reading()
            if read is None:
                return whole()
            done, total = f"{read[0]:,}", f"{read[1]:,}"
            if memories:
                return self.tr(
                    "Thinking: reading the conversation and %n memories ({done} of {tokens} "
                    "tokens)…",
                    "",
                    memories,
                ).format(done=done, tokens=total)
            return self.tr(
                "Thinking: reading the conversation ({done} of {tokens} tokens)…"
            ).format(done=done, tokens=total)

        return text

    def _reading_all(self, memories: int, tokens: int) -> Callable[[], str]:
        """Reading the prompt of ``tokens`` tokens, before the model says how far it is."""
        count = f"{tokens:,}"
        if memories:
            return lambda: self.tr(
                "Thinking: reading the conversation and %n memories ({tokens} tokens)…",
                "",
                memories,
            ).format(tokens=count)
        return lambda: self.tr("Thinking: reading the conversation ({tokens} tokens)…").format(
            tokens=count
        )

    def _add_to_answer(self, block: QWidget) -> None:
        answer = self.chat.latest("assistant")
        if answer is not None:
            answer.add_block(block)

    def ask_permission(self, request: PermissionRequest) -> None:
        """A tool wants to run: ask inside the answer, no dialog; Stop counts as deny."""
        prompt = PermissionPrompt(request.question)
        prompt.answered.connect(request.answer)
        self._add_to_answer(prompt)
        self.pending_prompts.append(prompt)

    def answer_ended(self) -> None:
        """An unanswered question ended with the answer (stopped: denied); a bubble still
        waiting closes with what it has."""
        for prompt in self.pending_prompts:
            prompt.answer("deny")
        self.pending_prompts.clear()
        if self.chat.answering() is not None:
            self.chat.end_answer(self.chat.streamed_text())

    def _by_large(self) -> str:
        return self.tr("Answered by the large model")

    def _stopped(self) -> str:
        return self.tr("Stopped")

    def _interrupted(self) -> str:
        return self.tr("Interrupted by an error")

    def _not_read(self) -> str:
        return self.tr("The model tried to use a tool, but what it wrote could not be used.")

    def _unanswered(self) -> str:
        return self.tr(
            "Not answered: the answer was interrupted before it was saved (Engram closed or "
            "the model failed). Your message is kept; Retry answers it."
        )

    def _mark_latest(self, text: Text) -> None:
        answer = self.chat.latest("assistant")
        if answer is not None:
            answer.set_marker(text)

    def show_stats(self, event: Finished) -> None:
        """Under the answer when it was cut; in the header, its speed and context use."""
        stats = event.stats
        self._finished = event
        if event.cut and stats is not None:
            limit = stats.max_tokens
            self._mark_latest(
                lambda: self.tr("Cut at the answer length limit ({tokens} tokens)").format(
                    tokens=limit
                )
            )
        if stats is None or not event.context:
            self.stats.setText("")
            return
        used = stats.prompt_tokens + stats.generated_tokens
        numbers = self.tr("{speed:.1f} tokens/s · context {used:,} of {size:,}").format(
            speed=stats.decode_tokens_per_s, used=used, size=event.context
        )
        self.stats.setText(numbers)
        detail = self.tr("Last answer: {tokens} tokens, first token after {first:.2f} s").format(
            tokens=stats.generated_tokens, first=stats.first_token_s or 0.0
        )
        self.stats.setToolTip(f"{numbers}\n{detail}")

    # -- a stored chat -------------------------------------------------------------------

    def clear(self) -> None:
        """No chat shown: no messages, and no numbers in the header (they were another
        chat's last answer's)."""
        self.chat.clear()
        self.answers = {}
        self._finished = None
        self.stats.setText("")
        self.stats.setToolTip("")

    def show_stored(
        self, episodes: list[Episode], earlier: Mapping[int, Sequence[EarlierAnswer]]
    ) -> None:
        """A chat opened again: its messages, tool steps inside the answer after them, which
        model answered, the answers that were stopped or interrupted, and those Regenerate
        replaced (``earlier``, by the turn of the message they answered)."""
        self.clear()
        tools: list[ToolBlock] = []
        asked_at = -1  # the turn of the message the next answer answers
        for episode in episodes:
            if episode.role == "tool":
                tools.append(ToolBlock.from_stored(episode))
                continue
            bubble = self.chat.add(episode.role, episode.content, episode.id)
            if episode.role == "user":
                asked_at = episode.turn_index
            if episode.role == "assistant":
                for block in tools:
                    bubble.add_block(block)
                tools = []
                bubble.set_earlier(earlier.get(asked_at, ()))
            if episode.model == "large" and self.large_is_other():
                bubble.set_caption(self._by_large)
            if episode.role == "assistant" and episode.status == "cancelled":
                bubble.set_marker(self._stopped)
            elif episode.role == "assistant" and episode.status == "error":
                bubble.set_marker(self._interrupted)
            if episode.role == "assistant":
                self.answers[episode.id] = bubble
        last = episodes[-1] if episodes else None
        self.unanswered = last if last is not None and last.role == "user" else None
        if self.unanswered is not None:  # a kill or a crash mid-answer: Retry answers it
            placeholder = self.chat.add("assistant", "")
            placeholder.set_marker(self._unanswered)
            placeholder.add_block(
                RetryButton(lambda: self._on_bubble_action("regenerate", placeholder))
            )

    def history_recalled(
        self, recalled: dict[int, tuple[Sequence[Recalled], Sequence[Recalled]]]
    ) -> None:
        """The chips of each stored answer, and those it used (the worker looked them up: the
        same as its live answer showed)."""
        for answer_id, (items, used) in recalled.items():
            bubble = self.answers.get(answer_id)
            if bubble is not None and bubble.chips is None:
                self.chat.attach_chips(bubble, items, used)

    # -- the buttons on a message --------------------------------------------------------

    def _on_bubble_action(self, action: str, bubble: MessageBubble) -> None:
        if action == ASK_LARGE:  # the turn controls send it
            return
        if action == "prompt" and bubble.prompt is not None:
            steps = [(b.name, b.arguments, b.result) for b in bubble.tool_blocks]
            PromptDialog(bubble.prompt, self._window, steps).exec()
            return
        if action in ("thumbs_up", "thumbs_down"):
            self._judge(bubble, action)
            return
        user = self.chat.latest("user")
        if self.busy() or user is None or bubble not in (user, self.chat.latest("assistant")):
            self._say(self.tr("Only the latest message can be changed."), 5000)
            return
        text = user.text
        if action == "edit":
            text, ok = QInputDialog.getMultiLineText(
                self._window, self.tr("Edit and resend"), self.tr("Message:"), user.text
            )
            if not ok or not text.strip():
                return
        self.resend_requested.emit(user.episode_id, text)

    def _judge(self, bubble: MessageBubble, kind: str) -> None:
        """A thumb on an answer; a thumb down may say what was wrong (optional)."""
        if not bubble.episode_id:
            return
        text: str | None = None
        if kind == "thumbs_down":
            said, ok = QInputDialog.getText(
                self._window,
                self.tr("What was wrong?"),
                self.tr("What was wrong with this answer? (optional; Engram learns from it)"),
            )
            text = said.strip() or None if ok else None
            self._offer_large(bubble)
        self.judge_requested.emit(bubble.episode_id, kind, text)

    def _offer_large(self, bubble: MessageBubble) -> None:
        """After a thumb down on the latest answer, offer the large model in the answer (once;
        not when the large model is the one that answered)."""
        offered = bubble.findChild(AskLargeButton)
        latest = bubble is self.chat.latest("assistant")
        if latest and offered is None and self.large_is_other():
            bubble.add_footer(AskLargeButton(bubble))

    def judged(self, why_not: Problem | None) -> None:
        """A verdict was noted (or why not: memory is paused, a temporary chat)."""
        if why_not is None:
            self._say(self.tr("Thanks: Engram will learn from this."), 4000)
        else:
            self.notices.toast(why_not)

    def _say(self, text: str, ms: int) -> None:
        self._window.statusBar().showMessage(text, ms)
