"""Simulated full-size step of one rank: `python -m zerodesk.measure.simulate --plan-json '<json>' --stage 2,3 --dp N`.

The middle tier of evidence. One process plays rank 0 of a fake world of Nd ranks: a fake
process group (collectives do nothing), the model built and sharded under FakeTensorMode
(tensors carry shapes and dtypes, no data), and the worker's own measure_stage() run on
it unchanged: the same GPT model, the same FSDP2 wrapping and MixedPrecisionPolicy, the
same AdamW, a warm-up and a measured step under FSDPMemTracker. So a 7B model at Nd = 64
is simulated on a laptop in seconds, and the figures are the ones a real rank 0 would track.
Stages 2-3 run their warm-up untracked (tracking it added a tenth to a 7B simulation) and
then tell the tracker what a tracked warm-up would have left it knowing, so every figure is the
same byte for byte; --tracked-warmup tracks the warm-up as real ranks do, to check that.

Stages 2 and 3 run FSDP2 itself. DDP (stages 0 and 1) reads tensor data in its constructor, so
its reducer is replayed in Python with torch's own bucket assignment (ddp_sim.SimulatedDDP);
ZeroRedundancyOptimizer runs as it is. Each Result says how it was simulated ("method").

--backend gloo adds the copies gloo makes that NCCL does not: ProcessGroupGloo reduce-scatters
through a full-size copy of the input, which a real CPU rank holds while the collective runs.
The default, nccl, models a GPU rank (in-place reduce-scatter, no copy).

Sizes are CPU sizes (fake CUDA tensors need a CUDA build): a GPU's caching allocator
would round each block up to 512 B, which these figures leave out.

Writes the worker's protocol lines (Started, PhaseMsg, Result, Error, Done) to stdout with
source="simulated"; exit status 0 done, 3 an error was reported.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import contextmanager
from typing import Any, Iterator

from ..core.offload import fsdp2_offloads
from ..core.plan import Plan, PlanError, plan_from_json
from . import worker
from .protocol import Done, Error, Started

SIMULATED_STAGES = (0, 1, 2, 3)
BACKENDS = ("nccl", "gloo")
METHODS = {
    0: "fake process group: DDP's reducer replayed (torch's bucket assignment, flat fp32 buckets) + AdamW",
    1: "fake process group: DDP's reducer replayed + torch's ZeroRedundancyOptimizer(AdamW)",
    2: "fake process group: torch's FSDP2 fully_shard(reshard_after_forward=False) + AdamW",
    3: "fake process group: torch's FSDP2 fully_shard(reshard_after_forward=True) + AdamW",
}


def method(stage: int, backend: str, offload: bool = False) -> str:
    """How a stage is simulated, in one phrase (torch-free: the CLI prints it too)."""
    if stage <= 1:
        copies = f"{backend}: DDP all-reduces its buckets in place"
    else:
        copies = "gloo's reduce-scatter copy added" if backend == "gloo" else "nccl: no collective copies"
        if offload:
            copies += "; CPUOffloadPolicy: the states counted are host memory"
    return f"{METHODS[stage]}; {copies}"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m zerodesk.measure.simulate", description=__doc__.splitlines()[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--plan-json", help="the plan as JSON text")
    src.add_argument("--plan", help="a *.zerodesk.json plan file")
    p.add_argument("--stage", "--stages", dest="stages", default="0,1,2,3", help="stages to simulate, e.g. 0,1,2,3")
    p.add_argument("--backend", choices=BACKENDS, default="nccl", help="whose collective copies to model")
    p.add_argument("--dp", type=int, default=None, help="data-parallel degree Nd (default: the plan's)")
    p.add_argument("--warmup", type=int, default=1, help="warm-up steps before the simulated one")
    p.add_argument("--tracked-warmup", action="store_true",
                   help="stages 2-3: track the warm-up too, as real ranks do (the same figures, slower)")
    p.add_argument("--fast-warmup", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for scripts
    return p.parse_args(argv)


def _load(args: argparse.Namespace) -> tuple[Plan, list[int], int]:
    try:
        if args.plan_json is not None:
            plan = plan_from_json(args.plan_json, source="--plan-json")
        else:
            with open(args.plan, encoding="utf-8") as fh:
                plan = plan_from_json(fh.read(), source=f"plan file {args.plan}")
        stages = sorted({int(s) for s in str(args.stages).split(",") if s.strip()})
    except (PlanError, OSError, ValueError) as exc:
        raise worker.WorkerError("bad_plan", f"{exc}".splitlines()[0]) from None
    if not stages or any(s not in (0, 1, 2, 3) for s in stages):
        raise worker.WorkerError("bad_plan", f"stages must be among 0, 1, 2, 3, not {args.stages!r}")
    dp = plan.dp if args.dp is None else args.dp
    if dp < 1:
        raise worker.WorkerError("bad_plan", f"--dp must be at least 1, not {dp}")
    arch = plan.model.architecture
    if not plan.model.buildable:
        raise worker.WorkerError("bad_plan", "simulating needs an architecture (layers, hidden, heads, ffn, vocab), "
                                             "not only a parameter count")
    if arch is not None and arch.positions == "learned" and plan.seq_len > arch.max_positions:
        raise worker.WorkerError(
            "bad_plan", f"sequence length {plan.seq_len} exceeds the learned position table ({arch.max_positions})")
    return plan, stages, dp


@contextmanager
def _fake_world(world: int, backend: str = "nccl") -> Iterator[Any]:
    """Rank 0 of a fake process group of `world` ranks, a CPU device mesh, and FakeTensorMode; yields the mesh."""
    try:
        import torch.distributed as dist
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.distributed.device_mesh import init_device_mesh
        from torch.testing._internal.distributed.fake_pg import FakeStore  # registers the "fake" backend
    except ImportError as exc:
        raise worker.WorkerError("tracker_unavailable",
                                 f"this torch has no fake process group or fake tensors ({exc}); "
                                 "torch 2.6 or newer is needed") from None
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
    # FSDP2's reduce-scatter: reduce_scatter_single from torch 2.13, reduce_scatter_tensor before
    name = "reduce_scatter_single" if hasattr(dist, "reduce_scatter_single") else "reduce_scatter_tensor"
    original = getattr(dist, name)
    if backend == "gloo":
        setattr(dist, name, _gloo_reduce_scatter(original))
    try:
        mesh = init_device_mesh("cpu", (world,))
        with FakeTensorMode(), _one_sequence_per_row(), _chunks_on_demand(), _global_peak_only(), \
                _direct_output_walk():
            yield mesh
    finally:
        setattr(dist, name, original)
        dist.destroy_process_group()


@contextmanager
def _one_sequence_per_row() -> Iterator[None]:
    """transformers' masks decided as on a real rank: one sequence per row, so SDPA runs with is_causal.

    transformers looks for packed sequences in the position ids and, unable to read a fake tensor's
    data, keeps a full (b, 1, s, s) mask that every attention layer converts and saves; a real rank
    finds the worker's positions (0..s-1 in every row) unpacked and passes no mask at all."""
    masking = sys.modules.get("transformers.masking_utils")
    if masking is None:
        try:
            import transformers.masking_utils as masking
        except ImportError:  # no transformers: only the custom family runs, which builds no mask
            yield
            return
    original = masking.find_packed_sequence_indices
    masking.find_packed_sequence_indices = lambda position_ids: None
    try:
        yield
    finally:
        masking.find_packed_sequence_indices = original


