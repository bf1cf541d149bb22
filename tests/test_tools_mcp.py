"""MCP servers as tool sources, for real: the SDK-built server in tests/mcp_server.py over stdio
and over Streamable HTTP on 127.0.0.1, and servers that exit, hang or print garbage."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.assistant.tools import builtins
from engram.assistant.tools import setup as tool_setup
from engram.assistant.tools.base import ToolContext
from engram.assistant.tools.mcp import McpError, McpHub, ServerConfig, import_claude_config
from engram.core.settings import ToolSettings
from waiting import wait_until

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
    assert failed.is_error and "fail of the MCP server 'test' reported an error" in failed.text


@pytest.mark.slow
def test_a_hung_tool_times_out_and_a_crash_is_reported(hub: McpHub) -> None:
    hub.call_timeout = 1.5
    registry = builtins.registry(more=hub.tools("test"))
    hung = registry.call("sleep", {"seconds": 30}, ToolContext())
    assert hung.is_error and "sleep of the MCP server 'test' did not answer within 2 s" in hung.text
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


def _gone(pid: int) -> bool:
    """The process ended (a zombie nobody reaped yet counts: it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def _pids(pidfile: Path) -> list[int]:
    return [int(line) for line in pidfile.read_text(encoding="utf-8").split()]


BROKEN_RUN = """
import sys
from engram.core import log
from engram.assistant.tools.mcp import McpHub, ServerConfig

server, pidfile, close = sys.argv[1], sys.argv[2], sys.argv[3] == "close"
log.setup()
hub = McpHub(
    [ServerConfig(name, sys.executable, (server, flag, "--pidfile", pidfile))
     for name, flag in (("junk", "--garbage"), ("stuck", "--stubborn"), ("gone", "--exit"))],
    start_timeout=5,
)
print(len(hub.all_tools()))
if close:  # else the hub is left open, as by a command that fails on its way out
    hub.close()
"""


@pytest.mark.slow
@pytest.mark.parametrize("close", ["close", "exit"])
def test_broken_servers_are_named_with_their_reason_and_none_outlives_engram(
    close: str, engram_home: Path, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pids"
    pidfile.touch()
    ran = subprocess.run(
        [sys.executable, "-c", BROKEN_RUN, SERVER, str(pidfile), close],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    pids = _pids(pidfile)
    try:
        assert ran.returncode == 0 and ran.stdout == "0\n", ran.stderr
        assert "Traceback" not in ran.stderr, ran.stderr
        assert len(pids) == 4  # junk, stuck and the child it started, gone
        assert [pid for pid in pids if not _gone(pid)] == []  # all stopped, the child too
        logged = (engram_home / "data" / "logs" / "engram.log").read_text(encoding="utf-8")
        assert "MCP server junk left out: The MCP server 'junk' did not answer within 5 s" in logged
        assert "MCP server stuck left out: The MCP server 'stuck' did not answer" in logged
        assert "MCP server gone left out: The MCP server 'gone' could not start (" in logged
        assert "ExceptionGroup" not in logged and "TimeoutError" not in logged
    finally:
        for pid in pids:  # whatever happened, leave no process behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_a_session_starts_its_servers_together_in_the_background(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    pidfile.touch()
    servers = {
        name: {"command": sys.executable, "args": [SERVER, "--garbage", "--pidfile", str(pidfile)]}
        for name in ("first", "second")
    }
    box, hub = tool_setup.toolbox(ToolSettings(mcp_servers=servers))
    assert box is not None and hub is not None
    try:
        # Nothing asked for their tools yet; neither waits for the other to answer (they never do).
        wait_until(lambda: len(_pids(pidfile)) == 2)
    finally:
        hub.close()
    assert all(_gone(pid) for pid in _pids(pidfile))


KILLED_RUN = """
import sys, time
from engram.assistant.tools.mcp import McpHub, ServerConfig

server, pidfile = sys.argv[1], sys.argv[2]
hub = McpHub([ServerConfig("sticky", sys.executable, (server, "--sticky", "--pidfile", pidfile))],
             start_timeout=30)
print(len(hub.all_tools()), flush=True)
time.sleep(600)
"""


@pytest.mark.slow
def test_no_server_outlives_engram_killed_with_sigkill(engram_home: Path, tmp_path: Path) -> None:
    """Engram killed with SIGKILL closes nothing and runs no exit handler: the tether each stdio
    server runs under stops its whole process group, a server that ignores a closed stdin and
    SIGTERM and the child it started included."""
    pidfile = tmp_path / "pids"
    pidfile.touch()
    engram = subprocess.Popen(
        [sys.executable, "-c", KILLED_RUN, SERVER, str(pidfile)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert engram.stdout is not None and engram.stdout.readline() == "5\n"  # it answers
        wait_until(lambda: len(_pids(pidfile)) == 2)  # the server and its child
        assert not any(_gone(pid) for pid in _pids(pidfile))
        os.kill(engram.pid, signal.SIGKILL)
        engram.wait(timeout=30)
        wait_until(lambda: all(_gone(pid) for pid in _pids(pidfile)), timeout=20)
    finally:
        for pid in [*_pids(pidfile), engram.pid]:  # whatever happened, leave no process behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if engram.stdout is not None:
            engram.stdout.close()
