"""Random playouts of the train games entirely in compiled code
(``bones.core.trains.random_playouts``): Mexican Train with 4 players on the double-12 set
and Chicken Foot with 4 players on the double-9 set.

Same fixed workload for each (``ROUNDS`` rounds, default hand sizes), so the times compare
across runs; ``extra_info`` holds placements and placements per second, rounds per second,
placements and events (placements, draws, passes) per round and the blocked share.
"""

from __future__ import annotations

import pytest
import workloads

ROUNDS = 20_000
SEED = 12345

# (layout, set_max, players, hand_size, options): the variants' standard deals
# (bones.variant.STANDARD_HANDS: 15 tiles each with double-12, 7 for Chicken Foot's double-9)
GAMES = {
    "mexican-train-4p-d12": ("trains", 12, 4, 15, {}),
    "chicken-foot-4p-d9": ("chicken_foot", 9, 4, 7, {}),
}


@pytest.fixture(scope="module")
def trains():
    return pytest.importorskip("bones.core.trains", reason="the compiled core is not built")


@pytest.mark.benchmark(group="trains-playout")
@pytest.mark.parametrize("game", list(GAMES))
def test_trains_random_playouts(benchmark, trains, game):
    """``random_playouts(layout, set_max, 4, hand_size, ROUNDS, SEED)``."""
    layout, set_max, players, hand_size, options = GAMES[game]
    res = benchmark.pedantic(
        trains.random_playouts,
        args=(layout, set_max, players, hand_size, ROUNDS, SEED),
        kwargs=options,
        rounds=7,
        iterations=1,
        warmup_rounds=1,
    )
    assert res["rounds"] == ROUNDS
    workloads.record_moves(benchmark, int(res["plies"]))
    stats = getattr(benchmark, "stats", None)
    if stats is not None and stats.stats.median:
        benchmark.extra_info["rounds_per_s"] = round(ROUNDS / stats.stats.median)
    benchmark.extra_info["moves_per_round"] = round(res["plies"] / ROUNDS, 3)
    benchmark.extra_info["events_per_round"] = round(res["events"] / ROUNDS, 3)
    benchmark.extra_info["blocked"] = round(res["blocked"] / ROUNDS, 3)
