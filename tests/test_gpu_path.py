"""The CUDA/NCCL path, checked on a CPU machine: torch.cuda, the process starter and init_process_group are
replaced by recorders, so the device decision, the rank-to-GPU mapping, the ranks' default, the NCCL error
sentences and the collective timeout are tested without a GPU. (A GPU machine runs ../shared/gpu-smoke.sh.)
"""

from __future__ import annotations

import io
import json
import sys
from datetime import timedelta

import pytest

from zerodesk.core.plan import Plan
from zerodesk.measure import devices
from zerodesk.measure.protocol import Error, decode

PLAN4 = Plan.model_validate({"model": {"architecture": {"layers": 2, "hidden": 64, "heads": 4, "ffn": 128, "vocab": 256}},
                             "seq_len": 16, "micro_batch": 1, "cluster": {"nodes": 1, "gpus_per_node": 4}})


# -- pure rules ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("env, want", [
    ({"LOCAL_RANK": "3", "SLURM_LOCALID": "1"}, 3),  # torchrun's name wins
    ({"SLURM_LOCALID": "1", "RANK": "9"}, 1),
    ({"OMPI_COMM_WORLD_LOCAL_RANK": "2"}, 2),
    ({"MPI_LOCALRANKID": "5"}, 5),
    ({"RANK": "9"}, None),  # the global rank is not a local one
    ({"LOCAL_RANK": "x"}, None),
])
def test_local_rank_from_any_launcher(env, want):
    assert devices.local_rank(env) == want


@pytest.mark.parametrize("local, rank, visible, want", [
    (0, 0, 2, 0), (1, 1, 2, 1),
    (1, 1, 1, 0),  # SLURM --gpus-per-task=1: each rank sees only its own GPU
    (3, 11, 1, 0),  # second node, one GPU per rank
    (None, 9, 8, 1),  # no local rank: node-local by the global rank
    (None, 0, 1, 0),
])
def test_cuda_index(local, rank, visible, want):
    assert devices.cuda_index(local, rank, visible) == want


def test_cuda_index_refuses_a_rank_without_its_gpu():
    with pytest.raises(ValueError, match="local rank 2 needs GPU 2, but only 2 are visible"):
        devices.cuda_index(2, 2, 2)
    with pytest.raises(ValueError, match="no GPU"):
        devices.cuda_index(0, 0, 0)


def test_device_decision_and_default_ranks():
    assert devices.decide_device("auto", True) == "cuda"
    assert devices.decide_device("auto", False) == "cpu"
    assert devices.decide_device("cpu", True) == "cpu"
    assert devices.default_ranks(4, "cuda", 1, 2) == 1  # the README's example on a one-GPU machine
    assert devices.default_ranks(4, "cuda", 8, 2) == 2
    assert devices.default_ranks(4, "cpu", 0, 2) == 2
    assert devices.default_ranks(1, "cpu", 0, 2) == 1


NCCL_SYSTEM = ("NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, unhandled system error "
               "(run with NCCL_DEBUG=INFO for details), NCCL version 2.27.5\n"
               "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
               "Last error:\nBootstrap : no socket interface found")
NCCL_REMOTE = ("NCCL error in: ProcessGroupNCCL.cpp:2057, remote process exited or there was a network error, "
               "NCCL version 2.27.5\nncclRemoteError: A call failed possibly due to a network error or a remote "
               "process exiting prematurely.\nLast error:\nsocket recv: Connection closed by peer")
WATCHDOG = ("[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, "
            "NumelIn=1, NumelOut=1, Timeout(ms)=10000) ran for 10012 milliseconds before timing out.")


def test_nccl_failures_are_quoted_in_one_sentence():
    code, text = devices.dist_failure(NCCL_SYSTEM, "nccl")
    assert code == "nccl"
    assert text == "NCCL failed: ncclSystemError; Bootstrap : no socket interface found"
    assert "\n" not in text


def test_lost_peers_are_collateral_and_timeouts_are_named():
    assert devices.dist_failure(NCCL_REMOTE, "nccl") is None
    assert devices.dist_failure("Connection closed by peer [127.0.0.1]:123", "gloo") is None
    assert devices.dist_failure("something in the store", "gloo") is None
    code, text = devices.dist_failure(WATCHDOG, "nccl")
    assert code == "timeout" and "collective timed out" in text and "Watchdog" in text


def test_the_worker_classifies_a_real_dist_backend_error():
    torch = pytest.importorskip("torch")
    from zerodesk.measure.worker.failures import classify

    exc = torch.distributed.DistBackendError(NCCL_SYSTEM)
    assert classify(exc, 1, 0, "nccl") == (
        "nccl", "rank 1 in stage 0: NCCL failed: ncclSystemError; Bootstrap : no socket interface found")
    assert classify(torch.distributed.DistBackendError(NCCL_REMOTE), 0, 3, "nccl") is None
    assert classify(torch.distributed.DistNetworkError("Connection reset by peer"), 0, None, "gloo") is None
    assert classify(RuntimeError("boom"), 0, None, "gloo")[0] == "internal"


