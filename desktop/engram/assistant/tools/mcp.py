"""MCP servers as tool sources: stdio (command, arguments, environment) or Streamable HTTP.

The SDK is asyncio; :class:`McpHub` runs it on one background thread it owns and offers plain
blocking calls with timeouts. The servers start together when the session opens (or when their
tools are first needed) and stop with the hub. A server that crashes, hangs or writes garbage
gives a clear :class:`McpError` naming it and why, after a timeout at most, and is stopped: the
SDK runs each stdio server in a process group of its own and stops the whole group (stdin closed,
then SIGTERM, then SIGKILL), and the hub waits until it is gone. Each stdio server runs under a
tether (``core.tether``) that stops its group when Engram dies, even by SIGKILL.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib
import json
import logging
import math
import os
import threading
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from engram.assistant.tools.base import Tool, ToolContext, ToolError
from engram.core import log, tether
from engram.core.errors import EngramError, tr

_log = log.get("assistant.tools.mcp")
START_TIMEOUT_S = 10.0  # for all servers together, from the session's start
CALL_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 10.0  # the SDK stops a server in at most ~7 s: stdin closed, SIGTERM, SIGKILL
SDK_LOGGER = "mcp"  # the MCP SDK's loggers (it logs a server's garbage with a traceback)
HINT = tr("Check the server with `engram tools call`, or remove it with `engram tools remove`.")


class McpError(EngramError):
    """An MCP server could not be started, listed or called."""


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server as the user configured it (Claude Desktop's ``mcpServers`` shape)."""

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""

    @classmethod
    def from_json(cls, name: str, data: Mapping[str, Any]) -> ServerConfig:
        """A server from its JSON entry (``command``/``args``/``env`` or ``url``)."""
        command, url = data.get("command", ""), data.get("url", "")
        args, env = data.get("args", []), data.get("env", {})
        if (
            not isinstance(command, str)
            or not isinstance(url, str)
            or bool(command) == bool(url)
            or not isinstance(args, list)
            or not all(isinstance(a, str) for a in args)
            or not isinstance(env, dict)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        ):
            raise McpError(
                tr("The MCP server {name!r} needs either a command (with string args and env) "
                   "or a url."),
                tr('Write it as {{"command": "…", "args": […]}} or {{"url": "http://…"}}.'),
                name=name,
            )  # fmt: skip
        return cls(name, command, tuple(args), dict(env), url)

    def to_json(self) -> dict[str, Any]:
        if self.url:
            return {"url": self.url}
        return {"command": self.command, "args": list(self.args), "env": dict(self.env)}


