"""`engram models download`: the CLI drives the queue against a mirror set in Settings."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import tiny
from engram.cli.main import main
from engram.cli.models import ProgressPrinter
from engram.core import settings
from engram.models import catalogue, fetching
from hub_server import HubServer
from waiting import wait_until

pytestmark = pytest.mark.network_local  # real HTTP servers on 127.0.0.1


@pytest.fixture
def user_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HubServer]:
    """A one-file model in the user catalogue, served by a local hub mirror."""
    monkeypatch.setenv("ENGRAM_MODELS_DIR", str(tmp_path / "models"))
    catalogue.user_path().write_text(
        'schema_version = 1\n\n[[model]]\nid = "mirror-tiny"\nname = "Mirror tiny"\n'
        'roles = ["small"]\nformat = "gguf"\n\n[model.hf]\nrepo = "me/tiny"\n\n'
        '[[model.files]]\npath = "tiny.gguf"\n',
        encoding="utf-8",
    )
    server = HubServer().start()
    server.add("me/tiny", "tiny.gguf", b"GGUF" + bytes(300_000))
    settings.save(tiny.settings(hf_endpoint=server.url))
    yield server
    server.stop()


def test_cli_download_through_the_mirror_setting(
    user_model: HubServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "download", "mirror-tiny"]) == 0
    captured = capsys.readouterr()
    assert "mirror-tiny: installed in" in captured.out
    assert "0.3/0.3 MB 100%" in captured.err  # plain progress lines: stderr is not a TTY
    assert main(["models", "download", "no-such-model"]) == 2
    assert "Unknown model id" in capsys.readouterr().err


def test_ctrl_c_cancels_and_keeps_the_resumable_partial(
    user_model: HubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    user_model.faults.pause_after.append(100_000)  # then the server goes silent
    # Ctrl+C must reach the child even when the suite was started in the background (a
    # non-interactive shell's "&" ignores SIGINT, and an ignored signal stays ignored in children;
    # a handler does not).
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "engram", "models", "download", "mirror-tiny"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(catalogue.__file__).parents[2])},
        )
    finally:
        signal.signal(signal.SIGINT, ignored)
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()  # the first progress line: the transfer has started
        assert "mirror-tiny:" in first
        wait_until(lambda: _partial(tmp_path).is_file() and _partial(tmp_path).stat().st_size > 0)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err
    assert "run the same command again to resume" in err
    kept = _partial(tmp_path).stat().st_size
    assert 0 < kept <= 100_000

    assert main(["models", "download", "mirror-tiny"]) == 0
    assert user_model.cdn_gets()[-1].range == f"bytes={kept}-"
    assert (tmp_path / "models" / "mirror-tiny" / "tiny.gguf").stat().st_size == 300_004


def _partial(tmp_path: Path) -> Path:
    return tmp_path / "models" / "mirror-tiny" / ".tiny.gguf.part"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_redraws_one_line_on_a_terminal() -> None:
    screen = _Terminal()
    bar = ProgressPrinter(screen, width=10)
    for done in (0, 500_000, 1_000_000):
        bar.update(fetching.Progress("m", "f.gguf", done, 1_000_000, 2e6, (1e6 - done) / 2e6))
    bar.done()
    text = screen.getvalue()
    assert text.count("\r") == 3 and text.endswith("\n") and text.count("\n") == 1
    assert "[#####-----] m: 0.5/1.0 MB  50% 2.00 MB/s 0 s left" in text
    assert "[##########] m: 1.0/1.0 MB 100%" in text
