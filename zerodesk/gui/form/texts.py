"""The form's words: each field's label, accessible name and tooltip, its choices and hints, in the UI language.

The strings keep the form's translation context ("PlanForm"), so moving them here changed no translation.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ...core.options import ACCUM_SYNC, OFFLOAD, OFFLOAD_TARGET, OPTIMIZER_IMPL, RECOMPUTE
from ..base import i18n

translate = QCoreApplication.translate  # lupdate reads translate("PlanForm", "text")


def field_labels(unit: str) -> dict[str, str]:
    """Each field's label; memory fields name the unit they are typed in."""
    return {
        "model.preset": translate("PlanForm", "Model preset"),
        "model.params": translate("PlanForm", "Parameters P"),
        "model.architecture.layers": translate("PlanForm", "Layers"),
        "model.architecture.hidden": translate("PlanForm", "Hidden"),
        "model.architecture.heads": translate("PlanForm", "Heads"),
        "model.architecture.kv_heads": translate("PlanForm", "KV heads"),
        "model.architecture.head_dim": translate("PlanForm", "Head dim"),
        "model.architecture.ffn": translate("PlanForm", "FFN"),
        "model.architecture.vocab": translate("PlanForm", "Vocabulary"),
        "model.architecture.max_positions": translate("PlanForm", "Positions"),
        "model.architecture.mlp": translate("PlanForm", "MLP"),
        "model.architecture.norm": translate("PlanForm", "Norm"),
        "model.architecture.positions": translate("PlanForm", "Pos. enc."),
        "model.architecture.bias": translate("PlanForm", "Bias"),
        "model.architecture.family": translate("PlanForm", "Layout"),
        "model.architecture.experts": translate("PlanForm", "Experts"),
        "model.architecture.top_k": translate("PlanForm", "Routed (top-k)"),
        "scheme": translate("PlanForm", "Training scheme"),
        "profile": translate("PlanForm", "Accounting profile"),
        "seq_len": translate("PlanForm", "Sequence length"),
        "micro_batch": translate("PlanForm", "Micro-batch"),
        "accum_steps": translate("PlanForm", "Micro-batches per step"),
        "accum_sync": translate("PlanForm", "Gradients reduced"),
        "cluster.gpu": translate("PlanForm", "GPU preset"),
        "cluster.gpu_memory_bytes": translate("PlanForm", "GPU memory, {unit}").format(unit=unit),
        "cluster.nodes": translate("PlanForm", "Nodes"),
        "cluster.gpus_per_node": translate("PlanForm", "GPUs per node"),
        "cluster.dp": translate("PlanForm", "Data-parallel Nd"),
        "bandwidth_gbps": translate("PlanForm", "Bandwidth, GB/s per rank"),
        "units": translate("PlanForm", "Units"),
        "recompute": translate("PlanForm", "Recompute"),
        "optimizer_impl": translate("PlanForm", "AdamW kernels"),
        "cuda_allowance_bytes": translate("PlanForm", "CUDA allowance, {unit}").format(unit=unit),
    }


def accessible_names() -> dict[str, str]:
    """Longer names for screen readers, where the label is an abbreviation."""
    return {
        "model.architecture.kv_heads": translate("PlanForm", "Key/value heads (grouped-query attention)"),
        "model.architecture.head_dim": translate("PlanForm", "Head dimension"),
        "model.architecture.ffn": translate("PlanForm", "MLP inner width (FFN)"),
        "model.architecture.max_positions": translate("PlanForm", "Context length (positions)"),
        "model.architecture.family": translate("PlanForm", "Module layout (Hugging Face model type)"),
        "model.architecture.experts": translate("PlanForm", "Experts per layer (mixture of experts)"),
        "model.architecture.top_k": translate("PlanForm", "Experts routed per token"),
        "model.architecture.positions": translate("PlanForm", "Position encoding"),
        "model.architecture.hidden": translate("PlanForm", "Hidden size (model width)"),
    }


