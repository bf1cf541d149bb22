"""What every fetch of model files reports, from the hub or the package index alike: its
progress, and that the user cancelled it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engram.core.errors import DownloadError


class DownloadCancelledError(DownloadError):
    """The user cancelled; the partial file is kept and the next download resumes it."""


@dataclass(frozen=True)
class Progress:
    """One progress report: bytes of the whole model, current speed and time left."""

    model_id: str
    file: str
    done: int
    total: int
    speed: float  # bytes per second since this download started
    eta: float | None  # seconds, None while the speed is unknown

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


ProgressCallback = Callable[[Progress], None]
