"""One stage of a measured (or simulated) rank: build its engine, warm up, track one step, count the states.

The same code runs on real ranks (rank.py) and on the simulation's fake rank 0 (simulate.py), which
passes its DDP stand-in and may warm FSDP2 up untracked. The measured step's peak is split by phase
(forward, backward, optimizer); the states at rest are counted from the live tensors afterwards.
"""

from __future__ import annotations

import gc
import time
from contextlib import nullcontext
from typing import Any, Callable

import torch
import torch.distributed as dist

from ...core.knobs import recompute_per_block
from ...core.plan import Plan
from ..protocol import PhaseMsg, Result, WorkerError
from . import states, torch_compat, trackers
from .engines import Engine, build_engine
from .mesh import shard_group_size
from .failures import inject_fault
from .hf_model import TransformersMissing
from .light_warmup import blocks_elided, steady
from .model import blocks_of, build_model, loss_fn
from .module_ledger import ModuleLedger
from .recompute import apply_recompute


def batch(plan: Plan, rank: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Random tokens and targets of the plan's shape: each rank its own data, as in data parallelism."""
    gen = torch.Generator().manual_seed(1000 + rank)
    shape = (plan.micro_batch, plan.seq_len)
    arch = plan.model.architecture
    vocab = arch.vocab if arch is not None else int(plan.model.hf_config["vocab_size"])
    tokens = torch.randint(vocab, shape, generator=gen).to(device)
    targets = torch.randint(vocab, shape, generator=gen).to(device)
    return tokens, targets


def train_step(engine: Engine, tokens: torch.Tensor, targets: torch.Tensor, say: Callable[[str, float], None],
               mark: Callable[[str | None], None], between: Callable[[], None] = lambda: None) -> None:
    """One training step of engine.accum_steps micro-batches (each a forward and a backward; the loss scaled by
    1/k so the gradients are the mean), then the optimizer; mark(phase) as each phase starts (None: the step is
    over), say(phase, progress) reports. Without sync_each only the last micro-batch reduces its gradients.
    between() runs before every micro-batch but the first (the tracker's reset_mod_stats: torch's trackers refuse a
    second root forward in one iteration; their running peak is kept)."""
    k = engine.accum_steps
    mark("forward")
    engine.optimizer.zero_grad(set_to_none=True)
    for i in range(k):
        if i:
            between()
            mark("forward")
        with engine.reducing(sync=engine.sync_each or i == k - 1):
            with engine.autocast():
                loss = loss_fn(engine.train_model(tokens), targets)
            if k > 1:
                loss = loss / k
            mark("backward")
            say("backward", i / k)
            loss.backward()
            del loss
    mark("optimizer")
    say("optimizer", 0.0)
    engine.optimizer.step()
    mark(None)
    say("optimizer", 1.0)


def forward_progress(blocks: Any, say: Callable[[str, float], None]) -> list:
    """Hooks that report forward progress block by block (remove them after the step)."""
    return [block.register_forward_hook(lambda *_, i=i: say("forward", (i + 1) / (len(blocks) + 1)))
            for i, block in enumerate(blocks)]


def add_cuda_figures(result: Result, device: torch.device, baseline: int, used_after: tuple[int, int] | None) -> None:
    """What CUDA's allocator saw besides the tracker: its maxima, what was there before, what it never tracked."""
    result.max_allocated_bytes = torch.cuda.max_memory_allocated(device)
    result.allocated_at_start_bytes = baseline
    result.max_reserved_bytes = torch.cuda.max_memory_reserved(device)
    # what the tracker never sees: cuBLAS/cuDNN workspaces, blocks held for FSDP2's and NCCL's streams
    result.untracked_bytes = max(0, result.max_allocated_bytes - baseline - result.peak_bytes)
    if used_after is not None:  # in use on the GPU but not by torch's allocator: CUDA context, NCCL, others
        result.device_overhead_bytes = max(0, used_after[0] - used_after[1])


def warm_up(engine: Engine, tokens: torch.Tensor, targets: torch.Tensor, steps: int,
            say: Callable[[str, float], None], between: Callable[[], None] = lambda: None) -> None:
    """`steps` untracked training steps: AdamW's state appears in the first, as it will be in the measured one."""
    for i in range(steps):
        say("warmup", i / steps)

        def within(phase: str, progress: float, i: int = i) -> None:  # the phases of a warm-up step are its own
            say("warmup", (i + {"backward": 0.4, "optimizer": 0.8 + 0.2 * progress}.get(phase, 0.0)) / steps)

        train_step(engine, tokens, targets, within, lambda _phase: None, between)
    say("warmup", 1.0)


def measure_stage(stage: int, plan: Plan, device: Any, rank: int, world: int, emit: Callable[..., None], mesh: Any,
                  warmup: int, samples: bool, ddp_class: Any = None, track_warmup: bool = True,
                  by_module: bool = False, light_warmup: bool = True, recording: Any = None) -> Result:
    """Measure `stage` on this rank of `world`: a Result with the tracked peak, its phases and the states at rest.

    ddp_class: a stand-in for DistributedDataParallel (the simulation's). track_warmup=False (FSDP2 only) warms up
    before the tracker is entered and then files what a tracked warm-up would have left it knowing; with
    light_warmup, the blocks' arithmetic left out of that warm-up (light_warmup.py), and the stage measured again
    after a real one where the measured step does not end as it started. recording: a block_extrapolation.Recording,
    attached to the tracker (it sees every update of the tracker's bytes, every op and phase). by_module: the
    peak's composition by module and FSDP2 unit too (module_ledger). Runs under torch_compat.same_figures_faster
    (the trackers' and DTensor's work that changes no figure, dropped)."""
    # Everything alive now (torch, transformers, earlier stages' results) outlives the stage: frozen, the collector's
    # passes (ours below, and its own during the step) scan only what the stage makes, not the ~10^6 objects of the
    # imports (~0.2 s a pass with transformers loaded). Garbage of earlier stages was collected as each one ended.
    gc.freeze()
    with torch_compat.same_figures_faster():
        light = not track_warmup and light_warmup and warmup > 0
        result, settled = _measure_stage(stage, plan, device, rank, world, emit, mesh, warmup, samples, ddp_class,
                                         track_warmup, by_module, light, recording)
        if light and not settled:  # the light warm-up left another state than a real one: measure after a real one
            result, _ = _measure_stage(stage, plan, device, rank, world, emit, mesh, warmup, samples, ddp_class,
                                       track_warmup, by_module, False, recording)
        return result


def _measure_stage(stage: int, plan: Plan, device: Any, rank: int, world: int, emit: Callable[..., None], mesh: Any,
                   warmup: int, samples: bool, ddp_class: Any, track_warmup: bool, by_module: bool,
                   light: bool, recording: Any = None) -> tuple[Result, bool]:
    """The stage's Result, and whether its measured step ended with the tracked bytes it started with."""
    cuda = device.type == "cuda"
    trackers.check_tracker(stage)

    def say(phase: str, progress: float) -> None:
        emit(PhaseMsg(stage=stage, rank=rank, phase=phase, progress=progress))

    say("setup", 0.0)
    baseline = torch.cuda.memory_allocated(device) if cuda else None  # left by earlier stages or the process
    try:
        model = build_model(plan.model, device, seed=0)
    except (TransformersMissing, ValueError) as exc:
        raise WorkerError("unsupported", str(exc)) from None
    blocks = blocks_of(model)
    apply_recompute(blocks, recompute_per_block(plan, len(blocks)))
    engine = build_engine(stage, plan, model, blocks, device, mesh, ddp_class)
    tokens, targets = batch(plan, rank, device)
    ledgers: list[ModuleLedger] = []

    def observe(t: Any) -> None:  # before the tracker counts anything
        if by_module:
            ledgers.append(ModuleLedger(t))
        if recording is not None:
            recording.attach(t)

    tracker = trackers.start_tracker(stage, engine, tokens, targets,
                                     observe=observe if by_module or recording is not None else None)
    ledger = ledgers[0] if ledgers else None
    say("setup", 1.0)
    if not track_warmup:  # FSDP2 only (simulate's default): FSDPMemTracker picks up the states on entry
        with blocks_elided(blocks) if light else nullcontext():
            warm_up(engine, tokens, targets, warmup, say)
        trackers.file_kept_unsharded_storages(tracker, model)
    with tracker:
        if track_warmup:
            warm_up(engine, tokens, targets, warmup, say, tracker.reset_mod_stats)
            tracker.reset_mod_stats()  # the trackers refuse a second root forward otherwise
        inject_fault(rank)
        hooks = forward_progress(blocks, say) if rank == 0 else []  # the measured step's forward only
        # The warm-up's reference cycles (autograd graph, hooks) hold tensors until the collector runs; run it
        # now, or a gradient-sized tensor may or may not still be alive in the measured step (seen on CUDA).
        gc.collect()
        if cuda:
            torch.cuda.synchronize(device)
            torch.cuda.reset_peak_memory_stats(device)
        dist.barrier()
        used_after = None
        with trackers.streaming(tracker, device, emit, stage, rank, on=samples and rank == 0):
            peaks = trackers.PhasePeaks(tracker, device, ledger)
            before = trackers.current(tracker, device)
            t0 = time.perf_counter()
            say("forward", 0.0)
            mark = peaks.start if recording is None else recording.marking(peaks.start)
            train_step(engine, tokens, targets, say, mark, tracker.reset_mod_stats)
            after = trackers.current(tracker, device)
            if cuda:
                torch.cuda.synchronize(device)
                free, total = torch.cuda.mem_get_info(device)
                used_after = (total - free, torch.cuda.memory_reserved(device))
        step_s = time.perf_counter() - t0
    for h in hooks:
        h.remove()

    peak_bytes, peak = peaks.overall()
    predicted, predicted_comm = states.predicted(plan, model, stage, world, rank, device,
                                                 shard_group_size(mesh, world))
    result = Result(
        stage=stage, rank=rank, peak_bytes=peak_bytes, peak=peak,
        phase_peaks=peaks.peaks,  # phase -> category -> bytes, with "total"
        states=states.states_at_rest(engine, device), predicted_states=predicted,
        comm_buffers=states.comm_buffer_bytes(engine), predicted_comm_buffers=predicted_comm,
        step_s=step_s,
    )
    if ledger is not None:
        result.by_module = ledger.shares(peaks.peak_phase, device, model, blocks, engine.local_optimizer,
                                         engine.train_model)
    if cuda:
        add_cuda_figures(result, device, baseline, used_after)
    del tracker, peaks, engine, model, ledger, ledgers
    gc.collect()
    if cuda:
        torch.cuda.empty_cache()
        torch_compat.clear_cublas_workspaces()  # one workspace per handle and stream, else in the next stage's peak
    return result, steady(before, after)
