"""The remarks the core attaches to its figures, each an id with its parameters. Qt-free.

The English text lives here, once; the window translates a note by its id (the text is marked
for Qt's lupdate, context "CoreNotes"), so rewording a note cannot silently drop its translation:
tests/test_gui_runtime.py fails while a note has no Russian.
"""

from __future__ import annotations

from dataclasses import dataclass

from .options import QT_TRANSLATE_NOOP

NOTES: dict[str, str] = {
    # accounting (zerodesk.core.accounting)
    "scheme_outside_paper": QT_TRANSLATE_NOOP(
        "CoreNotes", "scheme {scheme} is outside the ZeRO paper's §3.1 accounting"),
    "torch_profile_fixes_scheme": QT_TRANSLATE_NOOP(
        "CoreNotes",
        "the torch profile models AdamW with fp32 states and the plan's mixed-precision policy; scheme {scheme} "
        "does not apply"),
    "raw_count_even_shards": QT_TRANSLATE_NOOP(
        "CoreNotes", "raw parameter count: tensor shapes unknown, so sharding is taken as even"),
    # the knobs (zerodesk.core.knobs): what does not follow them yet
    "knobs_torch_only": QT_TRANSLATE_NOOP(
        "CoreNotes", "{knobs}: PyTorch's engines only; the paper profile keeps its scheme's dtypes and units"),
    # offload (zerodesk.core.offload): the whole answer, and why a stage has none
    "fsdp2_offload_step_on_cpu": QT_TRANSLATE_NOOP(
        "CoreNotes", "FSDP2 CPUOffloadPolicy: AdamW steps on the CPU; its time is not modelled"),
    "offload_from_stage_2": QT_TRANSLATE_NOOP(
        "CoreNotes", "ZeRO-Offload partitions gradients as ZeRO-2 does: shown at stages 2 and 3"),
    "offload_params_at_stage_3": QT_TRANSLATE_NOOP(
        "CoreNotes", "parameters are offloaded only when they are partitioned: stage 3"),
    "fsdp2_no_optimizer_only": QT_TRANSLATE_NOOP(
        "CoreNotes", "FSDP2 has no optimizer-only offload: choose optimizer+params"),
    "fsdp2_host_only": QT_TRANSLATE_NOOP(
        "CoreNotes", "FSDP2's CPUOffloadPolicy offloads to host memory only, not NVMe"),
    "offload_fsdp2_stages_only": QT_TRANSLATE_NOOP(
        "CoreNotes", "DDP and ZeroRedundancyOptimizer have no CPU offload; FSDP2 (stages 2-3) has"),
}


@dataclass(frozen=True)
class Note:
    """One remark: its id in NOTES and the values of its {placeholders} (hashable, so notes group)."""

    id: str
    params: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.id not in NOTES:
            raise KeyError(f"no note {self.id!r} in zerodesk.core.notes.NOTES")

    @property
    def template(self) -> str:
        """The English text with its {placeholders}: what the window translates."""
        return NOTES[self.id]

    @property
    def text(self) -> str:
        return self.template.format(**dict(self.params))

    def __str__(self) -> str:
        return self.text


def note(note_id: str, **params: object) -> Note:
    """note('scheme_outside_paper', scheme='fp32-adam')."""
    return Note(note_id, tuple((k, str(v)) for k, v in params.items()))
