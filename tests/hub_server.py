"""A small local stand-in for the Hugging Face hub's download protocol, for tests.

``HEAD``/``GET /{owner}/{repo}/resolve/{revision}/{file}`` answers like the hub does for LFS files:
a 302 whose headers carry ``X-Repo-Commit``, ``X-Linked-Etag`` (the sha256), ``X-Linked-Size`` and
a ``Location`` on another host name ("localhost" instead of "127.0.0.1", like the hub's CDN), so
huggingface_hub reads the metadata from the redirect itself. ``GET /cdn/...`` serves the bytes and
honours ``Range: bytes=N-`` with a 206. The model search of the hub's API is there too:
``GET /api/models?search=…&filter=gguf`` lists the repositories holding a .gguf file whose id
contains the search text (most downloaded first), and ``GET /api/models/{owner}/{repo}?blobs=true``
lists a repository's files with sizes and LFS sha256, as the hub does. Faults can be injected:
status codes for the next requests, a response body cut off after N bytes, and stalls (for
client timeouts, the API's too). The server counts the body bytes it sends, per request. It runs
on a daemon thread and shuts itself down after ``lifetime`` seconds even if a test forgets to
stop it.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

COMMIT = "0123456789abcdef0123456789abcdef01234567"
_RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<file>.+)$")


@dataclass
class Served:
    """One request the server answered."""

    method: str
    path: str
    range: str | None
    status: int = 0
    body_bytes: int = 0
    stalled: bool = False
    done: threading.Event = field(default_factory=threading.Event, repr=False, compare=False)


@dataclass
class Faults:
    """Injected failures; each list is consumed one item per matching request."""

    head_status: list[int] = field(default_factory=list)  # for HEAD/GET on /resolve
    cdn_status: list[int] = field(default_factory=list)  # for GET on /cdn
    cut_after: list[int] = field(default_factory=list)  # send only N body bytes, then hang up
    stall: list[float] = field(default_factory=list)  # wait N seconds before answering a CDN GET
    pause_after: list[int] = field(default_factory=list)  # send N body bytes, then stall (10 s)
    api_status: list[int] = field(default_factory=list)  # for GET on /api/models...
    api_stall: list[float] = field(default_factory=list)  # wait N seconds before an API answer


class HubServer:
    """Serves ``files[(repo, filename)] = bytes`` over the hub's URL scheme."""

    def __init__(self, lifetime: float = 60.0) -> None:
        self.files: dict[tuple[str, str], bytes] = {}
        self.advertised_sha: dict[tuple[str, str], str] = {}
        self.popularity: dict[str, tuple[int, int]] = {}  # repo: (downloads, likes)
        self.faults = Faults()
        self.log: list[Served] = []
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._timer = threading.Timer(lifetime, self.stop)
        self._timer.daemon = True

    def add(self, repo: str, filename: str, content: bytes) -> str:
        """Publish a file; returns its sha256."""
        self.files[(repo, filename)] = content
        return hashlib.sha256(content).hexdigest()

    def api_gets(self) -> list[Served]:
        return [s for s in self.requests() if s.path.startswith("/api/")]

    def _serve(self) -> None:
        self._httpd.serve_forever(poll_interval=0.05)

    def start(self) -> HubServer:
        self._thread.start()
        self._timer.start()
        return self

    def stop(self) -> None:
        self._timer.cancel()
        self._release.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.server_close()

    def requests(self) -> list[Served]:
        """Every request so far, once each has been answered (stalled ones as they are)."""
        with self._lock:
            served = list(self.log)
        for item in served:
            if not item.stalled:
                item.done.wait(10)
        return served

    def heads(self) -> list[Served]:
        return [s for s in self.requests() if s.method == "HEAD"]

    def cdn_gets(self) -> list[Served]:
        return [s for s in self.requests() if s.path.startswith("/cdn/") and s.method == "GET"]

    def bytes_served(self) -> int:
        return sum(s.body_bytes for s in self.cdn_gets())

    def _pop(self, items: list[int] | list[float]) -> float | None:
        with self._lock:
            return items.pop(0) if items else None

    def _begin(self, method: str, path: str, asked: str | None) -> Served:
        served = Served(method, path, asked)
        with self._lock:
            self.log.append(served)
        return served


