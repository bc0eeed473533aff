"""resources/ ships inside the wheel and is found from a wheel install and from this checkout."""

import os
import re
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


def test_wheel_carries_the_licence_and_no_translation_sources(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not [n for n in names if n.endswith(".ts")]


def test_torch_is_an_extra_that_the_test_extra_pulls(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    requires = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    torch = [r for r in requires if r.startswith("torch")]
    assert torch and all("extra ==" in r for r in torch)  # `pip install zerodesk` plans without torch
    assert {r.split("extra == ")[1].strip("'\"") for r in torch} >= {"measure", "test"}
    assert "License-Expression: MIT" in metadata and "Project-URL: Source, https://" in metadata


def test_sdist_carries_docs_and_licence(tmp_path):
    subprocess.run([sys.executable, "-m", "hatchling", "build", "-t", "sdist", "-d", str(tmp_path)], cwd=ROOT,
                   check=True, capture_output=True, timeout=300)
    import tarfile

    (sdist,) = tmp_path.glob("zerodesk-*.tar.gz")
    names = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    for image in re.findall(r"\]\((docs/[^)]+)\)", (ROOT / "README.md").read_text()):
        assert image in names  # README's images
    assert {"LICENSE", "packaging/zerodesk.spec", "resources/icons/zerodesk.svg"} <= names
    # nothing else from the checkout: a built bundle (.ci/run's build/dist/zerodesk/) once shipped inside
    assert {n.split("/")[0] for n in names} == {"zerodesk", "resources", "tests", "benchmarks", "packaging", "docs",
                                                "README.md", "LICENSE", "pyproject.toml", "PKG-INFO", ".gitignore"}


def test_version():
    done = subprocess.run([sys.executable, "-m", "zerodesk", "--version"], capture_output=True, text=True, check=True)
    from zerodesk import __version__

    assert done.stdout.strip() == f"zerodesk {__version__}"


def test_the_planner_and_the_window_never_need_torch(tmp_path):
    # torch made unimportable: `zerodesk plan`, `--screenshot` and the measure CLI's own checks still work
    code = ("import sys; sys.modules['torch'] = None; from zerodesk.cli import main; "
            "sys.exit(main(sys.argv[1:]))")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    plan = subprocess.run([sys.executable, "-c", code, "plan", "--preset", "card-example", "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert plan.returncode == 0, plan.stderr
    shot = tmp_path / "shot.png"
    done = subprocess.run([sys.executable, "-c", code, "--screenshot", str(shot)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_bundle_ships_every_module_the_worker_imports():
    """The bundle carries the worker as .py sources (packaging/zerodesk.spec, worker_sources) for an external Python:
    every zerodesk module the worker/ package reaches, its subpackage included, must be among them."""
    import ast

    grimp = pytest.importorskip("grimp")
    spec = (ROOT / "packaging" / "zerodesk.spec").read_text()
    (func,) = [n for n in ast.parse(spec).body if isinstance(n, ast.FunctionDef) and n.name == "worker_sources"]
    scope: dict = {"root": ROOT, "Path": Path, "WORKER_DIR": "zerodesk-worker"}
    exec(compile(ast.Module([func], []), "zerodesk.spec", "exec"), scope)
    shipped = {Path(dest, Path(src).name) for src, dest in scope["worker_sources"]()}

    graph = grimp.build_graph("zerodesk", cache_dir=None)
    worker = {m for m in graph.modules if m == "zerodesk.measure.worker" or m.startswith("zerodesk.measure.worker.")}
    needed = set(worker)
    for module in worker:
        needed |= graph.find_upstream_modules(module)
    files = set()
    for module in needed:
        path = ROOT.joinpath(*module.split("."))
        files.add(Path("zerodesk-worker", *module.split(".")[:-1], path.name + ".py") if not path.is_dir()
                  else Path("zerodesk-worker", *module.split("."), "__init__.py"))
    assert Path("zerodesk-worker/zerodesk/measure/worker/__main__.py") in files | shipped
    assert not files - shipped, sorted(files - shipped)
