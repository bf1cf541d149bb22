"""The one sanitiser for untrusted text that enters a prompt (messages, memories, imports, tools).

Untrusted text is data. Before it is put in a prompt, :func:`clean` removes whatever could read as
structure to the model: the loaded model's own control tokens (read from its GGUF vocabulary by
:class:`engram.models.local.LocalModel`), the literal markers of its chat template, the markers of
the common template families (for a cloud model, whose vocabulary Engram cannot see) and Engram's
own block delimiters and headers. The stored text is never changed; only the prompt's copy is.

Removal is the first line of defence; the second is that a local model tokenises untrusted parts
without special-token parsing (see ``LocalModel.prompt_tokens``), so even text that slipped
through cannot become a control token.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable

from engram.core import prompts

# Markers of the common chat-template families, for any model (case-insensitive):
# ChatML/Qwen/Phi <|...|>, DeepSeek's full-width <｜...｜>, Llama 2 [INST] and <<SYS>>, Mistral's
# [SYSTEM_PROMPT] [TOOL_CALLS] [AVAILABLE_TOOLS] [TOOL_RESULTS] (and their closing forms),
# Gemma's turn markers, the usual begin/end-of-sequence tokens, Qwen's think and tool tags.
_FAMILIES = re.compile(
    r"<[|｜][^|｜<>\n]{1,40}[|｜]>"
    r"|\[/?(?:INST|SYSTEM_PROMPT|TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CONTENT|THINK)\]"
    r"|<</?SYS>>|<(?:start|end)_of_(?:turn|image)>|</?(?:s|bos|eos|pad|unk)>"
    r"|</?(?:think|tool_call|tool_response|tools)>|<\|?endoftext\|?>",
    re.IGNORECASE,
)
# Engram's own block delimiters in any case and spacing: "<memory>", "</MEMORY>", "< / memory >".
_DELIMITERS = re.compile(r"<\s*/?\s*memory\s*>", re.IGNORECASE)
# Literal markers inside a chat template's source: <|...|>, <｜...｜>, <tag>, </tag>, [TAG], [/TAG].
_TEMPLATE_MARKER = re.compile(
    r"<[|｜][^|｜<>\s'\"]{1,40}[|｜]>|</?[A-Za-z][\w.▁-]{0,38}>|\[/?[A-Z][A-Z_]{1,38}\]|<</?SYS>>"
)


def template_markers(template: str) -> frozenset[str]:
    """The literal markers a chat template writes around messages (e.g. ``<start_of_turn>``)."""
    return frozenset(_TEMPLATE_MARKER.findall(template))


def model_markers(control_texts: Iterable[str], template: str) -> frozenset[str]:
    """What to remove for one model: its control tokens' texts and its template's markers."""
    texts = {text for text in control_texts if text.strip()}
    return frozenset(texts | template_markers(template))


@functools.lru_cache(maxsize=8)
def _pattern(markers: frozenset[str]) -> re.Pattern[str] | None:
    """One alternation of a model's markers, longest first (so no marker hides a longer one)."""
    if not markers:
        return None
    return re.compile("|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True)))


def quoted(text: str, markers: frozenset[str] = frozenset()) -> str:
    """Untrusted text as one JSON string literal, cleaned: a single line that cannot end or
    start a block (a custom instruction)."""
    return json.dumps(clean(text, markers).strip(), ensure_ascii=False)


def one_line(text: str, markers: frozenset[str] = frozenset()) -> str:
    """Untrusted text cleaned and on a single line (its line breaks and runs of spaces become
    one space), so it cannot end or start a block nor begin a line of its own (a memory).

    Not quoted: with each note a JSON string, Qwen2.5-Coder-0.5B passed 2 of the 18 English
    tests a lesson applies to, often answering with a note word for word; with plain text, 6
    (docs/evaluation.md, "The memory block's form").
    """
    return " ".join(clean(text, markers).split())


def clean(text: str, markers: frozenset[str] = frozenset()) -> str:
    """``text`` without control markers, block delimiters or headers (repeated until stable).

    ``markers`` are a model's own (:func:`model_markers`); the family markers, Engram's
    delimiters and headers are always removed. Removing a piece can join its neighbours into a
    new marker (``<|im_<|x|>end|>``), so the removal repeats until nothing changes.
    """
    own = _pattern(markers)
    previous = None
    while previous != text:
        previous = text
        if own is not None:
            text = own.sub("", text)
        text = _DELIMITERS.sub("", _FAMILIES.sub("", text))
        for header in prompts.headers():  # a message must not fake one of Engram's blocks
            text = text.replace(header, "")
    return text
