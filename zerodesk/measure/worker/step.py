"""One rank of a measured training step: `python -m zerodesk.measure.worker --plan-json '<json>' --stage 0,1,2,3`.

Runs under our launcher or unchanged under `torchrun` (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT from the environment; without them it runs as a single rank). Per stage: build the
engine, one warm-up step, reset, one measured step under torch's memory trackers, then the
model states at rest counted from the live tensors. Rank 0 writes protocol JSON lines to stdout
(other ranks only their own errors); everything else goes to stderr.

Exit status: 0 done, 3 an error was reported on stdout, 4 lost contact with another rank
(collateral: the rank that failed reports), 130 interrupted.
"""

from __future__ import annotations

import argparse
import gc
import os
import socket
import sys
import threading
import time
from contextlib import nullcontext
from datetime import timedelta
from typing import Any, Callable

from ..core.offload import fsdp2_offloads
from ..core.plan import Plan, PlanError, plan_from_json
from .devices import adamw, adamw_kwargs, attention_backend, cuda_index, decide_device, dist_failure, local_rank
from .exchange import gather_bytes
from .protocol import Done, Error, PhaseMsg, Result, Sample, Scale, Started, States, encode, scale_plan

EXIT_REPORTED, EXIT_COLLATERAL = 3, 4
FAULT_ENV = "ZERODESK_MEASURE_FAULT"  # test hook: "crash:R", "hang:R", "raise:R" or "garbage:R" (R = rank)
SAMPLE_INTERVAL_S = 0.01

# Tracker categories -> protocol categories.
CATEGORIES = {
    "Parameter": "params", "Sharded Param": "params", "Unsharded Param": "unsharded_params",
    "Gradient": "grads", "Sharded Grad": "grads", "Unsharded Grad": "unsharded_grads",
    "Optstate": "optimizer", "OptState": "optimizer", "Activation": "activations", "Temp": "temporaries",
    "Buffer": "buffers", "All Gather": "all_gather", "Reduce Scatter": "reduce_scatter", "Inputs": "inputs",
    "Other": "other",
}


