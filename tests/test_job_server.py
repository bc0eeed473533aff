"""The warm worker (zerodesk.measure.job_server): which jobs it takes, and that no process outlives a stop.

Real processes: a warm worker of this Python forks real launchers and their gloo ranks; it is killed, closed and
left behind by a killed runner, and every process of its jobs must be gone within 2 s.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from zerodesk.core.plan import Plan
from zerodesk.measure.child import python_command
from zerodesk.measure.job_server import JobServer, supported
from zerodesk.measure.protocol import Error, Started
from zerodesk.measure.runner import MeasureRun, measure_command, simulate_command
from zerodesk.measure.worker.serve import job_environment

pytestmark = pytest.mark.skipif(not (sys.platform.startswith("linux") and supported()),
                                reason="reads /proc; the warm worker needs fork and SOCK_SEQPACKET")
ROOT = Path(__file__).resolve().parents[1]
PLAN = Plan.model_validate({"model": {"architecture": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128,
                                                       "vocab": 256}}, "seq_len": 16, "micro_batch": 1})
FAULT_ENV = "ZERODESK_MEASURE_FAULT"
# A tiny GPT-2: built by transformers, which a worker started with transformers=False leaves to the job to import.
GPT2 = Plan.model_validate({"model": {"architecture": {
    "family": "gpt2", "layers": 2, "hidden": 24, "heads": 4, "ffn": 40, "vocab": 37, "max_positions": 16,
    "mlp": "plain", "norm": "layernorm", "bias": "all", "positions": "learned", "tied_embeddings": True}},
    "seq_len": 8, "micro_batch": 1})


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes of process group `pgid`, from /proc."""
    from proc_table import live_processes

    return [pid for pid, _parent, group in live_processes() if group == pgid]


def until_gone(pgid: int, limit: float = 2.0) -> float:
    t0 = time.monotonic()
    while group_members(pgid) and time.monotonic() - t0 < limit:
        time.sleep(0.01)
    return time.monotonic() - t0


def hanging_run(server: JobServer, timeout: float = 120) -> tuple[MeasureRun, list, threading.Thread]:
    """A measurement whose rank 1 hangs, iterated in a thread until it has started (its ranks are running)."""
    env = {**os.environ, FAULT_ENV: "hang:1"}
    run = MeasureRun(measure_command(PLAN, [0], 2, "cpu", samples=False), timeout=timeout, env=env, server=server)
    messages: list = []
    started = threading.Event()

    def read() -> None:
        for msg in run:
            messages.append(msg)
            if isinstance(msg, Started):
                started.set()
        started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert started.wait(120) and messages and isinstance(messages[0], Started), messages
    return run, messages, reader


def test_which_jobs_it_takes():
    """A worker module of this Python: not another Python, not another module. Nothing is started."""
    server = JobServer()
    assert server.takes(simulate_command(PLAN, [3])) and server.takes(measure_command(PLAN, [0], 2, "cpu"))
    assert not server.takes(simulate_command(PLAN, [3], python="/usr/bin/python3"))
    assert not server.takes([sys.executable, "-c", "print()"])
    assert not server.takes(python_command(sys.executable, "zerodesk.measure.worker.serve", ["--socket", "3"]))
    server.close()
    assert server.started_workers == 0


def test_which_environments_it_takes():
    """The environment the imports ran under, but for the neutral variables and those the imports set themselves
    (absent, or as they set them: the job then has them as its own Python would after importing torch)."""
    before = {"PATH": "/bin", "OMP_NUM_THREADS": "1"}
    after = {**before, "TORCHINDUCTOR_CACHE_DIR": "/tmp/inductor"}
    neutral = ("ZERODESK_",)
    assert job_environment(before, neutral, before, after) == after
    assert job_environment({**before, FAULT_ENV: "crash:1"}, neutral, before, after) == {**after, FAULT_ENV: "crash:1"}
    assert job_environment(after, neutral, before, after) == after  # the runner imported torch itself
    assert job_environment({**before, "TORCHINDUCTOR_CACHE_DIR": "/elsewhere"}, neutral, before, after) is None
    assert job_environment({**before, "OMP_NUM_THREADS": "4"}, neutral, before, after) is None
    assert job_environment({"OMP_NUM_THREADS": "1"}, neutral, before, after) is None  # PATH missing
    assert job_environment({**before, "PYTHONWARNINGS": "error"}, neutral, before, after) is None
    # a wrapper script between the runner and the worker's Python (the interpreter chosen is a shell script, as
    # pyenv's shims are): the shell's own bookkeeping differs, the job keeps the runner's
    shell = {**before, "PWD": "/tmp/neutral", "SHLVL": "2", "_": "/bin/sh"}
    job = {**before, "PWD": "/home/u/work", "OLDPWD": "/home/u"}
    assert job_environment(job, neutral, shell, {**shell, **after}) == {**after, **job}


