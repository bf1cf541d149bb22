"""The user's plan in an open session (``Engram.plans``): the plan panel reads the current plan
and writes the user's edits of it (a plan's rules are in :mod:`engram.assistant.learning.plans`).
"""

from __future__ import annotations

from engram.assistant.events import Plan
from engram.assistant.learning import plans
from engram.assistant.state import AppState


class PlanManager:
    """The current plan of an open session's memory."""

    def __init__(self, state: AppState) -> None:
        self._state = state

    def current(self) -> Plan | None:
        """The user's current plan (None without one, or without memory)."""
        session = self._state.session
        store = session.store if session is not None else None
        return plans.current(store) if store is not None else None

    def save(self, plan: Plan) -> Plan | None:
        """Write an edit of the plan (one ticked to its end is done); returns the current plan."""
        store = self._state.ready().store
        if store is None:
            return None
        plans.save(store, plan)
        return plans.current(store)
