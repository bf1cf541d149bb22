"""Render resources/icons/engram.svg to PNGs in several sizes, a Windows .ico and a macOS .icns.

Usage: python installer/render_icons.py OUT_DIR  (runs Qt offscreen; Pillow writes .ico/.icns)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def main(out: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PIL import Image
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([])
    svg = Path(__file__).resolve().parents[1] / "resources" / "icons" / "engram.svg"
    renderer = QSvgRenderer(str(svg))
    out.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        image.save(str(out / f"engram-{size}.png"))
    largest = Image.open(out / f"engram-{SIZES[-1]}.png")
    largest.save(out / "engram.ico", sizes=[(s, s) for s in SIZES if s <= 256])
    largest.save(out / "engram.icns")
    del app


if __name__ == "__main__":
    main(Path(sys.argv[1]))
