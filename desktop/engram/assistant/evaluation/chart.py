"""A grouped bar chart written as a PNG with zlib and struct only (no plotting library).

Groups (for example "all" and each category) run left to right; inside a group each series (a
condition) is one bar in its own colour, values in [0, 1]. Grid lines mark 0.25 steps. The chart
has no text: the Markdown report next to it names the groups and the colours in order.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

from engram.core.atomic import atomic_write

Colour = tuple[int, int, int]
COLOURS: tuple[Colour, ...] = (
    (120, 120, 120),  # grey
    (66, 133, 244),  # blue
    (52, 168, 83),  # green
    (234, 67, 53),  # red
    (251, 188, 5),  # yellow
)
COLOUR_NAMES = ("grey", "blue", "green", "red", "yellow")
WHITE: Colour = (255, 255, 255)
GRID: Colour = (225, 225, 225)
AXIS: Colour = (60, 60, 60)
HEIGHT = 240
MARGIN = 20
BAR = 14
GAP = 18


class Canvas:
    """An RGB image in memory."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(WHITE) * (width * height))

    def fill(self, x0: int, y0: int, x1: int, y1: int, colour: Colour) -> None:
        x0, x1 = max(0, min(x0, x1)), min(self.width, max(x0, x1))
        y0, y1 = max(0, min(y0, y1)), min(self.height, max(y0, y1))
        row = bytes(colour) * (x1 - x0)
        for y in range(y0, y1):
            start = 3 * (y * self.width + x0)
            self.pixels[start : start + len(row)] = row

    def png(self) -> bytes:
        stride = 3 * self.width
        raw = b"".join(
            b"\x00" + bytes(self.pixels[y * stride : (y + 1) * stride]) for y in range(self.height)
        )

        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b"")
        )


def bars(values: Sequence[Sequence[float | None]]) -> Canvas:
    """``values[group][series]`` in [0, 1] (None: no bar) as grouped bars."""
    series = max((len(g) for g in values), default=0)
    width = 2 * MARGIN + max(1, len(values)) * (series * BAR + GAP)
    canvas = Canvas(width, HEIGHT + 2 * MARGIN)
    bottom, top = MARGIN + HEIGHT, MARGIN
    for step in range(1, 5):
        y = bottom - step * HEIGHT // 4
        canvas.fill(MARGIN, y, width - MARGIN, y + 1, GRID)
    for g, group in enumerate(values):
        x = MARGIN + GAP // 2 + g * (series * BAR + GAP)
        for s, value in enumerate(group):
            if value is not None:
                height = round(min(1.0, max(0.0, value)) * HEIGHT)
                colour = COLOURS[s % len(COLOURS)]
                canvas.fill(x + s * BAR, bottom - height, x + (s + 1) * BAR - 2, bottom, colour)
    canvas.fill(MARGIN, bottom, width - MARGIN, bottom + 2, AXIS)
    canvas.fill(MARGIN - 2, top, MARGIN, bottom + 2, AXIS)
    return canvas


def write(path: Path, values: Sequence[Sequence[float | None]]) -> None:
    """Write the chart to ``path`` whole or not at all."""
    data = bars(values).png()
    with atomic_write(path, encoding="latin-1") as handle:
        handle.write(data.decode("latin-1"))
