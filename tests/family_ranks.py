"""One gloo rank that measures many plans in one process group (tests/test_family_measure.py).

Run as: python tests/family_ranks.py <plans.json>  with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set.
Each plan and stage goes through the ranks' own measure_stage (worker/step.py); rank 0 prints one JSON object of
{family: {stage: [[measured, predicted] per rank]}}.
"""

from __future__ import annotations

import json
import os
import sys

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh

from zerodesk.core.plan import Plan
from zerodesk.measure.worker.step import measure_stage


def main() -> None:
    plans = {k: Plan.model_validate(v) for k, v in json.loads(open(sys.argv[1]).read()).items()}
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    mesh = init_device_mesh("cpu", (world,))
    out: dict = {}
    for name, plan in plans.items():
        for stage in (0, 1, 2, 3):
            # No warm-up step: the states at rest are counted after the measured step, which makes AdamW's state
            # as a warm-up would have (the figures are the same byte for byte with warmup=1, a third more CPU)
            res = measure_stage(stage, plan, torch.device("cpu"), rank, world, lambda *a, **k: None, mesh,
                                warmup=0, samples=False)
            pair = [res.states.model_dump(), res.predicted_states.model_dump()]
            gathered = [None] * world if rank == 0 else None
            dist.gather_object(pair, gathered, dst=0)
            out.setdefault(name, {})[stage] = gathered
    dist.barrier()
    if rank == 0:
        print(json.dumps(out), flush=True)
    sys.stdout.flush()
    os._exit(0)  # FSDP2 on gloo may abort in interpreter teardown


if __name__ == "__main__":
    main()
