"""What the main window says above the chat: problems, and toasts about memory ("Memory updated"
with Manage, "Forgot: …" with Undo, Remember's feedback).

What learning wrote stays until the user closes it or clicks Manage (another result while it
is unread joins it); each memory is named whole, or shortened at a word with the whole of it
in the tooltip. "Forgot: …" keeps its Undo while its chat is shown."""

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
LEARNED_CHARS = 240  # a longer memory is shortened there (at a word), whole in the tooltip
LEARNED, FORGOTTEN = "learned", "forgotten"  # the toasts' keys


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
        self._learned_unread = False  # its toast is shown, or waits under a newer message
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
        """A toast saying what learning just added or changed, with a way to review it; it
        stays until the user closes it or clicks Manage (a result still unread joins it)."""
        if self._learned_unread:
            known = {item.memory_id for item in learned}
            learned = (*[i for i in self._learned if i.memory_id not in known], *learned)
        self._learned = learned

        def lines(limit: int | None) -> list[str]:
            return [
                ("+ " if item.action == "add" else "~ ")
                + (shortened(item.content, limit) if limit else " ".join(item.content.split()))
                for item in learned[:LEARNED_SHOWN]
            ]

        def text() -> str:
            added = sum(1 for item in learned if item.action == "add")
            shown = lines(LEARNED_CHARS)
            if len(learned) > LEARNED_SHOWN:
                shown.append(self.tr("… and %n more", "", len(learned) - LEARNED_SHOWN))
            head = self.tr("Memory updated: {added} new, {changed} changed").format(
                added=added, changed=len(learned) - added
            )
            return "\n".join([head, *shown])

        def tip() -> str:
            whole = lines(None)
            return "\n".join(whole) if whole != lines(LEARNED_CHARS) else ""

        self.notice.show_toast(
            text, {"manage": lambda: self.tr("Manage")}, until="closed", key=LEARNED, tip=tip
        )
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
        elif key == "undo" and self._forgotten is not None:
            self.undo_forget_requested.emit(self._forgotten)
            self._forgotten = None
            if self.notice.key() == FORGOTTEN:
                self.notice.dismiss()
            self.toast(lambda: self.tr("Brought back."))

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


def shortened(text: str, limit: int) -> str:
    """``text`` on one line, and when longer than ``limit`` characters cut after its last whole
    word that fits (or at ``limit`` in a text without spaces, e.g. Chinese), with "…"."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[:limit]
    space = cut.rfind(" ")
    if space >= limit * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,;:.，、；：。") + "…"
