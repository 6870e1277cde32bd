"""The train games' belief model (TrainSampler.weighed_deal, pimc's ``infer`` there): a
deal's log-likelihood is the one a plain replay of that deal gives, choice by choice."""

from __future__ import annotations

import math
import random

import pytest
from test_trainsample_exact import replayed_round

from bones.bot import make_bot
from bones.core.trains import TrainRound
from bones.core.trainsample import MAX_BETA, TrainSampler
from bones.core.trainsearch import pimc
from bones.observation import TrainObservation


def positions(layout, set_max, players, seed, every=4):
    """Positions of a round played by the chain heuristic's planner (``expert``): real
    choices, heavy tiles laid off the own train first."""
    r = TrainRound.deal(layout, set_max=set_max, players=players, seed=seed)
    bot = make_bot("expert")
    rng = random.Random(seed)
    k = 0
    while not r.is_over:
        if k % every == every - 1:
            yield r.copy()
        k += 1
        if rng.random() < 0.3:
            r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
        else:
            obs = r.observation(r.to_move)
            r.play(bot.choose(obs, obs.legal_moves))


def pips(tile: str) -> int:
    a, b = tile.split("-")
    return int(a) + int(b)


def replayed_log_likelihood(obs: TrainObservation, hands, stock, beta: float) -> float:
    """The model's log-likelihood by replaying the full deal placement by placement: at
    each placement of another seat that is not on its own train and not of a tile it has
    just drawn, a softmax over the tiles of its legal moves then (not on its own train)."""
    log = list(obs.log)
    place_events = [e for e, ev in enumerate(log) if ev[0] == "place"]
    ll = 0.0
    for i, e in enumerate(place_events):
        _, who, tile, where = log[e]
        if who == obs.seat or (e > 0 and log[e - 1][0] == "draw" and log[e - 1][1] == who):
            continue
        own = f"P{who}"
        if obs.layout_name == "trains" and where == own:
            continue
        r = replayed_round(obs, hands, stock, i)
        assert r.to_move == who
        offered = {
            str(m.tile)
            for m in r.legal_moves
            if obs.layout_name == "chicken_foot" or not str(m).endswith("@" + own)
        }
        assert tile in offered
        if len(offered) < 2:
            continue
        ll += beta * pips(tile) - math.log(sum(math.exp(beta * pips(x)) for x in offered))
    return ll


@pytest.mark.parametrize(
    ("layout", "set_max", "players"),
    [("trains", 12, 4), ("trains", 9, 3), ("chicken_foot", 9, 4), ("trains", 12, 8)],
)
def test_the_log_likelihood_is_the_replayed_one(layout, set_max, players):
    compared = informative = 0
    for seed in range(2):
        for r in positions(layout, set_max, players, seed):
            obs = r.observation(r.to_move)
            sampler = TrainSampler(obs)
            if sampler.method != "exact":
                continue
            for k in range(2):
                beta = (0.05, 0.4)[k]
                hands, stock = sampler.full_deal(k)
                cur, rest, ll = sampler.weighed_deal(k, beta)
                assert (cur, rest) == sampler.deal(k)  # the same deal as deal(k)
                expected = replayed_log_likelihood(obs, hands, stock, beta)
                assert ll == pytest.approx(expected, abs=1e-9)
                assert ll <= 0
                compared += 1
                informative += ll < 0
    assert compared > 20
    assert informative > compared // 3


def test_no_sharpness_weighs_every_deal_alike():
    r = next(positions("trains", 12, 4, 3, every=30))
    sampler = TrainSampler(r.observation(r.to_move))
    for k in range(5):
        hands, stock, ll = sampler.weighed_deal(k, 0.0)
        assert ll == 0.0
        assert (hands, stock) == sampler.deal(k)


def test_a_light_tile_laid_off_the_own_train_makes_heavy_holdings_unlikely():
    """Seat 1 opened the Mexican train with 12-0, its lightest 12: the seat to move then
    believes it holds fewer of the unseen 12s (12-4 to 12-9) than the uniform sampler
    gives it, and the more so the sharper the model."""
    tiles = [f"{a}-{b}" for a in range(12, -1, -1) for b in range(a, -1, -1)][1:]
    fixed = {0: ["12-11"], 1: ["12-0", "12-1", "12-2", "12-3"], 2: ["12-10"]}
    rest = [t for t in tiles if t not in sum(fixed.values(), [])]
    rest = [t for t in rest if not t.startswith("12-")] + [t for t in rest if t.startswith("12-")]
    hands = []
    for seat in range(4):
        hand = fixed.get(seat, [])
        hands.append(hand + rest[: 15 - len(hand)])
        rest = rest[15 - len(hand) :]
    r = TrainRound.from_deal("trains", set_max=12, hands=hands, stock=rest, engine=12,
                             moves=["12-11@P0", "12-0@M"])  # fmt: skip
    obs = r.observation(2)
    sampler = TrainSampler(obs)
    assert sampler.method == "exact"
    means = []
    for beta in (0.0, 0.2, 1.0):
        weighed = total = 0.0
        for k in range(600):
            held, _, ll = sampler.weighed_deal(k, beta)
            weighed += math.exp(ll) * sum(1 for t in held[1] if t.startswith("12-"))
            total += math.exp(ll)
        means.append(weighed / total)
    assert means[0] > means[1] > means[2]


def test_bad_sharpness_and_blank_samplers_are_refused():
    r = next(positions("trains", 12, 4, 1, every=20))
    sampler = TrainSampler(r.observation(r.to_move))
    for beta in (-0.1, MAX_BETA * 2, float("nan")):
        with pytest.raises(ValueError, match="beta"):
            sampler.weighed_deal(1, beta)
    sampler.weighed_deal(1, MAX_BETA)  # the sharpest model stays finite
    blank = TrainSampler.__new__(TrainSampler)
    with pytest.raises(ValueError, match="made from an observation"):
        blank.weighed_deal(1, 0.1)


def test_pimc_with_a_belief_is_deterministic_and_legal():
    for r in positions("trains", 12, 4, 2, every=10):
        obs = r.observation(r.to_move)
        legal = obs.legal_moves
        a = pimc(obs, legal, samples=30, time_ms=0.0, seed=7, gate=1.0, infer=0.3)
        b = pimc(obs, legal, samples=30, time_ms=0.0, seed=7, gate=1.0, infer=0.3)
        assert a == b
        assert a[0] in legal
    with pytest.raises(ValueError, match="infer"):
        pimc(obs, legal, samples=30, time_ms=0.0, seed=7, gate=1.0, infer=-1.0)
    with pytest.raises(ValueError, match="infer"):
        pimc(obs, legal, samples=30, time_ms=0.0, seed=7, gate=1.0, infer=MAX_BETA + 1)
