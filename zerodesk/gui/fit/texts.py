"""The Fit view's words in the UI language: the solver's reasons (fit.Reason ids), recompute modes, a cell's peaks
and headroom, and the view's caption. Every figure carries its unit; the tier (predicted) and profile are named."""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from ...core.accounting import STAGES
from ...core.fit import FitAnswer, Reason
from ...core.fit_map import Cell
from ...core.fit_recompute import PolicyFit
from ...core.plan import Plan
from ..base import i18n

translate = QCoreApplication.translate  # lupdate reads translate("FitTexts", "text")

RECOMPUTE_WORDS = {
    "none": QT_TRANSLATE_NOOP("FitTexts", "without recompute"),
    "selective": QT_TRANSLATE_NOOP("FitTexts", "with selective recompute"),
    "full": QT_TRANSLATE_NOOP("FitTexts", "with full recompute"),
}
RECOMPUTE_NAMES = {
    "none": QT_TRANSLATE_NOOP("FitTexts", "none"),
    "selective": QT_TRANSLATE_NOOP("FitTexts", "selective"),
    "full": QT_TRANSLATE_NOOP("FitTexts", "full"),
}


def recompute_words(mode: str) -> str:
    """'with selective recompute', for a sentence."""
    return translate("FitTexts", RECOMPUTE_WORDS[mode])


def recompute_name(mode: str) -> str:
    """'selective', for a table cell."""
    return translate("FitTexts", RECOMPUTE_NAMES[mode])


def _stage_list(stages: list[int]) -> str:
    if len(stages) == 1:
        return str(stages[0])
    return translate("FitTexts", "{first} and {last}").format(first=", ".join(map(str, stages[:-1])), last=stages[-1])


def why(reason: Reason, unit: str) -> str:
    """The solver's reason as sentences in the UI language (fit_report.why_text is the CLI's English)."""
    a = reason.args
    if reason.id == "least_comm":
        text = translate("FitTexts", "Stage {stage} {recompute} fits micro-batch {mb} with the least communication "
                                     "per step: {comm}.").format(
            stage=a["stage"], recompute=recompute_words(a["recompute"]), mb=i18n.fmt_int(a["micro_batch"]),
            comm=i18n.fmt_bytes(a["comm_bytes"], unit))
        same = a["same_comm_stages"]
        if len(same) == 1:
            text += " " + translate("FitTexts", "Stage {stages} moves as much but peaks higher.").format(stages=same[0])
        elif same:
            text += " " + translate("FitTexts", "Stages {stages} move as much but peak higher.").format(
                stages=_stage_list(same))
        if a["recompute"] != "none":
            text += " " + translate("FitTexts", "Nothing fits it with less recompute at that communication.")
        return text
    if reason.id == "batch_too_large":
        return translate("FitTexts", "Nothing fits micro-batch {wanted} at Nd = {dp}; stage {stage} {recompute} fits "
                                     "the most, {mb}, moving {comm} per step.").format(
            wanted=i18n.fmt_int(a["wanted"]), dp=i18n.fmt_int(a["dp"]), stage=a["stage"],
            recompute=recompute_words(a["recompute"]), mb=i18n.fmt_int(a["micro_batch"]),
            comm=i18n.fmt_bytes(a["comm_bytes"], unit))
    if reason.id == "nothing_fits":
        if "min_dp" in a:
            return translate("FitTexts", "Nothing fits micro-batch 1 at Nd = {dp}; stage {stage} {recompute} fits "
                                         "from Nd = {min_dp}.").format(
                dp=i18n.fmt_int(a["dp"]), stage=a["stage"], recompute=recompute_words(a["recompute"]),
                min_dp=i18n.fmt_int(a["min_dp"]))
        return translate("FitTexts", "Nothing fits micro-batch 1 at Nd = {dp}, nor at any Nd searched.").format(
            dp=i18n.fmt_int(a["dp"]))
    raise ValueError(f"unknown reason id {reason.id!r}")


def recommendation(answer: FitAnswer, unit: str) -> str:
    """The recommendation's headline and its reason, as rich text."""
    rec = answer.recommendation
    if rec.stage is None:
        head = translate("FitTexts", "Recommended: nothing fits.")
    else:
        head = translate("FitTexts", "Recommended: stage {stage} {recompute}, micro-batch {mb}.").format(
            stage=rec.stage, recompute=recompute_words(rec.recompute), mb=i18n.fmt_int(rec.micro_batch))
    return f"<b>{html.escape(head)}</b> {html.escape(why(rec.reason, unit))}"


def tier(plan: Plan) -> str:
    """'predicted (closed-form peak), paper profile': the tier and profile every figure of the view has."""
    return translate("FitTexts", "predicted (closed-form peak), {profile}").format(
        profile=i18n.profile_short(plan.profile.value))


def caption(plan: Plan, answer: FitAnswer) -> str:
    """The view's caption: what, whence, which memory, which unit (rich text)."""
    unit = plan.units
    title = translate("FitTexts", "What fits on one GPU")
    lines = [
        translate("FitTexts", "Sequence {seq} · recompute {recompute} · Nd = {dp} · micro-batch {mb}").format(
            seq=i18n.fmt_int(plan.seq_len), recompute=recompute_name(plan.recompute), dp=i18n.fmt_int(plan.dp),
            mb=i18n.fmt_int(plan.micro_batch)),
        (translate("FitTexts", "Usable: {usable} per GPU ({gpu} less a CUDA allowance of {allowance}); "
                               "figures in {unit} ({note})") if answer.allowance_bytes else
         translate("FitTexts", "Usable: {usable} per GPU (no CUDA allowance set); figures in {unit} ({note})")).format(
            usable=i18n.fmt_bytes(answer.usable_bytes, unit), gpu=i18n.fmt_bytes(answer.gpu_memory_bytes, unit),
            allowance=i18n.fmt_bytes(answer.allowance_bytes, unit), unit=i18n.unit_label(unit),
            note=i18n.unit_note(unit)),
    ]
    return (f"<b>{html.escape(title)}</b> — {html.escape(tier(plan))}<br>"
            + "<br>".join(html.escape(line) for line in lines))


