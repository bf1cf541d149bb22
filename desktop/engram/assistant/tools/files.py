"""The files tools: list, search and read text, Markdown and PDF text in folders the user shared.

Read-only. A path is ``FOLDER/inside/it`` where FOLDER is the name of a shared folder (or an
absolute path inside one). ``..`` parts are refused, and every path is resolved (symlinks
followed) and must still lie inside its shared folder, so a link cannot lead out of it.

Engram's own folders (``paths.own_folders``: the settings, the database, logs, backups and
models) are never read: a folder that holds one or lies in one cannot be shared, and whatever a
shared folder holds, a path that resolves into one of them is refused, left out of listings and
not searched (a link, or a shared parent folder, cannot expose them).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engram.assistant.tools.base import MAX_RESULT_CHARS, Tool, ToolContext, ToolError, one_text
from engram.core import paths
from engram.core.errors import InputError, tr

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".csv", ".json", ".log", ".org", ".tex"}
READABLE = {*TEXT_SUFFIXES, ".pdf"}
MAX_LISTED = 200
MAX_SCANNED = 2000
MAX_FILE_BYTES = 20 << 20
MAX_HITS = 20
OUTSIDE = tr("Only files inside the folders shared in Settings can be read.")


def check_shareable(folder: Path) -> None:
    """Refuse a folder that cannot be shared: not a folder, the filesystem's root, or one that
    holds or lies in one of Engram's own folders (settings, memories, logs, backups, models)."""
    if not folder.is_dir():
        raise InputError(tr("{path} is not a folder."), tr("Check the path."), path=folder)
    if folder.resolve() == Path(folder.resolve().anchor):
        raise InputError(
            tr("{path} is the whole filesystem: the assistant could read every file."),
            tr("Share the folder that holds the files, e.g. ~/Notes."),
            path=folder,
        )
    real = folder.resolve()
    for own in paths.own_folders():
        if own.is_relative_to(real):
            raise InputError(
                tr("{path} holds Engram's own folder {own}: its settings, memories, chats, logs, "
                   "backups or models would be readable."),
                tr("Share a folder that does not contain Engram's folders, e.g. ~/Notes."),
                path=folder,
                own=own,
            )  # fmt: skip
        if real.is_relative_to(own):
            raise InputError(
                tr("{path} is inside Engram's own folder {own}, which the tools never read."),
                tr("Share a folder of your own files, e.g. ~/Notes."),
                path=folder,
                own=own,
            )


def _engrams(real: Path, own: tuple[Path, ...]) -> bool:
    """Does the resolved path ``real`` lie in one of Engram's own folders?"""
    return any(real.is_relative_to(folder) for folder in own)


def _roots(ctx: ToolContext) -> dict[str, Path]:
    """The shared folders by name; one inside Engram's own folders (settings edited by hand, a
    moved ``ENGRAM_HOME``) is not shared."""
    own = paths.own_folders()
    roots = {folder.name or str(folder): folder.resolve() for folder in ctx.folders}
    shared = {name: root for name, root in roots.items() if not _engrams(root, own)}
    if not shared:
        raise ToolError(
            tr("No folders are shared with the assistant."),
            tr("Add a folder under Settings → Tools, or with `engram tools folders add PATH`."),
        )
    return shared


def resolve(path: str, ctx: ToolContext) -> tuple[Path, Path]:
    """The real path of ``path`` and the shared folder it lies in; anything else is refused."""
    roots = _roots(ctx)
    given = Path(path.strip() or ".")
    if ".." in given.parts:
        raise ToolError(tr("The path {path!r} goes up with '..'."), OUTSIDE, path=path)
    if given.is_absolute():
        candidate, root = (
            given,
            next((r for r in roots.values() if given.resolve().is_relative_to(r)), None),
        )
    elif given.parts and given.parts[0] in roots:
        root = roots[given.parts[0]]
        candidate = root.joinpath(*given.parts[1:])
    elif len(roots) == 1:
        root = next(iter(roots.values()))
        candidate = root / given
    else:
        raise ToolError(
            tr("{path!r} does not start with a shared folder's name ({names})."),
            OUTSIDE,
            path=path,
            names=", ".join(roots),
        )
    real = candidate.resolve()
    if root is None or not real.is_relative_to(root):
        raise ToolError(tr("The path {path!r} is outside the shared folders."), OUTSIDE, path=path)
    if _engrams(real, paths.own_folders()):
        raise ToolError(
            tr("The path {path!r} leads into Engram's own folders, which the tools never read."),
            OUTSIDE,
            path=path,
        )
    return real, root


def _shown(real: Path, root: Path) -> str:
    inside = real.relative_to(root)
    return f"{root.name}/{inside.as_posix()}" if inside.parts else root.name


def _files(folder: Path, root: Path) -> Iterator[Path]:
    """Readable files under ``folder``, not following links out of ``root`` or into Engram's
    own folders."""
    own = paths.own_folders()
    scanned = 0
    for current, dirs, names in os.walk(folder):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".") and not _engrams(Path(current, d).resolve(), own)
        )
        for name in sorted(names):
            scanned += 1
            if scanned > MAX_SCANNED:
                return
            path = Path(current, name)
            real = path.resolve()
            readable = path.suffix.lower() in READABLE and real.is_relative_to(root)
            if readable and not _engrams(real, own):
                yield path


