"""The Plan chart's words: the stages' tick labels fitted to the room, and the hover texts of a state
segment, the predicted peak layer and a simulated or measured marker.

Rich text in the UI language; the strings keep the chart's translation context ("StageChart").
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont, QFontMetrics

from ...core.accounting import STAGES, Breakdown, ComponentSpec, sharded
from ...core.peak import StagePeak
from ...core.plan import Profile
from ..base import i18n
from .run_markers import Measured

translate = QCoreApplication.translate  # lupdate reads translate("StageChart", "text")


def plain_text(rich: str) -> str:
    """A hover text without its markup, one line per line (an accessible description, the status bar)."""
    text = re.sub(r"<br\s*/?>", "\n", rich)
    return html.unescape(re.sub(r"<[^>]+>", "", text)).replace("\u00a0", " ").strip()


def fmt_percent(d: float) -> str:
    """'+0.0%' / '−2,4%': a signed difference in the UI language's decimal."""
    return ("−" if d < 0 else "+") + i18n.fmt_number(abs(d), 1) + "%"


def wrap_to_width(text: str, metrics: QFontMetrics, room: float) -> str:
    """Break each line of `text` at spaces so that no line is wider than `room` pixels (if words allow)."""
    out = []
    for line in text.split("\n"):
        current = ""
        for word in line.split(" "):
            trial = f"{current} {word}" if current else word
            if current and metrics.horizontalAdvance(trial) > room:
                out.append(current)
                current = word
            else:
                current = trial
        out.append(current)
    return "\n".join(out)


def stage_tick_labels(font: QFont, room: float) -> tuple[QFont, dict[int, str]]:
    """Each stage's name wrapped to `room` pixels; where one word is wider than that (Russian's
    "оптимизатора" in a narrow chart) a smaller type, and failing that the stage number alone,
    so neighbouring names never run into each other (the caption and hover name the stages in full)."""
    for scale in (1.0, 0.85):
        small = QFont(font)
        small.setPointSizeF(font.pointSizeF() * scale)
        metrics = QFontMetrics(small)
        labels = {s: wrap_to_width(i18n.stage_label(s), metrics, room) for s in STAGES}
        if all(metrics.horizontalAdvance(line) <= room for text in labels.values() for line in text.split("\n")):
            return small, labels
    return QFont(font), {s: i18n.stage_short(s) for s in STAGES}


def component_formula(spec: ComponentSpec | None, stage: int, profile: Profile) -> str:
    """'4P/Nd' when this component is sharded at this stage, '4P' when every rank holds it all."""
    if spec is None:
        return "?"
    b = f"{spec.bytes_per_param:g}P"
    if not sharded(spec.state_class, stage):
        return b
    if profile == Profile.TORCH and spec.state_class == "optimizer" and stage == 1:
        return f"≈{b}/Nd"  # ZeroRedundancyOptimizer assigns whole tensors: ranks are uneven
    return f"{b}/Nd"


def moment_name(moment: str) -> str:
    names = {"loss": translate("StageChart", "the loss"), "loss backward": translate("StageChart", "the loss's backward"),
             "end of backward": translate("StageChart", "the end of backward"),
             "last block": translate("StageChart", "the last block"),
             "first block reduce-scatter": translate("StageChart", "the first block's reduce-scatter"),
             "root reduce-scatter": translate("StageChart", "the root group's reduce-scatter"),
             "optimizer step": translate("StageChart", "the optimizer step")}
    return names.get(moment, moment)


def peak_text(p: StagePeak, stage: int, unit: str, gpu: int | None) -> str:
    """The predicted peak, its phase and moment, what fills memory then, and whether it fits the GPU."""
    phase = {"forward": translate("StageChart", "forward"), "backward": translate("StageChart", "backward"),
             "optimizer": translate("StageChart", "optimizer step")}.get(p.phase, p.phase)
    lines = [f"<b>{i18n.stage_short(stage)} · " + translate("StageChart", "Predicted peak of the step") + "</b>",
             f"≈ {i18n.fmt_bytes(p.total_bytes, unit)} = {i18n.fmt_exact_bytes(p.total_bytes)}",
             translate("StageChart", "Phase: {phase} ({moment})").format(phase=phase, moment=moment_name(p.moment))]
    for key, nbytes in sorted(p.components.items(), key=lambda kv: -kv[1]):
        lines.append(f"&nbsp;&nbsp;{html.escape(i18n.component_label(key))}: {i18n.fmt_bytes(nbytes, unit)}")
    if gpu:
        lines.append(translate("StageChart", "Fits in {gpu}").format(gpu=i18n.fmt_bytes(gpu, unit))
                     if p.total_bytes <= gpu else
                     translate("StageChart", "Over {gpu} by {over}").format(
                         gpu=i18n.fmt_bytes(gpu, unit), over=i18n.fmt_bytes(p.total_bytes - gpu, unit)))
    if not p.complete:
        lines.append(translate("StageChart", "Activations left out: they need the architecture."))
    lines.append(translate("StageChart", "Predicted (closed form), not measured; fragmentation is not included. "
                                         "Check it with Simulate or Measure."))
    return "<br>".join(lines)


def segment_text(b: Breakdown, stage: int, key: str, spec: ComponentSpec | None, unit: str) -> str:
    """A state segment: component, bytes in the unit and exactly, its formula, where it comes from."""
    nbytes = b.stage(stage).components[key]
    kind = f"{spec.dtype}, {i18n.state_class_label(spec.state_class)}" if spec else ""
    formula = component_formula(spec, stage, b.profile)
    lines = [
        f"<b>{i18n.stage_short(stage)} · {i18n.component_label(key)}</b>" + (f" ({kind})" if kind else ""),
        f"{i18n.fmt_bytes(nbytes, unit)} = {i18n.fmt_exact_bytes(nbytes)}",
        translate("StageChart", "Formula: {f} with P = {p}, Nd = {nd}").format(
            f=formula, p=i18n.fmt_int(b.params), nd=b.dp),
        translate("StageChart", "Stage total: {total} = {formula}").format(
            total=i18n.fmt_bytes(b.stage(stage).total_bytes, unit), formula=i18n.core_formula(b.stage(stage).formula)),
        translate("StageChart", "Computed, {profile}. Click it (or press Enter) for the claim it rests on.").format(
            profile=i18n.profile_short(b.profile.value)),
    ]
    return "<br>".join(lines)


def measured_text(m: Measured, difference: float | None, computed: int | None, unit: str) -> str:
    """A marker: peak, states, and the states' difference to the torch profile (or to the computed bar)."""
    lines = [f"<b>{html.escape(m.label)} · {i18n.stage_short(m.stage)}</b>",
             translate("StageChart", "Peak of the step: {v}").format(v=i18n.fmt_bytes(m.peak_bytes, unit))]
    if m.states_bytes is not None:
        lines.append(translate("StageChart", "Model states: {v}").format(v=i18n.fmt_bytes(m.states_bytes, unit)))
        if difference is not None and m.reference_bytes is not None:
            lines.append(translate("StageChart", "States vs the torch profile {c}: {d}").format(
                c=i18n.fmt_bytes(m.reference_bytes, unit), d=fmt_percent(difference)))
        elif difference is not None and computed is not None:
            lines.append(translate("StageChart", "States vs computed {c}: {d}").format(
                c=i18n.fmt_bytes(computed, unit), d=fmt_percent(difference)))
    return "<br>".join(lines)
