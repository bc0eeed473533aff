"""Window benchmarks: cold start to a shown window, and edit-to-redraw latency. Prints figures.

    .venv/bin/python benchmarks/bench_gui.py [--starts 5] [--edits 300] [--nd-edits 40] [--baseline DIR ...] [--only PART]

Cold start: wall time from launching a fresh Python process to the main window shown and
painted once (offscreen platform, so no compositor; a real display adds its own frame), side by
side with a bare PySide6 + pyqtgraph window holding one PlotWidget, started alternately; target:
at most 1.5x the bare window. The first frame holds the form with the plan and the stage chart with its
computed states; what it does not need (the Nd chart below them, the glossary's card, the window icon,
the keyboard filter; the Table and Measure tabs are built when first opened) is done right after it,
and the time until all of that is in place and painted (READY) is printed too. ZeroDesk is imported as `zerodesk` imports it
(the core before Qt) and from bytecode, as an installed app runs. Targets: first paint at most 1.3x, ready at most 1.5x.
Whole process through --screenshot: `python -m zerodesk --screenshot out.png` from launch to exit, beside a bare process
that shows the same PlotWidget window, grabs it and writes the PNG; target: at most 1.5x.
--baseline DIR: another checkout of ZeroDesk (such as main's; give it again for more) started in the same alternating loop, so a change is
timed before and after under the same machine load.
Large clusters: an edit under the torch profile at Nd 1,024 / 16,384 / 65,536, longest blocking
of the GUI thread; target: never over 50 ms.
Edit-to-redraw, per field (P, scheme, profile, GPU, GPU memory, Nd, sequence, micro-batch, recompute, accumulation,
shard group, offload, parameter dtype, prefetch; a field the plan turns off is skipped), on the card example (raw
P), on Llama 2 7B under both profiles and on heavy plans (Llama 2 70B and 13B on 8 x 8 H100 with optimizer+params
offload, HSDP, accumulation, full recompute, micro-batch > 1, 8-bit Adam; raw P = 175e9 at Nd 4,096 with optimizer
offload), each field from its plan as named (a preset on the window's own first plan, whatever the fields timed before it
left in the form): one user edit (a key typed into a line edit, a combo choice) to the
model and every live view updated ("data"), then the event loop's turn that paints what changed (the view in
front with its charts, the form, the glossary); with the Plan tab and then the Table tab in front. Median and p90
of wall time and of the GUI thread's own CPU time (steadier on a shared machine); target: median <= 16 ms and
p90 <= 25 ms for every field. --baseline DIR times another checkout the same way: each side runs in its own child
processes (the baseline under DIR/.venv when it has one), started alternately (--rounds), side by side.
A child starts as `zerodesk` does (zerodesk.gui.app first: the collector held through the start, whose objects are
frozen once it is done), and the edits begin after the start's last step, as a user's would.
Quit: from Quit (Ctrl+Q) to the process gone, the Measure tab opened first (its interpreter check may
still run); target: under 0.3 s (Python's own teardown took 0.7-1.4 s here, 2-3 s on a busy machine).
Fit view: the same fields with the Fit tab in front (the solver's answer and map recomputed and the tab repainted),
on Llama 2 70B and 7B under both profiles, side by side with --baseline as above. The tab is built only when
opened, so the cold start above does not include it.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
t0 = time.perf_counter()
from zerodesk.gui.app import create_window  # the core, then Qt: the order `zerodesk` itself imports in
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
# settings in the parent's throwaway folder (tempfile here would charge ZeroDesk ~10-40 ms the bare window never pays)
QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, os.environ["BENCH_SETTINGS_DIR"])
t1 = time.perf_counter()
w = create_window(headless=True)
t2 = time.perf_counter()
w.resize(1440, 900)
w.show()
QApplication.processEvents()
w.chart.viewport().repaint()  # the stage chart; the Nd chart is built and drawn after the first paint
t3 = time.perf_counter()
print(f"SHOWN imports={t1 - t0:.4f} build={t2 - t1:.4f} show={t3 - t2:.4f} cpu={time.process_time():.4f} "
      f"torch={'torch' in sys.modules}", flush=True)
while not (w.startup.is_done() and w.glossary.is_loaded()) and time.perf_counter() - t3 < 10:  # what waited for the first paint
    QApplication.processEvents()
QApplication.processEvents()
w.dp_chart.viewport().repaint()
print(f"READY after={time.perf_counter() - t3:.4f} cpu={time.process_time():.4f}", flush=True)
"""


