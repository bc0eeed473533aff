"""Hybrid sharding (issue 24) in closed form: the shard group in the plan, the paper and torch profiles with it,
ZeRO++'s hpZ, and the communication each rank sends over each link, counted by hand.

The real ranks (4 gloo ranks as 2 groups of 2, byte for byte) are in test_hsdp_ranks.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from zerodesk.core.accounting import comm_by_link, compute, sweep_dp, sweep_hybrid
from zerodesk.core.architecture import Architecture
from zerodesk.core.comm_links import split
from zerodesk.core.plan import Cluster, ModelSpec, Plan, PlanError, explain
from zerodesk.core.torch_profile import hybrid_runs, rank_states

GB = 10**9


def plan(params=8 * GB, nodes=4, gpus=8, group=None, **kw) -> Plan:
    cluster = {"nodes": nodes, "gpus_per_node": gpus, "shard_group": group, **kw.pop("cluster", {})}
    return Plan(model={"params": params}, cluster=cluster, **kw)


# -- the plan ------------------------------------------------------------------------------------------------------
def test_shard_group_defaults_to_nd_and_changes_nothing():
    flat, default, full = plan(), plan(group=None), plan(group=32)
    assert default.shard_size == full.shard_size == 32 and default.replicas == 1
    for other in (default, full):
        a, b = compute(flat), compute(other)
        assert [(s.components, s.comm_bytes, s.formula) for s in a.stages] == \
            [(s.components, s.comm_bytes, s.formula) for s in b.stages]


@pytest.mark.parametrize("group", [3, 5, 64])
def test_a_shard_group_must_divide_nd(group):
    with pytest.raises(ValueError) as err:
        plan(group=group)
    assert explain(err.value) == f"cluster.shard_group: shard_group ({group}) must divide the data-parallel degree Nd (32)"


def test_shard_group_in_the_plan_file_round_trips():
    from zerodesk.core.plan import plan_from_json, plan_to_json

    p = plan(group=8, hybrid="hpz", cluster={"intra_node_gbps": 300.0, "inter_node_gbps": 25.0})
    back = plan_from_json(plan_to_json(p))
    assert back == p and back.cluster.shard_group == 8 and back.hybrid.value == "hpz"
    with pytest.raises(PlanError, match="shard_group"):  # a file says it too, in one sentence
        plan_from_json(plan_to_json(p).replace('"shard_group": 8', '"shard_group": 7'))


def test_hpz_is_a_paper_profile_choice():
    with pytest.raises(ValueError, match="hpz .* paper-profile choice"):
        plan(group=8, hybrid="hpz", profile="torch")


# -- the paper profile ---------------------------------------------------------------------------------------------
def test_paper_8b_nd32_group8_stage3_is_16_gb_exactly():
    b = compute(plan(group=8))
    assert b.stage(3).total_bytes == 16 * GB  # (4 + K) P / N = 16 x 8e9 / 8
    assert b.stage(3).formula == "16P/N"
    # the other stages with N in place of Nd for what is sharded: 4P + 12P/N, 2P + 14P/N
    assert [s.total_bytes for s in b.stages] == [128 * GB, 44 * GB, 30 * GB, 16 * GB]
    assert [s.formula for s in b.stages] == ["16P", "4P + 12P/N", "2P + 14P/N", "16P/N"]
    assert compute(plan()).stage(3).total_bytes == 4 * GB  # flat: 16P/32


def test_hsdp_is_flat_in_nd_past_the_group():
    p = plan(group=8)
    grid = [1, 4, 8, 12, 16, 64, 1024]
    hybrid, flat = sweep_hybrid(p, grid), sweep_dp(p, grid)
    assert hybrid[3] == [None, None, 16 * GB, None, 16 * GB, 16 * GB, 16 * GB]  # only where 8 divides Nd
    assert flat[3][grid.index(8)] == 16 * GB and flat[3][-1] == 16 * 8 * GB // 1024
    assert hybrid[1][2:] == [44 * GB, None, 44 * GB, 44 * GB, 44 * GB]


def test_hpz_adds_a_secondary_16_bit_shard_at_stage_3_only():
    hpz, flat = compute(plan(group=8, hybrid="hpz")), compute(plan())
    for s in (0, 1, 2):
        assert hpz.stage(s).components == flat.stage(s).components
    # 16P/Nd + 2P/N: 4 GB + 2 GB, the secondary shard counted with the (16-bit) parameters
    assert hpz.stage(3).total_bytes == 6 * GB and hpz.stage(3).formula == "16P/Nd + 2P/N"
    assert hpz.stage(3).components["params"] == flat.stage(3).components["params"] + 2 * GB


# -- the torch profile: FSDP2 on a 2-D mesh (replicate, shard) ------------------------------------------------------
SHAPES = [(7, 5), (7,), (3, 7), (3,)]  # 35 + 7 + 21 + 3 = 66 parameters


def test_hsdp_rank_r_holds_what_rank_r_mod_n_of_n_holds():
    for stage in range(4):
        ranks = [dict(s) for n, s in hybrid_runs(SHAPES, 66, stage, 4, 2) for _ in range(n)]
        assert ranks == rank_states(SHAPES, 66, stage, 2) * 2


def test_hsdp_pads_dim0_to_the_group_by_hand():
    # N = 2: (7, 5) -> chunks of 4 rows, so every rank stores 4 x 5 padded fp32 elements; (7,) -> 4; (3, 7) -> 2 x 7;
    # (3,) -> 2. Padded per rank: 20 + 4 + 14 + 2 = 40 elements = 160 B of params and of grads.
    # AdamW holds the real rows: group rank 0 has 4x5 + 4 + 2x7 + 2 = 40, group rank 1 has 3x5 + 3 + 1x7 + 1 = 26,
    # two fp32 states each plus a 4-byte step per tensor.
    ranks = [dict(s) for n, s in hybrid_runs(SHAPES, 66, 3, 4, 2) for _ in range(n)]
    assert [r["params"] for r in ranks] == [160] * 4 and [r["grads"] for r in ranks] == [160] * 4
    assert [r["optimizer"] for r in ranks] == [8 * 40 + 16, 8 * 26 + 16] * 2
    # flat over 4 the same tensors pad to 2 + 2 + 1 + 1 rows: (2x5 + 2 + 7 + 1) x 4 B = 80 B
    assert rank_states(SHAPES, 66, 3, 4)[0]["params"] == 80


def test_hsdp_zero1_partitions_within_the_group():
    # ZeroRedundancyOptimizer(process_group=the shard group): 35 -> group rank 0; 21, 7, 3 -> group rank 1
    ranks = [dict(s) for n, s in hybrid_runs(SHAPES, 66, 1, 4, 2) for _ in range(n)]
    assert [r["optimizer"] for r in ranks] == [8 * 35 + 4, 8 * 31 + 12] * 2  # measured too: 71 and 65 elements


def test_torch_breakdown_follows_the_group():
    arch = Architecture(layers=2, hidden=64, heads=4, ffn=128, vocab=256)
    shaped = Plan(model=ModelSpec(architecture=arch), profile="torch", cluster=Cluster(nodes=2, gpus_per_node=4,
                                                                                      shard_group=4))
    b = compute(shaped)
    want = compute(Plan(model=ModelSpec(architecture=arch), profile="torch", cluster=Cluster(nodes=1, gpus_per_node=4)))
    for s in range(4):
        assert b.stage(s).components == want.stage(s).components
        assert b.stage(s).rank_totals == want.stage(s).rank_totals * 2
    assert b.stage(3).formula == "16P/N (dim 0 padded)"


# -- communication by link, by hand ----------------------------------------------------------------------------------
def test_ring_split_by_hand():
    # 8 ranks, 4 per node: 7/8 of S per rank; 2 of the ring's 8 hops cross nodes, so 1/4 of it goes between nodes
    assert split("all-gather", Fraction(800), 8, Fraction(4)) == (Fraction(525), Fraction(175))
    assert split("all-reduce", Fraction(800), 8, Fraction(4)) == (Fraction(1050), Fraction(350))
    assert split("reduce-scatter", Fraction(800), 4, Fraction(4)) == (Fraction(600), Fraction(0))  # inside a node
    assert split("broadcast", Fraction(800), 2, Fraction(1)) == (Fraction(0), Fraction(400))  # one rank per node
    assert split("all-reduce", Fraction(800), 1, Fraction(1)) == (Fraction(0), Fraction(0))


def _links(p: Plan) -> list[tuple[int, int]]:
    return [(c.intra_node_bytes, c.inter_node_bytes) for c in comm_by_link(p)]


G = GB  # P = 1e9 parameters; mixed-precision Adam moves FP16, so S = 2 GB for gradients and for parameters


def test_comm_by_link_2_nodes_x_4_gpus_flat():
    """Nd = 8, no shard group. A ring over 8 ranks sends 7/8 S per rank, 1/4 of it between nodes (4 per node).

    stage 0: all-reduce 2 x 2 GB x 7/8 = 3.5 GB: 2.625 inside, 0.875 between.
    stages 1-2: all-gather 1.75 GB (1.3125 + 0.4375) and reduce-scatter 1.75 GB: 2.625 inside, 0.875 between.
    stage 3: a second all-gather: 3.9375 inside, 1.3125 between."""
    p = plan(params=G, nodes=2, gpus=4)
    assert _links(p) == [(2_625_000_000, 875_000_000)] * 3 + [(3_937_500_000, 1_312_500_000)]


def test_comm_by_link_2_nodes_x_4_gpus_shard_group_is_the_node():
    """N = 4 (a node), 2 replicas. All-gathers and the reduce-scatter stay in the node: 2 GB x 3/4 = 1.5 GB each.
    The replicas all-reduce one shard, 2 GB / 4 = 0.5 GB, over 2 ranks one per node: 2 x 0.5 x 1/2 = 0.5 GB between.

    stage 0 (DDP, nothing sharded): as flat, 2.625 / 0.875. stages 1-2: 3.0 inside, 0.5 between.
    stage 3: 4.5 inside, 0.5 between; at 450 and 50 GB/s that is 10 ms on each link."""
    p = plan(params=G, nodes=2, gpus=4, group=4)
    assert _links(p) == [(2_625_000_000, 875_000_000), (3 * G, G // 2), (3 * G, G // 2), (4_500_000_000, G // 2)]
    three = comm_by_link(p)[3]
    assert three.intra_node_seconds == pytest.approx(0.010) and three.inter_node_seconds == pytest.approx(0.010)
    assert [(c.op, c.group, c.size) for c in three.collectives] == [
        ("all-gather", "shard", 4), ("all-gather", "shard", 4), ("reduce-scatter", "shard", 4),
        ("all-reduce", "replicate", 2)]


def test_comm_by_link_2_nodes_x_4_gpus_shard_group_of_2():
    """N = 2, 4 replicas {0,2,4,6} and {1,3,5,7}: 2 per node. In-group collectives: 2 GB x 1/2 = 1 GB each, inside.
    The replicas all-reduce 2 GB / 2 = 1 GB over 4 ranks: 2 x 1 x 3/4 = 1.5 GB, half of it (2 per node) between.

    stages 1-2: 1 + 1 + 0.75 = 2.75 inside, 0.75 between. stage 3: 3.75 inside, 0.75 between."""
    p = plan(params=G, nodes=2, gpus=4, group=2)
    assert _links(p)[1:] == [(2_750_000_000, 750_000_000)] * 2 + [(3_750_000_000, 750_000_000)]


def test_comm_by_link_2_nodes_x_4_gpus_torch_engines():
    """torch, N = 4: DDP all-reduces FP32 gradients, 2 x 4 GB x 7/8 = 7 GB (5.25 inside, 1.75 between);
    stage 1 adds ZeroRedundancyOptimizer's FP32 broadcasts in the group, 4 GB x 3/4 = 3 GB inside;
    FSDP2: all-gather BF16 2 GB x 3/4 = 1.5, reduce-scatter FP32 4 GB x 3/4 = 3 (inside), the replicas' FP32
    all-reduce of 1 GB, 2 x 1 x 1/2 = 1 GB between. Stage 2: 4.5 / 1; stage 3 gathers again: 6 / 1."""
    p = plan(params=G, nodes=2, gpus=4, group=4, profile="torch")
    assert _links(p) == [(5_250_000_000, 1_750_000_000), (8_250_000_000, 1_750_000_000),
                         (4_500_000_000, G), (6 * G, G)]


def test_comm_by_link_2_nodes_x_4_gpus_hpz():
    """hpZ, N = 4: stage 3 all-gathers forward over all 8 (1.3125 + 0.4375), backward from the secondary shard
    inside the node (1.5), and reduce-scatters over all 8 (1.3125 + 0.4375): 4.125 inside, 0.875 between."""
    p = plan(params=G, nodes=2, gpus=4, group=4, hybrid="hpz")
    assert _links(p) == [(2_625_000_000, 875_000_000)] * 3 + [(4_125_000_000, 875_000_000)]


def test_comm_total_is_section_7_with_the_ring_factor_without_a_group():
    for nd, gpus in ((8, 8), (64, 8), (6, 3)):
        p = plan(params=3 * GB + 7, nodes=nd // gpus, gpus=gpus)
        b = compute(p)
        for s in b.stages:
            elements = 2 if s.stage < 3 else 3  # §7: 2Ψ, stage 3 3Ψ, FP16
            assert s.comm_bytes == elements * 2 * p.params * (nd - 1) // nd
            c = comm_by_link(p)[s.stage]
            assert c.total_bytes == s.comm_bytes and c.intra_node_bytes + c.inter_node_bytes in (s.comm_bytes,
                                                                                                 s.comm_bytes - 1)


def test_hsdp_moves_less_between_nodes_than_flat_stage_3():
    """8B over 4 nodes x 8 GPUs: flat stage 3 sends 3 x 16 GB x 31/32 / 8 = 5.8125 GB per rank between nodes,
    HSDP with N = 8 only the replicas' all-reduce of a 2 GB shard, 2 x 2 x 3/4 = 3 GB."""
    flat, hsdp = comm_by_link(plan())[3], comm_by_link(plan(group=8))[3]
    assert flat.inter_node_bytes == 5_812_500_000 and hsdp.inter_node_bytes == 3 * GB
    assert flat.inter_node_seconds == pytest.approx(5.8125 / 50) and hsdp.inter_node_seconds == pytest.approx(3 / 50)


def test_the_bandwidths_come_from_the_plan():
    p = plan(params=G, nodes=2, gpus=4, group=4, cluster={"intra_node_gbps": 150.0, "inter_node_gbps": 25.0})
    three = comm_by_link(p)[3]
    assert three.intra_node_seconds == pytest.approx(4.5 / 150) and three.inter_node_seconds == pytest.approx(0.5 / 25)
    assert three.lower_bound_seconds == max(three.intra_node_seconds, three.inter_node_seconds)
