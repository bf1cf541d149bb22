#!/usr/bin/env bash
# Set up Engram from a source checkout: a virtual environment in .venv, Engram and its
# dependencies (with the test tools when called with "test"), and the offline starter models.
# Safe to run again: each step is skipped when it is already done.
#
# Usage: installer/bootstrap.sh [app|test]
# Environment: PYTHON (the interpreter to build the venv from, default python3),
#              ENGRAM_HOME / ENGRAM_MODELS_DIR (where models go; see README).
set -euo pipefail

mode="${1:-app}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
    echo "engram: creating the virtual environment in $venv"
    "$python" -m venv "$venv"
fi

extras=""
[ "$mode" = "test" ] && extras="[test]"
stamp="$venv/.engram-installed"
want="$(cat "$root/pyproject.toml" | sha256sum | cut -d' ' -f1) $extras"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "engram: installing Engram and its dependencies (llama.cpp compiles once, ~5 min)"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --upgrade pip
    "$venv/bin/python" -m pip install --disable-pip-version-check -q -e "$root$extras"
    echo "$want" > "$stamp"
fi

"$venv/bin/engram" models fetch-starter
