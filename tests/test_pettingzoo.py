"""bones.envs.pettingzoo passes PettingZoo's own API and seed tests (skipped without
pettingzoo)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import CASES

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from bones import IllegalMove  # noqa: E402
from bones.envs.pettingzoo import env  # noqa: E402


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_api(variant, players):
    api_test(env(variant=variant, players=players), num_cycles=200)


@pytest.mark.parametrize(("variant", "players"), [("block", 2), ("straight", 4)])
def test_seeded_runs_repeat(variant, players):
    seed_test(lambda: env(variant=variant, players=players), num_cycles=200)


def episode(e, seed):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, action))
        e.step(action)
    return trace, totals


def test_rewards_sum_to_the_round_returns():
    e = env(variant="straight", players=2)
    _, totals = episode(e, 3)
    assert np.allclose(list(totals.values()), e.unwrapped.round.returns())
    assert episode(e, 3)[0] == episode(env(variant="straight", players=2), 3)[0]


def test_illegal_actions_raise():
    e = env(variant="block", players=2)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.unwrapped.round.to_msgpack()
    for bad in (illegal, -1, 10**9, True):
        with pytest.raises(IllegalMove):
            e.step(bad)
    assert e.unwrapped.round.to_msgpack() == before
