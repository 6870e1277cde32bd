"""The Monte Carlo bot: deterministic, legal everywhere, and stronger than greedy."""

from __future__ import annotations

import pytest
from helpers import CASES

import bones
from bones.bot import play_round


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_plays_every_variant_to_the_end(variant: str, players: int) -> None:
    for seed in range(3):
        rnd = bones.Round.deal(variant, players=players, seed=seed)
        bots = [bones.make_bot("montecarlo:simulations=30", seed=seed + s) for s in range(players)]
        result = play_round(rnd, bots)
        assert rnd.is_over and result == rnd.result


def test_same_seed_same_choices_and_reset() -> None:
    def moves(bot: bones.Bot) -> list[str]:
        rnd = bones.Round.deal("straight", players=2, seed=11)
        out = []
        while not rnd.is_over:
            seat = rnd.to_move
            assert seat is not None
            move = bot.choose(rnd.observation(seat), tuple(rnd.legal_moves))
            out.append(str(move))
            rnd.play(move)
        return out

    bot = bones.make_bot("montecarlo:simulations=40,seed=5")
    first = moves(bot)
    assert moves(bones.make_bot("montecarlo:simulations=40,seed=5")) == first
    bot.reset()
    assert moves(bot) == first


def _gain(rnd: bones.Round, side: int) -> int:
    result = rnd.result
    assert result is not None
    return rnd.scores[side] + result.points[side]


def test_beats_greedy_on_duplicate_deals() -> None:
    margin = 0
    for seed in range(60):
        for mc_seat in (0, 1):
            rnd = bones.Round.deal("straight", players=2, seed=seed)
            bots = [bones.make_bot("greedy") for _ in range(2)]
            bots[mc_seat] = bones.make_bot("montecarlo:simulations=200", seed=seed)
            play_round(rnd, bots)
            margin += _gain(rnd, mc_seat) - _gain(rnd, 1 - mc_seat)
    assert margin > 0, margin
