"""Every private torch API the worker uses sits in torch_compat, and each self-check runs on the installed torch.

Each check passes here; with its piece of torch moved (deleted or changed in place for the test) it fails with
TorchInternalsMoved naming the torch version and what moved, and the accessors that rely on it fail the same way
instead of switching a patch off. Outside torch_compat the worker touches no underscore name of torch.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from zerodesk.measure.worker import torch_compat  # noqa: E402
from zerodesk.measure.worker.torch_compat import CHECKS, TorchInternalsMoved  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "zerodesk" / "measure" / "worker"


@pytest.mark.parametrize("name", list(CHECKS))
def test_every_self_check_passes_on_this_torch(name):
    torch_compat.check(name)


def _breakers():
    """check name -> how to move its piece of torch (monkeypatch, restored after the test)."""
    import torch.distributed as dist
    from torch.distributed._tools import fsdp2_mem_tracker, mem_tracker
    from torch.distributed.fsdp import FSDPModule
    from torch.distributed.fsdp._fully_shard import _fsdp_param
    from torch._subclasses import fake_tensor
    from torch.distributed.tensor import _sharding_prop

    def plain_chunks(tensor, num_chunks, dim):  # torch.chunk without _chunk_with_empty's padding
        return list(torch.chunk(tensor, num_chunks, dim))

    def transformers_packing(mp):
        masking = pytest.importorskip("transformers.masking_utils")
        mp.delattr(masking, "find_packed_sequence_indices")

    def cublas(mp):
        mp.setattr(torch.version, "cuda", "12.8")
        mp.delattr(torch._C, "_cuda_clearCublasWorkspaces", raising=False)

    return {
        "mem_tracker": lambda mp: mp.delattr(mem_tracker.MemTracker, "_update_and_maybe_create_winfos"),
        "fsdp_mem_tracker": lambda mp: mp.delattr(fsdp2_mem_tracker, "FSDPMemTracker"),
        "fsdp_state": lambda mp: mp.delattr(FSDPModule, "_get_fsdp_state"),
        "fsdp_chunks": lambda mp: mp.setattr(_fsdp_param, "_chunk_with_empty", plain_chunks),
        "fsdp_reduce_scatter": lambda mp: mp.delattr(dist, "reduce_scatter_single"),  # FSDP2 calls no other
        "tracker_peak_update": lambda mp: mp.setattr(mem_tracker.MemTracker, "_update_peak_stats", lambda self: None),
        "tracker_output_walk": lambda mp: mp.setattr(mem_tracker, "tree_map_only", lambda *a, **k: None),
        "strided_flag_scan": lambda mp: mp.setattr(_sharding_prop, "_propagate_use_strided_shard_flag",
                                                   lambda op_strategy, op_schema: op_schema.args_strategy),
        "foreach_expansion": lambda mp: mp.setattr(_sharding_prop, "_expand_single_dim_strategy_to_mesh",
                                                   lambda mesh, op_schema, info: None),
        "ddp_buckets": lambda mp: mp.delattr(dist, "_compute_bucket_assignment_by_size"),
        "storage_identity": lambda mp: mp.setattr(torch.UntypedStorage, "_cdata", property(lambda self: 0)),
        "sdp_choice": lambda mp: mp.delattr(torch, "_fused_sdp_choice"),
        "cublas_workspaces": cublas,
        "fake_world": lambda mp: mp.setitem(sys.modules, "torch.testing._internal.distributed.fake_pg", None),
        "transformers_packing": transformers_packing,
        "tracker_updates": lambda mp: mp.setattr(mem_tracker.MemTracker, "_update_snap", lambda self, u_type, winfo: None),
        "fsdp_param_module": lambda mp: mp.setattr(_fsdp_param, "ParamModuleInfo", lambda mod, param_name: None),
        "dispatch_mode": lambda mp: mp.setattr(torch.utils._python_dispatch, "TorchDispatchMode", object),
        "fake_cache_key": lambda mp: mp.setattr(fake_tensor.TensorMetadata, "_flatten_into",  # a key of dtypes only
                                                lambda self, result, mode, state: result.append(self.dtype)),
        "fsdp_tracker_units": lambda mp: mp.delattr(fsdp2_mem_tracker, "_SavedFSDPMethods"),
    }


def test_every_self_check_has_a_breaker_here():
    assert set(_breakers()) == set(CHECKS)


@pytest.mark.parametrize("name", list(CHECKS))
def test_a_moved_piece_fails_its_check_loudly(monkeypatch, name):
    _breakers()[name](monkeypatch)
    with pytest.raises(TorchInternalsMoved) as info:
        torch_compat.check(name)
    text = str(info.value)
    library = "transformers" if name == "transformers_packing" else "torch"
    assert re.match(rf"{library} \S+ no longer has ", text) and info.value.what in text
    assert f"ZeroDesk is tested with torch {torch_compat.TORCH_FLOOR}" in text and "\n" not in text
    if library == "torch":
        assert text.startswith(f"torch {torch.__version__} ")


def test_the_simulations_patches_fail_instead_of_switching_off(monkeypatch):
    """Before: a moved _chunk_with_empty or tree_map_only left the simulation running unpatched without a word."""
    _breakers()["fsdp_chunks"](monkeypatch)
    with pytest.raises(TorchInternalsMoved, match="_chunk_with_empty"):
        with torch_compat.chunks_on_demand():
            pass
    _breakers()["tracker_output_walk"](monkeypatch)
    with pytest.raises(TorchInternalsMoved, match="tree_map_only"):
        with torch_compat.direct_output_walk():
            pass


def test_a_moved_tracker_is_one_protocol_sentence(monkeypatch):
    from zerodesk.measure.protocol import WorkerError
    from zerodesk.measure.worker.failures import classify
    from zerodesk.measure.worker.trackers import check_tracker

    _breakers()["fsdp_state"](monkeypatch)
    code, text = classify(TorchInternalsMoved("torch", "FSDP2's per-module state", "gone", "unsupported"), 1, 3)
    assert code == "unsupported" and text.startswith("rank 1 in stage 3: torch ") and "\n" not in text
    _breakers()["mem_tracker"](monkeypatch)
    with pytest.raises(WorkerError) as info:
        check_tracker(0)
    assert info.value.code == "tracker_unavailable" and torch.__version__ in info.value.message


DDP_BUCKETS = """
import os, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from zerodesk.measure.worker import torch_compat
from zerodesk.measure.worker.ddp_sim import SimulatedDDP
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ["PORT"])
dist.init_process_group("gloo", rank=0, world_size=1)
model = torch.nn.Sequential(torch.nn.Linear(300, 1000), torch.nn.Linear(1000, 7))
ddp = DistributedDataParallel(model)
ddp(torch.ones(2, 300)).sum().backward()  # the buckets are rebuilt in the first step
real = torch_compat.ddp_bucket_bytes(ddp)
twin = torch.nn.Sequential(torch.nn.Linear(300, 1000), torch.nn.Linear(1000, 7))
stand_in = torch_compat.ddp_bucket_bytes(SimulatedDDP(twin))
print(real, stand_in, sum(p.numel() * 4 for p in model.parameters()))
dist.destroy_process_group()
"""


def test_ddp_reports_its_buckets_as_the_stand_in_does():
    """_get_ddp_logging_data's bucket sizes from a real one-rank DDP: every gradient, fp32, as SimulatedDDP holds."""
    from zerodesk.measure.worker.launcher import free_port

    out = subprocess.run([sys.executable, "-c", DDP_BUCKETS], capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={"PORT": str(free_port()), "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT),
                              "GLOO_SOCKET_IFNAME": "lo"})
    assert out.returncode == 0, out.stderr[-2000:]
    real, stand_in, grads = map(int, out.stdout.split())
    assert real == stand_in == grads > 0


