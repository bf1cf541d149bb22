"""Secrets are never shown or written in any form: an API key a provider echoes and credentials in
the cloud's base URL stay out of what ``engram learn`` prints, the job's stored error and the
log."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.assistant.jobs import JobQueue
from engram.core import paths, settings
from engram.memory import db
from engram.memory.episodes import EpisodeLog
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
