"""Building a ready assistant from settings: the small model, the store, the embedder, recall.

The application (:class:`engram.assistant.app.Engram`) opens its session here, on the thread
that will use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import apsw

from engram.assistant.events import Status
from engram.assistant.learning import distiller_backends, hygiene
from engram.assistant.learning.consolidation import ConsolidationWorker
from engram.assistant.learning.scheduler import Scheduler
from engram.assistant.tools import setup as tool_setup
from engram.assistant.tools.mcp import McpHub
from engram.assistant.tools.permissions import Ask
from engram.assistant.turn.pipeline import Assistant
from engram.assistant.turn.recall import Recall
from engram.core import log, paths, prompts
from engram.core.errors import EngramError, KeyringUnavailableError, Problem, tr
from engram.core.settings import Settings
from engram.memory import backup, db, migrations
from engram.memory.backup import AutoBackup
from engram.memory.embed import Embedder, FastEmbedder, Floors, UseEmbedder
from engram.memory.episode_index import Backfill
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from engram.memory.records import Provenance
from engram.memory.reembed import Reembedding
from engram.memory.store import MemoryStore
from engram.models import catalogue, files, roles, secrets
from engram.models.background import ForegroundGate
from engram.models.cloud import ServedModel, is_own_server
from engram.models.local import LocalModel
from engram.models.secrets import CLOUD_KEY

_log = log.get("assistant.session")


def embedder_for(settings: Settings, cat: catalogue.Catalogue | None = None) -> Embedder:
    """The embedding model of the settings, checked on disk (loaded lazily on first use)."""
    return embedder_of(roles.entry_for(settings, "embedding", cat))


def embedder_of(entry: catalogue.ModelEntry) -> Embedder:
    """The embedder of a catalogue entry, with its floors, its files checked on disk."""
    files.verify(entry)
    unknown = {k for v in entry.floors.values() for k in v} - set(Floors.names())
    if unknown or not entry.embedding_dim or not (entry.fastembed_name or entry.format == "npz"):
        raise EngramError(
            tr("{name} is not described as an embedding model in the catalogue."),
            tr("Choose another embedding model in Settings."),
            name=entry.name,
        )
    floors = {lang: Floors().replaced(values) for lang, values in entry.floors.items()}
    if entry.format == "npz":
        return UseEmbedder(
            entry.folder(), entry.id, entry.embedding_dim, tuple(entry.languages), floors
        )
    return FastEmbedder(
        entry.folder(),
        str(entry.fastembed_name),
        entry.embedding_dim,
        languages=tuple(entry.languages),
        floors=floors,
    )


def cloud_key() -> str | None:
    try:
        return secrets.shared().get(CLOUD_KEY)
    except KeyringUnavailableError:
        return None


USER = Provenance("user")  # the user's own words or edits
HYGIENE = Provenance("hygiene")  # fading, expiry and caps after a learning job


def distilling(settings: Settings) -> Provenance:
    """Where the distiller's writes come from: the cloud model or the large local model."""
    cloud = settings.cloud
    model = f"{cloud.model} (cloud)" if cloud.enabled else settings.large_model
    return Provenance("distiller", model=model or None)


def tidy(store: MemoryStore) -> None:
    """Hygiene after learning, its writes recorded as its own."""
    with store.writing(HYGIENE):
        hygiene.run(store)


class Learning:
    """The background side: the scheduler the turns notify, and the consolidation thread."""

    def __init__(
        self,
        settings: Settings,
        conn: apsw.Connection,
        embedder: Embedder,
        gate: ForegroundGate,
        on_status: Callable[[Status], None],
    ) -> None:
        self.settings = settings  # the scheduler reads triggers and the pause from here, live
        self._embedder, self._gate, self._on_status = embedder, gate, on_status
        self.worker = self._started(settings)
        self.scheduler = Scheduler(JobQueue(conn), settings=lambda: self.settings, wake=self._wake)

    def _wake(self) -> None:
        self.worker.wake()  # the current thread's: apply() may have started another

    def _started(self, settings: Settings) -> ConsolidationWorker:
        """A consolidation thread, running, with the distiller ``settings`` choose."""
        embedder = self._embedder
        worker = ConsolidationWorker(
            lambda: MemoryStore.open(paths.database_path(), embedder, distilling(settings)),
            distiller_backends.from_settings(settings, self._gate, cloud_key),
            gate=self._gate,
            on_status=self._on_status,
            after_job=tidy,
        )
        worker.start()
        return worker

    def apply(self, settings: Settings) -> None:
        """Follow new settings: triggers and the pause from the next turn on; a new choice of
        distiller (learning with a small model turned on or off) on a new thread, at once (a
        job the old one was running goes back to the queue, and the new one takes it up)."""
        old, self.settings = self.settings, settings
        if old.learn_with_small_models != settings.learn_with_small_models:
            self.worker.stop()
            self.worker = self._started(settings)

    def close(self) -> None:
        """Stop the thread (queued work resumes on the next start)."""
        self.worker.stop()


