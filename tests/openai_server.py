"""A tiny OpenAI-compatible chat server on 127.0.0.1 for tests, with scripted failures.

Each request takes the next action from ``server.script`` (default ``"ok"``): ``ok``,
``stream``, ``401``, ``429``, ``500``, ``404``, ``malformed``, ``hang`` (headers, then silence),
``endless`` (a stream that keeps sending keep-alives), ``no_json_schema`` (400 when the request
asks for ``json_schema``, else ``ok``), ``cut`` (a stream that stops without ``[DONE]``),
``echo_key`` (a 500 whose error message quotes the Authorization header), ``refuse_echo`` (a 400
that quotes it and the URL it was sent to).
Hanging handlers are bounded: they end when the server stops or after ``HANG_LIMIT`` seconds.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HANG_LIMIT = 10.0
KEY = "sk-test-secret-123"


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.reply = "Hello from the cloud."
        self.stopping = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_action(self) -> str:
        return self.script.pop(0) if self.script else "ok"


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        self.server.requests.append({"headers": dict(self.headers), "body": body})
        action = self.server.next_action()
        if self.path.split("?")[0] != "/v1/chat/completions":
            action = "404"
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            action = "401"
        if action == "no_json_schema":
            wants = body.get("response_format", {}).get("type") == "json_schema"
            action = "400" if wants else "ok"
        if action in ("401", "404", "429", "500", "400"):
            message = "response_format json_schema is not supported" if action == "400" else "no"
            self._json(int(action), {"error": {"message": message}}, retry_after="0")
        elif action == "echo_key":  # a provider that quotes the credentials in its error
            auth = self.headers.get("Authorization", "")
            self._json(500, {"error": {"message": f"bad request for {auth}"}}, retry_after="0")
        elif action == "refuse_echo":  # the same, in a refusal shown with its text
            auth = self.headers.get("Authorization", "")
            said = f"model not allowed for {auth} at {self.path}"
            self._json(400, {"error": {"message": said}})
        elif action == "malformed":
            self._json(200, {"unexpected": True})
        elif action in ("hang", "endless", "cut") or body.get("stream"):
            self._stream(action)
        else:
            self._json(
                200, {"choices": [{"message": {"role": "assistant", "content": self.server.reply}}]}
            )

    def _json(self, status: int, payload: dict[str, Any], retry_after: str = "") -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if retry_after:
            self.send_header("Retry-After", retry_after)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, action: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        if action == "hang":
            self.wfile.flush()
            self.server.stopping.wait(HANG_LIMIT)
            return
        for word in self.server.reply.split(" "):
            chunk = {"choices": [{"delta": {"content": word + " "}}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        self.wfile.flush()
        if action == "cut":
            return
        if action == "endless":
            while not self.server.stopping.wait(0.05):
                try:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                except OSError:
                    return
            return
        self.wfile.write(b"data: [DONE]\n\n")


@contextmanager
def running() -> Iterator[ChatServer]:
    """A started server, stopped (and its threads ended) on exit."""
    server = ChatServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
