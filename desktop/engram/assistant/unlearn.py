"""Undo what learning jobs wrote: the Undo of the window's "Memory updated" toast, a call any
front end can make.

A job's writes are kept together (:mod:`engram.memory.job_writes`); undoing it takes each back,
newest first, as the user's own write ("undid learning job #N" in the memory's history):

- a memory the job added is archived (retired: out of recall, kept in the memory browser under
  Archived, where Restore brings it back);
- a memory it replaced is active again, and the one that replaced it archived;
- a text it changed gets its earlier text back (re-embedded, like an edit);
- a memory the hygiene pass after it merged into what it wrote is active again.

No tombstone is written: the user took the lesson back, but did not say it was wrong, so a
later chat that says the same thing may teach it again. What an update raised besides the text
(its importance, the situations it applies to) is not recorded before the write, and stays.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from engram.assistant.memories import open_store
from engram.core.settings import Settings
from engram.memory import job_writes
from engram.memory.records import Provenance
from engram.memory.store import MemoryStore

ARCHIVED = "status → archived"  # the change a write records when it archives


@dataclass(frozen=True)
class Unlearned:
    """What undoing took back: memories the jobs added, now archived (``retired``), and
    memories they changed, replaced or merged away, as they were before (``restored``)."""

    retired: int = 0
    restored: int = 0


def undo_learning(settings: Settings, job_ids: Collection[int]) -> Unlearned:
    """Undo the jobs in the user's memory file, on a connection of this call's own."""
    store = open_store(settings)
    try:
        return undo(store, job_ids)
    finally:
        store.conn.close()


def undo(store: MemoryStore, job_ids: Collection[int]) -> Unlearned:
    """Take back every write the jobs made (see the module), newest first; what is already
    as before (undone once, or changed back by the user) is left as it is."""
    retired: set[int] = set()
    restored: set[int] = set()
    names = ", ".join(f"#{i}" for i in sorted(job_ids))
    with store.writing(Provenance("user", detail=f"undid learning job {names}")):
        for memory_id, write in job_writes.of_jobs(store.conn, job_ids):
            memory = store.get(memory_id)
            if memory is None:  # deleted since: nothing to take back
                continue
            if write.change == "created":
                if memory.status == "active":
                    store.update(memory_id, status="archived")
                    retired.add(memory_id)
            elif (write.replaced_by is not None and memory.status == "superseded") or (
                write.before is not None and memory.content != write.before
            ):  # a memory replaced (its replacement is archived with it), or a text changed
                replacement = store.get(write.replaced_by or 0)
                if replacement is not None and replacement.status == "active":
                    retired.add(replacement.id)
                store.undo(memory_id, write.id)
                restored.add(memory_id)
            elif write.change == ARCHIVED and memory.status == "archived":  # merged by hygiene
                meta = {k: v for k, v in memory.meta.items() if k != "archived"}
                store.update(memory_id, status="active", meta=meta)
                restored.add(memory_id)
    return Unlearned(len(retired), len(restored - retired))
