"""The terminal's view of a running `zerodesk measure` or `simulate`: one tqdm line on stderr.

Torch-free and Qt-free. It reads a RunState (what the run has said) and shows the stage and its place
among the asked ones, the rank reporting, its phase, the time elapsed and an estimate of the time left.
The estimate starts from rules.measure_seconds / simulate_seconds (the same figure the window shows
before a run) and leans on the run's own pace as its progress grows, so a slow or busy machine corrects
it. A timer thread redraws the line while the ranks start (torch imports for seconds and says nothing).
Only the front ends decide whether to show it (a terminal, no --json): see cli_text.show_progress.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable, TextIO

from tqdm import tqdm

from .protocol import Message
from .run_state import RunState

REDRAW_S = 0.5
FALLBACK_SIZE = (100, 24)  # a terminal that does not say its size (0 x 0: tqdm would draw nothing)


def fmt_seconds(seconds: float) -> str:
    """'8 s', '95 s' -> '1 min 35 s', '3,700 s' -> '1 h 2 min': rounded as a person would say it."""
    s = max(0, round(seconds))
    if s < 90:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s" if s < 600 else f"{round(s / 60)} min"
    return f"{s // 3600} h {round(s % 3600 / 60)} min"


def time_left(estimate_s: float, elapsed_s: float, progress: float, running_since_s: float | None) -> float | None:
    """Seconds left: the prior estimate, blended with the run's own pace in proportion to its progress.

    The pace counts from the first stage's start (`running_since_s`), since starting the ranks is a fixed
    cost the stages' progress does not cover. Past the blend, the pace alone; None when neither says more."""
    if progress <= 0 or running_since_s is None:
        left = estimate_s - elapsed_s
        return left if left > 0 else None
    paced = running_since_s + (elapsed_s - running_since_s) / progress
    for total in ((1 - progress) * estimate_s + progress * paced, paced):
        if total > elapsed_s:
            return total - elapsed_s
    return None


class _Bar(tqdm):
    """tqdm with one more field for bar_format: {tail}, the text after the bar (tqdm's {postfix} adds a comma)."""

    tail = ""

    @property
    def format_dict(self):
        return {**super().format_dict, "tail": self.tail}


class ProgressLine:
    """A tqdm bar over a RunState: hand it each message (apply), close() at the end (the line is erased).

    It applies the messages to the state itself, under the lock its redraw timer takes too."""

    def __init__(self, state: RunState, estimate: Callable[[str | None], float], stream: TextIO,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """estimate(device): the prior in seconds, asked again once the run says which device it got."""
        self.state, self.estimate, self.clock = state, estimate, clock
        self.t0 = clock()
        self.estimate_s = estimate(None)
        self._device: str | None = None
        self._running_since: float | None = None
        self._lock = threading.Lock()
        try:
            sized = min(os.get_terminal_size(stream.fileno())) > 0
        except (AttributeError, OSError, ValueError):
            sized = False
        columns, rows = (None, None) if sized else FALLBACK_SIZE
        self.bar = _Bar(total=100, file=stream, leave=False, mininterval=0, dynamic_ncols=sized, ncols=columns,
                        nrows=rows, bar_format="{desc} {percentage:3.0f}%|{bar}| {tail}")
        self._stop = threading.Event()
        self._timer = threading.Thread(target=self._tick, daemon=True)
        self._timer.start()
        self.update()

    def describe(self) -> str:
        """'stage 2 (3 of 4), rank 0 of 2: backward', or what the run is doing before its first stage."""
        st = self.state
        stage = st.current_stage()
        if st.started is None:
            return "starting the ranks (torch imports)"
        if stage is None:
            return "finishing" if st.results else "setting up"
        place = f"{st.stages.index(stage) + 1} of {len(st.stages)}"
        phase = st.stage_status(stage).phase or "setup"
        who = f"rank 0 of {st.ranks}" + (" (simulated)" if st.kind == "simulated" else "")
        return f"stage {stage} ({place}), {who}: {phase}"

    def apply(self, msg: Message) -> None:
        with self._lock:
            self.state.apply(msg)
        self.update()

    def update(self) -> None:
        with self._lock:
            now = self.clock() - self.t0
            st = self.state
            if st.started is not None and st.started.device != self._device:
                self._device = st.started.device
                self.estimate_s = self.estimate(self._device)
            if self._running_since is None and st.current_stage() is not None:
                self._running_since = now
            left = time_left(self.estimate_s, now, st.progress, self._running_since)
            eta = f", about {fmt_seconds(left)} left" if left is not None else ""
            self.bar.n = round(100 * st.progress, 1)
            self.bar.set_description_str(self.describe(), refresh=False)
            self.bar.tail = f"{fmt_seconds(now)} elapsed{eta}"
            self.bar.refresh()

    def _tick(self) -> None:
        while not self._stop.wait(REDRAW_S):
            self.update()

    def close(self) -> None:
        self._stop.set()
        self._timer.join(timeout=2 * REDRAW_S)
        with self._lock:
            self.bar.close()
