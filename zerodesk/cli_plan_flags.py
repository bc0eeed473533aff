"""The plan flags `plan`, `fit`, `measure`, `simulate` and the window share: each flag, its help, and the plan field
it sets (so that a bad value's message names the flag the user typed, not the field)."""

from __future__ import annotations

import argparse

from .cli_values import _allowance, _count, _file, _memory, _per_block, _positive, _whole
from .core.options import (
    ACCUM_SYNC, AUTOCAST, HYBRID, KERNELS, OFFLOAD, OFFLOAD_TARGET, OPTIMIZER_IMPL, PARAM_DTYPE, PREFETCH, PROFILE,
    RECOMPUTE, REDUCE_DTYPE, SCHEME, SHARD_PLACEMENT, UNITS, WRAP, Option,
)

# Each plan flag's argparse dest and the field it sets; a bad value's message names the flag, not the field.
ARCH_FLAGS = {  # dest -> Architecture field
    "layers": "layers", "hidden": "hidden", "heads": "heads", "kv_heads": "kv_heads", "head_dim": "head_dim",
    "ffn": "ffn", "vocab": "vocab", "mlp": "mlp", "bias": "bias", "norm": "norm", "positions": "positions",
    "max_positions": "max_positions", "tied": "tied_embeddings",
}
CLUSTER_FLAGS = {  # dest -> Cluster field
    "dp": "dp", "nodes": "nodes", "gpus_per_node": "gpus_per_node", "gpu": "gpu", "gpu_memory": "gpu_memory_bytes",
    "host_memory": "host_memory_bytes", "shard_group": "shard_group", "intra_node_bandwidth": "intra_node_gbps",
    "inter_node_bandwidth": "inter_node_gbps", "network": "network",
}
KNOB_OPTIONS = (PARAM_DTYPE, REDUCE_DTYPE, AUTOCAST, WRAP, PREFETCH)  # the knobs FSDP users turn (core.knobs)
CHOICE_OPTIONS = (PROFILE, SCHEME, UNITS, RECOMPUTE, OPTIMIZER_IMPL, SHARD_PLACEMENT, KERNELS, OFFLOAD,
                  OFFLOAD_TARGET, HYBRID, ACCUM_SYNC, *KNOB_OPTIONS)  # dest = the option's key
PLAN_FLAGS = {  # dest -> Plan field
    "seq": "seq_len", "batch": "micro_batch", "accum_steps": "accum_steps", "bandwidth": "bandwidth_gbps",
    "cuda_allowance": "cuda_allowance_bytes", "pcie": "pcie_gbps", "wrap_blocks": "wrap_blocks",
    "recompute_every": "recompute_every", "recompute_blocks": "recompute_blocks", **{o.key: o.key for o in CHOICE_OPTIONS},
}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


