"""The collector is held while the window starts and given back, frozen, once everything is in place."""

from __future__ import annotations

import gc
import linecache

from zerodesk import start_collector


def test_hold_raises_the_young_threshold_and_release_restores_it_once():
    start_collector.release()  # whatever imported the window before this test
    usual = gc.get_threshold()
    frozen = gc.get_freeze_count()
    start_collector.hold()
    start_collector.hold()  # a second hold changes nothing: one release restores the usual thresholds
    assert start_collector.held() and gc.get_threshold()[0] >= start_collector.START_THRESHOLD
    assert gc.get_threshold()[1:] == usual[1:]
    gc.collect()  # an explicit collection still runs while held
    start_collector.release()
    assert not start_collector.held() and gc.get_threshold() == usual
    assert gc.get_freeze_count() > frozen  # what the start made is frozen, never scanned again
    start_collector.release()  # released: nothing more happens
    assert gc.get_threshold() == usual


def test_the_window_gives_the_collector_back_once_everything_is_in_place(window, qtbot):
    start_collector.hold()  # as a start through zerodesk.gui.app does
    window.startup.flush()  # what waited for the first paint is in place
    assert window.startup.is_done() and not start_collector.held()


def test_release_lets_go_of_the_sources_read_during_the_start():
    start_collector.release()
    start_collector.hold()
    assert linecache.getlines(start_collector.__file__)  # as PySide6 reads each module imported after it
    assert start_collector.__file__ in linecache.cache
    start_collector.release()
    assert start_collector.__file__ not in linecache.cache