class _LazyChunks:
    """torch.chunk(tensor, n, dim) padded with empty tensors to n, as FSDP2's _chunk_with_empty returns it, but each
    chunk made only when asked for: FSDP2 reads two of the Nd chunks (this rank's and the 0th), and making all Nd
    fake views cost most of fully_shard at Nd = 1024 (70B: about two thirds of the simulation)."""

    def __init__(self, tensor: Any, n: int, dim: int) -> None:
        self.tensor, self.n, self.dim = tensor, n, dim
        self.size = -(-tensor.size(dim) // n) if tensor.size(dim) else 0  # torch.chunk's chunk length

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Any:
        if not -self.n <= i < self.n:
            raise IndexError(i)
        i %= self.n
        whole = self.tensor.size(self.dim)
        if i == 0 or whole == 0:  # torch.chunk splits an empty dim into n empty views
            return self.tensor.narrow(self.dim, 0, min(self.size, whole))
        length = min(self.size, whole - i * self.size)
        if length <= 0:  # past torch.chunk's last chunk: _chunk_with_empty's filler
            return self[0].new_empty(0)
        return self.tensor.narrow(self.dim, i * self.size, length)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self.n))


@contextmanager
def _chunks_on_demand() -> Iterator[None]:
    """FSDP2 sharding with _LazyChunks (the same shards, sizes and views; nothing else changes)."""
    try:
        from torch.distributed.fsdp._fully_shard import _fsdp_param
    except ImportError:
        yield
        return
    original = getattr(_fsdp_param, "_chunk_with_empty", None)
    if original is None:  # another torch: shard its own way
        yield
        return
    _fsdp_param._chunk_with_empty = _LazyChunks
    try:
        yield
    finally:
        _fsdp_param._chunk_with_empty = original


@contextmanager
def _global_peak_only() -> Iterator[None]:
    """The trackers' running peak without their per-module peaks, which nothing here reads.

    After every op MemTracker walks every tracked module to update its local peak (and copies its snapshot):
    O(ops x modules), a large share of a tracked 7B step. The global peak and its snapshot, which PhasePeaks
    reads, are updated exactly as torch does."""
    try:
        from torch.distributed._tools import mem_tracker
    except ImportError:
        yield
        return
    original = getattr(mem_tracker.MemTracker, "_update_peak_stats", None)
    if original is None:
        yield
        return

    def _update_peak_stats(self: Any, peak_state: Any) -> None:
        for dev, dev_snap in self._curr_mem_snap.items():
            if self._peak_mem.get(dev, 0) < dev_snap["Total"]:
                self._peak_mem[dev] = dev_snap["Total"]
                self._peak_mem_snap[dev] = dict(dev_snap)

    mem_tracker.MemTracker._update_peak_stats = _update_peak_stats
    try:
        yield
    finally:
        mem_tracker.MemTracker._update_peak_stats = original


