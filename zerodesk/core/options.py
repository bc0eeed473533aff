"""Every choice ZeroDesk offers, declared once: its values, English labels and a help line. Qt-free.

The plan's fields, the command line's flags and help, the window's combo boxes and labels, the
measure protocol and worker all read these. A label is English source text the window translates
(marked for Qt's lupdate, context "Options"); a help line is what `zerodesk ... --help` shows.
The first choice of each option is its default.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name Qt's lupdate looks for
    """Mark English text for translation and return it unchanged: the core declares the words, the
    window translates them with QCoreApplication.translate(context, text), and the core stays Qt-free."""
    return text


@dataclass(frozen=True)
class Choice:
    value: str
    label: str  # English, translated by the window in context "Options"
    help: str = ""  # a few words for the command line's help


@dataclass(frozen=True)
class Option:
    key: str  # the plan field (dotted below the plan) or the setting it sets
    flag: str  # the command-line flag
    help: str  # one line for the command line
    choices: tuple[Choice, ...]  # the first is the default

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(c.value for c in self.choices)

    @property
    def default(self) -> str:
        return self.choices[0].value

    def choice(self, value: str) -> Choice | None:
        return next((c for c in self.choices if c.value == value), None)

    def label(self, value: str) -> str:
        """The English label of `value` (the value itself when it is not a choice)."""
        found = self.choice(value)
        return found.label if found else str(value)

    def help_of(self, value: str) -> str:
        found = self.choice(value)
        return found.help if found else ""

    def check(self, value: str) -> str:
        """`value` when it is one of the choices; otherwise one sentence naming the option and what is allowed."""
        if value not in self.values:
            raise ValueError(f"{self.key} must be one of {', '.join(self.values)}, not {value!r}")
        return value

    def describe(self) -> str:
        """The command line's help: 'activation recomputation per block: none, selective (...) or full (...)'."""
        items = [f"{c.value} ({c.help})" if c.help else c.value for c in self.choices]
        listed = items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"
        return f"{self.help}: {listed}; default {self.default}"


class Scheme(str, Enum):
    """Precision and optimizer scheme: which model states exist and their bytes per parameter."""

    MIXED_ADAM = "mixed-adam"  # ZeRO paper §3.1: fp16 params+grads, fp32 master + Adam m, v
    FP32_ADAM = "fp32-adam"
    BF16_FP32_GRADS_ADAM = "bf16-fp32grad-adam"
    MIXED_SGD_MOMENTUM = "mixed-sgd-momentum"
    MIXED_ADAM_8BIT = "mixed-adam-8bit"


class Profile(str, Enum):
    """Accounting profile: whose bookkeeping of the states we follow."""

    PAPER = "paper"
    TORCH = "torch"


class Offload(str, Enum):
    """Which states leave the GPU (ZeRO-Offload / ZeRO-Infinity / FSDP2 CPUOffloadPolicy); apart from the stage."""

    NONE = "none"
    OPTIMIZER = "optimizer"  # ZeRO-Offload: optimizer states and gradients to host memory
    OPTIMIZER_PARAMS = "optimizer+params"  # ZeRO-Infinity / FSDP2 CPUOffloadPolicy: parameters too


class Hybrid(str, Enum):
    """What the shard group (cluster.shard_group, N) means when it is smaller than Nd."""

    HSDP = "hsdp"  # FSDP2's HSDP, DeepSpeed's MiCS: states sharded among N, replicated across Nd/N groups
    HPZ = "hpz"  # ZeRO++ hpZ: stage 3 across all Nd, plus a second shard of the 16-bit parameters among N