BARE = r"""
import os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
t0 = time.perf_counter()
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication, QMainWindow
t1 = time.perf_counter()
app = QApplication([])
w = QMainWindow()
plot = pg.PlotWidget()
w.setCentralWidget(plot)
t2 = time.perf_counter()
w.resize(1440, 900)
w.show()
QApplication.processEvents()
plot.viewport().repaint()
t3 = time.perf_counter()
print(f"SHOWN imports={t1 - t0:.4f} build={t2 - t1:.4f} show={t3 - t2:.4f} cpu={time.process_time():.4f} torch=False",
      flush=True)
"""


BARE_SCREENSHOT = r"""
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
w = QMainWindow()
w.setCentralWidget(pg.PlotWidget())
w.resize(1440, 900)
w.show()
QApplication.processEvents()
sys.exit(0 if w.grab().save(sys.argv[1], "PNG") else 1)
"""


def _process_once(args: list[str], env: dict) -> float:
    """Wall time of a whole process, launch to exit."""
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=env["BENCH_ROOT"], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=120)
    return time.perf_counter() - start


def _start_once(code: str, env: dict) -> tuple[float, dict, float]:
    """Wall time to the first painted window, its parts (with the process's CPU time then, `cpu`, and at ready,
    `ready_cpu`), and the wall time until the work that waited for the first paint (the Nd chart, the glossary's
    card...) is done too (the same as the first for the bare window)."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=env["BENCH_ROOT"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    shown, ready, part = None, None, {}
    for line in proc.stdout:
        if line.startswith("SHOWN"):
            shown = time.perf_counter() - start
            part = dict(kv.split("=") for kv in line.split()[1:])
        elif line.startswith("READY"):
            ready = time.perf_counter() - start
            part["ready_cpu"] = dict(kv.split("=") for kv in line.split()[1:])["cpu"]
    proc.wait(timeout=60)
    part.setdefault("ready_cpu", part.get("cpu"))
    return shown, part, ready or shown


_SETTINGS_DIR = tempfile.mkdtemp(prefix="bench_gui_settings_")  # the children's settings: never the user's


def _env(root: Path) -> dict:
    # An installed ZeroDesk runs from bytecode (pip and PyInstaller compile it); where writing it is
    # turned off (PYTHONDONTWRITEBYTECODE), every start would time the compiler too (~90 ms), not the app.
    compileall.compile_dir(root / "zerodesk", quiet=1)
    # run from that checkout too: `python -c` and `-m` put the working folder first on sys.path, so a baseline
    # child started in this checkout imported this checkout's zerodesk, not the baseline's
    return dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                BENCH_SETTINGS_DIR=_SETTINGS_DIR, BENCH_ROOT=str(root))


def _baselines(baseline: Path | list[Path] | None) -> list[Path]:
    return [] if baseline is None else [baseline] if isinstance(baseline, Path) else list(baseline)


def cold_start(runs: int, baseline: Path | list[Path] | None = None) -> None:
    sides = {"ZeroDesk": _env(ROOT)}
    for other in _baselines(baseline):
        sides[f"baseline ({other})"] = _env(other)
    walls = {name: [] for name in sides}
    parts = {name: [] for name in sides}
    readies = {name: [] for name in sides}
    bare, bare_cpu = [], []
    for _ in range(runs):  # alternate, so every side sees the same machine load and disk cache
        for name, env in sides.items():
            wall, part, ready = _start_once(CHILD, env)
            walls[name].append(wall)
            parts[name].append(part)
            readies[name].append(ready)
        wall, part, _ready = _start_once(BARE, sides["ZeroDesk"])
        bare.append(wall)
        bare_cpu.append(float(part["cpu"]))
    base, base_cpu = statistics.median(bare), statistics.median(bare_cpu)
    print(f"cold start, {runs} runs each, alternating (interpreter start included); medians:")
    print(f"  a bare PySide6 + pyqtgraph window with one PlotWidget: first paint {base * 1e3:.0f} ms "
          f"(min {min(bare) * 1e3:.0f}, max {max(bare) * 1e3:.0f})")
    for name in sides:
        first, ready = statistics.median(walls[name]), statistics.median(readies[name])
        print(f"  {name}: first paint {first * 1e3:.0f} ms (min {min(walls[name]) * 1e3:.0f}, "
              f"max {max(walls[name]) * 1e3:.0f}) = {first / base:.2f}x the bare window "
              f"({'within' if first / base <= 1.3 else 'OVER'} 1.3x); ready (the Nd chart, the glossary's card, the "
              f"icon: done after the first paint) {ready * 1e3:.0f} ms = {ready / base:.2f}x "
              f"({'within' if ready / base <= 1.5 else 'OVER'} 1.5x)")
        print("    of which " + ", ".join(
            f"{key} {statistics.median(float(p[key]) for p in parts[name]) * 1e3:.0f} ms"
            for key in ("imports", "build", "show")))
        cpu = statistics.median(float(p["cpu"]) for p in parts[name])
        ready_cpu = statistics.median(float(p["ready_cpu"]) for p in parts[name])
        print(f"    CPU time of the process (steadier on a shared machine): first paint {cpu * 1e3:.0f} ms = "
              f"{cpu / base_cpu:.2f}x the bare window's {base_cpu * 1e3:.0f} ms; ready {ready_cpu * 1e3:.0f} ms = "
              f"{ready_cpu / base_cpu:.2f}x")
        print(f"    torch imported by the GUI process: {any(p['torch'] == 'True' for p in parts[name])}")


def screenshot_process(runs: int, baseline: Path | list[Path] | None = None) -> None:
    """`zerodesk --screenshot` as a whole process against a bare process writing the same window's PNG."""
    sides = {"ZeroDesk": _env(ROOT)}
    for other in _baselines(baseline):
        sides[f"baseline ({other})"] = _env(other)
    times = {name: [] for name in sides}
    bare = []
    with tempfile.TemporaryDirectory() as tmp:
        png = str(Path(tmp) / "out.png")
        env_bare = dict(sides["ZeroDesk"], XDG_CONFIG_HOME=tmp)
        for _ in range(runs):
            for name, env in sides.items():
                times[name].append(_process_once(["-m", "zerodesk", "--screenshot", png],
                                                 dict(env, XDG_CONFIG_HOME=tmp)))
            bare.append(_process_once(["-c", BARE_SCREENSHOT, png], env_bare))
    base = statistics.median(bare)
    print(f"whole process through --screenshot, {runs} runs each, alternating; medians:")
    print(f"  a bare process writing the PlotWidget window's PNG: {base * 1e3:.0f} ms (min {min(bare) * 1e3:.0f})")
    for name, values in times.items():
        ratio = statistics.median(values) / base
        print(f"  {name} --screenshot: {statistics.median(values) * 1e3:.0f} ms (min {min(values) * 1e3:.0f}) = "
              f"{ratio:.2f}x ({'within' if ratio <= 1.5 else 'OVER'} 1.5x)")


