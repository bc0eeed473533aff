"""The model a measured or simulated step trains, tensor for tensor as the core counts it.

The custom family is ZeroDesk's own decoder (below, torch only). Every Hugging Face family is
transformers' own model built from hf_config_from_architecture(arch) (measure/hf_model.py), so
the engines shard the very tensors people load. build_model() checks named_parameters() against
the core's list (names, shapes and order), so the torch profile and the measured engines see the
same tensors. blocks_of() finds the ModuleList FSDP2 wraps block by block, then the root.
attention_backend() names the SDPA kernel torch picks for the model's attention on a device.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ...core.architecture_tensors import block_group, tensor_shapes
from ...core.plan import Architecture, ModelSpec
from . import torch_compat


def _norm(arch: Architecture) -> nn.Module:
    if arch.norm == "layernorm":
        return nn.LayerNorm(arch.hidden)
    return nn.RMSNorm(arch.hidden, eps=1e-6)


def rotary(seq: int, head_dim: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """cos, sin of shape (seq, head_dim // 2), computed per step (no buffers for DDP to broadcast)."""
    half = head_dim // 2
    inv_freq = 1.0 / (10000.0 ** (torch.arange(half, device=device, dtype=torch.float32) / max(half, 1)))
    angles = torch.outer(torch.arange(seq, device=device, dtype=torch.float32), inv_freq)
    return angles.cos(), angles.sin()


def apply_rotary(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate pairs (first half, second half) of the head dimension; an odd last lane stays as is."""
    half = cos.shape[-1]
    x1, x2, rest = x[..., :half], x[..., half : 2 * half], x[..., 2 * half :]
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin, rest), dim=-1)


class Attention(nn.Module):
    def __init__(self, arch: Architecture) -> None:
        super().__init__()
        hd, qkv_bias = arch.dim_per_head, arch.bias in ("qkv", "all")
        self.heads, self.kv_heads, self.head_dim = arch.heads, arch.n_kv_heads, hd
        self.q = nn.Linear(arch.hidden, arch.heads * hd, bias=qkv_bias)
        self.k = nn.Linear(arch.hidden, arch.n_kv_heads * hd, bias=qkv_bias)
        self.v = nn.Linear(arch.hidden, arch.n_kv_heads * hd, bias=qkv_bias)
        self.o = nn.Linear(arch.heads * hd, arch.hidden, bias=arch.bias == "all")

    def forward(self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor] | None) -> torch.Tensor:
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v(x).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        if rope is not None:
            q, k = apply_rotary(q, *rope), apply_rotary(k, *rope)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=self.kv_heads != self.heads)
        return self.o(y.transpose(1, 2).reshape(b, t, self.heads * self.head_dim))


class MLP(nn.Module):
    def __init__(self, arch: Architecture) -> None:
        super().__init__()
        bias = arch.bias == "all"
        self.gated = arch.mlp == "gated"
        if self.gated:  # registered first: tensor_shapes lists gate before up
            self.gate = nn.Linear(arch.hidden, arch.ffn, bias=bias)
        self.up = nn.Linear(arch.hidden, arch.ffn, bias=bias)
        self.down = nn.Linear(arch.ffn, arch.hidden, bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.gated:
            return self.down(F.silu(self.gate(x)) * self.up(x))
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, arch: Architecture) -> None:
        super().__init__()
        self.attn_norm = _norm(arch)
        self.attn = Attention(arch)
        self.mlp_norm = _norm(arch)
        self.mlp = MLP(arch)

    def forward(self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x), rope)
        return x + self.mlp(self.mlp_norm(x))


class Decoder(nn.Module):
    def __init__(self, arch: Architecture) -> None:
        super().__init__()
        self.arch = arch
        self.embed = nn.Embedding(arch.vocab, arch.hidden)
        if arch.positions == "learned":
            self.pos = nn.Embedding(arch.max_positions, arch.hidden)
        self.blocks = nn.ModuleList(Block(arch) for _ in range(arch.layers))
        self.norm = _norm(arch)
        if not arch.tied_embeddings:
            self.head = nn.Linear(arch.hidden, arch.vocab, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        t = tokens.shape[1]
        x = self.embed(tokens)
        rope = None
        if self.arch.positions == "learned":
            x = x + self.pos(torch.arange(t, device=tokens.device))
        else:
            rope = rotary(t, self.arch.dim_per_head, tokens.device)
        for block in self.blocks:
            x = block(x, rope)
        x = self.norm(x)
        if self.arch.tied_embeddings:
            return F.linear(x, self.embed.weight)
        return self.head(x)


def built_by_transformers(spec: Architecture | ModelSpec) -> bool:
    """Whether build_model builds spec with transformers (every family but ZeroDesk's own decoder, "custom")."""
    arch = spec if isinstance(spec, Architecture) else spec.architecture
    return arch is None or arch.family != "custom"


def build_model(spec: Architecture | ModelSpec, device: torch.device | str = "cpu", seed: int = 0) -> nn.Module:
    """The model on `device`, identical on every rank for the same seed.

    spec: an Architecture, or a ModelSpec (an architecture, or a tensor list read by transformers
    with the config it came from). Hugging Face layouts need the transformers package."""
    arch = spec if isinstance(spec, Architecture) else spec.architecture
    torch.manual_seed(seed)
    if not built_by_transformers(arch):
        with torch.device(device):
            model: nn.Module = Decoder(arch)
        want = tensor_shapes(arch)
    else:
        from ...core.hf_config import hf_config_from_architecture
        from .hf_model import build_hf_model

        if arch is not None:
            config, want = hf_config_from_architecture(arch), tensor_shapes(arch)
        else:
            assert isinstance(spec, ModelSpec) and spec.hf_config is not None and spec.named_shapes is not None
            config, want = spec.hf_config, spec.named_shapes
        model = build_hf_model(config, device)
    got = [(name, tuple(p.shape)) for name, p in model.named_parameters()]
    want = [(name, tuple(shape)) for name, shape in want]
    if got != want:
        diff = next((g, w) for g, w in zip(got + [None] * len(want), want + [None] * len(got)) if g != w)
        raise AssertionError(f"model tensors differ from the core's tensor list: got {diff[0]}, expected {diff[1]}")
    return model


def blocks_of(model: nn.Module) -> nn.ModuleList:
    """The ModuleList of blocks: the parent of every tensor group core.architecture_tensors.block_group names."""
    groups = {block_group(name) for name, _ in model.named_parameters()} - {"root"}
    parents = {g.rsplit(".", 1)[0] for g in groups}
    if len(parents) != 1:
        raise AssertionError(f"expected the blocks in one ModuleList, found {sorted(parents) or 'none'}")
    blocks = model.get_submodule(parents.pop())
    assert isinstance(blocks, nn.ModuleList)
    return blocks


def loss_fn(logits, targets: torch.Tensor) -> torch.Tensor:
    """Cross-entropy over fp32 logits; takes a tensor or a transformers output (its .logits)."""
    logits = getattr(logits, "logits", logits)
    return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten())


def attention_backend(arch: Architecture | None, seq: int, device: torch.device) -> str | None:
    """The SDPA kernel torch picks for this model's attention on `device` (torch.nn.attention.SDPBackend's name).

    Asked of torch's own dispatcher with the measured head shape, bf16, causal, on a short sequence (the choice
    depends on head size, dtype, GQA and the GPU, not on the length); None where the dispatcher cannot say."""
    if arch is None:
        return None
    torch_compat.check("sdp_choice")
    try:
        heads, kv, d = arch.heads, arch.n_kv_heads, arch.dim_per_head
        s = max(1, min(seq, 64))
        q = torch.empty(1, heads, s, d, dtype=torch.bfloat16, device=device)
        k = torch.empty(1, kv, s, d, dtype=torch.bfloat16, device=device)
        return torch_compat.sdp_kernel(q, k, enable_gqa=kv != heads)
    except Exception:  # noqa: BLE001 - a kernel choice this device cannot make: unknown rather than a failed run
        return None