def notes(plan: Plan, answer: FitAnswer) -> list[str]:
    """What the answer does not cover, in sentences."""
    out = [translate("FitTexts", "Peaks are predicted full-step peaks without the CUDA allowance, so each compares "
                                 "with the usable memory; fragmentation is not predicted: Simulate or Measure the "
                                 "boundary.")]
    if not answer.complete:
        out.append(translate("FitTexts", "Without the architecture (a raw count or a tensor list) activations are "
                                         "unknown: these peaks hold the states and token ids only, so the micro-batch "
                                         "and sequence answers are upper bounds."))
    if plan.offload.value != "none":
        out.append(translate("FitTexts", "Offload is shown apart: these peaks keep every state on the GPU."))
    if not answer.moments_agree:
        out.append(translate("FitTexts", "The peak's moments and its total disagreed on this plan, so every answer "
                                         "was searched with the total alone."))
    search = answer.dp_search
    if search.world is None:
        out.append(translate("FitTexts", "Fewest Nd: the powers of two from 1 to {top} were searched.").format(
            top=i18n.fmt_int(search.sizes[-1])))
    else:
        out.append(translate("FitTexts", "Fewest Nd: the divisors of nodes × GPUs per node = {world} were searched "
                                         "(the map shows other Nd too).").format(world=i18n.fmt_int(search.world)))
    return out


def cell_text(plan: Plan, cell: Cell) -> str:
    """A map cell's hover text (rich): the lowest stage that fits, every stage's peak and headroom, the click."""
    unit = plan.units
    head = translate("FitTexts", "Nd = {dp} · micro-batch {mb}").format(dp=i18n.fmt_int(cell.dp),
                                                                         mb=i18n.fmt_int(cell.micro_batch))
    if cell.stage is None:
        verdict = translate("FitTexts", "no stage fits")
    else:
        verdict = translate("FitTexts", "lowest stage that fits: {stage}").format(stage=cell.stage)
    lines = [f"<b>{html.escape(head)}</b> — {html.escape(verdict)}",
             html.escape(translate("FitTexts", "Predicted peak, {profile}, sequence {seq}, recompute {recompute}:")
                         .format(profile=i18n.profile_short(plan.profile.value), seq=i18n.fmt_int(plan.seq_len),
                                 recompute=recompute_name(plan.recompute)))]
    for s in STAGES:
        peak, room = i18n.fmt_bytes(cell.peaks[s], unit), cell.headroom(s)
        if room >= 0:
            line = translate("FitTexts", "{stage}: {peak}, headroom {room} (fits up to micro-batch {most})").format(
                stage=i18n.stage_short(s), peak=peak, room=i18n.fmt_bytes(room, unit), most=i18n.fmt_int(cell.limits[s]))
        else:
            line = translate("FitTexts", "{stage}: {peak}, over by {over}").format(
                stage=i18n.stage_short(s), peak=peak, over=i18n.fmt_bytes(-room, unit))
        line = html.escape(line)
        lines.append(f"<b>{line}</b>" if s == cell.stage else line)
    lines.append(html.escape(translate("FitTexts", "Usable: {usable} per GPU. Click or Enter: set the plan to this "
                                                   "Nd and micro-batch.").format(
        usable=i18n.fmt_bytes(cell.usable_bytes, unit))))
    return "<br>".join(lines)


def cheapest_recompute(plan: Plan, fits: list[PolicyFit]) -> str:
    """The cheapest recomputation that fits each stage at the plan's micro-batch and sequence (fit_recompute, as
    `zerodesk fit` prints it), as rich text: a heading and a line per stage; empty without an answer."""
    if not fits:
        return ""
    unit = plan.units
    layers = plan.model.architecture.layers if plan.model.architecture is not None else 0
    head = translate("FitTexts", "Cheapest recompute that fits micro-batch {mb} at sequence {seq} (the least forward "
                                 "work rerun):").format(mb=i18n.fmt_int(plan.micro_batch),
                                                        seq=i18n.fmt_int(plan.seq_len))
    lines = [f"<b>{html.escape(head)}</b>"]
    for f in fits:
        policy, stage = f.policy, i18n.stage_short(f.stage)
        if policy is None:
            line = translate("FitTexts", "{stage}: nothing fits, not even full recompute on every block").format(
                stage=stage)
        else:
            peak = i18n.fmt_bytes(f.peak_bytes, unit)
            if policy.recompute == "none":
                line = translate("FitTexts", "{stage}: no recompute needed (predicted peak {peak})")
            elif policy.every == 1:
                line = translate("FitTexts", "{stage}: {mode} recompute on every block (predicted peak {peak})")
            else:
                line = translate("FitTexts", "{stage}: {mode} recompute on one block in {k} ({n} of {layers} blocks; "
                                             "predicted peak {peak})")
            line = line.format(stage=stage, mode=recompute_name(policy.recompute), k=i18n.fmt_int(policy.every),
                               n=i18n.fmt_int(policy.blocks), layers=i18n.fmt_int(layers), peak=peak)
        lines.append(html.escape(line))
    return "<br>".join(lines)


def none_label() -> str:
    return translate("FitTexts", "nothing fits")
