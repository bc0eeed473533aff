"""Measured steps on real gloo ranks: the torch profile must match the engines byte for byte.

Real runs are shared through module-scoped fixtures; failure cases (crash, hang, garbage,
cancel) check that a clear error comes back and that no process of the run survives.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from zerodesk.core.architecture_tensors import tensor_shapes
from zerodesk.core.plan import Architecture, Plan
from zerodesk.core.torch_profile import torch_transient
from zerodesk.measure.protocol import (
    Done, Error, PhaseMsg, ProtocolError, Result, Sample, Scale, Started, States, decode, encode, scale_plan,
)
from zerodesk.measure.runner import MeasureRun, measure_command, run_measure

ROOT = Path(__file__).resolve().parents[1]
FAULT_ENV = "ZERODESK_MEASURE_FAULT"

# Even shapes, 2 ranks: no padding anywhere.
EVEN = Plan.model_validate({"model": {"architecture": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 256}},
                            "seq_len": 16, "micro_batch": 1})
# Shapes that make ZeRO ranks uneven and FSDP2 pad on 4 ranks: vocab 101, hidden 30, kv 10, ffn 50, positions 18.
ODD = Plan.model_validate({"model": {"architecture": {
    "layers": 2, "hidden": 30, "heads": 3, "kv_heads": 1, "ffn": 50, "vocab": 101, "positions": "learned",
    "max_positions": 18, "bias": "qkv", "norm": "layernorm", "mlp": "plain"}}, "seq_len": 16, "micro_batch": 1})


def _needs_torch():
    pytest.importorskip("torch")


def session_members(sid: int) -> list[int]:
    """Live (non-zombie) processes in session `sid`, read from /proc."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state ppid pgrp session ...
        if int(fields[3]) == sid and fields[0] not in "ZX":
            pids.append(int(entry))
    return pids


def assert_nothing_survives(run: MeasureRun) -> None:
    assert run.pid is not None
    assert session_members(run.pid) == []
    with pytest.raises(ProcessLookupError):
        os.kill(run.pid, 0)  # the launcher itself is gone and reaped


def measure(plan: Plan, stages, ranks: int, timeout: float = 120, fault: str | None = None,
            samples: bool = True, cancel_on_start: bool = False, server=None) -> tuple[list, MeasureRun]:
    """The run's messages and the run; server: the session's warm worker (conftest's job_server), None: the launcher
    as its own Python."""
    env = dict(os.environ)
    env.pop(FAULT_ENV, None)
    if fault:
        env[FAULT_ENV] = fault
    cancel = threading.Event()
    run = MeasureRun(measure_command(plan, stages, ranks, "cpu", samples=samples), timeout=timeout, env=env,
                     cancel=cancel, server=server)
    messages = []
    for msg in run:
        messages.append(msg)
        if cancel_on_start and isinstance(msg, Started):
            cancel.set()
    return messages, run


def results_of(messages) -> dict[tuple[int, int], Result]:
    errors = [m for m in messages if isinstance(m, Error)]
    assert not errors, errors[0].message
    return {(m.stage, m.rank): m for m in messages if isinstance(m, Result)}


@pytest.fixture(scope="module")
def even_run(job_server):
    _needs_torch()
    return measure(EVEN, [0, 1, 2, 3], 2, server=job_server)


@pytest.fixture(scope="module")
def odd_run(job_server):
    _needs_torch()
    return measure(ODD, [1, 3], 4, samples=False, server=job_server)


# ---------------------------------------------------------------- real runs


def test_two_ranks_every_stage_predicted_equals_measured(even_run):
    messages, run = even_run
    results = results_of(messages)
    assert sorted(results) == [(s, r) for s in range(4) for r in range(2)]
    for (stage, rank), res in results.items():
        assert res.states == res.predicted_states, (stage, rank)
    assert isinstance(messages[0], Started) and isinstance(messages[-1], Done)
    assert_nothing_survives(run)


