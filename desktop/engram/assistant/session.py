"""Building a ready assistant from settings: the small model, the store, the embedder, recall.

The desktop worker and ``engram chat`` both start here, each on the thread that will use it.
"""

from __future__ import annotations

import locale
from dataclasses import dataclass

import apsw

from engram.assistant.recall import Recall
from engram.assistant.turn import Assistant
from engram.core import log, paths
from engram.core.errors import EngramError
from engram.core.settings import Settings
from engram.memory import db
from engram.memory.embed import FastEmbedder
from engram.memory.episodes import EpisodeLog
from engram.memory.store import MemoryStore
from engram.models import catalogue, files, roles
from engram.models.local import LocalModel

_log = log.get("assistant.session")


def prompt_language(setting: str) -> str:
    """ "en" or "zh_CN" for the prompts: the UI language, or the system locale when "system"."""
    if setting != "system":
        return setting
    code = (locale.getlocale()[0] or "").lower()
    return "zh_CN" if code.startswith("zh") else "en"


def embedder_for(settings: Settings, cat: catalogue.Catalogue | None = None) -> FastEmbedder:
    """The embedding model of the settings, checked on disk (loaded lazily on first use)."""
    entry = roles.entry_for(settings, "embedding", cat)
    files.verify(entry)
    if not entry.fastembed_name or not entry.embedding_dim:
        raise EngramError(
            f"{entry.name} has no fastembed_name/embedding_dim in the catalogue.",
            "Choose another embedding model in Settings.",
        )
    return FastEmbedder(entry.folder(), entry.fastembed_name, entry.embedding_dim)


@dataclass
class Session:
    """What one thread needs to run turns; close it on that thread."""

    conn: apsw.Connection
    model: LocalModel
    assistant: Assistant
    store: MemoryStore | None
    memory_problem: str = ""

    def close(self) -> None:
        self.model.close()
        self.conn.close()


def open_session(settings: Settings) -> Session:
    """Open the database and load the small model; memory is attached when it can be."""
    conn = db.connect(paths.database_path())
    try:
        model = roles.load_local(settings, "small")
    except BaseException:
        conn.close()
        raise
    store: MemoryStore | None = None
    problem = ""
    try:
        store = MemoryStore(conn, embedder_for(settings))
    except EngramError as exc:
        problem = f"{exc.message} {exc.hint}".strip()
        _log.warning("answering without memory: %s", problem)
    assistant = Assistant(
        EpisodeLog(conn),
        model,
        max_answer_tokens=settings.max_answer_tokens,
        language=prompt_language(settings.language),
        recall=Recall(store, model.count_tokens) if store else None,
        memory_budget=settings.memory_budget_tokens,
    )
    return Session(conn, model, assistant, store, problem)
