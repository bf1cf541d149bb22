"""The application: every use case of Engram's two front ends, in one place.

The window's model worker (:mod:`engram.ui.worker`) and ``engram chat`` (:mod:`engram.cli.chat`)
are adapters over :class:`Engram`: they turn clicks, keys and lines into its calls and show what
comes back, so the window and the terminal behave the same. The application owns three rules:

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

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from engram.assistant import reading, remembering
from engram.assistant.events import (
    Event,
    Failed,
    Forgotten,
    NothingToForget,
    NotRemembered,
    Phase,
    Plan,
    Recalled,
    Remembered,
    SignalKind,
    Status,
    Step,
    Token,
    TurnStarted,
)
from engram.assistant.learning import distiller_backends, plans
from engram.assistant.learning.consolidation import Result, run_job
from engram.assistant.memories import open_store
from engram.assistant.session import (
    Session,
    cloud_key,
    distilling,
    needs_reopen,
    open_session,
    tidy,
)
from engram.assistant.tools import builtins, files, mcp
from engram.assistant.tools import setup as tool_setup
from engram.assistant.tools.base import Registry, Tool, ToolContext
from engram.assistant.tools.permissions import Ask, Question
from engram.assistant.turn.chat_model import ChatModel, reading_of
from engram.assistant.turn.pipeline import title_for
from engram.core import log, paths
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError, Problem, tr
from engram.core.held import Held
from engram.core.settings import Settings, ToolSettings
from engram.memory import pause
from engram.memory.embed import Embedder
from engram.memory.episodes import Episode
from engram.memory.jobs import Job, JobQueue
from engram.memory.records import Memory, Provenance
from engram.memory.store import MemoryStore
from engram.models import roles
from engram.models.local import LocalModel

_log = log.get("assistant.app")

TEMPORARY = Problem(
    tr("This is a temporary chat: nothing said in it is remembered."),
    tr("Start a normal chat for what Engram should remember."),
)
PAUSED = Problem(
    tr("Memory is paused: Engram learns nothing new until you resume it."),
    tr("Resume it in Settings → Memory, in the memory browser or with engram memory resume."),
)

# Why Remember queued no learning job (besides the one rule): nothing new since the last job,
# no chat yet, no learning in this session.
NOTHING_NEW, NO_CHAT, NO_LEARNING = (
    Problem(
        tr("Nothing new to learn from this chat: Engram has learned from all of it already."),
        tr("What you say next is learned from as the chat goes on."),
    ),
    Problem(
        tr("There is nothing to learn from yet."),
        tr("Send a message first; Engram learns from the chat it is in."),
    ),
    Problem(
        tr("Engram does not learn in this session."),
        tr("Learning runs in the desktop app and engram chat."),
    ),
)


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
class MemoryState:
    """Whether Engram remembers: ``on``; ``off``, with ``problem`` saying why (no embedding
    model, a damaged file); or ``paused`` by the user (nothing new is learned until resumed)."""

    mode: Literal["on", "off", "paused"]
    problem: Problem | None = None
    elsewhere: bool = False  # paused or resumed by another process, not by these settings

    @classmethod
    def of(cls, off: Problem | None, paused: bool) -> MemoryState:
        """The state of a session that opened without memory for ``off`` (None: with it), in
        a file where memory is ``paused`` or not."""
        if off is not None:
            return cls("off", off)
        return cls("paused") if paused else cls("on")

    def quiet(self, temporary: bool = False) -> Problem | None:
        """The one "may this be learned?" rule: why nothing said now may become a memory or
        teach Engram anything (memory off or paused, a ``temporary`` chat), or None when it
        may. What is said meanwhile is kept in its chat and never learned from."""
        if self.mode == "off":
            return Problem(tr("Memory is off: {why}"), why=self.problem)
        if temporary:
            return TEMPORARY
        return PAUSED if self.mode == "paused" else None


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


class NotReadyError(EngramError):
    """A use case that needs the session was asked for before it opened (or after it failed)."""


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
        self.settings = settings
        self._models = models
        self._on_status = on_status
        self._on_permissions = on_permissions
        self.session: Session | None = None  # open between open() and close()
        self._mentioned = remembering.LastMentioned()  # what "forget that" means in each chat
        self._forgotten: list[Forgotten] = []  # archived, deleted unless undone
        self._temporary: dict[int, Held] = {}  # the temporary chats this Engram has open
        self._answering: ChatModel | None = None  # the model writing the current answer
        self._cancel = CancelToken()  # the current answer's
        self._ask: Ask | None = None if ask is None else lambda asked: ask(asked, self._cancel)

    # -- the session -----------------------------------------------------------------------

    def open(self) -> Opened:
        """Load the models and open the database (raises the problem when it cannot); delete
        the temporary chats an earlier run left behind (a crash, a kill)."""
        lent = self._models
        session = open_session(
            self.settings,
            self._on_status,
            small=lent.small if lent else None,
            embedder=lent.embedder if lent else None,
            ask=self._ask,
            on_permissions=self._on_permissions,
        )
        self.session = session
        pause.adopt(session.conn, self.settings.memory_paused)  # a pause said elsewhere holds
        self._scrub_temporary()
        memory = self.memory
        learning = None
        if memory.mode != "off" and not self.settings.learn_with_small_models:
            try:
                learning = roles.learning_problem(self.settings)
            except EngramError as exc:  # the large model is unknown or cannot learn
                learning = exc.problem
        return Opened(session.model_name, memory, learning)

    @property
    def memory(self) -> MemoryState:
        """Whether memory is on, off (and why) or paused, now: the pause is read from the
        database, so one made by another process (``engram memory pause``, another window)
        holds here from the next message on."""
        session = self.session
        if session is None:
            return MemoryState.of(None, self.settings.memory_paused)
        paused = pause.paused(session.conn)
        state = MemoryState.of(session.memory_problem, paused)
        return dataclasses.replace(state, elsewhere=paused != self.settings.memory_paused)

    def apply_settings(self, new: Settings) -> bool:
        """Follow new settings. True when a field the session reads at opening changed
        (:func:`~engram.assistant.session.needs_reopen`): the session is closed, and
        :meth:`open` takes the new settings (the models reload)."""
        old, self.settings = self.settings, new
        if self.session is not None and old.memory_paused != new.memory_paused:
            pause.set_paused(self.session.conn, new.memory_paused)  # for every process
        if not needs_reopen(old, new):
            if self.session is not None:
                self.session.apply(new)
            return False
        if self._models is not None and not self._models.suit(old, new):
            self._models = None  # lent for other settings: load the session's own
        self._shut()  # its temporary chats stay open: the window still shows them
        return True

    def close(self) -> None:
        """Delete the temporary chats still open and what "forget that" archived; persist a
        learning job for what was said since the last one (unless nothing may be learned);
        free the models and the connection."""
        for conversation_id in list(self._temporary):
            self.leave(conversation_id)
        self._shut()

    def _shut(self) -> None:
        if self.session is None:
            return
        quiet = self.memory.quiet()
        session, self.session, self._answering = self.session, None, None
        if session.store is not None and self._forgotten:
            remembering.purge(session.store, self._forgotten)
        self._forgotten = []
        if session.learning is not None and quiet is None:
            session.learning.scheduler.on_exit()
        session.close()

    def _open(self) -> Session:
        if self.session is None:
            raise NotReadyError(
                tr("Engram is not ready: no model is loaded."),
                tr("Wait until the model has loaded, or see why it could not load."),
            )
        return self.session

    def _quiet(self, conversation_id: int) -> Problem | None:
        """:meth:`MemoryState.quiet` for a chat (0: a new one, never temporary)."""
        log_ = self._open().assistant.log
        chat = log_.conversation(conversation_id) if conversation_id else None
        return self.memory.quiet(temporary=chat is not None and chat.temporary)

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
        session = self._open()
        said = reading.read(text, session.store.embedder if session.store else None)
        if said.forget:
            yield self.forget_last(conversation_id)
            return
        quiet = self._quiet(conversation_id)
        model = session.large_model() if large else None
        self._answering, self._cancel = model or session.assistant.model, cancel
        for event in session.assistant.turn(conversation_id, said, cancel, model, quiet=quiet):
            yield event
            if isinstance(event, TurnStarted):
                self._mentioned.turn(event.conversation_id)
                if said.remember:
                    chat, episode = event.conversation_id, event.user_episode_id
                    how = f'"remember this:" in message #{episode}'
                    yield self._remember(chat, episode, said.remember, quiet, how)

    def resend(
        self, conversation_id: int, from_episode_id: int, text: str, cancel: CancelToken
    ) -> Iterator[Event]:
        """Drop a message and what followed (judged first: regenerated or edited), then send
        ``text`` in its place (ends like :meth:`send`)."""
        return _ending(self._resend(conversation_id, from_episode_id, text, cancel))

    def _resend(
        self, conversation_id: int, from_episode_id: int, text: str, cancel: CancelToken
    ) -> Iterator[Event]:
        quiet = self._quiet(conversation_id)
        self._open().assistant.rewind(conversation_id, from_episode_id, text, quiet=quiet)
        yield from self._send(conversation_id, text, cancel, False)

    def reading(self) -> tuple[int, int] | None:
        """How far the model has read the prompt of the answer being written (tokens read,
        prompt tokens), until its first token; None otherwise, or for a model that does not
        say (a cloud model). Safe from any thread: the window asks it while the answer runs."""
        model = self._answering
        return reading_of(model) if model is not None else None

    def prefetch(self, conversation_id: int, draft: str, cancel: CancelToken) -> None:
        """Evaluate the prompt of a message being typed, so its answer starts sooner."""
        if self.session is None or cancel.cancelled:
            return
        try:
            self.session.assistant.prefetch(conversation_id, draft, cancel)
        except EngramError as exc:  # a draft that cannot be prepared is no reason to bother
            _log.debug("prefetch skipped: %s", type(exc).__name__)

    # -- the user's own words --------------------------------------------------------------

    def remember(
        self, conversation_id: int, said: str, content: str
    ) -> tuple[int, Remembered | NotRemembered]:
        """Keep ``content`` as the user's own memory now, without an answer (the terminal's
        ``/remember``); the line ``said`` stays in the chat as where it came from (conversation
        0: a new chat, titled after ``content``). Returns the chat and what happened."""
        assistant = self._open().assistant
        quiet = self._quiet(conversation_id)
        if quiet is not None:
            return conversation_id, NotRemembered(quiet)
        if not conversation_id:
            conversation_id = assistant.new_conversation(title_for(content))
        self._mentioned.turn(conversation_id)
        episode = assistant.log.append(conversation_id, "user", said)
        how = f"/remember in message #{episode.id}"
        return conversation_id, self._remember(conversation_id, episode.id, content, quiet, how)

    def _remember(
        self, conversation_id: int, episode_id: int, content: str, quiet: Problem | None, how: str
    ) -> Remembered | NotRemembered:
        if quiet is not None:
            return NotRemembered(quiet)
        store = self._open().store
        assert store is not None  # memory is on: quiet is not None without a store
        try:
            by = Provenance("user", detail=how)
            remembered = remembering.remember(store, conversation_id, episode_id, content, by=by)
        except EngramError as exc:  # e.g. too long to be one memory
            return NotRemembered(exc.problem)
        self._mentioned.remembered(conversation_id, remembered.memory_id)
        return remembered

    def forget_last(self, conversation_id: int) -> Forgotten | NothingToForget:
        """ "forget that": archive the memory just remembered in the chat, or else the one its
        last answer used; :meth:`undo_forget` brings it back, :meth:`purge_forgotten` (or
        :meth:`close`) deletes it for good."""
        assistant = self._open().assistant
        if assistant.recall is None:
            return NothingToForget()
        found = self._mentioned.forget(conversation_id, assistant.log, assistant.recall)
        if found is None:
            return NothingToForget()
        self._forgotten.append(found)
        return found

    def undo_forget(self, forgotten: Forgotten) -> None:
        """Bring back what "forget that" archived."""
        if self.session is not None and self.session.store is not None:
            remembering.undo(self.session.store, forgotten)
            self._forgotten = [f for f in self._forgotten if f != forgotten]

    def purge_forgotten(self) -> None:
        """The undo is no longer offered: delete what was forgotten, text and all."""
        if self.session is not None and self.session.store is not None and self._forgotten:
            remembering.purge(self.session.store, self._forgotten)
        self._forgotten = []

    # -- judging answers and memories ------------------------------------------------------

    def judge(
        self,
        answer_episode_id: int,
        kind: SignalKind,
        text: str | None = None,
        *,
        memory_id: int | None = None,
    ) -> Problem | None:
        """The user's verdict on an answer (a thumb, and what was wrong when said), or on a
        memory it was given (``memory_wrong`` with ``memory_id``: "This is wrong" on its chip):
        Engram learns from it. Returns why it was not noted (the one rule), or None."""
        assistant = self._open().assistant
        quiet = self._quiet(self._chat_of(answer_episode_id))
        if quiet is None:
            assistant.signal(answer_episode_id, kind, text, memory_id=memory_id)
        return quiet

    def _chat_of(self, answer_episode_id: int) -> int:
        found = self._open().assistant.log.by_id([answer_episode_id]).get(answer_episode_id)
        return found.conversation_id if found is not None else 0

    def recalled(
        self, answer_episode_ids: list[int]
    ) -> dict[int, tuple[tuple[Recalled, ...], tuple[Recalled, ...]]]:
        """The chips of each of these stored answers, and those it used: what its live answer
        showed (``Finished.recalled`` and ``used``), made by the same function."""
        assistant = self.session.assistant if self.session is not None else None
        return assistant.chips(answer_episode_ids) if assistant is not None else {}

    # -- learning --------------------------------------------------------------------------

    def learn_now(self, conversation_id: int) -> Problem | None:
        """Remember: learn from this chat now. Returns None when a learning job was queued,
        else why not: the one rule (memory off or paused, a temporary chat), nothing in the chat
        that was not learned from already, or no learning in this session."""
        session = self._open()
        quiet = self._quiet(conversation_id)
        if quiet is not None:
            return quiet
        if not conversation_id:
            return NO_CHAT
        if session.learning is None:
            return NO_LEARNING
        if session.learning.scheduler.remember(conversation_id) is None:
            return NOTHING_NEW
        return None

    def idle(self, conversation_id: int) -> None:
        """The chat has gone quiet: a good moment to learn from it (when it may be)."""
        learning = self.session.learning if self.session is not None else None
        if learning is not None and conversation_id and self._quiet(conversation_id) is None:
            learning.scheduler.on_idle(conversation_id)

    def retry_learning(self) -> None:
        """Give the learning jobs that failed too often another chance."""
        learning = self._open().learning
        if learning is not None:
            learning.scheduler.queue.retry_parked()
            learning.worker.wake()

    # -- chats -----------------------------------------------------------------------------

    def new_chat(self, title: str = "", temporary: bool = False) -> int:
        """Start a chat; nothing in a ``temporary`` one is learned or recalled elsewhere, and
        it is deleted when left (:meth:`leave`, :meth:`close`) or, after a crash, at the next
        start (it is locked meanwhile, so another Engram running at the same time keeps it)."""
        conversation_id = self._open().assistant.new_conversation(title, temporary)
        if temporary and (held := Held.take(_lock_of(conversation_id))) is not None:
            self._temporary[conversation_id] = held
        return conversation_id

    def leave(self, conversation_id: int) -> None:
        """The user left a chat: a temporary one is deleted with its words."""
        held = self._temporary.pop(conversation_id, None)
        session = self.session
        if session is not None and conversation_id:
            chat = session.assistant.log.conversation(conversation_id)
            if chat is not None and chat.temporary:
                session.assistant.delete_conversation(conversation_id)
        if held is not None:
            held.release(remove=session is not None)

    def _scrub_temporary(self) -> None:
        """Delete the temporary chats no running Engram has open: left by a crash or a kill."""
        assistant = self._open().assistant
        for conversation_id in assistant.log.temporary_conversations():
            if conversation_id in self._temporary:
                continue
            held = Held.take(_lock_of(conversation_id))
            if held is None:  # open in another window or terminal right now
                continue
            assistant.delete_conversation(conversation_id)
            held.release(remove=True)
            _log.info("deleted temporary conversation %d left by an earlier run", conversation_id)

    def messages(self, conversation_id: int) -> list[Episode]:
        """What the user and Engram said in a chat (no tool steps), in order."""
        episodes = self._open().assistant.log.episodes(conversation_id)
        return [e for e in episodes if e.role in ("user", "assistant")]

    def rename(self, conversation_id: int, title: str) -> None:
        self._open().assistant.log.rename(conversation_id, title)

    def delete(self, conversation_id: int) -> None:
        """Delete a chat and its messages; memories learned from it keep their provenance."""
        self._open().assistant.delete_conversation(conversation_id)

    # -- plans -----------------------------------------------------------------------------

    def plan(self) -> Plan | None:
        """The user's current plan (None without one, or without memory)."""
        store = self.session.store if self.session is not None else None
        return plans.current(store) if store is not None else None

    def save_plan(self, plan: Plan) -> Plan | None:
        """Write an edit of the plan (one ticked to its end is done); returns the current plan."""
        store = self._open().store
        if store is None:
            return None
        plans.save(store, plan)
        return plans.current(store)