def test_two_ranks_details(even_run):
    messages, _ = even_run
    started = messages[0]
    p = started.params
    results = results_of(messages)
    for (stage, rank), res in results.items():
        assert sum(res.peak.values()) == res.peak_bytes  # the peak moment, split by category
        assert set(res.phase_peaks) == {"forward", "backward", "optimizer"}
        assert max(ph["total"] for ph in res.phase_peaks.values()) == res.peak_bytes
        assert res.peak_bytes > res.states.params + res.states.optimizer
    # DDP's buckets: one fp32 copy of all grads, as DDP itself reports them
    for stage in (0, 1):
        assert results[stage, 0].comm_buffers == results[stage, 0].predicted_comm_buffers == 4 * p
    # By the end of forward, reshard_after_forward=False holds every gathered bf16 parameter (2P bytes);
    # True holds only the root's and one block's.
    named = tensor_shapes(started.architecture)
    assert results[2, 0].phase_peaks["forward"]["unsharded_params"] == 2 * p
    for stage in (2, 3):
        gathered = torch_transient(named, stage, 2)["gathered_params"]
        assert results[stage, 0].phase_peaks["forward"]["unsharded_params"] == gathered
    assert torch_transient(named, 3, 2)["gathered_params"] < 2 * p
    phases = {(m.stage, m.phase) for m in messages if isinstance(m, PhaseMsg)}
    assert {(s, ph) for s in range(4) for ph in ("setup", "warmup", "forward", "backward", "optimizer")} <= phases
    samples = [m for m in messages if isinstance(m, Sample)]
    assert {m.stage for m in samples} == {0, 1, 2, 3}
    assert all(m.rank == 0 and m.bytes > 0 for m in samples)


