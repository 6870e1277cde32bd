"""Which rule families the environments take (issues 24 and 30, docs/envs.md "Which
games"): ActionSpace, TensorSpec and OpenSpiel refuse every train variant -- the built-in
ones, a plugin's on a train base, a Variant object -- with an OptionError naming the
variant and the env and pointing to what works; VectorEnv and PettingZoo play them,
a plugin's too; and each env plays a double-six variant of the straight family
(fives-and-threes) to the end of a random episode."""

from __future__ import annotations

import dataclasses
import random

import pytest
from helpers import register_plugin_variants

import bones
from bones.core.actions import ActionSpace
from bones.core.rules import OtherCore
from bones.core.tensor import TensorSpec
from bones.errors import OptionError
from bones.variant import TRAIN_BASES

#: A train variant per train base: the built-in ones and two a plugin registers.
BUILTIN = [("mexican-train", 4), ("chicken-foot", 3)]
PLUGIN = [("my-train", 4), ("my-foot", 3)]
F3 = "fives-and-threes"


def _refusal(variant: str, env: str) -> str:
    """The message's pattern: the variant, the env, what is not supported and what is."""
    return (
        rf"^{variant}: the \w+ family is played on the train games' core .*; "
        rf"{env} does not support the train games \(Mexican Train, Chicken Foot\) yet: "
        r"it takes the double-six variants \(block, .*fives-and-threes, \.\.\.\); "
        r"a train game is played with bones.Round.deal or bones.Game \(docs/trains.md\)"
        + {
            "ActionSpace": r"; its action space is bones.train_actions.TrainActionSpace$",
        }.get(env, "$")
    )


def _openspiel_refusal(variant: str) -> str:
    """OpenSpiel's message: the families it plays, the one it does not, what plays it."""
    return (
        rf"^{variant}: bones.envs.openspiel plays the families with an OpenSpiel adapter, "
        r"not the trains family \(.*\); VectorEnv and bones.envs.pettingzoo play every "
        r"family \(docs/envs.md\)$"
    )


def _makers(variant):
    """(env name in the message, a call that builds the env on ``variant``) for each env
    that refuses the train games and whose package is installed."""
    out = [
        ("ActionSpace", lambda players: ActionSpace(variant, players)),
        ("TensorSpec", lambda players: TensorSpec(variant, players)),
    ]
    try:
        import bones.envs.openspiel as bos

        game = type("G", (bos.BonesGame,), {"variant": variant})
        out.append(("bones.envs.openspiel", lambda players: game({"players": players})))
    except ImportError:
        pass
    return out


@pytest.fixture
def plugin_trains(fresh_registry):
    """A plugin's train variants, one on each train base (a third party's, not ours)."""
    mexican, foot = bones.variant("mexican-train"), bones.variant("chicken-foot")
    ours = [
        dataclasses.replace(mexican, name="my-train", description="Their trains", plugin=None),
        dataclasses.replace(foot, name="my-foot", description="Their foot", plugin=None),
    ]
    assert {v.base for v in ours} == set(TRAIN_BASES)
    register_plugin_variants(fresh_registry, "third-party-trains", *ours)
    assert {"my-train", "my-foot"} <= set(bones.variants())
    return ours


def _check_refused(variant: str, players: int) -> set[str]:
    envs = set()
    for name, make in _makers(variant):
        if name == "bones.envs.openspiel":  # refused by family: no OpenSpiel adapter
            with pytest.raises(OptionError, match=_openspiel_refusal(variant)):
                make(players)
        else:
            with pytest.raises(OtherCore, match=_refusal(variant, name)) as info:
                make(players)
            assert info.value.api == name and info.value.variant.name == variant
        envs.add(name)
    return envs


@pytest.mark.parametrize(("variant", "players"), BUILTIN)
def test_every_env_refuses_the_builtin_train_variants(variant, players):
    assert {"ActionSpace", "TensorSpec"} <= _check_refused(variant, players)


