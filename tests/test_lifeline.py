"""Child Pythons of a run: isolated from the current folder, the plan off argv, and gone within 2 s of their parent.

Real processes throughout: the CLI and a Qt parent start real gloo ranks, and are then signalled.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zerodesk.core.plan import Architecture, Cluster, ModelSpec, Plan
from zerodesk.measure.child import torch_check_command
from zerodesk.measure.runner import MeasureRun, measure_command, measure_env, simulate_command

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; Linux process model")
ROOT = Path(__file__).resolve().parents[1]
ARCH = ["--layers", "4", "--hidden", "256", "--heads", "4", "--ffn", "1024", "--vocab", "1000", "--seq", "512"]
PLAN = Plan(model=ModelSpec(name="life", architecture=Architecture(layers=2, hidden=64, heads=4, ffn=128, vocab=100)),
            cluster=Cluster(nodes=1, gpus_per_node=2))


def descendants(pid: int) -> set[int]:
    """Live (non-zombie) descendants of pid, from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] not in "ZX":
                parents.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in "ZX":
            out.add(pid)
    return out


def wait_for_ranks(pid: int, count: int, timeout: float = 60.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = descendants(pid)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"only {descendants(pid)} started under {pid}")


def seconds_until_gone(pids: set[int], limit: float = 10.0) -> float:
    t0 = time.monotonic()
    while alive(pids) and time.monotonic() - t0 < limit:
        time.sleep(0.01)
    return time.monotonic() - t0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL], ids=lambda s: s.name)
def test_signalling_zerodesk_measure_stops_every_rank_within_2_s(sig, tmp_path):
    cli = subprocess.Popen([sys.executable, "-m", "zerodesk", "measure", *ARCH, "--ranks", "2", "--device", "cpu"],
                           cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           env={**os.environ, "OMP_NUM_THREADS": "1"})
    try:
        family = wait_for_ranks(cli.pid, 3)  # the launcher and its two ranks
        os.kill(cli.pid, sig)
        cli.wait(timeout=10)
        assert seconds_until_gone(family) < 2.0, alive(family)
    finally:
        cli.kill()
        cli.wait()
    assert b"Traceback" not in cli.stderr.read()


QT_PARENT = """
import sys
from PySide6.QtCore import QCoreApplication, QTimer
from zerodesk.core.plan import plan_from_json
from zerodesk.gui.runs.process import RunProcess
from zerodesk.measure.runner import measure_command
app = QCoreApplication([])
proc = RunProcess()
proc.start(measure_command(plan_from_json(sys.argv[1]), [0, 1, 2, 3], 2, "cpu"), timeout_s=600)
print(proc.pid, flush=True)
app.exec()
"""


def test_sigterm_of_the_window_process_stops_every_rank_within_2_s():
    """The window starts runs through RunProcess (QProcess); SIGTERM ends it without any cleanup of its own."""
    bigger = PLAN.model_copy(update={"seq_len": 4096})
    parent = subprocess.Popen([sys.executable, "-c", QT_PARENT, bigger.model_dump_json()], cwd=ROOT,
                              stdout=subprocess.PIPE, env={**os.environ, "OMP_NUM_THREADS": "1",
                                                           "QT_QPA_PLATFORM": "offscreen"})
    try:
        family = wait_for_ranks(parent.pid, 3)
        os.kill(parent.pid, signal.SIGTERM)
        parent.wait(timeout=10)
        assert seconds_until_gone(family) < 2.0, alive(family)
    finally:
        parent.kill()
        parent.wait()


def test_planted_modules_in_the_current_folder_are_never_imported(tmp_path):
    for name in ("argparse", "torch", "json", "zerodesk"):
        (tmp_path / f"{name}.py").write_text("import sys; sys.stderr.write('PLANTED\\n'); sys.exit(99)\n")
    # the CLI as installed (a console script: its own folder, not the current one, is on its path)
    script = Path(sys.executable).with_name("zerodesk")
    if not script.exists():
        pytest.skip("zerodesk is not installed as a console script beside this Python")
    cli = subprocess.run([str(script), "measure", "--params", "1M",
                          "--layers", "2", "--hidden", "64", "--heads", "4", "--ffn", "128", "--vocab", "100",
                          "--ranks", "2", "--device", "cpu", "--stage", "0", "--json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert "PLANTED" not in cli.stderr and cli.returncode == 0, cli.stderr[-2000:]
    check = subprocess.run(torch_check_command(sys.executable, "import torch"),
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0 and "PLANTED" not in check.stderr


def test_the_plan_is_not_on_any_command_line_and_its_file_is_private_and_removed():
    big = PLAN.model_copy(update={"model": PLAN.model.model_copy(update={"name": "n" * 200_000})})
    argv = measure_command(big, [0], 2, "cpu", samples=False)
    plan_file = Path(argv[argv.index("--plan-file") + 1])
    assert sum(len(a) for a in argv) < 10_000 and "n" * 1000 not in " ".join(argv)
    assert (plan_file.stat().st_mode & 0o077) == 0  # readable by its owner only
    run = MeasureRun(argv, timeout=120, env={**os.environ, "OMP_NUM_THREADS": "1"})
    seen_cmdlines = []
    for msg in run:
        if run.pid and not seen_cmdlines:
            for pid in {run.pid, *descendants(run.pid)}:
                try:
                    seen_cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes())
                except OSError:
                    pass
        if msg.kind in ("done", "error"):
            assert msg.kind == "done", msg
    assert seen_cmdlines and not any(b"n" * 1000 in c for c in seen_cmdlines)
    assert not plan_file.exists()


def test_a_plan_file_is_removed_even_when_the_interpreter_cannot_start():
    argv = simulate_command(PLAN, [2], python="/nonexistent/python")
    plan_file = Path(argv[argv.index("--plan-file") + 1])
    (err,) = list(MeasureRun(argv, timeout=10))
    assert err.code == "launcher_failed" and not plan_file.exists()


def test_measure_env_names_the_parent():
    assert measure_env({})["ZERODESK_PARENT_PID"] == str(os.getpid())


EXCHANGE = """
import os, pickle, sys
import torch.distributed as dist
import torch.multiprocessing as mp
from zerodesk.measure.worker.exchange import gather_bytes

def rank(index, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=index, world_size=3)
    # rank 2 sends what gather_object would have unpickled and run: here it stays bytes
    payload = pickle.dumps(os.system) if index == 2 else ('{"rank": %d}' % index).encode() * (index + 1)
    got = gather_bytes(payload, index, 3, "cpu")
    if index == 0:
        print(repr(got), flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.start_processes(rank, args=(int(sys.argv[1]),), nprocs=3, start_method="fork")
"""


def test_ranks_exchange_results_as_bytes_never_unpickled(tmp_path):
    from zerodesk.measure.worker.launcher import free_port

    script = tmp_path / "exchange.py"
    script.write_text(EXCHANGE)
    out = subprocess.run([sys.executable, str(script), str(free_port())], capture_output=True, text=True, timeout=120,
                         cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-2000:]
    import ast
    import pickle

    got = ast.literal_eval(out.stdout.strip())  # a list of bytes literals
    assert got[:2] == [b'{"rank": 0}', b'{"rank": 1}' * 2] and got[2] == pickle.dumps(os.system)
    assert not [p for p in (ROOT / "zerodesk" / "measure").rglob("*.py") if "gather_object(" in p.read_text()]
