"""UI benchmark: cold start to a visible window, event-loop stalls under load, memory browser.

Run: ``.venv/bin/python bench/ui.py [--quick] [--starts N] [--stops N] [--parts stall,stop]
[--model ID]`` (offscreen Qt; all four parts unless ``--parts`` names some, each printed once
measured). Against a temporary ENGRAM_HOME with the starter models (``--model`` answers with
another installed chat model, e.g. the real ``qwen2.5-coder-0.5b-instruct``): (1) seconds
from before importing Qt and the app to the first event processed after the main window's
``show()``, in fresh processes, against a bare
``QMainWindow``; (2) the longest gap of a 5 ms heartbeat timer while an answer streams, a
consolidation job runs and a download from a local HTTP server is in flight, against the same
heartbeat with nothing running and against the same load with llama-cpp-python's own KV-state
snapshots instead of ``engram.models.compact_llama``'s (what Engram did before), with the UI
thread's own CPU time in the gaps (what the window itself did, apart from waiting for a core);
(3) the memory browser over 100k memories (10k with ``--quick``): time to open and to apply a
kind filter;
(4) Stop during a streaming answer: from the click to the window idle again, against the model's
own cancel (flag to the end of its stream).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "desktop"))
sys.path.insert(0, str(REPO / "tests"))  # hub_server, the local stand-in for the hub
os.environ.setdefault("ENGRAM_MODELS_DIR", str(REPO / ".cache" / "models"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
STARTER = ("smollm2-135m-instruct", "all-minilm-l6-v2-int8")
TARGETS = {"start": 1.5, "stall": 50.0, "open": 1.0, "filter": 100.0, "stop": 0.5}


# -- (1) cold start, run in a fresh interpreter ------------------------------------------------


def child_start(kind: str) -> int:
    """Print the seconds from here to the first event after ``show()`` (and to models loaded)."""
    t0 = time.perf_counter()
    from PySide6.QtCore import QObject, QTimer, Slot
    from PySide6.QtWidgets import QApplication, QMainWindow

    out: dict[str, float] = {}
    app = QApplication([sys.argv[0]])

    class Probe(QObject):
        """Lives on the UI thread, so the worker's signals reach it queued."""

        window: QMainWindow | None = None

        @Slot(str, object)
        def loaded(self, *_: object) -> None:
            out["loaded"] = time.perf_counter() - t0
            if self.window is not None:
                self.window.close()

        @Slot(object)
        def failed(self, problem: Any) -> None:  # engram.core.errors.Problem
            print(problem.message, file=sys.stderr)
            if self.window is not None:
                self.window.close()

    probe = Probe()

    def shown() -> None:
        out["shown"] = time.perf_counter() - t0
        out["shown_epoch"] = time.time()
        probe.window = next(w for w in app.topLevelWidgets() if isinstance(w, QMainWindow))
        if kind == "bare":
            probe.window.close()
            return
        worker = probe.window.worker  # type: ignore[attr-defined]
        worker.loaded.connect(probe.loaded)
        worker.load_failed.connect(probe.failed)

    QTimer.singleShot(0, shown)
    if kind == "bare":
        bare = QMainWindow()
        bare.resize(900, 700)
        bare.show()
        app.exec()
    else:
        from engram.ui import app as engram_app

        engram_app.run(["--quit-after", "60000"])
    print(json.dumps(out))
    return 0