class WorkerError(Exception):
    """A failure with a protocol error code and one sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class Emitter:
    """Writes protocol lines to the real stdout; fd 1 itself is pointed at stderr so stray prints cannot corrupt it."""

    def __init__(self, rank: int) -> None:
        sys.stdout.flush()
        self.fd = os.dup(1)
        os.dup2(2, 1)
        self.rank = rank
        self._lock = threading.Lock()

    def __call__(self, msg: Any, every_rank: bool = False) -> None:
        if self.rank != 0 and not every_rank:
            return
        data = (encode(msg) + "\n").encode()
        with self._lock:
            while data:  # a pipe may take a long line in pieces
                data = data[os.write(self.fd, data):]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m zerodesk.measure.worker", description=__doc__.splitlines()[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--plan-json", help="the plan as JSON text")
    src.add_argument("--plan", help="a *.zerodesk.json plan file")
    p.add_argument("--stage", "--stages", dest="stages", default="0,1,2,3", help="stages to measure, e.g. 0,1,2,3")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    p.add_argument("--scale-json", default=None, help="a protocol Scale as JSON")
    for field in ("layers", "hidden", "seq", "vocab"):
        p.add_argument(f"--{field}-scale", type=float, default=None)
    p.add_argument("--warmup", type=int, default=1, help="warm-up steps before the measured one")
    p.add_argument("--no-samples", action="store_true", help="do not stream the live memory timeline")
    # the launcher runs one stage per set of ranks (see launcher.main): which one, and its part of the protocol
    p.add_argument("--only-stage", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--no-started", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--no-done", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--t0", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("--collective-timeout", type=float, default=None, metavar="S",
                   help="fail a collective that waits longer than S seconds (NCCL/gloo), so a hung peer is named")
    return p.parse_args(argv)


def _load(args: argparse.Namespace) -> tuple[Plan, Scale, list[int]]:
    try:
        if args.plan_json is not None:
            plan = plan_from_json(args.plan_json, source="--plan-json")
        else:
            with open(args.plan, encoding="utf-8") as fh:
                plan = plan_from_json(fh.read(), source=f"plan file {args.plan}")
        data = Scale.model_validate_json(args.scale_json).model_dump() if args.scale_json else {}
        for field in ("layers", "hidden", "seq", "vocab"):
            if getattr(args, f"{field}_scale") is not None:
                data[field] = getattr(args, f"{field}_scale")
        scale = Scale.model_validate(data)
        stages = sorted({int(s) for s in str(args.stages).split(",") if s.strip()})
    except (PlanError, OSError, ValueError) as exc:
        raise WorkerError("bad_plan", f"{exc}".splitlines()[0]) from None
    if not stages or any(s not in (0, 1, 2, 3) for s in stages):
        raise WorkerError("bad_plan", f"stages must be among 0, 1, 2, 3, not {args.stages!r}")
    return plan, scale, stages


def _env_rank() -> tuple[int, int, int | None]:
    """RANK, WORLD_SIZE and the node-local rank (None where no launcher says) from torchrun, SLURM, MPI or our
    launcher; a lone process becomes rank 0 of 1."""
    if "RANK" not in os.environ:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    rank, world = int(os.environ["RANK"]), int(os.environ.get("WORLD_SIZE", "1"))
    return rank, world, local_rank()


def _fault(point: str, rank: int) -> None:
    """Deliberate failures for the tests (see FAULT_ENV)."""
    spec = os.environ.get(FAULT_ENV, "")
    if not spec or spec.split(":")[-1] != str(rank) or point != "stage":
        return
    kind = spec.split(":")[0]
    if kind == "crash":
        os.kill(os.getpid(), 9)
    elif kind == "hang":
        while True:
            time.sleep(1)
    elif kind == "raise":
        raise RuntimeError("deliberate failure for a test")
    elif kind == "garbage":
        os.write(int(os.environ.get("ZERODESK_PROTOCOL_FD", "1")), b"this is not a protocol line\n")


def _classify(exc: BaseException, rank: int, stage: int | None, backend: str | None = None) -> tuple[str, str] | None:
    """(code, sentence) to report, or None when this rank only lost its peers (collateral)."""
    import torch
    import torch.distributed as dist

    if isinstance(exc, WorkerError):
        return exc.code, exc.message
    full = str(exc).strip()
    text = (full.splitlines() or [""])[0]
    where = f"rank {rank}" + (f" in stage {stage}" if stage is not None else "")
    if isinstance(exc, torch.OutOfMemoryError) or "can't allocate memory" in text or "out of memory" in text.lower():
        return "out_of_memory", f"{where} ran out of memory: {text[:200]}"
    if isinstance(exc, getattr(dist, "DistError", ())) or "nccl" in full.lower():
        verdict = dist_failure(full, backend)
        return None if verdict is None else (verdict[0], f"{where}: {verdict[1]}")
    if any(s in text for s in ("Connection closed by peer", "Connection reset by peer", "Broken pipe",
                               "Socket Timeout", "timed out")):
        return None
    return "internal", f"{where} failed: {type(exc).__name__}: {text[:300]}"


# ---------------------------------------------------------------- measurement


class PhasePeaks:
    """Per-phase peaks from one tracker: reset its running peak to the current total at each phase start.

    Uses the tracker's private _peak_mem/_peak_mem_snap (checked up front, see check_tracker)."""

    def __init__(self, tracker: Any, device: Any) -> None:
        self.tracker, self.device = tracker, device
        self.current: str | None = None
        self.peaks: dict[str, dict[str, int]] = {}

    def start(self, name: str | None) -> None:
        if self.current is not None:
            snap = self.tracker.get_tracker_snapshot("peak").get(self.device, {})
            self.peaks[self.current] = _categories(snap)
        self.current = name
        if name is not None:
            snap = self.tracker.get_tracker_snapshot("current")
            self.tracker._peak_mem_snap = snap
            self.tracker._peak_mem = {dev: s.get("Total", 0) for dev, s in snap.items()}

    def overall(self) -> tuple[int, dict[str, int]]:
        name = max(self.peaks, key=lambda n: self.peaks[n]["total"])
        cats = dict(self.peaks[name])
        return cats.pop("total"), cats


def _categories(snap: dict) -> dict[str, int]:
    out: dict[str, int] = {"total": 0}
    for key, value in snap.items():
        name = getattr(key, "value", key)
        if name == "Total":
            out["total"] = int(value)
        else:
            cat = CATEGORIES.get(name, str(name).lower().replace(" ", "_"))
            out[cat] = out.get(cat, 0) + int(value)
    return out


