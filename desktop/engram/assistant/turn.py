"""One turn of conversation: store the message, fit the context, stream the answer, store it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from engram.assistant import context
from engram.assistant.events import (
    Cancelled,
    Failed,
    Finished,
    Notice,
    Token,
    TurnEvent,
    TurnStarted,
)
from engram.core import log, resources
from engram.core.errors import EngramError
from engram.memory.episodes import EpisodeLog

_log = log.get("assistant.turn")


class ChatModel(Protocol):
    """What a turn needs from a model runtime."""

    n_ctx: int

    def count_tokens(self, text: str) -> int: ...

    def stream_chat(
        self,
        messages: list[dict[str, str]],
        max_tokens: int = ...,
        cancelled: Callable[[], bool] = ...,
    ) -> Iterator[str]: ...


def system_prompt(language: str = "en") -> str:
    """The stable system part for the user's language."""
    name = "system_zh_CN.txt" if language.startswith("zh") else "system_en.txt"
    return resources.read_text("prompts", name).strip()


TITLE_CHARS = 60


def title_for(text: str) -> str:
    """A conversation title from its first message: the first line, shortened."""
    line = " ".join(text.strip().split("\n", 1)[0].split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


class Assistant:
    """Runs turns for the conversations in one episode log with one model."""

    def __init__(
        self,
        log_: EpisodeLog,
        model: ChatModel,
        max_answer_tokens: int = 512,
        language: str = "en",
    ) -> None:
        self.log = log_
        self.model = model
        self.max_answer_tokens = max_answer_tokens
        self.language = language

    def turn(
        self,
        conversation_id: int,
        text: str,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> Iterator[TurnEvent]:
        """Answer one user message, yielding events as they happen.

        ``conversation_id`` 0 starts a new conversation titled after the message.
        """
        if not text.strip():
            yield Failed("The message is empty.", "Type something before sending.")
            return
        if not conversation_id:
            conversation_id = self.log.new_conversation(title_for(text)).id
        history = [
            {"role": e.role, "content": e.content}
            for e in self.log.episodes(conversation_id)
            if e.role in ("user", "assistant") and e.content
        ]
        user_episode = self.log.append(conversation_id, "user", text)
        yield TurnStarted(conversation_id, user_episode.id)
        fitted = context.fit(
            system_prompt(self.language),
            history,
            text,
            n_ctx=self.model.n_ctx,
            reserve=self.max_answer_tokens,
            count=self.model.count_tokens,
        )
        if fitted.truncated_chars:
            yield Notice(
                f"The message is too long for the model's context; the last "
                f"{fitted.truncated_chars:,} characters were left out of this answer "
                "(the whole message is saved)."
            )
        pieces: list[str] = []
        try:
            for piece in self.model.stream_chat(
                fitted.messages, max_tokens=self.max_answer_tokens, cancelled=cancelled
            ):
                pieces.append(piece)
                yield Token(piece)
        except EngramError as exc:
            self._store(conversation_id, pieces, "error")
            yield Failed(exc.message, exc.hint)
            return
        except GeneratorExit:
            # The consumer went away mid-answer (window closed): keep what was said.
            self._store(conversation_id, pieces, "cancelled")
            raise
        answer = "".join(pieces)
        if cancelled():
            yield Cancelled(self._store(conversation_id, pieces, "cancelled"), answer)
        else:
            yield Finished(self._store(conversation_id, pieces, "complete"), answer)

    def _store(self, conversation_id: int, pieces: list[str], status: str) -> int:
        episode = self.log.append(conversation_id, "assistant", "".join(pieces), status=status)
        return episode.id
