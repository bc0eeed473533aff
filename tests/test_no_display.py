"""With no display, the window says so in one sentence before Qt aborts (Qt's xcb plugin would, exit 134)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zerodesk.gui.app import no_display

ROOT = Path(__file__).resolve().parents[1]


def test_no_display_is_found_only_where_x11_or_wayland_would_be_asked():
    sentence = no_display({}, "linux")
    assert sentence and "--screenshot" in sentence and "QT_QPA_PLATFORM=offscreen" in sentence
    assert "\n" not in sentence
    assert no_display({"DISPLAY": ":0"}, "linux") is None
    assert no_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert no_display({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None  # the user chose a platform
    assert no_display({}, "darwin") is None and no_display({}, "win32") is None
    assert no_display({}, "freebsd13") == sentence


def _headless_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="X11 and Wayland systems only")
@pytest.mark.parametrize("argv", [[], ["--preset", "gpt2"], ["--lesson", "2"]], ids=["window", "flags", "lesson"])
def test_the_window_without_a_display_is_one_sentence_not_an_abort(argv, tmp_path):
    out = subprocess.run([sys.executable, "-m", "zerodesk", *argv], capture_output=True, text=True, timeout=60,
                         env=_headless_env(), cwd=tmp_path)
    assert out.returncode == 1, (out.returncode, out.stderr[-500:])
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zerodesk: there is no display"), out.stderr
    assert "--screenshot" in lines[0] and "QT_QPA_PLATFORM=offscreen" in lines[0]


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="X11 and Wayland systems only")
def test_a_screenshot_needs_no_display(tmp_path):
    png = tmp_path / "w.png"
    out = subprocess.run([sys.executable, "-m", "zerodesk", "--screenshot", str(png)], capture_output=True,
                         text=True, timeout=120, env=_headless_env(), cwd=tmp_path)
    assert out.returncode == 0 and png.stat().st_size > 0, out.stderr
