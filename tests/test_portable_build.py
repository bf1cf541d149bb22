"""The llama.cpp that Engram installs runs on any CPU of its family: compiled without
-march=native, its x86-64 libraries hold no AVX-512 (zmm registers) and no AMX (tmm registers)
instruction, so neither an older laptop nor a CPU whose hypervisor denies the AMX tile state
meets an "Illegal instruction" (both README commands died so on an AMX Xeon)."""

from __future__ import annotations

import importlib.util
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engram.models import build_check, speed

pytestmark = pytest.mark.slow  # disassembles a few megabytes


def _libraries() -> list[Path]:
    spec = importlib.util.find_spec("llama_cpp")
    assert spec is not None and spec.submodule_search_locations
    lib = Path(next(iter(spec.submodule_search_locations))) / "lib"
    found = sorted(p for p in lib.glob("*.so*") if p.is_file() and not p.is_symlink())
    return found or sorted(lib.glob("*.dylib")) or sorted(lib.glob("*.dll"))


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 registers")
@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
def test_the_cpu_library_holds_no_avx512_or_amx_instruction() -> None:
    libraries = _libraries()
    assert any("ggml-cpu" in p.name for p in libraries), libraries
    for library in libraries:
        listing = subprocess.run(
            ["objdump", "-d", "--no-show-raw-insn", str(library)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        wide = re.findall(r"%(?:zmm|tmm)\d+", listing)
        assert not wide, f"{library.name}: {len(wide)} AVX-512/AMX operands, e.g. {wide[:3]}"
        if "ggml-cpu" in library.name:
            assert "%ymm" in listing  # the AVX2 baseline is there: the build is not generic


def test_a_llama_cpp_that_dies_on_this_cpu_is_a_message_with_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child that decodes one token is killed by SIGILL here (as a wrong build is): the
    check names the illegal instruction and how to rebuild, never a bare crash."""
    child = tmp_path / "child.py"
    child.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGILL)\n")
    monkeypatch.setattr(build_check, "command", lambda _model: [sys.executable, str(child)])
    problem = build_check.check(tmp_path / "any.gguf")
    assert problem is not None
    assert "illegal instruction" in problem.message and "llama_flags.sh" in problem.hint


def test_the_build_check_passes_once_and_is_remembered(
    starter_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = starter_models / "smollm2-135m-instruct" / "SmolLM2-135M-Instruct.Q4_1.gguf"
    monkeypatch.setattr(speed, "MIN_MODEL_BYTES", 0)  # the tiny model stands in for a real one
    assert speed.samples() == []
    assert build_check.check(model) is None  # one token decoded in a child process
    assert len(speed.samples()) == 1  # and the next ones timed: this machine's decode speed
    build_check.ensure(model)  # remembered for this library: no child this time
    stamp = starter_models / build_check.STAMP
    assert build_check.library_id() in stamp.read_text(encoding="utf-8")
    assert len(speed.samples()) == 1

    speed._path().unlink()  # the same models with a new data folder: nothing measured there
    build_check.ensure(model)  # checked again, for the speed
    assert len(speed.samples()) == 1
    build_check.ensure(model)
    assert len(speed.samples()) == 1  # measured once: remembered again
