"""MCP servers as tool sources, for real: the SDK-built server in tests/mcp_server.py over stdio
and over Streamable HTTP on 127.0.0.1, and servers that exit, hang or print garbage."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.assistant.tools import builtins
from engram.assistant.tools.base import ToolContext
from engram.assistant.tools.mcp import McpError, McpHub, ServerConfig, import_claude_config

SERVER = str(Path(__file__).parent / "mcp_server.py")


def _stdio(name: str = "test", *flags: str) -> ServerConfig:
    return ServerConfig(name, sys.executable, (SERVER, *flags))


@pytest.fixture
def hub() -> Iterator[McpHub]:
    opened = McpHub([_stdio()], start_timeout=30, call_timeout=10)
    yield opened
    opened.close()


@pytest.mark.slow
def test_a_stdio_server_lists_and_runs_its_tools(hub: McpHub) -> None:
    tools = {t.name: t for t in hub.tools("test")}
    assert {"add", "echo", "fail", "sleep", "crash"} <= set(tools)
    assert tools["add"].needs_permission and tools["add"].source == "test"
    assert tools["add"].schema["properties"]["a"]["type"] == "number"
    registry = builtins.registry(more=tools.values())
    out = registry.call("add", {"a": 2, "b": 3.5}, ToolContext())
    assert (out.text, out.is_error) == ("5.5", False)
    wrong = registry.call("add", {"a": "two", "b": 1}, ToolContext())
    assert wrong.is_error and "expected number" in wrong.text  # checked before the server runs
    failed = registry.call("fail", {"reason": "no luck"}, ToolContext())
    assert failed.is_error and "fail reported an error" in failed.text


@pytest.mark.slow
def test_a_hung_tool_times_out_and_a_crash_is_reported(hub: McpHub) -> None:
    hub.call_timeout = 1.5
    registry = builtins.registry(more=hub.tools("test"))
    hung = registry.call("sleep", {"seconds": 30}, ToolContext())
    assert hung.is_error and "did not answer within 2 s" in hung.text
    crashed = registry.call("crash", {}, ToolContext())
    assert crashed.is_error and "crash" in crashed.text
    # The next call starts the server again.
    again = registry.call("echo", {"text": "back"}, ToolContext())
    assert (again.text, again.is_error) == ("echo: back", False)


@pytest.mark.parametrize(
    ("flags", "error"), [(("--exit",), "could not start"), (("--garbage",), "did not answer")]
)
@pytest.mark.slow
def test_a_broken_server_gives_a_clear_error_in_time(flags: tuple[str, ...], error: str) -> None:
    broken = McpHub([_stdio("broken", *flags)], start_timeout=3)
    try:
        started = time.monotonic()
        with pytest.raises(McpError) as caught:
            broken.tools("broken")
        assert error in caught.value.message and caught.value.hint
        assert time.monotonic() - started < 15  # bounded by the timeout, not hung
        assert broken.all_tools() == []  # the session goes on without it
    finally:
        broken.close()


GARBAGE_RUN = f"""
from engram.assistant.tools.mcp import McpError, McpHub, ServerConfig
hub = McpHub([ServerConfig("junk", {sys.executable!r}, ({SERVER!r}, "--garbage"))], start_timeout=3)
try:
    hub.tools("junk")
except McpError as exc:
    print(exc.message)
hub.close()
"""


@pytest.mark.slow
def test_a_servers_garbage_never_reaches_the_terminal() -> None:
    """The SDK logs each unparsable line with a pydantic traceback: it goes to Engram's log at
    debug level, without its text, and never to stderr."""
    ran = subprocess.run(
        [sys.executable, "-c", GARBAGE_RUN], capture_output=True, text=True, timeout=60, check=False
    )
    assert "did not answer" in ran.stdout, ran.stderr
    assert "Traceback" not in ran.stderr and "not JSON-RPC" not in ran.stderr, ran.stderr


def test_a_missing_command_is_a_clear_error() -> None:
    missing = McpHub([ServerConfig("gone", "/nonexistent/engram-mcp-server")], start_timeout=5)
    try:
        with pytest.raises(McpError) as caught:
            missing.tools("gone")
        assert "could not start" in caught.value.message
    finally:
        missing.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
@pytest.mark.network_local
def test_a_streamable_http_server_on_loopback() -> None:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, SERVER, "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    hub = McpHub([ServerConfig("web", url=f"http://127.0.0.1:{port}/mcp")], start_timeout=5)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                tools = hub.tools("web")
                break
            except McpError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        registry = builtins.registry(more=tools)
        assert registry.call("echo", {"text": "over http"}, ToolContext()).text == "echo: over http"
    finally:
        hub.close()
        process.terminate()
        process.wait(10)


def test_claude_desktop_configuration_is_imported() -> None:
    text = (
        '{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-files", "/tmp"]},'
        ' "web": {"url": "http://127.0.0.1:9/mcp"}}}'
    )
    servers = import_claude_config(text)
    assert servers == [
        ServerConfig("files", "npx", ("-y", "server-files", "/tmp")),
        ServerConfig("web", url="http://127.0.0.1:9/mcp"),
    ]
    assert servers[0].to_json() == {
        "command": "npx",
        "args": ["-y", "server-files", "/tmp"],
        "env": {},
    }
    for bad in ("not json", '{"servers": {}}', '{"mcpServers": {"x": {"args": ["a"]}}}'):
        with pytest.raises(McpError):
            import_claude_config(bad)


@pytest.mark.slow
def test_clashing_names_are_prefixed_with_the_server(hub: McpHub) -> None:
    registry = builtins.registry(more=hub.tools("test"))
    other = McpHub([_stdio("second")], start_timeout=30)
    try:
        for tool in other.tools("second"):
            registry.add(tool)
        assert registry.get("second.echo") is not None
        out = registry.call("second.echo", {"text": "hi"}, ToolContext())
        assert out.text == "echo: hi"
    finally:
        other.close()
