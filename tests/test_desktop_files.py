"""One application id feeds the .desktop entry and the AppStream metadata."""

import configparser
import xml.etree.ElementTree as ET
from pathlib import Path

from zerodesk import APP_ID, __version__

PACKAGING = Path(__file__).resolve().parents[1] / "packaging"


def test_desktop_entry_matches_app_id():
    path = PACKAGING / f"{APP_ID}.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(path, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Icon"] == APP_ID and section["Exec"].startswith("zerodesk-gui")


def test_metainfo_matches_app_id_and_version():
    root = ET.parse(PACKAGING / f"{APP_ID}.metainfo.xml").getroot()
    assert root.findtext("id") == APP_ID
    assert root.find("launchable").text == f"{APP_ID}.desktop"
    assert root.find("releases/release").get("version") == __version__
