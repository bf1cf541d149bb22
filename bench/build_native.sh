#!/usr/bin/env bash
# Build llama.cpp tuned for this CPU (-DGGML_NATIVE=ON) from the same llama-cpp-python sdist
# Engram installs, and keep only its shared libraries, for `bench/runtime.py --native DIR`.
# The venv's own library (portable flags, installer/llama_flags.sh) is left alone: the
# benchmark points llama-cpp-python at DIR through LLAMA_CPP_LIB_PATH in a child process.
#
# Usage: bench/build_native.sh [DIR]   (default .cache/llama-native, git-ignored; ~5-10 min)
# Never ship or commit what this builds: it may not run on another CPU.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/.cache/llama-native}"
python="$root/.venv/bin/python"
version="$(sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' "$root/pyproject.toml" | head -1)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "build_native: compiling llama-cpp-python $version with -DGGML_NATIVE=ON"
CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF" FORCE_CMAKE=1 \
    CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    "$python" -m pip wheel --disable-pip-version-check -q --no-deps --no-cache-dir \
    --no-binary llama-cpp-python "llama-cpp-python==$version" -w "$tmp"

wheel="$(ls "$tmp"/llama_cpp_python-*.whl)"
mkdir -p "$out"
rm -f "$out"/*.so*
"$python" - "$wheel" "$out" <<'EOF'
import sys
import zipfile
from pathlib import Path

wheel, out = sys.argv[1], Path(sys.argv[2])
with zipfile.ZipFile(wheel) as archive:
    for name in archive.namelist():
        if name.startswith("llama_cpp/lib/") and ".so" in name:
            (out / Path(name).name).write_bytes(archive.read(name))
EOF
echo "llama-cpp-python==$version -DGGML_NATIVE=ON -DLLAVA_BUILD=OFF" > "$out/BUILD"
ls "$out"
