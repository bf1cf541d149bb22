"""The user's current plan as the window's plan panel edits it: goal, steps, current step.

Reads the newest active plan memory (its ``meta.plan``) and writes an edit back through the
store: the text the model sees follows the structure (:func:`proposals.plan_text`), and a plan
ticked past its last step is done (archived: out of the system part, kept in the browser).
A plan the user edited here is theirs: reconciliation keeps its steps and never moves it back.
"""

from __future__ import annotations

from engram.assistant.events import Plan
from engram.assistant.learning.proposals import plan_text
from engram.assistant.learning.reconcile import TICKED
from engram.memory.kinds import PLAN
from engram.memory.records import plan_of
from engram.memory.store import MemoryStore
from engram.memory.text import text_language


def current(store: MemoryStore) -> Plan | None:
    """The newest active plan, or None (a plan without structure shows as its goal)."""
    plans = store.memories(kinds=[PLAN], limit=1)
    if not plans:
        return None
    memory = plans[0]
    spec = plan_of(memory)
    if spec is None:
        return Plan(memory.id, memory.content, (), 0)
    goal, steps, step = spec
    return Plan(memory.id, goal, tuple(steps), step)


def save(store: MemoryStore, plan: Plan) -> Plan | None:
    """Write the edited plan; returns it as stored now (None once it is done and archived)."""
    steps = [s.strip() for s in plan.steps if s.strip()]
    step = min(max(0, plan.current), len(steps))
    spec: dict[str, object] = {"goal": plan.goal.strip(), "steps": steps, "current_step": step}
    shown = min(step, max(0, len(steps) - 1))
    content = plan_text(plan.goal, steps, shown, text_language(plan.goal))
    old = store.get(plan.memory_id)
    if old is None:
        return None
    done = bool(steps) and step >= len(steps)
    if done:
        spec["done"] = True
        spec["current_step"] = shown
    store.update(
        plan.memory_id,
        content,
        meta={**old.meta, "plan": spec, TICKED: True},  # the distiller keeps the user's steps
        **({"status": "archived"} if done else {}),
    )
    return None if done else Plan(plan.memory_id, plan.goal.strip(), tuple(steps), step)