@contextmanager
def _direct_output_walk() -> Iterator[None]:
    """The trackers' walk over each op's outputs without pytree's flatten and rebuild.

    After every op the trackers call tree_map_only(torch.Tensor, track, outputs) and drop what it returns. For a
    tensor, None, or a plain list or tuple of tensors (nearly every op; FSDP2's and AdamW's foreach ops return
    lists of hundreds) this calls track on the same tensors in the same order without building a tree spec and a
    new tree, which was most of the trackers' own time in a 7B step. Any other output goes to torch's own walk."""
    try:
        import torch
        from torch.distributed._tools import fsdp2_mem_tracker, mem_tracker
    except ImportError:
        yield
        return
    modules = [m for m in (mem_tracker, fsdp2_mem_tracker) if hasattr(m, "tree_map_only")]
    original = {m: m.tree_map_only for m in modules}
    tree_map_only = original[modules[0]] if modules else None

    def direct(types: Any, func: Any, tree: Any, is_leaf: Any = None) -> Any:
        if types is torch.Tensor and is_leaf is None:
            if isinstance(tree, torch.Tensor):
                return func(tree)
            if tree is None:
                return None
            if type(tree) in (list, tuple) and all(isinstance(t, torch.Tensor) for t in tree):
                return type(tree)([func(t) for t in tree])
        return tree_map_only(types, func, tree, is_leaf)

    for m in modules:
        m.tree_map_only = direct
    try:
        yield
    finally:
        for m, fn in original.items():
            m.tree_map_only = fn


def _gloo_reduce_scatter(original: Any) -> Any:
    """FSDP2's reduce-scatter as gloo runs it: on a full-size copy of the input, held while it runs."""

    def reduce_scatter_single(output: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
        copy = input.clone()  # ProcessGroupGloo's working copy (the fake group moves nothing)
        work = original(output=output, input=input, *args, **kwargs)
        del copy
        return work

    return reduce_scatter_single


def run(args: argparse.Namespace, emit: worker.Emitter, where: dict) -> None:
    plan, stages, world = _load(args)
    import torch

    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))
    t0 = time.perf_counter()
    emit(Started(torch=torch.__version__, offload=fsdp2_offloads(plan), optimizer_impl=plan.optimizer_impl,
                 device="cpu", ranks=world, stages=stages,
                 architecture=plan.model.architecture, params=plan.params, seq_len=plan.seq_len,
                 micro_batch=plan.micro_batch, source="simulated"))
    device = torch.device("cpu")
    from .ddp_sim import SimulatedDDP

    with _fake_world(world, args.backend) as mesh:
        for stage in stages:
            where["stage"] = stage
            result = worker.measure_stage(stage, plan, device, 0, world, emit, mesh, args.warmup, samples=False,
                                          ddp_class=SimulatedDDP,
                                          track_warmup=args.tracked_warmup or stage < 2)
            # step_s would be the time to simulate, not a step's time: leave it out.
            emit(result.model_copy(update={"source": "simulated", "step_s": None,
                                           "method": method(stage, args.backend, fsdp2_offloads(plan))}))
            where["stage"] = None
    emit(Done(wall_s=time.perf_counter() - t0))


def main(argv: list[str] | None = None) -> None:
    """Run and leave with os._exit, as the worker does (torch teardown must not add a line or a crash)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    emit = worker.Emitter(0)
    where: dict = {"stage": None}
    code = 0
    try:
        run(_parse(argv), emit, where)
    except SystemExit as exc:  # argparse: usage went to stderr
        code = exc.code if isinstance(exc.code, int) else 2
        if code:
            emit(Error(code="bad_plan", message="the simulation was started with invalid arguments (see its stderr)"))
            code = worker.EXIT_REPORTED
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # noqa: BLE001 - every failure becomes one protocol line
        import traceback

        traceback.print_exc(file=sys.stderr)
        stage = where["stage"]
        if isinstance(exc, MemoryError):
            code_msg = ("out_of_memory", "the simulation ran out of host memory"
                        + (f" in stage {stage}" if stage is not None else ""))
        else:
            code_msg = worker._classify(exc, 0, stage) or ("internal", f"the simulation failed: {exc}")
            if not isinstance(exc, worker.WorkerError):  # the worker's wording names a rank: here it is the simulation
                code_msg = (code_msg[0], code_msg[1].replace("rank 0", "the simulation", 1))
        try:
            emit(Error(code=code_msg[0], message=code_msg[1], stage=stage))
            code = worker.EXIT_REPORTED
        except OSError:  # the reader is gone
            code = 1
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
