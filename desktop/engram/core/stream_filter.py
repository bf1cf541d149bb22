"""What a model says that the user must not see: reasoning and Engram's own prompt markup.

Hybrid thinking models (Qwen3) may write ``<think>…</think>`` before the answer; small models echo
Engram's ``<memory>`` blocks and their headers back. :class:`StreamFilter` removes both from a
stream of pieces, also when a tag is split across tokens (it holds back a possible tag's first
characters until the next piece decides). The reasoning is kept apart (``reasoning``) so a window
can show it collapsed; an echoed memory block is dropped. :func:`visible` applies the same rules to
a whole text (distiller output, judge input, evaluation answers), including a reply whose
``<think>`` was opened by the prompt and only the closing tag came back.
"""

from __future__ import annotations

import re

from engram.core import prompts

THINK, MEMORY = "think", "memory"
_TAG = re.compile(r"<\s*(/?)\s*(think|memory)\s*>", re.IGNORECASE)
_PARTIAL_TAG = re.compile(r"<\s*/?\s*([a-z]*)(\s*)", re.IGNORECASE)
_LONGEST_TAG = 16  # characters a split tag may span (with spaces, e.g. "< / memory >")


class StreamFilter:
    """Feed the pieces of an answer, get back what the user may see.

    ``feed`` returns the visible text it can release now (possibly empty), ``finish`` the rest.
    Text inside ``<think>`` goes to :attr:`reasoning`; text inside an echoed ``<memory>`` block is
    dropped, unless the block is never closed (then it was the answer, and ``finish`` releases it
    without the markup).
    """

    def __init__(self) -> None:
        self._pending = ""
        self._inside: str | None = None  # THINK, MEMORY or None (the answer)
        self._held = ""  # an open memory block's text, released if it never closes
        self._thoughts: list[str] = []
        self._shown_any = False
        self._trim_next = False  # drop the blank lines that follow a closed block

    @property
    def reasoning(self) -> str:
        """What the model thought before answering (empty for a model that did not)."""
        return "".join(self._thoughts).strip()

    def feed(self, piece: str) -> str:
        """Take one piece; return the visible text that can be released now."""
        self._pending += piece
        out: list[str] = []
        while True:
            found = self._next_markup(self._pending)
            if found is None:
                break
            start, end, tag = found
            out.append(self._route(self._pending[:start]))
            self._pending = self._pending[end:]
            if tag is not None:
                self._switch(*tag)
        keep = self._undecided(self._pending)
        ready, self._pending = self._pending[: len(self._pending) - keep], self._pending[-keep:]
        if not keep:
            self._pending = ""
        out.append(self._route(ready))
        return "".join(out)

    def finish(self) -> str:
        """The end of the stream: release what was held back."""
        rest, self._pending = self._pending, ""
        text = self._route(rest)
        if self._inside == MEMORY:  # never closed: it was the answer after all
            text += self._show(self._held)
        self._held, self._inside = "", None
        return text

    def _next_markup(self, text: str) -> tuple[int, int, tuple[bool, str] | None] | None:
        """The first tag or header in ``text``: (start, end, (closing, name) or None)."""
        best: tuple[int, int, tuple[bool, str] | None] | None = None
        match = _TAG.search(text)
        if match:
            best = (match.start(), match.end(), (bool(match[1]), match[2].lower()))
        for header in prompts.headers():
            at = text.find(header)
            if at >= 0 and (best is None or at < best[0]):
                best = (at, at + len(header), None)
        return best

    @staticmethod
    def _undecided(text: str) -> int:
        """How many trailing characters may still become a tag or a header."""
        keep = 0
        at = text.rfind("<", max(0, len(text) - _LONGEST_TAG))
        partial = _PARTIAL_TAG.fullmatch(text[at:]) if at >= 0 else None
        if partial:
            name, spaced = partial[1].lower(), bool(partial[2])
            if name in (THINK, MEMORY, "") or (
                not spaced and (THINK.startswith(name) or MEMORY.startswith(name))
            ):
                keep = len(text) - at
        for header in prompts.headers():
            for size in range(min(len(header) - 1, len(text)), keep, -1):
                if text.endswith(header[:size]):
                    keep = size
                    break
        return keep

    def _switch(self, closing: bool, name: str) -> None:
        if not closing and self._inside is None:
            self._inside = name
        elif closing and self._inside == name:
            if name == MEMORY:
                self._held = ""
            self._inside = None
            self._trim_next = True

    def _route(self, text: str) -> str:
        if not text:
            return ""
        if self._inside == THINK:
            self._thoughts.append(text)
            return ""
        if self._inside == MEMORY:
            self._held += text
            return ""
        return self._show(text)

    def _show(self, text: str) -> str:
        if self._trim_next or not self._shown_any:
            text = text.lstrip()
            if not text:
                return ""
            self._trim_next = False
        self._shown_any = True
        return text


def split(text: str) -> tuple[str, str]:
    """A whole reply as (what the user may see, the reasoning before it)."""
    orphan = re.search(r"<\s*/\s*think\s*>", text, re.IGNORECASE)
    opened = re.search(r"<\s*think\s*>", text, re.IGNORECASE)
    prefix = ""
    if orphan and (opened is None or opened.start() > orphan.start()):
        # The prompt opened the block (some templates do); only its end came back.
        prefix, text = text[: orphan.start()], text[orphan.end() :]
    stream = StreamFilter()
    shown = stream.feed(text) + stream.finish()
    return shown.rstrip(), (prefix.strip() + "\n" + stream.reasoning).strip()


def visible(text: str) -> str:
    """A whole reply without reasoning and Engram's markup."""
    return split(text)[0]
