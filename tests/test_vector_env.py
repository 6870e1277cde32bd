"""bones.envs.VectorEnv: n rounds stepped in the core, checked against Round."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import CASES
from hypothesis import given, settings
from hypothesis import strategies as st

from bones import IllegalMove, OptionError
from bones.core.vector import VectorCore
from bones.envs import VectorEnv

OPTION_CASES = [(name, players, {}) for name, players in CASES] + [
    ("straight", 2, {"muggins_claim": True}),
    ("straight", 3, {"spinner_rule": "all_doubles"}),
    ("multiplayer", 2, {"voluntary_pass": True, "stock_reserve": 0}),
]


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_steps_agree_with_round(variant, players, options):
    env = VectorEnv(variant, players, 3, seed=11, **options)
    step = env.reset()
    total = np.zeros((3, players))
    dones = 0
    for _ in range(150):
        rounds = [env.round(i) for i in range(3)]
        for i, r in enumerate(rounds):
            assert step.to_play[i] == r.to_move
            assert np.array_equal(step.observations[i], np.asarray(r.observation_tensor(r.to_move)))
            assert list(np.flatnonzero(step.action_masks[i])) == r.legal_actions
        actions = env.random_actions()
        step = env.step(actions)
        for i, r in enumerate(rounds):
            r.play(int(actions[i]))
            total[i] += step.rewards[i]
            assert step.dones[i] == r.is_over
            if r.is_over:
                assert np.allclose(total[i], r.returns(), atol=1e-3)
                total[i] = 0
                dones += 1
                assert env.round(i).moves == ()
            else:
                assert env.round(i) == r
    assert dones


def test_seeded_runs_repeat():
    def run(seed):
        env = VectorEnv("straight", 2, 4, seed=seed)
        env.reset()
        out = []
        for _ in range(60):
            step = env.step(env.random_actions())
            out.append((step.observations.copy(), step.rewards.copy(), step.dones.copy()))
        return out

    a, b, c = run(5), run(5), run(6)
    assert all(
        np.array_equal(x, y) for s, t in zip(a, b, strict=True) for x, y in zip(s, t, strict=True)
    )
    assert not all(np.array_equal(s[0], t[0]) for s, t in zip(a, c, strict=True))
    env = VectorEnv("straight", 2, 4, seed=0)
    first = env.reset(seed=5).observations.copy()
    assert np.array_equal(first, VectorEnv("straight", 2, 4, seed=5).reset().observations)


def test_an_illegal_action_plays_nothing():
    env = VectorEnv("block", 2, 4, seed=2)
    step = env.reset()
    before = [env.round(i) for i in range(4)]
    actions = env.random_actions()
    illegal = int(np.flatnonzero(~step.action_masks[2])[0])
    for bad in (illegal, -1, env.action_space.size, 2**40):
        wrong = actions.copy()
        wrong[2] = bad
        with pytest.raises(IllegalMove, match="round 2"):
            env.step(wrong)
        assert [env.round(i) for i in range(4)] == before
    for bad in (actions.astype(float), actions.astype(bool), actions[:3], actions.reshape(2, 2)):
        with pytest.raises((TypeError, ValueError)):
            env.step(bad)
    assert [env.round(i) for i in range(4)] == before
    env.step(actions)


def test_bad_construction():
    with pytest.raises(TypeError):
        VectorCore()
    with pytest.raises(OptionError):
        VectorEnv("nonesuch", 2, 4)
    with pytest.raises(ValueError):
        VectorEnv("block", 2, 0)
    with pytest.raises(TypeError):
        VectorEnv("block", 2, 2.0)
    with pytest.raises(RuntimeError):
        VectorEnv("block", 2, 2).step([0, 0])
    with pytest.raises(IndexError):
        VectorEnv("block", 2, 2).round(2)


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 20),
    actions=st.lists(st.integers(-3, 90), min_size=3, max_size=3),
)
def test_any_actions_are_played_or_refused_whole(seed, steps, actions):
    env = VectorEnv("block", 2, 3, seed=seed)
    step = env.reset()
    for _ in range(steps):
        step = env.step(env.random_actions())
    before = [env.round(i) for i in range(3)]
    legal = all(0 <= a < 84 and step.action_masks[i][a] for i, a in enumerate(actions))
    try:
        env.step(np.array(actions))
    except IllegalMove:
        assert not legal
        assert [env.round(i) for i in range(3)] == before
    else:
        assert legal
        for i, r in enumerate(before):
            r.play(actions[i])
            assert r.is_over or env.round(i) == r


def test_a_core_is_initialised_once():
    env = VectorEnv("block", 2, 2)
    with pytest.raises(TypeError):
        env._core.__init__(None, "block", 2, 2, 0, {})


def test_a_core_made_without_its_constructor_is_safe():
    from bones.core.vector import _NEW

    core = VectorCore.__new__(VectorCore, _NEW, "block", 2, 2, 0, {})
    obs = np.zeros((2, 100), np.float32)
    mask = np.zeros((2, 84), np.uint8)
    to_play = np.zeros(2, np.int8)
    with pytest.raises(TypeError):
        core.reset(obs, mask, to_play)
    with pytest.raises(ValueError):
        core.random_actions(np.zeros(2, np.int64))
    with pytest.raises(IndexError):
        core.record(0)
