"""What the main window says above the chat: problems, and toasts about memory ("Memory updated"
with Manage, "Forgot: …" with Undo, Remember's feedback)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from engram.assistant.events import Forgotten, Learned, Status
from engram.core.errors import Problem
from engram.ui import errors
from engram.ui.i18n import Text, said
from engram.ui.memory_browser import MemoryBrowser
from engram.ui.toast import Notice

LEARNED_SHOWN = 3  # memories named in the "Memory updated" toast


class Notices(QObject):
    """Says things on ``notice``; its links open the memory browser (``show_memories``) or
    undo a forget. What was forgotten is deleted for good once its toast is gone."""

    undo_forget_requested = Signal(object)  # Forgotten
    purge_forgotten_requested = Signal()

    def __init__(self, notice: Notice, show_memories: Callable[[], MemoryBrowser]) -> None:
        super().__init__(notice)
        self.notice = notice
        self.show_memories = show_memories
        self._learned: tuple[Learned, ...] = ()
        self._forgotten: Forgotten | None = None  # while its undo is offered
        # After Remember, until learning ends in a result: (work seen, memories learned)
        self._remembering: tuple[bool, int] | None = None
        notice.link.connect(self._on_link)
        notice.hidden.connect(self._on_hidden)

    def problem(self, message: Problem | Text) -> None:
        """Something went wrong: stays until closed or solved."""
        self.notice.show_problem(lambda: _text(message))

    def toast(self, message: Problem | Text) -> None:
        """Something happened: passes after a few seconds."""
        self.notice.show_toast(lambda: _text(message))

    def remembering(self, learning: Status, why_not: Problem | None = None) -> None:
        """Remember was clicked: say when learning from this chat starts (or why it may not,
        e.g. memory is paused); :meth:`learning_reported` then says how it ended."""
        if why_not is not None:
            self.toast(why_not)
            return
        self._remembering = (False, 0)
        if learning.state in ("distilling", "waiting"):
            self.toast(
                lambda: self.tr("Engram will learn from this chat when the current lesson is done.")
            )
        else:
            self.toast(lambda: self.tr("Learning from this chat…"))

    def learning_reported(self, status: Status) -> None:
        """After Remember, learning ends in a result: "Memory updated" (said by
        :meth:`learned`), nothing new, or why it failed."""
        if self._remembering is None:
            return
        worked, learned = self._remembering
        learned += len(status.learned)
        if status.state in ("distilling", "waiting"):
            self._remembering = (True, learned)
        elif status.state == "failed":
            self._remembering = None
            error = status.error
            self.toast(
                lambda: self.tr("Engram could not learn from this chat: {error}").format(
                    error=errors.translate(error)[0] if error else ""
                )
            )
        elif worked and not status.queued:  # idle, the queue empty: this chat's job is done
            self._remembering = None
            if not learned:
                self.toast(
                    lambda: self.tr(
                        "Nothing new to learn from this chat: your memories are up to date."
                    )
                )
        else:
            self._remembering = (worked, learned)

    def learned(self, learned: tuple[Learned, ...]) -> None:
        """A toast saying what learning just added or changed, with a way to review it."""
        self._learned = learned

        def text() -> str:
            added = sum(1 for item in learned if item.action == "add")
            lines = [
                ("+ " if item.action == "add" else "~ ") + " ".join(item.content.split())[:120]
                for item in learned[:LEARNED_SHOWN]
            ]
            if len(learned) > LEARNED_SHOWN:
                lines.append(self.tr("… and %n more", "", len(learned) - LEARNED_SHOWN))
            head = self.tr("Memory updated: {added} new, {changed} changed").format(
                added=added, changed=len(learned) - added
            )
            return "\n".join([head, *lines])

        self.notice.show_toast(text, {"manage": lambda: self.tr("Manage")})

    def forgotten(self, forgotten: Forgotten | None) -> None:
        """After "forget that": what went, with an undo (or that nothing could go)."""
        if forgotten is None:
            self.toast(
                lambda: self.tr("There is nothing to forget here: the last answer used no memory.")
            )
            return
        self.notice.show_toast(
            lambda: self.tr("Forgot: {text}").format(text=forgotten.content),
            {"undo": lambda: self.tr("Undo")},
        )
        self._forgotten = forgotten  # after showing: the toast it replaced took its own along

    def _on_link(self, key: str) -> None:
        if key == "manage" and self._learned:
            self.show_memories().show_only([item.memory_id for item in self._learned])
        elif key == "undo" and self._forgotten is not None:
            self.undo_forget_requested.emit(self._forgotten)
            self._forgotten = None
            self.toast(lambda: self.tr("Brought back."))

    def _on_hidden(self) -> None:
        """The undo is gone with its toast: what was forgotten is deleted for good."""
        if self._forgotten is not None:
            self._forgotten = None
            self.purge_forgotten_requested.emit()


def _text(message: Problem | Text) -> str:
    """A message as shown, in the current language: a Problem translated and filled in."""
    return errors.text(message) if isinstance(message, Problem) else said(message)