def _private_uses(path: Path) -> list[str]:
    """Underscore names of other objects this module touches (self's own and dunders aside; os._exit is public)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "torch":
            names = node.module.split(".") + [a.name for a in node.names]
            found += [f"from {node.module} import {n}" for n in names if n.startswith("_")]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if any(p.startswith("_") for p in a.name.split("."))]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = ast.unparse(node.value)
            if owner not in ("self", "os"):
                found.append(f"{owner}.{node.attr}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr", "setattr", "delattr") and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant) and str(node.args[1].value).startswith("_")
              and ast.unparse(node.args[0]) != "self"):
            found.append(f"{node.func.id}({ast.unparse(node.args[0])}, {node.args[1].value!r})")
    return found


def test_private_torch_apis_live_only_in_torch_compat():
    uses = {p.name: _private_uses(p) for p in sorted(WORKER.glob("*.py"))}  # the package torch_compat/ is not here
    assert uses and not {name: u for name, u in uses.items() if u}
    assert any(_private_uses(p) for p in (WORKER / "torch_compat").glob("*.py"))  # the scan does see them there


def test_the_torch_floor_is_pyprojects_and_readmes():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert f"torch>={torch_compat.TORCH_FLOOR},<3" in extras["measure"]
    readme = (ROOT / "README.md").read_text()
    assert re.search(rf"\b(?:Py)?[Tt]orch {re.escape(torch_compat.TORCH_FLOOR)}\b", readme), "README names the floor"
    assert tuple(map(int, torch.__version__.split("+")[0].split(".")[:2])) >= \
        tuple(map(int, torch_compat.TORCH_FLOOR.split(".")))


def test_the_strided_flag_is_scanned_once_per_schema_and_torchs_own_runs_for_a_strided_input(monkeypatch):
    """strided_flag_scanned_once: no _StridedShard among the inputs -> torch's function is not called at all (it
    would return at once); one -> torch's own runs for every child, as without the patch."""
    from torch.distributed.tensor import _sharding_prop
    from torch.distributed.tensor.placement_types import Shard, _StridedShard

    calls = []
    monkeypatch.setattr(_sharding_prop, "_propagate_use_strided_shard_flag",
                        lambda op_strategy, op_schema: calls.append(op_strategy))
    monkeypatch.setitem(torch_compat.CHECKS, "strided_flag_scan", lambda: None)  # the stand-in reads nothing

    def schema(*placements):
        specs = tuple(type("Spec", (), {"placements": (p,)})() for p in placements)
        return type("Schema", (), {"args_spec": specs, "args_schema": specs})()

    plain, strided = schema(Shard(0), Shard(0)), schema(Shard(0), _StridedShard(0, split_factor=2))
    with torch_compat.strided_flag_scanned_once():
        for child in range(3):
            _sharding_prop._propagate_use_strided_shard_flag(("plain", child), plain)
            _sharding_prop._propagate_use_strided_shard_flag(("strided", child), strided)
    assert calls == [("strided", 0), ("strided", 1), ("strided", 2)]


