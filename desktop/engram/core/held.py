"""A lock that lives as long as the process holding it: the operating system lets go of it when
the process ends, however it ends (closed, crashed, killed).

Engram holds one on each temporary chat it has open, so the next start can tell a temporary chat
a crash left behind (its lock is free: delete it) from one another Engram has open right now (the
window and ``engram chat`` at the same time: leave it alone).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


class Held:
    """An exclusive lock on a file, taken without waiting; :meth:`release` gives it back."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def take(cls, path: Path) -> Held | None:
        """Lock ``path`` (created if missing), or None when another holder has it (another
        process, or another :class:`Held` of this one)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock(fd)
        except OSError:
            os.close(fd)
            return None
        return cls(path, fd)

    def release(self, remove: bool = False) -> None:
        """Let go of the lock (and delete its file when ``remove``: what it guarded is gone)."""
        if remove:
            self.path.unlink(missing_ok=True)
        os.close(self._fd)  # closing the file ends the lock


if sys.platform == "win32":
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