FIELD_FLAGS = {  # dotted plan field -> the flag that sets it
    "model.params": "--params",
    **{f"model.architecture.{field}": _flag(dest) for dest, field in ARCH_FLAGS.items()},
    **{f"cluster.{field}": _flag(dest) for dest, field in CLUSTER_FLAGS.items()},
    **{field: _flag(dest) for dest, field in PLAN_FLAGS.items()},
}


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    """The plan flags shared by `plan`, `measure` and the window."""
    src = parser.add_argument_group("model")
    src.add_argument("--plan", type=_file, metavar="FILE", help="start from a saved *.zerodesk.json plan")
    src.add_argument("--preset", metavar="NAME", help="a model preset (see --list-presets)")
    src.add_argument("--config", type=_file, metavar="FILE", help="a Hugging Face config.json on disk (its context "
                     "length becomes --seq unless given; the repository ships some in tests/hf_configs/)")
    src.add_argument("--params", type=_count, metavar="P", help="raw parameter count: 2e9, 7B, 350M, 1.5T")
    arch = parser.add_argument_group("architecture (override or define)")
    for flag, what in (("layers", "transformer blocks"), ("hidden", "hidden size (the model's width)"),
                       ("heads", "attention heads"), ("kv-heads", "key/value heads (grouped-query attention; "
                                                                    "default: as many as heads)"),
                       ("head-dim", "width of one head (default: hidden / heads)"),
                       ("ffn", "inner width of the MLP"), ("vocab", "vocabulary size"),
                       ("max-positions", "rows of a learned position table")):
        arch.add_argument(f"--{flag}", type=_whole, metavar="N", help=what)
    arch.add_argument("--mlp", choices=["gated", "plain"], help="gated (SwiGLU: three matrices) or plain (two)")
    arch.add_argument("--bias", choices=["none", "qkv", "all"], help="which linear layers have a bias")
    arch.add_argument("--norm", choices=["layernorm", "rmsnorm"], help="the normalisation layers")
    arch.add_argument("--positions", choices=["learned", "rotary"], help="a learned position table or rotary")
    arch.add_argument("--tied", action=argparse.BooleanOptionalAction, default=None, help="tie the output head to the embedding")
    arch.add_argument("--seq", type=_whole, metavar="N", help="sequence length (tokens)")
    arch.add_argument("--batch", type=_whole, metavar="N", help="micro-batch (sequences per rank per micro-batch)")
    arch.add_argument("--accum-steps", type=_whole, metavar="N",
                      help="gradient accumulation: micro-batches per optimizer step (default 1); the global batch is "
                           "micro-batch x N x Nd")
    _add_choice(arch, ACCUM_SYNC)
    cl = parser.add_argument_group("cluster")
    cl.add_argument("--dp", type=_whole, metavar="Nd", help="data-parallel degree")
    cl.add_argument("--nodes", type=_whole, metavar="N", help="nodes (with --gpus-per-node: Nd = nodes x GPUs)")
    cl.add_argument("--gpus-per-node", type=_whole, metavar="N", help="GPUs (data-parallel ranks) per node")
    cl.add_argument("--gpu", metavar="NAME", help="a GPU preset (see --list-gpus)")
    cl.add_argument("--gpu-memory", type=_memory, metavar="SIZE", help="memory of one GPU, e.g. 80GiB")
    cl.add_argument("--bandwidth", type=_positive, metavar="GB/s", help="per-rank link bandwidth in GB/s")
    hy = parser.add_argument_group("hybrid sharding and links")
    hy.add_argument("--shard-group", type=_whole, metavar="N",
                    help="shard the states among N ranks and replicate across the Nd/N groups (HSDP); N divides Nd, "
                         "default Nd")
    _add_choice(hy, HYBRID)
    hy.add_argument("--intra-node-bandwidth", type=_positive, metavar="GB/s",
                    help="GPU-to-GPU bandwidth inside a node, GB/s per GPU per direction (default: the GPU preset's, "
                         "else 450, H100 NVLink)")
    hy.add_argument("--inter-node-bandwidth", type=_positive, metavar="GB/s",
                    help="bandwidth between nodes, GB/s per GPU per direction (default: the network preset's, else 50, "
                         "a 400 Gb/s NIC per GPU)")
    hy.add_argument("--network", metavar="NAME", help="an inter-node network preset (see --list-networks)")
    cl.add_argument("--cuda-allowance", type=_allowance, metavar="SIZE",
                    help="memory set aside per GPU for the CUDA context and allocator, e.g. 1GiB (added to the peak)")
    off = parser.add_argument_group("offload (shown apart from the stages)")
    _add_choice(off, OFFLOAD)
    _add_choice(off, OFFLOAD_TARGET)
    off.add_argument("--pcie", type=_positive, metavar="GB/s", help="host<->device bandwidth per GPU in GB/s")
    off.add_argument("--host-memory", type=_memory, metavar="SIZE", help="host memory of one node, e.g. 512GiB")
    acc = parser.add_argument_group("accounting")
    for option in (PROFILE, SCHEME, UNITS, RECOMPUTE, OPTIMIZER_IMPL, SHARD_PLACEMENT, KERNELS):
        _add_choice(acc, option)
    knobs = parser.add_argument_group("mixed precision, FSDP2 units and recomputation per block (torch engines)")
    for option in KNOB_OPTIONS:
        _add_choice(knobs, option)
    knobs.add_argument("--wrap-blocks", type=_whole, metavar="N",
                       help="blocks in one FSDP2 unit with --wrap blocks (default 2)")
    knobs.add_argument("--recompute-every", type=_whole, metavar="K",
                       help="apply --recompute to every K-th block only (the K-th, 2K-th, ...; default 1: every block)")
    knobs.add_argument("--recompute-blocks", type=_per_block, metavar="LIST",
                       help="the recomputation of each block in order, e.g. full*16,none*16 (one per block; "
                            "overrides --recompute and --recompute-every)")
    cat = parser.add_argument_group("catalog")
    cat.add_argument("--list-presets", action="store_true", help="list the model presets (names for --preset) and exit")
    cat.add_argument("--list-gpus", action="store_true", help="list the GPU presets (names for --gpu) and exit")
    cat.add_argument("--list-networks", action="store_true",
                     help="list the inter-node network presets (names for --network) and exit")


def _add_choice(group, option: Option) -> None:
    """A flag whose values and help come from the option registry (its dest is the plan field: PLAN_FLAGS)."""
    group.add_argument(option.flag, choices=option.values, help=option.describe().replace("%", "%%"))
