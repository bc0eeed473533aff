"""Text and JSON renderings of what fits (zerodesk.core.fit), for `zerodesk fit`.

The recommendation's reason is an id with values (fit.Reason); `why_text` words it in English here, and the window
can word the same id in its own languages.
"""

from __future__ import annotations

from typing import Any

from .comm_report import per_step
from .fit import MAX_MICRO_BATCH, MAX_SEQ, FitAnswer, GlobalBatchAnswer, Reason
from .plan import Plan
from .report import PROFILE_SOURCE, provenance, unit_note
from .text import shorten
from .text_table import table
from .units import fmt_bytes, fmt_count

RECOMPUTE_WORDS = {"none": "without recompute", "selective": "with selective recompute", "full": "with full recompute"}
TIER = "predicted"
PEAK_NOTE = ("Peaks are predicted full-step peaks (zerodesk.core.peak) with the CUDA allowance left out, so each "
             "compares with the usable memory; fragmentation is not predicted. Check the boundary: zerodesk fit --verify.")


def _stages(stages: list[int]) -> str:
    words = [str(s) for s in stages]
    listed = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    return f"stage{'s' if len(words) > 1 else ''} {listed}"


def why_text(reason: Reason, unit: str) -> str:
    """The reason as one English sentence."""
    a = reason.args
    if reason.id == "least_comm":
        text = (f"Stage {a['stage']} {RECOMPUTE_WORDS[a['recompute']]} fits micro-batch {a['micro_batch']:,} with the "
                f"least communication per step ({fmt_bytes(a['comm_bytes'], unit)})")
        if a["same_comm_stages"]:
            move = "moves" if len(a["same_comm_stages"]) == 1 else "move"
            text += f"; {_stages(a['same_comm_stages'])} {move} as much but peak{'s' if move == 'moves' else ''} higher"
        if a["recompute"] != "none":
            text += "; nothing fits it with less recompute at that communication"
        return text + "."
    if reason.id == "batch_too_large":
        return (f"Nothing fits micro-batch {a['wanted']:,} at Nd = {a['dp']:,}; stage {a['stage']} "
                f"{RECOMPUTE_WORDS[a['recompute']]} fits the most, {a['micro_batch']:,}, moving "
                f"{fmt_bytes(a['comm_bytes'], unit)} per step.")
    if reason.id == "nothing_fits":
        text = f"Nothing fits micro-batch 1 at Nd = {a['dp']:,}"
        if "min_dp" in a:
            return text + f"; stage {a['stage']} {RECOMPUTE_WORDS[a['recompute']]} fits from Nd = {a['min_dp']:,}."
        return text + ", nor at any Nd searched."
    raise ValueError(f"unknown reason id {reason.id!r}")


def fit_json(answer: FitAnswer, unit: str = "GB") -> dict[str, Any]:
    """`zerodesk fit --json`: exactly gpu_memory_bytes (usable), fits, min_dp and recommended."""
    rec = answer.recommendation
    return {
        "gpu_memory_bytes": answer.usable_bytes,
        "fits": [{"stage": c.stage, "recompute": c.recompute, "max_micro_batch": c.max_micro_batch,
                  "peak_at_max_bytes": c.peak_at_max_bytes, "peak_above_bytes": c.peak_above_bytes,
                  "max_seq": c.max_seq} for c in answer.configs],
        "min_dp": [{"stage": c.stage, "recompute": c.recompute, "dp": c.min_dp} for c in answer.configs],
        "recommended": {"stage": rec.stage, "recompute": rec.recompute, "micro_batch": rec.micro_batch,
                        "comm_bytes": rec.comm_bytes,
                        "why": {"id": rec.reason.id, "args": dict(rec.reason.args), "text": why_text(rec.reason, unit)}},
    }


def _number(nbytes: int | None, unit: str) -> str:
    return "-" if nbytes is None else fmt_bytes(nbytes, unit).removesuffix(f" {unit}")


