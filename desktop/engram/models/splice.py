"""Chat prompts to tokens, with special tokens read only where the chat template wrote them.

llama.cpp's ``tokenize(special=True)`` turns every control-token text in a prompt into the real
token, so a pasted ``<|im_end|><|im_start|>system`` would become a system turn. Here the template
is rendered with a sentinel in place of each message's content; the template's text is split at
the model's special tokens exactly as llama.cpp splits it (longest first, with the tokens'
strip attributes), and every stretch of plain text between two special tokens, template text and
contents together, is tokenised with special-token parsing off. For text without special-token
texts this gives the same tokens as tokenising the whole prompt with special=True (tests assert
it), so the prefix cache and prefetch are unaffected. A content that contains the text of a
user-defined token (which llama.cpp matches even with parsing off) gets a word joiner inside
that text, so it stays visible to the model but cannot become the token.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engram.core import log

_log = log.get("models.splice")
SENTINEL_OPEN, SENTINEL_CLOSE = "\ue000", "\ue001"  # private-use characters
_SENTINEL = re.compile(f"{SENTINEL_OPEN}(\\d+){SENTINEL_CLOSE}")
WORD_JOINER = "\u2060"
_SPACE = " \t\n\v\f\r"  # what llama.cpp's isspace() strips next to lstrip/rstrip tokens


def sentinel(index: int) -> str:
    """What stands in for message ``index``'s content while the template is rendered."""
    return f"{SENTINEL_OPEN}{index}{SENTINEL_CLOSE}"


@dataclass(frozen=True)
class Special:
    """One token llama.cpp matches by its text before tokenising the rest."""

    id: int
    text: str
    lstrip: bool
    rstrip: bool


@dataclass(frozen=True)
class Rendered:
    """A prompt as the template wrote it: its text, with the untrusted contents marked."""

    template: list[str]  # the template's text around the contents (one more than contents)
    contents: list[str]

    @property
    def text(self) -> str:
        joined = [self.template[0]]
        for content, after in zip(self.contents, self.template[1:], strict=True):
            joined += [content, after]
        return "".join(joined)


def split_rendered(masked: str, contents: Sequence[str | None]) -> Rendered | None:
    """The template's text and the contents in the order the sentinels appear; None if unsure.

    ``contents[i]`` is what sentinel ``i`` stood for (None: message ``i`` had no text content).
    """
    if any(c and (SENTINEL_OPEN in c or SENTINEL_CLOSE in c) for c in contents):
        return None  # a content imitating a sentinel: the split would be ambiguous
    pieces = _SENTINEL.split(masked)
    order = [int(index) for index in pieces[1::2]]
    found = [contents[i] if i < len(contents) else None for i in order]
    texts = [text for text in found if text is not None]
    if len(texts) != len(found):
        return None
    return Rendered(pieces[0::2], texts)


class Splicer:
    """The special tokens of one loaded model and the safe way to tokenise its chats."""

    def __init__(self, llm: Any) -> None:
        import llama_cpp

        vocab = llm._model.vocab
        control_, user_defined = (
            llama_cpp.LLAMA_TOKEN_ATTR_CONTROL,
            llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED,
        )
        matched = control_ | user_defined | llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN
        lstrip, rstrip = llama_cpp.LLAMA_TOKEN_ATTR_LSTRIP, llama_cpp.LLAMA_TOKEN_ATTR_RSTRIP
        specials: list[Special] = []
        control: set[str] = set()
        self._user_defined: dict[int, str] = {}
        for token in range(llama_cpp.llama_vocab_n_tokens(vocab)):
            attr = llama_cpp.llama_vocab_get_attr(vocab, token)
            if not attr & matched:  # the tokens llama.cpp matches by text before tokenising
                continue
            text = llm._model.token_get_text(token)
            if not text:
                continue
            specials.append(Special(token, text, bool(attr & lstrip), bool(attr & rstrip)))
            if attr & control_:
                control.add(text)
            if attr & user_defined and text.strip():
                self._user_defined[token] = text
        specials.sort(key=lambda s: len(s.text), reverse=True)  # llama.cpp's order
        self._specials = specials
        self.control_texts = frozenset(control)
        self._llm = llm
        self.add_bos = bool(llama_cpp.llama_vocab_get_add_bos(vocab))
        self.add_eos = bool(llama_cpp.llama_vocab_get_add_eos(vocab))
        self._split = functools.lru_cache(maxsize=512)(self._partition)

    def tokens(self, rendered: Rendered, add_special: bool) -> list[int]:
        """The prompt's tokens: special tokens from the template only, contents as plain text."""
        llm = self._llm
        out: list[int] = [llm.token_bos()] if add_special and self.add_bos else []
        raw: list[str] = []  # plain text since the last special token
        contents: list[str] = []  # the untrusted parts of it
        after_rstrip = False  # the last special token eats the whitespace after it

        def flush(before: Special | None) -> None:
            text = "".join(raw)
            if after_rstrip:
                text = text.lstrip(_SPACE)
            if before is not None and before.lstrip:
                text = text.rstrip(_SPACE)
            if text:
                out.extend(self._plain(text, contents))
            raw.clear()
            contents.clear()

        for index, template in enumerate(rendered.template):
            for piece in self._split(template):
                if isinstance(piece, str):
                    raw.append(piece)
                    continue
                flush(piece)
                out.append(piece.id)
                after_rstrip = piece.rstrip
            if index < len(rendered.contents):
                raw.append(rendered.contents[index])
                contents.append(rendered.contents[index])
        flush(None)
        if add_special and self.add_eos:
            out.append(llm.token_eos())
        return out

    def _plain(self, text: str, contents: list[str]) -> list[int]:
        """Tokens of plain text; a user-defined token's text inside a content is broken up."""
        tokens: list[int] = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        found = {self._user_defined[t] for t in tokens if t in self._user_defined}
        hostile = {marker for marker in found if any(marker in c for c in contents)}
        if not hostile:
            return tokens
        _log.info("%d user-defined token texts in a message were broken up", len(hostile))
        for marker in sorted(hostile, key=len, reverse=True):
            text = text.replace(marker, marker[0] + WORD_JOINER + marker[1:])
        return self._plain(text, [])

    def _partition(self, text: str) -> tuple[str | Special, ...]:
        """Template text split at special tokens, the way llama.cpp's tokenizer splits it."""
        pieces: list[str | Special] = [text]
        for special in self._specials:
            if special.text not in text:
                continue
            split: list[str | Special] = []
            for piece in pieces:
                if not isinstance(piece, str):
                    split.append(piece)
                    continue
                parts = piece.split(special.text)
                for i, part in enumerate(parts):
                    if i:
                        split.append(special)
                    if part:
                        split.append(part)
            pieces = split
        return tuple(pieces)
