"""Engram's prompt texts: every file of ``resources/prompts`` is read here, with one language rule,
and the headers of Engram's prompt blocks are listed here once.

A block of data in a prompt (recalled memories, lessons, pinned memories, the plan, the user's
custom instructions) opens with one of :data:`HEADERS`, and :func:`header` is the only way to
write one, so this list is exactly what prompts carry. The sanitiser removes these headers from
untrusted text (a pasted one cannot fake a block) and the stream filter removes them from what
a model says (an echoed one never reaches the user): both read :func:`headers`.
"""

from __future__ import annotations

import ctypes
import functools
import locale
import os
import re
import sys

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
    """Engram's language ("en" or "zh_CN") for the language setting ("system": the desktop's,
    :func:`system_language`): the prompts' and, through ``ui.i18n``, the window's."""
    if setting != "system":
        return language_of(setting)
    return language_of(system_language())


# The variables that name the language of messages, strongest first (POSIX: LC_ALL overrides
# LC_MESSAGES, which overrides LANG).
_LANGUAGE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def system_language() -> str:
    """The desktop's language as a locale name ("zh_CN.UTF-8", "zh-Hans-CN", "en_US"; "" when
    nothing says), read anew on each call: the first of LC_ALL, LC_MESSAGES and LANG that is set
    (as in a terminal; "C" and "POSIX" are English); where none is (an app started from the
    Finder or the Start menu), the user's language in macOS's or Windows's settings; else the
    process's locale."""
    for name in _LANGUAGE_VARIABLES:
        if value := os.environ.get(name, ""):
            return value
    found = ""
    if sys.platform == "darwin":
        found = _macos_language()
    elif sys.platform == "win32":
        found = _windows_language()
    return found or locale.getlocale()[0] or ""


def _macos_language() -> str:
    """The first of the user's preferred languages in macOS's settings ("zh-Hans-CN")."""
    try:
        from ctypes import util

        cf = ctypes.cdll.LoadLibrary(util.find_library("CoreFoundation") or "CoreFoundation")
        cf.CFLocaleCopyPreferredLanguages.restype = ctypes.c_void_p
        cf.CFArrayGetCount.argtypes = [ctypes.c_void_p]
        cf.CFArrayGetCount.restype = ctypes.c_long
        cf.CFArrayGetValueAtIndex.argtypes = [ctypes.c_void_p, ctypes.c_long]
        cf.CFArrayGetValueAtIndex.restype = ctypes.c_void_p
        cf.CFStringGetCString.argtypes = [
            ctypes.c_void_p, ctypes.c_char_p, ctypes.c_long, ctypes.c_uint32
        ]  # fmt: skip
        cf.CFStringGetCString.restype = ctypes.c_bool
        cf.CFRelease.argtypes = [ctypes.c_void_p]
        languages = cf.CFLocaleCopyPreferredLanguages()
        if not languages:
            return ""
        try:
            if cf.CFArrayGetCount(languages) < 1:
                return ""
            name = ctypes.create_string_buffer(64)
            utf8 = 0x08000100  # kCFStringEncodingUTF8
            first = cf.CFArrayGetValueAtIndex(languages, 0)
            return name.value.decode() if cf.CFStringGetCString(first, name, 64, utf8) else ""
        finally:
            cf.CFRelease(languages)
    except (OSError, AttributeError, UnicodeDecodeError):
        return ""


def _windows_language() -> str:
    """The user's display language in Windows's settings ("zh_CN")."""
    try:
        windll = getattr(ctypes, "windll")  # noqa: B009 (only on Windows)
        return locale.windows_locale.get(windll.kernel32.GetUserDefaultUILanguage(), "")
    except (OSError, AttributeError):
        return ""


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
