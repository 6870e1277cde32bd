"""Time per decision of the compiled bots (the issue's budget for ``expert``: 50 µs).

Run: ``python -m pytest bench/test_bots.py --benchmark-only``.  Each benchmark makes one
decision in each of ``POSITIONS`` mid-round positions (random moves from seeded deals,
as bench/strength.py), so the time per decision is the time / POSITIONS."""

from __future__ import annotations

import pytest
from strength import positions

import bones

POSITIONS = 40
CONFIGS = [("straight", 2), ("straight", 4), ("block", 4), ("kozel", 4), ("draw", 2)]


def decide_all(bot: bones.Bot, work: list[tuple[bones.Observation, tuple[bones.Move, ...]]]):
    for obs, legal in work:
        bot.choose(obs, legal)


@pytest.mark.parametrize("spec", ["expert", "greedy"])
@pytest.mark.parametrize("variant,players", CONFIGS)
def test_decisions(benchmark, spec, variant, players):
    work = [
        (r.observation(r.to_move), tuple(r.legal_moves))
        for r in positions(variant, players, POSITIONS)
    ]
    bot = bones.make_bot(spec, seed=1)
    decide_all(bot, work[:1])  # warm up: the variant's compiled rules, the weights
    benchmark(decide_all, bot, work)