def test_fake_cache_keys_are_torchs_own_for_every_op_of_a_training_step(monkeypatch):
    """fake_cache_keys_direct: for every op of a small model's forward, backward and foreach AdamW step under fake
    tensors, the key it builds is torch's own, value for value and type for type; the rest goes to torch's walk."""
    from torch._subclasses._fake_tensor_utils import _CacheKeyState
    from torch._subclasses.fake_tensor import FakeTensorMode

    from zerodesk.core.plan import Architecture
    from zerodesk.measure.worker.model import build_model, loss_fn

    torchs = FakeTensorMode._prep_args_for_hash
    walk = torch_compat._direct_key_walk()
    seen = {"direct": 0, "torch's": 0}

    def compared(self, result, args, state, id_hashed_objects):
        want, got = [], []
        torchs(self, want, args, _CacheKeyState(self.shape_env), [])
        try:
            walk(self, got, args)
        except torch_compat._KeyFallback:
            seen["torch's"] += 1
        else:
            seen["direct"] += 1
            assert got == want and list(map(type, got)) == list(map(type, want))
        torchs(self, result, args, state, id_hashed_objects)

    monkeypatch.setattr(FakeTensorMode, "_prep_args_for_hash", compared)
    arch = Architecture(family="custom", layers=2, hidden=64, heads=4, ffn=128, vocab=100, mlp="gated",
                        norm="rmsnorm", positions="rotary", tied_embeddings=True, bias="qkv", kv_heads=2)
    with torch_compat.fake_tensor_mode(), torch_compat.fake_cache_keys_direct():
        model = build_model(arch)
        optimizer = torch.optim.AdamW(model.parameters(), foreach=True)
        tokens = torch.randint(100, (2, 16))
        for _ in range(2):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = loss_fn(model(tokens), tokens)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    assert FakeTensorMode._prep_args_for_hash is compared  # put back as it was
    assert seen["direct"] > 100, seen
    monkeypatch.undo()

    class Odd:  # no plain value: torch's walk keys it by type and value
        def __hash__(self):
            return 7

    odd = Odd()
    with torch_compat.fake_tensor_mode() as mode, torch_compat.fake_cache_keys_direct():
        args = (torch.empty(3, 4), [1, odd], {"k": 2.0})
        rolled_back = ["kept"]
        FakeTensorMode._prep_args_for_hash(mode, rolled_back, args, _CacheKeyState(), [])
    want = ["kept"]
    torchs(mode, want, args, _CacheKeyState(), [])
    assert rolled_back == want and odd in want


