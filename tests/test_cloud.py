"""The OpenAI-compatible cloud client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from engram.core.errors import CloudError
from engram.models.cloud import CloudClient
from openai_server import KEY, ChatServer, running

pytestmark = pytest.mark.network_local  # real HTTP servers on 127.0.0.1

MESSAGES = [{"role": "user", "content": "你好, hello"}]
SCHEMA = {
    "type": "object",
    "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
    "required": ["facts"],
}


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with running() as srv:
        yield srv


def client(server: ChatServer, key: str = KEY, **kwargs: float) -> CloudClient:
    sleeps: list[float] = []
    options = {"timeout": 2.0, "deadline": 5.0, "backoff": 0.01, **kwargs}
    made = CloudClient(server.base_url, "test-model", key, sleep=sleeps.append, **options)  # type: ignore[arg-type]
    made.sleeps = sleeps  # type: ignore[attr-defined]
    return made


def test_chat_sends_model_messages_and_bearer_key(server: ChatServer) -> None:
    assert client(server).chat(MESSAGES, max_tokens=32) == "Hello from the cloud."
    sent = server.requests[0]
    assert sent["body"]["model"] == "test-model"
    assert sent["body"]["messages"] == MESSAGES
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"


def test_stream_yields_pieces_in_order(server: ChatServer) -> None:
    server.reply = "one two 三"
    pieces = list(client(server).stream_chat(MESSAGES))
    assert "".join(pieces).split() == ["one", "two", "三"]
    assert len(pieces) == 3


def test_wrong_key_is_a_clear_error_without_retry(server: ChatServer) -> None:
    cli = client(server, key="sk-wrong")
    with pytest.raises(CloudError, match="API key was refused") as info:
        cli.chat(MESSAGES)
    assert "Settings" in info.value.hint
    assert "sk-wrong" not in str(info.value) and "sk-wrong" not in repr(cli)
    assert len(server.requests) == 1


@pytest.mark.parametrize(("action", "text"), [("429", "too many requests"), ("500", "provider")])
def test_retryable_errors_retry_with_backoff_then_succeed(
    server: ChatServer, action: str, text: str
) -> None:
    server.script = [action, action]
    cli = client(server, retries=2)
    assert cli.chat(MESSAGES) == "Hello from the cloud."
    assert len(server.requests) == 3

    server.script = [action] * 3
    with pytest.raises(CloudError, match=text):
        cli.chat(MESSAGES)


def test_backoff_grows_when_no_retry_after(server: ChatServer) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    cli = CloudClient(
        f"http://127.0.0.1:{port}/v1", "m", KEY, retries=2, backoff=0.1, sleep=sleeps.append
    )
    with pytest.raises(CloudError, match="Cannot reach") as info:
        cli.chat(MESSAGES)
    assert "network" in info.value.hint
    assert sleeps == [0.1, 0.2]


def test_not_found_points_at_the_base_url(server: ChatServer) -> None:
    server.script = ["404"]
    with pytest.raises(CloudError, match="not found") as info:
        client(server).chat(MESSAGES)
    assert "base URL" in info.value.hint


def test_malformed_response_is_a_clear_error(server: ChatServer) -> None:
    server.script = ["malformed"]
    with pytest.raises(CloudError, match="not a valid chat completion"):
        client(server).chat(MESSAGES)


@pytest.mark.parametrize(
    ("action", "option", "text"),
    [("hang", {"timeout": 0.5}, "stalled"), ("endless", {"deadline": 0.6}, "did not finish")],
    ids=["silent", "endless"],
)
def test_a_stream_that_never_ends_is_cut_off(
    server: ChatServer, action: str, option: dict[str, float], text: str
) -> None:
    server.script = [action]
    with pytest.raises(CloudError, match=text):  # the message names which limit cut it off
        list(client(server, **option).stream_chat(MESSAGES))


def test_stream_cut_before_done_is_an_error(server: ChatServer) -> None:
    server.script = ["cut"]
    with pytest.raises(CloudError, match="stopped before it was complete"):
        list(client(server).stream_chat(MESSAGES))


def test_structured_uses_json_schema_when_supported(server: ChatServer) -> None:
    server.reply = '{"facts": ["likes tea", "住在上海"]}'
    cli = client(server)
    assert cli.structured(MESSAGES, SCHEMA) == {"facts": ["likes tea", "住在上海"]}
    assert server.requests[0]["body"]["response_format"]["json_schema"]["schema"] == SCHEMA
    assert cli.json_schema_supported is True


def test_structured_falls_back_to_json_object_and_validates(server: ChatServer) -> None:
    server.reply = '{"facts": ["likes tea"]}'
    server.script = ["no_json_schema"]
    cli = client(server)
    assert cli.structured(MESSAGES, SCHEMA) == {"facts": ["likes tea"]}
    assert server.requests[1]["body"]["response_format"] == {"type": "json_object"}
    assert "JSON schema" in server.requests[1]["body"]["messages"][0]["content"]
    assert cli.json_schema_supported is False


@pytest.mark.parametrize("reply", ['{"facts": "not a list"}', "not json at all", "[1, 2]"])
def test_structured_rejects_answers_that_do_not_validate(server: ChatServer, reply: str) -> None:
    server.reply = reply
    with pytest.raises(CloudError):
        client(server).structured(MESSAGES, SCHEMA)


def test_base_url_must_be_http() -> None:
    with pytest.raises(CloudError, match="not an http"):
        CloudClient("api.example.com", "m", KEY)
