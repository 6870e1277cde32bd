"""Random playouts entirely in compiled code: the C reference against ``bones.core.playout``.

Same fixed workload for each (``ROUNDS`` rounds), so the times in a group compare directly;
``extra_info`` holds placements and placements per second.  Targets (checked by
``bench/compare.py``): 2-player block >= 1/2 of the C reference's moves/s, 4-player straight
>= 1/8 of it.
"""

from __future__ import annotations

import pytest
import workloads

ROUNDS = 50_000
SEED = 12345


@pytest.mark.benchmark(group="playout")
def test_ref_block_c(benchmark, ref_block):
    """``play_round`` of ref_block.c (gcc -O2, via ctypes) for ROUNDS rounds."""
    play = ref_block.lib.ref_play_rounds
    moves = benchmark.pedantic(play, args=(ROUNDS,), rounds=7, iterations=1, warmup_rounds=1)
    workloads.record_moves(benchmark, moves)


@pytest.mark.benchmark(group="playout-executable")
def test_ref_block_executable(benchmark, ref_block):
    """``./ref_block 0.5 1`` as shipped: its own clock; moves/s in extra_info."""
    run = benchmark.pedantic(ref_block.run, args=(0.5,), rounds=1, iterations=1)
    benchmark.extra_info.update(
        moves=run.moves,
        moves_per_s=round(run.moves_per_s),
        moves_per_round=round(run.moves_per_round, 3),
        blocked=run.blocked,
    )


@pytest.mark.benchmark(group="playout")
@pytest.mark.parametrize(("variant", "players"), [("block", 2), ("straight", 4)])
def test_core_random_playouts(benchmark, core, variant, players):
    """``bones.core.playout.random_playouts(variant, players, ROUNDS, seed)``."""
    res = benchmark.pedantic(
        core.random_playouts,
        args=(variant, players, ROUNDS, SEED),
        rounds=7,
        iterations=1,
        warmup_rounds=1,
    )
    assert res["rounds"] == ROUNDS
    workloads.record_moves(benchmark, int(res["moves"]))
    benchmark.extra_info["moves_per_round"] = round(res["moves"] / res["rounds"], 3)
    benchmark.extra_info["blocked"] = round(res["blocked"] / res["rounds"], 3)
