"""Saving keeps what users rely on: the file's mode, symlinks, long names, and no temp file after a kill."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
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


# The writer stops itself at a chosen point of the save and waits to be killed there, so the kill always lands
# mid-save: while the data is being written, or with the temp named and the rename not yet done.
_STOPPING_WRITER = """
import os, sys, time
from zerodesk.core.plan import atomic_write_text
where, path, named = sys.argv[1], sys.argv[2], sys.argv[3] == "named"
if named:  # no O_TMPFILE: the temp has a name from its first byte
    os.O_TMPFILE = 0
def stop(*args, **kwargs):
    sys.stdout.write("stopped\\n"); sys.stdout.flush()
    time.sleep(600)
if where == "write":
    os.fsync = stop  # the data is written, not yet flushed or renamed
else:
    os.replace = stop  # the temp is complete and named, the rename not done
atomic_write_text(path, "x" * 2_000_000)
"""


@posix
@pytest.mark.parametrize("named", [False, True], ids=["unnamed-temp", "named-temp"])
@pytest.mark.parametrize("where", ["write", "rename"])
def test_a_kill_mid_save_leaves_the_old_file_and_no_temp_once_anyone_looks_again(tmp_path, where, named):
    """SIGKILL a writer stopped mid-save; the old file is whole and the next save or open in the folder sweeps its temp."""
    path = tmp_path / "big.zerodesk.json"
    path.write_text("old")
    proc = subprocess.Popen([sys.executable, "-c", _STOPPING_WRITER, where, str(path), "named" if named else "unnamed"],
                            stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"stopped\n"
        temps = [p.name for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]
        # a named temp exists mid-save; an unnamed one gets its name only for the rename
        assert len(temps) == (1 if named or where == "rename" else 0)
    finally:
        proc.kill()
        proc.wait()
    assert path.read_text() == "old"
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
