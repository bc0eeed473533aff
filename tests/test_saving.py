"""Saving keeps what users rely on: the file's mode, symlinks, long names, and no temp file after a kill."""

from __future__ import annotations

import os
import stat
import time
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

    live = tmp_path / f"{TEMP_PREFIX}{core.host_tag()}-{os.getpid()}-abcd.tmp"
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


# --- a file changed on disk, whatever it changed into, is never overwritten (issue 27, item 3) ---

from zerodesk.core import atomic_save  # noqa: E402
from zerodesk.core.disk_state import CREATED, FileChangedOnDisk, change_since, observe  # noqa: E402
from zerodesk.core.plan import PlanError, plan_to_json  # noqa: E402

from changes_on_disk import CHANGE_NAMES, OTHER  # noqa: E402
from changes_on_disk import changes_on_disk as _changes  # noqa: E402


@posix
@pytest.mark.parametrize("name", CHANGE_NAMES)
def test_a_save_never_overwrites_a_file_changed_on_disk_whatever_it_became(tmp_path, name):
    path = tmp_path / "plan.zerodesk.json"
    save_plan(PLAN, path)
    seen = observe(path, path.read_bytes())
    cases = _changes(tmp_path)
    if name not in cases:
        pytest.skip("device nodes need root")
    change, kind = cases[name]
    change(path)
    before = {p.name: (os.lstat(p).st_mode, os.lstat(p).st_size) for p in tmp_path.iterdir()}
    t0 = time.perf_counter()
    found = change_since(path, seen)
    assert time.perf_counter() - t0 < 0.5  # a 100 GB file is judged by its size
    assert found is not None and found.kind == kind, found
    with pytest.raises(FileChangedOnDisk) as refused:
        save_plan(PLAN, path, expect=seen)
    assert str(path) in str(refused.value) and "\n" not in str(refused.value)
    after = {p.name: (os.lstat(p).st_mode, os.lstat(p).st_size) for p in tmp_path.iterdir()}
    assert after == before  # nothing written, nothing left behind
    if name == "link_elsewhere":
        assert load_plan(tmp_path / "other.zerodesk.json") == OTHER


def test_the_same_bytes_rewritten_or_an_untouched_file_count_as_unchanged(tmp_path):
    path = tmp_path / "plan.zerodesk.json"
    save_plan(PLAN, path)
    seen = observe(path)
    assert change_since(path, seen) is None
    path.unlink()
    path.write_text(plan_to_json(PLAN))  # another window saved the very same plan: a new inode, equal bytes
    assert change_since(path, seen) is None
    report = save_plan(OTHER, path, expect=seen)
    assert load_plan(path) == OTHER and report.split_links == 0 and report.owner_kept


def test_a_file_created_where_there_was_none_is_a_change(tmp_path):
    path = tmp_path / "new.zerodesk.json"
    seen = observe(path)
    path.write_text("{}")
    assert change_since(path, seen).kind == CREATED
    with pytest.raises(FileChangedOnDisk):
        save_plan(PLAN, path, expect=seen)
    assert path.read_text() == "{}"


@posix
def test_a_change_made_while_the_temp_is_written_is_caught_before_the_rename(tmp_path, monkeypatch):
    path = tmp_path / "plan.zerodesk.json"
    save_plan(PLAN, path)
    seen = observe(path)
    real_write = atomic_save._write_all

    def write_then_someone_edits(fd, data):
        real_write(fd, data)
        path.write_text(plan_to_json(OTHER))  # another program saves between our first check and the rename

    monkeypatch.setattr(atomic_save, "_write_all", write_then_someone_edits)
    with pytest.raises(FileChangedOnDisk):
        save_plan(PLAN, path, expect=seen)
    assert load_plan(path) == OTHER and sorted(p.name for p in tmp_path.iterdir()) == [path.name]


# --- saving caveats (item 10): special files, owner and group, hard links, whose temps are swept ---

@posix
def test_saving_through_a_symlink_to_a_fifo_or_device_is_refused_and_leaves_it_as_it_is(tmp_path):
    specials = [tmp_path / "a.fifo"]
    os.mkfifo(specials[0])
    if os.geteuid() == 0:
        specials.append(tmp_path / "null")
        os.mknod(specials[1], stat.S_IFCHR | 0o666, os.makedev(1, 3))
    for special in specials:
        kind = os.lstat(special).st_mode
        link = tmp_path / f"{special.name}.zerodesk.json"
        link.symlink_to(special)
        with pytest.raises(PlanError, match=r"cannot save plan file .*: it leads to a (FIFO|device), not a regular file"):
            save_plan(PLAN, link)
        assert os.lstat(special).st_mode == kind and link.is_symlink()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]


@posix
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changing owners needs root")
def test_root_saving_a_users_file_keeps_its_owner_group_and_mode(tmp_path):
    path = tmp_path / "theirs.zerodesk.json"
    path.write_text("{}")
    os.chown(path, 12345, 23456)
    os.chmod(path, 0o640)
    report = save_plan(PLAN, path)
    info = os.stat(path)
    assert (info.st_uid, info.st_gid, mode(path)) == (12345, 23456, 0o640) and report.owner_kept
    assert load_plan(path) == PLAN


@posix
def test_a_split_hard_link_is_reported(tmp_path):
    path = tmp_path / "plan.zerodesk.json"
    path.write_text("{}")
    os.link(path, tmp_path / "second-name.json")
    report = save_plan(PLAN, path)
    assert report.split_links == 1
    assert (tmp_path / "second-name.json").read_text() == "{}"  # what a rename does: the other name keeps the old bytes
    assert save_plan(PLAN, path).split_links == 0


def _stale(path: Path) -> None:
    old = time.time() - 2 * atomic_save.STALE_TEMP_S
    os.utime(path, (old, old), follow_symlinks=False)


