"""`zerodesk fit --verify` end to end: a real fake-tensor simulation (a subprocess) at the recommended boundary."""

from __future__ import annotations

import json

from test_fit import TINY, peak, plan_of, run


def test_verify_simulates_the_boundary_and_agrees():
    """A real fake-tensor simulation (a subprocess) at the recommended boundary: it fits, one more does not."""
    probe = plan_of({"architecture": TINY}, seq_len=32, profile="torch", micro_batch=4,
                    cluster={"nodes": 1, "gpus_per_node": 2})
    mid = (peak(probe, 2) + peak(probe, 2, micro_batch=5)) // 2  # the GPU between batch 4 and 5 at stage 2
    arch = [f"--{k.replace('_', '-')}={v}" for k, v in TINY.items() if k not in ("tied_embeddings", "kv_heads")]
    proc = run(*arch, "--kv-heads", "2", "--no-tied", "--seq", "32", "--batch", "2", "--dp", "2", "--profile", "torch",
               "--gpu-memory", str(mid), "--verify", "--json")
    assert proc.returncode == 0, proc.stderr
    v = json.loads(proc.stdout)["verify"]
    assert v["agrees"] and v["profile"] == "torch" and v["error"] is None
    assert v["simulated_bytes"] <= v["usable_bytes"] < v["simulated_above_bytes"]
    assert abs(v["simulated_bytes"] / v["predicted_bytes"] - 1) < 0.02