@pytest.mark.parametrize("impl, kwargs", [
    ("foreach", {"foreach": True, "fused": False}), ("fused", {"foreach": False, "fused": True}),
    ("for-loop", {"foreach": False, "fused": False}),
])
def test_adamw_kernels_are_explicit(impl, kwargs):
    torch = pytest.importorskip("torch")
    assert devices.adamw_kwargs(impl) == kwargs
    from zerodesk.measure.worker.engines import adamw

    opt = adamw([torch.nn.Parameter(torch.zeros(3))], impl)
    assert opt.defaults["foreach"] is kwargs["foreach"] and opt.defaults["fused"] is kwargs["fused"]


# -- the launcher, with torch.cuda and the process starter replaced -------------------------------------------------


class Started(BaseException):
    """Raised by the fake start_processes: the launcher got as far as starting ranks."""


@pytest.fixture
def fake_gpus(monkeypatch):
    torch = pytest.importorskip("torch")
    import torch.multiprocessing as mp

    seen: dict = {}

    def install(count: int) -> dict:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)

        def start_processes(fn, args, nprocs, join, start_method):
            seen.update(argv=args[0], world=args[1], nprocs=nprocs, start_method=start_method)
            raise Started

        monkeypatch.setattr(mp, "start_processes", start_processes)
        return seen

    return install


def _device(argv: list[str]) -> str:
    """The device the launcher passed down (its last --device)."""
    return argv[len(argv) - 1 - argv[::-1].index("--device") + 1]


def _launch(argv: list[str], capsys) -> tuple[int | None, list]:
    from zerodesk.measure.worker import launcher

    try:
        code = launcher.main(argv)
    except Started:
        code = None
    out = capsys.readouterr().out
    return code, [decode(line) for line in out.splitlines() if line.strip()]


def test_launcher_default_is_one_rank_per_gpu_on_a_one_gpu_machine(fake_gpus, capsys):
    seen = fake_gpus(1)
    code, msgs = _launch(["--device", "auto", "--plan-json", PLAN4.model_dump_json(), "--stage", "0"], capsys)
    assert code is None and msgs == []
    assert seen["nprocs"] == 1 and seen["world"] == 1
    assert seen["start_method"] == "spawn"  # CUDA is never forked
    assert _device(seen["argv"]) == "cuda"  # the launcher's decision goes down to the ranks


def test_launcher_without_gpu_picks_cpu_and_forks(fake_gpus, capsys):
    seen = fake_gpus(0)
    code, _ = _launch(["--plan-json", PLAN4.model_dump_json(), "--stage", "0"], capsys)
    assert code is None
    assert seen["nprocs"] == 2 and _device(seen["argv"]) == "cpu" and seen["start_method"] == "fork"


def test_launcher_refuses_more_ranks_than_gpus(fake_gpus, capsys):
    seen = fake_gpus(1)
    code, msgs = _launch(["--ranks", "2", "--device", "cuda", "--plan-json", PLAN4.model_dump_json()], capsys)
    assert code == 1 and not seen
    assert isinstance(msgs[0], Error) and msgs[0].code == "no_gpu"
    assert msgs[0].message == "2 ranks need 2 GPUs, but 1 are visible"


def test_launcher_applies_the_host_guard_once_it_has_decided_cpu(fake_gpus, capsys, monkeypatch):
    from zerodesk.measure import rules

    seen = fake_gpus(0)  # the driver may be there, but this torch sees no GPU: CPU ranks, so the host guard
    monkeypatch.setattr(rules, "host_available_bytes", lambda: 1000)
    code, msgs = _launch(["--device", "auto", "--plan-json", PLAN4.model_dump_json(), "--stage", "0,3"], capsys)
    assert code == 1 and not seen
    assert msgs[0].code == "host_memory"
    assert msgs[0].message.startswith("the model states of 2 CPU ranks need about")

    seen = fake_gpus(1)  # the same plan on a GPU: not the host's business
    code, msgs = _launch(["--device", "auto", "--plan-json", PLAN4.model_dump_json(), "--stage", "0,3"], capsys)
    assert code is None and _device(seen["argv"]) == "cuda"


def test_front_ends_leave_auto_to_the_launcher_unless_they_know_the_gpus(monkeypatch):
    from zerodesk.measure import rules

    monkeypatch.setattr(rules, "host_available_bytes", lambda: 1000)
    assert rules.host_fit(PLAN4, [0], 2, "auto") is None  # undecided: the launcher judges
    assert rules.host_fit(PLAN4, [0], 2, "auto", gpus=0) is not None  # the probe said no GPU
    assert rules.host_fit(PLAN4, [0], 2, "cpu") is not None
    assert rules.default_ranks(PLAN4, "auto", gpus=1) == 1
    assert rules.default_ranks(PLAN4, "cpu") == 2


