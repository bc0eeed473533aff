"""A plan with a huge tensor list, and how long the CLI and the window take with it. Prints figures.

    .venv/bin/python benchmarks/big_plan.py [--tensors 600000] [--distinct 40] [--edits 3] [--write FILE]

The file is what a model type without a built-in layout gives (a `tensors` list from transformers) for a
mixture of experts with very many small experts: --tensors tensors in short names, compact JSON (about
20 bytes a tensor: 600,000 tensors make a 12 MB file, under the 16 MiB a plan may be), torch profile.
--distinct sets how many different shapes there are (a real model has a few dozen; --distinct 0 gives
every tensor its own shape, the worst case for aggregation).

Figures (wall seconds, offscreen Qt, one process each so nothing is shared between them):
  cli           `zerodesk plan --plan FILE --json`, a fresh process;
  window open   open_plan_file(FILE) in a shown main window until both charts show it;
  edit          one form edit (Nd typed into its field) until both charts show it, median of --edits;
  longest stall the longest gap between two ticks of a 10 ms GUI-thread timer during the open, that is how
                long the window did not answer (it should stay under a few hundred ms).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def big_plan(tensors: int, distinct: int, seed: int = 0) -> dict:
    """The plan's JSON data: `tensors` tensors cycling through `distinct` shapes (0: every shape its own)."""
    rng = random.Random(seed)
    if distinct:
        shapes = [[rng.choice((64, 128, 256, 512)) * rng.randint(1, 8), rng.choice((64, 128, 256))]
                  for _ in range(distinct)]
        shapes += [[rng.choice((64, 128, 256))]] * (distinct // 4)  # biases and norms: 1-D
        listing = [[f"e{i}", shapes[i % len(shapes)]] for i in range(tensors)]
    else:
        listing = [[f"e{i}", [rng.randint(1, 4096), rng.randint(1, 512)]] for i in range(tensors)]
    return {"schema_version": 1, "model": {"name": f"{tensors:,} tensors", "tensors": listing},
            "cluster": {"nodes": 1, "gpus_per_node": 8}, "profile": "torch"}


def write_plan(path: Path, tensors: int, distinct: int) -> int:
    text = json.dumps(big_plan(tensors, distinct), separators=(",", ":"))
    path.write_text(text, encoding="utf-8")
    return len(text.encode())


WINDOW = r"""
import os, statistics, sys, tempfile, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from zerodesk.gui.app import create_window
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
path, edits = sys.argv[1], int(sys.argv[2])
w = create_window(headless=True)
w.quiet = True
w.resize(1440, 900)
w.show()
app = QApplication.instance()
while not w.startup.is_done():
    app.processEvents()

ticks = []
timer = QTimer()
timer.setInterval(10)
timer.timeout.connect(lambda: ticks.append(time.perf_counter()))

def settle(done, limit=600.0):
    t0 = time.perf_counter()
    while not done() and time.perf_counter() - t0 < limit:
        app.processEvents()
        time.sleep(0.001)
    app.processEvents()
    w.chart.viewport().repaint()
    w.dp_chart.viewport().repaint()
    return time.perf_counter() - t0

def shows(nd):
    p = w.model.plan
    return (p is not None and p.model.tensors is not None and p.dp == nd and w.dp_chart._plan is p
            and w.chart.plan is p and w.document.path is not None)

timer.start()
t0 = time.perf_counter()
ticks.append(t0)
opened = w.open_plan_file(path, ask=False)
open_s = time.perf_counter() - t0 + settle(lambda: shows(8))
timer.stop()
stall = max(b - a for a, b in zip(ticks, ticks[1:] + [time.perf_counter()]))
print(f"OPEN opened={opened} seconds={open_s:.3f} stall={stall:.3f} msg={w.statusBar().currentMessage()[:80]!r}", flush=True)
field = w.form.field("cluster.gpus_per_node")
times = []
for i in range(edits):
    nd = 4 if i % 2 == 0 else 8
    t0 = time.perf_counter()
    field.setText(str(nd))
    field.textEdited.emit(str(nd))  # as a key typed: the preview
    field.editingFinished.emit()  # and Enter
    times.append(time.perf_counter() - t0 + settle(lambda: shows(nd)))
print(f"EDIT median={statistics.median(times):.3f} all={' '.join(f'{t:.3f}' for t in times)}", flush=True)
w.ask_save_changes = lambda: __import__("PySide6.QtWidgets").QtWidgets.QMessageBox.StandardButton.Discard
"""


def run(args: list[str], timeout: float) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"{args[:4]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return time.perf_counter() - t0, done.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensors", type=int, default=600_000)
    ap.add_argument("--distinct", type=int, default=40, help="different shapes (0: each tensor its own)")
    ap.add_argument("--edits", type=int, default=3)
    ap.add_argument("--write", type=Path, help="only write the file here")
    ap.add_argument("--skip-cli", action="store_true")
    ap.add_argument("--timeout", type=float, default=900)
    args = ap.parse_args()
    if args.write:
        size = write_plan(args.write, args.tensors, args.distinct)
        print(f"wrote {args.write}: {args.tensors:,} tensors, {size / 1e6:.1f} MB")
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.zerodesk.json"
        size = write_plan(path, args.tensors, args.distinct)
        print(f"plan: {args.tensors:,} tensors, {args.distinct or 'all'} distinct shapes, {size / 1e6:.1f} MB, torch profile")
        if not args.skip_cli:
            seconds, _ = run([sys.executable, "-m", "zerodesk", "plan", "--plan", str(path), "--json"], args.timeout)
            print(f"cli           {seconds:8.2f} s")
        _, out = run([sys.executable, "-c", WINDOW, str(path), str(args.edits)], args.timeout)
        figures = dict(line.split(" ", 1) for line in out.splitlines() if line[:4] in ("OPEN", "EDIT"))
        opened = dict(kv.split("=", 1) for kv in figures["OPEN"].split(" ")[:3])
        edit = dict(kv.split("=", 1) for kv in figures["EDIT"].split(" ", 1)[:1])
        print(f"window open   {float(opened['seconds']):8.2f} s   (opened: {opened['opened']})")
        print(f"longest stall {float(opened['stall']):8.2f} s   (the GUI thread not answering during the open)")
        print(f"edit          {float(edit['median']):8.2f} s   median of {args.edits} ({figures['EDIT'].split('all=')[1]})")


if __name__ == "__main__":
    main()
