"""bones.core.belief: the softmax model of the other seats' placements that pimc's
``infer`` option weights its sampled deals by (issue 9)."""

from __future__ import annotations

import math
import random

import pytest
from helpers import random_round
from hypothesis import given, settings
from hypothesis import strategies as st

import bones
from bones import BonesError
from bones.core.belief import round_log_likelihood
from bones.core.policy import FIELDS
from bones.plugins import hookimpl
from bones.plugins.manager import get_plugin_manager
from bones.plugins.search_bots import expert_weights

CONFIGS = [
    ("straight", 2, {}),
    ("straight", 4, {}),
    ("straight", 2, {"muggins_claim": True}),
    ("multiplayer", 2, {}),
    ("kozel", 4, {}),
    ("block", 4, {}),
    ("draw", 3, {}),
]
#: points now, and nothing else: the model is a softmax of the points a move scores
POINTS_ONLY = tuple(1.0 if name == "points" else 0.0 for name in FIELDS)


def _placements(rnd: bones.Round) -> list[bones.Move]:
    return [m for m in rnd.legal_moves if not (m.is_draw or m.is_pass or m.is_muggins)]


def _after(rnd: bones.Round, move: bones.Move) -> bones.Round:
    nxt = rnd.copy()
    nxt.play(move)
    return nxt


@settings(max_examples=60, deadline=None)
@given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(0, 2**32 - 1),
    plies=st.integers(0, 30),
    beta=st.sampled_from([0.0, 0.1, 0.3, 1.0]),
)
def test_each_choice_is_a_distribution(config, seed, plies, beta):
    """The model gives the placements open to another seat probabilities that sum to 1,
    and the observer's own moves (and forced ones) leave the likelihood unchanged."""
    variant, players, options = config
    rnd = random_round(variant, players, seed, plies, **options)
    if rnd.is_over:
        return
    weights = expert_weights(variant, {})
    seat = (rnd.to_move + 1) % players  # the observer: not the seat to move
    base = round_log_likelihood(rnd, seat, beta, weights)
    assert base <= 1e-12
    choices = _placements(rnd)
    total = sum(
        math.exp(round_log_likelihood(_after(rnd, m), seat, beta, weights) - base) for m in choices
    )
    if len(choices) >= 2:
        assert total == pytest.approx(1.0, rel=1e-9)
    for m in rnd.legal_moves:  # the mover's own view: its plays are not evidence
        assert round_log_likelihood(_after(rnd, m), rnd.to_move, beta, weights) == (
            pytest.approx(round_log_likelihood(rnd, rnd.to_move, beta, weights), abs=1e-12)
        )


def test_points_model_is_a_softmax_of_points():
    """With only the points weight, two placements' probabilities differ by
    exp(beta * (points_1 - points_2)), the points as Round scores them."""
    beta, checked = 0.2, 0
    for seed in range(200):
        rnd = random_round("straight", 2, seed, 1 + seed % 12)
        if rnd.is_over:
            continue
        mover, seat = rnd.to_move, 1 - rnd.to_move
        side = rnd.side_of(mover)
        choices = _placements(rnd)
        gains = {}
        for m in choices:
            nxt = _after(rnd, m)
            gains[m] = nxt.scores[side] - rnd.scores[side]
        if len(set(gains.values())) < 2:
            continue
        a, b = max(choices, key=gains.get), min(choices, key=gains.get)
        la = round_log_likelihood(_after(rnd, a), seat, beta, POINTS_ONLY)
        lb = round_log_likelihood(_after(rnd, b), seat, beta, POINTS_ONLY)
        assert la - lb == pytest.approx(beta * (gains[a] - gains[b]), rel=1e-9)
        checked += 1
    assert checked >= 20


def test_beta_zero_is_a_random_player():
    """beta 0: every placement alike, so each choice costs log(its number of options)."""
    rnd = bones.Round.deal("straight", players=2, seed=5)
    expected = 0.0
    rng = random.Random(5)
    while not rnd.is_over and len(rnd.moves) < 16:
        n = len(_placements(rnd))
        if rnd.to_move == 1 and n >= 2:
            expected -= math.log(n)
        rnd.play(rng.choice(list(rnd.legal_moves)))
    assert round_log_likelihood(rnd, 0, 0.0, expert_weights("straight", {})) == (
        pytest.approx(expected, rel=1e-12)
    )


