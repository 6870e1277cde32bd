"""Python-driven loops: the choice made in Python, one engine call per decision.

Each benchmark plays the same number of rounds with the same policy (uniform over the legal
moves, ``random.Random.randrange``), deal included; ``extra_info["moves"]`` counts
placements only.  Targets (checked by ``bench/compare.py``): 2-player block >= 40x OpenSpiel's
``python_block_dominoes``; 4-player block >= 6x ``dominoes`` and >= 40x OpenSpiel's
``python_team_dominoes``; about 1 million moves/s.
"""

from __future__ import annotations

import pytest
import workloads

ROUNDS = 300
SEED = 2024


def _run(benchmark, play, rounds=5):
    moves = benchmark.pedantic(play, args=(ROUNDS, SEED), rounds=rounds, iterations=1)
    workloads.record_moves(benchmark, moves)
    benchmark.extra_info["moves_per_round"] = round(moves / ROUNDS, 3)


@pytest.mark.benchmark(group="python-loop-block-2p")
def test_bones_block_2p(benchmark, bones_api):
    _run(benchmark, lambda n, s: workloads.bones_loop("block", 2, n, s), rounds=10)


@pytest.mark.benchmark(group="python-loop-block-2p")
def test_openspiel_block_2p(benchmark, pyspiel):
    _run(benchmark, lambda n, s: workloads.openspiel_loop(workloads.OS_BLOCK, n, s))


@pytest.mark.benchmark(group="python-loop-block-4p")
def test_bones_block_4p(benchmark, bones_api):
    _run(benchmark, lambda n, s: workloads.bones_loop("block", 4, n, s), rounds=10)


@pytest.mark.benchmark(group="python-loop-block-4p")
def test_dominoes_4p(benchmark, dominoes_pkg):
    _run(benchmark, workloads.dominoes_loop)


@pytest.mark.benchmark(group="python-loop-block-4p")
def test_openspiel_team_4p(benchmark, pyspiel):
    _run(benchmark, lambda n, s: workloads.openspiel_loop(workloads.OS_TEAM, n, s))
