"""The data-parallel device mesh a rank (or the simulation's rank 0) runs on: flat, or hybrid (issue 24).

Without a shard group, or with one as large as the run, it is the 1-D mesh FSDP2 has always sharded over.
With a shard group N smaller than the world it is FSDP2's HSDP mesh: `init_device_mesh(device, (world/N, N),
mesh_dim_names=("replicate", "shard"))`, rows of N consecutive ranks that each hold a whole sharded copy.
Stages 2-3 pass it to fully_shard as it is; stage 1 runs ZeroRedundancyOptimizer in the mesh's "shard" group
(ZeRO-1 sharded within the group, replicated across groups, as HSDP does with its states); stage 0's DDP
replicates everything, whatever the group.
"""

from __future__ import annotations

from typing import Any

SHARD, REPLICATE = "shard", "replicate"


def data_parallel_mesh(device_type: str, world: int, shard_group: int) -> Any:
    """The mesh of `world` ranks for a shard group of `shard_group` (which divides world; job.run_shard_group)."""
    from torch.distributed.device_mesh import init_device_mesh

    if shard_group >= world:
        return init_device_mesh(device_type, (world,))
    return init_device_mesh(device_type, (world // shard_group, shard_group), mesh_dim_names=(REPLICATE, SHARD))


def is_hybrid(mesh: Any) -> bool:
    return mesh is not None and mesh.ndim == 2


def shard_group_size(mesh: Any, world: int) -> int:
    """N of the mesh: its shard dimension's size (the world for a flat mesh or none)."""
    return mesh.size(1) if is_hybrid(mesh) else world


def zero1_process_group(mesh: Any) -> Any:
    """The process group ZeroRedundancyOptimizer partitions over: the shard group, or None (every rank)."""
    return mesh.get_group(SHARD) if is_hybrid(mesh) else None
