"""Running the bundled quality check (:mod:`engram.models.quality`) on the answering models.

Each model answers the check's chats in a child process of its own, in a temporary data folder
(``ENGRAM_HOME``; the models folder is the real one), through the same application and turn as
the window: memories kept with ``/remember``, the earlier messages of a chat sent and answered,
tools called through the real tool path. A child keeps the user's data folder untouched, and the
window's model and event loop never wait on it. The parent scores nothing itself: the child
sends back each item's verdict and the decode speed, the parent keeps the result per machine
state (:func:`engram.models.quality.keep`) so a machine checks each model once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

from engram.assistant.app import Engram
from engram.assistant.events import Finished, ToolCalled, TurnStarted
from engram.core import log, paths, priority
from engram.core.cancel import CancelToken
from engram.core.errors import EngramError, Problem, tr
from engram.core.settings import Settings, SettingsStore
from engram.models import catalogue, hardware, quality, speed
from engram.models.catalogue import ModelEntry

_log = log.get("assistant.quality_check")
CHILD = ("models", "check", "--child")  # the terminal command a child runs (cli.models)
# Long enough for five bullets or a short answer with a tool's result; the check's answers are
# short by design, and every token of the slower model counts twice on a 2-core machine.
MAX_ANSWER_TOKENS = 96
TIMEOUT_S = 900.0
LANGUAGES = {"en": "en", "zh": "zh_CN"}
Progress = Callable[[str, int, int], None]  # model id, items done, items


class CheckFailedError(EngramError):
    """A model's check could not run (it failed to load, or its child died)."""


def candidates(cat: catalogue.Catalogue | None = None) -> list[ModelEntry]:
    """The installed models that can answer (see :func:`engram.models.quality.candidates`)."""
    return quality.candidates(cat or catalogue.load())


# -- the child: one model, the real turn ------------------------------------------------------


@dataclass
class _Tally:
    tokens: int = 0
    decode_seconds: float = 0.0

    def add(self, finished: Finished) -> None:
        stats = finished.stats
        if stats is None or stats.generated_tokens < 2 or stats.decode_tokens_per_s <= 0:
            return
        decoded = stats.generated_tokens - 1
        self.tokens += decoded
        self.decode_seconds += decoded / stats.decode_tokens_per_s


def _say(engram: Engram, chat: int, text: str, tally: _Tally) -> tuple[int, quality.Answer]:
    """Send ``text`` in ``chat`` (0: a new one) and collect the answer and its tool calls."""
    answer, tools = "", []
    for event in engram.send(chat, text, CancelToken()):
        if isinstance(event, TurnStarted):
            chat = event.conversation_id
        elif isinstance(event, ToolCalled):
            tools.append(event.name)
        elif isinstance(event, Finished):
            answer = event.text
            tally.add(event)
    return chat, quality.Answer(answer, tuple(tools))


def run_one(model_id: str, embedding: str, report: Callable[[int, int], None]) -> quality.Result:
    """Answer the check with ``model_id`` in the current data folder (a fresh one: the child's)
    and score it; ``report(done, total)`` after each item."""
    started = time.monotonic()
    items = quality.items()
    settings = Settings(
        small_model=model_id,
        large_model="",
        embedding_model=embedding,
        max_answer_tokens=MAX_ANSWER_TOKENS,
        temperature=0.0,  # the same answer on every run: the scores compare models, not luck
        language="en",
    )
    engram = Engram(settings)
    engram.open()
    tally, verdicts = _Tally(), {}
    try:
        for done, item in enumerate(items):
            language = LANGUAGES.get(item.lang, "en")
            if engram.settings.language != language:
                engram.apply_settings(dataclasses.replace(engram.settings, language=language))
            for memory in item.memories:
                engram.memories.remember(0, f"/remember {memory}", memory)
            chat = 0
            for said in item.said_before:
                chat, _ = _say(engram, chat, said, tally)
            _, answer = _say(engram, chat, item.ask, tally)
            verdicts[item.id] = quality.score(item, answer)
            _log.info("quality check %s %s: %s", model_id, item.id, verdicts[item.id] or "pass")
            report(done + 1, len(items))
    finally:
        engram.close()
    seconds = time.monotonic() - started
    return quality.Result.of(model_id, verdicts, tally.tokens, tally.decode_seconds, seconds)


def child_main(model_id: str, embedding: str, background: bool) -> int:
    """The child's side (``engram models check --child ID``): progress lines, then the result
    as one JSON line on stdout."""
    if background:
        priority.lower_this_thread()  # llama.cpp's threads inherit it: the window comes first

    def report(done: int, total: int) -> None:
        print(f"progress {done} {total}", flush=True)

    result = run_one(model_id, embedding, report)
    print("result " + json.dumps(result.to_json(), ensure_ascii=False), flush=True)
    return 0


