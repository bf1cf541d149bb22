#!/usr/bin/env bash
# Refresh resources/translations/*.ts from the UI sources and compile them to .qm.
# After running it, translate the new <message> entries in the .ts files (Qt Linguist:
# .venv/bin/pyside6-linguist), then run it again to rebuild the .qm files.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/.venv/bin"
cd "$root"
for ts in resources/translations/engram_*.ts; do
    "$bin/pyside6-lupdate" -no-obsolete desktop/engram/ui/*.py -ts "$ts"
    "$bin/pyside6-lrelease" -silent "$ts" -qm "${ts%.ts}.qm"
done
