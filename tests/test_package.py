"""The packaged app (installer/build.sh) runs with no Python and a clean environment.

Building takes minutes of CPU, so the test runs the binary that ``installer/build.sh`` left in
``dist/engram`` and skips, saying how to build it, when there is none.
"""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import pytest

from engram import __version__

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "dist" / "engram"
BINARY = APP / "engram"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not BINARY.exists(), reason="run installer/build.sh to build the app"),
]


def _run(args: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    # env -i: no PATH, no PYTHONPATH, no virtual environment; only what is named here.
    command = ["env", "-i", *(f"{k}={v}" for k, v in env.items()), str(BINARY), *args]
    return subprocess.run(
        command, check=False, input=stdin, capture_output=True, text=True, timeout=240
    )


def test_the_bundle_holds_the_native_parts_and_resources_but_no_models() -> None:
    inside = APP / "_internal"
    assert list((inside / "llama_cpp" / "lib").glob("libllama.*"))
    assert list((inside / "sqlite_vec").glob("vec0.*"))
    assert list((inside / "onnxruntime" / "capi").glob("onnxruntime_pybind11_state*"))
    platforms = inside / "PySide6" / "Qt" / "plugins" / "platforms"
    assert {"libqoffscreen.so", "libqxcb.so"} <= {p.name for p in platforms.iterdir()}
    assert (inside / "models.toml").is_file()
    assert (inside / "engram" / "resources" / "prompts" / "system_en.txt").is_file()
    assert list((inside / "engram" / "resources" / "translations").glob("*.qm"))
    assert not list(APP.rglob("*.gguf")) and not list(APP.rglob("model.onnx"))
    desktop = APP / "share" / "applications" / "engram.desktop"
    assert "Exec=engram" in desktop.read_text(encoding="utf-8")
    sizes = {p.parent.parent.name for p in (APP / "share" / "icons" / "hicolor").rglob("*.png")}
    assert {"16x16", "48x48", "256x256"} <= sizes
    tarballs = sorted((ROOT / "dist").glob(f"engram-{__version__}-linux-*.tar.gz"))
    assert tarballs
    with tarfile.open(tarballs[-1]) as archive:
        assert "engram/install.sh" in archive.getnames()


def test_the_binary_answers_version_chats_and_opens_the_window(
    starter_models: Path, tmp_path: Path
) -> None:
    env = {"ENGRAM_HOME": str(tmp_path / "home"), "ENGRAM_MODELS_DIR": str(starter_models)}
    version = _run(["--version"], env)
    assert version.returncode == 0 and version.stdout.strip() == f"engram {__version__}"

    chat = _run(["chat"], env, stdin="Hello! Say one short sentence.\n")
    assert chat.returncode == 0, chat.stderr[-2000:]
    assert chat.stdout.strip() and "Traceback" not in chat.stderr

    window = _run(["gui", "--quit-after", "1500"], {**env, "QT_QPA_PLATFORM": "offscreen"})
    assert window.returncode == 0, window.stderr[-2000:]
    assert "Traceback" not in window.stderr
    # The chat above was stored in the app's own database, under ENGRAM_HOME.
    assert list((tmp_path / "home").rglob("*.sqlite3"))
