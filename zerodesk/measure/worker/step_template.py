"""A structure's step template, fitted from the real module's timelines (worker side: torch).

`python -m zerodesk.measure.worker.step_template ARCH.json|CONFIG.json|-` prints one JSON object, the template that
zerodesk.core.step_template evaluates without torch, or {"error": "one sentence"}.

How: the model of the plan's structure (every knob as the plan has it) is built at a few probe sizes
(template_probes.py), each size symbol a distinct prime (poly.py), five blocks long (a period of Gemma-2's alternation each, so one block has a
block before its predecessor and one after its successor), and one step is traced per compute mode and
recompute choice (step_trace.py). The probes' timelines must agree event for event; each storage's bytes become
a polynomial in the sizes. At every moment where memory stops rising, the bytes alive are summed by who made
them (the block the moment is in, its predecessor, earlier blocks, its successor, later ones, the rest) and by
what they are (kept from forward, made in backward, gradients), so the core can place any block of any depth
(template_moments.py).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from ...core.architecture import Architecture
from ...core.step_template import COMPUTES, RECOMPUTES, TEMPLATE_VERSION, structure_key
from .poly import FitError
from .step_trace import Timeline, trace_step
from .template_moments import summarise
from .template_probes import PERIODS, TemplateError, free_symbols, probe_architecture, probes, size_pools

# ---------------------------------------------------------------- tracing


def trace_all(arch: Architecture | dict, s: int, b: int, computes=COMPUTES, recomputes=RECOMPUTES) -> dict[str, Timeline]:
    """One traced step of `arch` (built once, under fake tensors) per compute mode and recompute choice, at sequence
    s and micro-batch b; keys "compute/recompute". arch may be a config.json dict (transformers builds it)."""
    import torch

    from . import torch_compat
    from .model import blocks_of, build_model, built_by_transformers
    from .recompute import apply_recompute, attention_of

    from .hf_model import build_hf_model

    out: dict[str, Timeline] = {}
    # the dispatch cache's keys built directly, as the simulation builds them: the same keys, a fifth of the time
    by_transformers = not isinstance(arch, Architecture) or built_by_transformers(arch)
    with torch_compat.fake_tensor_mode(), torch_compat.fake_cache_keys_direct(), \
            torch_compat.one_sequence_per_row(by_transformers):
        model = build_model(arch, "cpu") if isinstance(arch, Architecture) else build_hf_model(arch, "cpu")
        blocks = blocks_of(model)
        vocab = arch.vocab if isinstance(arch, Architecture) else int(arch["vocab_size"])
        tokens = torch.randint(vocab, (b, s))
        targets = torch.randint(vocab, (b, s))
        fp32 = [p.data for p in model.parameters()]
        for compute in computes:
            for p, data in zip(model.parameters(), fp32):
                p.data = data.to(torch.bfloat16) if compute == "bf16" else data
            for rc in recomputes:
                apply_recompute(blocks, rc)
                try:
                    out[f"{compute}/{rc}"] = trace_step(model, blocks, tokens, targets, compute)
                except RuntimeError:  # a kernel that refuses this dtype on the CPU (grouped_mm in fp32): no such step
                    break
                finally:  # unwrap: the instance's forward goes, the class's is back
                    for block in blocks:
                        block.__dict__.pop("forward", None)
                        if rc == "selective":
                            attention_of(block).__dict__.pop("forward", None)
    return out


def fit_template(arch: Architecture, computes=COMPUTES, recomputes=RECOMPUTES, reached=(True, False),
                 batch_one: bool = True) -> dict:
    """The whole template of arch's structure: every compute mode and recompute choice, the window reached or not.

    A micro-batch of one can take other paths than a larger one (matmul folds a broadcast batch of 1 into one mm:
    Falcon's math-fallback attention); where a step's operations at b = 1 differ, it gets a b = 1 step of its own
    (b fixed, the other sizes symbols). A part of the template alone (what a check needs, a fraction of the time):
    computes, recomputes, `reached` (the window placements fitted, for a windowed structure) and batch_one=False
    (no b = 1 steps)."""
    period = (arch.window_period or 1) if arch.sliding_window is not None else 1
    layers = PERIODS * period
    steps: dict[str, Any] = {}
    for window_reached in (reached if arch.sliding_window is not None else (False,)):
        values, changed = probes(arch, window_reached)
        traced = [trace_all(probe_architecture(arch, v, layers), v["s"], v["b"], computes, recomputes) for v in values]
        probe0 = probe_architecture(arch, values[0], layers)
        kinds = ["window" if probe0.windowed(i) else "full" for i in range(layers)]
        suffix = "/reached" if window_reached else ""
        names = [name for name in traced[0] if all(name in t for t in traced)]
        if not names:
            raise TemplateError("the model's step fails under fake tensors in every compute mode")
        for name in names:
            steps[name + suffix] = summarise([t[name] for t in traced], values, changed, period, kinds)
        one = trace_all(probe0, values[0]["s"], 1, computes, recomputes) if batch_one else {}
        differ = [name for name in names if name in one and one[name].signature() != traced[0][name].signature()]
        if differ:  # b = 1 steps: the probes again with b = 1 (every probe but the one that changes b)
            keep = [i for i, c in enumerate(changed) if c != "b"]
            values1 = [{k: x for k, x in values[i].items() if k != "b"} for i in keep]  # b is 1: no symbol
            changed1 = [changed[i] for i in keep]
            # the first is probe0 at b = 1, traced above
            traced1 = [one] + [trace_all(probe_architecture(arch, v, layers), v["s"], 1, computes, recomputes)
                               for v in values1[1:]]
            for name in differ:
                steps[name + suffix + "/b1"] = summarise([t[name] for t in traced1], values1, changed1, period, kinds)
    from .attention_probe import attention_kernel

    attention = attention_kernel(probe_architecture(arch, probes(arch, False)[0][0], 1), 64)
    return {"version": TEMPLATE_VERSION, "key": structure_key(arch), "symbols": free_symbols(arch),
            "trace_periods": PERIODS, "attention": attention, "steps": steps}


_LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers", "n_layers")


def config_with_layers(config: dict, layers: int) -> tuple[dict, int, list[str]]:
    """(the config with `layers` blocks, the period of its windowed/global alternation, each block's kind)."""
    cfg = {k: v for k, v in config.items() if k not in _LAYER_KEYS}
    cfg["num_hidden_layers"] = layers
    types = config.get("layer_types")
    if not isinstance(types, list) or not types:
        return cfg, 1, ["full"] * layers
    period = next(p for p in range(1, len(types) + 1) if all(types[i] == types[i % p] for i in range(len(types))))
    cfg["layer_types"] = [types[i % period] for i in range(layers * period)][:layers * period]
    cfg["num_hidden_layers"] = layers * period
    kinds = ["window" if "sliding" in str(t) else "full" for t in cfg["layer_types"]]
    return cfg, period, kinds


def fit_config_template(config: dict, computes=COMPUTES, recomputes=RECOMPUTES) -> dict:
    """The template of a model ZeroDesk has no layout for, from its config.json: its sizes stay as the config has
    them, so only the sequence and the micro-batch are symbols."""
    _, period, _ = config_with_layers(config, 1)
    cfg, _, kinds = config_with_layers(config, PERIODS)
    pools = size_pools(Architecture(layers=1, hidden=8, heads=1, ffn=8, vocab=8))
    values = [{"s": pools["s"][0], "b": pools["b"][0]}, {"s": pools["s"][1], "b": pools["b"][0]},
              {"s": pools["s"][0], "b": pools["b"][1]}, {"s": pools["s"][2], "b": pools["b"][2]}]
    changed: list[str | None] = [None, "s", "b", None]
    traced = [trace_all(cfg, v["s"], v["b"], computes, recomputes) for v in values]
    steps: dict[str, Any] = {name: summarise([t[name] for t in traced], values, changed, period, kinds)
                             for name in traced[0]}
    one = [trace_all(cfg, values[0]["s"], 1, computes, recomputes)]
    differ = [name for name in traced[0] if one[0][name].signature() != traced[0][name].signature()]
    if differ:  # b = 1 steps: the second probe at b = 1 too (s changed)
        one.append(trace_all(cfg, values[1]["s"], 1, computes, recomputes))
    for name in differ:
        steps[name + "/b1"] = summarise([one[0][name], one[1][name]], [{"s": values[0]["s"]},
                                         {"s": values[1]["s"]}], [None, "s"], period, kinds)
    return {"version": TEMPLATE_VERSION, "key": config_key(config), "symbols": ["s", "b"], "trace_periods": PERIODS,
            "period": period, "kinds": kinds[:period], "steps": steps}


def config_key(config: dict) -> str:
    from ...core.step_template import config_key as key

    return key(config)


def main(argv: list[str] | None = None) -> None:
    """ARCH.json | --config CONFIG.json | - (an Architecture on stdin) | --config - (a config.json on stdin)."""
    argv = sys.argv[1:] if argv is None else argv
    t0 = time.perf_counter()
    try:
        from_config = argv[:1] == ["--config"]
        argv = argv[1:] if from_config else argv
        text = sys.stdin.read() if argv[:1] == ["-"] else open(argv[0], encoding="utf-8").read()
        if from_config:
            answer: dict[str, Any] = fit_config_template(json.loads(text))
        else:
            answer = fit_template(Architecture.model_validate(json.loads(text)))
        answer["fit_s"] = round(time.perf_counter() - t0, 1)
    except (TemplateError, FitError, ValueError) as exc:
        answer = {"error": str(exc).splitlines()[0]}
    print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