def _opening(settings: Settings) -> tuple[object, ...]:
    """What a session reads only when it opens: a change to one of these reopens it (models
    reload). The rest (learning triggers, the pause, learning with small models, the automatic
    backups, the prompt language, appearance, downloads) applies live (:meth:`Session.apply`)."""
    s = settings
    return (
        (s.small_model, s.large_model, s.embedding_model, s.threads, s.gpu_layers),
        (s.small_server_url, s.small_server_model, s.context_size, s.max_answer_tokens),
        (s.memory_budget_tokens, s.large_model_idle_unload_seconds, s.cloud),
    )


def needs_reopen(old: Settings, new: Settings) -> bool:
    """Does going from ``old`` to ``new`` take a new session (see :func:`_opening`)?"""
    return _opening(old) != _opening(new)


@dataclass
class Session:
    """What one thread needs to run turns; close it on that thread."""

    settings: Settings
    gate: ForegroundGate
    conn: apsw.Connection
    model: LocalModel | ServedModel  # served: the small model on the user's own server
    assistant: Assistant
    store: MemoryStore | None
    memory_problem: Problem | None = None  # why the assistant answers without memory
    learning: Learning | None = None
    owns_model: bool = True  # False when the small model was lent
    _large: LocalModel | None = None
    hub: McpHub | None = None  # the MCP servers of the session's tools
    backups: AutoBackup | None = None  # today's automatic backup, when one was due
    backfill: Backfill | None = None  # embeds messages imported without vectors
    reembedding: Reembedding | None = None  # the memories' vectors made anew for a new model
    ask: Ask | None = None  # asks the user whether a tool may run (None: denied)
    on_permissions: Callable[[dict[str, str]], None] | None = None  # keeps the choices made

    @property
    def model_name(self) -> str:
        """What answers: the local file, or the served model and its server."""
        if isinstance(self.model, ServedModel):
            return f"{self.model.model} @ {urlsplit(self.model.base_url).netloc}"
        return self.model.path.name

    def large_model(self) -> LocalModel:
        """The large model for answers the user escalates (loaded on first use, then kept)."""
        same = self.settings.large_model == self.settings.small_model
        if same and isinstance(self.model, LocalModel):
            return self.model
        if self._large is None:
            self._large = roles.load_local(self.settings, "large", gate=self.gate)
        return self._large

    def apply(self, settings: Settings) -> None:
        """Take new settings that need no reopening (:func:`needs_reopen` is False)."""
        old, self.settings = self.settings, settings
        self.assistant.language = prompts.for_setting(settings.language)
        _personalise(self.assistant, self.model, settings)
        if settings.tools != old.tools:
            self._retool(settings)
        if self.learning is not None:
            self.learning.apply(settings)
        if self.backups is not None and _backing_up(settings) != _backing_up(old):
            # A backup now when the new interval makes one due (or backups were turned on), kept
            # with the new count; one still being written under the old settings is cancelled.
            self.backups.close()
            self.backups = _auto_backup(settings)

    def _retool(self, settings: Settings) -> None:
        """New tool settings: a new toolbox (its MCP servers restart in the background), asking
        the same user and keeping the choices in the same place."""
        if self.hub is not None:
            self.hub.close()
        language = prompts.for_setting(settings.language)
        self.assistant.tools, self.hub = tool_setup.toolbox(
            settings.tools, self.store, language, self.ask, self.on_permissions
        )

    def close(self) -> None:
        for background in (self.backups, self.backfill, self.reembedding):
            if background is not None:
                background.close()
        if self.hub is not None:
            self.hub.close()
        if self.learning is not None:
            self.learning.close()
        if self._large is not None:
            self._large.close()
        if self.owns_model:
            self.model.close()
        self.conn.close()


def _backing_up(settings: Settings) -> tuple[int, int]:
    return settings.backup_every_hours, settings.backups_kept


