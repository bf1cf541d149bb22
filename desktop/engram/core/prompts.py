"""Engram's prompt texts: every file of ``resources/prompts`` is read here, with one language rule,
and the headers of Engram's prompt blocks are listed here once.

A block of data in a prompt (recalled memories, lessons, pinned memories, the plan, the user's
custom instructions) opens with one of :data:`HEADERS`, and :func:`header` is the only way to
write one, so this list is exactly what prompts carry. The sanitiser removes these headers from
untrusted text (a pasted one cannot fake a block) and the stream filter removes them from what
a model says (an echoed one never reaches the user): both read :func:`headers`.
"""

from __future__ import annotations

import functools
import locale
import re

from engram.core import resources

LANGUAGES = ("en", "zh_CN")
MEMORY_HEADER = "memory_header"  # recalled memories and earlier messages
GUIDANCE_HEADER = "guidance_header"  # lessons, in a block of their own
PROFILE_HEADER = "profile_header"  # pinned memories, in the system part
PLAN_HEADER = "plan_header"  # the current plan, in the system part
CUSTOM_HEADER = "custom_header"  # the user's custom instructions, in the system part
HEADERS = (MEMORY_HEADER, GUIDANCE_HEADER, PROFILE_HEADER, PLAN_HEADER, CUSTOM_HEADER)
_SENTENCE_END = re.compile(r"(?<=[.。])\s*")


def language_of(language: str) -> str:
    """The prompts' language for a language code: Chinese for any ``zh`` code, else English."""
    return "zh_CN" if language.lower().startswith("zh") else "en"


def for_setting(setting: str) -> str:
    """The prompts' language for the language setting ("system": the system locale's)."""
    if setting != "system":
        return language_of(setting)
    return language_of(locale.getlocale()[0] or "")


def text(name: str, language: str) -> str:
    """A bundled prompt (``resources/prompts/<name>_<language>.txt``) in ``language``."""
    return resources.read_text("prompts", f"{name}_{language_of(language)}.txt").strip()


def header(name: str, language: str) -> str:
    """The header of a prompt block (one of :data:`HEADERS`) in ``language``."""
    if name not in HEADERS:
        raise ValueError(f"{name!r} is no block header of Engram's prompts")
    return text(name, language)


@functools.cache
def headers() -> tuple[str, ...]:
    """Every block header in every language, and each sentence of a header of several (the
    notes' header says what to do with them: a sentence of it pasted or said back is as
    much Engram's as the whole), longest first (none hides a longer one)."""
    found: set[str] = set()
    for name in HEADERS:
        for language in LANGUAGES:
            whole = header(name, language)
            found.add(whole)
            sentences = [s.rstrip(".。") for s in _SENTENCE_END.split(whole) if s.strip()]
            found.update(sentences if len(sentences) > 1 else ())
    return tuple(sorted(found, key=len, reverse=True))