def _app_start(root: Path) -> None:
    """An edits or fit child starts as `zerodesk` does: zerodesk.gui.app imported first (it holds Python's collector
    back until the window's start is done, where the checkout has start_collector, and loads the core and numpy
    before Qt). Without it nothing of the start was frozen: a full collection during the edits walked the ~100,000
    objects of the start (~70 ms) and landed on whichever edit was timed then, which the app never sees."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import zerodesk.gui.app  # noqa: F401


def _window_app(root: Path = ROOT):
    """The offscreen QApplication the in-process parts share (settings in a throwaway folder)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    import zerodesk.gui  # noqa: F401

    if QApplication.instance() is None:
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
        QApplication([])
    return QApplication.instance()


EDIT_PLANS = {  # label -> (model preset or None for the window's own card example, plan fields)
    "card example (raw P = 2e9, Nd 4)": (None, {}),
    "Llama 2 7B, paper, 8 x 8 H100": ("llama-2-7b", {"seq_len": 4096}),
    "Llama 2 7B, torch, 8 x 8 H100": ("llama-2-7b", {"seq_len": 4096, "profile": "torch"}),
    # heavy plans, 8 x 8 H100: every part of the charts in use (the offload chart, HSDP, accumulation, full recompute,
    # micro-batch > 1, 8-bit Adam: optimizer+params offload), and raw P at a very large Nd
    "70B torch, offload, HSDP 8, mb 2, acc 4": (
        "llama-2-70b", {"seq_len": 4096, "profile": "torch", "offload": "optimizer+params", "micro_batch": 2,
                        "accum_steps": 4, "recompute": "full", "cluster": {"shard_group": 8}}),
    "13B paper, 8-bit Adam, offload, HSDP 4": (
        "llama-2-13b", {"seq_len": 4096, "scheme": "mixed-adam-8bit", "offload": "optimizer+params", "micro_batch": 4,
                        "accum_steps": 2, "recompute": "full", "cluster": {"shard_group": 4}}),
    "raw P = 175e9, Nd 4,096, opt. offload": (
        None, {"model": {"params": 175_000_000_000}, "offload": "optimizer",
               "cluster": {"nodes": 512, "gpus_per_node": 8}}),
}


