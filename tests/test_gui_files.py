"""The window's open and save paths under hostile files and concurrent edits (real widgets, offscreen)."""

from __future__ import annotations

import json
import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import discard
from hostile_inputs import VALID_PLAN, hostile_files
from zerodesk.core.plan import ModelSpec, Plan, load_plan, save_plan


@pytest.fixture
def files(tmp_path):
    return hostile_files(tmp_path / "hostile")


def type_params(qtbot, window, text: str) -> None:
    field = window.form.field("model.params")
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)


def snapshot(window):
    return (window.model.plan, window.document.path, window.is_modified(), window.windowTitle())


REFUSED = ["big_int", "deep", "deep_objects", "gpu_10e400", "float_1e400", "nan", "params_true", "params_1_5",
           "schema_negative", "nodes_float", "nodes_huge", "tied_string", "utf16", "binary", "truncated", "empty",
           "array", "string", "sparse_200mb", "folder", "missing", "long_name", "nul_in_name", "symlink_loop", "fifo",
           "dev_zero", "dev_urandom"]


def test_every_hostile_file_is_refused_and_leaves_the_document_untouched(window, files, qtbot):
    window.show_card_example()
    before = snapshot(window)
    card_json = json.dumps(json.loads(window.model.plan.model_dump_json()))
    for name in REFUSED:
        if name not in files:
            continue
        t0 = time.perf_counter()
        assert window.open_plan_file(files[name], ask=False) is False, name
        assert time.perf_counter() - t0 < 1.0, name
        assert snapshot(window) == before, name
        message = window.statusBar().currentMessage()
        assert message and "\n" not in message, (name, message)
    # the data-loss case: a refused file is not the document, so Save cannot overwrite it with the card example
    bad = files["gpu_10e400"].read_bytes()
    assert window.document.path is None
    assert json.dumps(json.loads(window.model.plan.model_dump_json())) == card_json
    assert files["gpu_10e400"].read_bytes() == bad


def test_opening_from_the_recent_menu_never_raises(window, files, qtbot):
    """pytest-qt fails the test if a slot raises; the user gets a sentence in the status bar instead."""
    names = ("big_int", "deep", "gpu_10e400", "sparse_200mb", "missing")
    for name in names:
        window.settings.add_recent(files[name])
    window._rebuild_recent_menu()
    for path in list(window.settings.recent_files):
        (action,) = [a for a in window.menu_recent.actions() if a.data() == path]
        action.trigger()  # a failed open rebuilds the menu: look the next action up again
        assert window.statusBar().currentMessage()
    assert window.document.path is None
    assert str(files["missing"].resolve()) not in window.settings.recent_files  # a vanished file leaves the list


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_fuzzed_plan_files_open_or_leave_everything_as_it_was(window, tmp_path, data):
    text = json.dumps(VALID_PLAN)
    mutation = data.draw(st.sampled_from(["cut", "insert", "replace", "value"]))
    if mutation == "value":
        key = data.draw(st.sampled_from(["schema_version", "seq_len", "micro_batch", "bandwidth_gbps", "units"]))
        value = data.draw(st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.text(max_size=20),
                                    st.none(), st.lists(st.integers(), max_size=3)))
        text = json.dumps({**VALID_PLAN, key: value})
    else:
        at = data.draw(st.integers(0, len(text)))
        piece = data.draw(st.text(max_size=12))
        text = {"cut": text[:at], "insert": text[:at] + piece + text[at:],
                "replace": text[:at] + piece + text[at + len(piece):]}[mutation]
    path = tmp_path / "fuzzed.zerodesk.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    before = snapshot(window)
    opened = window.open_plan_file(path, ask=False)
    if opened:
        assert window.document.path == path.resolve() and not window.is_modified()
    else:
        assert snapshot(window) == before


def save_answering(window, answer: bool):
    asked = []
    window.ask_overwrite_changed = lambda conflict: asked.append(conflict) or answer
    return asked


def test_a_file_changed_on_disk_is_not_overwritten_without_asking(window, tmp_path, qtbot):
    path = tmp_path / "p.zerodesk.json"
    save_plan(Plan(model=ModelSpec(params=10**9)), path)
    assert window.open_plan_file(path, ask=False)
    other = Plan(model=ModelSpec(params=3 * 10**9))
    save_plan(other, path)  # another program writes it
    asked = save_answering(window, False)
    assert window.save() is False and len(asked) == 1 and not asked[0].deleted
    assert load_plan(path) == other
    asked = save_answering(window, True)
    assert window.save() is True and load_plan(path).params == 10**9


