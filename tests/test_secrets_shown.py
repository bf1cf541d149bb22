"""Secrets are never shown or written in any form: an API key a provider echoes and credentials in
the cloud's base URL stay out of what ``engram learn`` prints, the job's stored error and the log;
and the files tools never read Engram's own folders."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.assistant.tools import builtins
from engram.assistant.tools.base import ToolContext
from engram.cli.main import main
from engram.core import paths, settings
from engram.memory import db
from engram.memory.episodes import EpisodeLog
from engram.memory.jobs import JobQueue
from openai_server import KEY, running

TESTS = Path(__file__).parent
URL_KEY = "AIzaUrlQueryKey0987"  # a key given in the base URL's query
URL_PASSWORD = "hunter2-in-the-url"  # a password given in the base URL's user part

LEARN = r"""
import sys
sys.path.insert(0, sys.argv[1])
import keyring
from test_secrets import MemoryKeyring
from engram.cli.main import main
from engram.models import secrets

backend = MemoryKeyring()  # the key is in the keyring, as the settings window leaves it
backend.set_password(secrets.SERVICE, secrets.CLOUD_KEY, sys.argv[2])
keyring.set_keyring(backend)
sys.exit(main(["learn"]))
"""


def _learn_with_cloud(base_url: str, home: Path) -> subprocess.CompletedProcess[str]:
    chosen = settings.load()
    cloud = settings.CloudSettings(enabled=True, base_url=base_url, model="test-model")
    settings.save(dataclasses.replace(chosen, cloud=cloud))
    conn = db.connect(paths.database_path())
    chats = EpisodeLog(conn)
    chat = chats.new_conversation("cloud").id
    chats.append(chat, "user", "I water the plants on Sundays.")
    chats.append(chat, "assistant", "Noted.")
    JobQueue(conn).enqueue(chat)
    conn.close()
    return subprocess.run(
        [sys.executable, "-c", LEARN, str(TESTS), KEY],
        capture_output=True,
        text=True,
        env={**os.environ, "ENGRAM_HOME": str(home)},
        timeout=300,
        check=False,
    )


@pytest.mark.slow  # a process that loads the embedder
@pytest.mark.network_local
@pytest.mark.parametrize("form", ["plain", "query", "user"])
def test_learn_shows_and_writes_no_echoed_key_and_no_credentials_of_the_base_url(
    form: str, starter_models: Path, engram_home: Path
) -> None:
    with running() as server:
        server.script = ["refuse_echo"]
        base_url = server.base_url  # the provider refuses, quoting the key and the URL
        if form == "query":
            base_url = f"{server.base_url}?key={URL_KEY}"
        elif form == "user":  # not reachable this way: the error names the URL
            base_url = server.base_url.replace("://", f"://alice:{URL_PASSWORD}@")
        ran = _learn_with_cloud(base_url, engram_home)
    said = ran.stdout + ran.stderr
    assert ran.returncode == 0 and "Traceback" not in said, said
    outcome = next(line for line in ran.stdout.splitlines() if line.startswith("job "))
    assert "[secret]" in outcome, outcome  # the reason is shown, its secrets masked
    written = {p: p.read_bytes() for p in engram_home.rglob("*") if p.is_file()}
    assert any(p.name == "engram.log" for p in written)
    for secret in (KEY, URL_KEY, URL_PASSWORD):
        assert secret not in said, (secret, said)
        for path, data in written.items():
            if path.name != "settings.json":  # the user's own setting, in their own file
                assert secret.encode() not in data, (secret, path)
    conn = db.connect(paths.database_path())
    errors = [e for (e,) in conn.execute("SELECT last_error FROM consolidation_jobs")]
    conn.close()
    assert errors and all(e and "[secret]" in e for e in errors), errors
    assert json.loads(paths.settings_path().read_text())["cloud"]["base_url"] == base_url


def _token_in_settings() -> str:
    """An MCP server's token in settings.json, as `engram tools add-mcp --env` leaves it."""
    token = "tok-settings-5f1e2d3c"
    store = settings.SettingsStore.load()
    server = {"command": "true", "args": [], "env": {"TOKEN": token}}
    store.update(tools=dataclasses.replace(store.current.tools, mcp_servers={"srv": server}))
    return token


def test_engrams_own_folders_and_their_parents_cannot_be_shared(
    engram_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (paths.data_dir() / "backups").mkdir()
    own = [paths.config_dir(), paths.data_dir(), paths.logs_dir(), paths.data_dir() / "backups"]
    for folder in [*own, engram_home, paths.models_dir()]:
        assert main(["tools", "folders", "add", str(folder)]) == 2, folder
        err = capsys.readouterr().err
        assert "Engram's own folder" in err and "Traceback" not in err, err
    assert settings.load().tools.folders == ()


def test_the_files_tools_never_read_engrams_folders_through_a_link_or_a_parent(
    engram_home: Path, tmp_path: Path
) -> None:
    token = _token_in_settings()
    paths.logs_dir()
    notes = tmp_path / "Notes"
    notes.mkdir()
    (notes / "plan.md").write_text("Pack the tent.\n", encoding="utf-8")
    (notes / "config").symlink_to(paths.config_dir())  # a link to Engram's settings
    (notes / "settings.json").symlink_to(paths.settings_path())
    # A parent of Engram's folders, shared by editing settings.json by hand.
    ctx = ToolContext(folders=(notes, engram_home))
    registry = builtins.registry()
    for path in ("Notes/config/settings.json", "Notes/settings.json",
                 "engram-home/config/settings.json", str(paths.settings_path()),
                 "engram-home/data/logs"):  # fmt: skip
        read = registry.call("files_read", {"path": path}, ctx)
        assert read.is_error and token not in read.text, (path, read.text)
        assert "outside the shared folders" in read.text or "Engram" in read.text, read.text
    listed = registry.call("files_list", {"path": "Notes"}, ctx).text
    assert listed == "Notes/plan.md (15 bytes)", listed
    assert "(empty)" in registry.call("files_list", {"path": "engram-home"}, ctx).text
    found = registry.call("files_search", {"query": "TOKEN"}, ctx)
    assert token not in found.text and "No file matches" in found.text, found.text
    assert "Pack the tent." in registry.call("files_read", {"path": "Notes/plan.md"}, ctx).text