def fit_table(plan: Plan, answer: FitAnswer) -> str:
    unit = plan.units
    name = shorten(plan.model.name, 120) if plan.model.name else ("architecture" if plan.model.architecture else "raw count")
    source = provenance(plan).replace("computed, ", "", 1)
    gpu = plan.cluster.gpu or "custom"
    lines = [
        f"ZeroDesk fit — {TIER} (closed-form peak), {source}",
        f"Model: {name}, P = {plan.params:,} ({fmt_count(plan.params)}); Nd = {plan.dp:,}; "
        f"seq {plan.seq_len:,} x micro-batch {plan.micro_batch:,}; AdamW {plan.optimizer_impl}",
        f"GPU: {gpu}, {fmt_bytes(answer.gpu_memory_bytes, unit)}; CUDA allowance {fmt_bytes(answer.allowance_bytes, unit)}; "
        f"usable {fmt_bytes(answer.usable_bytes, unit)} per GPU ({unit_note(unit)})",
        "",
    ]
    header = ["Stage", "Recompute", "Max micro-batch", f"Peak at max ({unit})", f"Peak at max + 1 ({unit})",
              "Max seq (batch 1)", "Min Nd (batch 1)", f"Comm/step ({unit})"]
    rows = [header]
    for c in answer.configs:
        rows.append([str(c.stage), c.recompute, f"{c.max_micro_batch:,}", _number(c.peak_at_max_bytes, unit),
                     _number(c.peak_above_bytes, unit), f"{c.max_seq:,}", "none" if c.min_dp is None else f"{c.min_dp:,}",
                     _number(c.comm_bytes, unit)])
    lines += [table(rows, set(range(2, len(header)))), ""]
    rec = answer.recommendation
    if rec.stage is None:
        lines.append(f"Recommended: nothing. {why_text(rec.reason, unit)}")
    else:
        lines.append(f"Recommended: stage {rec.stage} {RECOMPUTE_WORDS[rec.recompute]}, micro-batch "
                     f"{rec.micro_batch:,}. {why_text(rec.reason, unit)}")
    search = answer.dp_search
    if search.world is None:
        lines.append(f"Min Nd searched the powers of two from 1 to {search.sizes[-1]:,} (the plan sets no cluster).")
    else:
        lines.append(f"Min Nd searched the divisors of {plan.cluster.nodes:,} node(s) x {plan.cluster.gpus_per_node:,} "
                     f"GPU(s) = {search.world:,} (Nd must divide it).")
    capped = "the learned position table" if answer.max_seq_cap < MAX_SEQ else "the plan's limit"
    lines.append(f"Max seq searched up to {answer.max_seq_cap:,} tokens ({capped}); micro-batches up to "
                 f"{MAX_MICRO_BATCH:,}. Communication per rank {per_step(plan, when=True)} at Nd = {plan.dp:,} "
                 f"({PROFILE_SOURCE[plan.profile]}).")
    if not answer.complete:
        lines.append("Without the architecture (a raw count or a tensor list) activations are unknown, so these peaks "
                     "hold the states and token ids only; the micro-batch and sequence answers are upper bounds.")
    if plan.offload.value != "none":
        lines.append(f"Offload {plan.offload.value}: the predicted peak keeps every state on the GPU; offload is "
                     "shown apart (zerodesk plan).")
    if not answer.moments_agree:
        lines.append("Note: the peak's moments and its total disagreed on this plan, so every answer was searched "
                     "with the total alone.")
    lines.append(PEAK_NOTE)
    return "\n".join(lines)



def global_batch_json(g: GlobalBatchAnswer) -> dict[str, Any]:
    """`zerodesk fit --global-batch G --json`'s "global_batch" key."""
    def one(c):
        return None if c is None else {"stage": c.stage, "recompute": c.recompute, "accum_steps": c.accum_steps,
                                       "micro_batch": c.micro_batch, "comm_bytes": c.comm_bytes}
    return {"global_batch": g.global_batch, "dp": g.dp, "per_rank": g.global_batch // g.dp,
            "configs": [one(c) for c in g.configs], "recommended": one(g.recommended)}


def global_batch_text(g: GlobalBatchAnswer, unit: str = "GB") -> str:
    """The global batch's answer in lines: the recommendation, then each stage's fewest steps and the communication
    per step they take."""
    per_rank = g.global_batch // g.dp
    head = f"Global batch {g.global_batch:,} at Nd = {g.dp:,}: {per_rank:,} sequence{'s' if per_rank != 1 else ''} per rank per step."
    best = g.recommended
    if best is None:
        return head + " Nothing reaches it: no micro-batch of it fits, with or without accumulation."
    lines = [head, f"Fewest accumulation steps: stage {best.stage} {RECOMPUTE_WORDS[best.recompute]}, "
                   f"{best.accum_steps:,} step{'s' if best.accum_steps != 1 else ''} of micro-batch {best.micro_batch:,}, "
                   f"moving {fmt_bytes(best.comm_bytes, unit)} per rank per step."]
    rows = [["Stage", "Recompute", "Accumulation steps", "Micro-batch", f"Comm/step ({unit})"]]
    for c in g.configs:
        rows.append([str(c.stage), c.recompute, "-" if c.accum_steps is None else f"{c.accum_steps:,}",
                     "-" if c.micro_batch is None else f"{c.micro_batch:,}", _number(c.comm_bytes, unit)])
    when = "every micro-batch" if g.accum_sync == "every" else "the last micro-batch only"
    return "\n".join(lines + ["", table(rows, {2, 3, 4}),
                              f"Comm/step: bytes one rank moves in a step of that many micro-batches, gradients reduced "
                              f"on {when} (--accum-sync)."])
