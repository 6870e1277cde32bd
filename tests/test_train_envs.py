"""The train games (Mexican Train, Chicken Foot) in the environments: VectorEnv checked
step by step against TrainRound, the tensor against a reading of the round's public API,
hidden information, illegal actions, and the compiled surfaces' misuse (docs/envs.md)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bones
from bones import IllegalMove, OptionError
from bones.core.trains import TrainRound
from bones.core.trainsample import TrainSampler
from bones.core.traintensor import TrainTensorSpec, action_mask, returns
from bones.core.trainvector import _NEW, TrainVectorCore
from bones.envs import VectorEnv
from bones.train_actions import TrainActionSpace

SEATS = [(v, n) for v in ("mexican-train", "chicken-foot") for n in (2, 4, 8)]


def random_position(variant: str, players: int, seed: int, **options: object) -> TrainRound:
    """A round of ``variant`` played at random for a random number of moves."""
    rng = random.Random(seed)
    r = bones.Round.deal(variant, players, seed=seed, **options)
    assert isinstance(r, TrainRound)
    for _ in range(rng.randrange(60)):
        if r.is_over:
            break
        r.play(rng.choice(r.legal_moves))
    return r


def tensor(r: TrainRound, seat: int) -> np.ndarray:
    spec = TrainTensorSpec(r.variant, r.players, **r.options)
    out = np.empty(spec.size, np.float32)
    spec.write(r, seat, out)
    return out


# --- VectorEnv ------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "players"), SEATS)
def test_vector_steps_agree_with_train_round(variant, players):
    """Every step: the seat to move, its tensor and its mask (the legal moves, through
    TrainActionSpace.index) are those of the round the env reports; rewards come at the
    end of a round and are its returns (zero-sum)."""
    env = VectorEnv(variant, players, 2, seed=players)
    space = TrainActionSpace(variant, players)
    assert env.action_space == space
    assert env.tensor_spec == TrainTensorSpec(variant, players)
    step = env.reset()
    done_rounds = 0
    for _ in range(400):
        rounds = [env.round(i) for i in range(2)]
        for i, r in enumerate(rounds):
            assert isinstance(r, TrainRound) and not r.is_over
            assert step.to_play[i] == r.to_move
            assert np.array_equal(step.observations[i], tensor(r, r.to_move))
            assert list(np.flatnonzero(step.action_masks[i])) == space.legal_actions(r)
        actions = env.random_actions()
        step = env.step(actions)
        for i, r in enumerate(rounds):
            r.play(space.move(int(actions[i])))
            assert step.dones[i] == r.is_over
            if r.is_over:
                assert np.allclose(step.rewards[i], returns(r))
                assert abs(float(step.rewards[i].sum())) < 1e-3
                assert env.round(i).moves == ()
                done_rounds += 1
            else:
                assert not step.rewards[i].any()
                assert env.round(i) == r
        if done_rounds >= 3:
            break
    assert done_rounds >= 3


def test_vector_seeded_runs_repeat():
    def run(seed):
        env = VectorEnv("mexican-train", 4, 3, seed=seed)
        env.reset()
        return [env.step(env.random_actions()).observations.copy() for _ in range(40)]

    a, b, c = run(5), run(5), run(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_vector_options_reach_the_deal():
    env = VectorEnv("mexican-train", 3, 1, set="double-9", hand_size=5)
    env.reset()
    r = env.round(0)
    assert r.set_max == 9 and len(r.dealt_hand(0)) == 5
    assert env.action_space.size == 55 * 4
    with pytest.raises(OptionError, match="hand_size"):
        VectorEnv("mexican-train", 3, 1, hand_size=0)
    with pytest.raises(OptionError):
        VectorEnv("chicken-foot", 9, 1)


@pytest.mark.parametrize("variant", ["mexican-train", "chicken-foot"])
def test_vector_illegal_actions_change_nothing(variant):
    env = VectorEnv(variant, 4, 3, seed=2)
    step = env.reset()
    for _ in range(5):
        step = env.step(env.random_actions())
    before = [env.round(i) for i in range(3)]
    obs = step.observations.copy()
    good = env.random_actions()
    illegal = int(np.flatnonzero(~step.action_masks[1])[0])
    for bad in (illegal, -1, env.action_space.size, 2**62):
        acts = good.copy()
        acts[1] = bad
        with pytest.raises(IllegalMove, match=rf"round 1: action {bad} is not legal"):
            env.step(acts)
        assert [env.round(i) for i in range(3)] == before
        assert np.array_equal(step.observations, obs)
    with pytest.raises(TypeError):
        env.step(good.astype(float))
    with pytest.raises(ValueError):
        env.step(good[:2])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(-(2**63), 2**63 - 1)), min_size=1, max_size=30)
)
def test_fuzz_vector_actions(moves):
    """Any action arrays: legal ones step, anything else raises IllegalMove and leaves
    every round as it was."""
    env = VectorEnv("chicken-foot", 3, 2, seed=4)
    step = env.reset()
    for legal, value in moves:
        actions = env.random_actions()
        if not legal:
            actions[value % 2] = value
        before = [env.round(i) for i in range(2)]
        ok = all(
            step.action_masks[i][a] if 0 <= a < env.action_space.size else False
            for i, a in enumerate(actions)
        )
        if ok:
            step = env.step(actions)
        else:
            with pytest.raises(IllegalMove):
                env.step(actions)
            assert [env.round(i) for i in range(2)] == before


def test_train_vector_core_misuse():
    with pytest.raises(TypeError):
        TrainVectorCore()
    core = TrainVectorCore.__new__(TrainVectorCore, _NEW, {}, 2, 1, 0)  # no __init__
    obs = np.zeros((1, 10), np.float32)
    mask = np.zeros((1, 10), np.uint8)
    with pytest.raises(TypeError):
        core.reset(obs, mask, np.zeros(1, np.int8))
    with pytest.raises(ValueError):
        core.random_actions(np.zeros(1, np.int64))
    with pytest.raises(IndexError):
        core.record(0)
    env = VectorEnv("mexican-train", 2, 2)
    with pytest.raises(TypeError, match="initialised once"):
        env._core.__init__(_NEW, {}, 2, 1, 0)
    with pytest.raises(ValueError, match="wrong shape"):
        env._core.reset(obs, mask, np.zeros(1, np.int8))
    with pytest.raises(IndexError):
        env.round(2)


# --- the tensor -----------------------------------------------------------------------


def reference_tensor(r: TrainRound, seat: int) -> dict[str, np.ndarray]:
    """The tensor's planes read from the round's public API (docs/envs.md's table)."""
    space = TrainActionSpace(r.variant, r.players, **r.options)
    pos = {str(t): i for i, t in enumerate(space.tiles)}
    n, numbers, p = len(space.tiles), r.set_max + 1, r.players
    planes = {"hand": np.zeros(n), "table": np.zeros(n), "numbers": np.zeros(numbers)}
    for t in r.hand(seat):
        planes["hand"][pos[str(t)]] = 1
    on_table = [tile for _, tile, _ in r.placements] + [f"{r.engine}-{r.engine}"]
    for t in on_table:
        planes["table"][pos[t]] = 1
        a, b = (int(x) for x in t.split("-"))
        for v in {a, b}:
            planes["numbers"][v] += 1
    if r.layout_name == "trains":
        rows = np.zeros((p + 1, numbers + 3))
        for k, (open_, length, public) in enumerate(r.trains):
            rows[k, open_] = 1
            rows[k, numbers] = length
            rows[k, numbers + 1] = public
            rows[k, numbers + 2] = r.pending == space.targets[k]
        planes["trains"] = rows
    elif r.pending is None and not r.is_over:
        ends = np.zeros(n)
        counts = np.zeros(numbers)
        for tile, v in r.open_ends:
            ends[pos[tile]] = 1
            counts[v] += 1
        planes["ends"], planes["end_numbers"] = ends, counts
    order = [(seat + k) % p for k in range(p)]
    planes["hand_sizes"] = np.array([r.hand_sizes[s] for s in order])
    planes["stock"] = np.array([r.stock_size])
    planes["scores"] = np.array([r.scores[s] for s in order])
    planes["seat"] = np.eye(p)[seat]
    planes["to_move"] = np.zeros(p) if r.is_over else np.eye(p)[(r.to_move - seat) % p]
    return planes


@pytest.mark.parametrize(("variant", "players"), SEATS)
def test_tensor_planes_mean_what_the_docs_say(variant, players):
    spec = TrainTensorSpec(variant, players)
    offsets = [k for _, k, _ in spec.planes]
    assert offsets == sorted(offsets) and offsets[0] == 0
    last_name, last_at, last_shape = spec.planes[-1]
    assert last_at + int(np.prod(last_shape)) == spec.size
    for seed in range(12):
        r = random_position(variant, players, seed)
        for seat in range(players):
            got = tensor(r, seat)
            want = reference_tensor(r, seat)
            for name, at, shape in spec.planes:
                if name in want:
                    plane = got[at : at + int(np.prod(shape))].reshape(shape)
                    assert np.array_equal(plane, want[name]), (name, seed, seat)


def test_tensor_sizes_as_documented():
    sizes = {(v, n): TrainTensorSpec(v, n).size for v, n in SEATS if n != 2}
    assert sizes == {
        ("mexican-train", 4): 292,
        ("mexican-train", 8): 372,
        ("chicken-foot", 4): 258,
        ("chicken-foot", 8): 274,
    }


def test_tensor_scores_are_the_round_scores():
    r = bones.Round.deal("mexican-train", 3, seed=1, scores=[10, 20, 35])
    spec = TrainTensorSpec("mexican-train", 3)
    name, at, shape = next(p for p in spec.planes if p[0] == "scores")
    assert list(tensor(r, 1)[at : at + 3]) == [20, 35, 10]


# --- hidden information ---------------------------------------------------------------


def _rebuild(r: TrainRound, hands, stock) -> TrainRound | None:
    """The round's moves replayed on another deal; None where the replay diverges."""
    try:
        other = bones.Round.from_deal(
            r.variant, hands=hands, stock=stock, leader=r.leader, moves=r.moves, **r.options
        )
    except IllegalMove:
        return None
    assert isinstance(other, TrainRound)
    return other


@pytest.mark.parametrize(("variant", "players"), SEATS)
def test_hidden_information(variant, players):
    """Other deals with the same public record (``log``) leave every seat's tensor
    unchanged wherever that seat's own hand is unchanged: the stock's undrawn order, tiles
    swapped between two other seats, and the exact sampler's deals for the seat to
    move."""
    checked = 0
    for seed in range(10):
        rng = random.Random(seed)
        r = random_position(variant, players, seed)
        if r.is_over:
            continue  # every hand is shown at the end (the penalties): nothing is hidden
        hands = [list(r.dealt_hand(s)) for s in range(players)]
        stock = list(r.dealt_stock)
        drawn = len(stock) - r.stock_size
        rest = stock[drawn:]
        rng.shuffle(rest)
        alternatives = [(hands, stock[:drawn] + rest)]
        for _ in range(20):
            a, b = rng.sample(range(players), 2)
            swapped = [list(h) for h in hands]
            i, j = rng.randrange(len(swapped[a])), rng.randrange(len(swapped[b]))
            swapped[a][i], swapped[b][j] = swapped[b][j], swapped[a][i]
            alternatives.append((swapped, stock))
        sampler = TrainSampler(r.observation(r.to_move))
        if sampler.is_exact:
            alternatives += [sampler.full_deal(k) for k in range(5)]
        for alt_hands, alt_stock in alternatives:
            other = _rebuild(r, alt_hands, alt_stock)
            if other is None or other.log != r.log:
                continue
            for seat in range(players):
                if set(other.hand(seat)) == set(r.hand(seat)):
                    assert np.array_equal(tensor(other, seat), tensor(r, seat))
                    checked += 1
    assert checked > 10 * players


# --- the compiled surfaces' misuse ----------------------------------------------------


def test_tensor_spec_refuses_bad_input():
    r = bones.Round.deal("mexican-train", 4, seed=3)
    spec = TrainTensorSpec("mexican-train", 4)
    with pytest.raises(ValueError, match=f"needs {spec.size} floats"):
        spec.write(r, 0, np.zeros(spec.size + 1, np.float32))
    for bad in (np.zeros(spec.size, np.float64), bytearray(4 * spec.size), "x"):
        with pytest.raises(TypeError):
            spec.write(r, 0, bad)
    ro = np.zeros(spec.size, np.float32)
    ro.flags.writeable = False
    with pytest.raises(TypeError):
        spec.write(r, 0, ro)
    for seat in (-1, 4, True, "0", 1.0):
        with pytest.raises(ValueError, match="seat"):
            spec.write(r, seat)
    with pytest.raises(ValueError, match="not mexican-train"):
        spec.write(bones.Round.deal("mexican-train", 3, seed=3), 0)
    with pytest.raises(TypeError):
        spec.write(bones.Round.deal("block", 2, seed=3), 0)
    with pytest.raises(OptionError, match="bones.TensorSpec"):
        TrainTensorSpec("block", 2)
    with pytest.raises(OptionError):
        TrainTensorSpec("mexican-train", 1)
    empty = TrainTensorSpec.__new__(TrainTensorSpec)
    with pytest.raises(TypeError):
        empty.size  # noqa: B018
    with pytest.raises(TypeError):
        empty.write(r, 0)
    assert len(spec.write(r, 2)) == spec.size  # an array.array without out


def test_action_mask_refuses_bad_buffers():
    r = bones.Round.deal("chicken-foot", 4, seed=3)
    space = TrainActionSpace("chicken-foot", 4)
    ok = np.zeros(space.size, np.uint8)
    action_mask(r, ok)
    assert list(np.flatnonzero(ok)) == space.legal_actions(r)
    ro = np.zeros(space.size, np.uint8)
    ro.flags.writeable = False
    for bad in (np.zeros(space.size - 1, np.uint8), ro, bytes(space.size), "x", None):
        with pytest.raises(ValueError, match="writable buffer"):
            action_mask(r, bad)
    with pytest.raises(TypeError):
        action_mask(None, ok)
    assert returns(r) == (0.0,) * 4


def test_returns_are_zero_sum_and_lowest_wins():
    for seed in range(20):
        r = bones.Round.deal("mexican-train", 4, seed=seed)
        rng = random.Random(seed)
        while not r.is_over:
            r.play(rng.choice(r.legal_moves))
        got = returns(r)
        pen = r.result.penalties
        assert abs(sum(got)) < 1e-3
        for s in range(4):
            assert got[s] == pytest.approx((sum(pen) - pen[s]) / 3 - pen[s], abs=1e-3)


def test_fuzz_tensor_of_random_positions():
    """Random variants, options, positions and seats: the tensor always has the spec's
    size, only finite values, a one-hot seat and a mask within the space."""
    rng = random.Random(0)
    for seed in range(60):
        variant = rng.choice(["mexican-train", "chicken-foot"])
        players = rng.randint(2, 8)
        options = {"set": rng.choice(["double-9", "double-12"])} if rng.random() < 0.5 else {}
        try:
            r = random_position(variant, players, seed, **options)
        except OptionError:
            continue
        spec = TrainTensorSpec(variant, players, **options)
        space = TrainActionSpace(variant, players, **options)
        seat = rng.randrange(players)
        t = tensor(r, seat)
        assert t.shape == (spec.size,) and np.isfinite(t).all()
        mask = np.zeros(space.size, bool)
        action_mask(r, mask)
        assert mask.sum() == len(r.legal_moves)
