"""The layer rules: nothing below engram.ui imports Qt, and heavy libraries load lazily."""

from __future__ import annotations

import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import engram

HEAVY = (
    "PySide6",
    "shiboken6",
    "llama_cpp",
    "fastembed",
    "huggingface_hub",
    "onnxruntime",
    "mcp",
    "pypdf",
)
# Modules that extend a heavy library and are themselves only imported lazily (ruff's
# banned-module-level-imports lists them, so no module imports them at the top).
EXTENDS_HEAVY = ("engram.models.compact_llama",)


def test_non_ui_modules_import_neither_qt_nor_heavy_libraries() -> None:
    names = [
        m.name
        for m in pkgutil.walk_packages(engram.__path__, "engram.")
        if not m.name.startswith(("engram.ui", "engram.resources", "engram.__main__"))
        and m.name not in EXTENDS_HEAVY
    ]
    assert "engram.memory.db" in names and "engram.cli.main" in names
    code = (
        "import importlib, json, sys\n"
        f"for name in {names!r}: importlib.import_module(name)\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_ui_package_is_the_one_that_imports_qt() -> None:
    code = "import sys, engram.ui.main_window; print('PySide6' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_sql_is_written_only_in_the_memory_package() -> None:
    statement = re.compile(r"[\"'](?:SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA)\b")
    root = Path(engram.__file__).parent
    assert statement.search((root / "memory" / "jobs.py").read_text(encoding="utf-8"))
    outside = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "memory" not in path.relative_to(root).parts[:1]
        and statement.search(path.read_text(encoding="utf-8"))
    ]
    assert outside == []
