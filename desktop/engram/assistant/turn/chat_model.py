"""What a turn needs from a model runtime, and the capabilities it reads from it.

:class:`ChatModel` is the protocol every runtime a turn is given meets (the local model, a model
on an OpenAI-compatible server, the tests' doubles). What a runtime can do besides answering is
declared by the runtime itself (:class:`~engram.models.capabilities.Capabilities`), checked once
where a model is handed to a turn (:func:`declared_model`), and read here, never by probing the
model's attributes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, cast

from engram.core.messages import Message
from engram.models.capabilities import Capabilities, declared
from engram.models.local import CallStats


class ChatModel(Protocol):
    """What a turn needs from a model runtime: its context window (``n_ctx``, in tokens), what
    it can do besides answering (``capabilities``), and the three calls every runtime has."""

    n_ctx: int

    @property
    def capabilities(self) -> Capabilities: ...

    def count_tokens(self, text: str) -> int: ...

    def stream_chat(
        self,
        messages: list[Message],
        max_tokens: int = ...,
        cancelled: Callable[[], bool] = ...,
    ) -> Iterator[str]: ...

    def prefill(
        self, messages: list[Message], cancelled: Callable[[], bool] = ..., tools: Any = ...
    ) -> int: ...


class _Timed(Protocol):
    last_stats: CallStats | None


class _Reading(Protocol):
    def reading(self) -> tuple[int, int] | None: ...


def declared_model(model: ChatModel) -> ChatModel:
    """``model``, once its capabilities are checked (a model that declares none is refused
    here, with a :class:`TypeError` naming it, rather than read as able to do nothing)."""
    declared(model)
    return model


def answer_stats(model: ChatModel) -> CallStats | None:
    """The numbers of ``model``'s last answer, when it declares it keeps them (a local model)."""
    return cast(_Timed, model).last_stats if model.capabilities.stats else None


def reading_of(model: ChatModel) -> tuple[int, int] | None:
    """How far ``model`` has read the prompt it answers (tokens read, prompt tokens), when it
    declares it can say (a local model); None otherwise."""
    return cast(_Reading, model).reading() if model.capabilities.reading else None
