"""Saving keeps what users rely on: the file's mode, symlinks, long names, and no temp file after a kill."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zerodesk.core.plan import TEMP_PREFIX, ModelSpec, Plan, atomic_write_text, load_plan, save_plan, sweep_stale_temps

PLAN = Plan(model=ModelSpec(params=2 * 10**9))
posix = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits and signals")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@posix
def test_an_existing_files_mode_is_kept(tmp_path):
    path = tmp_path / "shared.zerodesk.json"
    path.write_text("{}")
    for bits in (0o644, 0o640, 0o664):
        os.chmod(path, bits)
        save_plan(PLAN, path)
        assert mode(path) == bits and load_plan(path) == PLAN


@posix
@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_follows_the_umask(tmp_path, umask, expected):
    old = os.umask(umask)
    try:
        save_plan(PLAN, tmp_path / "new.zerodesk.json")
    finally:
        os.umask(old)
    assert mode(tmp_path / "new.zerodesk.json") == expected


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_saving_through_a_symlink_writes_its_target(tmp_path):
    target = tmp_path / "real" / "plan.zerodesk.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = tmp_path / "link.zerodesk.json"
    link.symlink_to(target)
    save_plan(PLAN, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert load_plan(target) == PLAN


def test_a_249_character_name_can_be_saved(tmp_path):
    path = tmp_path / ("p" * (249 - len(".zerodesk.json")) + ".zerodesk.json")
    assert len(path.name) == 249
    save_plan(PLAN, path)
    assert load_plan(path) == PLAN and [p.name for p in tmp_path.iterdir()] == [path.name]


@posix
def test_a_kill_during_saves_leaves_no_temp_once_anyone_looks_again(tmp_path):
    """SIGKILL a process while it saves 20 MB over and over; the next save or open in the folder sweeps its temp."""
    path = tmp_path / "big.zerodesk.json"
    code = (f"from zerodesk.core.plan import atomic_write_text\nimport sys\nsys.stdout.write('go\\n'); sys.stdout.flush()\n"
            f"while True:\n    atomic_write_text({str(path)!r}, 'x' * 20_000_000)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"go\n"
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    sweep_stale_temps(tmp_path)  # what the next save here (or the window opening a file here) does first
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)] == []
    atomic_write_text(path, "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name] and path.read_text() == "{}"


def test_a_live_writers_temp_is_not_swept(tmp_path):
    from zerodesk.core import atomic_save as core

    live = tmp_path / f"{TEMP_PREFIX}{core._HOST_TAG}-{os.getpid()}-abcd.tmp"
    live.write_text("half")
    sweep_stale_temps(tmp_path)
    assert live.exists()


def test_a_failed_save_leaves_the_old_file_and_no_temp(tmp_path):
    path = tmp_path / "p.zerodesk.json"
    save_plan(PLAN, path)
    before = path.read_bytes()
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(path, "\udcff")  # cannot be encoded: fails before anything is named
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [path.name]
