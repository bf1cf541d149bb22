"""``engram learn``: run the pending consolidation jobs now and say what memory gained or lost."""

from __future__ import annotations

import argparse
import sys

from engram.assistant.learning import distiller_backends, hygiene
from engram.assistant.learning.consolidation import Phase, Progress, run_job
from engram.assistant.session import _cloud_key, embedder_for
from engram.cli import terminal
from engram.cli.eval import ProgressBar
from engram.core import paths, settings
from engram.core.cancel import CancelToken
from engram.memory.jobs import JobQueue
from engram.memory.records import Memory
from engram.memory.store import MemoryStore

STEPS = 100  # progress units per job


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "learn", help="distill the conversations waiting in the queue now, with progress"
    )
    cmd.set_defaults(run=run)


def _reporter(bar: ProgressBar, start: int, total: int, job_id: int) -> Progress:
    """A job's progress as units of the bar, from ``start``."""

    def progress(phase: Phase, fraction: float, _model: object) -> None:
        bar(start + int(fraction * STEPS), total, f"job {job_id}: {phase}")

    return progress


def _snapshot(store: MemoryStore) -> dict[int, Memory]:
    return {m.id: m for m in store.memories(statuses=None, limit=1_000_000)}


def run(args: argparse.Namespace) -> int:
    chosen = settings.load()
    store = MemoryStore.open(paths.database_path(), embedder_for(chosen))
    try:
        queue = JobQueue(store.conn)
        queue.recover()
        waiting = queue.jobs("queued")
        if not waiting:
            print("Nothing to learn: no conversation is waiting in the queue.")
            return 0
        source = distiller_backends.from_settings(chosen, None, _cloud_key)
        if isinstance(source, distiller_backends.MissingDistiller):
            source.acquire(CancelToken())  # raises why no job can run (once, with what to do)
        before = _snapshot(store)
        bar = ProgressBar(sys.stderr)
        total = len(waiting) * STEPS
        outcomes: list[str] = []
        try:
            for done, _ in enumerate(waiting):
                job = queue.claim(now=float("inf"))  # backoff waits are skipped: asked for now
                if job is None:
                    break

                progress = _reporter(bar, done * STEPS, total, job.id)
                result = run_job(job, store, queue, source, CancelToken(), progress)
                why = f" ({result.problem.message})" if result.problem else ""
                outcomes.append(f"job {job.id} ({job.reason}): {result.outcome}{why}")
                bar((done + 1) * STEPS, total, outcomes[-1])
        finally:
            bar.close()
            source.idle()
        hygiene.run(store)
        print("\n".join(outcomes))
        print("\n".join(changes(before, _snapshot(store))) or "Memory is unchanged.")
    finally:
        store.conn.close()
    return 0


def changes(before: dict[int, Memory], after: dict[int, Memory]) -> list[str]:
    """What was added, updated and retired (archived or superseded), one memory a line."""
    lines = []
    for memory_id, memory in sorted(after.items()):
        old = before.get(memory_id)
        text = terminal.safe(" ".join(memory.content.split()))
        if old is None and memory.status == "active":
            lines.append(f"added    #{memory_id} {memory.kind}: {text}")
        elif old is not None and old.status == "active" and memory.status != "active":
            lines.append(f"retired  #{memory_id} {memory.kind} [{memory.status}]: {text}")
        elif old is not None and memory.status == "active" and old.updated_at != memory.updated_at:
            lines.append(f"updated  #{memory_id} {memory.kind}: {text}")
    return lines