def test_the_trackers_output_walk_is_torchs_own_for_plain_outputs():
    """direct_output_walk: a value that is no tensor and no container passes through untouched (prim.device's
    output, item()'s), as torch's tree_map_only returns it; tensors and lists of them are tracked in order."""
    from torch.distributed._tools import mem_tracker
    from torch.utils._pytree import tree_map_only

    t, u = torch.zeros(2), torch.ones(3)
    outputs = [None, 3, 2.5, True, 1j, "x", torch.device("cpu"), torch.float16, t, [t, u], (u, t), (t, 4),
               torch.Size([2, 3]), {"a": t}]
    with torch_compat.direct_output_walk():
        for out in outputs:
            mine, torchs = [], []
            got = mem_tracker.tree_map_only(torch.Tensor, lambda x: mine.append(x) or x, out)
            want = tree_map_only(torch.Tensor, lambda x: torchs.append(x) or x, out)
            assert [id(x) for x in mine] == [id(x) for x in torchs]
            assert type(got) is type(want) and (got is out or got == want)
def _units_step(tracked: bool) -> tuple[list[int], int]:
    """One step of four linear blocks in two FSDP2 units of two (fully_shard([b0, b1]), as the worker wraps them) on
    rank 0 of a fake world of 2, resharding after forward (stage 3): (how many gradients each post-backward
    reduce-scattered, how many all-gathers ran), under the worker's FSDPMemTracker or without one."""
    from torch import nn
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    from torch.distributed.fsdp._fully_shard._fsdp_param_group import FSDPParamGroup

    from zerodesk.measure.worker.simulate import fake_world

    reduced, gathers = [], [0]
    post_backward, unshard = FSDPParamGroup.post_backward, FSDPParamGroup.unshard

    def counting_post_backward(self, *args):
        reduced.append(sum(p.unsharded_param.grad is not None for p in self.fsdp_params
                           if hasattr(p, "_unsharded_param")))
        return post_backward(self, *args)

    def counting_unshard(self, async_op=False):
        if self._all_gather_result is None and not self.is_unsharded:
            gathers[0] += 1
        return unshard(self, async_op)

    mp = pytest.MonkeyPatch()
    mp.setattr(FSDPParamGroup, "post_backward", counting_post_backward)
    mp.setattr(FSDPParamGroup, "unshard", counting_unshard)
    try:
        with fake_world(2) as mesh:
            blocks = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))
            model = nn.Sequential(*blocks)
            policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
            for unit in ([blocks[0], blocks[1]], [blocks[2], blocks[3]]):
                fully_shard(unit, mesh=mesh, reshard_after_forward=True, mp_policy=policy)
            fully_shard(model, mesh=mesh, reshard_after_forward=True, mp_policy=policy)
            optimizer = torch.optim.AdamW(model.parameters(), foreach=False)
            x = torch.ones(4, 8, requires_grad=True)
            if tracked:
                tracker = torch_compat.fsdp_mem_tracker(model, optimizer)
                with tracker:
                    model(x).sum().backward()
            else:
                model(x).sum().backward()
    finally:
        mp.undo()
    return [n for n in reduced if n], gathers[0]


def test_the_tracker_keeps_an_fsdp2_unit_of_several_blocks_whole():
    """FSDPMemTracker re-hooked each module of a unit on its own (torch 2.13): a unit resharded and gathered again at
    every block, each block's gradients reduce-scattered alone. Tracked, the step is the untracked one: each unit
    gathered once in forward and once in backward, and reduce-scattered once, with both blocks' gradients."""
    untracked = _units_step(tracked=False)
    assert untracked == _units_step(tracked=True)
    assert sorted(untracked[0]) == [4, 4]  # two units of two blocks (weight and bias each); the root has none
    assert untracked[1] == 2 * 2  # two units, gathered in forward and again in backward (the root holds nothing)