def _handler(hub: HubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        served: Served

        def do_HEAD(self) -> None:
            self._answer(self._resolve)

        def do_GET(self) -> None:
            if self.path.startswith("/api/models"):
                self._answer(self._api)
            else:
                self._answer(self._cdn if self.path.startswith("/cdn/") else self._resolve)

        def _answer(self, respond: Callable[[], None]) -> None:
            self.served = hub._begin(self.command, self.path, self.headers.get("Range"))
            try:
                respond()
            finally:
                self.served.done.set()

        def _error(self, status: int, code: str = "") -> None:
            self.served.status = status
            self.send_response(status)
            if code:
                self.send_header("X-Error-Code", code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _faulted(self, stalls: list[float], statuses: list[int]) -> bool:
            """Play this request's planned stall, then its planned error status (True: the
            error was the answer)."""
            stall = hub._pop(stalls)
            if stall:
                self.served.stalled = True
                hub._release.wait(stall)
            status = hub._pop(statuses)
            if status is None:
                return False
            self._error(int(status))
            return True

        def _json(self, value: object) -> None:
            body = json.dumps(value).encode()
            self.served.status = 200
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self._send(body)

        def _api(self) -> None:
            if self._faulted(hub.faults.api_stall, hub.faults.api_status):
                return None
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            repos = sorted({repo for repo, _ in hub.files})
            if url.path == "/api/models":
                text = query.get("search", [""])[0].lower()
                gguf = query.get("filter", [""])[0] == "gguf"
                found = [
                    r
                    for r in repos
                    if text in r.lower()
                    and (not gguf or any(f.endswith(".gguf") for k, f in hub.files if k == r))
                ]
                found.sort(key=lambda r: -hub.popularity.get(r, (0, 0))[0])
                limit = int(query.get("limit", ["1000"])[0])
                return self._json(
                    [
                        {
                            "id": r,
                            "downloads": hub.popularity.get(r, (0, 0))[0],
                            "likes": hub.popularity.get(r, (0, 0))[1],
                            "tags": ["gguf"],
                        }
                        for r in found[:limit]
                    ]
                )
            repo = unquote(url.path[len("/api/models/") :])
            if repo not in repos:
                return self._error(404, "RepoNotFound")
            siblings = []
            for (owner_repo, filename), content in sorted(hub.files.items()):
                if owner_repo != repo:
                    continue
                sha = (
                    hub.advertised_sha.get((repo, filename)) or hashlib.sha256(content).hexdigest()
                )
                siblings.append(
                    {
                        "rfilename": filename,
                        "size": len(content),
                        "lfs": {"sha256": sha, "size": len(content), "pointerSize": 134},
                    }
                )
            return self._json({"id": repo, "sha": COMMIT, "siblings": siblings})

        def _resolve(self) -> None:
            match = _RESOLVE.match(self.path)
            status = hub._pop(hub.faults.head_status)
            if status is not None:
                return self._error(int(status))
            key = (match["repo"], match["file"]) if match else None
            if key is None or key not in hub.files:
                return self._error(404, "EntryNotFound")
            content = hub.files[key]
            sha = hub.advertised_sha.get(key) or hashlib.sha256(content).hexdigest()
            self.served.status = 302
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{hub.port}/cdn/{key[0]}/{key[1]}")
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{sha}"')
            self.send_header("X-Linked-Etag", f'"{sha}"')
            self.send_header("X-Linked-Size", str(len(content)))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _cdn(self) -> None:
            repo_file = self.path[len("/cdn/") :]
            owner, name, filename = repo_file.split("/", 2)
            content = hub.files.get((f"{owner}/{name}", filename))
            if content is None:
                return self._error(404)
            if self._faulted(hub.faults.stall, hub.faults.cdn_status):
                return None
            asked = self.headers.get("Range")
            start = int(m[1]) if asked and (m := re.match(r"bytes=(\d+)-$", asked)) else 0
            body = content[start:]
            self.served.status = 206 if start else 200
            self.send_response(self.served.status)
            if start:
                self.send_header(
                    "Content-Range", f"bytes {start}-{len(content) - 1}/{len(content)}"
                )
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            cut = hub._pop(hub.faults.cut_after)
            pause = hub._pop(hub.faults.pause_after)
            if pause is not None:
                self._send(body[: int(pause)])
                self.served.stalled = True
                hub._release.wait(10)
                body = body[int(pause) :]
            self._send(body[: int(cut)] if cut is not None else body)
            if cut is not None or pause is not None:
                self.close_connection = True

        def _send(self, body: bytes) -> None:
            try:
                for offset in range(0, len(body), 64 * 1024):
                    piece = body[offset : offset + 64 * 1024]
                    self.wfile.write(piece)
                    self.served.body_bytes += len(piece)
            except OSError:  # the client went away (cancel)
                self.close_connection = True

    return Handler
