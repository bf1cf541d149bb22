"""A grouped bar chart as a PNG, drawn with Pillow and readable without the report next to it.

Groups (for example "all" and each category) run left to right; inside a group each series (a
condition, or a recall@k) is one bar in its own colour with its value above it, values in [0, 1].
The chart carries a title, y-axis ticks at 0, 0.25, ... 1, a label under each group and a legend
naming each series with its colour. Sizes follow the text, so no label is clipped or overlaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engram.core.atomic import atomic_write_bytes

if TYPE_CHECKING:
    from PIL import Image, ImageDraw, ImageFont

Colour = tuple[int, int, int]
COLOURS: tuple[Colour, ...] = (
    (120, 120, 120),  # grey
    (66, 133, 244),  # blue
    (52, 168, 83),  # green
    (234, 67, 53),  # red
    (251, 188, 5),  # yellow
)
WHITE: Colour = (255, 255, 255)
GRID: Colour = (225, 225, 225)
AXIS: Colour = (60, 60, 60)
TEXT: Colour = (30, 30, 30)
MUTED: Colour = (110, 110, 110)
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)
PLOT_HEIGHT = 260  # pixels from 0 to 1
BAR = 30
BAR_GAP = 3
GROUP_GAP = 28
PAD = 16
SWATCH = 12
TITLE_SIZE, TEXT_SIZE, VALUE_SIZE = 18, 13, 11


@dataclass(frozen=True)
class Chart:
    """What to draw: ``values[group][series]`` in [0, 1] (None: no bar, shown as "n/a")."""

    title: str
    groups: Sequence[str]  # the label under each group; a line break makes two lines
    series: Sequence[str]  # the legend's name of each series, in colour order
    values: Sequence[Sequence[float | None]]
    subtitle: str = ""


@dataclass(frozen=True)
class _Fonts:
    title: ImageFont.FreeTypeFont
    text: ImageFont.FreeTypeFont
    value: ImageFont.FreeTypeFont


def _fonts() -> _Fonts:
    from PIL import ImageFont

    def font(size: int) -> ImageFont.FreeTypeFont:
        loaded = ImageFont.load_default(size=size)
        assert isinstance(loaded, ImageFont.FreeTypeFont)  # Pillow >= 10.1 with FreeType
        return loaded

    return _Fonts(font(TITLE_SIZE), font(TEXT_SIZE), font(VALUE_SIZE))


def _size(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont) -> tuple[int, int]:
    if not text:
        return 0, 0
    left, top, right, bottom = draw.multiline_textbbox((0, 0), text, font=font)
    return int(right - left), int(bottom - top)


def _tick(value: float) -> str:
    return f"{value:g}"


def render(chart: Chart) -> Image.Image:
    """The chart as an RGB image, sized to fit every label."""
    from PIL import Image, ImageDraw

    fonts = _fonts()
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    n_series = max((len(g) for g in chart.values), default=0)
    bars_width = max(1, n_series * (BAR + BAR_GAP) - BAR_GAP)
    labels = [_size(measure, g, fonts.text) for g in chart.groups]
    group_width = max([bars_width, *(w for w, _ in labels)]) + GROUP_GAP
    ticks_width = max(_size(measure, _tick(t), fonts.text)[0] for t in TICKS)
    plot_left = PAD + ticks_width + 8
    plot_width = max(1, len(chart.groups)) * group_width
    title_w, title_h = _size(measure, chart.title, fonts.title)
    sub_w, sub_h = _size(measure, chart.subtitle, fonts.text)
    legend = [(name, _size(measure, name, fonts.text)) for name in chart.series]
    item_width = [SWATCH + 6 + w + 20 for _, (w, _h) in legend]
    width = max(plot_left + plot_width + PAD, title_w + 2 * PAD, sub_w + 2 * PAD)
    width = max([width, *(w + 2 * PAD for w in item_width)])

    value_h = _size(measure, "0.00", fonts.value)[1]
    plot_top = PAD + title_h + (sub_h + 6 if sub_h else 0) + 14 + value_h + 4
    plot_bottom = plot_top + PLOT_HEIGHT
    labels_bottom = plot_bottom + 8 + max((h for _, h in labels), default=0)
    rows = _flowed(item_width, width)  # the legend's items, in rows within the width
    row_height = max([SWATCH, *(h for _, (_w, h) in legend)]) + 8
    legend_top = labels_bottom + 16
    height = legend_top + len(rows) * row_height + PAD

    image = Image.new("RGB", (width, height), WHITE)
    draw = ImageDraw.Draw(image)
    draw.text((PAD, PAD), chart.title, font=fonts.title, fill=TEXT, anchor="la")
    if chart.subtitle:
        draw.text((PAD, PAD + title_h + 6), chart.subtitle, font=fonts.text, fill=MUTED)
    plot_right = plot_left + plot_width
    for t in TICKS:
        y = plot_bottom - round(t * PLOT_HEIGHT)
        if t:
            draw.line([(plot_left, y), (plot_right, y)], fill=GRID)
        draw.text((plot_left - 8, y), _tick(t), font=fonts.text, fill=TEXT, anchor="rm")
    for g, group in enumerate(chart.values):
        x = plot_left + g * group_width + (group_width - bars_width) // 2
        _bars(draw, group, x, plot_bottom, fonts)
    draw.line([(plot_left, plot_bottom), (plot_right, plot_bottom)], fill=AXIS, width=2)
    draw.line([(plot_left - 1, plot_top), (plot_left - 1, plot_bottom)], fill=AXIS, width=2)
    for g, label in enumerate(chart.groups):
        centre = plot_left + g * group_width + group_width // 2
        draw.multiline_text(
            (centre, plot_bottom + 8),
            label,
            font=fonts.text,
            fill=TEXT,
            anchor="ma",
            align="center",
        )
    for r, row in enumerate(rows):
        y = legend_top + r * row_height
        x = PAD
        for i in row:
            name, (_w, h) = legend[i]
            swatch_top = y + (h - SWATCH) // 2 + 2
            colour = COLOURS[i % len(COLOURS)]
            draw.rectangle(
                [(x, swatch_top), (x + SWATCH - 1, swatch_top + SWATCH - 1)], fill=colour
            )
            draw.text((x + SWATCH + 6, y), name, font=fonts.text, fill=TEXT)
            x += item_width[i]
    return image


def _bars(draw: Any, group: Sequence[float | None], x: int, bottom: int, fonts: Any) -> None:
    """One group's bars from ``x``, each with its value above it ("n/a" where there is none)."""
    for s, value in enumerate(group):
        centre = x + s * (BAR + BAR_GAP) + BAR // 2
        if value is None:
            draw.text((centre, bottom - 3), "n/a", font=fonts.value, fill=MUTED, anchor="mb")
            continue
        top = bottom - round(min(1.0, max(0.0, value)) * PLOT_HEIGHT)
        left = x + s * (BAR + BAR_GAP)
        if top < bottom:
            draw.rectangle(
                [(left, top), (left + BAR - 1, bottom - 1)], fill=COLOURS[s % len(COLOURS)]
            )
        draw.text((centre, top - 3), f"{value:.2f}", font=fonts.value, fill=TEXT, anchor="mb")


def _flowed(widths: list[int], width: int) -> list[list[int]]:
    """Items of these ``widths`` (their indexes) flowed into rows that fit ``width``."""
    rows: list[list[int]] = [[]]
    used = PAD
    for i, w in enumerate(widths):
        if rows[-1] and used + w > width - PAD:
            rows.append([])
            used = PAD
        rows[-1].append(i)
        used += w
    return rows


def write(path: Path, chart: Chart) -> None:
    """Write the chart to ``path`` as a PNG, whole or not at all."""
    image = render(chart)
    with atomic_write_bytes(path) as handle:
        image.save(handle, format="PNG")