# -- the worker's start on CUDA, with init_process_group recorded --------------------------------------------------


class Initialised(Exception):
    pass


@pytest.mark.parametrize("env, visible, want_index", [
    ({"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1"}, 2, 1),
    ({"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1"}, 1, 0),  # one GPU per rank
    ({"RANK": "5", "WORLD_SIZE": "8", "SLURM_LOCALID": "1"}, 4, 1),  # second node under srun
])
def test_worker_binds_its_gpu_and_passes_the_collective_timeout(monkeypatch, env, visible, want_index):
    torch = pytest.importorskip("torch")
    import torch.distributed as dist

    from zerodesk.measure import job
    from zerodesk.measure.worker import rank as worker

    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"):
        monkeypatch.delenv(name, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: visible)
    bound = []
    monkeypatch.setattr(torch.cuda, "set_device", lambda d: bound.append(d))
    calls = []

    def init(backend, **kw):
        calls.append((backend, kw))
        raise Initialised

    monkeypatch.setattr(dist, "init_process_group", init)
    rank, world, local = devices.env_rank()
    args = job.rank_arguments().parse_args(["--plan-json", PLAN4.model_dump_json(), "--stage", "0", "--device", "cuda",
                          "--collective-timeout", "42"])
    where = {"stage": None, "backend": None}
    with pytest.raises(Initialised):
        worker.run(args, rank, world, local, lambda *_a, **_k: None, where)
    assert bound == [torch.device("cuda", want_index)]
    backend, kw = calls[0]
    assert backend == "nccl" and where["backend"] == "nccl"
    assert kw["device_id"] == torch.device("cuda", want_index)
    assert kw["rank"] == int(env["RANK"]) and kw["world_size"] == int(env["WORLD_SIZE"])
    assert kw["timeout"] == timedelta(seconds=42)


def test_a_rank_without_its_gpu_says_so(monkeypatch):
    torch = pytest.importorskip("torch")
    from zerodesk.measure import job
    from zerodesk.measure.protocol import WorkerError
    from zerodesk.measure.worker import rank as worker

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    args = job.rank_arguments().parse_args(["--plan-json", PLAN4.model_dump_json(), "--device", "cuda"])
    with pytest.raises(WorkerError) as info:
        worker.run(args, 3, 4, 3, lambda *_a, **_k: None, {"stage": None, "backend": None})
    assert info.value.code == "no_gpu" and "local rank 3 needs GPU 3, but only 2 are visible" in info.value.message


def test_collective_timeout_sits_inside_the_run_watchdog():
    from zerodesk.measure.runner import collective_timeout, measure_command

    assert collective_timeout(600) == 480
    assert collective_timeout(30) == 15
    assert collective_timeout(5) == 10
    argv = measure_command(PLAN4, [0], None, "auto", collective_timeout=collective_timeout(100))
    assert "--ranks" not in argv  # the launcher decides with the device
    assert argv[argv.index("--collective-timeout") + 1] == "80"


def test_launcher_with_cpu_ranks_never_touches_cuda(fake_gpus, capsys, monkeypatch):
    """CPU ranks are forked: a CUDA initialised in the launcher would break them (seen on an H200)."""
    torch = pytest.importorskip("torch")
    seen = fake_gpus(1)

    def no(*_a):
        raise AssertionError("the launcher asked CUDA for a CPU run")

    monkeypatch.setattr(torch.cuda, "is_available", no)
    monkeypatch.setattr(torch.cuda, "device_count", no)
    code, _ = _launch(["--device", "cpu", "--plan-json", PLAN4.model_dump_json(), "--stage", "0"], capsys)
    assert code is None and _device(seen["argv"]) == "cpu" and seen["start_method"] == "fork"


def test_each_stage_runs_on_fresh_ranks(monkeypatch, capsys):
    """torch's trackers leave a stage's model alive (seen on an H200: 0.6 GiB more per stage for 113M
    parameters), so the launcher starts one set of ranks per stage; the first says Started, the last Done."""
    torch = pytest.importorskip("torch")
    import torch.multiprocessing as mp

    from zerodesk.measure.worker import launcher

    calls = []

    class Done:
        exitcode = 0

        def join(self):
            pass

    class Ctx:
        processes = [Done(), Done()]

    def start_processes(fn, args, nprocs, join, start_method):
        calls.append(args[0])
        return Ctx()

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(mp, "start_processes", start_processes)
    code = launcher.main(["--ranks", "2", "--device", "cpu", "--plan-json", PLAN4.model_dump_json(), "--stage", "3,0"])
    assert code == 0 and len(calls) == 2
    first, second = calls
    assert first[first.index("--only-stage") + 1] == "0" and "--no-done" in first and "--no-started" not in first
    assert second[second.index("--only-stage") + 1] == "3" and "--no-started" in second and "--no-done" not in second
    assert first[first.index("--stage") + 1] == "3,0"  # Started still lists every stage