def _edit_scenarios(form, preset: str | None) -> list[tuple[str, object]]:
    """(name, field key, edit(i)) for every field a user edits often: one keystroke's text, or one choice, per call."""
    def type_text(key: str, text: str) -> None:
        field = form.field(key)
        field.setText(text)
        field.textEdited.emit(text)

    def choose(key: str, index: int) -> None:
        combo = form.field(key)
        combo.setCurrentIndex(index % combo.count())
        combo.activated.emit(index % combo.count())

    def choose_from(key: str, first: int):  # skip the "custom / none" entries of a preset combo
        return lambda i: choose(key, first + i % (form.field(key).count() - first))

    out = [("P", "model.params", lambda i: type_text("model.params", f"{1 + i % 70}B"))] if preset is None else []
    return out + [
        ("scheme", "scheme", lambda i: choose("scheme", i)),
        ("profile", "profile", lambda i: choose("profile", i)),
        ("GPU", "cluster.gpu", choose_from("cluster.gpu", 1)),
        ("GPU memory", "cluster.gpu_memory_bytes", lambda i: type_text("cluster.gpu_memory_bytes", str(16 + i % 64))),
        ("Nd", "cluster.gpus_per_node", lambda i: type_text("cluster.gpus_per_node", str(1 << (i % 8)))),
        ("sequence", "seq_len", lambda i: type_text("seq_len", str(512 * (1 + i % 8)))),
        ("micro-batch", "micro_batch", lambda i: type_text("micro_batch", str(1 + i % 6))),
        ("recompute", "recompute", lambda i: choose("recompute", i)),
        ("accum steps", "accum_steps", lambda i: type_text("accum_steps", str(1 + i % 4))),
        ("shard group", "cluster.shard_group", lambda i: type_text("cluster.shard_group", ("", "2", "4", "8")[i % 4])),
        ("offload", "offload", lambda i: choose("offload", i)),
        ("param dtype", "param_dtype", lambda i: choose("param_dtype", i)),
        ("prefetch", "prefetch", lambda i: choose("prefetch", i)),
    ]


