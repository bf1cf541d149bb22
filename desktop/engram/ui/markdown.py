"""Answers as rich text: Markdown (headings, lists, tables, code) with highlighted code blocks.

Qt's rich text understands a subset of HTML, so code is coloured with inline styles (Pygments,
``noclasses``). Raw HTML in a message is escaped, never rendered, and an image is shown as its
description. Each code block gets a
``copy:N`` link the bubble turns into "copy this block".
"""

from __future__ import annotations

import html
from typing import Any

import mistune
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name, guess_lexer
from pygments.util import ClassNotFound

STYLES = {"light": "default", "dark": "monokai"}
CODE_BACKGROUND = {"light": "#f3f4f6", "dark": "#16171a"}


class _Renderer(mistune.HTMLRenderer):
    def __init__(self, theme: str, copy_label: str) -> None:
        super().__init__(escape=True)
        self.theme = theme
        self.copy_label = copy_label
        self.blocks: list[str] = []

    def image(self, text: str, url: str, title: str | None = None) -> str:
        """An image is shown as its description: an answer never makes the window load a file
        or an address (Qt's rich text would read a local path)."""
        return text or html.escape(url)

    def block_code(self, code: str, info: str | None = None) -> str:
        index = len(self.blocks)
        self.blocks.append(code)
        lexer = _lexer(code, (info or "").split()[0] if info else "")
        formatter = HtmlFormatter(style=STYLES[self.theme], noclasses=True, nowrap=True)
        body = highlight(code, lexer, formatter)
        background = CODE_BACKGROUND[self.theme]
        copy = f'<a href="copy:{index}">{html.escape(self.copy_label)}</a>'
        return (
            f'<table width="100%" cellpadding="8" style="background:{background}">'
            f'<tr><td><pre style="margin:0">{body}</pre>'
            f'<p align="right" style="margin:0">{copy}</p></td></tr></table>'
        )


def _lexer(code: str, language: str) -> Any:
    try:
        return get_lexer_by_name(language) if language else guess_lexer(code)
    except ClassNotFound:
        return TextLexer()


def render(text: str, theme: str = "light", copy_label: str = "Copy") -> tuple[str, list[str]]:
    """The message as Qt rich-text HTML, and the text of each of its code blocks."""
    renderer = _Renderer(theme if theme in STYLES else "light", copy_label)
    markdown = mistune.create_markdown(renderer=renderer, plugins=["table", "strikethrough"])
    return str(markdown(text)), renderer.blocks


def plain(text: str) -> str:
    """The message's words without Markdown's markup, one line per paragraph, heading, list
    item (numbered or "•") or table row; raw HTML stays as the text it was typed as."""
    markdown = mistune.create_markdown(renderer=None, plugins=["table", "strikethrough"])
    tokens = markdown(text)
    return "\n".join(line for line in _lines(tokens) if line.strip())  # type: ignore[arg-type]


def _lines(tokens: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for token in tokens:
        kind, children = token["type"], token.get("children", [])
        if kind in ("paragraph", "block_text", "heading"):
            lines.append(_inline(children))
        elif kind in ("table_head", "table_row"):
            lines.append(" | ".join(_inline(cell["children"]) for cell in children))
        elif kind == "block_code":
            lines.extend(token["raw"].splitlines())
        elif kind == "list":
            start = token["attrs"].get("start", 1) if token["attrs"]["ordered"] else None
            for number, item in enumerate(children, start or 0):
                inner = _lines(item["children"]) or [""]
                marker = f"{number}. " if start is not None else "• "
                lines.extend([marker + inner[0], *inner[1:]])
        else:
            lines.extend(_lines(children))
    return lines


def _inline(tokens: list[dict[str, Any]]) -> str:
    parts = []
    for token in tokens:
        if token["type"] in ("softbreak", "linebreak"):
            parts.append(" ")
        elif "children" in token:
            parts.append(_inline(token["children"]))
        else:
            parts.append(token.get("raw", ""))
    return "".join(parts)


def chat_document(title: str, messages: list[tuple[str, str]], labels: dict[str, str]) -> str:
    """A chat as a Markdown file: the title, then each message under its speaker's name
    (``labels`` maps a role to the name shown, already translated)."""
    parts = [f"# {title}"]
    for role, text in messages:
        parts.append(f"**{labels.get(role, role)}**\n\n{text.strip()}")
    return "\n\n".join(parts) + "\n"
