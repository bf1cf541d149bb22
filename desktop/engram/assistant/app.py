"""The application: every use case of Engram's two front ends, in one place.

The window's model worker (:mod:`engram.ui.worker`) and ``engram chat`` (:mod:`engram.cli.chat`)
are adapters over :class:`Engram`: they turn clicks, keys and lines into its calls and show what
comes back, so the window and the terminal behave the same. ``Engram`` opens the session, sends
messages and follows the settings; the rest it is composed of, one manager per area (as Anki's
``Collection`` has ``col.decks`` and ``col.sched``): ``chats`` (:class:`~engram.assistant.chats.
ChatManager`), ``memories`` (:class:`~engram.assistant.memories.MemoryManager`), ``learning``
(:class:`~engram.assistant.learn.LearningManager`) and ``plans``
(:class:`~engram.assistant.planning.PlanManager`), all sharing one
:class:`~engram.assistant.state.AppState`. What needs no session is beside it: the models
(:mod:`engram.assistant.model_admin`), the tools (:mod:`engram.assistant.tool_admin`), the
memories' browser (:mod:`engram.assistant.memories`) and ``engram learn``
(:func:`engram.assistant.learn.learn_waiting`). The application owns three rules:

- what a message asks for is read once, here (:func:`engram.assistant.reading.read`): "remember
  this: …" keeps the user's words, "forget that" archives a memory with an undo, anything else
  is answered;
- whether anything may be learned is decided once, by :meth:`MemoryState.quiet`: not while
  memory is off or paused, nor in a temporary chat; a message, a thumb, "this memory is wrong",
  Remember and an idle chat all ask it;
- whether memory is on is one :class:`MemoryState`: on, off (with the reason) or paused.

One :class:`Engram` lives on one thread: the one that opened it uses it and closes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from engram.assistant import reading
from engram.assistant.chats import ChatManager
from engram.assistant.events import Event, Failed, Status, Token, TurnStarted
from engram.assistant.learn import LearningManager
from engram.assistant.memories import MemoryManager
from engram.assistant.planning import PlanManager
from engram.assistant.session import Session, needs_reopen, open_session
from engram.assistant.state import PAUSED, TEMPORARY, AppState, MemoryState, NotReadyError
from engram.assistant.tools.permissions import Ask, Question
from engram.assistant.turn.chat_model import reading_of
from engram.core import log
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError, Problem, tr
from engram.core.settings import Settings
from engram.memory import pause
from engram.memory.embed import Embedder
from engram.models import roles
from engram.models.local import LocalModel

__all__ = [
    "PAUSED",
    "TEMPORARY",
    "Asking",
    "Engram",
    "LoadedModels",
    "MemoryState",
    "NotReadyError",
    "Opened",
    "answer_broke",
]

_log = log.get("assistant.app")


def answer_broke(started: bool) -> Problem:
    """What the user is told when the model (llama.cpp) or Engram itself fails in a turn: once
    the message was stored (``started``) the answer broke off, before that it was not sent."""
    if started:
        return Problem(
            tr("The answer broke off: the model failed while writing it."),
            tr(
                "Your message is saved; Regenerate answers it again. If it happens again, "
                "choose another model in Settings. The details are in the log: {path}"
            ),
            path=log.log_file(),
        )
    return Problem(
        tr("Your message was not sent: something failed before the model started."),
        tr("It is back in the message box to send again. The details are in the log: {path}"),
        path=log.log_file(),
    )


def _ending(events: Iterator[Event]) -> Iterator[Event]:
    """A turn always ends: its events, then ``Failed`` on any error, with what the answer had
    said (a known problem in its words; a failure of the model or of Engram itself as
    :func:`answer_broke`, its traceback in the log, never a traceback for the user)."""
    said: list[str] = []
    started = False
    try:
        for event in events:
            started = started or isinstance(event, TurnStarted)
            if isinstance(event, Token):
                said.append(event.text)
            yield event
    except EngramError as exc:
        _log.warning("turn failed: %s", type(exc).__name__)
        yield Failed(exc.problem, "".join(said))
    except Exception as exc:
        log.unexpected("turn", exc)
        yield Failed(answer_broke(started), "".join(said))


@dataclass(frozen=True)
class Opened:
    """A ready session: what answers (``model``), whether memory is on, and why learning waits
    for a larger model (``learning``; None when it learns or memory is off)."""

    model: str
    memory: MemoryState
    learning: Problem | None = None


@dataclass(frozen=True)
class LoadedModels:
    """Models already loaded by a longer-lived owner (tests share them between windows):
    Engram uses them and leaves them open, their owner closes them."""

    small: LocalModel
    embedder: Embedder | None = None

    def suit(self, old: Settings, new: Settings) -> bool:
        """Were models that suited ``old`` loaded for ``new`` too? Not when the small or the
        embedding model, the context or the threads changed."""
        loaded = (old.small_model, old.embedding_model, old.context_size, old.threads)
        return loaded == (new.small_model, new.embedding_model, new.context_size, new.threads)


# Asks the user whether a tool may run while the answer whose cancel token it is given waits:
# once that answer is stopped it waits no longer (the tool is denied).
Asking = Callable[[Question, CancelToken], str]


class Engram:
    """Engram for one front end: open it, call its use cases, close it (all on one thread).

    ``models`` are lent by a longer-lived owner (tests), who closes them; with ``on_status``
    Engram also learns in the background and reports its state there; ``ask`` asks the user
    whether a tool may run, with the token of the answer that waits (:data:`Asking`), and
    ``on_permissions`` keeps the choices made (else a tool that needs permission is denied and
    nothing is kept).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        models: LoadedModels | None = None,
        on_status: Callable[[Status], None] | None = None,
        ask: Asking | None = None,
        on_permissions: Callable[[dict[str, str]], None] | None = None,
    ) -> None:
        state = self._state = AppState(settings)
        self._models = models
        self._on_status = on_status
        self._on_permissions = on_permissions
        self._ask: Ask | None = None if ask is None else lambda asked: ask(asked, state.cancel)
        self.chats = ChatManager(state)
        self.memories = MemoryManager(state)
        self.learning = LearningManager(state)
        self.plans = PlanManager(state)

    @property
    def settings(self) -> Settings:
        return self._state.settings

    @property
    def session(self) -> Session | None:
        """The session, open between :meth:`open` and :meth:`close`."""
        return self._state.session

    # -- the session -----------------------------------------------------------------------

    def open(self) -> Opened:
        """Load the models and open the database (raises the problem when it cannot); delete
        the temporary chats an earlier run left behind (a crash, a kill)."""
        lent, settings = self._models, self.settings
        session = open_session(
            settings,
            self._on_status,
            small=lent.small if lent else None,
            embedder=lent.embedder if lent else None,
            ask=self._ask,
            on_permissions=self._on_permissions,
        )
        self._state.session = session
        pause.adopt(session.conn, settings.memory_paused)  # a pause said elsewhere holds
        self.chats.scrub_temporary()
        memory = self.memory
        learning = None
        if memory.mode != "off" and not settings.learn_with_small_models:
            try:
                learning = roles.learning_problem(settings)
            except EngramError as exc:  # the large model is unknown or cannot learn
                learning = exc.problem
        return Opened(session.model_name, memory, learning)

    @property
    def memory(self) -> MemoryState:
        """Whether memory is on, off (and why) or paused, now (read from the database, so a
        pause made by another process holds here from the next message on)."""
        return self._state.memory

    def apply_settings(self, new: Settings) -> bool:
        """Follow new settings. True when a field the session reads at opening changed
        (:func:`~engram.assistant.session.needs_reopen`): the session is closed, and
        :meth:`open` takes the new settings (the models reload)."""
        old, self._state.settings = self.settings, new
        session = self.session
        if session is not None and old.memory_paused != new.memory_paused:
            pause.set_paused(session.conn, new.memory_paused)  # for every process
        if not needs_reopen(old, new):
            if session is not None:
                session.apply(new)
            return False
        if self._models is not None and not self._models.suit(old, new):
            self._models = None  # lent for other settings: load the session's own
        self._shut()  # its temporary chats stay open: the window still shows them
        return True

    def close(self) -> None:
        """Delete the temporary chats still open and what "forget that" archived; persist a
        learning job for what was said since the last one (unless nothing may be learned);
        free the models and the connection."""
        self.chats.leave_temporary()
        self._shut()

    def _shut(self) -> None:
        session = self.session
        if session is None:
            return
        quiet = self.memory.quiet()
        self.memories.purge_forgotten()
        self._state.session, self._state.answering = None, None
        if session.learning is not None and quiet is None:
            session.learning.scheduler.on_exit()
        session.close()

    # -- messages --------------------------------------------------------------------------

    def send(
        self, conversation_id: int, text: str, cancel: CancelToken, *, large: bool = False
    ) -> Iterator[Event]:
        """Do what a message asks: "forget that" forgets, anything else is answered (``large``:
        by the large model, with the same memory), "remember this: …" keeping its text at once.

        Conversation 0 starts a new chat titled after the message. ``cancel`` stops the answer
        between tokens (what was said so far is kept). Always ends: on an error with ``Failed``.
        """
        return _ending(self._send(conversation_id, text, cancel, large))

    def _send(
        self, conversation_id: int, text: str, cancel: CancelToken, large: bool
    ) -> Iterator[Event]:
        session = self._state.ready()
        said = reading.read(text, session.store.embedder if session.store else None)
        if said.forget:
            yield self.memories.forget_last(conversation_id)
            return
        quiet = self._state.quiet(conversation_id)
        model = session.large_model() if large else None
        self._state.answering, self._state.cancel = model or session.assistant.model, cancel
        for event in session.assistant.turn(conversation_id, said, cancel, model, quiet=quiet):
            yield event
            if isinstance(event, TurnStarted):
                remembered = self.memories.started(event, said.remember, quiet)
                if remembered is not None:
                    yield remembered

    def resend(
        self, conversation_id: int, from_episode_id: int, text: str, cancel: CancelToken
    ) -> Iterator[Event]:
        """Drop a message and what followed (judged first: regenerated or edited), then send
        ``text`` in its place (ends like :meth:`send`)."""
        return _ending(self._resend(conversation_id, from_episode_id, text, cancel))

    def _resend(
        self, conversation_id: int, from_episode_id: int, text: str, cancel: CancelToken
    ) -> Iterator[Event]:
        quiet = self._state.quiet(conversation_id)
        self._state.ready().assistant.rewind(conversation_id, from_episode_id, text, quiet=quiet)
        yield from self._send(conversation_id, text, cancel, False)

    def reading(self) -> tuple[int, int] | None:
        """How far the model has read the prompt of the answer being written (tokens read,
        prompt tokens), until its first token; None otherwise, or for a model that does not
        say (a cloud model). Safe from any thread: the window asks it while the answer runs."""
        model = self._state.answering
        return reading_of(model) if model is not None else None

    def prefetch(self, conversation_id: int, draft: str, cancel: CancelToken) -> None:
        """Evaluate the prompt of a message being typed, so its answer starts sooner."""
        session = self.session
        if session is None or cancel.cancelled:
            return
        try:
            session.assistant.prefetch(conversation_id, draft, cancel)
        except EngramError as exc:  # a draft that cannot be prepared is no reason to bother
            _log.debug("prefetch skipped: %s", type(exc).__name__)