# -- the parent: every candidate, kept per machine state --------------------------------------


def command(model_id: str, embedding: str, background: bool) -> list[str]:
    """The child's command line, from a source install or the packaged app alike."""
    launcher = [sys.executable] if getattr(sys, "frozen", False) else [
        sys.executable, "-m", "engram.launcher",
    ]  # fmt: skip
    tail = ["--embedding", embedding] + (["--background"] if background else [])
    return [*launcher, *CHILD, model_id, *tail]


def _run_child(
    entry: ModelEntry, embedding: str, background: bool, progress: Progress, cancel: CancelToken
) -> quality.Result:
    with (
        tempfile.TemporaryDirectory(prefix="engram-quality-") as home,
        tempfile.TemporaryFile("w+", encoding="utf-8") as errors,  # never a full pipe
    ):
        env = dict(os.environ, ENGRAM_HOME=home, ENGRAM_MODELS_DIR=str(paths.models_dir()))
        with subprocess.Popen(  # leaving it closes the pipe and reaps the child
            command(entry.id, embedding, background),
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            encoding="utf-8",
            env=env,
        ) as child:
            stop = cancel.on_cancel(child.kill)
            try:
                assert child.stdout is not None
                result: quality.Result | None = None
                for line in child.stdout:
                    word, _, rest = line.strip().partition(" ")
                    if word == "progress":
                        done, total = (int(n) for n in rest.split())
                        progress(entry.id, done, total)
                    elif word == "result":
                        result = quality.Result.from_json(json.loads(rest))
                child.wait(timeout=TIMEOUT_S)
            finally:
                stop()
                if child.poll() is None:
                    child.kill()
        errors.seek(0)
        said = errors.read()[-2000:]
    if cancel.cancelled:
        raise CheckFailedError(tr("The quality check was stopped."), tr("Run it again to finish."))
    if result is None:
        _log.warning("quality check child of %s failed: %s", entry.id, said)
        raise CheckFailedError(
            tr("The quality check could not run {name}."),
            tr("The details are in the log: {path}"),
            name=entry.name,
            path=log.log_file(),
        )
    return result


def check(
    entries: list[ModelEntry],
    settings: Settings,
    progress: Progress = lambda *_: None,
    cancel: CancelToken | None = None,
    *,
    again: bool = False,
    background: bool = False,
) -> list[quality.Result]:
    """Each model's result, from the kept results of this machine state or (``again``, or none
    kept) by running the check; ``background`` runs the children at a lower priority."""
    cancel = cancel or CancelToken()
    kept = {} if again else quality.cached(entries)
    results = []
    for entry in entries:
        if cancel.cancelled:
            break
        result = kept.get(entry.id)
        if result is None:
            fresh = _run_child(entry, settings.embedding_model, background, progress, cancel)
            result = quality.keep(entry, fresh)
            # Real answers, timed: this machine's decode speed for the recommendations too.
            speed.record(entry.download_bytes(), result.tokens, result.tokens_per_s)
        results.append(result)
    return results


def verdict(cat: catalogue.Catalogue | None = None) -> quality.Verdict | None:
    """The check's choice among the installed candidates, from the kept results (None until
    they were checked)."""
    return quality.verdict(candidates(cat))


def _starter_default(settings: Settings) -> bool:
    """The settings still answer with the starter default (the user chose no other model)."""
    return settings.small_model == Settings().small_model and not settings.small_server_url


def pending(settings: Settings, cat: catalogue.Catalogue | None = None) -> bool:
    """Whether the check is still to run (or its choice to be applied) for these settings: only
    while they use the starter default and more than one model could answer."""
    if not _starter_default(settings):
        return False
    entries = candidates(cat)
    if len(entries) < 2:
        return False
    found = quality.verdict(entries)
    unchecked = len(quality.cached(entries)) < len(entries)
    return unchecked or (found is not None and not quality.applied(found.state))


def adopt(store: SettingsStore) -> Problem | None:
    """Make the check's choice the answering model, once per set of results, while the
    settings still use the starter default (a model the user chose stays); returns what
    changed, as a sentence, or None."""
    found = verdict()
    if found is None or quality.applied(found.state):
        return None
    current = store.current
    if not _starter_default(current):
        quality.mark_applied(found.state)  # the user chose: leave it
        return None
    cat = catalogue.load()
    chosen = cat.get(found.chosen.model_id)
    large = cat.get(current.large_model) if current.large_model else None
    learner = hardware.learner_for(chosen, large)
    quality.mark_applied(found.state)
    if chosen.id == current.small_model and learner.id == current.large_model:
        return None
    store.choose_models(small=chosen.id, large=learner.id)
    return Problem(
        tr("Engram now answers with {name}, the best of the quality check at a usable speed."),
        name=chosen.name,
    )