def cold_starts(kind: str, count: int) -> dict[str, list[float]]:
    runs: dict[str, list[float]] = {}
    for _ in range(count):
        spawned = time.time()
        done = subprocess.run(
            [sys.executable, __file__, "--child", kind],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result["process"] = result.pop("shown_epoch") - spawned
        for key, value in result.items():
            runs.setdefault(key, []).append(value)
    return runs


# -- helpers for the in-process parts -----------------------------------------------------------


def wait(until: Callable[[], bool], timeout: float) -> bool:
    """Run the Qt event loop until ``until()`` is true or ``timeout`` seconds pass."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    deadline = time.perf_counter() + timeout
    check = QTimer()
    check.setInterval(10)

    def poll() -> None:
        if until() or time.perf_counter() > deadline:
            loop.quit()

    check.timeout.connect(poll)
    check.start()
    if not until():
        loop.exec()
    check.stop()
    return until()


def settle() -> float:
    """Seconds until the event loop has processed what is queued now (paint included)."""
    from PySide6.QtCore import QTimer

    start = time.perf_counter()
    done: list[float] = []
    QTimer.singleShot(0, lambda: done.append(time.perf_counter() - start))
    wait(lambda: bool(done), 30)
    return done[0]


def open_window(prefs: Any, listener: Any) -> Any:
    """A shown main window, models loaded, whose worker reports to ``listener``'s slots
    (``on_loaded``, ``on_event``, ``on_busy`` and, when it has one, ``on_learning``)."""
    from engram.ui.main_window import MainWindow

    window = MainWindow(prefs)
    window.worker.loaded.connect(listener.on_loaded)
    window.worker.turn_event.connect(listener.on_event)
    window.worker.busy_changed.connect(listener.on_busy)
    if hasattr(listener, "on_learning"):
        window.worker.learning_status.connect(listener.on_learning)
    window.show()
    if not wait(lambda: listener.loaded, 120):
        raise RuntimeError("the models did not load")
    return window


class Heartbeat:
    """A 5 ms precise timer; the gaps between its ticks show how long the loop stalled."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.gaps: list[float] = []
        self.cpu: list[float] = []  # the UI thread's own CPU time in each gap
        self._last = 0.0
        self._last_cpu = 0.0

    def start(self) -> None:
        self.gaps.clear()
        self.cpu.clear()
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self.timer.start()

    def stop(self) -> dict[str, float]:
        self.timer.stop()
        ms = sorted(g * 1000 for g in self.gaps)
        worst = max(range(len(self.gaps)), key=self.gaps.__getitem__)
        at = sum(self.gaps[: worst + 1])  # seconds from start() to the end of the longest gap
        return {
            "max": ms[-1],
            "p99": ms[int(0.99 * (len(ms) - 1))],
            "ticks": len(ms),
            "at": at,
            "cpu": self.cpu[worst] * 1000,  # the UI's own work in the longest gap (ms)
            "cpu_max": max(self.cpu) * 1000,  # its most in any gap
        }

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.gaps.append(now - self._last)
        self.cpu.append(cpu - self._last_cpu)
        self._last, self._last_cpu = now, cpu


# -- (2) event-loop stalls under load -----------------------------------------------------------

STORY = "Tell me a long story about a lighthouse keeper and the sea, with many details."


def seed_conversation() -> int:
    """An earlier chat the consolidation job will distill."""
    from engram.core import paths
    from engram.memory import db
    from engram.memory.episodes import EpisodeLog

    conn = db.connect(paths.database_path())
    log = EpisodeLog(conn)
    conversation = log.new_conversation("Family").id
    lines = [
        ("user", "My sister Anna moved to Lisbon last spring and teaches piano there."),
        ("assistant", "That sounds lovely. Does she enjoy living in Lisbon?"),
        ("user", "Yes, and I am allergic to peanuts, so I avoid Portuguese sweets with them."),
        ("assistant", "Good to know; I will keep your peanut allergy in mind."),
        ("user", "我每周三晚上去游泳，我女儿叫小雨。"),
        ("assistant", "好的，我记住了。"),
    ]
    for role, text in lines:
        log.append(conversation, role, text)
    conn.close()
    return conversation


def under_load(prefs: Any, seconds_idle: float) -> dict[str, Any]:
    """Heartbeat gaps idle, then while an answer streams, consolidation runs and a download runs."""
    from PySide6.QtCore import QObject, QThread, Signal, Slot

    from engram.core import paths
    from engram.models.catalogue import ModelEntry, ModelFile
    from engram.models.download import Options
    from engram.ui.download_worker import DownloadWorker
    from hub_server import HubServer

    class Recorder(QObject):
        """Receives the workers' signals on the UI thread."""

        stop_downloads = Signal()

        def __init__(self) -> None:
            super().__init__()
            self.events: list[str] = []
            self.first: dict[str, float] = {}  # event name -> perf_counter of its first arrival
            self.busy: list[bool] = []
            self.learning: list[str] = []
            self.downloaded = 0
            self.loaded = False

        @Slot(object)
        def on_event(self, event: object) -> None:
            self.events.append(type(event).__name__)
            self.first.setdefault(type(event).__name__, time.perf_counter())

        @Slot(bool)
        def on_busy(self, busy: bool) -> None:
            self.busy.append(busy)

        @Slot(object)
        def on_learning(self, status: Any) -> None:
            self.learning.append(status.state)

        @Slot(str, object)
        def on_loaded(self, *_: object) -> None:
            self.loaded = True

        @Slot(str, str, object)
        def on_download(self, model_id: str, state: str, *_: object) -> None:
            if state == "done":
                self.downloaded += 1
                if self.next_download is not None:
                    self.next_download()

        next_download: Callable[[], None] | None = None

    beat = Heartbeat()
    beat.start()
    wait(lambda: False, seconds_idle)
    idle = beat.stop()

    conversation = seed_conversation()
    rec = Recorder()
    window = open_window(prefs, rec)

    hub = HubServer(lifetime=600).start()
    blob = bytes(256 << 20)
    hub.add("bench/blob", "blob.bin", blob)
    thread = QThread()
    downloads = DownloadWorker(
        Options.from_settings(type(prefs)(hf_endpoint=hub.url + "/"), retries=1, timeout=30)
    )
    downloads.moveToThread(thread)
    downloads.finished.connect(rec.on_download)
    rec.stop_downloads.connect(downloads.shutdown)
    thread.start()
    count = iter(range(1000))

    def download() -> None:
        entry = ModelEntry(
            id=f"bench-blob-{next(count)}",
            name="blob",
            roles=("small",),
            format="gguf",
            files=(ModelFile(path="blob.bin"),),
            hf_repo="bench/blob",
        )
        downloads.download(entry)

    rec.next_download = download
    window.remember_requested.emit(conversation)  # queues a consolidation job
    download()
    wait(lambda: "distilling" in rec.learning, 60)
    beat.start()
    started = time.perf_counter()
    window.submit(STORY)
    wait(lambda: rec.busy[-2:] == [True, False], 300)
    busy = beat.stop()
    elapsed = time.perf_counter() - started
    rec.next_download = None
    learning = list(rec.learning)
    window.close()
    rec.stop_downloads.emit()
    thread.quit()
    thread.wait()
    hub.stop()
    for folder in paths.models_dir().glob("bench-blob-*"):
        for file in folder.iterdir():
            file.unlink()
        folder.rmdir()
    return {
        "idle": idle,
        "busy": busy,
        "seconds": elapsed,
        "tokens": rec.events.count("Token"),
        "downloads": rec.downloaded,
        "distilling": "distilling" in learning,
        "marks": {name: at - started for name, at in rec.first.items()},
    }


# -- (3) the memory browser ---------------------------------------------------------------------


def browser(prefs: Any, opens: int) -> dict[str, list[float]]:
    from engram.ui.memory_browser import MemoryBrowser

    out: dict[str, list[float]] = {"open": [], "filter": [], "rows": []}
    for _ in range(opens):
        start = time.perf_counter()
        window = MemoryBrowser(prefs)
        window.show()
        settle()
        out["open"].append(time.perf_counter() - start)
        for index in range(1, window.kind.count()):
            start = time.perf_counter()
            window.kind.setCurrentIndex(index)
            settle()
            out["filter"].append((time.perf_counter() - start) * 1000)
            out["rows"].append(window.model.rowCount())
        window.close()
    return out


# -- (4) Stop -----------------------------------------------------------------------------------


def stop_latency(prefs: Any, stops: int) -> dict[str, list[float]]:
    """Seconds from a click on Stop to the window idle again (``busy_changed(False)`` arrived),
    against the model alone: from its cancel flag to the end of ``LocalModel.stream_chat``, on
    the same model file, story and threads."""
    import dataclasses

    from PySide6.QtCore import QObject, Slot

    from engram.models import roles
    from runtime import cancel_latency

    class Watch(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.tokens = 0
            self.busy = False
            self.idle_at = 0.0
            self.loaded = False

        @Slot(object)
        def on_event(self, event: object) -> None:
            self.tokens += type(event).__name__ == "Token"

        @Slot(bool)
        def on_busy(self, busy: bool) -> None:
            self.busy = busy
            self.idle_at = 0.0 if busy else time.perf_counter()

        @Slot(str, object)
        def on_loaded(self, *_: object) -> None:
            self.loaded = True

    long = dataclasses.replace(prefs, max_answer_tokens=3000)
    out: dict[str, list[float]] = {"window": [], "model": []}
    watch = Watch()
    window = open_window(long, watch)
    for _ in range(stops):
        if not wait(lambda: not window._busy, 30):
            raise RuntimeError("the window stayed busy")
        watch.tokens = 0
        window.submit(STORY)
        if not wait(lambda: watch.busy and watch.tokens >= 5, 120):
            raise RuntimeError("no answer streamed")
        clicked = time.perf_counter()
        window.stop_button.click()
        if not wait(lambda: not watch.busy, 30):
            raise RuntimeError("Stop did not end the answer")
        out["window"].append(watch.idle_at - clicked)
    window.close()
    model = roles.load_local(long, "small")
    for _ in range(stops):
        out["model"].append(cancel_latency(model, [{"role": "user", "content": STORY}], after=5))
    model.close()
    return out


# -- the run ------------------------------------------------------------------------------------


def link_models(home: Path, answering: str) -> None:
    """A private models folder holding links to the starter models, the default embedder and the
    answering model (downloads land there)."""
    from engram.core.settings import Settings

    source = Path(os.environ["ENGRAM_MODELS_DIR"])
    models = home / "models"
    models.mkdir()
    for model_id in dict.fromkeys([*STARTER, Settings().embedding_model, answering]):
        (models / model_id).symlink_to(source / model_id, target_is_directory=True)
    os.environ["ENGRAM_MODELS_DIR"] = str(models)


def med(values: list[float]) -> float:
    return statistics.median(values)


def row(label: str, *values: float | str, fmt: str = ".3f") -> None:
    cells = " ".join(f"{v:>8}" if isinstance(v, str) else f"{v:>8{fmt}}" for v in values)
    print(f"{label:>28} {cells}")


def report_starts(starts: dict[str, dict[str, list[float]]]) -> None:
    ours, bare = starts["engram"], starts["bare"]
    print("\n(1) cold start, median of fresh processes (s)")
    row("", "engram", "bare Qt")
    row("imports -> window shown", med(ours["shown"]), med(bare["shown"]))
    row("process spawn -> shown", med(ours["process"]), med(bare["process"]))
    row("imports -> models loaded", med(ours["loaded"]), "")
    start = med(ours["shown"])
    print(f"  start: engram / bare Qt = {start / med(bare['shown']):.2f}x")
    print(f"  start: engram / target ({TARGETS['start']} s) = {start / TARGETS['start']:.2f}")


def report_stalls(load: dict[str, Any]) -> None:
    idle, busy, upstream = load["idle"], load["busy"], load["upstream"]["busy"]
    print("\n(2) 5 ms heartbeat gaps (ms)")
    row("", "max", "p99", "ticks")
    row("nothing running", idle["max"], idle["p99"], str(idle["ticks"]), fmt=".1f")
    row(
        "same, upstream snapshots",
        upstream["max"],
        upstream["p99"],
        str(upstream["ticks"]),
        fmt=".1f",
    )
    row("answer+learning+download", busy["max"], busy["p99"], str(busy["ticks"]), fmt=".1f")
    print(
        f"  during {load['seconds']:.1f} s: {load['tokens']} tokens streamed, "
        f"{load['downloads']} downloads of 256 MB finished, consolidation distilling: "
        f"{load['distilling']}"
    )
    marks = ", ".join(
        f"{name} {at:.2f} s" for name, at in sorted(load["marks"].items(), key=lambda kv: kv[1])
    )
    print(f"  longest gap ended {busy['at']:.2f} s after Send; first events: {marks}")
    print(
        f"  UI thread's own CPU time: {busy['cpu']:.1f} ms in the longest gap, at most "
        f"{busy['cpu_max']:.1f} ms in any gap (the rest of a gap is waiting for a core)"
    )
    print(f"  stall: busy / idle = {busy['max'] / idle['max']:.2f}x")
    print(f"  stall: busy / busy with upstream snapshots = {busy['max'] / upstream['max']:.2f}x")
    print(f"  stall: busy / target ({TARGETS['stall']} ms) = {busy['max'] / TARGETS['stall']:.2f}")


def report_browser(browse: dict[str, list[float]], memories: int) -> None:
    print(f"\n(3) memory browser over {memories:,} memories")
    row("", "median", "max")
    row("open (s)", med(browse["open"]), max(browse["open"]))
    row("kind filter (ms)", med(browse["filter"]), max(browse["filter"]), fmt=".1f")
    row("rows shown after a filter", min(browse["rows"]), max(browse["rows"]), fmt=".0f")
    print(f"  browser open (worst) / target = {max(browse['open']) / TARGETS['open']:.2f}")
    print(f"  kind filter (worst) / target = {max(browse['filter']) / TARGETS['filter']:.2f}")


def report_stops(stops: dict[str, list[float]]) -> None:
    print(f"\n(4) Stop during a streaming answer, {len(stops['window'])} stops (ms)")
    row("", "median", "max")
    for label, key in (("window: click -> idle", "window"), ("model: flag -> end", "model")):
        row(label, med(stops[key]) * 1000, max(stops[key]) * 1000, fmt=".1f")
    print(f"  stop: window / model alone = {med(stops['window']) / med(stops['model']):.2f}x")
    print(f"  stop (worst) / target = {max(stops['window']) / TARGETS['stop']:.2f}")


PARTS = ("start", "stall", "browser", "stop")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10k memories instead of 100k")
    parser.add_argument("--starts", type=int, default=5, help="cold starts of each kind")
    parser.add_argument("--stops", type=int, default=5, help="Stop clicks during an answer")
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"which parts, comma-separated: {','.join(PARTS)}"
    )
    parser.add_argument(
        "--model", default=STARTER[0], help="the installed chat model that answers (catalogue id)"
    )
    parser.add_argument("--child", choices=("engram", "bare"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child_start(args.child)
    parts = set(args.parts.split(","))
    if not parts <= set(PARTS):
        parser.error(f"unknown parts: {', '.join(sorted(parts - set(PARTS)))}")
    from engram.core import paths, settings
    from turn import build_store, temp_home

    memories = 10_000 if args.quick else 100_000
    with temp_home() as home:  # each part's numbers are printed as soon as it is measured
        link_models(home, args.model)
        prefs = settings.Settings(
            language="en", max_answer_tokens=256, learn_with_small_models=True
        ).choosing(small=args.model)
        print(f"answering model: {args.model}", flush=True)
        settings.save(prefs)
        build_store(paths.database_path(), memories)
        print(f"built {memories:,} memories", flush=True)
        if "start" in parts:
            starts: dict[str, dict[str, list[float]]] = {"engram": {}, "bare": {}}
            for _ in range(args.starts):
                for kind in ("engram", "bare"):
                    for key, values in cold_starts(kind, 1).items():
                        starts[kind].setdefault(key, []).extend(values)
            report_starts(starts)
        import llama_cpp
        from PySide6.QtWidgets import QApplication

        from engram.models.compact_llama import CompactLlama

        app = QApplication([sys.argv[0]])
        if "stall" in parts:
            ours = CompactLlama.save_state
            CompactLlama.save_state = llama_cpp.Llama.save_state  # type: ignore[method-assign]
            upstream = under_load(prefs, seconds_idle=1.0)
            CompactLlama.save_state = ours  # type: ignore[method-assign]
            load = under_load(prefs, seconds_idle=5.0)
            load["upstream"] = upstream
            report_stalls(load)
        if "browser" in parts:
            report_browser(browser(prefs, opens=3), memories)
        if "stop" in parts:
            report_stops(stop_latency(prefs, args.stops))
        app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