def field_tips() -> dict[str, str]:
    """Tooltips (and accessible descriptions): what a field takes and what an empty one means."""
    return {
        "model.params": translate("PlanForm", "Parameter count: 2e9, 7B, 350M, 1.5T or plain digits"),
        "model.architecture.kv_heads": translate("PlanForm", "Empty: same as heads"),
        "model.architecture.head_dim": translate("PlanForm", "Empty: hidden / heads"),
        "model.architecture.max_positions": translate("PlanForm", "Context length (max_position_embeddings); "
                                                                  "the size of a learned position table"),
        "model.architecture.family": translate("PlanForm", "Whose module layout the tensors follow: ZeroDesk's own, or the "
                                                           "Hugging Face model type (names, shapes, fusion), which the "
                                                           "torch profile shards exactly"),
        "model.architecture.experts": translate("PlanForm", "Every expert counts in P and in the states"),
        "model.architecture.top_k": translate("PlanForm", "Only the routed experts count in activations"),
        "cluster.dp": translate("PlanForm", "Empty: nodes × GPUs per node"),
        "cluster.gpu_memory_bytes": translate("PlanForm", "Memory of one GPU; empty: no GPU line"),
        "bandwidth_gbps": translate("PlanForm", "Per-rank link bandwidth used for the communication time (1 GB = 10⁹ B)"),
        "seq_len": translate("PlanForm", "Tokens per sequence (activations estimate)"),
        "micro_batch": translate("PlanForm", "Sequences per rank per micro-batch (activations estimate)"),
        "accum_steps": translate("PlanForm", "Gradient accumulation: micro-batches before each optimizer step; from 2 "
                                             "on, each rank keeps gradients between them (the predicted peak follows)"),
        "accum_sync": translate("PlanForm", "When accumulated gradients are reduced: every micro-batch keeps the "
                                            "stage's own gradients (sharded from stage 2); only the last (DDP no_sync, "
                                            "FSDP2 set_requires_gradient_sync(False)) keeps the whole model's"),
        "optimizer_impl": translate("PlanForm", "How AdamW steps: foreach (torch's default on CUDA) holds an FP32 copy of "
                                    "the rank's parameters during the step; for-loop two of its largest tensor; fused "
                                    "none (the predicted peak follows)"),
        "recompute": translate("PlanForm", "Activation recomputation per block: none; selective recomputes the attention "
                                           "sub-layer; full recomputes the whole block (the predicted peak follows)"),
        "cuda_allowance_bytes": translate("PlanForm", "Memory per GPU you set aside for the CUDA context and allocator; "
                                                      "added to the predicted peak and shown apart. Empty: 0"),
    }


def offload_texts(unit: str) -> dict[str, tuple[str, str]]:
    """The offload group's (label, tooltip) per field."""
    return {
        "offload": (translate("PlanForm", "Offload"), translate("PlanForm", "States moved off the GPU, shown apart from the stages")),
        "offload_target": (translate("PlanForm", "Offload to"), translate("PlanForm", "Host memory (CPU) or NVMe storage")),
        "pcie_gbps": (translate("PlanForm", "Host link, GB/s"), translate("PlanForm", "Host↔device bandwidth per GPU for the offload traffic "
                                                                                      "time (1 GB = 10⁹ B)")),
        "cluster.host_memory_bytes": (translate("PlanForm", "Host memory per node, {unit}").format(unit=unit),
                                      translate("PlanForm", "RAM of one node; empty: no host line")),
    }


def choice_names() -> dict[str, dict[str, str]]:
    """The words for the form's own choices (by combo key, then item data), from the core's option registry."""
    options = (RECOMPUTE, OPTIMIZER_IMPL, OFFLOAD, OFFLOAD_TARGET, ACCUM_SYNC)
    return {o.key: {v: i18n.option_label(o, v) for v in o.values} for o in options}


def layout_details(extra: dict) -> list[str]:
    """A loaded layout's knobs the form does not show (kept as they are), in words."""
    words = {
        "qk_norm": translate("PlanForm", "q/k norms"), "parallel": translate("PlanForm", "parallel attention + MLP"),
        "embed_norm": translate("PlanForm", "embedding LayerNorm"), "head_bias": translate("PlanForm", "head bias"),
        "final_norm": translate("PlanForm", "no final norm"),
    }
    out = [text for key, text in words.items() if key in extra]
    if "rotary_dim" in extra:
        out.append(translate("PlanForm", "rotary on {n} lanes per head").format(n=extra["rotary_dim"]))
    if "position_offset" in extra:
        out.append(translate("PlanForm", "{n} extra position rows").format(n=extra["position_offset"]))
    if "embed_dim" in extra:
        out.append(translate("PlanForm", "{n}-wide embeddings projected").format(n=extra["embed_dim"]))
    if extra.get("parallel_norms") == 2:
        out.append(translate("PlanForm", "two norms per block"))
    if "activation" in extra:
        out.append(translate("PlanForm", "activation {name}").format(name=extra["activation"]))
    return out


def params_hint(plan) -> str:
    """Under the count: the exact number of parameters and where it comes from."""
    n = i18n.fmt_int(plan.params)
    if plan.model.architecture is not None:
        return translate("PlanForm", "= {n} parameters, exact from the architecture").format(n=n)
    if plan.model.tensors:
        return translate("PlanForm", "= {n} parameters in {t} tensors, exact from transformers").format(
            n=n, t=len(plan.model.tensors))
    return translate("PlanForm", "= {n} parameters").format(n=n)


def arch_hint(plan, extra: dict) -> str:
    """Under the architecture: P, and the loaded layout's knobs the form does not show."""
    text = translate("PlanForm", "P = {n} ({short})").format(n=i18n.fmt_int(plan.params),
                                                             short=i18n.fmt_count(plan.params))
    details = layout_details(extra)
    if details:
        text += "\n" + translate("PlanForm", "Layout also has: {list}").format(list=", ".join(details))
    return text
