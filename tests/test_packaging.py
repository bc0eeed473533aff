"""resources/ ships inside the wheel and is found from a wheel install and from this checkout."""

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    (whl,) = out.glob("zerodesk-*.whl")
    return whl


def test_wheel_contains_resources_and_entry_points(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("zerodesk/resources/catalogs/models.json", "zerodesk/resources/catalogs/gpus.json",
                   "zerodesk/resources/glossary/en.json", "zerodesk/resources/glossary/ru.json"):
        assert needed in names
    assert any(n.startswith("zerodesk/resources/translations/") and n.endswith(".qm") for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "zerodesk = zerodesk.cli:main" in text and "zerodesk-gui = zerodesk.gui.app:main" in text


def test_resources_found_from_wheel_install(wheel, tmp_path):
    env_dir = tmp_path / "env"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    zipfile.ZipFile(wheel).extractall(site)  # a wheel install is an unzip into site-packages
    code = "from zerodesk.resources import resource; print(resource('catalogs', 'models.json'))"
    found = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    assert found.strip().startswith(site) and found.strip().endswith("zerodesk/resources/catalogs/models.json")


def test_resources_found_from_checkout():
    from zerodesk.resources import resources_dir

    assert resources_dir() == ROOT / "resources"