def _edit_window(view: str):
    """The window as a user has it: shown, the view in front (plan, table or fit), every chart built."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    from zerodesk.gui.window.main_window import MainWindow

    app = QApplication.instance()
    w = MainWindow(persist=False)
    w.quiet = True
    w.ask_save_changes = lambda: QMessageBox.StandardButton.Discard  # the edits are throwaway
    w.resize(1440, 900)
    w.show()
    w.dp_chart  # noqa: B018 - built as after the first paint
    app.processEvents()
    shown = time.perf_counter()
    while not w.startup.is_done() and time.perf_counter() - shown < 10:  # the start's last step (it releases the
        app.processEvents()  # collector, as in the app) before the user opens a view
    w.show_tab(view)
    app.processEvents()
    return w


def edit_samples(edits: int, view: str, plans: dict, only: set[str] | None = None) -> dict[str, dict[str, list[float]]]:
    """{"plan / field": {"data": [...], "wall": [...], "cpu": [...]}} in seconds: one user edit (data: until the edit's
    handlers return), then the event loop's turn that paints the window (the view in front with its charts, the
    form); `cpu` is the GUI thread's own time (steadier on a shared machine)."""
    from PySide6.QtWidgets import QApplication

    from zerodesk.core.catalog import find_gpu
    from zerodesk.core.plan import Plan

    app = QApplication.instance()
    w = _edit_window(view)
    start = w.model.plan
    out: dict[str, dict[str, list[float]]] = {}
    for label, (preset, fields) in plans.items():
        for name, key, edit in _edit_scenarios(w.form, preset):
            if only and name not in only:
                continue
            base = start if preset is None and not fields else None
            if base is None:
                # from the window's own plan, not from what the previous field's last edit left: a 7B plan took the
                # offload, micro-batch, shard group... of the edits before it, which one depended on the edit count
                w.load_plan(start)
                if preset is not None:
                    w.form.apply_model_preset(preset)
                dump = w.model.plan.model_dump()
                data = {**dump, **fields, "model": {**dump["model"], **fields.get("model", {})}}
                cluster = {"nodes": 8, "gpus_per_node": 8, "dp": None, "gpu": "h100-80gb",
                           "gpu_memory_bytes": find_gpu("h100-80gb").memory_bytes} if preset is not None else {}
                data["cluster"] = {**dump["cluster"], **cluster, **fields.get("cluster", {})}
                base = Plan.model_validate(data)
            w.load_plan(base)  # each field starts from the same plan
            app.processEvents()
            if not w.form.field(key).isEnabled():  # a choice the plan turns off (the scheme under the torch profile)
                continue
            data, wall, cpu = [], [], []
            for i in range(edits):
                t0, c0 = time.perf_counter(), time.thread_time()
                edit(i)
                t1 = time.perf_counter()  # the model and every view's items hold the core's new numbers
                # the event loop's turn: what the edit posted runs and every widget it changed is painted, charts
                # too (a parent's repaint() would not paint a chart's viewport; the loop paints what is dirty once)
                app.processEvents()
                wall.append(time.perf_counter() - t0)
                cpu.append(time.thread_time() - c0)
                data.append(t1 - t0)
            out[f"{label} / {name}"] = {"data": data, "wall": wall, "cpu": cpu}
    w.close()
    return out


