"""The observation tensor (docs/envs.md): its planes, its voids, no hidden information."""

from __future__ import annotations

import random
from array import array

import numpy as np
import pytest
from helpers import CASES

from bones import Round
from bones.core.tensor import TensorSpec

OPTION_CASES = [(name, players, {}) for name, players in CASES] + [
    ("straight", 2, {"muggins_claim": True}),
    ("straight", 3, {"spinner_rule": "all_doubles"}),
    ("straight", 2, {"spinner_rule": "none", "may_draw_with_playable": True}),
    ("multiplayer", 2, {"voluntary_pass": True, "stock_reserve": 0}),
]


def planes(round_, seat):
    spec = round_.tensor_spec
    t = np.asarray(round_.observation_tensor(seat))
    return {name: t[k : k + int(np.prod(shape))].reshape(shape) for name, k, shape in spec.planes}


def positions(variant, players, options, rounds=4, seed=0):
    rng = random.Random(seed)
    for k in range(rounds):
        r = Round.deal(variant, players, seed=seed * 100 + k, **options)
        while True:
            yield r
            if r.is_over:
                break
            r.play(rng.choice(r.legal_actions))


def tiles_with(number):
    return {t for t in range(28) if number in _HALVES[t]}


_HALVES = [(hi, lo) for lo in range(7) for hi in range(lo, 7)]


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_planes_say_what_the_round_says(variant, players, options):
    spec = TensorSpec(variant, players, **options)
    assert sum(int(np.prod(shape)) for _, _, shape in spec.planes) == spec.size
    for r in positions(variant, players, options, rounds=2):
        for seat in range(players):
            p = planes(r, seat)
            assert {i for i in range(28) if p["hand"][i]} == {t.index for t in r.hand(seat)}
            placed = {t.index for m in r.layout for t in (m.tile, m.tile2) if t is not None}
            assert {i for i in range(28) if p["table"][i]} == placed
            sizes = [r.hand_sizes[(seat + k) % players] for k in range(players)]
            assert list(p["hand_sizes"]) == sizes
            assert p["stock"][0] == r.stock_size and p["count"][0] == r.count
            side, n_sides = r.side_of(seat), len(r.sides)
            assert list(p["scores"]) == [r.scores[(side + k) % n_sides] for k in range(n_sides)]
            turn = [0.0] * players
            if not r.is_over:
                turn[(r.to_move - seat) % players] = 1.0
            assert list(p["to_move"]) == turn
            live = [(int(row[:7].argmax()), bool(row[7])) for row in p["ends"] if row[:7].any()]
            assert sorted(v for v, ok in live if ok) == sorted(v for _, v in r.ends)
            for number in range(7):
                shown = sum(1 for t in placed if number in _HALVES[t])
                assert p["numbers"][number] == shown


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_voids_hold_in_the_real_deal(variant, players, options):
    found = 0
    for r in positions(variant, players, options, rounds=12, seed=1):
        for seat in range(players):
            voids = planes(r, seat)["voids"]
            known = {t.index for t in r.hand(seat)} | {
                t.index for m in r.layout for t in (m.tile, m.tile2) if t is not None
            }
            for k in range(1, players):
                held = {t.index for t in r.hand((seat + k) % players)}
                for number in range(7):
                    if voids[k - 1][number]:
                        assert not held & tiles_with(number), (r, seat, k, number)
                        found += not tiles_with(number) <= known
    assert found  # passes and forced draws do show voids


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_no_hidden_information(variant, players, options):
    """Another deal consistent with what the seat sees gives the same tensor, and the voids
    hold in each such deal."""
    rng = random.Random(7)
    checked = 0
    for r in positions(variant, players, options, rounds=3, seed=2):
        if rng.random() > 0.3:
            continue
        for seat in range(players):
            mine = np.asarray(r.observation_tensor(seat))
            voids = planes(r, seat)["voids"]
            obs = r.observation(seat)
            for _ in range(2):
                other = obs.sample(rng.randrange(2**32))
                assert other.observation(seat) == obs
                assert np.array_equal(np.asarray(other.observation_tensor(seat)), mine)
                for j in range(1, players):
                    held = {t.index for t in other.hand((seat + j) % players)}
                    for number in range(7):
                        assert not (voids[j - 1][number] and held & tiles_with(number))
                checked += 1
    assert checked


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_returns_are_zero_sum_and_follow_the_result(variant, players, options):
    for r in positions(variant, players, options, rounds=3, seed=3):
        ret = r.returns()
        assert len(ret) == players and abs(sum(ret)) < 1e-3
        gain = list(r.scores)  # the rounds are dealt at 0-0
        if r.is_over:
            for side, points in enumerate(r.result.points):
                if variant == "kozel":
                    gain[side] -= points  # Kozel's award is a penalty
                elif variant != "block" or points > 0:
                    gain[side] += points
        n = len(gain)
        for seat in range(players):
            mine = gain[r.side_of(seat)]
            assert ret[seat] == pytest.approx(mine - (sum(gain) - mine) / (n - 1))
        if r.is_over and variant != "straight" and len(r.result.winners) == 1:
            (winner,) = r.result.winners
            assert all(ret[s] == max(ret) for s in r.sides[winner])


def test_returns_of_a_block_round_are_the_award():
    r = next(p for p in positions("block", 2, {}, rounds=1) if p.is_over)
    w = r.result.winners[0] if r.result.winners else None
    award = max(r.result.points)
    assert r.returns() == (
        (0.0, 0.0) if w is None else tuple(award if s == w else -award for s in range(2))
    )


def test_tensor_buffers():
    r = Round.deal("straight", 2, seed=1)
    size = r.tensor_spec.size
    out = np.full(size, 9, np.float32)
    assert r.observation_tensor(1, out) is out
    default = r.observation_tensor(1)
    assert isinstance(default, array) and list(default) == list(out)
    with pytest.raises(ValueError, match=f"{size} floats"):
        r.observation_tensor(0, np.zeros(size + 1, np.float32))
    for bad in (np.zeros(size, np.float64), bytearray(4 * size), b"\0" * 4 * size, 1j):
        with pytest.raises(TypeError):
            r.observation_tensor(0, bad)
    with pytest.raises(TypeError):
        r.observation_tensor(0, np.zeros((size, 2), np.float32)[:, 0])
    for seat in (2, -1, True, "0"):
        with pytest.raises((ValueError, TypeError)):
            r.observation_tensor(seat)


def test_a_spec_made_without_its_constructor_is_safe():
    spec = TensorSpec.__new__(TensorSpec)
    assert spec.size == 0
    with pytest.raises(TypeError):
        spec.planes  # noqa: B018
