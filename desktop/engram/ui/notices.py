"""What the main window says above the chat: problems, and toasts about memory ("Memory updated"
with Manage and Undo, "Forgot: …" with Undo, Remember's feedback).

What learning wrote stays until the user closes it, clicks Manage or undoes it (another result
while it is unread joins it); it names every memory whole, wrapped. Its Undo takes back what
those learning jobs wrote (:func:`engram.assistant.unlearn.undo_learning`, on a worker thread of
its own). "Forgot: …" keeps its Undo while its chat is shown."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QThread, Signal

from engram.assistant.events import Forgotten, Learned, Status
from engram.assistant.unlearn import undo_learning
from engram.core import settings as settings_mod
from engram.core.errors import Problem
from engram.ui import errors
from engram.ui.i18n import Text, said
from engram.ui.memory_browser import MemoryBrowser
from engram.ui.threads import Worker, start_worker, stop_thread, worker_slot
from engram.ui.toast import Notice

LEARNED, FORGOTTEN = "learned", "forgotten"  # the toasts' keys


class Unlearner(Worker):
    """Undoes learning jobs on its thread, in the user's memory file."""

    undone = Signal(object)  # Unlearned: what was taken back

    @worker_slot(object)
    def undo(self, job_ids: object) -> None:
        self.undone.emit(undo_learning(settings_mod.load(), job_ids))  # type: ignore[arg-type]


class Notices(QObject):
    """Says things on ``notice``; its links open the memory browser (``show_memories``) or
    undo a forget. What was forgotten is deleted for good once its toast is gone."""

    undo_forget_requested = Signal(object)  # Forgotten
    purge_forgotten_requested = Signal()
    undo_learning_requested = Signal(object)  # the learning jobs' ids, to the Unlearner
    unlearner_shutdown = Signal()

    def __init__(self, notice: Notice, show_memories: Callable[[], MemoryBrowser]) -> None:
        super().__init__(notice)
        self.notice = notice
        self.show_memories = show_memories
        self._learned: tuple[Learned, ...] = ()
        self._learned_unread = False  # its toast is shown, or waits under a newer message
        self._unlearning: tuple[Unlearner, QThread] | None = None  # while an undo runs
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
        """A toast saying what learning just added or changed, every memory whole, with a way
        to review it and to undo it; it stays until the user closes it, clicks Manage or Undo
        (a result still unread joins it)."""
        if self._learned_unread:
            known = {item.memory_id for item in learned}
            learned = (*[i for i in self._learned if i.memory_id not in known], *learned)
        self._learned = learned

        def text() -> str:
            added = sum(1 for item in learned if item.action == "add")
            head = self.tr("Memory updated: {added} new, {changed} changed").format(
                added=added, changed=len(learned) - added
            )
            lines = [
                ("+ " if item.action == "add" else "~ ") + " ".join(item.content.split())
                for item in learned
            ]
            return "\n".join([head, *lines])

        links: dict[str, Text] = {"manage": lambda: self.tr("Manage")}
        if any(item.job_id is not None for item in learned):
            links["undo_learning"] = lambda: self.tr("Undo")
        self.notice.show_toast(text, links, until="closed", key=LEARNED)
        self._learned_unread = True

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
            until="chat",
            key=FORGOTTEN,
        )
        self._forgotten = forgotten  # after showing: the toast it replaced took its own along

    def _on_link(self, key: str) -> None:
        if key == "manage" and self._learned:
            self.show_memories().show_only([item.memory_id for item in self._learned])
            if self.notice.key() == LEARNED:  # read: its toast is done
                self.notice.dismiss()
        elif key == "undo_learning" and self._learned:
            self._undo_learning({i.job_id for i in self._learned if i.job_id is not None})
        elif key == "undo" and self._forgotten is not None:
            self.undo_forget_requested.emit(self._forgotten)
            self._forgotten = None
            if self.notice.key() == FORGOTTEN:
                self.notice.dismiss()
            self.toast(lambda: self.tr("Brought back."))

    def _undo_learning(self, job_ids: set[int]) -> None:
        """Undo the jobs of the toast on a worker thread; the toast goes (its Undo with it)."""
        if self._unlearning is not None:
            return
        worker = Unlearner()
        self._unlearning = start_worker(
            self,
            worker,
            "engram-unlearn",
            (
                (self.undo_learning_requested, worker.undo),
                (self.unlearner_shutdown, worker.shutdown),
                (worker.undone, self._on_unlearned),
                (worker.failed, self._on_unlearn_failed),
            ),
        )
        self.undo_learning_requested.emit(job_ids)
        self._learned = ()
        if self.notice.key() == LEARNED:
            self.notice.dismiss()

    def _on_unlearned(self, _undone: object) -> None:
        self._stop_unlearning()
        self.toast(lambda: self.tr("Undone: your memories are as they were before this learning."))

    def _on_unlearn_failed(self, problem: Problem) -> None:
        self._stop_unlearning()
        self.problem(problem)

    def _stop_unlearning(self) -> None:
        if self._unlearning is not None:
            stop_thread(self._unlearning[1], self.unlearner_shutdown)
            self._unlearning = None

    def _on_hidden(self, key: str) -> None:
        """A toast is gone for good. With the Forgot toast its undo goes: what was forgotten
        is deleted for good."""
        if key == LEARNED:
            self._learned_unread = False
        elif key == FORGOTTEN and self._forgotten is not None:
            self._forgotten = None
            self.purge_forgotten_requested.emit()


def _text(message: Problem | Text) -> str:
    """A message as shown, in the current language: a Problem translated and filled in."""
    return errors.text(message) if isinstance(message, Problem) else said(message)
