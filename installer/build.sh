#!/usr/bin/env bash
# Build the packaged Engram app with PyInstaller: a one-folder app that runs without Python.
#   installer/build.sh            -> dist/engram/ (and on Linux dist/engram-<version>-linux-<arch>.tar.gz)
# Needs the build extra:  .venv/bin/pip install -e '.[build]'
# The same definition (installer/engram.spec) builds Engram.app on macOS and engram.exe on
# Windows; .github/workflows/build.yml runs it on all three. Models are not bundled.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
py="${PYTHON:-$root/.venv/bin/python}"
[[ -x "$py" ]] || py="$(command -v python3)"
if ! "$py" -c "import PyInstaller" 2>/dev/null; then
    echo "PyInstaller is missing: run  $py -m pip install -e '.[build]'" >&2
    exit 1
fi
version="$("$py" -c 'import sys; sys.path.insert(0, "desktop"); import engram; print(engram.__version__)')"
arch="$(uname -m)"

echo "Rendering icons…"
"$py" installer/render_icons.py build/icons

echo "Running PyInstaller (a few minutes)…"
"$py" -m PyInstaller --noconfirm --log-level WARN \
    --distpath dist --workpath build/pyinstaller installer/engram.spec

case "$(uname -s)" in
Linux)
    app=dist/engram
    mkdir -p "$app/share/icons" "$app/share/applications"
    for png in build/icons/engram-*.png; do
        size="${png##*-}"; size="${size%.png}"
        mkdir -p "$app/share/icons/hicolor/${size}x${size}/apps"
        cp "$png" "$app/share/icons/hicolor/${size}x${size}/apps/engram.png"
    done
    cp resources/icons/engram.svg "$app/share/icons/engram.svg"
    cp installer/linux/engram.desktop "$app/share/applications/engram.desktop"
    cp installer/linux/install.sh installer/linux/uninstall.sh "$app/"
    chmod +x "$app/install.sh" "$app/uninstall.sh"
    tarball="dist/engram-$version-linux-$arch.tar.gz"
    tar -C dist -czf "$tarball" engram
    echo "Built $app ($(du -sh "$app" | cut -f1)) and $tarball ($(du -sh "$tarball" | cut -f1))"
    ;;
Darwin)
    echo "Built dist/Engram.app ($(du -sh dist/Engram.app | cut -f1)); sign and notarize before shipping"
    ;;
*)
    echo "Built dist/engram ($(du -sh dist/engram | cut -f1))"
    ;;
esac
