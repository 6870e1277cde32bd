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


TRAIN_SEATS = [(v, n) for v in ("mexican-train", "chicken-foot") for n in (2, 4, 8)]


@pytest.mark.parametrize(("variant", "players"), TRAIN_SEATS)
def test_api_train_games(variant, players):
    api_test(env(variant=variant, players=players), num_cycles=200)


def test_seeded_train_runs_repeat():
    seed_test(lambda: env(variant="mexican-train", players=4), num_cycles=200)


@pytest.mark.parametrize("variant", ["mexican-train", "chicken-foot"])
def test_train_rewards_sum_to_the_round_returns(variant):
    from bones.core.traintensor import returns

    e = env(variant=variant, players=4)
    trace, totals = episode(e, 5)
    assert trace and np.allclose(list(totals.values()), returns(e.unwrapped.round), atol=1e-3)
    assert abs(sum(totals.values())) < 1e-3


@pytest.mark.parametrize("variant", ["mexican-train", "chicken-foot"])
def test_train_illegal_actions_raise_and_change_nothing(variant):
    e = env(variant=variant, players=4)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = e.unwrapped.round.to_msgpack()
    size = len(obs["action_mask"])
    for bad in (illegal, -1, size, 10**9, True, 1.5, "0", None):
        with pytest.raises(IllegalMove):
            e.unwrapped.step(bad)
    assert e.unwrapped.round.to_msgpack() == before
    agent = e.agent_selection
    assert np.array_equal(e.observe(agent)["observation"], obs["observation"])


def test_train_observations_hide_the_other_hands():
    """A seat's observation is its own tensor: another seat's hand never shows in it."""
    e = env(variant="mexican-train", players=4)
    e.reset(seed=3)
    raw = e.unwrapped
    for agent in raw.possible_agents:
        seat = raw.possible_agents.index(agent)
        hand = raw.spec_.planes[0]
        got = e.observe(agent)["observation"][hand[1] : hand[1] + hand[2][0]]
        want = [raw.space.tiles.index(t) for t in raw.round.hand(seat)]
        assert list(np.flatnonzero(got)) == sorted(want)


def test_train_round_renders_as_text():
    e = env(variant="chicken-foot", players=3, render_mode="ansi")
    e.reset(seed=4)
    assert e.render() == str(e.unwrapped.round) and "9-9" in e.render()


@pytest.mark.parametrize(("variant", "players"), TRAIN_SEATS)
def test_train_masks_are_the_legal_moves_at_every_step(variant, players):
    """Every agent's mask, at every step of a random episode: the legal actions for the
    agent to move (TrainActionSpace.legal_actions), all zeros for the others."""
    e = env(variant=variant, players=players)
    e.reset(seed=players)
    raw = e.unwrapped
    rng = np.random.default_rng(players)
    steps = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        for other in raw.possible_agents:
            mask = np.flatnonzero(e.observe(other)["action_mask"]).tolist()
            assert mask == (raw.space.legal_actions(raw.round) if other == agent else [])
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert steps > 0 and raw.round.is_over