@posix
def test_the_sweep_deletes_only_temps_provably_ours(tmp_path):
    """Old files named like our temps survive unless they carry our mark or their name's digest; ours go."""
    dead_pid = 2**22 + 12345  # above the kernel's pid_max: no process has it
    host = atomic_save.host_tag()
    unmarked = tmp_path / f"{TEMP_PREFIX}{host}-{dead_pid}-0123abcd-{'0' * 16}.tmp"
    unmarked.write_text("someone's notes")  # a name of our pattern, but not our bytes and no mark
    old_style = tmp_path / f"{TEMP_PREFIX}{host}-{dead_pid}-0123abcd.tmp"
    old_style.write_text("a file named as our temps once were")
    by_content = tmp_path / atomic_save.temp_name(b"half a plan").replace(f"-{os.getpid()}-", f"-{dead_pid}-")
    by_content.write_bytes(b"half a plan")  # no mark, but the digest its name carries: ours
    by_mark = tmp_path / f"{TEMP_PREFIX}{host}-{dead_pid}-feedbeef-{'1' * 16}.tmp"
    by_mark.write_text("cut off mid-write")
    os.setxattr(by_mark, atomic_save.MARK_XATTR, b"feedbeef")
    wrong_mark = tmp_path / f"{TEMP_PREFIX}{host}-{dead_pid}-feedbeef-{'2' * 16}.tmp"
    wrong_mark.write_text("x")
    os.setxattr(wrong_mark, atomic_save.MARK_XATTR, b"00000000")
    link = tmp_path / f"{TEMP_PREFIX}{host}-{dead_pid}-0123abcd-{'3' * 16}.tmp"
    link.symlink_to(by_content)
    for p in (unmarked, old_style, by_content, by_mark, wrong_mark, link):
        _stale(p)
    sweep_stale_temps(tmp_path)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(p.name for p in (unmarked, old_style, wrong_mark, link))


@posix
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="files of another owner need root")
def test_the_sweep_leaves_another_users_temp_even_when_root(tmp_path):
    theirs = tmp_path / atomic_save.temp_name(b"their plan")
    theirs.write_bytes(b"their plan")
    os.chown(theirs, 12345, 12345)
    _stale(theirs)
    sweep_stale_temps(tmp_path)
    assert theirs.exists()


def test_a_saved_file_carries_no_temp_mark(tmp_path):
    path = tmp_path / "plan.zerodesk.json"
    save_plan(PLAN, path)
    with pytest.raises(OSError):
        os.getxattr(path, atomic_save.MARK_XATTR)


# --- big tensor lists in plan files (issue 27, item 6) -----------------------------------------------------------
from hostile_inputs import hostile_files  # noqa: E402
from zerodesk.core import plan as plan_module  # noqa: E402
from zerodesk.core.plan import parse_json, plan_from_json  # noqa: E402


def test_a_tensor_list_is_written_compactly_and_read_back_the_same(tmp_path):
    tensors = [(f"model.layers.{i // 10}.w{i % 10}", (256, 64 + i % 3)) for i in range(20_000)]
    plan = Plan(model=ModelSpec(name="many", tensors=tensors, hf_config={"model_type": "x", "tensors": []}))
    path = tmp_path / "many.zerodesk.json"
    save_plan(plan, path)
    assert path.stat().st_size < 40 * len(tensors)  # indented, one dimension a line, it took about 80 bytes a tensor
    assert load_plan(path) == plan
    assert path.read_text().startswith('{\n  "schema_version"')  # the rest stays indented


def test_a_plan_too_big_to_open_again_is_not_saved(tmp_path, monkeypatch):
    path = tmp_path / "big.zerodesk.json"
    path.write_text("{}")
    plan = Plan(model=ModelSpec(tensors=[(f"e{i}", (8, 8)) for i in range(2000)]))
    monkeypatch.setattr(plan_module, "MAX_FILE_BYTES", 10_000)  # the limit the reader holds a file to
    with pytest.raises(PlanError, match=r"cannot save plan file .*: the plan would take 0\.0 MiB, more than the 0 MiB"):
        save_plan(plan, path)
    assert path.read_text() == "{}"


def _careful(text: str):
    """A plan file's text read the careful way only (parse_json, then validation): what it was before the fast path."""
    try:
        return plan_module._plan_from_data(parse_json(text, "f"), "f", text)
    except PlanError as exc:
        return str(exc)


def _either(text: str):
    try:
        return plan_from_json(text, "f")
    except PlanError as exc:
        return str(exc)


def test_validating_straight_from_the_text_never_changes_what_a_file_gives(tmp_path):
    """Every hostile file, and free-form config values JSON has no number for, read as before: the same plan or
    the same sentence."""
    texts = []
    for path in hostile_files(tmp_path / "h").values():
        try:
            if path.is_file() and path.stat().st_size < 2**20:
                texts.append(path.read_bytes().decode("utf-8-sig"))
        except (OSError, UnicodeDecodeError):
            continue
    base = '{"schema_version": 1, "model": {"tensors": [["a", [2, 3]]], "hf_config": {"x": VALUE}}}'
    texts += [base.replace("VALUE", v) for v in ("NaN", "Infinity", "-Infinity", "1e400", "1" * 41, "[" * 300 + "]" * 300,
                                                  '"\\ud800"', "1.5", '[1, {"a": null}]')]
    texts += ['{"model": {"params": 5}, "model": {"params": 7}}', '{"model_type": "llama", "hidden_size": 8}',
              '{"model": {"tensors": [["a", [2, -3]]]}}', '{"model": {"tensors": [["a", [2, 3.0]]]}}']
    assert len(texts) > 30
    for text in texts:
        assert _either(text) == _careful(text), text[:80]
