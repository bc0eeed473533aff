"""Every colour of the window, once. Stages keep one colour everywhere (bars' captions, the memory-versus-Nd
curves, the Measure tab's timeline); evidence tiers keep one colour and one marker shape on every chart.

Okabe-Ito hues where they fit: they stay apart for the common colour-vision deficiencies.
"""

from __future__ import annotations

# ZeRO stage -> colour: 0 (plain DP) grey, then blue, orange, green as sharding grows.
STAGE_COLORS = ("#7F7F7F", "#0072B2", "#E69F00", "#009E73")

# Model-state components in the stacked bars (a component keeps its colour in every scheme).
COMPONENT_COLORS = {
    "params": "#0072B2",
    "grads": "#E69F00",
    "grad_accum": "#F0E442",
    "master": "#009E73",
    "adam_m": "#CC79A7",
    "adam_v": "#D55E00",
    "momentum": "#CC79A7",
    "optimizer": "#8E6CC9",
    "comm_buffers": "#56B4E9",
}
FALLBACK_COLORS = ("#999999", "#777777", "#BBBBBB")

# Evidence tiers beside the bars: colour and marker shape (pyqtgraph symbols) for the peak and the states.
TIER_COLORS = {"simulated": "#00A3A3", "measured": "#E0115F", "predicted": "#B8860B"}
TIER_SYMBOLS = {"simulated": ("s", "o"), "measured": ("t1", "d")}  # (peak, model states)
TIER_GLYPHS = {"simulated": "■●", "measured": "▲◆"}  # the same shapes in legend text
SERIES_COLORS = ("#E0115F", "#00A3A3", "#B8860B", "#6A5ACD", "#1F4E79", "#8B4513")  # further series: first one free

ERROR_COLOR = "#D62728"  # errors, invalid fields, and the GPU memory line
OK_COLOR = "#1A7F37"
WARN_COLOR = "#B35900"
GPU_LINE_COLOR = ERROR_COLOR
ND_LINE_COLOR = "#444444"
PEAK_COLOR = "#7F7F7F"  # the predicted peak's hatched layer: an estimate, drawn in grey
MARKER_OUTLINE = "#000000"
BOUNDARY_COLOR = "#E69F00"  # the glossary's "holds within" box
DARK_LINK_COLOR = "#7FB8FF"


def stage_color(stage: int) -> str:
    return STAGE_COLORS[stage % len(STAGE_COLORS)]


def component_color(key: str, index: int = 0) -> str:
    return COMPONENT_COLORS.get(key, FALLBACK_COLORS[index % len(FALLBACK_COLORS)])