def check_tracker(stage: int) -> None:
    """Fail with tracker_unavailable when torch's private memory trackers are missing or changed."""
    try:
        from torch.distributed._tools.mem_tracker import MemTracker

        if stage >= 2:
            from torch.distributed._tools.fsdp2_mem_tracker import FSDPMemTracker

            getattr(FSDPMemTracker, "track_inputs")
        probe = MemTracker()
        for attr in ("get_tracker_snapshot", "reset_mod_stats", "track_external", "_peak_mem", "_peak_mem_snap",
                     "_curr_mem_snap", "_update_and_maybe_create_winfos"):
            getattr(probe, attr)
    except (ImportError, AttributeError) as exc:
        raise WorkerError("tracker_unavailable",
                          f"this torch has no usable memory tracker for stage {stage} ({exc}); "
                          "torch 2.6 or newer is needed") from None


def file_kept_unsharded_storages(tracker: Any, model: Any) -> None:
    """Tell an FSDPMemTracker entered after an untracked warm-up what a tracked one would have left it knowing.

    FSDP2 keeps each unsharded parameter's storage from step to step (freed to 0 bytes, regrown at each
    all-gather), and the tracker files it as an unsharded parameter the first time a pre-forward hook sees it.
    Unknown to the tracker, the next all-gather's copy-out would file those bytes as activations until the hook
    relabels them, so a forward peak at that moment would split differently. Everything else the warm-up keeps
    (sharded parameters and gradients, optimizer states, buffers, inputs) the tracker picks up on entry."""
    from torch.distributed._tools.fsdp2_mem_tracker import _FSDPRefType
    from torch.distributed.fsdp import FSDPModule

    for module in model.modules():
        group = module._get_fsdp_state()._fsdp_param_group if isinstance(module, FSDPModule) else None
        for fsdp_param in group.fsdp_params if group else ():
            if hasattr(fsdp_param, "_unsharded_param"):  # made at the first all-gather
                tracker._update_and_maybe_create_winfos(fsdp_param._unsharded_param, _FSDPRefType.UNSHARDED_PARAM)


def storage_bytes(tensors: Any, device: Any) -> int:
    """Bytes of the distinct storages behind `tensors` on `device` (views and shards counted once)."""
    from torch.distributed.tensor import DTensor

    seen: dict[int, int] = {}
    for t in tensors:
        if t is None:
            continue
        if isinstance(t, DTensor):
            t = t._local_tensor
        if t.device != device:
            continue  # e.g. AdamW's step on the host while the states are on the GPU
        st = t.untyped_storage()
        if st.nbytes():
            seen[st._cdata] = st.nbytes()  # the StorageImpl, not data_ptr(): fake tensors all report 0
    return sum(seen.values())


class Sampler(threading.Thread):
    """Streams the rank's current tracked bytes while the measured step runs."""

    def __init__(self, read: Callable[[], int], emit: Callable[[Any], None], stage: int, rank: int) -> None:
        super().__init__(daemon=True)
        self.read, self.emit, self.stage, self.rank = read, emit, stage, rank
        self.stop = threading.Event()
        self.t0 = time.perf_counter()

    def sample(self) -> None:
        try:
            value = int(self.read())
        except Exception:  # the tracker's dict may change under us; skip one tick
            return
        self.emit(Sample(stage=self.stage, rank=self.rank, t=time.perf_counter() - self.t0, bytes=max(0, value)))

    def run(self) -> None:
        while not self.stop.wait(SAMPLE_INTERVAL_S):
            self.sample()


