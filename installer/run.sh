#!/usr/bin/env bash
# Set up (first time only) and open the Engram desktop app on the offline starter models.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/installer/bootstrap.sh" app
exec "$root/.venv/bin/engram" "$@"
