#!/bin/sh
# Put ZeroDesk in the desktop's menus for one user: the desktop entry, the icon in every size, the
# plan file type (*.zerodesk.json) and the AppStream metadata, in $XDG_DATA_HOME (~/.local/share by
# default), or in DIR/share with --prefix DIR.
#
#   packaging/install-desktop.sh                      # a pip install: Exec = zerodesk-gui found on PATH
#   dist/zerodesk/_internal/desktop/install-desktop.sh   # the bundle: Exec = the bundle's zerodesk-gui
#   install-desktop.sh --exec /opt/zerodesk/zerodesk-gui --prefix /usr/local   # system-wide, as root
#   install-desktop.sh --uninstall
set -eu

APP_ID=io.github.zerodesk.ZeroDesk
# The data folder itself: XDG_DATA_HOME need not end in /share (e.g. ~/.xdg-data), so it is used as it is.
share="${XDG_DATA_HOME:-$HOME/.local/share}"
exec_path=""
uninstall=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) share="$2/share"; shift 2 ;;
        --exec) exec_path="$2"; shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "install-desktop.sh: unknown option '$1' (use --prefix DIR, --exec PATH, --uninstall)" >&2; exit 2 ;;
    esac
done
here="$(cd "$(dirname "$0")" && pwd)"
sizes="16 24 32 48 64 128 256 512"

refresh() {  # the caches that menus and file managers read; each tool is optional
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$share/applications" || true
    command -v update-mime-database >/dev/null 2>&1 && update-mime-database "$share/mime" || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -f -t "$share/icons/hicolor" || true
}

if [ "$uninstall" = 1 ]; then
    rm -f "$share/applications/$APP_ID.desktop" "$share/metainfo/$APP_ID.metainfo.xml" \
          "$share/mime/packages/$APP_ID.xml" "$share/icons/hicolor/scalable/apps/$APP_ID.svg"
    for s in $sizes; do rm -f "$share/icons/hicolor/${s}x${s}/apps/$APP_ID.png"; done
    refresh
    echo "removed ZeroDesk's desktop entry, icons, file type and metadata from $share"
    exit 0
fi

# The files: beside this script (the bundle's _internal/desktop, or packaging/ in a checkout).
icons=""
for dir in "$here/icons" "$here/../zerodesk/resources/icons" "$here/../resources/icons"; do
    [ -f "$dir/zerodesk.svg" ] && icons="$(cd "$dir" && pwd)" && break
done
[ -n "$icons" ] || { echo "install-desktop.sh: the icons (zerodesk.svg, zerodesk-N.png) are not beside $here" >&2; exit 1; }

# The program the menu starts: an absolute path, so a venv or a bundle need not be on the session's PATH.
if [ -z "$exec_path" ]; then
    if [ -x "$here/../../zerodesk-gui" ]; then
        exec_path="$(cd "$here/../.." && pwd)/zerodesk-gui"
    elif command -v zerodesk-gui >/dev/null 2>&1; then
        exec_path="$(command -v zerodesk-gui)"
    else
        echo "install-desktop.sh: zerodesk-gui is not on PATH; install ZeroDesk first or pass --exec PATH" >&2
        exit 1
    fi
fi
case "$exec_path" in *" "*) exec_field="\"$exec_path\"" ;; *) exec_field="$exec_path" ;; esac

mkdir -p "$share/applications" "$share/metainfo" "$share/mime/packages" "$share/icons/hicolor/scalable/apps"
sed -e "s|^Exec=zerodesk-gui |Exec=$exec_field |" -e "s|^TryExec=.*||" "$here/$APP_ID.desktop" \
    > "$share/applications/$APP_ID.desktop"
cp "$here/$APP_ID.metainfo.xml" "$share/metainfo/$APP_ID.metainfo.xml"
cp "$here/$APP_ID.mime.xml" "$share/mime/packages/$APP_ID.xml"
cp "$icons/zerodesk.svg" "$share/icons/hicolor/scalable/apps/$APP_ID.svg"
for s in $sizes; do
    mkdir -p "$share/icons/hicolor/${s}x${s}/apps"
    cp "$icons/zerodesk-$s.png" "$share/icons/hicolor/${s}x${s}/apps/$APP_ID.png"
done
refresh
echo "installed ZeroDesk in $share (menu entry runs $exec_path)"
