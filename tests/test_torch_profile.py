"""The torch profile by hand: closed forms for DDP, ZeroRedundancyOptimizer's greedy split and FSDP2 padding.

Byte-exact agreement with the real engines is checked in test_measure.py.
"""

import pytest

from zerodesk.core.torch_profile import fsdp2_rows, rank_runs, rank_states, torch_transient, zero_partition


def test_fsdp2_rows_follow_torch_chunk():
    assert fsdp2_rows(10, 4) == (3, [3, 3, 3, 1])  # padded shard of 3 rows; the last rank holds one real row
    assert fsdp2_rows(5, 4) == (2, [2, 2, 1, 0])  # torch.chunk makes 3 chunks; rank 3 gets an empty one
    assert fsdp2_rows(8, 4) == (2, [2, 2, 2, 2])
    assert fsdp2_rows(2, 4) == (1, [1, 1, 0, 0])


def test_fsdp2_one_tensor_dim0_10_on_4_ranks():
    ranks = rank_states([(10, 7)], 70, 3, 4)
    # Every rank stores 3 padded rows of params and of the reduce-scatter output (fp32).
    assert [r["params"] for r in ranks] == [3 * 7 * 4] * 4
    assert [r["grads"] for r in ranks] == [3 * 7 * 4] * 4
    # Adam's zeros_like sees only the real rows: 3, 3, 3, 1; plus one 4-byte step each.
    assert [r["optimizer"] for r in ranks] == [2 * 4 * 21 + 4] * 3 + [2 * 4 * 7 + 4]
    assert all(r["comm_buffers"] == 0 for r in ranks)
    assert rank_states([(10, 7)], 70, 2, 4) == ranks  # stage 2 rests like stage 3


def test_fsdp2_empty_shard_still_has_a_step():
    ranks = rank_states([(2,)], 2, 3, 4)
    assert [r["optimizer"] for r in ranks] == [12, 12, 4, 4]
    assert [r["params"] for r in ranks] == [4, 4, 4, 4]


def test_zero_greedy_assignment_by_hand():
    # numels 4, 10, 3, 3, 7 -> sorted (stable) 10, 7, 4, 3, 3
    # 10 -> r0 (0,0); 7 -> r1 (10,0); 4 -> r1 (10,7); 3 (idx 2) -> r0 (10,11); 3 (idx 3) -> r1 (13,11)
    assert zero_partition([4, 10, 3, 3, 7], 2) == [[1, 2], [4, 0, 3]]
    # ties go to the lowest rank; a rank may own nothing
    assert zero_partition([5, 5], 3) == [[0], [1], []]


def test_stage1_optimizer_is_whole_owned_tensors():
    shapes = [(4,), (10,), (3,), (3,), (7,)]
    ranks = rank_states(shapes, 27, 1, 2)
    assert ranks[0]["optimizer"] == 8 * (10 + 3) + 2 * 4
    assert ranks[1]["optimizer"] == 8 * (7 + 4 + 3) + 3 * 4
    for r in ranks:  # DDP keeps full fp32 params, grads and buckets everywhere
        assert (r["params"], r["grads"], r["comm_buffers"]) == (4 * 27, 4 * 27, 4 * 27)


def test_stage0_ddp_adamw():
    ranks = rank_states([(3, 5), (5,)], 20, 0, 3)
    assert ranks == [{"params": 80, "grads": 80, "optimizer": 160 + 8, "comm_buffers": 80}] * 3


def test_fsdp2_totals_and_padding_closed_form():
    shapes = [(101, 30), (30,), (10, 30), (50, 30)]
    p = 101 * 30 + 30 + 10 * 30 + 50 * 30
    dp = 4
    ranks = rank_states(shapes, p, 3, dp)
    # padded params: ceil(101/4)=26 rows, 8, 3, 13 rows of their widths
    assert ranks[0]["params"] == 4 * (26 * 30 + 8 + 3 * 30 + 13 * 30)
    # across ranks Adam holds exactly 8 bytes per real element plus one step per tensor per rank
    assert sum(r["optimizer"] for r in ranks) == 8 * p + 4 * len(shapes) * dp
    assert sum(r["params"] for r in ranks) > 4 * p  # the padding is real memory


def test_raw_count_is_even_and_without_steps():
    assert rank_states(None, 10, 3, 4) == [{"params": 12, "grads": 12, "optimizer": 24, "comm_buffers": 0}] * 4
    assert rank_states(None, 10, 1, 4)[0] == {"params": 40, "grads": 40, "optimizer": 24, "comm_buffers": 40}
    assert rank_states(None, 10, 0, 4)[0]["optimizer"] == 80


def test_cuda_keeps_adam_step_on_the_host():
    cpu = rank_states([(4, 4), (4,)], 20, 0, 2)
    cuda = rank_states([(4, 4), (4,)], 20, 0, 2, device="cuda")
    assert cpu[0]["optimizer"] - cuda[0]["optimizer"] == 2 * 4


def test_bad_arguments():
    with pytest.raises(ValueError):
        rank_states(None, 10, 4, 2)
    with pytest.raises(ValueError):
        rank_states(None, 10, 1, 0)


def test_fsdp2_fast_sum_equals_rank_by_rank_rows():
    import random
    from math import prod

    rng = random.Random(7)
    for _ in range(300):
        shapes = [tuple(rng.randint(1, 30) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 5))]
        dp = rng.randint(1, 40)
        ranks = rank_states(shapes, 0, 3, dp)
        for r in range(dp):
            rows = [fsdp2_rows(s[0], dp) for s in shapes]
            assert ranks[r]["params"] == sum(4 * chunk * prod(s[1:]) for (chunk, _), s in zip(rows, shapes))
            assert ranks[r]["optimizer"] == sum(8 * real[r] * prod(s[1:]) + 4 for (_, real), s in zip(rows, shapes))


def test_large_cluster_is_fast():
    import time

    shapes = [(128256, 8192)] + [(8192, 8192), (1024, 8192), (28672, 8192), (8192,)] * 400
    t0 = time.perf_counter()
    for stage in range(4):
        rank_states(shapes, 0, stage, 16384)
    assert time.perf_counter() - t0 < 2.0


def test_fsdp2_gathered_params_by_hand():

    named = [("embed.weight", (10, 4)), ("blocks.0.w", (6, 4)), ("blocks.1.w", (3, 4)), ("head.weight", (10, 4))]
    # padded all-gather rows on 4 ranks: 12, 8, 4, 12 -> elements 48, 32, 16, 48; bf16 = 2 bytes
    assert torch_transient(named, 2, 4) == {"gathered_params": 2 * (48 + 32 + 16 + 48)}
    assert torch_transient(named, 3, 4) == {"gathered_params": 2 * (48 + 48 + 32)}  # root + largest block
    assert torch_transient(named, 1, 4) == {"gathered_params": 0}


def test_hybrid_runs_repeat_the_group_and_refuse_a_group_that_does_not_divide():
    from zerodesk.core.torch_profile import hybrid_runs

    shapes = [(10, 7), (3,)]
    runs = hybrid_runs(shapes, 73, 3, 6, 3)
    assert [dict(s) for n, s in runs for _ in range(n)] == rank_states(shapes, 73, 3, 3) * 2
    assert sum(n for n, _ in runs) == 6
    assert hybrid_runs(shapes, 73, 2, 4, 4) == rank_runs(shapes, 73, 2, 4)  # N = Nd: one group, no replicas
    with pytest.raises(ValueError, match="shard group"):
        hybrid_runs(shapes, 73, 3, 6, 4)
