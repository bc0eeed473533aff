"""An untracked warm-up that skips the blocks' arithmetic (the simulation's FSDP2 stages), checked afterwards.

A warm-up step exists for what it leaves behind: every parameter's gradient, AdamW's states, FSDP2's lazily made
state and buffers. Those follow from which parameters a step uses, not from what a block computes with them. So
while the warm-up runs, each block after the first returns its input plus 0 x (the sum of its parameters): FSDP2's
hooks gather, reshard and reduce-scatter every unit as in a real step, autograd gives every parameter its
gradient, and AdamW's first step makes its states, at a fraction of the block's operations under fake tensors
(the first block, the embedding, head and loss run as they are).

Whether that left the same state is checked, not assumed: a warmed-up step leaves what it found (steady()), so the
measured step must end with exactly the tracked bytes, by category, it started with. A block whose first forward
keeps something (a cache) or a parameter the real step does not use breaks that; the caller then measures the
stage again after a real warm-up.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import torch


class _Unknown(Exception):
    """A block output this warm-up cannot stand in for."""


def _shape_of(output: Any, hidden: torch.Tensor) -> int | None:
    """How a block's output holds its hidden states: None for the tensor itself, n for a tuple of it and n - 1 Nones
    (_Unknown for anything else)."""
    if isinstance(output, torch.Tensor) and output.shape == hidden.shape:
        return None
    if type(output) is tuple and output and isinstance(output[0], torch.Tensor) \
            and output[0].shape == hidden.shape and all(o is None for o in output[1:]):
        return len(output)
    raise _Unknown


def _hidden(args: tuple, kwargs: dict) -> Any:
    return args[0] if args else kwargs.get("hidden_states", kwargs.get("x"))


@contextmanager
def blocks_elided(blocks: Any) -> Iterator[None]:
    """While inside, blocks[1:] pass their input through, touching every parameter once (see the module's doc).

    The first block runs for real and shows the output's structure; where that is not a tensor of the input's shape
    (or such a tensor followed by Nones), or a call has no tensor first, every block runs as it is."""
    seen: dict[str, int | None] = {}  # "shape": _shape_of the first block's output, once it is known
    saved = [(block, block.__dict__.get("forward")) for block in blocks]

    def elided(block: Any, real: Any) -> Any:
        def forward(*args: Any, **kwargs: Any) -> Any:
            hidden = _hidden(args, kwargs)
            if "shape" not in seen or not isinstance(hidden, torch.Tensor):
                return real(*args, **kwargs)
            touched = None
            for p in block.parameters():
                s = p.sum()
                touched = s if touched is None else touched + s
            if touched is not None:
                hidden = hidden + (touched * 0).to(hidden.dtype)
            n = seen["shape"]
            return hidden if n is None else (hidden,) + (None,) * (n - 1)
        return forward

    def first(real: Any) -> Any:
        def forward(*args: Any, **kwargs: Any) -> Any:
            output = real(*args, **kwargs)
            hidden = _hidden(args, kwargs)
            if isinstance(hidden, torch.Tensor):
                try:
                    seen["shape"] = _shape_of(output, hidden)
                except _Unknown:
                    pass
            return output
        return forward

    for i, block in enumerate(blocks):
        real = block.forward
        block.forward = first(real) if i == 0 else elided(block, real)
    try:
        yield
    finally:
        seen.clear()
        for block, own in saved:
            if own is None:
                del block.forward
            else:
                block.forward = own


def steady(start: dict[str, int], end: dict[str, int]) -> bool:
    """Whether a measured step ended with the tracked bytes, category by category, it started with."""
    return start == end