def _lock_of(conversation_id: int) -> Path:
    """Where the lock of a temporary chat lives while an Engram has it open."""
    return paths.data_dir() / "temporary" / f"{conversation_id}.lock"


# -- without a session: engram learn ------------------------------------------------------------


@dataclass(frozen=True)
class Learnt:
    """What learning the waiting jobs at once did: each job and how it ended, and the memories
    (by id, every status) before and after."""

    jobs: tuple[tuple[Job, Result], ...]
    before: dict[int, Memory]
    after: dict[int, Memory]


def learn_waiting(settings: Settings, progress: Callable[[float, str], None]) -> Learnt:
    """Run every learning job waiting in the queue now, one after another, backoffs skipped
    (``engram learn``); ``progress`` hears the share done (0..1) and what runs. Raises why
    no job can run when no distiller can (once, with what to do)."""
    store = open_store(settings)
    try:
        if pause.paused(store.conn, settings.memory_paused):
            raise EngramError(PAUSED.template, PAUSED.hint_template, **PAUSED.params)
        queue = JobQueue(store.conn)
        queue.recover()
        waiting = len(queue.jobs("queued"))
        if not waiting:
            return Learnt((), {}, {})
        source = distiller_backends.from_settings(settings, None, cloud_key)
        if isinstance(source, distiller_backends.MissingDistiller):
            source.acquire(CancelToken())  # raises its problem
        store.writer = distilling(settings)
        before = _memories(store)
        ran: list[tuple[Job, Result]] = []
        try:
            while len(ran) < waiting and (job := queue.claim(now=float("inf"))) is not None:
                share = len(ran) / waiting

                def report(
                    phase: Phase,
                    done: float,
                    _model: object,
                    step: Step | None,
                    job_id: int = job.id,
                ) -> None:
                    doing = step.name if step is not None and phase == "distilling" else phase
                    progress(share + done / waiting, f"job {job_id}: {doing}")  # noqa: B023

                ran.append((job, run_job(job, store, queue, source, CancelToken(), report)))
        finally:
            source.idle()
        tidy(store)
        return Learnt(tuple(ran), before, _memories(store))
    finally:
        store.conn.close()


