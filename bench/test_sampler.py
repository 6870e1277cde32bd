"""Cost of the exact hidden-deal sampler (bones.core.sampler), per sample and per build.

Run: ``pytest bench/test_sampler.py --benchmark-only``.  Positions are mid-game: a seeded
deal played at random for ``MOVES`` moves, sampled from seat 0's observation."""

from __future__ import annotations

import random

import pytest

import bones
from bones.core.sampler import DealSampler

POSITIONS = [("straight", 2, 8), ("kozel", 4, 8), ("block", 4, 10), ("draw", 2, 10)]
SAMPLES = 1000


def mid_game(variant: str, players: int, moves: int, seed: int = 1) -> bones.Observation:
    rnd = bones.Round.deal(variant, players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if rnd.is_over:
            break
        rnd.play(rng.choice(list(rnd.legal_moves)))
    return rnd.observation(0)


@pytest.mark.parametrize("variant,players,moves", POSITIONS)
def test_sample_in_c(benchmark, variant, players, moves):
    """SAMPLES deals drawn in C (no Round objects): the cost per sample is the time / 1000."""
    sampler = DealSampler(mid_game(variant, players, moves))
    assert benchmark(sampler.run, SAMPLES, 1) == SAMPLES


@pytest.mark.parametrize("variant,players,moves", POSITIONS)
def test_build(benchmark, variant, players, moves):
    """Building the constraint set and counting it (once per observation)."""
    obs = mid_game(variant, players, moves)
    benchmark(DealSampler, obs)


@pytest.mark.parametrize("variant,players,moves", POSITIONS)
def test_sample_round(benchmark, variant, players, moves):
    """One sample as a Python Round (Round.from_deal with the moves replayed)."""
    sampler = DealSampler(mid_game(variant, players, moves))
    benchmark(sampler.sample, 1)