def _where(arguments: dict[str, Any], ctx: ToolContext) -> None:
    """Before the user is asked: some folder is shared and the path (if any) lies in one."""
    if arguments.get("path"):
        resolve(str(arguments["path"]), ctx)
    else:
        _roots(ctx)


def _list(arguments: dict[str, Any], ctx: ToolContext) -> str:
    if not arguments.get("path"):
        return "\n".join(f"{name}/" for name in _roots(ctx))
    real, root = resolve(str(arguments["path"]), ctx)
    if not real.is_dir():
        raise ToolError(tr("{path!r} is not a folder."), OUTSIDE, path=arguments["path"])
    lines = []
    own = paths.own_folders()
    for child in sorted(real.iterdir())[:MAX_LISTED]:
        inside = child.resolve()
        if child.name.startswith(".") or not inside.is_relative_to(root) or _engrams(inside, own):
            continue
        lines.append(
            _shown(child, root) + ("/" if child.is_dir() else f" ({child.stat().st_size} bytes)")
        )
    return "\n".join(lines) or "(empty)"


def read_text(path: Path) -> str:
    """The text of a text, Markdown or PDF file."""
    if path.stat().st_size > MAX_FILE_BYTES:
        raise ToolError(tr("{name} is larger than 20 MB."), OUTSIDE, name=path.name)
    if path.suffix.lower() == ".pdf":
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError

        try:
            reader = PdfReader(path)
            return "\n\n".join(page.extract_text() or "" for page in reader.pages)
        except (PyPdfError, ValueError, KeyError) as exc:
            raise ToolError(
                tr("{name} is not a readable PDF ({error})."),
                tr("Open it in a PDF viewer to check it."),
                name=path.name,
                error=type(exc).__name__,
            ) from exc
    return path.read_text(encoding="utf-8", errors="replace")


def _read(arguments: dict[str, Any], ctx: ToolContext) -> str:
    real, root = resolve(str(arguments["path"]), ctx)
    if not real.is_file() or real.suffix.lower() not in READABLE:
        raise ToolError(
            tr("{path!r} is not a readable file (text, Markdown or PDF)."),
            OUTSIDE,
            path=arguments["path"],
        )
    text = read_text(real)
    start = int(arguments.get("offset") or 0)
    end = min(len(text), start + MAX_RESULT_CHARS)
    return f"{_shown(real, root)} (characters {start}–{end} of {len(text)}):\n" + (text[start:])


def _search(arguments: dict[str, Any], ctx: ToolContext) -> str:
    words = str(arguments["query"]).lower().split()
    hits: list[str] = []
    for root in _roots(ctx).values():
        for path in _files(root, root):
            if len(hits) >= MAX_HITS:
                break
            name_hit = all(w in path.name.lower() for w in words)
            try:
                text = read_text(path) if path.suffix.lower() in TEXT_SUFFIXES else ""
            except (OSError, ToolError):
                continue
            line = next(
                (ln.strip() for ln in text.splitlines() if all(w in ln.lower() for w in words)), ""
            )
            if name_hit or line:
                hits.append(f"{_shown(path.resolve(), root)}: {line[:200]}".rstrip(": "))
    return "\n".join(hits) or f"No file matches {arguments['query']!r}."


_PATH = {"type": "string", "maxLength": 1000}
LIST = Tool(
    name="files_list",
    description="List the shared folders (no path) or the files in one (path 'Folder/sub').",
    description_zh="列出共享的文件夹（不给路径），或其中一个文件夹里的文件（路径 'Folder/sub'）。",
    schema={"type": "object", "properties": {"path": _PATH}, "additionalProperties": False},
    run=_list,
    needs_permission=True,
    reads_only=True,
    precheck=_where,
)
SEARCH = Tool(
    name="files_search",
    description="Find text, Markdown and PDF files in the shared folders whose name or text "
    "contains all the words.",
    description_zh="在共享文件夹中查找文件名或内容包含所有这些词的文本、Markdown 和 PDF 文件。",
    schema=one_text("query", 200),
    run=_search,
    needs_permission=True,
    reads_only=True,
    precheck=_where,
)
READ = Tool(
    name="files_read",
    description="Read a text, Markdown or PDF file in a shared folder (path 'Folder/file.md'; "
    "offset to read further).",
    description_zh="读取共享文件夹中的文本、Markdown 或 PDF 文件"
    "（路径 'Folder/file.md'；用 offset 继续读）。",
    schema={
        "type": "object",
        "properties": {"path": _PATH, "offset": {"type": "integer", "minimum": 0}},
        "required": ["path"],
        "additionalProperties": False,
    },
    run=_read,
    needs_permission=True,
    reads_only=True,
    precheck=_where,
)
TOOLS = (LIST, SEARCH, READ)
