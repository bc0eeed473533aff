"""What the Measure tab says: before a run, during it, and after it (in the UI language).

Pure wording over the controller's RunState and the tab's inputs; no widgets.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication

from ...core.evidence import run_key
from ...core.plan import Plan
from ...core.units import fmt_count
from ...measure import rules
from ...measure.protocol import Scale, scale_plan
from ..base import i18n
from ..base.style import ERROR_COLOR, OK_COLOR
from .controller import RunController
from .fmt import fmt_auto, fmt_duration, fmt_percent
from .run_bar import phase_name


translate = QCoreApplication.translate  # lupdate reads translate("Context", "text")


class RunTexts:
    def __init__(self, controller: RunController) -> None:
        self.controller = controller

    def idle(self, plan: Plan | None, c, problem: str, sim_problem: str, sim_stages: list[int],
             measured_plan: Plan | None) -> str:
        """What Simulate and Measure would do now, with rough times; or why they cannot."""
        if sim_problem:
            return f'<span style="color:{ERROR_COLOR}">{html.escape(sim_problem)}</span>'
        sim = translate("RunTexts", "<b>Simulate</b> runs rank 0 of {nd} ranks for stage(s) {stages} as a full-size step under fake "
                      "tensors: no GPU, little memory — for models this machine cannot hold. Expect about {time}.").format(
            nd=i18n.fmt_int(plan.dp), stages=", ".join(map(str, sim_stages)),
            time=fmt_duration(rules.simulate_seconds(plan, len(sim_stages))))
        if problem:
            meas = translate("RunTexts", "<b>Measure</b> cannot run: {why}").format(why=html.escape(problem))
            return sim + "<br>" + f'<span style="color:{ERROR_COLOR}">{meas}</span>'
        stages, ranks, device = c.selected_stages(), c.ranks.value(), c.device_choice()
        where = {"cpu": translate("RunTexts", "CPU ranks (gloo)"), "cuda": translate("RunTexts", "CUDA ranks (NCCL, one GPU each)"),
                 "auto": translate("RunTexts", "CUDA ranks if this machine has a GPU, else CPU ranks")}[device]
        meas = translate("RunTexts", "<b>Measure</b> runs a warm-up and one measured training step for stage(s) {stages} on {ranks} "
                       "local {where}. Expect about {time}, much of it starting the ranks (each imports torch).").format(
            stages=", ".join(map(str, stages)), ranks=ranks, where=html.escape(where),
            time=fmt_duration(rules.measure_seconds(measured_plan, len(stages), ranks, device)))
        chart = self.chart_note(plan, c.scale(), ranks)
        return sim + "<br>" + meas + " " + html.escape(chart)

    def chart_note(self, plan: Plan, scale: Scale, ranks: int) -> str:
        if not scale.identity:
            return translate("RunTexts", "A scaled run is compared here only; the Plan tab's bars stay those of the full model.")
        if ranks != plan.dp:
            return translate("RunTexts", "The Plan tab's bars are for Nd = {nd}; with {ranks} ranks the comparison stays in this tab "
                           "(set Ranks to {nd} to put markers on that chart).").format(nd=plan.dp, ranks=ranks)
        return translate("RunTexts", "Results also land on the Plan tab's chart beside each bar.")

    def running(self) -> str:
        c, state = self.controller, self.controller.state
        sim = c.job.kind == "simulated"
        current = state.current_stage()
        if c.is_stopping():
            text = translate("RunTexts", "Stopping every process of the run…")
        elif state.started is None:
            text = translate("RunTexts", "Starting the simulation (it imports torch)…") if sim else translate(
                "RunTexts", "Starting {ranks} ranks (each imports torch)…").format(ranks=c.job.ranks)
        elif current is None:
            text = translate("RunTexts", "Simulating…") if sim else translate("RunTexts", "Measuring…")
        else:
            phase = phase_name(state.stage_status(current).phase)
            text = (translate("RunTexts", "Simulating stage {n}: {phase}…") if sim else translate("RunTexts", "Measuring stage {n}: {phase}…")).format(
                n=current, phase=phase)
        return html.escape(text + " " + translate("RunTexts", "({s} s so far; Cancel stops every process)").format(
            s=round(c.elapsed_s())))

    def error_text(self) -> str:
        """The one sentence that says why the last run failed ("" if it did not)."""
        error = self.controller.state.error
        if error is None:
            return ""
        if error.code == "cancelled":
            return translate("RunTexts", "The run was cancelled; every process of it was stopped.")
        reason = " ".join(error.message.split()).rstrip(".")
        if reason.lower().startswith(("the measurement ", "the simulation ")):  # already a sentence about the run
            return reason[:1].upper() + reason[1:] + "."
        return translate("RunTexts", "The run failed: {reason}.").format(reason=reason)

    def error_html(self, has_log: bool) -> str:
        text = html.escape(self.error_text())
        if self.controller.state.error.code == "cancelled":
            return f"<b>{text}</b>"
        more = "<br>" + html.escape(translate("RunTexts", "Details are in the log below.")) if has_log else ""
        return f'<span style="color:{ERROR_COLOR}"><b>⚠ {text}</b></span>{more}'

    def summary(self, current: Plan | None) -> str:
        """After Done: where and how it ran, how the states compare, and where the results went."""
        c, state = self.controller, self.controller.state
        st, job = state.started, c.job
        if st is None:
            return html.escape(translate("RunTexts", "The run finished without results."))
        wall = i18n.fmt_seconds(state.outcome.wall_s) if state.outcome.wall_s is not None else "?"
        device = {"cpu": translate("RunTexts", "CPU"), "cuda": translate("RunTexts", "CUDA")}.get(st.device, st.device)
        if job.kind == "simulated":
            head = translate("RunTexts", "Simulated rank 0 of {ranks} under fake tensors, torch {torch}, in {wall}.").format(
                ranks=i18n.fmt_int(st.ranks), torch=st.torch, wall=wall)
        else:
            head = translate("RunTexts", "Measured on {device}, {ranks} ranks, torch {torch}, in {wall}.").format(
                device=device + (f" ({st.device_name})" if st.device_name else ""), ranks=st.ranks, torch=st.torch, wall=wall)
        lines = [html.escape(head)] + [html.escape(t) for t in self.how_it_ran(st, state.sorted_results(), job.plan)]
        diffs = [(abs(d), d, r) for r in state.sorted_results()
                 if (d := rules.difference_pct(r.states.total, r.predicted_states.total)) is not None]
        if diffs:
            worst = max(diffs, key=lambda x: x[0])
            if worst[0] < 0.005:
                lines.append(html.escape(translate("RunTexts", "Model states at rest match the torch profile on every rank ({d}).").format(
                    d=fmt_percent(worst[1]))))
            else:
                lines.append(html.escape(translate("RunTexts", "Model states at rest differ from the torch profile by up to {d} "
                                                 "(stage {s}, rank {r}).").format(
                    d=fmt_percent(worst[1]), s=worst[2].stage, r=worst[2].rank)))
        if current is not None and run_key(current) != run_key(job.plan):
            lines.append(html.escape(translate("RunTexts", "The plan has changed since this run; its results were set aside.")))
        elif job.on_chart:
            lines.append(html.escape(translate("RunTexts", "On the Plan tab's chart, beside each bar: the peak and the model states of "
                                             "the largest rank, % against the torch profile.")))
        elif not job.scale.identity:
            lines.append("<b>" + html.escape(translate("RunTexts", "Measured on a scaled model: {model}.").format(
                model=self.model_text(job.plan, job.scale))) + "</b> " + html.escape(translate(
                "RunTexts", "The Plan tab's bars are for the full model, so no markers were put there.")))
        else:
            lines.append(html.escape(translate("RunTexts", "The Plan tab's bars are for Nd = {nd}; this run used {ranks} ranks, so no "
                                             "markers were put there.").format(nd=job.plan.dp, ranks=st.ranks)))
        return f'<span style="color:{OK_COLOR}"><b>✓</b></span> ' + "<br>".join(lines)

    def how_it_ran(self, st, results, plan: Plan) -> list[str]:
        """The optimizer's kernels and the attention kernel; on CUDA, what the tracker does not see."""
        out = []
        impls = {"foreach": "foreach", "fused": "fused", "for-loop": translate("RunTexts", "for-loop")}
        impl = impls.get(st.optimizer_impl, st.optimizer_impl)
        if impl and st.attention:
            out.append(translate("RunTexts", "AdamW kernels: {impl}; attention kernel: {attention}.").format(
                impl=impl, attention=st.attention))
        elif impl:  # a simulation picks no attention kernel (fake tensors): nothing to say, not "?"
            out.append(translate("RunTexts", "AdamW kernels: {impl}.").format(impl=impl))
        elif st.attention:
            out.append(translate("RunTexts", "Attention kernel: {attention}.").format(attention=st.attention))
        cuda = [r for r in results if r.max_allocated_bytes is not None]
        if cuda:
            family = rules.unit_family(plan)
            top = max(cuda, key=lambda r: r.max_allocated_bytes)
            out.append(translate(
                "RunTexts", "CUDA allocator peak {alloc}: {extra} above the tracked peak (what the tracker does not see: "
                "cuBLAS/cuDNN workspaces, blocks held for other CUDA streams); reserved but not allocated {frag} (measured; an upper "
                "bound on fragmentation: it includes free blocks kept for reuse); outside torch's allocator "
                "{outside} (CUDA context, NCCL buffers, other processes). Attention kernels and autocast differ between "
                "CUDA and CPU, so do the activations.").format(
                alloc=fmt_auto(top.max_allocated_bytes, family), extra=fmt_auto(top.untracked_bytes or 0, family),
                frag=fmt_auto(max(0, (top.max_reserved_bytes or 0) - top.max_allocated_bytes), family),
                outside=fmt_auto(top.device_overhead_bytes or 0, family)))
        return out

    def model_text(self, full: Plan, scale: Scale) -> str:
        """'2 layers, hidden 64, …; P = …' or, scaled, '2 of 32 layers, …; P = … of …'."""
        scaled = scale_plan(full, scale)
        a, b = full.model.architecture, scaled.model.architecture
        p_full, p_scaled = full.params, scaled.params  # each counts every tensor: once
        if scale.identity:
            return translate("RunTexts", "{layers} layers, hidden {hidden}, {heads} heads, FFN {ffn}, vocabulary {vocab}, sequence {seq} × "
                           "micro-batch {mb}; P = {p} ({short})").format(
                layers=a.layers, hidden=a.hidden, heads=a.heads, ffn=a.ffn, vocab=i18n.fmt_int(a.vocab), seq=full.seq_len,
                mb=full.micro_batch, p=i18n.fmt_int(p_full), short=fmt_count(p_full))
        return translate("RunTexts", "{l} of {L} layers, hidden {h} of {H}, FFN {f} of {F}, vocabulary {v} of {V}, sequence {s} of {S}; "
                       "P = {p} ({short}) of {P} ({SHORT})").format(
            l=b.layers, L=a.layers, h=b.hidden, H=a.hidden, f=b.ffn, F=a.ffn, v=i18n.fmt_int(b.vocab),
            V=i18n.fmt_int(a.vocab), s=scaled.seq_len, S=full.seq_len, p=i18n.fmt_int(p_scaled),
            short=fmt_count(p_scaled), P=i18n.fmt_int(p_full), SHORT=fmt_count(p_full))

    def model_note(self, plan: Plan | None, scale: Scale, ranks: int, stages: list[int]) -> str:
        """The model a run builds, and the states the torch profile predicts for its largest rank."""
        if plan is None or plan.model.architecture is None:
            return ""
        try:
            scaled = scale_plan(plan, scale)
        except ValueError:
            return ""
        largest = max(rules.predicted_states(scaled, stages, ranks).values())
        what = translate("RunTexts", "Model as measured: {model}.") if scale.identity else translate("RunTexts", "Scaled model as measured: {model}.")
        return what.format(model=self.model_text(plan, scale)) + " " + translate(
            "RunTexts", "Predicted model states at rest (torch profile, largest of {n} ranks): up to {v}.").format(
            n=ranks, v=fmt_auto(largest, rules.unit_family(plan)))
