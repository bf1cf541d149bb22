"""``engram learn``: run the pending consolidation jobs now and say what memory gained or lost."""

from __future__ import annotations

import argparse
import sys

from engram.assistant.learn import learn_waiting
from engram.assistant.memories import Memory
from engram.cli import terminal
from engram.cli.eval import ProgressBar
from engram.core import settings

STEPS = 1000  # progress units of the whole run


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "learn", help="distill the conversations waiting in the queue now, with progress"
    )
    cmd.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    bar = ProgressBar(sys.stderr)
    try:
        learnt = learn_waiting(
            settings.load(), lambda done, note: bar(int(done * STEPS), STEPS, note)
        )
    finally:
        bar.close()
    if not learnt.jobs:
        print("Nothing to learn: no conversation is waiting in the queue.")
        return 0
    for job, result in learnt.jobs:
        why = f" ({result.problem.message})" if result.problem else ""
        print(f"job {job.id} ({job.reason}): {result.outcome}{why}")
    print("\n".join(changes(learnt.before, learnt.after)) or "Memory is unchanged.")
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
