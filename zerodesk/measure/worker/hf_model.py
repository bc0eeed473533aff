"""transformers' own model from a config dict: on the meta device for its tensor list, or real for a step.

Worker side only (torch and transformers). Missing transformers is one sentence, never a traceback.
`python -m zerodesk.measure.worker.hf_model CONFIG.json` (or - for stdin) prints a config's tensor
list as one JSON object, for measure/hf_tensors.py, the torch-free caller.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

MISSING = ("this model's Hugging Face layout needs the transformers package in the measuring Python "
           "(`{python} -m pip install transformers`)")


class TransformersMissing(RuntimeError):
    def __init__(self) -> None:
        super().__init__(MISSING.format(python=sys.executable))


def _transformers():
    try:
        import transformers
    except ImportError:
        raise TransformersMissing() from None
    transformers.logging.set_verbosity_error()
    return transformers


def hf_config(config: dict[str, Any]) -> Any:
    """transformers' config object for `config` (a config.json dict), as build_hf_model builds the model from."""
    transformers = _transformers()
    cfg = {k: v for k, v in config.items() if k not in ("model_type", "torch_dtype", "dtype", "architectures",
                                                        "quantization_config", "auto_map")}
    cfg["use_cache"] = False
    model_type = config.get("model_type")
    if model_type not in transformers.CONFIG_MAPPING:
        raise ValueError(f"transformers {transformers.__version__} does not know model_type '{model_type}'")
    try:
        return transformers.AutoConfig.for_model(model_type, **cfg)
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"transformers cannot read this config: {str(exc).splitlines()[0][:200]}") from None


def build_hf_model(config: dict[str, Any], device: Any = "cpu"):
    """AutoModelForCausalLM from `config` (a config.json dict) on `device`, fp32, no dropout, no KV cache."""
    transformers = _transformers()  # first: without it, one sentence back before torch's import
    import torch

    conf = hf_config(config)
    with torch.device(device):
        model = transformers.AutoModelForCausalLM.from_config(conf, dtype=torch.float32)
    for module in model.modules():  # dropout would add random masks to what the step keeps
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    return model


def named_shapes(config: dict[str, Any]) -> list[tuple[str, list[int]]]:
    """Every unique trainable tensor of transformers' model for `config`, in registration order."""
    model = build_hf_model(config, "meta")
    return [(name, list(p.shape)) for name, p in model.named_parameters() if p.requires_grad]


def main(argv: list[str] | None = None) -> None:
    """Print {"tensors": [[name, shape], ...]} or {"error": "one sentence"} for the config in argv[0] (- : stdin)."""
    from ..hf_tensors import NEEDS_TRANSFORMERS

    argv = sys.argv[1:] if argv is None else argv
    text = sys.stdin.read() if argv == ["-"] else Path(argv[0]).read_text(encoding="utf-8")
    try:
        config = json.loads(text)
        if not isinstance(config, dict) or not isinstance(config.get("model_type"), str):
            raise ValueError("the config has no model_type")
        try:
            tensors = named_shapes(config)
        except TransformersMissing:
            raise ValueError(f"reading this model type {NEEDS_TRANSFORMERS}") from None
        answer: dict[str, Any] = {"tensors": tensors}
    except Exception as exc:  # noqa: BLE001 - one sentence back to the window, never a traceback
        answer = {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
