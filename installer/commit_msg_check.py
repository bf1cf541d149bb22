#!/usr/bin/env python3
"""Engram's commit-msg hook: a commit subject fits `git log --oneline` and reads as a title.

A subject (the first line of the message that is neither empty nor a `#` comment) is refused
when it is longer than 72 characters or ends with a period; the story and the numbers go in the
body, after a blank line. Subjects git writes itself (merges, reverts, fixup!/squash!/amend!)
pass as they are.

Usage: installer/commit_msg_check.py MESSAGE_FILE   (as .git/hooks/commit-msg; bootstrap.sh
       installs it in "test" mode), or
       installer/commit_msg_check.py --subject "TEXT"   (one subject, as check_commits.sh asks).
       --length-only checks the length alone.
Exit status: 0 when the subject passes, 1 when it does not (with the reason on stderr),
2 on a usage error. Standard library only: the hook runs before any virtual environment exists.
"""

from __future__ import annotations

import sys
from pathlib import Path

LIMIT = 72
# Subjects git writes for merges, reverts and autosquash; they quote another subject whole.
GENERATED = ("Merge ", 'Revert "', "fixup! ", "squash! ", "amend! ")


def subject_of(message: str) -> str:
    """The subject: the first line that is not empty and not a `#` comment."""
    for line in message.splitlines():
        if line.strip() and not line.startswith("#"):
            return line.rstrip()
    return ""


def problems(subject: str, *, length_only: bool = False) -> list[str]:
    """What is wrong with a subject, in words; empty when it passes."""
    if subject.startswith(GENERATED):
        return []
    found = []
    if len(subject) > LIMIT:
        found.append(
            f"the subject is {len(subject)} characters; keep it to {LIMIT} and put the rest "
            "in the body, after a blank line"
        )
    if not length_only and subject.endswith("."):
        found.append("the subject ends with a period; a subject is a title")
    return found


def main(argv: list[str]) -> int:
    length_only = "--length-only" in argv
    args = [a for a in argv if a != "--length-only"]
    if len(args) == 2 and args[0] == "--subject":
        subject = args[1]
    elif len(args) == 1 and not args[0].startswith("-"):
        try:
            subject = subject_of(Path(args[0]).read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            print(f"commit-msg: cannot read {args[0]}: {exc.strerror}", file=sys.stderr)
            return 2
    else:
        print(__doc__, file=sys.stderr)
        return 2
    found = problems(subject, length_only=length_only)
    for problem in found:
        print(f"commit-msg: {problem}:\n  {subject}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
