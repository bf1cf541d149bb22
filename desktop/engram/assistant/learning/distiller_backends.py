"""Where the consolidation worker gets its large model: a lazily loaded local GGUF or the cloud.

Thin adapters over :mod:`engram.models`: the local one passes the worker's stop flag into
``LocalModel.structured``; the cloud one redacts personal data before anything leaves the machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from engram.assistant.events import LargeModelState
from engram.assistant.learning.distill import StructuredModel
from engram.assistant.learning.redact import RedactingModel, Redactor
from engram.core.errors import EngramError, Problem, tr
from engram.core.messages import Message
from engram.core.settings import Settings
from engram.models import roles
from engram.models.background import ForegroundGate, LazyModel
from engram.models.cloud import CloudClient, is_own_server
from engram.models.local import LocalModel

Cancelled = Callable[[], bool]  # a CancelToken, or any check that says stop


class DistillerUnavailableError(EngramError):
    """No large model can run right now; jobs wait in the queue."""


class DistillerSource(Protocol):
    """What the worker needs: a model for one job, its origin, and a word on its state."""

    origin: str  # "local" or "cloud": stored on every memory it writes

    def acquire(self, cancelled: Cancelled) -> StructuredModel: ...

    def state(self) -> LargeModelState: ...

    def idle(self) -> None: ...


@dataclass(frozen=True)
class CallProgress:
    """How far a model's call is: reading its prompt (``done`` of ``total`` tokens) or, once
    ``writing``, its answer (``done`` tokens written, of at most ``total``)."""

    writing: bool
    done: int
    total: int


@runtime_checkable
class ReportsProgress(Protocol):
    """A distiller model that says how far its current call is (the local model: the learning
    thread asks it from the stop check the model calls between batches and tokens)."""

    def progress(self) -> CallProgress | None: ...


class _Cancellable:
    """The large local model as a job holds it: its stop check is the worker's, and it says
    how far its current call is (:class:`ReportsProgress`)."""

    def __init__(self, model: LocalModel, cancelled: Cancelled) -> None:
        self.model = model
        self.cancelled = cancelled

    def structured(
        self, messages: Sequence[Message], json_schema: dict[str, Any], max_tokens: int = 768
    ) -> dict[str, Any]:
        return self.model.structured(messages, json_schema, max_tokens, self.cancelled)

    def progress(self) -> CallProgress | None:
        """The prompt's tokens read until the first token; then the tokens written."""
        read = self.model.reading()
        if read is not None:
            return CallProgress(False, *read)
        stats = self.model.last_stats
        return (
            None if stats is None else CallProgress(True, stats.generated_tokens, stats.max_tokens)
        )


class LocalDistiller:
    """The large local model, loaded on the first job and released after it idles."""

    origin = "local"

    def __init__(self, lazy: LazyModel[LocalModel] | None) -> None:
        self.lazy = lazy

    def acquire(self, cancelled: Cancelled) -> StructuredModel:
        if self.lazy is None:
            raise DistillerUnavailableError(
                tr("No large model is configured for memory consolidation."),
                tr("Choose a large model in Settings → Models; conversations wait in the queue."),
            )
        return _Cancellable(self.lazy.get(), cancelled)

    def state(self) -> LargeModelState:
        if self.lazy is None:
            return "not configured"
        return "loaded" if self.lazy.loaded else "not loaded"

    def idle(self) -> None:
        if self.lazy is not None:
            self.lazy.release_if_idle()


class CloudDistiller:
    """An OpenAI-compatible API; personal data is redacted out and restored in (per job)."""

    origin = "cloud"

    def __init__(self, client: CloudClient, names: Sequence[str] = (), redact: bool = True):
        self.client = client
        self.names = tuple(names)
        self.redact = redact

    def acquire(self, cancelled: Cancelled) -> StructuredModel:
        return RedactingModel(self.client, Redactor(self.names)) if self.redact else self.client

    def state(self) -> LargeModelState:
        return "cloud"

    def idle(self) -> None:
        pass


class MissingDistiller:
    """Stands in when the settings name no usable distiller: every job waits, saying why."""

    origin = "local"

    def __init__(self, problem: Problem, state: LargeModelState = "not configured") -> None:
        self.problem = problem
        self._state = state

    def acquire(self, cancelled: Cancelled) -> StructuredModel:
        problem = self.problem
        raise DistillerUnavailableError(problem.template, problem.hint_template, **problem.params)

    def state(self) -> LargeModelState:
        return self._state

    def idle(self) -> None:
        pass


def from_settings(
    settings: Settings,
    gate: ForegroundGate | None,
    api_key: Callable[[], str | None],
    names: Sequence[str] = (),
) -> DistillerSource:
    """The distiller the user chose: the cloud (opt-in) or the large local model; one that says
    why when the large model is too small to learn from (unless the settings opt in)."""
    cloud = settings.cloud
    if cloud.enabled:
        key = api_key() or ""  # the user's own server (is_own_server) needs none
        if not (cloud.base_url and cloud.model and (key or is_own_server(cloud.base_url))):
            return MissingDistiller(
                Problem(
                    tr("The cloud distiller is on, but its address, model or API key is missing."),
                    tr("Complete Settings → Cloud, or turn the cloud distiller off."),
                )
            )
        client = CloudClient(cloud.base_url, cloud.model, key)
        return CloudDistiller(client, names, redact=cloud.redact_personal_data)
    if not settings.large_model:
        return LocalDistiller(None)
    try:
        roles.entry_for(settings, "large")
    except EngramError as exc:
        return MissingDistiller(exc.problem)
    too_small = None if settings.learn_with_small_models else roles.learning_problem(settings)
    if too_small is not None:  # it would write what it invents; jobs wait for a larger model
        return MissingDistiller(too_small, "too small")

    def load() -> LocalModel:
        return roles.load_local(settings, "large", gate=gate, background=True)

    return LocalDistiller(LazyModel(load, settings.large_model_idle_unload_seconds))
