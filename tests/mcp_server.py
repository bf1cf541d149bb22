"""A small MCP server for the tests, built with the SDK: stdio, or Streamable HTTP on 127.0.0.1.

python tests/mcp_server.py                 # stdio
python tests/mcp_server.py --http PORT     # Streamable HTTP at http://127.0.0.1:PORT/mcp
python tests/mcp_server.py --garbage       # prints non-protocol output and never answers
python tests/mcp_server.py --exit          # exits at once
python tests/mcp_server.py --stubborn      # never answers, ignores SIGTERM and a closed stdin,
                                           # and starts a child process that does the same
python tests/mcp_server.py --sticky        # answers, but outlives a closed stdin and SIGTERM,
                                           # with a child process that does the same
... --pidfile PATH                         # each process adds its pid to PATH as it starts
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from mcp.server.mcpserver import MCPServer  # noqa: TID253 (a separate process, not Engram)

server = MCPServer("engram-test")


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ValueError(reason)


@server.tool()
def sleep(seconds: float) -> str:
    """Sleep, then answer (a hung tool)."""
    time.sleep(seconds)
    return "awake"


@server.tool()
def crash() -> str:
    """End the server process at once."""
    os._exit(3)


def main(argv: list[str]) -> None:
    if "--pidfile" in argv:
        with open(argv[argv.index("--pidfile") + 1], "a", encoding="utf-8") as pids:
            pids.write(f"{os.getpid()}\n")
    if "--stubborn" in argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if "--child" not in argv:
            subprocess.Popen([sys.executable, __file__, *argv, "--child"], stdin=subprocess.DEVNULL)
        time.sleep(600)
        return
    if "--sticky" in argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if "--child" in argv:
            time.sleep(600)
            return
        subprocess.Popen([sys.executable, __file__, *argv, "--child"], stdin=subprocess.DEVNULL)
        server.run()  # returns when stdin closes; a careless server stays on
        time.sleep(600)
        return
    if "--exit" in argv:
        sys.exit(1)
    if "--garbage" in argv:
        print("this is not JSON-RPC", flush=True)
        print('{"neither": is this', flush=True)
        time.sleep(600)
    if "--http" in argv:
        port = int(argv[argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run()


if __name__ == "__main__":
    main(sys.argv[1:])