@pytest.mark.parametrize(("variant", "players"), PLUGIN)
def test_every_env_refuses_a_plugins_train_variant(plugin_trains, variant, players):
    assert {"ActionSpace", "TensorSpec"} <= _check_refused(variant, players)


def test_a_train_variant_object_is_refused_as_a_train_game():
    spec = bones.variant("mexican-train")
    for name, make in _makers(spec):
        if name in ("ActionSpace", "TensorSpec"):
            continue  # these take a name only, and say so
        with pytest.raises(OptionError, match=_openspiel_refusal("mexican-train")):
            make(4)


def _train_episodes(variant, players: int) -> None:
    """A random episode to its end in VectorEnv and PettingZoo (where installed)."""
    np = pytest.importorskip("numpy")
    from bones.envs import VectorEnv

    ve = VectorEnv(variant, players, n=2, seed=1)
    ve.reset()
    for _ in range(300):
        if ve.step(ve.random_actions()).dones[0]:
            break
    else:
        raise AssertionError("round 0 did not end in 300 steps")
    try:
        from bones.envs.pettingzoo import env
    except ImportError:
        return
    e = env(variant=variant, players=players)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(max_iter=5000):
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        e.step(
            None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
    assert not e.agents and abs(sum(totals.values())) < 1e-3


@pytest.mark.parametrize(("variant", "players"), BUILTIN + PLUGIN)
def test_vector_env_and_pettingzoo_play_train_variants(plugin_trains, variant, players):
    _train_episodes(variant, players)


def test_vector_env_and_pettingzoo_take_a_train_variant_object():
    _train_episodes(bones.variant("chicken-foot"), 3)


def test_openspiel_registers_no_train_game(plugin_trains):
    pyspiel = pytest.importorskip("pyspiel")
    import bones.envs.openspiel as bos

    bos._register()  # what the import does, now with the plugin's variants registered
    names = set(pyspiel.registered_names())
    assert {f"bones_{v}" for v, _ in BUILTIN + PLUGIN}.isdisjoint(names)
    assert f"bones_{F3}" in names


# -- fives-and-threes: a random episode to the end in each env -----------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_action_space_plays_fives_and_threes_to_the_end(players):
    space = ActionSpace(F3, players)
    assert space.size > 0 and TensorSpec(F3, players).size > 0
    rng = random.Random(players)
    r = bones.Round.deal(F3, players, seed=players)
    mask = bytearray(space.size)
    while not r.is_over:
        r.action_mask(mask)
        legal = [i for i, m in enumerate(mask) if m]
        assert legal == sorted(space.index(m) for m in r.legal_moves)
        r.play(space.move(rng.choice(legal)))
    assert r.is_over and abs(sum(r.returns())) < 1e-9


def test_vector_env_plays_fives_and_threes_to_the_end():
    np = pytest.importorskip("numpy")
    from bones.envs import VectorEnv

    ve = VectorEnv(F3, 2, n=4, seed=5)
    step = ve.reset()
    ended = np.zeros(4, bool)
    totals = np.zeros((4, 2), np.float32)
    for _ in range(500):
        step = ve.step(ve.random_actions())
        totals += np.where(ended[:, None], 0, step.rewards)
        ended |= step.dones
        if ended.all():
            break
    assert ended.all()  # every round ended (and was dealt anew)
    assert np.allclose(totals.sum(axis=1), 0)  # zero-sum
    assert totals.any()  # fives and threes scored something


def test_pettingzoo_plays_fives_and_threes_to_the_end():
    np = pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from bones.envs.pettingzoo import env

    e = env(variant=F3, players=3)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for agent in e.agent_iter(max_iter=2000):
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    assert not e.agents and steps > 0  # the episode ended
    assert abs(sum(totals.values())) < 1e-6


def test_openspiel_plays_fives_and_threes_to_the_end():
    pyspiel = pytest.importorskip("pyspiel")
    import bones.envs.openspiel  # noqa: F401  (registers the games)

    game = pyspiel.load_game(f"bones_{F3}", {"players": 4})
    rng = random.Random(4)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert abs(sum(state.returns())) < 1e-6