SCHEME = Option("scheme", "--scheme", "precision and optimizer, which fix the model states per parameter", (
    Choice(Scheme.MIXED_ADAM.value, QT_TRANSLATE_NOOP("Options", "Mixed-precision Adam (paper §3.1, 16 B/param)"),
           "16 B/param, the ZeRO paper's §3.1"),
    Choice(Scheme.FP32_ADAM.value, QT_TRANSLATE_NOOP("Options", "FP32 Adam (16 B/param)"), "16 B/param"),
    Choice(Scheme.BF16_FP32_GRADS_ADAM.value,
           QT_TRANSLATE_NOOP("Options", "BF16 + FP32 grad accumulation, Adam (18 B/param)"), "18 B/param"),
    Choice(Scheme.MIXED_SGD_MOMENTUM.value,
           QT_TRANSLATE_NOOP("Options", "Mixed-precision SGD with momentum (12 B/param)"), "12 B/param"),
    Choice(Scheme.MIXED_ADAM_8BIT.value, QT_TRANSLATE_NOOP("Options", "Mixed-precision 8-bit Adam (10 B/param)"),
           "10 B/param"),
))
PROFILE = Option("profile", "--profile", "whose bookkeeping of the model states the figures follow", (
    Choice(Profile.PAPER.value, QT_TRANSLATE_NOOP("Options", "ZeRO paper (§3.1, §5)"), "ZeRO paper §3.1/§5"),
    Choice(Profile.TORCH.value, QT_TRANSLATE_NOOP("Options", "PyTorch engines (DDP, ZeroRedundancyOptimizer, FSDP2)"),
           "PyTorch DDP / ZeroRedundancyOptimizer / FSDP2"),
))
RECOMPUTE = Option("recompute", "--recompute", "activation recomputation per block", (
    Choice("none", QT_TRANSLATE_NOOP("Options", "none")),
    Choice("selective", QT_TRANSLATE_NOOP("Options", "selective (attention)"), "the attention sub-layer"),
    Choice("full", QT_TRANSLATE_NOOP("Options", "full (whole block)"), "the whole block"),
))
OPTIMIZER_IMPL = Option("optimizer_impl", "--optimizer-impl", "AdamW's kernels, which the predicted peak follows", (
    Choice("foreach", QT_TRANSLATE_NOOP("Options", "foreach (CUDA default)"),
           "torch's CUDA default: an fp32 copy of the rank's parameters during the step"),
    Choice("fused", QT_TRANSLATE_NOOP("Options", "fused"), "no copy"),
    Choice("for-loop", QT_TRANSLATE_NOOP("Options", "for-loop"), "two copies of its largest tensor"),
))
SHARD_PLACEMENT = Option("shard_placement", "--shard-placement", "FSDP2's shard dimension (stages 2-3, torch profile)", (
    Choice("dim0", QT_TRANSLATE_NOOP("Options", "dim 0 (FSDP2's default)"), "fully_shard's default, padded to Nd"),
    Choice("auto", QT_TRANSLATE_NOOP("Options", "auto (experts on their largest dimension)"),
           "a tensor whose dim 0 is below Nd on its largest dimension Nd divides, as stacked experts are sharded"),
))
KERNELS = Option("kernels", "--kernels", "whose attention and norm kernels the activations follow", (
    Choice("plan", QT_TRANSLATE_NOOP("Options", "the plan's device"), "CUDA's when the plan names a GPU, else the CPU's"),
    Choice("cpu", QT_TRANSLATE_NOOP("Options", "CPU"), "the kernels the step templates were traced with"),
    Choice("cuda", QT_TRANSLATE_NOOP("Options", "CUDA"),
           "fused attention and RMSNorm keep less (modelled, unverified on hardware)"),
))
OFFLOAD = Option("offload", "--offload", "states moved off the GPU", (
    Choice(Offload.NONE.value, QT_TRANSLATE_NOOP("Options", "none")),
    Choice(Offload.OPTIMIZER.value, QT_TRANSLATE_NOOP("Options", "optimizer states + gradients"),
           "optimizer states and gradients, ZeRO-Offload"),
    Choice(Offload.OPTIMIZER_PARAMS.value, QT_TRANSLATE_NOOP("Options", "+ parameters"),
           "parameters too, ZeRO-Infinity or FSDP2's CPUOffloadPolicy"),
))
OFFLOAD_TARGET = Option("offload_target", "--offload-target", "where offloaded states live", (
    Choice("cpu", QT_TRANSLATE_NOOP("Options", "host memory (CPU)"), "host memory"),
    Choice("nvme", QT_TRANSLATE_NOOP("Options", "NVMe"), "NVMe storage"),
))
HYBRID = Option("hybrid", "--hybrid", "what the shard group N means (--shard-group)", (
    Choice(Hybrid.HSDP.value, QT_TRANSLATE_NOOP("Options", "HSDP: shard in the group, replicate across groups"),
           "FSDP2's HSDP, MiCS: states sharded among N ranks, replicated across Nd/N groups"),
    Choice(Hybrid.HPZ.value, QT_TRANSLATE_NOOP("Options", "ZeRO++ hpZ: a second 16-bit parameter shard in the group"),
           "DeepSpeed ZeRO++: stage 3 sharded among all Nd, plus the 16-bit parameters sharded among N "
           "for backward's all-gather; paper profile only"),
))
# The knobs FSDP users turn (core.knobs reads them): FSDP2's MixedPrecisionPolicy under its own names, autocast for
# DDP's stages, how fully_shard wraps the model and whether backward gathers ahead. The torch profile follows them;
# the paper profile keeps its scheme's dtypes.
PARAM_DTYPE = Option("param_dtype", "--param-dtype",
                     "MixedPrecisionPolicy's param_dtype: the dtype FSDP2 gathers parameters in and computes in "
                     "(stages 2-3), and autocast's dtype (stages 0-1)", (
    Choice("bf16", QT_TRANSLATE_NOOP("Options", "BF16"), "torch.bfloat16"),
    Choice("fp16", QT_TRANSLATE_NOOP("Options", "FP16"), "torch.float16"),
    Choice("fp32", QT_TRANSLATE_NOOP("Options", "FP32 (no mixed precision)"), "torch.float32: gathered and computed "
           "as stored"),
))
REDUCE_DTYPE = Option("reduce_dtype", "--reduce-dtype",
                      "MixedPrecisionPolicy's reduce_dtype: the dtype FSDP2 reduce-scatters gradients in (stages 2-3)", (
    Choice("fp32", QT_TRANSLATE_NOOP("Options", "FP32"), "torch.float32"),
    Choice("bf16", QT_TRANSLATE_NOOP("Options", "BF16"), "torch.bfloat16: half the reduce-scatter bytes"),
))
AUTOCAST = Option("autocast", "--autocast", "torch.autocast around DDP's forward (stages 0-1)", (
    Choice("on", QT_TRANSLATE_NOOP("Options", "on (in the parameter dtype)"),
           "compute in param_dtype when it is 16-bit"),
    Choice("off", QT_TRANSLATE_NOOP("Options", "off (FP32 compute)"), "compute in fp32"),
))
WRAP = Option("wrap", "--wrap", "FSDP2's units: which modules fully_shard wraps before the root (stages 2-3)", (
    Choice("block", QT_TRANSLATE_NOOP("Options", "one unit per block"), "each block, then the root"),
    Choice("blocks", QT_TRANSLATE_NOOP("Options", "one unit per N blocks"),
           "N consecutive blocks together (--wrap-blocks N), then the root"),
    Choice("root", QT_TRANSLATE_NOOP("Options", "the root only"), "one unit: the whole model"),
))
PREFETCH = Option("prefetch", "--prefetch", "FSDP2's backward prefetch (stages 2-3)", (
    Choice("on", QT_TRANSLATE_NOOP("Options", "on (FSDP2's default)"),
           "each unit's backward gathers the next unit ahead"),
    Choice("off", QT_TRANSLATE_NOOP("Options", "off"), "each unit gathered when its own backward starts"),
))
ACCUM_SYNC = Option("accum_sync", "--accum-sync", "when gradients are reduced under gradient accumulation (--accum-steps)", (
    Choice("every", QT_TRANSLATE_NOOP("Options", "every micro-batch (sharded gradients kept)"),
           "DDP's and FSDP2's default: each micro-batch reduces, so the gradients kept between micro-batches are "
           "the stage's own (sharded from stage 2)"),
    Choice("last", QT_TRANSLATE_NOOP("Options", "last micro-batch only (unsharded gradients kept)"),
           "DDP's no_sync, FSDP2's set_requires_gradient_sync(False) on all but the last: no communication until the "
           "last, but every rank keeps the whole model's gradients between micro-batches (FSDP2: in fp32)"),
))
UNITS = Option("units", "--units", "the unit of every memory figure", (
    Choice("GB", QT_TRANSLATE_NOOP("Options", "GB"), "1 GB = 10^9 B"),
    Choice("GiB", QT_TRANSLATE_NOOP("Options", "GiB"), "1 GiB = 2^30 B"),
))
# A language's label is its own name, shown untranslated.
LANGUAGE = Option("language", "--lang", "interface language", (
    Choice("en", "English"),
    Choice("ru", "Русский"),
))

