#!/usr/bin/env bash
# Install Engram for this user only (no root): the app under ~/.local/share/engram-app, the command
# ~/.local/bin/engram, a menu entry and icons. Run it from the unpacked folder.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
bin="$HOME/.local/bin"
target="$data/engram-app"
mkdir -p "$bin" "$data/applications"
rm -rf "$target.new"
cp -a "$here" "$target.new"
rm -rf "$target"
mv "$target.new" "$target"
ln -sf "$target/engram" "$bin/engram"
cp -r "$here/share/icons/hicolor" "$data/icons/" 2>/dev/null || {
    mkdir -p "$data/icons"; cp -r "$here/share/icons/hicolor" "$data/icons/"
}
sed "s|^Exec=engram|Exec=$target/engram|" "$here/share/applications/engram.desktop" \
    > "$data/applications/engram.desktop"
command -v update-desktop-database >/dev/null && update-desktop-database "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q "$data/icons/hicolor" || true
echo "Engram is installed: open it from the menu, or run $bin/engram"
case ":$PATH:" in *":$bin:"*) ;; *) echo "(add $bin to PATH to run 'engram' from a terminal)";; esac
