"""Desktop integration: one application id, and an entry, file type, metadata and icon that match what ships."""

import configparser
import os
import re
import shutil
import struct
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from zerodesk import APP_ID, APP_NAME, __version__
from zerodesk.core.plan import PLAN_SUFFIX

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"
MAIN_CATEGORIES = {"AudioVideo", "Audio", "Video", "Development", "Education", "Game", "Graphics", "Network",
                   "Office", "Science", "Settings", "System", "Utility"}
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"


def desktop_entry() -> configparser.SectionProxy:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(PACKAGING / f"{APP_ID}.desktop", encoding="utf-8")
    return entry["Desktop Entry"]


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def test_desktop_entry_matches_app_id():
    section = desktop_entry()
    assert section["Icon"] == APP_ID and section["Exec"].startswith("zerodesk-gui")


def test_exec_is_a_program_that_ships_from_pip_and_in_the_bundle():
    program = desktop_entry()["Exec"].split()[0]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["gui-scripts"]
    assert program in scripts  # pip: the gui-script
    assert f'name="{program}"' in (PACKAGING / "zerodesk.spec").read_text()  # the bundle: an executable of that name


def test_startup_wm_class_is_the_class_qt_gives_the_window(qapp):
    # Qt's xcb window carries WM_CLASS = (program name, application name); the application name is fixed.
    from zerodesk.gui.app import _application

    app = _application(offscreen=True)
    assert desktop_entry()["StartupWMClass"] == app.applicationName() == APP_NAME
    assert app.desktopFileName() == APP_ID  # Wayland's app_id


def test_one_main_category():
    categories = [c for c in desktop_entry()["Categories"].split(";") if c]
    assert len([c for c in categories if c in MAIN_CATEGORIES]) == 1


def test_every_declared_mime_type_is_defined_with_the_plan_suffix():
    root = ET.parse(PACKAGING / f"{APP_ID}.mime.xml").getroot()
    defined = {t.get("type"): t for t in root.iter(f"{MIME_NS}mime-type")}
    declared = [m for m in desktop_entry()["MimeType"].split(";") if m]
    assert declared and all(m in defined for m in declared)
    for mime in declared:
        globs = [g.get("pattern") for g in defined[mime].iter(f"{MIME_NS}glob")]
        assert f"*{PLAN_SUFFIX}" in globs


def test_metainfo_matches_app_id_version_and_screenshots():
    root = ET.parse(PACKAGING / f"{APP_ID}.metainfo.xml").getroot()
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == f"{APP_ID}.desktop"
    assert root.find("releases/release").get("version") == __version__
    images = root.findall("screenshots/screenshot/image")
    assert images
    for image in images:  # each is a file in docs/ that the screenshot mode made, at its real size
        local = ROOT / "docs" / image.text.rsplit("/", 1)[1]
        assert png_size(local) == (int(image.get("width")), int(image.get("height")))
    assert {b.text for b in root.findall("provides/binary")} == {"zerodesk", "zerodesk-gui"}


def test_the_icon_exists_in_every_size_and_format():
    ET.parse(ICONS / "zerodesk.svg")  # well-formed
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        assert png_size(ICONS / f"zerodesk-{size}.png") == (size, size)
    ico = (ICONS / "zerodesk.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1) and count >= 6
    sizes = {ico[6 + 16 * i] or 256 for i in range(count)}  # width byte; 0 means 256
    assert {16, 32, 48, 256} <= sizes
    icns = (ICONS / "zerodesk.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)


def test_the_window_has_the_icon(qapp):
    from zerodesk.gui.window.main_window import app_icon

    icon = app_icon()
    assert not icon.isNull() and icon.pixmap(64, 64).width() == 64


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils is not installed")
def test_desktop_file_validate():
    done = subprocess.run(["desktop-file-validate", str(PACKAGING / f"{APP_ID}.desktop")], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstream is not installed")
def test_appstreamcli_validate():
    done = subprocess.run(["appstreamcli", "validate", "--no-net", str(PACKAGING / f"{APP_ID}.metainfo.xml")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_install_script_puts_entry_icons_and_file_type_in_place_and_removes_them(tmp_path):
    prefix = tmp_path / "local"
    program = tmp_path / "my apps" / "zerodesk-gui"
    done = subprocess.run(["sh", str(PACKAGING / "install-desktop.sh"), "--prefix", str(prefix), "--exec", str(program)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    share = prefix / "share"
    installed = (share / "applications" / f"{APP_ID}.desktop").read_text()
    assert re.search(rf'^Exec="{re.escape(str(program))}" %f$', installed, re.MULTILINE)
    assert (share / "mime" / "packages" / f"{APP_ID}.xml").is_file()
    assert (share / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    assert png_size(share / "icons" / "hicolor" / "48x48" / "apps" / f"{APP_ID}.png") == (48, 48)
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(share / "applications" / f"{APP_ID}.desktop")],
                               capture_output=True, text=True)
        assert check.returncode == 0 and not check.stdout.strip(), check.stdout
    done = subprocess.run(["sh", str(PACKAGING / "install-desktop.sh"), "--prefix", str(prefix), "--uninstall"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert not list(share.rglob(f"{APP_ID}*"))


def test_install_script_takes_xdg_data_home_as_the_data_folder_whatever_it_ends_in(tmp_path):
    data = tmp_path / "xdg-data"  # not ending in /share: the files go straight into it, not into .../share
    env = dict(os.environ, XDG_DATA_HOME=str(data), HOME=str(tmp_path / "home"))
    done = subprocess.run(["sh", str(PACKAGING / "install-desktop.sh"), "--exec", "/opt/zd/zerodesk-gui"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert (data / "applications" / f"{APP_ID}.desktop").is_file()
    assert (data / "mime" / "packages" / f"{APP_ID}.xml").is_file()
    assert not (tmp_path / "share").exists() and not (data / "share").exists() and not (tmp_path / "home").exists()
    assert "search path" not in done.stderr  # update-mime-database's warning for a folder outside its path