OPTIONS = (SCHEME, PROFILE, RECOMPUTE, OPTIMIZER_IMPL, SHARD_PLACEMENT, KERNELS, OFFLOAD, OFFLOAD_TARGET, HYBRID,
           ACCUM_SYNC, PARAM_DTYPE, REDUCE_DTYPE, AUTOCAST, WRAP, PREFETCH, UNITS, LANGUAGE)

# The plan's field types, from the choices above (pydantic checks them).
Recompute = Literal[RECOMPUTE.values]  # type: ignore[valid-type]
OptimizerImpl = Literal[OPTIMIZER_IMPL.values]  # type: ignore[valid-type]
ShardPlacement = Literal[SHARD_PLACEMENT.values]  # type: ignore[valid-type]
Kernels = Literal[KERNELS.values]  # type: ignore[valid-type]
OffloadTarget = Literal[OFFLOAD_TARGET.values]  # type: ignore[valid-type]
AccumSync = Literal[ACCUM_SYNC.values]  # type: ignore[valid-type]
Unit = Literal[UNITS.values]  # type: ignore[valid-type]
ParamDtype = Literal[PARAM_DTYPE.values]  # type: ignore[valid-type]
ReduceDtype = Literal[REDUCE_DTYPE.values]  # type: ignore[valid-type]
Autocast = Literal[AUTOCAST.values]  # type: ignore[valid-type]
Wrap = Literal[WRAP.values]  # type: ignore[valid-type]
Prefetch = Literal[PREFETCH.values]  # type: ignore[valid-type]
