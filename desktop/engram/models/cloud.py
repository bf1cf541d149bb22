"""A client for any OpenAI-compatible chat API (``/v1/chat/completions``), standard library only.

The API may be a cloud service or the user's own server on this machine or their network
(llama.cpp's server, Ollama, LM Studio, vLLM): such a server needs no key, and
:func:`is_own_server` tells the two apart so the window can say where text goes.

Timeouts on every read plus an overall deadline (a response that never ends is cut off), retries
with exponential backoff for rate limits, server errors and network failures, and a
:class:`CloudError` with a hint for everything else. The API key is only ever put in the
``Authorization`` header, and credentials in the base URL are registered as secrets: neither is
ever logged or part of an error message (``core.masking``).
"""

from __future__ import annotations

import ipaddress
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from engram.core import log, masking
from engram.core.errors import CloudError, Problem, tr
from engram.core.messages import Message
from engram.core.stream_filter import visible
from engram.models import schema_check
from engram.models.capabilities import Capabilities

_log = log.get("models.cloud")
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
MAX_RETRY_AFTER = 30.0


class CloudClient:
    """Chat, streaming chat and structured output against one provider and model."""

    # The server renders the chat template (no tools), and tells no numbers of an answer.
    capabilities = Capabilities()

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        *,
        timeout: float = 30.0,
        deadline: float = 300.0,
        retries: int = 2,
        backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise CloudError(
                tr("The cloud address {url!r} is not an http(s) URL."),
                tr("Enter the API's base URL in Settings, e.g. https://api.example.com/v1."),
                url=base_url,
            )
        masking.secrets_of_url(base_url)  # a user:password@ or ?key= is shown nowhere
        self.base_url = base_url.rstrip("/")
        self.url = _endpoint(self.base_url, "chat/completions")
        self.model = model
        self._key = api_key
        self.timeout = timeout
        self.deadline = deadline
        self.retries = retries
        self.backoff = backoff
        self._sleep = sleep
        self.json_schema_supported: bool | None = None  # learnt from the first structured call
        self._refusal = ""  # the body of the last HTTP error (may name what was refused)

    def __repr__(self) -> str:  # never shows the key
        return f"CloudClient({self.url!r}, model={self.model!r})"

    def chat(self, messages: Sequence[Message], max_tokens: int = 512, **extra: Any) -> str:
        """The whole answer of a non-streaming request."""
        body = {"model": self.model, "messages": list(messages), "max_tokens": max_tokens}
        start = time.monotonic()
        response = self._request({**body, **extra}, stream=False)
        try:
            raw = b"".join(_chunks(response, start, self.deadline))
            reply = json.loads(raw)
            # A thinking model's reasoning is not the answer (nor part of a JSON reply).
            return visible(str(reply["choices"][0]["message"]["content"]))
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise self._malformed(exc) from exc
        finally:
            response.close()

    def stream_chat(
        self,
        messages: Sequence[Message],
        max_tokens: int = 512,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> Iterator[str]:
        """Yield the answer's pieces from a server-sent-events stream."""
        body = {"model": self.model, "messages": list(messages), "max_tokens": max_tokens}
        start = time.monotonic()
        response = self._request({**body, "stream": True}, stream=True)
        try:
            for line in _lines(response, start, self.deadline):
                if cancelled():
                    return
                if not line.startswith("data:"):
                    continue  # comments, event names, keep-alives
                payload = line[5:].strip()
                if payload == "[DONE]":
                    return
                try:
                    delta = json.loads(payload)["choices"][0]["delta"]
                except (ValueError, KeyError, IndexError, TypeError) as exc:
                    raise self._malformed(exc) from exc
                if delta.get("content"):
                    yield str(delta["content"])
            raise CloudError(
                tr("The answer from {url} stopped before it was complete."),
                tr("The connection dropped; try again."),
                url=self.url,
            )
        finally:
            response.close()

    def structured(
        self, messages: Sequence[Message], json_schema: dict[str, Any], max_tokens: int = 1024
    ) -> dict[str, Any]:
        """A JSON object validated against ``json_schema``.

        Uses ``response_format: json_schema`` when the provider accepts it, else ``json_object``
        with the schema in the prompt; the result is validated either way.
        """
        wanted = {"type": "json_schema", "json_schema": {"name": "answer", "schema": json_schema}}
        if self.json_schema_supported is not False:
            try:
                text = self.chat(messages, max_tokens, response_format=wanted)
                self.json_schema_supported = True
                return self._validated(text, json_schema)
            except CloudError as exc:
                said = f"{exc.message} {self._refusal}"
                if "response_format" not in said and "json_schema" not in said:
                    raise
                self.json_schema_supported = False
                _log.info("%s does not support json_schema; using json_object", self.url)
        instruction: Message = {
            "role": "system",
            "content": "Answer with one JSON object that follows this JSON schema:\n"
            + json.dumps(json_schema, ensure_ascii=False),
        }
        # A llama.cpp server also takes the schema here and constrains the answer to it.
        constrained = {"schema": json_schema} if is_own_server(self.base_url) else {}
        text = self.chat(
            [instruction, *messages],
            max_tokens,
            response_format={"type": "json_object", **constrained},
        )
        return self._validated(text, json_schema)

    def _validated(self, text: str, json_schema: dict[str, Any]) -> dict[str, Any]:
        try:
            value = json.loads(text)
        except ValueError as exc:
            raise self._malformed(exc) from exc
        problems = schema_check.errors(value, json_schema)
        if problems or not isinstance(value, dict):
            raise CloudError(
                tr("The answer from {model} does not match the expected format ({detail})."),
                tr("Try again, or choose a stronger cloud model."),
                model=self.model,
                detail="; ".join(problems[:3]) if problems else Problem(tr("not a JSON object")),
            )
        return value

    def _request(self, body: dict[str, Any], stream: bool) -> Any:
        """POST with retries; returns the open response (the caller reads and closes it)."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream" if stream else "application/json",
            **self._auth(),
        }
        start = time.monotonic()
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                return urllib.request.urlopen(request, timeout=self.timeout)
            except urllib.error.HTTPError as exc:
                error, wait = self._http_error(exc), self._retry_after(exc)
                if exc.code not in RETRY_STATUS:
                    raise error from exc
            except (urllib.error.URLError, OSError) as exc:
                error, wait = self._network_error(exc), None
            if attempt == self.retries or time.monotonic() - start > self.deadline:
                raise error
            delay = wait if wait is not None else self.backoff * 2**attempt
            _log.info("%s failed (%s); retry %d in %.1f s", self.url, error.message, attempt, delay)
            self._sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def list_models(self) -> list[str]:
        """The model ids the server offers (``GET /models``), for the user to pick one."""
        request = urllib.request.Request(
            _endpoint(self.base_url, "models"),
            headers={"Accept": "application/json", **self._auth()},
        )
        try:
            response = urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from exc
        except (urllib.error.URLError, OSError) as exc:
            raise self._network_error(exc) from exc
        try:
            raw = b"".join(_chunks(response, time.monotonic(), self.deadline))
            return [str(item["id"]) for item in json.loads(raw)["data"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise self._malformed(exc) from exc
        finally:
            response.close()

    def _http_error(self, exc: urllib.error.HTTPError) -> CloudError:
        try:
            detail = exc.read(2000).decode("utf-8", "replace").strip()
        except OSError:
            detail = ""
        finally:
            exc.close()
        self._refusal = detail
        _log.warning("%s answered HTTP %d", self.url, exc.code)
        if exc.code in (401, 403):
            return CloudError(
                tr("{url} answered HTTP {status}: the API key was refused."),
                tr("Check the API key in Settings → Cloud."),
                url=self.url,
                status=exc.code,
            )
        if exc.code == 429:
            return CloudError(
                tr("{url} answered HTTP {status}: too many requests or the quota is used up."),
                tr("Wait a little and try again, or check the plan and billing of the account."),
                url=self.url,
                status=exc.code,
            )
        if exc.code >= 500:
            return CloudError(
                tr("{url} answered HTTP {status}: the provider has a problem."),
                tr("Try again later; nothing was lost."),
                url=self.url,
                status=exc.code,
            )
        if exc.code == 404:
            return CloudError(
                tr("{url} answered HTTP {status}: not found ({detail})."),
                tr("Check the base URL and the model name in Settings → Cloud."),
                url=self.url,
                status=exc.code,
                detail=detail[:300],
            )
        return CloudError(
            tr("{url} answered HTTP {status}: the request was refused ({detail})."),
            tr("Check the model name and settings; the provider's message above says more."),
            url=self.url,
            status=exc.code,
            detail=detail[:300],
        )

    def _network_error(self, exc: BaseException) -> CloudError:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):
            return CloudError(
                tr("{url} did not answer within {timeout:.0f} s."),
                tr("The provider is slow or unreachable; try again later."),
                url=self.url,
                timeout=self.timeout,
            )
        return CloudError(
            tr("Cannot reach {url} ({reason})."),
            tr("Check the network connection and the base URL in Settings → Cloud."),
            url=self.url,
            reason=str(reason),
        )

    @staticmethod
    def _retry_after(exc: urllib.error.HTTPError) -> float | None:
        try:
            return min(MAX_RETRY_AFTER, float(exc.headers.get("Retry-After", "")))
        except (TypeError, ValueError):
            return None

    def _malformed(self, exc: BaseException) -> CloudError:
        return CloudError(
            tr("The answer from {url} is not a valid chat completion ({error})."),
            tr(
                "Check that the base URL points to an OpenAI-compatible API "
                "(it usually ends in /v1)."
            ),
            url=self.url,
            error=str(exc),
        )


def _endpoint(base_url: str, name: str) -> str:
    """The URL of one endpoint under ``base_url``, its query (``?key=…``) kept at the end."""
    parts = urllib.parse.urlsplit(base_url)
    return urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + name))


def _pieces(read: Callable[[], bytes], start: float, deadline: float) -> Iterator[bytes]:
    """Successive reads of a response, cut off at the overall deadline or a stalled read."""
    while True:
        if time.monotonic() - start > deadline:
            raise CloudError(
                tr("The answer did not finish within {deadline:.0f} s."),
                tr("The provider kept the answer open; try again later or with a shorter request."),
                deadline=deadline,
            )
        try:
            raw = read()
        except TimeoutError as exc:
            raise CloudError(
                tr("The answer stalled (no data within the timeout)."),
                tr("The provider is slow or the connection dropped; try again."),
            ) from exc
        if not raw:
            return
        yield raw


def _chunks(response: Any, start: float, deadline: float) -> Iterator[bytes]:
    return _pieces(lambda: response.read1(65536), start, deadline)


def _lines(response: Any, start: float, deadline: float) -> Iterator[str]:
    for raw in _pieces(response.readline, start, deadline):
        yield raw.decode("utf-8", "replace").strip()


def is_own_server(base_url: str) -> bool:
    """Whether ``base_url`` is on this machine or the local network (not a cloud service).

    Loopback, private, link-local and ``.local``/``.lan``/``.home.arpa`` addresses count as the
    user's own server; any other host is treated as a cloud service.
    """
    host = (urllib.parse.urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith((".local", ".lan", ".home.arpa", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host and bool(host)  # a bare machine name on the network
    return address.is_loopback or address.is_private or address.is_link_local


def destination(base_url: str) -> Problem:
    """Where text sent to ``base_url`` goes, in one line for the window's privacy wording."""
    host = urllib.parse.urlsplit(base_url).hostname or base_url
    if is_own_server(base_url):
        return Problem(
            tr("your server at {host}: text stays on your machine or network"), host=host
        )
    return Problem(tr("the cloud service at {host}: text leaves your network"), host=host)


class ServedModel(CloudClient):
    """A model on an OpenAI-compatible server in the shape a turn needs (the small role too).

    The OpenAI API exposes no tokenizer, so token counts are estimated at one token per three
    UTF-8 bytes (about 4 English characters, one Chinese character); nothing is prefilled.
    Its capabilities are the client's: none (no tools, no answer stats, no reading progress).
    """

    def __init__(
        self, base_url: str, model: str, api_key: str = "", *, n_ctx: int = 4096, **options: Any
    ) -> None:
        super().__init__(base_url, model, api_key, **options)
        self.n_ctx = n_ctx

    def count_tokens(self, text: str) -> int:
        return max(1, len(text.encode("utf-8")) // 3)

    def close(self) -> None:
        """Nothing to free: the server keeps the model."""

    def prefill(
        self,
        messages: Sequence[Message],
        cancelled: Callable[[], bool] = lambda: False,
        tools: Any = None,
    ) -> int:
        return 0