def test_the_true_deal_is_likelier_under_a_matching_model():
    """A greedy opponent's record: its real hand scores higher, on average, than the deals
    the uniform sampler draws for it, once the model prefers points."""
    wins = 0
    for seed in range(30):
        rnd = bones.Round.deal("straight", players=2, seed=seed)
        greedy, rng = bones.make_bot("greedy", seed=seed), random.Random(seed)
        while not rnd.is_over and len(rnd.moves) < 12:
            obs = rnd.observation(rnd.to_move)
            if rnd.to_move == 1:
                rnd.play(greedy.choose(obs, obs.legal_moves))
            else:
                rnd.play(rng.choice(list(rnd.legal_moves)))
        if rnd.is_over:
            continue
        obs = rnd.observation(0)
        truth = round_log_likelihood(rnd, 0, 0.5, POINTS_ONLY)
        drawn = [round_log_likelihood(obs.sample(k), 0, 0.5, POINTS_ONLY) for k in range(40)]
        wins += truth >= sum(drawn) / len(drawn)
    assert wins >= 20


def test_bad_arguments_are_refused():
    rnd = bones.Round.deal("straight", players=2, seed=1)
    weights = expert_weights("straight", {})
    with pytest.raises(ValueError, match="seat"):
        round_log_likelihood(rnd, 2, 0.3, weights)
    with pytest.raises(ValueError, match="beta"):
        round_log_likelihood(rnd, 0, -0.1, weights)
    for beta in (float("nan"), float("inf"), 1e7):
        with pytest.raises(ValueError, match="beta"):
            round_log_likelihood(rnd, 0, beta, weights)
    with pytest.raises(ValueError, match="weights"):
        round_log_likelihood(rnd, 0, 0.3, weights[:-1])
    with pytest.raises(TypeError):
        round_log_likelihood(None, 0, 0.3, weights)


def _fives(layout, move, count):
    return count if count > 0 and count % 5 == 0 else 0


def _boom(layout, move, count):
    if count == 10:
        raise RuntimeError("boom at 10")
    return _fives(layout, move, count)


@pytest.fixture
def scored(fresh_registry):
    class Plugin:
        @hookimpl
        def register_variants(self, register):
            straight = bones.variant("straight")
            register(straight.with_defaults("py-fives", move_scorer=_fives))
            register(straight.with_defaults("py-boom", move_scorer=_boom))

    pm = get_plugin_manager()
    pm.register(Plugin(), name="test-belief-scorers")
    fresh_registry.reset(plugins=False)
    yield
    pm.unregister(name="test-belief-scorers")


def _replayed(variant: str, source: bones.Round) -> bones.Round:
    rnd = bones.Round.from_deal(
        variant,
        [source.hand(s) for s in range(source.players)],
        source.stock,
        leader=source.leader,
        lead_tile=source.lead_tile,
    )
    return rnd


def test_a_python_scorer_values_the_moves(scored):
    """All Fives written in Python gives the built-in count rule's likelihoods; a scorer
    that raises gives the clear BonesError."""
    weights = expert_weights("straight", {})
    for seed in range(10):
        rnd = bones.Round.deal("straight", players=2, seed=seed)
        py = _replayed("py-fives", rnd)
        rng = random.Random(seed)
        while not rnd.is_over and len(rnd.moves) < 14:
            move = rng.choice(list(rnd.legal_moves))
            rnd.play(move)
            py.play(move)
        assert round_log_likelihood(py, 0, 0.3, weights) == pytest.approx(
            round_log_likelihood(rnd, 0, 0.3, weights), rel=1e-12
        )
    with pytest.raises(BonesError, match="boom at 10"):
        for seed in range(40):
            rnd = _replayed("py-boom", bones.Round.deal("straight", players=2, seed=seed))
            rng = random.Random(seed)
            while not rnd.is_over and len(rnd.moves) < 10:
                try:
                    rnd.play(rng.choice(list(rnd.legal_moves)))
                except BonesError:
                    break  # the round itself hit the bad count first
            round_log_likelihood(rnd, 0, 1.0, weights)
