"""The user's memories as the front ends see them: without a session, and in a chat.

The memory browser and ``engram memory`` browse, search, edit, pin, undo, export, import and
forget memories through :class:`Memories` (on a connection of their own); the functions below
pause memory, write and restore backups and start afresh from a damaged file. In a chat, the
application's :class:`MemoryManager` (``Engram.memories``) keeps what the user asks it to
remember, forgets what "forget that" means with an undo, and gives each stored answer's chips.
The value types the front ends show (:class:`Memory`, :class:`Write`, the kinds and statuses)
are re-exported here, so no front end reads the memory layer itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from engram.assistant import remembering
from engram.assistant.events import (
    Forgotten,
    NothingToForget,
    NotRemembered,
    Recalled,
    Remembered,
    TurnStarted,
)
from engram.assistant.session import USER, embedder_for
from engram.assistant.state import AppState
from engram.assistant.turn.pipeline import title_for
from engram.core import paths
from engram.core.atomic import atomic_write, output_file
from engram.core.errors import EngramError, Problem, StoreCorruptError
from engram.core.settings import Settings, SettingsStore
from engram.memory import backup, db, pause, salvage, transfer
from engram.memory.episode_index import EpisodeIndex
from engram.memory.episodes import Episode, EpisodeLog
from engram.memory.injections import Given, Injections
from engram.memory.kinds import FACT, KINDS, PLAN, POLICIES, PREFERENCE
from engram.memory.outcomes import LessonRecord, Outcomes
from engram.memory.records import (
    EXAMPLE,
    STATUSES,
    EpisodeHit,
    Hit,
    Memory,
    Provenance,
    Source,
    Write,
)
from engram.memory.search import Filters
from engram.memory.store import MemoryStore

__all__ = [
    "KINDS",
    "OWN_KINDS",
    "PLAN",
    "STATUSES",
    "Memories",
    "Memory",
    "MemoryManager",
    "Write",
    "backup_folder",
    "backup_now",
    "backups",
    "open_memories",
    "open_store",
    "pause_memory",
    "reset_damaged",
    "restore_backup",
    "write_sample",
]

# What the user adds in their own words is one of these (the rest Engram learns or keeps).
OWN_KINDS = (FACT, PREFERENCE)


def open_store(settings: Settings, by: Provenance = USER) -> MemoryStore:
    """The user's memory store, with the settings' embedding model, on a new connection for
    the calling thread (close ``store.conn`` when done; closed here when the store cannot
    open); what it writes is recorded as coming from ``by`` (the user's own edits, by default)."""
    embedder = embedder_for(settings)
    conn = db.connect(paths.database_path())
    try:
        return MemoryStore(conn, embedder, writer=by)
    except BaseException:
        conn.close()
        raise


def open_memories(settings: Settings, via: str = "") -> Memories:
    """The user's memories for a front end on the calling thread (:meth:`Memories.close` when
    done); what it changes is recorded as the user's own edit, made ``via`` it (its name, e.g.
    ``engram memory``, or nothing)."""
    return Memories(open_store(settings, Provenance("user", detail=via)))


class Memories:
    """The user's memories on a connection of their own: one thread uses it, then closes it."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    def close(self) -> None:
        self._store.conn.close()

    # -- reading -----------------------------------------------------------------------------

    def memories(
        self,
        kinds: Sequence[str] | None,
        statuses: Sequence[str] | None,
        limit: int,
        offset: int = 0,
    ) -> list[Memory]:
        """Memories of these kinds and statuses (None: any), pinned first, then newest first."""
        return self._store.memories(kinds, statuses, limit, offset)

    def search(
        self,
        query: str,
        k: int = 10,
        kinds: Sequence[str] | None = None,
        statuses: Sequence[str] | None = ("active",),
        dedupe: float | None = None,
    ) -> list[Hit]:
        """Hybrid search (meaning and words), near-duplicates at ``dedupe`` (by default the
        embedder's duplicate floor) collapsed."""
        return self._store.search(query, k, Filters(kinds=kinds, statuses=statuses), dedupe=dedupe)

    def search_messages(self, query: str, k: int = 10) -> list[EpisodeHit]:
        """Hybrid search over the messages of every chat (those not embedded yet first are)."""
        episodes = EpisodeIndex(self._store.space)
        episodes.index_new()
        return episodes.search(query, k)

    def get(self, memory_id: int) -> Memory | None:
        return self._store.get(memory_id)

    def counts(self) -> tuple[int, int, int]:
        """How many memories (any status), chats and messages there are."""
        return self._store.counts()

    def writes(self, memory_id: int) -> list[Write]:
        """Every recorded write of a memory, oldest first."""
        return self._store.writes(memory_id)

    def replaced_by(self, memory_id: int) -> Memory | None:
        """The memory this one replaced (superseded), if any."""
        return self._store.replaced_by(memory_id)

    def sources(self, memory_id: int) -> list[Source]:
        """Where a memory was learned: its chats and turns (kept when a chat is deleted)."""
        return self._store.sources(memory_id)

    def source_episodes(self, memory_id: int) -> list[Episode]:
        """The messages a memory was learned from, still stored."""
        return self._store.source_episodes(memory_id)

    def lesson_record(self, memory: Memory) -> LessonRecord | None:
        """How a lesson has done (answers it went into, helped, hurt); None for a kind whose
        outcomes are not credited."""
        if not POLICIES[memory.kind].credited:
            return None
        return Outcomes(self._store).lesson_record(memory.id)

    # -- changing ----------------------------------------------------------------------------

    def add(self, content: str, kind: str = FACT) -> Remembered:
        """A memory in the user's own words (one of OWN_KINDS), kept as ``/remember`` keeps
        it: origin user, the importance of what the user asks to remember. The same memory
        again is the one already there; one that changes a number, date or name replaces it
        (``replaced_id`` and ``change`` say so)."""
        return remembering.remember(self._store, 0, None, content, kind)

    def save(self, memory_id: int, content: str, importance: float) -> None:
        """The user's edit of a memory's text and importance (re-embedded). A lesson's example,
        which shows what its old words asked for, goes when the words change."""
        memory = self._store.get(memory_id)
        fields: dict[str, Any] = {}
        if memory is not None and EXAMPLE in memory.meta and memory.content != content:
            fields["meta"] = {k: v for k, v in memory.meta.items() if k != EXAMPLE}
        self._store.update(memory_id, content, importance=importance, **fields)

    def pin(self, memory_id: int, pinned: bool) -> None:
        self._store.pin(memory_id, pinned)

    def restore(self, memory_id: int) -> None:
        """An archived or superseded memory active again (and learnable again, when the user
        had marked it wrong or forgotten it)."""
        self._store.update(memory_id, status="active")
        self._store.tombstones.lift(memory_id)

    def undo(self, memory_id: int, write_id: int) -> None:
        """Take back a write: the earlier text, or the replaced memory active again."""
        self._store.undo(memory_id, write_id)

    def delete(self, memory_id: int) -> None:
        """Delete a memory for good: its text is erased from the file."""
        self._store.delete(memory_id)

    def forget_all(self, chats: bool = False) -> int:
        """Delete every memory (and every chat, with ``chats``) for good; returns how many
        memories."""
        return self._store.forget_all(episodes=chats)

    @property
    def wal_truncated(self) -> bool:
        """False when another reader kept the deleted text in the write-ahead log."""
        return self._store.wal_truncated

    # -- the whole store ---------------------------------------------------------------------

    def export(self, out: IO[str], markdown: bool = False, chats: bool = False) -> int:
        """Write the memories as JSON Lines (with every chat, with ``chats``), or the active
        ones as a readable Markdown list; returns the lines or memories written."""
        if markdown:
            return transfer.export_markdown(self._store, out)
        return transfer.export_jsonl(self._store, out, episodes=chats)

    def export_to(self, path: Path, markdown: bool = False, chats: bool = False) -> int:
        """:meth:`export` into the file ``path``, written whole or not at all (a file already
        there is replaced once the export is complete); raises why ``path`` cannot be written
        (a folder, or in a folder that does not exist) before anything is written."""
        with atomic_write(output_file(path)) as handle:
            return self.export(handle, markdown, chats)

    def import_file(
        self, path: Path, progress: Callable[[int, int], None] | None = None
    ) -> transfer.Imported:
        """Add the memories of a JSON Lines export, all or nothing; ``progress`` hears how many
        were embedded of how many."""
        return transfer.import_jsonl(self._store, path, progress)


# -- the whole file: pause, backups, a damaged file -------------------------------------------


class MemoryManager:
    """The user's memories in the chats of an open session (``Engram.memories``): what they
    ask to remember, what "forget that" means (with an undo), and each answer's chips."""

    def __init__(self, state: AppState) -> None:
        self._state = state
        self._mentioned = remembering.LastMentioned()  # what "forget that" means in each chat
        self._forgotten: list[Forgotten] = []  # archived, deleted unless undone

    def remember(
        self, conversation_id: int, said: str, content: str
    ) -> tuple[int, Remembered | NotRemembered]:
        """Keep ``content`` as the user's own memory now, without an answer (the terminal's
        ``/remember``); the line ``said`` stays in the chat as where it came from (conversation
        0: a new chat, titled after ``content``). Returns the chat and what happened."""
        assistant = self._state.ready().assistant
        quiet = self._state.quiet(conversation_id)
        if quiet is not None:
            return conversation_id, NotRemembered(quiet)
        if not conversation_id:
            conversation_id = assistant.new_conversation(title_for(content))
        self._mentioned.turn(conversation_id)
        episode = assistant.log.append(conversation_id, "user", said)
        how = f"/remember in message #{episode.id}"
        return conversation_id, self._remember(conversation_id, episode.id, content, quiet, how)

    def started(
        self, turn: TurnStarted, content: str | None, quiet: Problem | None
    ) -> Remembered | NotRemembered | None:
        """A turn started: "forget that" means something new from now on, and the ``content``
        of its "remember this: …" (when it had one) is kept at once."""
        self._mentioned.turn(turn.conversation_id)
        if not content:
            return None
        chat, episode = turn.conversation_id, turn.user_episode_id
        how = f'"remember this:" in message #{episode}'
        return self._remember(chat, episode, content, quiet, how)

    def _remember(
        self, conversation_id: int, episode_id: int, content: str, quiet: Problem | None, how: str
    ) -> Remembered | NotRemembered:
        if quiet is not None:
            return NotRemembered(quiet)
        store = self._state.ready().store
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
        closing the Engram) deletes it for good."""
        assistant = self._state.ready().assistant
        if assistant.recall is None:
            return NothingToForget()
        found = self._mentioned.forget(conversation_id, assistant.log, assistant.recall)
        if found is None:
            return NothingToForget()
        self._forgotten.append(found)
        return found

    def undo_forget(self, forgotten: Forgotten) -> None:
        """Bring back what "forget that" archived."""
        session = self._state.session
        if session is not None and session.store is not None:
            remembering.undo(session.store, forgotten)
            self._forgotten = [f for f in self._forgotten if f != forgotten]

    def purge_forgotten(self) -> None:
        """The undo is no longer offered: delete what was forgotten, text and all."""
        session = self._state.session
        if session is not None and session.store is not None and self._forgotten:
            remembering.purge(session.store, self._forgotten)
        self._forgotten = []

    def recalled(
        self, answer_episode_ids: list[int]
    ) -> dict[int, tuple[tuple[Recalled, ...], tuple[Recalled, ...]]]:
        """The chips of each of these stored answers, and those it used: what its live answer
        showed (``Finished.recalled`` and ``used``), made by the same function."""
        session = self._state.session
        return session.assistant.chips(answer_episode_ids) if session is not None else {}


def pause_memory(settings: SettingsStore, paused: bool | None) -> bool:
    """Pause (True) or resume (False) memory, in the database (a window or chat open now
    follows at its next message) and in the settings (what the next start and the window's
    checkbox show); None changes nothing. Returns whether memory is paused."""
    conn = db.connect(paths.database_path())
    try:
        if paused is not None:
            settings.update(memory_paused=paused)
            pause.set_paused(conn, paused)
        return pause.paused(conn, settings.current.memory_paused)
    finally:
        conn.close()


def backup_folder() -> Path:
    """Where the backups of the database are written."""
    return backup.folder_of(paths.database_path())


def backups() -> list[Path]:
    """The backups, newest first."""
    return backup.listed(backup_folder())


def backup_now(settings: Settings) -> Path | None:
    """Write a backup of the database now, keeping the settings' number of them."""
    return backup.backup(paths.database_path(), backup_folder(), max(1, settings.backups_kept))


def restore_backup(chosen: Path) -> Path | None:
    """Replace the database by a backup; returns where the replaced database was kept."""
    return backup.restore(chosen, paths.database_path())


def reset_damaged() -> tuple[Path, salvage.Salvaged] | None:
    """When the database is damaged: move it aside and copy what is still readable into a
    fresh one; returns where it was moved and what was copied (None when it is not damaged)."""
    path = paths.database_path()
    try:
        conn = db.connect(path)
        try:
            db.verify(conn)
        finally:
            conn.close()
    except StoreCorruptError:
        moved = db.quarantine(path)
        return moved, salvage.salvage(moved, path)
    return None


# -- sample data: the screenshots' -------------------------------------------------------------

Chat = tuple[str, Sequence[tuple[str, str]]]  # a title, and (role, text) messages
Learned = tuple[str, str, float, int, bool]  # kind, content, importance, source chat, given


def write_sample(
    settings: Settings,
    chats: Sequence[Chat],
    learned: Sequence[Learned],
    plan: dict[str, Any],
    rewritten: tuple[int, str],
    earlier: Sequence[tuple[int, int]] = (),
) -> None:
    """Store sample chats and the memories learned from them, as real use would: each memory
    learned by the settings' large model from its source chat (a plan with ``plan`` as its
    meta), those marked given recorded as given to the last answer, with the ``earlier``
    messages (chat index, message index) after them, and one memory (by index) rewritten
    later by learning."""
    store = open_store(settings, Provenance("distiller", model=settings.large_model or None))
    try:
        log = EpisodeLog(store.conn)
        episodes: list[list[int]] = []
        for title, messages in chats:
            conversation = log.new_conversation(title).id
            episodes.append([log.append(conversation, r, t).id for r, t in messages])
        given = []
        written = []
        for kind, content, importance, source, used in learned:
            memory = store.add(
                content,
                kind,
                importance=importance,
                origin="local",
                source_episodes=episodes[source],
                meta=plan if kind == PLAN else None,
            )
            written.append(memory.id)
            if used:  # the plan as every answer has it: in the system part
                plan_ = kind == PLAN
                given.append(Given(1.0, memory.id, place="system" if plan_ else "notes",
                                   counted=not plan_))  # fmt: skip
        given += [Given(0.8, episode_id=episodes[chat][said]) for chat, said in earlier]
        Injections(store.conn).record_given(episodes[-1][-1], given)  # the last answer's
        which, text = rewritten
        store.update(written[which], text)
    finally:
        store.conn.close()
