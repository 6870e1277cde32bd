"""The train games' sampler is exact (bones.core.trainsample, docs/sampler.md "The train
games"): every sample replays the public record to the same observation, and every
consistent full deal is equally likely."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest
from scipy.stats import chisquare

from bones.core.trains import TrainMove, TrainRound
from bones.core.trainsample import TrainSampler
from bones.core.wideset import SetTile
from bones.observation import TrainObservation


def replaced(obs, **changes):
    """obs with some fields changed (a TrainObservation is made from its fields)."""
    return TrainObservation(**{f: changes.get(f, getattr(obs, f)) for f in obs.FIELDS})


def replayed_round(obs: TrainObservation, hands, stock, placements=None) -> TrainRound:
    """The round replayed from this full deal with the observation's placements (or their
    first ``placements``)."""
    return TrainRound.from_deal(
        obs.layout_name,
        set_max=obs.set_max,
        hands=hands,
        stock=stock,
        engine=obs.engine,
        leader=obs.leader,
        zero_double=obs.zero_double,
        first_turn_own_train=obs.first_turn_own_train,
        engine_toes=obs.engine_toes,
        moves=[f"{t}@{w}" for _, t, w in obs.placements[:placements]],
    )


def replay(obs: TrainObservation, hands, stock) -> TrainObservation:
    """The observation the seat gets when the round is replayed from this full deal."""
    return replayed_round(obs, hands, stock).observation(obs.seat)


def random_positions(layout, set_max, players, seed, hand_size=None, every=1):
    r = TrainRound.deal(layout, set_max=set_max, players=players, seed=seed,
                        hand_size=hand_size)  # fmt: skip
    rng = random.Random(seed)
    k = 0
    while not r.is_over:
        if k % every == 0:
            yield r.copy()
        k += 1
        r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])


def check_samples(obs: TrainObservation, n: int) -> int:
    """Build the sampler of obs and check that its first n samples replay to it; how many
    were checked (rejection may find nothing for some)."""
    sampler = TrainSampler(obs)
    assert sampler.method in ("exact", "rejection")
    checked = 0
    for k in range(n):
        try:
            hands, stock = sampler.full_deal(k)
        except RuntimeError:  # rejection found nothing in REJECT_TRIES proposals
            assert sampler.method == "rejection"
            continue
        assert replay(obs, hands, stock) == obs
        checked += 1
        # the position sample() deals is the full deal's, played to now
        cur, rest = sampler.deal(k)
        assert [len(h) for h in cur] == list(obs.hand_sizes)
        assert len(rest) == obs.stock_size
    return checked


@pytest.mark.parametrize(
    ("layout", "set_max", "players"),
    [
        ("trains", 12, 4),
        ("trains", 9, 3),
        ("chicken_foot", 9, 4),
        ("trains", 6, 2),
        ("chicken_foot", 6, 2),
        ("trains", 9, 8),
    ],  # fmt: skip
)
def test_every_sample_replays_to_the_observation(layout, set_max, players):
    checked = 0
    for seed in range(3):
        for r in random_positions(layout, set_max, players, seed, every=3):
            checked += check_samples(r.observation(r.to_move), 3)
    assert checked > 50


def brute_force(obs: TrainObservation) -> Counter:
    """Every full deal (hands at the deal, the stock in order) behind ``obs``, by replay:
    the other seat's deal is any of the tiles the seat did not get, the stock the rest in
    every order (two players)."""
    sampler = TrainSampler(obs)
    own = sampler.full_deal(0)[0][obs.seat]
    tiles = [t for t in _set(obs.set_max, obs.engine) if t not in own]
    k = len(own)
    found = Counter()
    for other in itertools.combinations(tiles, k):
        rest = [t for t in tiles if t not in other]
        for stock in itertools.permutations(rest):
            hands = [list(own), list(other)] if obs.seat == 0 else [list(other), list(own)]
            try:
                ok = replay(obs, hands, list(stock)) == obs
            except Exception:  # an illegal placement: not consistent
                ok = False
            if ok:
                found[(tuple(sorted(other)), stock)] += 1
    return found


def _set(set_max, engine):
    return [f"{a}-{b}" for a in range(set_max + 1) for b in range(a + 1)
            if not a == b == engine]  # fmt: skip


def _key(hands, stock, seat):
    return tuple(sorted(hands[1 - seat])), tuple(stock)


def small_positions(layout):
    """Two-player double-6 rounds with 12 tiles each and 3 in the stock, at positions
    where the observer is to move after a draw and a pass (the constraints bite)."""
    for seed in range(200):
        for r in random_positions(layout, 6, 2, seed, hand_size=12):
            if any(e[0] == "pass" for e in r.log) and len(r.placements) >= 2:
                yield r.observation(r.to_move)
                break


@pytest.mark.parametrize("layout", ["trains", "chicken_foot"])
def test_the_count_and_the_frequencies_are_the_brute_force_ones(layout):
    done = 0
    for obs in small_positions(layout):
        deals = brute_force(obs)
        sampler = TrainSampler(obs)
        assert sampler.method == "exact"
        assert sampler.count == len(deals), obs
        assert all(n == 1 for n in deals.values())
        if 2 <= len(deals) <= 60:
            n = 300 * len(deals)
            seen = Counter()
            for k in range(n):
                hands, stock = sampler.full_deal(k)
                key = _key(hands, stock, obs.seat)
                assert key in deals
                seen[key] += 1
            _stat, p = chisquare([seen[d] for d in deals])
            assert p > 1e-4, (seen, p)
            done += 1
        if done >= 2:
            break
    assert done >= 1


def drew_with_5_open() -> TrainRound:
    """Double-6 Mexican Train, two players: seat 0 places 6-5 on the Mexican train; seat 1
    holds no 5 and no 6 (the numbers open to it), draws a tile without them and passes.
    Seat 0 holds 9 of the other 11 tiles with a 5 or a 6: the two left are in the stock."""
    low = [f"{a}-{b}" for a in range(5) for b in range(a + 1)]  # the 15 tiles without 5, 6
    high = [f"{a}-{b}" for a in (5, 6) for b in range(a + 1)
            if (a, b) not in ((6, 6), (6, 5))]  # fmt: skip
    seat1 = low[:12]
    seat0 = ["6-5", *high[:9], *low[12:14]]
    stock = [low[14], *high[9:]]
    return TrainRound.from_deal("trains", set_max=6, engine=6, hands=[seat0, seat1],
                                stock=stock, moves=["6-5@M"])  # fmt: skip


def obs_high(obs: TrainObservation) -> list[str]:
    """The tiles with a 5 or a 6 that seat 0 neither holds nor placed."""
    placed = {t for _, t, _ in obs.placements}
    return [f"{a}-{b}" for a in (5, 6) for b in range(a + 1)
            if (a, b) != (6, 6) and f"{a}-{b}" not in {str(t) for t in obs.hand}
            and f"{a}-{b}" not in placed]  # fmt: skip


def test_a_seat_that_drew_with_5_open_gets_no_5_in_the_samples():
    r = drew_with_5_open()
    assert [e[0] for e in r.log] == ["place", "draw", "pass"] and r.to_move == 0
    obs = r.observation(0)
    sampler = TrainSampler(obs)
    assert sampler.method == "exact"
    for k in range(300):
        hands, stock = sampler.deal(k)
        assert not [t for t in hands[1] if "5" in t or "6" in t], hands[1]
        assert sorted(stock) == sorted(t for t in obs_high(obs))
    # the uniform deal (the fallback) does put them there
    uniform = TrainSampler(obs, model=False)
    assert uniform.method == "uniform"
    assert any(any("5" in t or "6" in t for t in uniform.deal(k)[0][1]) for k in range(50))


def test_too_many_states_falls_back_explicitly():
    obs = next(small_positions("trains"))
    sampler = TrainSampler(obs, max_states=1)
    assert sampler.method in ("rejection", "uniform")
    assert sampler.count is None
    if sampler.method == "rejection":
        for k in range(20):
            try:
                hands, stock = sampler.full_deal(k)
            except RuntimeError:
                continue
            assert replay(obs, hands, stock) == obs
        assert sampler.rejection_stats[0] >= 1
    else:
        assert not sampler.is_exact and "max_states" in sampler.fallback
    with pytest.raises(ValueError, match="max_states"):
        TrainSampler(obs, max_states=0)


def test_objects_made_with_new_are_safe():
    blank = TrainSampler.__new__(TrainSampler)
    for attr in ("count", "method", "is_exact", "fallback", "rejection_stats", "table_size",
                 "unseen_tiles", "legal_codes"):  # fmt: skip
        with pytest.raises(ValueError, match="made from an observation"):
            getattr(blank, attr)
    with pytest.raises(ValueError, match="made from an observation"):
        blank.full_deal(1)
    with pytest.raises(ValueError, match="made from an observation"):
        blank.deal(1)
    with pytest.raises(TypeError):
        blank.__init__(None)
    obs = drew_with_5_open().observation(0)
    s = TrainSampler(obs)
    with pytest.raises(ValueError, match="built once"):
        s.__init__(obs)


@pytest.mark.parametrize("moves", [46, 57])
def test_an_eight_seat_position_past_the_bound_in_seat_order_is_exact(moves):
    """Mexican Train, 8 seats, seed 1 after 46 and 57 heaviest-tile moves: filled seat by
    seat in seat order (each deal, then its draws) the table passed 100,000 states in
    both orders tried and the sampler fell back to rejection; strictest seat first, each
    seat's draws before its deal, it is exact with a few thousand nodes.  Its count is
    exact (the programme rerun in Python integers over the table) and its samples
    replay."""
    r = TrainRound.deal("trains", set_max=12, players=8, seed=1)
    for _ in range(moves):
        r.play(max(r.legal_moves, key=lambda m: m.tile.high + m.tile.low))
    obs = r.observation(r.to_move)
    sampler = TrainSampler(obs)
    assert sampler.method == "exact" and sampler.table_size < 50_000
    assert sampler.count > 10**6 and sampler.count % math.factorial(obs.stock_size) == 0
    for k in range(5):
        hands, stock = sampler.full_deal(k)
        assert replay(obs, hands, stock) == obs


def test_every_bound_gives_the_same_count_or_a_consistent_rejection():
    """Under each max_states from 1 to just past the default table's nodes, the table is
    built in the first order, the second or relaxed (or not at all): exact ones count the
    brute force's deals, and every sample of any of them is one of those deals."""
    done = 0
    for obs in small_positions("trains"):
        deals = brute_force(obs)
        methods = set()
        for bound in range(1, TrainSampler(obs).table_size + 2):
            sampler = TrainSampler(obs, max_states=bound)
            methods.add(sampler.method)
            if sampler.method == "exact":
                assert sampler.count == len(deals)
            for k in range(10):
                try:
                    hands, stock = sampler.full_deal(k)
                except (RuntimeError, ValueError):  # rejection found none; uniform
                    assert sampler.method != "exact"
                    continue
                assert _key(hands, stock, obs.seat) in deals
        assert "exact" in methods
        done += len(methods) > 1
        if done >= 2:
            break
    assert done >= 1


def test_tile_and_move_objects_read_as_their_text():
    """The sampler reads codes, not texts: an observation holding SetTile and TrainMove
    objects (for its hand, log and legal moves) rebuilds the same position and draws the
    same samples."""
    obs = drew_with_5_open().observation(0)
    objects = replaced(
        obs,
        hand=tuple(SetTile.parse(t) for t in obs.hand),
        legal_moves=tuple(TrainMove.parse(m) for m in obs.legal_moves),
        log=tuple(
            (kind, seat, None if tile is None else SetTile.parse(tile), where)
            for kind, seat, tile, where in obs.log
        ),
        placements=tuple(
            (seat, SetTile.parse(tile), where) for seat, tile, where in obs.placements
        ),
    )
    a, b = TrainSampler(obs), TrainSampler(objects)
    assert a.public() == b.public() and a.count == b.count
    assert [a.deal(k) for k in range(5)] == [b.deal(k) for k in range(5)]
