"""``engram tools``: list the tools, call one without a model, add and remove MCP servers,
share folders, revoke permission choices; and the terminal's permission prompt."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from pathlib import Path
from typing import Any

from engram.assistant import tool_admin
from engram.assistant.events import ToolCalled, ToolResult
from engram.assistant.tools import permissions
from engram.assistant.tools.permissions import ALWAYS, DENY, ONCE, Question
from engram.core import settings
from engram.core.cancel import CancelToken
from engram.core.errors import InputError, tr

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # an MCP server's name
ANSWERS = {"o": ONCE, "once": ONCE, "a": ALWAYS, "always": ALWAYS, "d": DENY, "deny": DENY}


class _OptionsAnywhere(argparse.ArgumentParser):
    """An action's parser that takes its options before, between or after its positional
    arguments: ``add-mcp NAME --env K=V -- COMMAND`` (plain argparse binds an empty COMMAND at
    NAME, then refuses what follows the option)."""

    _inside = False  # parse_known_intermixed_args calls parse_known_args itself

    def parse_known_args(  # type: ignore[override]
        self, args: list[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._inside:
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser("tools", help="the tools the assistant can call, and MCP servers")
    actions = cmd.add_subparsers(
        dest="action", metavar="ACTION", required=True, parser_class=_OptionsAnywhere
    )
    actions.add_parser("list", help="list the tools with their source and state").set_defaults(
        run=_list
    )
    call = actions.add_parser("call", help="run one tool without a model")
    call.add_argument("name")
    call.add_argument("arguments", nargs="?", default="{}", help="the arguments as JSON")
    call.set_defaults(run=_call)
    add = actions.add_parser(
        "add-mcp", help="add an MCP server: NAME -- COMMAND [ARGS...], or NAME --url URL"
    )
    add.add_argument("name")
    add.add_argument("--url", default="", help="a Streamable HTTP server's URL")
    add.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("--replace", action="store_true", help="replace a server of that name")
    add.add_argument("command", nargs="*", help="-- COMMAND [ARGS...]")
    add.set_defaults(run=_add)
    imports = actions.add_parser("import-mcp", help="add the servers of a Claude Desktop config")
    imports.add_argument("file", type=Path)
    imports.set_defaults(run=_import)
    remove = actions.add_parser("remove", help="remove an MCP server")
    remove.add_argument("name")
    remove.set_defaults(run=_remove)
    folders = actions.add_parser("folders", help="folders the files tools may read")
    folders.add_argument("change", nargs="?", choices=("list", "add", "remove"))
    folders.add_argument("path", nargs="?", type=Path)
    folders.set_defaults(run=_folders)
    for verb, help_text in (("enable", "turn a tool on"), ("disable", "turn a tool off")):
        toggle = actions.add_parser(verb, help=help_text)
        toggle.add_argument("name")
        toggle.set_defaults(run=_toggle, enable=verb == "enable")
    forget = actions.add_parser("forget", help="forget a tool's permission choice (ask again)")
    forget.add_argument("name")
    forget.set_defaults(run=_forget)


def line(event: ToolCalled | ToolResult) -> str:
    """One call or result for the terminal (``--show-tools``)."""
    if isinstance(event, ToolCalled):
        said = event.error or json.dumps(event.arguments, ensure_ascii=False)
        return f"[tool {event.step}] {event.name or '?'} {said}"
    state = "error" if event.is_error else "ok"
    return f"[tool {event.step}] {state} in {event.duration_s * 1000:.0f} ms: {event.text}"


def ask(question: Question, stop: CancelToken) -> str:
    """Ask on this terminal whether a tool may run (``engram chat`` on a terminal); once the
    answer was stopped meanwhile (Ctrl+C) the tool is denied, whatever is typed."""
    said = json.dumps(question.arguments, ensure_ascii=False)
    print(f"\n[{question.source}] {question.name} {said}", file=sys.stderr)
    if question.after:  # the request may come from what those gave back
        print(f"(asked after reading: {', '.join(question.after)})", file=sys.stderr)
    while True:
        print("Allow? [o]nce, [a]lways, [d]eny: ", end="", file=sys.stderr, flush=True)
        answer = sys.stdin.readline().strip().lower()
        if stop.cancelled or not answer:
            return DENY
        if answer in ANSWERS:
            return ANSWERS[answer]


def _list(_args: argparse.Namespace) -> int:
    current = settings.SettingsStore.load().current.tools
    found = tool_admin.every_tool(current)
    for tool in found:
        state = "off" if tool.name in current.disabled or not current.enabled else "on"
        choice = current.permissions.get(tool.name, "ask" if tool.needs_permission else "-")
        print(f"{tool.name:24} {tool.source:12} {state:4} permission: {choice}")
    for name in current.mcp_servers:
        if not any(t.source == name for t in found):
            print(f"{name:24} {'mcp':12} unavailable (see the log)")
    return 0


def _call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        raise InputError(
            tr("The arguments are not JSON ({error})."),
            tr("""Quote them for the shell, e.g. '{{"expression": "2+2"}}'."""),
            error=exc.msg,
        ) from exc
    store = settings.SettingsStore.load()
    if args.name in store.current.tools.disabled:
        raise InputError(
            tr("The tool {name!r} is turned off."),
            tr("Turn it on with `engram tools enable {name}`."),
            name=args.name,
        )
    text, is_error = tool_admin.call_tool(store.current.tools, args.name, arguments)
    print(text)
    return 1 if is_error else 0


def _save_servers(store: settings.SettingsStore, servers: dict[str, dict[str, Any]]) -> None:
    store.update(tools=dataclasses.replace(store.current.tools, mcp_servers=servers))


def _add(args: argparse.Namespace) -> int:
    if not NAME.fullmatch(args.name):
        raise InputError(
            tr("{name!r} is not a usable server name."),
            tr("Use letters, digits, '-', '_' and '.', e.g. web-search."),
            name=args.name,
        )
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.url and not args.url.startswith(("http://", "https://")):
        raise InputError(
            tr("{url!r} is not an http:// or https:// address."),
            tr("engram tools add-mcp web --url http://127.0.0.1:8000/mcp"),
            url=args.url,
        )
    if args.url and command:
        raise InputError(
            tr("Give either --url or a command, not both."),
            tr("engram tools add-mcp web --url http://127.0.0.1:8000/mcp"),
        )
    store = settings.SettingsStore.load()
    if args.name in store.current.tools.mcp_servers and not args.replace:
        raise InputError(
            tr("There is already an MCP server named {name!r}."),
            tr("Add --replace to replace it, or choose another name."),
            name=args.name,
        )
    env = dict(item.split("=", 1) for item in args.env if "=" in item)
    entry: dict[str, Any] = (
        {"url": args.url} if args.url else {"command": command[0] if command else "",
                                            "args": command[1:], "env": env}
    )  # fmt: skip
    saved = tool_admin.mcp_entry(args.name, entry)  # refuses a malformed entry
    _save_servers(store, {**store.current.tools.mcp_servers, args.name: saved})
    print(f"added MCP server {args.name}; `engram tools list` starts it and lists its tools")
    return 0


def _import(args: argparse.Namespace) -> int:
    added = tool_admin.mcp_entries(args.file.read_text(encoding="utf-8"))
    store = settings.SettingsStore.load()
    _save_servers(store, {**store.current.tools.mcp_servers, **added})
    print(f"added {len(added)} MCP server(s): {', '.join(added)}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    store = settings.SettingsStore.load()
    servers = dict(store.current.tools.mcp_servers)
    if servers.pop(args.name, None) is None:
        raise InputError(
            tr("There is no MCP server named {name!r}."),
            tr("List them with `engram tools list`."),
            name=args.name,
        )
    _save_servers(store, servers)
    print(f"removed MCP server {args.name}")
    return 0


def _folders(args: argparse.Namespace) -> int:
    store = settings.SettingsStore.load()
    folders = list(store.current.tools.folders)
    if args.change in ("add", "remove") and args.path is None:
        raise InputError(tr("Give the folder's path."), tr("engram tools folders add ~/Notes"))
    if args.change == "add":
        folders = [*dict.fromkeys([*folders, tool_admin.folder_to_share(args.path)])]
    elif args.change == "remove":
        folders = [f for f in folders if Path(f) != args.path.expanduser().resolve()]
    if args.change in ("add", "remove"):
        store.update(tools=dataclasses.replace(store.current.tools, folders=tuple(folders)))
    for folder in folders:
        print(folder)
    return 0


def _tool_names(store: settings.SettingsStore) -> set[str]:
    """Every tool name the user can mean: built-ins, MCP servers' tools, and names already in
    the settings (a server's tool while the server is away)."""
    current = store.current.tools
    names = {tool.name for tool in tool_admin.builtin_tools()}
    names |= {*current.disabled, *current.permissions}
    if current.mcp_servers:
        names |= {tool.name for tool in tool_admin.every_tool(current)}
    return names


def _known(store: settings.SettingsStore, name: str) -> None:
    if name not in _tool_names(store):
        raise InputError(
            tr("There is no tool named {name!r}."),
            tr("List them with `engram tools list`."),
            name=name,
        )


def _toggle(args: argparse.Namespace) -> int:
    store = settings.SettingsStore.load()
    _known(store, args.name)
    disabled = set(store.current.tools.disabled)
    (disabled.discard if args.enable else disabled.add)(args.name)
    tools = dataclasses.replace(store.current.tools, disabled=tuple(sorted(disabled)))
    store.update(tools=tools)
    print(f"{args.name} {'on' if args.enable else 'off'}")
    return 0


def _forget(args: argparse.Namespace) -> int:
    store = settings.SettingsStore.load()
    _known(store, args.name)
    choices = dict(store.current.tools.permissions)
    choices.pop(args.name, None)
    permissions.saving_to(store)(choices)
    print(f"{args.name}: permission will be asked again")
    return 0