def _stats_ms(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(values) * 1e3, ordered[int(0.9 * (len(ordered) - 1))] * 1e3


def _sides_samples(part: str, edits: int, baseline: Path | list[Path] | None, rounds: int,
                   fields: str = "") -> dict[str, dict]:
    """Each side's samples, gathered in `rounds` child processes per side started alternately (so both see the same
    machine load); the baseline runs under its own checkout's .venv when it has one."""
    sides = {"ZeroDesk": (ROOT, sys.executable)}
    others = _baselines(baseline)
    for other in others:
        venv = other / ".venv" / "bin" / "python"
        name = "baseline" if len(others) == 1 else f"baseline {other.name}"
        sides[name] = (other, str(venv) if venv.exists() else sys.executable)
    merged: dict[str, dict] = {name: {} for name in sides}
    per_round = max(1, edits // rounds)
    for _ in range(rounds):
        for name, (root, python) in sides.items():
            env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(root))
            out = subprocess.run([python, str(Path(__file__).resolve()), "--samples", part, "--root", str(root),
                                  "--edits", str(per_round), "--fields", fields], env=env, capture_output=True, text=True,
                                 timeout=1800)
            if out.returncode != 0:
                raise SystemExit(f"{name}: the {part} part failed:\n{out.stderr[-3000:]}")
            import json

            for key, series in json.loads(out.stdout.splitlines()[-1]).items():
                into = merged[name].setdefault(key, {k: [] for k in series})
                for k, values in series.items():
                    into[k] += values
    return merged


def print_edit_table(title: str, merged: dict[str, dict], bar: tuple[float, float] = (16.0, 25.0)) -> None:
    """Per field: median / p90 of wall and of the GUI thread's CPU time, each side; and whether the bar holds."""
    names = list(merged)
    print(title)
    head = "".join(f" | {n + ': wall med/p90, CPU med/p90, data med':44}" for n in names)
    print(f"  {'plan / field':58}{head}")
    worst = {n: (0.0, 0.0) for n in names}
    for key in merged[names[0]]:
        row = f"  {key:58}"
        for n in names:
            s = merged[n].get(key)
            if s is None:
                row += f" | {'-':44}"
                continue
            (wm, wp), (cm, cp), (dm, _) = _stats_ms(s["wall"]), _stats_ms(s["cpu"]), _stats_ms(s["data"])
            ok = "ok" if cm <= bar[0] and cp <= bar[1] else "OVER"
            row += f" | {wm:5.1f} /{wp:5.1f}, {cm:5.1f} /{cp:5.1f} {ok:4}, {dm:5.1f}      "
            worst[n] = (max(worst[n][0], cm), max(worst[n][1], cp))
        print(row)
    for n in names:
        every = [v for s in merged[n].values() for v in s["wall"]]
        every_cpu = [v for s in merged[n].values() for v in s["cpu"]]
        print(f"  {n}: all edits wall median {_stats_ms(every)[0]:.1f} ms, p90 {_stats_ms(every)[1]:.1f}; CPU median "
              f"{_stats_ms(every_cpu)[0]:.1f}, p90 {_stats_ms(every_cpu)[1]:.1f}; slowest field CPU median "
              f"{worst[n][0]:.1f} ms, p90 {worst[n][1]:.1f} ms (bar: median <= {bar[0]:g}, p90 <= {bar[1]:g})")


def edit_latency(edits: int, baseline: Path | list[Path] | None = None, rounds: int = 2, fields: str = "") -> None:
    """Edit -> every live view repainted, per field, with the Plan tab and then the Table tab in front."""
    for view in ("plan", "table"):
        merged = _sides_samples(f"edits-{view}", edits, baseline, rounds, fields)
        print_edit_table(f"edit -> data and the {view.title()} tab repainted, {edits} edits per field and side "
                         f"(ms; CPU: the GUI thread's own; load average {os.getloadavg()[0]:.1f}):", merged)


ND_ARCH = {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336, "vocab": 128256}


def large_cluster_latency(edits: int) -> None:
    """An edit at Nd 1,024 / 16,384 / 65,536 under the torch profile: the GUI thread's blocking per edit."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    from zerodesk.core.plan import Plan
    from zerodesk.gui.window.main_window import MainWindow

    app = QApplication.instance()
    w = MainWindow(persist=False)
    w.quiet = True
    w.ask_save_changes = lambda: QMessageBox.StandardButton.Discard
    w.resize(1440, 900)
    w.show()
    app.processEvents()
    print(f"edit latency under the torch profile (8B-class shapes), {edits} edits each (median / p90 / max, ms):")
    worst = 0.0
    for view in ("Plan", "Measure"):  # the Measure tab in view also follows every edit
        w.tabs.setCurrentIndex(0) if view == "Plan" else w.tabs.setCurrentWidget(w.measure_tab)
        for nd in (1024, 16384, 65536):
            w.load_plan(Plan.model_validate({"model": {"architecture": ND_ARCH}, "profile": "torch",
                                             "cluster": {"nodes": nd // 8, "gpus_per_node": 8}}))
            app.processEvents()
            field = w.form.field("seq_len")
            blocks = []
            for i in range(edits):
                text = str(1024 * (1 + i % 4))
                t0 = time.perf_counter()
                field.setText(text)
                field.textEdited.emit(text)
                w.tabs.currentWidget().repaint()  # what is in view, painted
                blocks.append(time.perf_counter() - t0)
                app.processEvents()
            worst = max(worst, statistics.median(blocks))
            print(f"  {view:7} tab, Nd {nd:>6,}: edit + the view painted {_stats(blocks)}")
    print(f"slowest median block of the GUI thread on an edit: {worst * 1e3:.1f} ms "
          f"({'within' if worst <= 0.05 else 'OVER'} 50 ms; maxima above include other helpers' load on this machine)")
    w.close()


FIT_PLANS = {  # label -> (preset, plan fields): the in-process solve's 70B case and a 7B one, both profiles
    "Llama 2 70B, paper, 8 x 8 H100": ("llama-2-70b", {"seq_len": 4096, "recompute": "full",
                                                      "cuda_allowance_bytes": 2**30}),
    "Llama 2 70B, torch, 8 x 8 H100": ("llama-2-70b", {"seq_len": 4096, "recompute": "full", "profile": "torch",
                                                      "cuda_allowance_bytes": 2**30}),
    "Llama 2 7B, torch, 8 x 8 H100": ("llama-2-7b", {"seq_len": 4096, "profile": "torch"}),
}


def fit_view_latency(edits: int, baseline: Path | list[Path] | None = None, rounds: int = 2, fields: str = "") -> None:
    """An edit of every field with the Fit tab in view: the solver's answer and map recomputed and the tab repainted."""
    merged = _sides_samples("edits-fit", edits, baseline, rounds, fields)
    print_edit_table(f"Fit tab in view: edit -> answer, map and tab repainted, {edits} edits per field and side "
                     f"(ms; CPU: the GUI thread's own; load average {os.getloadavg()[0]:.1f}):", merged)


QUIT_CHILD = r"""
import os, sys, tempfile, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp()
from PySide6.QtCore import QThread, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from zerodesk.gui.app import run_gui

def quit_soon():
    if QThread.currentThread().loopLevel() == 0:
        QTimer.singleShot(100, quit_soon)
        return
    window = next(w for w in QApplication.topLevelWidgets() if w.objectName() == "mainWindow")
    window.act_tab_measure.trigger()
    QApplication.processEvents()
    print(f"QUIT {time.time():.6f}", flush=True)
    window.act_quit.trigger()

QTimer.singleShot(1000, quit_soon)
sys.exit(run_gui())
"""


def quit_time(runs: int) -> None:
    """From Quit to the process gone (the parent waits for it, so no zombie is counted)."""
    times = []
    for _ in range(runs):
        proc = subprocess.Popen([sys.executable, "-c", QUIT_CHILD], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        quit_at = None
        for line in proc.stdout:
            if line.startswith("QUIT "):
                quit_at = float(line.split()[1])
        proc.wait()
        if quit_at is not None:
            times.append(time.time() - quit_at)
    print(f"quit to process gone: {_stats(times)} ms (median / p90 / max, {len(times)} runs)")


def _stats(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"{statistics.median(values) * 1e3:5.1f} / {p90 * 1e3:5.1f} / {max(values) * 1e3:5.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=5, help="cold starts to time")
    parser.add_argument("--edits", type=int, default=300, help="edits per field")
    parser.add_argument("--nd-edits", type=int, default=40, help="edits at each large Nd")
    parser.add_argument("--fit-edits", type=int, default=30, help="edits per field with the Fit tab in view")
    parser.add_argument("--quits", type=int, default=5, help="quits to time")
    parser.add_argument("--screenshots", type=int, default=5, help="whole --screenshot processes to time")
    parser.add_argument("--baseline", type=Path, metavar="DIR", action="append",
                        help="another ZeroDesk checkout (e.g. main's) timed beside this one, alternately; give it again "
                             "for more checkouts")
    parser.add_argument("--only", choices=("start", "screenshot", "edits", "nd", "fit", "quit"), help="run one part only")
    parser.add_argument("--rounds", type=int, default=2,
                        help="edits and fit parts: child processes per side, started alternately with the baseline's")
    parser.add_argument("--fields", default="", help="edits and fit parts: only these fields (names as printed, "
                        "comma-separated), e.g. --fields P,scheme")
    parser.add_argument("--samples", choices=("edits-plan", "edits-table", "edits-fit"), help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)  # the checkout a --samples child times
    args = parser.parse_args()
    if args.samples:  # a child of the edits or fit part: its raw samples as one JSON line
        import json

        _app_start(args.root)
        _window_app(args.root)
        view = args.samples.split("-")[1]
        samples = edit_samples(args.edits, view, FIT_PLANS if view == "fit" else EDIT_PLANS,
                               {f.strip() for f in args.fields.split(",") if f.strip()})
        print(json.dumps(samples))
        sys.stdout.flush()
        os._exit(0)  # the window's teardown is not timed and not needed
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cores, load average {load:.1f} (figures scale with other work on the machine)")
    parts = {"start": lambda: cold_start(args.starts, args.baseline),
             "screenshot": lambda: screenshot_process(args.screenshots, args.baseline), "edits": lambda: edit_latency(args.edits, args.baseline, args.rounds, args.fields),
             "nd": lambda: large_cluster_latency(args.nd_edits), "fit": lambda: fit_view_latency(args.fit_edits, args.baseline, args.rounds, args.fields),
             "quit": lambda: quit_time(args.quits)}
    for name, run in parts.items():
        if args.only in (None, name):
            if name == "nd":  # the others start their own processes
                _window_app()
            run()


if __name__ == "__main__":
    main()
