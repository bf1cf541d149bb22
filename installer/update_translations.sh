#!/usr/bin/env bash
# Refresh resources/translations/*.ts from every Engram source and compile them to .qm.
# The UI's strings come from self.tr()/QT_TRANSLATE_NOOP (context: the class); the known errors'
# message templates from the bare tr("…") of engram.core.errors anywhere in the package
# (context ""), so lupdate reads all of desktop/engram, not only the UI.
# After running it, translate the new <message> entries in the .ts files (Qt Linguist:
# .venv/bin/pyside6-linguist), then run it again to rebuild the .qm files.
set -euo pipefail
shopt -s globstar
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="$root/.venv/bin"
cd "$root"
sources=(desktop/engram/**/*.py)
for ts in resources/translations/engram_*.ts; do
    "$bin/pyside6-lupdate" -no-obsolete "${sources[@]}" -ts "$ts"
    "$bin/pyside6-lrelease" -silent "$ts" -qm "${ts%.ts}.qm"
done
