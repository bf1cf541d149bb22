"""``engram tools`` as a user runs it: list, call without a model, MCP servers added and removed,
shared folders; bad input is a clear message with exit code 2, never a traceback."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from engram.core import paths
from test_chat_cli import _engram

SERVER = str(Path(__file__).parent / "mcp_server.py")


@pytest.mark.slow
def test_list_and_call_the_builtins(engram_home: Path) -> None:
    listed = _engram("tools", "list", env_home=engram_home)
    assert listed.returncode == 0, listed.stderr
    assert "calculator" in listed.stdout and "built-in" in listed.stdout
    assert "files_read" in listed.stdout and "permission: ask" in listed.stdout
    called = _engram(
        "tools", "call", "calculator", '{"expression": "0.1 + 0.2"}', env_home=engram_home
    )
    assert (called.returncode, called.stdout.strip()) == (0, "0.1 + 0.2 = 0.3")
    bad = _engram("tools", "call", "calculator", "{expression: 1}", env_home=engram_home)
    assert bad.returncode == 2 and "not JSON" in bad.stderr and "Traceback" not in bad.stderr
    wrong = _engram("tools", "call", "calculator", '{"expression": 5}', env_home=engram_home)
    assert wrong.returncode == 1 and "expected string" in wrong.stdout


@pytest.mark.slow
def test_an_mcp_server_is_added_listed_called_and_removed(engram_home: Path) -> None:
    added = _engram("tools", "add-mcp", "demo", "--", sys.executable, SERVER, env_home=engram_home)
    assert added.returncode == 0, added.stderr
    settings = json.loads(paths.settings_path().read_text(encoding="utf-8"))
    assert settings["tools"]["mcp_servers"]["demo"]["args"] == [SERVER]
    listed = _engram("tools", "list", env_home=engram_home)
    assert "echo" in listed.stdout and "demo" in listed.stdout, listed.stderr
    called = _engram("tools", "call", "echo", '{"text": "hi"}', env_home=engram_home)
    assert called.stdout.strip() == "echo: hi", called.stderr
    removed = _engram("tools", "remove", "demo", env_home=engram_home)
    assert removed.returncode == 0
    again = _engram("tools", "remove", "demo", env_home=engram_home)
    assert again.returncode == 2 and "no MCP server named 'demo'" in again.stderr


@pytest.mark.slow
def test_shared_folders_scope_the_files_tools(engram_home: Path, tmp_path: Path) -> None:
    notes = tmp_path / "Notes"
    notes.mkdir()
    (notes / "plan.md").write_text("Pack the tent.\n", encoding="utf-8")
    (tmp_path / "private.txt").write_text("secret\n", encoding="utf-8")
    assert _engram("tools", "folders", "add", str(notes), env_home=engram_home).returncode == 0
    read = _engram("tools", "call", "files_read", '{"path": "Notes/plan.md"}', env_home=engram_home)
    assert "Pack the tent." in read.stdout, read.stderr
    escape = _engram(
        "tools", "call", "files_read", '{"path": "Notes/../private.txt"}', env_home=engram_home
    )
    assert escape.returncode == 1 and "secret" not in escape.stdout
    missing = _engram("tools", "folders", "add", str(tmp_path / "nope"), env_home=engram_home)
    assert missing.returncode == 2 and "is not a folder" in missing.stderr


def test_the_terminal_asks_until_it_gets_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from engram.assistant.events import ToolCalled, ToolResult
    from engram.assistant.tools.permissions import ALWAYS, DENY, Question
    from engram.cli import tools as tools_cli
    from engram.core.cancel import CancelToken

    monkeypatch.setattr(sys, "stdin", io.StringIO("maybe\nA\n\no\n"))
    question = Question("files_read", "built-in", {"path": "Notes/a.md"})
    stop = CancelToken()
    assert tools_cli.ask(question, stop) == ALWAYS
    assert tools_cli.ask(question, stop) == DENY  # no answer: deny
    stop.cancel()  # Ctrl+C while asked: the answer stops, and the tool does not run
    assert tools_cli.ask(question, stop) == DENY
    called = tools_cli.line(ToolCalled(1, "calculator", {"expression": "2+2"}))
    assert called == '[tool 1] calculator {"expression": "2+2"}'
    result = tools_cli.line(ToolResult(1, "calculator", "2+2 = 4", False, 0.0123))
    assert result == "[tool 1] ok in 12 ms: 2+2 = 4"


def test_permission_choices_are_saved_in_the_settings_and_revocable(engram_home: Path) -> None:
    from engram.assistant.tools import files, permissions
    from engram.assistant.tools.permissions import ALWAYS, Permissions
    from engram.core import settings

    store = settings.SettingsStore.load()
    permissions = Permissions(ask=lambda _question: ALWAYS, on_change=permissions.saving_to(store))
    assert permissions.allowed(files.READ, {"path": "x"})
    assert settings.load().tools.permissions == {"files_read": ALWAYS}
    listed = _engram("tools", "list", env_home=engram_home)
    assert "permission: always" in listed.stdout
    assert _engram("tools", "forget", "files_read", env_home=engram_home).returncode == 0
    assert settings.load().tools.permissions == {}


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from engram.cli.main import main

    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _servers() -> dict[str, Any]:
    settings = json.loads(paths.settings_path().read_text(encoding="utf-8"))
    return dict(settings["tools"]["mcp_servers"])


def test_add_mcp_takes_the_url_after_the_name_and_refuses_clashes(
    engram_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "http://127.0.0.1:8000/mcp"
    assert _run(capsys, "tools", "add-mcp", "web", "--url", url)[0] == 0
    assert _servers()["web"] == {"url": url}
    code, _out, err = _run(capsys, "tools", "add-mcp", "web", f"--url={url}x")
    assert code == 2 and "already an MCP server named 'web'" in err and "--replace" in err
    assert _run(capsys, "tools", "add-mcp", "web", f"--url={url}x", "--replace")[0] == 0
    assert _servers()["web"] == {"url": url + "x"}
    assert _run(capsys, "tools", "add-mcp", "local", "--", sys.executable, "-u", SERVER)[0] == 0
    assert _servers()["local"]["command"] == sys.executable
    assert _servers()["local"]["args"] == ["-u", SERVER]
    for name in ("we ird/..", "../x", ""):
        code, _out, err = _run(capsys, "tools", "add-mcp", name, "--url", url)
        assert code == 2 and "not a usable server name" in err
    code, _out, err = _run(capsys, "tools", "add-mcp", "ftp", "--url", "ftp://host/x")
    assert code == 2 and "http://" in err
    assert set(_servers()) == {"web", "local"}


def test_unknown_and_disabled_tools_and_unsafe_folders_are_refused(
    engram_home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for verb in ("enable", "disable", "forget"):
        code, _out, err = _run(capsys, "tools", verb, "nosuch")
        assert code == 2 and "no tool named 'nosuch'" in err
    assert _run(capsys, "tools", "disable", "calculator")[0] == 0
    code, out, err = _run(capsys, "tools", "call", "calculator", '{"expression": "1+1"}')
    assert code == 2 and "turned off" in err and "= 2" not in out
    assert _run(capsys, "tools", "enable", "calculator")[0] == 0
    assert _run(capsys, "tools", "call", "calculator", '{"expression": "1+1"}')[1] == "1+1 = 2\n"
    code, _out, err = _run(capsys, "tools", "folders", "add", "/")
    assert code == 2 and "whole filesystem" in err
    code, _out, err = _run(capsys, "tools", "folders", "add", str(engram_home.parent))
    assert code == 2 and "holds Engram's own folder" in err
    notes = tmp_path / "Notes"
    notes.mkdir()
    (notes / "short.txt").write_text("thirteen char", encoding="utf-8")
    assert _run(capsys, "tools", "folders", "add", str(notes))[0] == 0
    assert _run(capsys, "tools", "folders", "list")[1] == f"{notes.resolve()}\n"
    code, out, _err = _run(capsys, "tools", "call", "files_read", '{"path": "Notes/short.txt"}')
    assert code == 0 and "(characters 0–13 of 13)" in out


def test_add_mcp_takes_its_options_before_or_after_the_name(
    engram_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = ["--env", "TOKEN=t1", "--env", "MODE=a=b"]
    for name, args in (
        ("after", ["after", *env, "--", sys.executable, "-u", SERVER]),
        ("before", [*env, "before", "--", sys.executable, "-u", SERVER]),
        ("bare", ["bare", *env, sys.executable, SERVER]),  # no "--": no option in the command
    ):
        code, out, err = _run(capsys, "tools", "add-mcp", *args)
        assert code == 0 and f"added MCP server {name}" in out, err
        server = _servers()[name]
        assert server["command"] == sys.executable and server["args"][-1] == SERVER
        assert server["env"] == {"TOKEN": "t1", "MODE": "a=b"}
    code, _out, err = _run(capsys, "tools", "add-mcp", "late", "--", "node", "--env", "X=1")
    assert code == 0 and _servers()["late"]["args"] == ["--env", "X=1"], err  # the command's own