def import_claude_config(text: str) -> list[ServerConfig]:
    """The servers of a Claude Desktop configuration (``{"mcpServers": {name: {...}}}``)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpError(
            tr("The MCP configuration is not JSON ({error})."),
            tr("Copy the whole claude_desktop_config.json file."),
            error=exc.msg,
        ) from exc
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise McpError(
            tr("The MCP configuration has no mcpServers object."),
            tr("Use the format of Claude Desktop's claude_desktop_config.json."),
        )
    return [ServerConfig.from_json(name, entry or {}) for name, entry in servers.items()]


@dataclass
class _Connection:
    """One server's process and session, held open by ``task`` inside ``scope``: cancelling the
    scope (its start-up deadline, a stop) ends the session and the SDK stops the process group."""

    config: ServerConfig
    ready: asyncio.Future[None]  # its tools are listed, or why not
    scope: Any  # anyio.CancelScope
    task: asyncio.Task[None] | None = None
    session: Any = None
    tools: list[Any] = field(default_factory=list)


def _text_of(result: Any) -> str:
    """The text of a ``CallToolResult``: its text blocks, a note for other content."""
    parts = []
    for block in result.content:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')}]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    return "\n".join(parts)


class _SdkToLog(logging.Handler):
    """The MCP SDK's own records as one debug line each in Engram's log, without their text (a
    server's output may hold the user's data); they never reach the terminal."""

    def emit(self, record: logging.LogRecord) -> None:
        error = record.exc_info[1] if record.exc_info else None
        _log.debug("MCP SDK %s from %s (%s)", record.levelname, record.name, type(error).__name__)


def _quiet_sdk() -> None:
    sdk = logging.getLogger(SDK_LOGGER)
    if not any(isinstance(handler, _SdkToLog) for handler in sdk.handlers):
        sdk.addHandler(_SdkToLog())
        sdk.propagate = False


def _import_sdk() -> None:
    """Import the SDK on the calling thread before the loop thread starts.

    Importing it builds thousands of pydantic models; the garbage collections that triggers
    belong on the thread that owns the caller's objects (Qt's among them), not on the loop thread.
    """
    importlib.import_module("mcp.client.streamable_http")


class McpHub:
    """The MCP servers of one session, on one asyncio thread; close it when done.

    :meth:`start` starts every server at once, in the background (a session does it when it
    opens); a server that has not listed its tools within ``start_timeout`` of its start is
    stopped and left out, so the first answer waits at most that long, for all servers together.
    Stopping a server (:meth:`close`, a failed start or call) stops its whole process group and
    waits for it: no server outlives the hub, nor the process (an open hub is closed at exit).
    """

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        start_timeout: float = START_TIMEOUT_S,
        call_timeout: float = CALL_TIMEOUT_S,
    ) -> None:
        _quiet_sdk()
        self.servers = {s.name: s for s in servers}
        self.start_timeout = start_timeout
        self.call_timeout = call_timeout
        self._connections: dict[str, _Connection] = {}
        self._dropped: list[_Connection] = []  # told to stop; waited for at close
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._errlog: TextIO | None = None
        self._lock = threading.Lock()

    # -- the loop thread ---------------------------------------------------------------------

    def _run(self, coro: Any, timeout: float) -> Any:
        with self._lock:
            if self._loop is None:
                _import_sdk()
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="engram-mcp", daemon=True
                )
                self._thread.start()
                _OPEN.add(self)
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except FutureTimeout:
            future.cancel()
            raise

    def close(self) -> None:
        """Stop every server, waiting until its processes are gone, and the thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            self._run(self._stop_all(), STOP_TIMEOUT_S + 2)
        except (FutureTimeout, Exception) as exc:  # stopping must not fail the session's close
            _log.warning("MCP servers did not stop cleanly: %s", _reason(exc))
        loop.call_soon_threadsafe(loop.stop)
        thread.join(STOP_TIMEOUT_S)
        if not thread.is_alive():
            loop.close()
        self._loop = self._thread = None
        _OPEN.discard(self)
        self._connections.clear()
        self._dropped.clear()
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def _stop_all(self) -> None:
        every = [*self._connections.values(), *self._dropped]
        for connection in every:
            connection.scope.cancel()
        running = {c.task: c.config.name for c in every if c.task is not None and not c.task.done()}
        if running:
            _done, left = await asyncio.wait(running, timeout=STOP_TIMEOUT_S)
            for task in left:
                _log.warning(
                    "MCP server %s did not stop within %.0f s", running[task], STOP_TIMEOUT_S
                )

    # -- connections -------------------------------------------------------------------------

    def _stderr(self) -> TextIO:
        """Where servers' stderr goes: nowhere (it may hold the user's data)."""
        if self._errlog is None:
            self._errlog = Path(os.devnull).open("w", encoding="utf-8")  # noqa: SIM115
        return self._errlog

    def _launch(self, name: str) -> _Connection:
        """The connection of server ``name``: the one starting or open, else a new one (on the
        loop thread)."""
        connection = self._connections.get(name)
        if connection is not None and connection.task is not None and not connection.task.done():
            return connection
        import anyio

        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.start_timeout
        connection = _Connection(
            self.servers[name], loop.create_future(), anyio.CancelScope(deadline=deadline)
        )
        self._connections[name] = connection
        late = McpError(
            tr("The MCP server {name!r} did not answer within {seconds:.0f} s."),
            HINT,
            name=name,
            seconds=self.start_timeout,
        )
        timer = loop.call_at(deadline, _settle, connection.ready, late)
        connection.ready.add_done_callback(lambda _ready: timer.cancel())
        connection.task = loop.create_task(self._hold(connection))
        return connection

    async def _hold(self, connection: _Connection) -> None:
        """Open a session, list its tools, then hold it open until the scope is cancelled."""
        from mcp import ClientSession, StdioServerParameters, stdio_client
        from mcp.client.streamable_http import streamable_http_client

        config = connection.config
        try:
            with connection.scope:
                async with AsyncExitStack() as stack:
                    if config.url:
                        streams = await stack.enter_async_context(
                            streamable_http_client(config.url)
                        )
                    else:
                        line = tether.command([config.command, *config.args])
                        params = StdioServerParameters(
                            command=line[0],
                            args=line[1:],
                            env=dict(config.env) or None,
                            encoding_error_handler="replace",
                        )
                        streams = await stack.enter_async_context(
                            stdio_client(params, errlog=self._stderr())
                        )
                    read, write = streams[0], streams[1]
                    session = await stack.enter_async_context(ClientSession(read, write))
                    await session.initialize()
                    listed = await session.list_tools()
                    connection.session, connection.tools = session, list(listed.tools)
                    connection.scope.deadline = math.inf  # started: it runs until stopped
                    _settle(connection.ready, None)
                    _log.info("MCP server %s started with %d tools", config.name, len(listed.tools))
                    await asyncio.Event().wait()  # until the scope is cancelled
        except Exception as exc:
            failed = McpError(
                tr("The MCP server {name!r} could not start ({error})."),
                HINT,
                name=config.name,
                error=_reason(exc),
            )
            if not _settle(connection.ready, failed):
                _log.info("MCP server %s ended: %s", config.name, _reason(exc))
        finally:
            connection.session = None
            stopped = McpError(tr("The MCP server {name!r} was stopped."), HINT, name=config.name)
            _settle(connection.ready, stopped)  # stopped before it was ready: tell its waiters

    async def _started(self, names: Sequence[str]) -> dict[str, _Connection | McpError]:
        """Each server of ``names``, started or the reason it is not (on the loop thread)."""
        connections = {name: self._launch(name) for name in names}
        if connections:
            await asyncio.wait([c.ready for c in connections.values()])
        outcomes: dict[str, _Connection | McpError] = {}
        for name, connection in connections.items():
            error = connection.ready.exception()
            outcomes[name] = error if isinstance(error, McpError) else connection
        return outcomes

    def start(self) -> None:
        """Start every server in the background (returns at once)."""
        if self.servers:
            self._run(self._launch_all(), STOP_TIMEOUT_S)

    async def _launch_all(self) -> None:
        for name in self.servers:
            self._launch(name)

    def _connect(self, name: str) -> _Connection:
        """Server ``name``, started (now, or earlier by :meth:`start`); else :class:`McpError`."""
        if name not in self.servers:
            raise McpError(tr("There is no MCP server named {name!r}."), HINT, name=name)
        for _attempt in range(2):  # one that ended since it started (a crash) starts afresh
            started = self._run(self._started([name]), self.start_timeout + STOP_TIMEOUT_S)
            found: _Connection | McpError = started[name]
            if isinstance(found, McpError):
                raise found
            if found.session is not None:
                return found
            self._drop(name)
        raise McpError(tr("The MCP server {name!r} was stopped."), HINT, name=name)

    def _drop(self, name: str) -> None:
        """Forget a server's connection and stop its process group (waited for at close)."""
        connection = self._connections.pop(name, None)
        loop = self._loop
        if connection is not None and loop is not None:
            self._dropped.append(connection)
            loop.call_soon_threadsafe(connection.scope.cancel)

    # -- what the assistant uses -------------------------------------------------------------

    def tools(self, name: str) -> list[Tool]:
        """The tools of one server (starting it when needed), as Engram tools."""
        return self._tools_of(name, self._connect(name))

    def _tools_of(self, name: str, connection: _Connection) -> list[Tool]:
        return [
            Tool(
                name=tool.name,
                description=tool.description or tool.name,
                description_zh="",
                schema=tool.input_schema or {"type": "object"},
                run=partial(self._call_for_tool, name, tool.name),
                needs_permission=True,
                source=name,
                remote_name=tool.name,
            )
            for tool in connection.tools
        ]

    def all_tools(self) -> list[Tool]:
        """The tools of every server, all started together; a server that fails or does not
        answer in time is left out, and the log says which and why."""
        found: list[Tool] = []
        started = self._run(self._started(list(self.servers)), self.start_timeout + STOP_TIMEOUT_S)
        for name, connection in started.items():
            if isinstance(connection, McpError):
                _log.warning("MCP server %s left out: %s", name, connection.message)
            else:
                found += self._tools_of(name, connection)
        return found

    def _call_for_tool(
        self, server: str, tool: str, arguments: dict[str, Any], _ctx: ToolContext
    ) -> str:
        return self.call(server, tool, arguments)

    def call(self, server: str, tool: str, arguments: dict[str, Any]) -> str:
        """Call one tool of a server; its error result or a failure raises :class:`ToolError`."""
        connection = self._connect(server)
        try:
            result = self._run(connection.session.call_tool(tool, arguments), self.call_timeout)
        except FutureTimeout as exc:
            self._drop(server)  # a hung or dead server is started afresh next time
            raise ToolError(
                tr("The tool {name} of the MCP server {server!r} did not answer within "
                   "{seconds:.0f} s; the server was stopped."),
                HINT,
                name=tool,
                server=server,
                seconds=self.call_timeout,
            ) from exc  # fmt: skip
        except Exception as exc:
            self._drop(server)  # reconnect next time: the server may be gone
            raise ToolError(
                tr("The tool {name} of the MCP server {server!r} failed ({error})."),
                HINT,
                name=tool,
                server=server,
                error=_reason(exc),
            ) from exc
        text = _text_of(result)
        if result.is_error:
            raise ToolError(
                tr("The tool {name} of the MCP server {server!r} reported an error: {text}"),
                name=tool,
                server=server,
                text=text,
            )
        return text


def _settle(ready: asyncio.Future[None], error: McpError | None) -> bool:
    """Give ``ready`` its outcome unless it has one; True when this was it."""
    if ready.done():
        return False
    if error is None:
        ready.set_result(None)
    else:
        ready.set_exception(error)
        ready.exception()  # read here, so asyncio never logs it as "never retrieved"
    return True


_OPEN: weakref.WeakSet[McpHub] = weakref.WeakSet()


@atexit.register
def _close_open_hubs() -> None:
    """At exit, stop the servers of a hub nobody closed: none outlives Engram."""
    for hub in list(_OPEN):
        hub.close()


def _reason(exc: BaseException) -> str:
    """A short reason for a failure: the first leaf of an exception group, type and message."""
    while getattr(exc, "exceptions", None):  # an exception group (anyio task groups)
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}"[:200] if message else type(exc).__name__