def measure_stage(stage: int, plan: Plan, device: Any, rank: int, world: int, emit: Emitter, mesh: Any,
                  warmup: int, samples: bool, ddp_class: Any = None, track_warmup: bool = True) -> Result:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    from ..core.torch_profile import rank_states
    from .hf_model import TransformersMissing
    from .model import blocks_of, build_model, loss_fn

    arch = plan.model.architecture
    cuda = device.type == "cuda"
    check_tracker(stage)
    emit(PhaseMsg(stage=stage, rank=rank, phase="setup", progress=0.0))
    baseline = torch.cuda.memory_allocated(device) if cuda else None  # left by earlier stages or the process
    try:
        model = build_model(plan.model, device, seed=0)
    except (TransformersMissing, ValueError) as exc:
        raise WorkerError("unsupported", str(exc)) from None
    blocks = blocks_of(model)
    from .recompute import apply_recompute

    apply_recompute(blocks, plan.recompute)
    ddp = None
    if stage <= 1:  # ddp_class: the simulation's stand-in for DDP under the fake process group
        ddp = (ddp_class or DDP)(model, device_ids=[device.index] if cuda else None)
        train_model = ddp
        if stage == 0:
            opt = adamw(ddp.parameters(), plan.optimizer_impl)
        else:
            from torch.distributed.optim import ZeroRedundancyOptimizer

            opt = ZeroRedundancyOptimizer(ddp.parameters(), optimizer_class=torch.optim.AdamW, lr=1e-4,
                                          **adamw_kwargs(plan.optimizer_impl))
        autocast = lambda: torch.autocast(device.type, dtype=torch.bfloat16)  # noqa: E731
    else:
        from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, fully_shard

        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        # offload (core.offload, torch profile): FSDP2 moves parameters, gradients and AdamW's step to the host
        # together; pinned memory only where a device copies from it (CUDA). Not yet run on a GPU by ZeroDesk.
        policy = {"offload_policy": CPUOffloadPolicy(pin_memory=cuda)} if fsdp2_offloads(plan) else {}
        for block in blocks:
            fully_shard(block, mesh=mesh, reshard_after_forward=stage == 3, mp_policy=mp, **policy)
        fully_shard(model, mesh=mesh, reshard_after_forward=stage == 3, mp_policy=mp, **policy)
        train_model = model
        opt = adamw(model.parameters(), plan.optimizer_impl)
        autocast = nullcontext  # FSDP2's policy casts; autocast would add its own copies

    gen = torch.Generator().manual_seed(1000 + rank)  # each rank its own data, as in data parallelism
    shape = (plan.micro_batch, plan.seq_len)
    vocab = arch.vocab if arch is not None else int(plan.model.hf_config["vocab_size"])
    tokens = torch.randint(vocab, shape, generator=gen).to(device)
    targets = torch.randint(vocab, shape, generator=gen).to(device)

    if stage >= 2:
        from torch.distributed._tools.fsdp2_mem_tracker import FSDPMemTracker

        tracker = FSDPMemTracker(model, opt)
        tracker.track_inputs((tokens, targets))
    else:
        from torch.distributed._tools.mem_tracker import MemTracker

        tracker = MemTracker()
        tracker.track_external(train_model, opt, tokens, targets)
    emit(PhaseMsg(stage=stage, rank=rank, phase="setup", progress=1.0))

    def step(peaks: PhasePeaks | None) -> None:
        mark = peaks.start if peaks else (lambda _name: None)
        mark("forward")
        opt.zero_grad(set_to_none=True)
        with autocast():
            loss = loss_fn(train_model(tokens), targets)
        mark("backward")
        emit(PhaseMsg(stage=stage, rank=rank, phase="backward", progress=0.0))
        loss.backward()
        del loss
        mark("optimizer")
        emit(PhaseMsg(stage=stage, rank=rank, phase="optimizer", progress=0.0))
        opt.step()
        mark(None)
        emit(PhaseMsg(stage=stage, rank=rank, phase="optimizer", progress=1.0))

    def warm() -> None:
        for i in range(warmup):
            emit(PhaseMsg(stage=stage, rank=rank, phase="warmup", progress=i / max(warmup, 1)))
            step(None)
        emit(PhaseMsg(stage=stage, rank=rank, phase="warmup", progress=1.0))

    if not track_warmup:  # FSDP2 only (simulate's default): FSDPMemTracker picks up the states on entry
        warm()
        file_kept_unsharded_storages(tracker, model)
    with tracker:
        if track_warmup:
            warm()
            tracker.reset_mod_stats()  # the trackers refuse a second root forward otherwise
        _fault("stage", rank)
        layers, hooks = len(blocks), []
        if rank == 0:  # forward progress per block, measured step only
            for i, block in enumerate(blocks):
                hooks.append(block.register_forward_hook(lambda *_, i=i: emit(
                    PhaseMsg(stage=stage, rank=rank, phase="forward", progress=(i + 1) / (layers + 1)))))
        # The warm-up's reference cycles (autograd graph, hooks) hold tensors until the collector runs; run it
        # now, or a gradient-sized tensor may or may not still be alive in the measured step (seen on CUDA).
        gc.collect()
        if cuda:
            torch.cuda.synchronize(device)
            torch.cuda.reset_peak_memory_stats(device)
        dist.barrier()
        sampler = None
        if samples and rank == 0:
            # the tracker's total on every device, so the curve and the reported peak are one kind of figure
            read = lambda: tracker._curr_mem_snap.get(device, {}).get("Total", 0)  # noqa: E731
            sampler = Sampler(read, emit, stage, rank)
            sampler.sample()
            sampler.start()
        peaks = PhasePeaks(tracker, device)
        t0 = time.perf_counter()
        emit(PhaseMsg(stage=stage, rank=rank, phase="forward", progress=0.0))
        used_after = None
        try:
            step(peaks)
            if cuda:
                torch.cuda.synchronize(device)
                free, total = torch.cuda.mem_get_info(device)
                used_after = (total - free, torch.cuda.memory_reserved(device))
        finally:
            if sampler is not None:
                sampler.stop.set()
                sampler.join()
                sampler.sample()
        step_s = time.perf_counter() - t0
    for h in hooks:
        h.remove()

    # States at rest, counted from what is alive now, not from the prediction.
    params = list(train_model.parameters())
    local_opt = opt.optim if stage == 1 else opt
    opt_tensors = [v for state in local_opt.state.values() for v in state.values() if isinstance(v, torch.Tensor)]
    states = States(params=storage_bytes(params, device), grads=storage_bytes((p.grad for p in params), device),
                    optimizer=storage_bytes(opt_tensors, device))
    comm = None
    if ddp is not None:  # DDP's own account of its gradient buckets (bytes), rebuilt after the first step
        info = ddp._get_ddp_logging_data()
        sizes = info.get("rebuilt_bucket_sizes") or info.get("bucket_sizes") or ""
        comm = sum(int(s) for s in str(sizes).split(",") if s.strip())
    shapes = [s for _, s in plan.model.named_shapes or []]
    pred = rank_states(shapes, sum(p.numel() for p in model.parameters()), stage, world, device=device.type,
                       optimizer_impl=plan.optimizer_impl)[rank]
    peak_bytes, peak = peaks.overall()
    result = Result(
        stage=stage, rank=rank, peak_bytes=peak_bytes, peak=peak,
        phase_peaks=peaks.peaks,  # phase -> category -> bytes, with "total"
        states=states,
        predicted_states=States(params=pred["params"], grads=pred["grads"], optimizer=pred["optimizer"]),
        comm_buffers=comm, predicted_comm_buffers=pred["comm_buffers"] if stage <= 1 else None,
        step_s=step_s,
    )
    if cuda:
        result.max_allocated_bytes = torch.cuda.max_memory_allocated(device)
        result.allocated_at_start_bytes = baseline
        result.max_reserved_bytes = torch.cuda.max_memory_reserved(device)
        # what the tracker never sees: cuBLAS/cuDNN workspaces, blocks held for FSDP2's and NCCL's streams
        result.untracked_bytes = max(0, result.max_allocated_bytes - baseline - peak_bytes)
        if used_after is not None:  # in use on the GPU but not by torch's allocator: CUDA context, NCCL, others
            result.device_overhead_bytes = max(0, used_after[0] - used_after[1])
    del tracker, peaks, opt, local_opt, opt_tensors, params, train_model, ddp, model
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
        # cuBLAS keeps a workspace per handle and stream, which the next stage's peak would carry
        getattr(torch._C, "_cuda_clearCublasWorkspaces", lambda: None)()
    return result


