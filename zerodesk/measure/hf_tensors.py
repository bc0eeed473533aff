"""Any model type's exact tensor list, read by transformers in a subprocess (the window never imports torch).

`python -m zerodesk.measure.worker.hf_model CONFIG.json` (or - for stdin) builds transformers' model
for that config on the meta device (no weights, no Hub) and prints one JSON object: {"tensors":
[[name, shape], ...]} or {"error": "one sentence"}. read_tensor_list() here is the torch-free caller
the CLI and the GUI use for model types ZeroDesk has no layout for; the list goes into the plan
(ModelSpec.tensors) with the config, so the torch profile, simulate and measure work for it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..core.hf_config import SUPPORTED, architecture_from_config_dict, model_name, read_hf_config
from ..core.plan import PlanError
from .runner import measure_env

NEEDS_TRANSFORMERS = "needs the transformers package"
TENSOR_LIST_MODULE = "zerodesk.measure.worker.hf_model"  # what the subprocess runs


def model_from_hf_config(path: str | Path, python: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(ModelSpec fields, hints) from a config.json or its folder; hints: model_type and seq_len.

    A model_type with a ZeroDesk layout becomes an architecture (no torch involved); any other is
    read by transformers in a subprocess into a tensor list stored with its config."""
    path, cfg = read_hf_config(path)
    model_type = cfg.get("model_type")
    name = model_name(cfg)
    if model_type in SUPPORTED or not isinstance(model_type, str) or not model_type:
        arch = architecture_from_config_dict(cfg, path)  # refuses a missing model_type with a sentence
        return {"name": name, "architecture": arch.model_dump(exclude_defaults=True)}, \
            {"model_type": model_type, "seq_len": arch.max_positions}
    try:
        tensors = read_tensor_list(cfg, str(path), python)
    except PlanError as exc:
        if NEEDS_TRANSFORMERS in str(exc):
            raise PlanError(f"{path} has model_type '{model_type}': ZeroDesk reads {', '.join(SUPPORTED)} by itself, "
                            f"and any other type {NEEDS_TRANSFORMERS} (`{python or sys.executable} -m pip install "
                            "transformers`)") from None
        raise
    hints: dict[str, Any] = {"model_type": model_type}
    seq = next((cfg[k] for k in ("max_position_embeddings", "n_positions", "seq_length")
                if isinstance(cfg.get(k), int) and not isinstance(cfg.get(k), bool) and cfg[k] > 0), None)
    if seq:
        hints["seq_len"] = seq
    return {"name": name, "tensors": tensors, "hf_config": cfg}, hints


def read_tensor_list(config: dict[str, Any], source: str, python: str | None = None,
                     timeout: float = 120.0) -> list[tuple[str, tuple[int, ...]]]:
    """The tensor list of `config` (a config.json dict read from `source`); failures are one PlanError."""
    try:
        out = subprocess.run([python or sys.executable, "-m", TENSOR_LIST_MODULE, "-"],
                             input=json.dumps(config), capture_output=True, text=True, timeout=timeout,
                             env=measure_env())
    except subprocess.TimeoutExpired:
        raise PlanError(f"reading {source} with transformers took longer than {timeout:.0f} s") from None
    except OSError as exc:
        raise PlanError(f"cannot start Python to read {source} with transformers: {exc.strerror or exc}") from None
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    try:
        answer = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        answer = {}
    if "error" in answer:
        raise PlanError(f"{source}: {answer['error']}")
    if not isinstance(answer.get("tensors"), list) or not answer["tensors"]:
        tail = out.stderr.strip().splitlines()[-1:] or ["no output"]
        raise PlanError(f"reading {source} with transformers failed ({tail[0]})")
    return [(str(n), tuple(int(d) for d in s)) for n, s in answer["tensors"]]
