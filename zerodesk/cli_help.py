"""What `zerodesk --help` and each command's --help say: one line per command, a description, and examples.

Every example is a command that runs as written from a clone of the repository (tests/test_cli_help.py
parses each one, and runs the quick ones); `zerodesk` is the installed command (.venv/bin/zerodesk in
README's set-up).
"""

from __future__ import annotations

import argparse

# command -> (the line `zerodesk --help` lists it with, its own --help's description)
COMMANDS = {
    "plan": ("per-rank model-state memory per ZeRO stage, the predicted peak, communication, offload",
             "Per-rank ZeRO model-state memory for stages 0-3, computed, and the predicted peak of a training step."),
    "fit": ("what fits on the plan's GPUs: the largest micro-batch, the longest sequence, the smallest Nd",
            "What fits on the plan's GPUs, predicted: the largest micro-batch, the longest sequence and the smallest "
            "Nd per ZeRO stage and recompute mode, and the configuration to run."),
    "measure": ("a real training step per stage on local CPU (gloo) or GPU (NCCL) ranks",
                "Measure one real training step per ZeRO stage on local ranks and compare the states with the "
                "torch profile."),
    "simulate": ("one rank's full-size step under fake tensors, for models this machine cannot hold",
                 "Simulate one rank's full-size training step under fake tensors (ZeRO stages 0-3), for models this "
                 "machine cannot hold."),
}

CONFIG = "tests/hf_configs/qwen2.5-0.5b.json"  # a config.json shipped in the repository (tests/hf_configs/)

EXAMPLES = {
    "window": [
        ("the window", "zerodesk"),
        ("the window on a plan", "zerodesk --preset llama-2-7b --dp 64 --gpu h100-80gb"),
        ("render it to a PNG without a display", "zerodesk --preset gpt2 --screenshot window.png"),
        ("the lesson, step 3, in Russian", "zerodesk --lang ru --lesson 3 --screenshot step3.png"),
        ("the model presets and GPUs", "zerodesk --list-presets --list-gpus"),
    ],
    "zerodesk-gui": [
        ("the window (the card's example: 32 / 14 / 11 / 8 GB)", "zerodesk-gui"),
        ("the window on a plan, as zerodesk takes it", "zerodesk-gui --preset gpt2 --dp 2"),
        ("render it to a PNG without a display", "zerodesk-gui --preset llama-2-7b --dp 8 --gpu h100-80gb "
                                                 "--screenshot window.png"),
    ],
    "plan": [
        ("the card: 32 / 14 / 11 / 8 GB", "zerodesk plan --preset card-example"),
        ("Llama 2 7B on 64 H100s, PyTorch's bookkeeping", "zerodesk plan --preset llama-2-7b --dp 64 --gpu h100-80gb "
                                                         "--profile torch --units GiB"),
        ("a Hugging Face config.json (its context length becomes --seq)", f"zerodesk plan --config {CONFIG} --dp 8"),
        ("the predicted peak with recompute, for scripts", "zerodesk plan --preset llama-2-7b --dp 8 --seq 4096 "
                                                          "--recompute full --cuda-allowance 2GiB --json"),
        ("offload to host memory", "zerodesk plan --preset llama-2-7b --nodes 2 --gpus-per-node 8 "
                                   "--offload optimizer --host-memory 512GiB"),
        ("the presets", "zerodesk plan --list-presets --list-gpus"),
    ],
    "fit": [
        ("what fits Llama 2 7B on 8 H100s", "zerodesk fit --preset llama-2-7b --dp 8 --gpu h100-80gb"),
        ("at a longer sequence, for scripts", "zerodesk fit --preset llama-3-8b --dp 16 --gpu a100-80gb --seq 8192 "
                                              "--json"),
    ],
    "measure": [
        ("GPT-2 scaled down, every stage on 2 CPU ranks (about 20 s)",
         "zerodesk measure --preset gpt2 --layers-scale 0.1 --hidden-scale 0.5 --vocab-scale 0.1 --seq 64"),
        ("two stages of your own architecture, for scripts", "zerodesk measure --layers 2 --hidden 256 --heads 4 "
                                                             "--ffn 1024 --vocab 1000 --stage 1,3 --json"),
        ("on this machine's GPUs", "zerodesk measure --preset gpt2 --device cuda --stage 3"),
    ],
    "simulate": [
        ("Llama 2 7B at Nd = 64, stages 2 and 3", "zerodesk simulate --preset llama-2-7b --dp 64 --stage 2,3 "
                                                  "--recompute selective"),
        ("a CPU rank's copies (gloo), for scripts", "zerodesk simulate --preset gpt2 --dp 8 --backend gloo --json"),
    ],
}


def epilog(command: str) -> str:
    """The examples block of a command's --help (kept as written by Formatter)."""
    lines = ["examples:"]
    for what, line in EXAMPLES[command]:
        lines += [f"  # {what}", f"  {line}"]
    return "\n".join(lines)


WINDOW_DESCRIPTION = ("ZeroDesk: plan the memory of ZeRO data-parallel training. With no command it opens the "
                      "window (with --screenshot, renders it to a PNG and exits); the plan options fill its form.")
GUI_SCRIPT_DESCRIPTION = ("Open the ZeroDesk window (the commands are zerodesk's); the plan options fill its form, "
                          "as they do for zerodesk.")
WINDOW_USAGE = ("zerodesk {plan,fit,measure,simulate} ...\n"
                "       zerodesk [FILE] [--screenshot PNG] [--lesson [N]] [--lang L] [--size WxH] [--theme T] "
                "[plan options]")


class Formatter(argparse.HelpFormatter):
    """argparse's formatter, except that a text holding line breaks (the examples) is kept as written: a command
    stays on one line, ready to copy."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)