def preload(plan: Plan | None = None) -> None:
    """Import what every stage needs, once: a launcher that forks its ranks calls it first, so each stage's
    fresh ranks start without importing torch's engines, trackers and transformers' model again."""
    import torch.distributed.fsdp  # noqa: F401
    import torch.distributed.optim  # noqa: F401
    import torch.nn.parallel  # noqa: F401
    from torch.distributed._tools import fsdp2_mem_tracker, mem_tracker  # noqa: F401
    from torch.distributed.device_mesh import init_device_mesh  # noqa: F401

    from . import model, recompute  # noqa: F401

    arch = plan.model.architecture if plan is not None else None
    if plan is not None and (arch is None or arch.family != "custom"):
        try:  # transformers' modules load with the first model of a type: build it once on the meta device
            model.build_model(plan.model, "meta")
        except Exception:  # noqa: BLE001 - each rank meets the same problem and reports it in one sentence
            pass


def run(args: argparse.Namespace, rank: int, world: int, local: int | None, emit: Emitter, where: dict) -> None:
    plan, scale, stages = _load(args)
    try:
        plan = scale_plan(plan, scale)
    except ValueError as exc:
        raise WorkerError("bad_plan", str(exc).splitlines()[0]) from None
    arch = plan.model.architecture
    if arch is not None and arch.positions == "learned" and plan.seq_len > arch.max_positions:
        raise WorkerError("bad_plan",
                          f"sequence length {plan.seq_len} exceeds the learned position table ({arch.max_positions})")

    import torch
    import torch.distributed as dist

    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    # the launcher passes its decision down; a CPU rank never touches CUDA (it may be a fork)
    want = decide_device(args.device, args.device == "auto" and torch.cuda.is_available())
    timeout = {} if args.collective_timeout is None else {"timeout": timedelta(seconds=args.collective_timeout)}
    if want == "cuda":
        if not torch.cuda.is_available():
            raise WorkerError("no_gpu", "CUDA was asked for, but this torch build or machine has no usable GPU")
        try:
            index = cuda_index(local, rank, torch.cuda.device_count())
        except ValueError as exc:
            raise WorkerError("no_gpu", str(exc)) from None
        device = torch.device("cuda", index)
        torch.cuda.set_device(device)
        where["backend"] = "nccl"
        dist.init_process_group("nccl", rank=rank, world_size=world, device_id=device, **timeout)
        device_name = torch.cuda.get_device_name(device)
    else:
        device = torch.device("cpu")
        where["backend"] = "gloo"
        dist.init_process_group("gloo", rank=rank, world_size=world, **timeout)
        device_name = None
    t0 = time.perf_counter()
    if not args.no_started:
        emit(Started(torch=torch.__version__, offload=fsdp2_offloads(plan), optimizer_impl=plan.optimizer_impl,
                     attention=attention_backend(torch, arch, plan.seq_len, device),
                     device=device.type, device_name=device_name, ranks=world, stages=stages,
                     architecture=arch, params=plan.params, seq_len=plan.seq_len, micro_batch=plan.micro_batch,
                     scale=scale))
    run_now = stages if args.only_stage is None else [args.only_stage]
    mesh = None
    if any(s >= 2 for s in run_now):
        from torch.distributed.device_mesh import init_device_mesh

        mesh = init_device_mesh(device.type, (world,))
    for stage in run_now:
        where["stage"] = stage
        result = measure_stage(stage, plan, device, rank, world, emit, mesh, args.warmup, not args.no_samples)
        for item in gather_bytes(result.model_dump_json().encode(), rank, world, device):  # JSON, not pickle
            emit(Result.model_validate_json(item))
        where["stage"] = None
    dist.barrier()  # nobody leaves while another rank still talks
    if not args.no_done:
        emit(Done(wall_s=time.time() - args.t0 if args.t0 is not None else time.perf_counter() - t0))


