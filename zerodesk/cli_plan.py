"""The plan the command line's flags describe: a plan file, then a preset, then a config.json, then each flag;
an error in the user's terms (the flags they typed, not the plan's fields)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .cli_plan_flags import ARCH_FLAGS, CLUSTER_FLAGS, FIELD_FLAGS, PLAN_FLAGS, _flag
from .core.plan import MAX_GPUS_PER_NODE, MAX_RANKS, Plan, PlanError, explain, load_plan
from .core.record import validation_error
from .core.text import shorten

if TYPE_CHECKING:  # raised only where the plan was validated (core.record)
    from pydantic import ValidationError


def dp_layout(dp: int) -> dict[str, int]:
    """Nodes and GPUs per node for `--dp` alone: one node up to MAX_GPUS_PER_NODE GPUs, beyond that nodes of up to
    8 GPUs (the largest divisor of Nd that is at most 8), so --dp alone reaches MAX_RANKS."""
    if dp <= MAX_GPUS_PER_NODE:
        return {"nodes": 1, "gpus_per_node": dp}
    per_node = max(g for g in range(1, 9) if dp % g == 0)
    return {"nodes": dp // per_node, "gpus_per_node": per_node}


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _architecture_missing(exc: ValidationError, typed: list[str]) -> PlanError | None:
    """Architecture flags on a plan that has no architecture: which flags would complete one, in the user's terms."""
    missing = [FIELD_FLAGS.get(".".join(map(str, e["loc"])), str(e["loc"][-1])) for e in exc.errors()
               if e["type"] == "missing" and tuple(e["loc"][:2]) == ("model", "architecture")]
    if not missing or not typed:
        return None
    verb = "changes" if len(typed) == 1 else "change"
    return PlanError(f"{_listed(typed)} {verb} an architecture, and this plan has none: also give {_listed(missing)}, "
                     "or start from a --preset, --config or --plan that has one")


def plan_from_args(args: argparse.Namespace, default: Plan | None = None, notes: list[str] | None = None) -> Plan:
    """Compose a plan: file, then preset, then config.json, then individual flags. Raises PlanError.

    notes: where to add what the user should read first about how the plan was composed (a sequence length taken
    from a config's context length)."""
    loaded = load_plan(args.plan) if args.plan is not None else None
    if loaded is not None:  # its tensor list, if any, stays in its validated model (below): no copy, no second check
        data = loaded.model_dump(exclude={"model": {"tensors"}})
    elif default is not None:
        data = default.model_dump()
    else:
        data = {}
    cluster = dict(data.get("cluster") or {})
    model = file_model = dict(data.get("model") or {})

    if args.preset is not None:  # an empty name is refused by the catalog, not ignored
        from .core.catalog import find_model

        preset = find_model(args.preset)
        model = preset.to_model_spec().model_dump()
        if preset.seq_len:
            data["seq_len"] = preset.seq_len
        if preset.dp:
            cluster.update(nodes=1, gpus_per_node=preset.dp, dp=None)
    if args.config is not None:
        from .measure.hf_tensors import model_from_hf_config

        model, hints = model_from_hf_config(args.config, fit_template=True)  # named from the config, not its folder
        if hints.get("seq_len") and args.seq is None:
            data["seq_len"] = int(hints["seq_len"])  # the model's context length (--seq overrides)
            if notes is not None:
                named = shorten(model.get("name") or "the model", 80)
                notes.append(f"Sequence length {data['seq_len']:,} tokens: the context length in {named}'s config; "
                             "the predicted peak and every activation figure are for sequences that long "
                             "(--seq N sets another).")
    if args.params is not None:
        model = {"name": model.get("name") if not model.get("architecture") else None, "params": args.params}

    arch_updates = {field: getattr(args, dest) for dest, field in ARCH_FLAGS.items() if getattr(args, dest) is not None}
    had_architecture = bool(model.get("architecture"))
    if arch_updates:
        arch = dict(model.get("architecture") or {})
        arch.update(arch_updates)
        model = {"name": None, "architecture": arch}
    if not model:
        raise PlanError("no model given: use --params, --preset, --config, --plan or the architecture flags")

    names = dict(FIELD_FLAGS)
    if args.dp is not None:
        cluster["dp"] = args.dp
        if 1 <= args.dp <= MAX_RANKS and args.nodes is None and args.gpus_per_node is None and args.plan is None:
            cluster.update(dp_layout(args.dp))
    if args.gpu is not None:
        from .core.catalog import find_gpu

        gpu = find_gpu(args.gpu)
        cluster.update(gpu=gpu.name, gpu_memory_bytes=gpu.memory_bytes)
        if gpu.intra_node_gbps is not None:
            cluster["intra_node_gbps"] = gpu.intra_node_gbps
    if args.network is not None:
        from .core.catalog import find_network

        network = find_network(args.network)
        cluster.update(network=network.name, inter_node_gbps=network.gbps)
    for dest in ("nodes", "gpus_per_node", "gpu_memory", "host_memory", "shard_group", "intra_node_bandwidth",
                 "inter_node_bandwidth"):  # --gpu-memory and the bandwidths override the presets' figures
        if getattr(args, dest) is not None:
            cluster[CLUSTER_FLAGS[dest]] = getattr(args, dest)

    for dest, field in PLAN_FLAGS.items():
        if getattr(args, dest) is not None:
            data[field] = getattr(args, dest)
    data["model"], data["cluster"] = model, cluster
    if loaded is not None and model is file_model:  # no flag replaced the file's model: keep it as validated
        data["model"] = loaded.model
    try:
        return Plan.model_validate(data)
    except validation_error() as exc:
        typed = [_flag(dest) for dest in ARCH_FLAGS if getattr(args, dest) is not None]
        raise (not had_architecture and _architecture_missing(exc, typed)) or PlanError(explain(exc, names)) from None