def _memories(store: MemoryStore) -> dict[int, Memory]:
    return {m.id: m for m in store.memories(statuses=None, limit=1_000_000)}


# -- tools: the Tools page of Settings and ``engram tools`` -------------------------------------

MAX_TOOL_STEPS = tool_setup.MAX_STEPS  # tool calls one answer may make, at most
MCP_START_TIMEOUT_S = mcp.START_TIMEOUT_S  # how long an MCP server may take to start


@dataclass(frozen=True)
class ToolInfo:
    """A tool as the user sees it: its name, where it comes from (``BUILT_IN`` or its MCP
    server), what it does, and whether it asks before it runs."""

    name: str
    source: str
    description: str
    needs_permission: bool


def _info(tool: Tool, language: str) -> ToolInfo:
    return ToolInfo(tool.name, tool.source, tool.describe(language), tool.needs_permission)


def builtin_tools(language: str = "en") -> list[ToolInfo]:
    """Engram's own tools (offline), described in ``language``."""
    return [_info(tool, language) for tool in builtins.BUILT_INS]


@contextmanager
def _all_tools(settings: ToolSettings) -> Iterator[Registry]:
    """Every tool the settings name, turned on or not: the MCP servers' too, started for it and
    stopped after (one that does not start has none)."""
    box, hub = tool_setup.toolbox(dataclasses.replace(settings, enabled=True, disabled=()))
    assert box is not None
    try:
        yield box.tools()
    finally:
        if hub is not None:
            hub.close()


