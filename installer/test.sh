#!/usr/bin/env bash
# Set up (first time only) and run every check: ruff, the commit subjects (check_commits.sh),
# mypy, the layer contracts and the test suite.
# Arguments go to pytest: `installer/test.sh -m "not slow"` is the fast lane (no real-model run
# of more than a few seconds), `ENGRAM_TEST_WORKERS=0 installer/test.sh tests/test_turn.py -x`
# one file in one process.
# Tests never touch your real Engram data: each test gets its own ENGRAM_HOME, and the starter
# models for the tests live in .cache/models inside the checkout.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ENGRAM_MODELS_DIR="$root/.cache/models"
export ENGRAM_HOME="$root/.cache/test-home"
export QT_QPA_PLATFORM=offscreen
"$root/installer/bootstrap.sh" test
cd "$root"
bin="$root/.venv/bin"
echo "engram: ruff";  "$bin/ruff" check . && "$bin/ruff" format --check .
echo "engram: commit subjects"; PYTHON="$bin/python" "$root/installer/check_commits.sh"
echo "engram: mypy";  "$bin/mypy"
echo "engram: layer contracts"; "$bin/lint-imports"
# The tests run on every core, up to four workers (each loads its own models);
# ENGRAM_TEST_WORKERS=0 runs them in this one process.
workers="${ENGRAM_TEST_WORKERS:-$(nproc 2>/dev/null || echo 2)}"
[ "$workers" -gt 4 ] && workers=4
echo "engram: tests ($workers workers)"; "$bin/python" -m pytest -n "$workers" "$@"
