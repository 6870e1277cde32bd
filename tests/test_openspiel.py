"""bones.envs.openspiel: every variant passes OpenSpiel's random-simulation test, and
resample_from_infostate keeps what the player sees (skipped without open-spiel)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import CASES

pyspiel = pytest.importorskip("pyspiel")
import bones  # noqa: E402
import bones.envs.openspiel  # noqa: E402, F401  (registers the games)


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_random_simulation(variant, players):
    game = pyspiel.load_game(f"bones_{variant}", {"players": players})
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize(
    ("variant", "params"),
    [
        ("straight", {"players": 2, "muggins_claim": True}),
        ("straight", {"players": 3, "spinner_rule": "all_doubles"}),
        ("straight", {"players": 2, "first_leader": "highest_double"}),
        ("multiplayer", {"players": 2, "voluntary_pass": True}),
    ],
)
def test_options_are_parameters(variant, params):
    game = pyspiel.load_game(f"bones_{variant}", params)
    options = {k: v for k, v in params.items() if k != "players"}
    space = bones.ActionSpace(variant, params["players"], **options)
    assert game.num_distinct_actions() == space.size
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_bad_parameters():
    with pytest.raises(pyspiel.SpielError, match="nonsense"):
        pyspiel.load_game("bones_block", {"nonsense": 1})
    with pytest.raises(bones.OptionError, match="hand_size"):
        pyspiel.load_game("bones_block", {"hand_size": 9})
    with pytest.raises(pyspiel.SpielError, match="redeal_bad_hand"):
        pyspiel.load_game("bones_kozel", {"redeal_bad_hand": True})


def play_to_decision(game, rng, moves):
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("variant", "players"), [("block", 2), ("straight", 4), ("kozel", 3)])
def test_resampling_keeps_the_information_state(variant, players):
    game = pyspiel.load_game(f"bones_{variant}", {"players": players})
    rng = random.Random(3)
    differ = 0
    for moves in (0, 3, 8):
        state = play_to_decision(game, rng, moves)
        if state.is_terminal():
            continue
        player = state.current_player()
        for _ in range(3):
            other = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0, 1))
            assert other.information_state_string(player) == state.information_state_string(player)
            assert np.array_equal(
                other.observation_tensor(player), state.observation_tensor(player)
            )
            assert other.legal_actions() == state.legal_actions()
            differ += str(other) != str(state)
            other.apply_action(other.legal_actions()[0])  # a full state that plays on
    assert differ


def test_resampling_during_the_deal():
    game = pyspiel.load_game("bones_block", {"players": 2})
    state = game.new_initial_state()
    for tile in range(9):  # seat 0's seven tiles, then two of seat 1's
        state.apply_action(tile)
    mine = str(state).split()[1:8]
    theirs = set()
    for _ in range(10):
        other = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0, 1))
        assert other.information_state_string(0) == state.information_state_string(0)
        assert str(other).split()[1:8] == mine
        theirs.update(str(other).split()[8:])
        dealt = {a for a in range(28)} - {a for a, _ in other.chance_outcomes()}
        assert len(dealt) == 9
    assert not theirs & set(mine) and len(theirs) > 2  # not only the two tiles dealt


def test_rewards_sum_to_the_returns():
    game = pyspiel.load_game("bones_straight", {"players": 2})
    rng = random.Random(4)
    state = play_to_decision(game, rng, 0)
    total = np.zeros(2)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        total += state.rewards()
    assert np.allclose(total, state.returns()) and abs(sum(state.returns())) < 1e-6


def test_ismcts_runs():
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("bones_block", {"players": 2})
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=20, random_state=rng
    )
    state = play_to_decision(game, random.Random(0), 0)
    action = bot.step(state)
    assert action in state.legal_actions()