def every_tool(settings: ToolSettings) -> list[ToolInfo]:
    """Every tool the settings name (slow with MCP servers: not for a UI thread)."""
    with _all_tools(settings) as tools:
        return [_info(tool, "en") for tool in tools]


def call_tool(settings: ToolSettings, name: str, arguments: object) -> tuple[str, bool]:
    """Run one tool without a model (``engram tools call``): its output and whether it is an
    error."""
    with _all_tools(settings) as tools:
        folders = tuple(Path(f) for f in settings.folders)
        output = tools.call(name, arguments, ToolContext(folders=folders))
    return output.text, output.is_error


def server_tools(name: str, entry: dict[str, Any], start_timeout: float) -> list[ToolInfo]:
    """Start one MCP server, list its tools and stop it (slow: not for a UI thread)."""
    hub = mcp.McpHub([mcp.ServerConfig.from_json(name, entry)], start_timeout=start_timeout)
    try:
        return [_info(tool, "en") for tool in hub.tools(name)]
    finally:
        hub.close()


def mcp_entry(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """An MCP server's settings entry as it is saved; raises what is wrong with a bad one."""
    return mcp.ServerConfig.from_json(name, entry).to_json()


def mcp_entries(claude_config: str) -> dict[str, dict[str, Any]]:
    """The MCP servers of a Claude Desktop config (its text), as settings entries by name."""
    return {server.name: server.to_json() for server in mcp.import_claude_config(claude_config)}


def folder_to_share(path: Path) -> str:
    """A folder for the files tools to read, as it is saved; raises why it may not be shared
    (not a folder, the filesystem's root, or holding or inside one of Engram's own)."""
    folder = path.expanduser()
    files.check_shareable(folder)
    return str(folder.resolve())
