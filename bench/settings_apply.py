"""Benchmark applying settings in the running app: how long until a change is in effect.

Run: ``.venv/bin/python bench/settings_apply.py [--repeat N]`` (offscreen Qt, the starter models,
a temporary ENGRAM_HOME). In one run it opens the main window, then changes settings through the
app's SettingsStore and times, from the change to the moment it is in effect: the pause (applied
to the running session, no reload), a new large model and a new answer budget (the session
reopens), each after a second of quiet. The baseline is what a model change took before the store
existed: closing the window and opening a new one until its model is loaded (a restart without
the interpreter start-up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
os.environ["ENGRAM_HOME"] = tempfile.mkdtemp(prefix="engram-bench-")
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

from engram.core.settings import Settings, SettingsStore  # noqa: E402
from engram.models import starter  # noqa: E402
from engram.ui.main_window import MainWindow  # noqa: E402

LARGE = ("qwen2.5-0.5b-instruct", "smollm2-135m-instruct")  # a missing one, an installed one


def _wait(app: QApplication, done: Callable[[], bool], limit: float = 120.0) -> float:
    """Seconds until ``done()`` while the event loop runs."""
    start = time.perf_counter()
    while not done():
        if time.perf_counter() - start > limit:
            raise TimeoutError("the change never took effect")
        app.processEvents()
        time.sleep(0.001)
    return time.perf_counter() - start


def _settle(app: QApplication, seconds: float = 1.0) -> None:
    """Let the threads a reopened session starts (consolidation) get going first."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.005)


def measure(app: QApplication, repeat: int) -> dict[str, list[float]]:
    store = SettingsStore(Settings(large_model=LARGE[0]))
    window = MainWindow(store)
    _wait(app, lambda: window._ready)
    loads: list[float] = []
    window.worker.loading.connect(lambda: loads.append(time.perf_counter()))
    times: dict[str, list[float]] = {"pause": [], "large model": [], "answer budget": []}

    def session_paused() -> bool:
        session = window.worker._session
        return session is not None and session.settings.memory_paused == store.current.memory_paused

    def reopened(count: int) -> Callable[[], bool]:
        return lambda: len(loads) > count and window._ready

    for i in range(repeat):
        _settle(app)
        before = len(loads)
        store.update(memory_paused=not store.current.memory_paused)
        times["pause"].append(_wait(app, session_paused))
        assert len(loads) == before, "a pause must not reload the models"
        store.update(large_model=LARGE[(i + 1) % 2])
        times["large model"].append(_wait(app, reopened(before)))
        _settle(app)
        store.update(max_answer_tokens=256 + i)
        times["answer budget"].append(_wait(app, reopened(before + 1)))
    window.close()
    times["restart (baseline)"] = []
    for _ in range(repeat):
        _settle(app)
        start = time.perf_counter()
        again = MainWindow(store)
        _wait(app, lambda window=again: window._ready)
        times["restart (baseline)"].append(time.perf_counter() - start)
        again.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    starter.fetch(report=lambda _line: None)
    app = QApplication([sys.argv[0]])
    times = measure(app, args.repeat)
    print(f"{'change':<20} {'median ms':>10} {'max ms':>8}  (n={args.repeat})")
    for name, values in times.items():
        print(f"{name:<20} {statistics.median(values) * 1000:>10.0f} {max(values) * 1000:>8.0f}")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