def _auto_backup(settings: Settings) -> AutoBackup:
    """The automatic backup of the settings: one on its own thread when the newest is older
    than their interval (none when they keep no backups)."""
    path = paths.database_path()
    every, keep = _backing_up(settings)
    return AutoBackup(path, backup.folder_of(path), every, keep)


def _personalise(assistant: Assistant, model: LocalModel | ServedModel, settings: Settings) -> None:
    """The user's custom instructions and answer sampling (no reload needed)."""
    assistant.custom = (settings.about_you, settings.answer_style)
    if isinstance(model, LocalModel):
        model.temperature, model.top_p = settings.temperature, settings.top_p


def _small_model(settings: Settings, gate: ForegroundGate) -> LocalModel | ServedModel:
    """The small model: on the user's own server when Settings name one, else the local GGUF."""
    url, name = settings.small_server_url, settings.small_server_model
    if url and name:
        key = "" if is_own_server(url) else (cloud_key() or "")
        return ServedModel(url, name, key, n_ctx=settings.context_size)
    return roles.load_local(settings, "small", gate=gate)


def open_session(
    settings: Settings,
    on_status: Callable[[Status], None] | None = None,
    *,
    small: LocalModel | None = None,
    embedder: Embedder | None = None,
    ask: Ask | None = None,
    on_permissions: Callable[[dict[str, str]], None] | None = None,
) -> Session:
    """Open the database and load the small model; memory is attached when it can be.

    With ``on_status`` the session also learns: a consolidation thread distills the
    conversation in the background and reports its state through that callback. With
    a ``small`` model or an ``embedder`` already loaded (lent by a longer-lived owner) the
    session uses those instead of loading its own, and does not close them; a lent small model
    gets the session's foreground gate when it has none. Every toolbox of the session asks the
    user with ``ask`` whether a tool may run and keeps the choices with ``on_permissions``.
    """
    conn = db.connect(paths.database_path())
    try:
        db.verify(conn)  # a damaged page is said now, not as a failure of every turn
    except BaseException:
        conn.close()
        raise
    model: LocalModel | ServedModel
    if small is not None:
        model = small
        gate = small.gate = small.gate or ForegroundGate()
    else:
        gate = ForegroundGate()
        try:
            model = _small_model(settings, gate)
        except BaseException:
            conn.close()
            raise
    store: MemoryStore | None = None
    learning: Learning | None = None
    problem: Problem | None = None
    try:
        embedder = embedder or embedder_for(settings)
        store = MemoryStore(conn, embedder, writer=USER)
    except EngramError as exc:
        problem = exc.problem
        _log.warning("answering without memory: %s %s", exc.message, exc.hint)
    if embedder is not None and store is not None and on_status is not None:
        learning = Learning(settings, conn, embedder, gate, on_status)
    language = prompts.for_setting(settings.language)
    tools, hub = tool_setup.toolbox(settings.tools, store, language, ask, on_permissions)
    assistant = Assistant(
        EpisodeLog(conn),
        model,
        max_answer_tokens=settings.max_answer_tokens,
        language=language,
        recall=Recall(store, model.count_tokens) if store else None,
        memory_budget=settings.memory_budget_tokens,
        scheduler=learning.scheduler if learning else None,
        tools=tools,
    )
    _personalise(assistant, model, settings)
    owns_model = small is None
    session = Session(settings, gate, conn, model, assistant, store, problem, learning, owns_model)
    session.hub, session.ask, session.on_permissions = hub, ask, on_permissions
    if store is not None:
        path = paths.database_path()
        session.backups = _auto_backup(settings)
        with db.transaction(conn):  # what the last switch of models left behind
            migrations.drop_older_generations(conn, store.space.generation)
        session.backfill = Backfill(path, store.embedder)
        # The space may already search with the old model's embedder (an earlier session of
        # this process had it): the settings' embedder is the one to re-embed with.
        if embedder is not None and store.space.model_id != embedder.model_id:
            old = _embedder_of_model(store.space.model_id)
            session.reembedding = Reembedding(path, embedder, old)
    return session


def _embedder_of_model(model_id: str) -> Embedder | None:
    """The catalogue's embedder whose vectors are ``model_id``'s, when its files are here."""
    for entry in catalogue.load().models:
        if "embedding" in entry.roles and model_id in (entry.id, entry.fastembed_name):
            try:
                return embedder_of(entry)
            except EngramError:
                return None
    return None
