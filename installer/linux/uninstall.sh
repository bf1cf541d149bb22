#!/usr/bin/env bash
# Remove the per-user Engram install. Your conversations, memories and models stay where they
# are (~/.local/share/engram and ~/.config/engram); delete those folders to remove them too.
set -euo pipefail
data="${XDG_DATA_HOME:-$HOME/.local/share}"
rm -rf "$data/engram-app"
rm -f "$HOME/.local/bin/engram" "$data/applications/engram.desktop"
find "$data/icons/hicolor" -name engram.png -delete 2>/dev/null || true
echo "Engram is uninstalled (your data is kept)."