def test_fsdp2_stages_track_the_models_buffers(job_server):
    """transformers' Llama holds rotary buffers (inv_freq, original_inv_freq); FSDPMemTracker files them as
    buffers, so stages 2-3 show the same buffer bytes as stages 0-1 (0 when the tracker's units were rewired
    without its buffer step)."""
    _needs_torch()
    plan = Plan.model_validate({"model": {"architecture": {"family": "llama", "layers": 2, "hidden": 64, "heads": 4,
                                                            "ffn": 128, "vocab": 256}}, "seq_len": 16, "micro_batch": 1})
    messages, _ = measure(plan, [0, 2, 3], 2, samples=False, server=job_server)
    results = results_of(messages)
    buffers = results[0, 0].peak["buffers"]
    assert buffers == 2 * 4 * (64 // 4 // 2)  # two fp32 tensors of head_dim / 2
    for stage in (2, 3):
        for rank in (0, 1):
            assert results[stage, rank].peak["buffers"] == buffers, (stage, rank)


def test_four_ranks_uneven_zero_and_fsdp2_padding(odd_run):
    messages, run = odd_run
    results = results_of(messages)
    assert sorted(results) == [(s, r) for s in (1, 3) for r in range(4)]
    for key, res in results.items():
        assert res.states == res.predicted_states, key
    p = messages[0].params
    zero = {results[1, r].states.optimizer for r in range(4)}
    assert len(zero) > 1  # whole tensors per rank: uneven
    assert results[3, 0].states.params > 4 * p / 4  # dim-0 padding is stored
    assert results[3, 3].states.optimizer < results[3, 0].states.optimizer  # the short last shard
    gathered = torch_transient(tensor_shapes(messages[0].architecture), 3, 4)["gathered_params"]
    assert results[3, 0].phase_peaks["forward"]["unsharded_params"] == gathered  # padded all-gather outputs
    assert_nothing_survives(run)


# The worker under torchrun (README: "runs unchanged under your own launcher"): tests/test_hsdp_ranks.py's
# test_the_worker_takes_the_flag_under_torchrun, 4 ranks with --shard-group, every rank against the torch profile.


def test_model_tensors_equal_tensor_shapes():
    _needs_torch()
    from zerodesk.measure.worker.model import build_model

    for mlp, tied, bias, norm, pos in itertools.product(("gated", "plain"), (False, True), ("none", "qkv", "all"),
                                                        ("layernorm", "rmsnorm"), ("learned", "rotary")):
        arch = Architecture(layers=2, hidden=12, heads=3, kv_heads=1, ffn=10, vocab=17, mlp=mlp, tied_embeddings=tied,
                            bias=bias, norm=norm, positions=pos, max_positions=8)
        model = build_model(arch)  # asserts names, shapes and order itself
        assert [n for n, _ in model.named_parameters()] == [n for n, _ in tensor_shapes(arch)]


# ---------------------------------------------------------------- failures
# The ways a run is stopped, for a launcher started as its own Python and one forked from the warm worker.
START = ["own-python", "warm-worker"]


@pytest.fixture
def server(request, job_server):
    return job_server if request.param == "warm-worker" else None


@pytest.mark.parametrize("server", START, indirect=True)
def test_crashed_rank_is_reported_and_nothing_survives(server):
    _needs_torch()
    messages, run = measure(EVEN, [0], 2, timeout=60, fault="crash:1", samples=False, server=server)
    err = messages[-1]
    assert isinstance(err, Error) and err.code == "worker_crashed"
    assert "rank 1" in err.message and "SIGKILL" in err.message
    assert_nothing_survives(run)


@pytest.mark.parametrize("server", START, indirect=True)
def test_hung_rank_hits_the_timeout_and_nothing_survives(server):
    _needs_torch()
    messages, run = measure(EVEN, [0], 2, timeout=6, fault="hang:1", samples=False, server=server)
    err = messages[-1]
    assert isinstance(err, Error) and err.code == "timeout"
    assert "6 s" in err.message
    assert_nothing_survives(run)


def test_exception_in_a_rank_names_rank_and_stage(job_server):
    _needs_torch()
    messages, run = measure(EVEN, [0], 2, timeout=60, fault="raise:1", samples=False, server=job_server)
    err = messages[-1]
    assert isinstance(err, Error) and err.code == "internal"
    assert err.rank == 1 and err.stage == 0 and "deliberate failure" in err.message
    assert_nothing_survives(run)


def test_garbage_line_becomes_an_error(job_server):
    _needs_torch()
    messages, run = measure(EVEN, [0], 2, timeout=60, fault="garbage:0", samples=False, server=job_server)
    err = messages[-1]
    assert isinstance(err, Error) and err.code == "internal" and "not JSON" in err.message
    assert_nothing_survives(run)


@pytest.mark.parametrize("server", START, indirect=True)
def test_cancel_stops_every_rank(server):
    _needs_torch()
    messages, run = measure(EVEN, [0, 1, 2, 3], 2, timeout=60, cancel_on_start=True, server=server)
    assert isinstance(messages[-1], Error) and messages[-1].code == "cancelled"
    assert_nothing_survives(run)


def test_python_without_torch_cannot_launch(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named torch' >&2\nexit 1\n")
    fake.chmod(0o755)
    messages = list(run_measure(EVEN, [0], 2, "cpu", python=str(fake), timeout=10))
    assert len(messages) == 1 and messages[0].code == "launcher_failed"
    assert "No module named torch" in messages[0].message


# ---------------------------------------------------------------- CLI


def _cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(FAULT_ENV, None)
    return subprocess.run([sys.executable, "-m", "zerodesk", "measure", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


CLI_FLAGS = ["--layers", "2", "--hidden", "64", "--heads", "4", "--ffn", "128", "--vocab", "256", "--seq", "16",
             "--ranks", "2", "--device", "cpu", "--stage", "1,2"]


@pytest.fixture(scope="module")
def json_on_a_terminal():
    """`zerodesk measure ... --json` with its stderr on a terminal: (status, stdout, what the terminal got)."""
    _needs_torch()
    from terminal import terminal_stderr

    return terminal_stderr([sys.executable, "-m", "zerodesk", "measure", *CLI_FLAGS, "--json"], ROOT)


def test_cli_json_end_to_end(json_on_a_terminal):
    code, stdout, terminal = json_on_a_terminal
    assert code == 0, terminal[-2000:]
    data = json.loads(stdout)
    assert (data["schema"], data["kind"], data["device"], data["ranks"]) == (1, "measured", "cpu", 2)
    assert data["torch"].startswith("2.")
    assert [(r["stage"], r["rank"]) for r in data["results"]] == [(1, 0), (1, 1), (2, 0), (2, 1)]
    for r in data["results"]:
        assert r["states"] == r["predicted_states"]
        assert set(r["states"]) == {"params", "grads", "optimizer"}
        assert isinstance(r["peak_bytes"], int) and r["peak"]


def test_cli_on_a_terminal_shows_the_estimate_and_progress_on_stderr(json_on_a_terminal):
    """README promises it: an estimate before the run and a progress line (stage, rank, phase, elapsed, left);
    the line is erased, the table goes to stdout. With --json, or when stderr is no terminal, nothing."""
    _needs_torch()
    from terminal import terminal_stderr

    code, stdout, terminal = terminal_stderr([sys.executable, "-m", "zerodesk", "measure", *CLI_FLAGS], ROOT)
    assert code == 0, terminal[-2000:]
    assert "zerodesk measure: stages 1, 2 on 2 CPU ranks" in terminal and "expect about" in terminal, terminal
    assert "stage 1 (1 of 2), rank 0 of 2: " in terminal and "stage 2 (2 of 2), rank 0 of 2: " in terminal
    assert "Traceback" not in terminal, terminal[terminal.find("Traceback"):]
    assert " elapsed, about " in terminal and " left" in terminal and "%|" in terminal and "stage  rank" in stdout
    code, stdout, terminal = json_on_a_terminal
    assert code == 0 and json.loads(stdout)["kind"] == "measured"
    assert terminal == "", terminal
    piped = _cli(*CLI_FLAGS)
    assert piped.returncode == 0 and piped.stderr == "", piped.stderr


def test_cli_errors_are_one_line_without_traceback():
    out = _cli("--params", "7B")
    assert out.returncode != 0
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "architecture" in out.stderr
    out = _cli("--layers", "2", "--hidden", "64", "--heads", "4", "--ffn", "128", "--vocab", "256", "--stage", "5")
    assert out.returncode != 0 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


# ---------------------------------------------------------------- protocol (torch-free)


def test_protocol_round_trip():
    arch = EVEN.model.architecture
    states = States(params=1, grads=2, optimizer=3)
    messages = [
        Started(torch="2.13.0", device="cpu", ranks=2, stages=[0, 3], architecture=arch, params=10, seq_len=16,
                micro_batch=1, scale=Scale(layers=0.5)),
        PhaseMsg(stage=1, rank=0, phase="backward", progress=0.5),
        Sample(stage=2, rank=0, t=0.25, bytes=1024),
        Result(stage=3, rank=1, peak_bytes=10, peak={"params": 4, "activations": 6},
               phase_peaks={"forward": {"total": 10, "params": 4}}, states=states, predicted_states=states,
               max_allocated_bytes=12, max_reserved_bytes=2048),
        Error(code="out_of_memory", message="rank 1 ran out of memory.", stage=2, rank=1),
        Done(wall_s=1.5),
    ]
    for msg in messages:
        line = encode(msg)
        assert "\n" not in line
        assert decode(line) == msg
        assert decode(line.encode() + b"\n") == msg


@pytest.mark.parametrize("line", ["", "hello world", "{", '{"kind": "nope"}', '{"kind": "result", "stage": 0}',
                                  '[1, 2]', '{"kind": "error", "code": "bogus", "message": "x"}'])
def test_protocol_garbage_raises_one_sentence(line):
    with pytest.raises(ProtocolError) as info:
        decode(line)
    text = str(info.value)
    assert text and "\n" not in text


def test_protocol_is_torch_free():
    code = "import sys, zerodesk.measure.protocol, zerodesk.measure.runner, zerodesk.measure.command, " \
           "zerodesk.core.torch_profile; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_scale_plan_keeps_heads_and_divisibility():
    big = Plan.model_validate({"model": {"architecture": {
        "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 11008, "vocab": 32000}}, "seq_len": 4096})
    small = scale_plan(big, Scale(layers=1 / 16, hidden=1 / 32, seq=1 / 32, vocab=0.5))
    arch = small.model.architecture
    assert (arch.layers, arch.hidden, arch.heads, arch.kv_heads, arch.ffn, arch.vocab) == (2, 128, 32, 8, 344, 16000)
    assert small.seq_len == 128
    assert scale_plan(big, Scale()) is big
    learned = Plan.model_validate({"model": {"architecture": {
        "layers": 2, "hidden": 64, "heads": 4, "ffn": 10, "vocab": 10, "positions": "learned", "max_positions": 1024}},
        "seq_len": 1024})
    assert scale_plan(learned, Scale(seq=0.25)).model.architecture.max_positions == 256
    with pytest.raises(ValueError, match="architecture"):
        scale_plan(Plan.model_validate({"model": {"params": 1000}}), Scale(layers=0.5))


# ---------------------------------------------------------------- private tracker APIs


def test_trackers_we_rely_on_exist_in_this_torch():
    _needs_torch()
    from zerodesk.measure.worker.trackers import check_tracker

    for stage in range(4):
        check_tracker(stage)  # raises WorkerError(tracker_unavailable) if torch moved them


def test_missing_tracker_is_a_clear_error(monkeypatch):
    _needs_torch()
    import torch.distributed._tools.fsdp2_mem_tracker as fsdp_tracker

    from zerodesk.measure.protocol import WorkerError
    from zerodesk.measure.worker.trackers import check_tracker

    monkeypatch.delattr(fsdp_tracker, "FSDPMemTracker")
    with pytest.raises(WorkerError) as info:
        check_tracker(3)
    assert info.value.code == "tracker_unavailable" and "stage 3" in info.value.message
    check_tracker(1)  # DDP stages use the plain MemTracker, still there