def test_a_deleted_file_is_not_silently_recreated(window, tmp_path, qtbot):
    path = tmp_path / "p.zerodesk.json"
    save_plan(Plan(model=ModelSpec(params=10**9)), path)
    assert window.open_plan_file(path, ask=False)
    path.unlink()
    asked = save_answering(window, False)
    assert window.save() is False and asked[0].deleted and not path.exists()


def test_two_windows_saving_the_same_file(qtbot, gui_settings, tmp_path):
    from zerodesk.gui.window.main_window import MainWindow

    path = tmp_path / "shared.zerodesk.json"
    save_plan(Plan(model=ModelSpec(params=10**9)), path)
    first, second = MainWindow(gui_settings, persist=False), MainWindow(gui_settings, persist=False)
    for w in (first, second):
        w.quiet = True
        qtbot.addWidget(w)
        w.ask_reload_changed = lambda modified: False
        w.ask_save_changes = discard  # closing at the end must not wait for an answer
        assert w.open_plan_file(path, ask=False)
    type_params(qtbot, first, "2B")
    assert first.save()
    type_params(qtbot, second, "5B")
    asked = save_answering(second, False)
    assert second.save() is False and len(asked) == 1  # the second does not silently win
    assert load_plan(path).params == 2 * 10**9
    # and the first notices when the second does write: it no longer shows "not modified"
    save_answering(second, True)
    assert second.save()
    qtbot.waitUntil(lambda: first.is_modified(), timeout=3000)


def test_an_external_edit_offers_to_reload(window, tmp_path, qtbot):
    path = tmp_path / "p.zerodesk.json"
    save_plan(Plan(model=ModelSpec(params=10**9)), path)
    assert window.open_plan_file(path, ask=False)
    offers = []
    window.ask_reload_changed = lambda modified: offers.append(modified) or True
    save_plan(Plan(model=ModelSpec(params=4 * 10**9)), path)
    qtbot.waitUntil(lambda: bool(offers), timeout=3000)
    assert offers == [False]
    qtbot.waitUntil(lambda: window.model.plan.params == 4 * 10**9, timeout=3000)
    assert not window.is_modified()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_saving_an_opened_symlink_keeps_the_link(window, tmp_path, qtbot):
    target = tmp_path / "target.zerodesk.json"
    save_plan(Plan(model=ModelSpec(params=10**9)), target)
    link = tmp_path / "link.zerodesk.json"
    link.symlink_to(target)
    assert window.open_plan_file(link, ask=False)
    type_params(qtbot, window, "2B")
    assert window.save()
    assert link.is_symlink() and load_plan(target).params == 2 * 10**9


def test_a_200_kb_plan_opens_within_a_second(window, files, qtbot):
    """A huge model name once froze the window for tens of seconds (a quadratic "did you mean" over the presets)."""
    t0 = time.perf_counter()
    assert window.open_plan_file(files["name_200k"], ask=False)
    window.tabs.setCurrentIndex(window.tabs.count() - 1)  # the Measure tab renders the plan too
    qtbot.wait(10)
    assert time.perf_counter() - t0 < 1.0
    assert len(window.plan_tab.caption.text()) < 2000  # the name is shown cut, on one line


def test_a_change_the_watcher_missed_is_still_noticed(qtbot, gui_settings, tmp_path):
    """The file watcher can miss a write (a rename racing the re-watch, a file system without inotify): the
    document also looks at the file's stat every few seconds."""
    from zerodesk.gui.window.main_window import MainWindow

    path = tmp_path / "shared.zerodesk.json"
    save_plan(Plan(model=ModelSpec(params=10**9)), path)
    w = MainWindow(gui_settings, persist=False)
    w.quiet = True
    qtbot.addWidget(w)
    w.ask_reload_changed = lambda modified: False
    w.ask_save_changes = discard
    assert w.open_plan_file(path, ask=False)
    watcher = w.document._watcher
    watcher.blockSignals(True)  # the watcher misses everything from now on
    save_plan(Plan(model=ModelSpec(params=3 * 10**9)), path)  # another program writes the file
    qtbot.waitUntil(lambda: w.is_modified(), timeout=5000)