def test_a_job_whose_environment_differs_runs_as_its_own_python(job_server):
    """The worker refuses it; the run starts it on its own, and it finishes as usual."""
    pytest.importorskip("torch")
    refused = job_server.refused
    run = MeasureRun(simulate_command(PLAN, [3]), timeout=120, env={**os.environ, "OMP_NUM_THREADS": "2"},
                     server=job_server)
    messages = list(run)
    assert not [m for m in messages if isinstance(m, Error)] and type(run.proc) is subprocess.Popen
    assert job_server.refused == refused + 1


def test_a_killed_worker_ends_its_run_at_once_and_leaves_no_process():
    """SIGKILL to the warm worker mid-run: its job (the launcher) and the job's ranks go with it, the run ends with
    one error long before its timeout, and the next job starts a fresh worker and finishes (a job on transformers'
    model, which this worker did not preload: the job imports it itself)."""
    pytest.importorskip("torch")
    with JobServer(transformers=False) as server:  # its jobs build ZeroDesk's own decoder: half the worker's start
        run, messages, reader = hanging_run(server)
        job = run.pid
        assert len(group_members(job)) == 3  # the launcher and its two ranks
        t0 = time.monotonic()
        os.kill(server._proc.pid, signal.SIGKILL)
        reader.join(30)
        assert not reader.is_alive() and time.monotonic() - t0 < 10
        assert isinstance(messages[-1], Error) and messages[-1].code == "worker_crashed", messages[-1]
        assert until_gone(job) < 2.0, group_members(job)
        again = list(MeasureRun(simulate_command(GPT2, [3]), timeout=120, server=server))
        assert not [m for m in again if isinstance(m, Error)] and server.started_workers == 2 and server.forked == 2


def test_closing_the_server_stops_its_running_jobs():
    pytest.importorskip("torch")
    server = JobServer(transformers=False)
    run, messages, reader = hanging_run(server)
    worker = server._proc.pid
    server.close()
    reader.join(30)
    assert not reader.is_alive() and isinstance(messages[-1], Error)
    assert until_gone(run.pid) < 2.0 and until_gone(worker) < 2.0


RUNNER = """
import os, sys
from zerodesk.core.plan import plan_from_json
from zerodesk.measure.job_server import JobServer
from zerodesk.measure.runner import MeasureRun, measure_command
server = JobServer(transformers=False)
run = MeasureRun(measure_command(plan_from_json(sys.argv[1]), [0], 2, "cpu", samples=False), timeout=600,
                 env={**os.environ, "ZERODESK_MEASURE_FAULT": "hang:1"}, server=server)
for msg in run:
    print(server._proc.pid, run.pid, flush=True)  # the worker and the job, once the job speaks
    break
import time
time.sleep(600)
"""


def test_a_killed_runner_takes_the_worker_and_its_jobs_along():
    """The runner SIGKILLed (no cleanup of its own): the worker, the job and its ranks are gone within 2 s."""
    pytest.importorskip("torch")
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, PLAN.model_dump_json()], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        worker, job = map(int, runner.stdout.readline().split())
        assert group_members(job)
        runner.kill()
        runner.wait(10)
        assert until_gone(job) < 2.0, group_members(job)
        assert until_gone(worker) < 2.0
    finally:
        runner.kill()
        runner.wait()
