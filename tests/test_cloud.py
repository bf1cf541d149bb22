"""The OpenAI-compatible cloud client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import tiny
from engram.core.errors import CloudError
from engram.models.cloud import CloudClient, ServedModel, destination, is_own_server
from openai_server import KEY, ChatServer, running

pytestmark = pytest.mark.network_local  # real HTTP servers on 127.0.0.1

MESSAGES = [{"role": "user", "content": "你好, hello"}]
SCHEMA = {
    "type": "object",
    # Bounded, so the tiny model behind the local server cannot run past max_tokens listing.
    "properties": {"facts": {"type": "array", "maxItems": 2, "items": {"type": "string"}}},
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
@pytest.mark.slow
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
    # The server is on loopback, so the schema rides along for llama.cpp to constrain the answer.
    assert server.requests[1]["body"]["response_format"] == {
        "type": "json_object",
        "schema": SCHEMA,
    }
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


def test_a_reasoning_prefix_is_not_part_of_the_answer(server: ChatServer) -> None:
    server.reply = "<think>\nweigh it\n</think>\n\nThe answer."
    assert client(server).chat(MESSAGES) == "The answer."


@pytest.mark.parametrize(
    ("url", "own"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://192.168.1.20:1234/v1", True),
        ("http://10.0.0.5/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://desktop.local:8000/v1", True),
        ("http://gpu-box:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
    ],
)
def test_the_users_own_server_is_told_apart_from_a_cloud_service(url: str, own: bool) -> None:
    assert is_own_server(url) is own
    where = str(destination(url))
    assert where.startswith("your server" if own else "the cloud service")


def test_without_a_key_no_authorization_header_is_sent(server: ChatServer) -> None:
    with pytest.raises(CloudError, match="401"):  # this test server wants a key
        client(server, key="").chat(MESSAGES)
    assert "Authorization" not in server.requests[-1]["headers"]


# --- llama-cpp-python's own OpenAI-compatible server, with the starter model -----------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(starter_models: Path) -> Iterator[str]:
    """``python -m llama_cpp.server`` on 127.0.0.1 serving the starter model as "starter"."""
    pytest.importorskip("llama_cpp.server.app", reason="needs llama-cpp-python[server]")
    port = _free_port()
    model = starter_models / "smollm2-135m-instruct" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias",
        "starter", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
        "--n_threads", "2", "--verbose", "False",
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(600):
            if process.poll() is not None:
                pytest.fail(f"the server exited: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                CloudClient(base, "starter", timeout=1.0).list_models()
                break
            except CloudError:
                threading.Event().wait(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(30)
        process.stderr.close()  # type: ignore[union-attr]


@pytest.mark.slow
def test_a_local_server_needs_no_key_lists_its_models_and_answers(llama_server: str) -> None:
    served = CloudClient(llama_server, "starter")  # no key
    assert served.list_models() == ["starter"]
    assert served.chat(MESSAGES, max_tokens=8).strip()
    reply = served.structured(MESSAGES, SCHEMA, max_tokens=256)
    assert isinstance(reply["facts"], list)


@pytest.mark.slow
def test_a_local_server_distills_and_answers_turns(llama_server: str, starter_models: Path) -> None:
    from engram.assistant.events import Finished, Token
    from engram.assistant.learning import distiller_backends
    from engram.assistant.session import open_session
    from engram.core.settings import CloudSettings

    prefs = tiny.settings(cloud=CloudSettings(enabled=True, base_url=llama_server, model="starter"))
    source = distiller_backends.from_settings(prefs, None, lambda: None)  # no key stored
    assert isinstance(source, distiller_backends.CloudDistiller)
    facts = source.acquire(lambda: False).structured(MESSAGES, SCHEMA, max_tokens=256)
    assert isinstance(facts["facts"], list)

    session = open_session(tiny.settings(max_answer_tokens=16))
    try:
        served = ServedModel(llama_server, "starter", n_ctx=2048)
        events = list(session.assistant.turn(0, "Hello there!", escalate_to=served))  # type: ignore[arg-type]
        assert any(isinstance(e, Token) for e in events)
        finished = next(e for e in events if isinstance(e, Finished))
        stored = session.assistant.log.episodes(events[0].conversation_id)  # type: ignore[union-attr]
        assert stored[-1].content == finished.text and stored[-1].model == "large"
    finally:
        session.close()