def main(argv: list[str] | None = None) -> None:
    """Run and leave with os._exit: FSDP2 on gloo may abort in interpreter teardown after success."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rank, world, local = _env_rank()
    emit = Emitter(rank)
    os.environ["ZERODESK_PROTOCOL_FD"] = str(emit.fd)
    where: dict = {"stage": None, "backend": None}
    code = 0
    try:
        args = _parse(argv)
        run(args, rank, world, local, emit, where)
    except SystemExit as exc:  # argparse: usage went to stderr
        code = exc.code if isinstance(exc.code, int) else 2
        if code:
            emit(Error(code="bad_plan", message="the worker was started with invalid arguments (see its stderr)"))
            code = EXIT_REPORTED
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one protocol line
        import traceback

        traceback.print_exc(file=sys.stderr)
        verdict = _classify(exc, rank, where["stage"], where["backend"])
        if verdict is None:
            code = EXIT_COLLATERAL
        else:
            # Errors found before any communication are the same on every rank: rank 0 says it once.
            early = isinstance(exc, WorkerError) and exc.code == "bad_plan"
            try:
                emit(Error(code=verdict[0], message=verdict[1], stage=where["stage"], rank=rank), every_rank=not early)
                code = EXIT_REPORTED
            except OSError:  # the reader is gone (closed pipe): nobody to tell
                code = 1
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
