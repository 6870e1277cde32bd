"""Train games: what the double-six-only APIs say of them, and bad input to a train
round — each a clear error naming the variant and the option (issue 24)."""

from __future__ import annotations

import pytest

import bones
from bones.core.actions import ActionSpace
from bones.core.rules import OtherCore
from bones.core.tensor import TensorSpec
from bones.errors import OptionError

TRAIN_VARIANTS = [("mexican-train", 4), ("chicken-foot", 3)]
NOT_YET = r"does not support the train games \(Mexican Train, Chicken Foot\) yet"


@pytest.mark.parametrize(("variant", "players"), TRAIN_VARIANTS)
def test_the_action_space_and_the_tensor_say_not_yet(variant, players):
    for api, make in (("ActionSpace", ActionSpace), ("TensorSpec", TensorSpec)):
        with pytest.raises(OptionError, match=rf"^{variant}: .*{api} {NOT_YET}") as info:
            make(variant, players)
        assert type(info.value) is OtherCore and info.value.api == api


@pytest.mark.parametrize(("variant", "players"), TRAIN_VARIANTS)
def test_vector_env_and_pettingzoo_take_them(variant, players):
    """Since issue 30 they play the train games with TrainActionSpace (tests/test_train_envs.py)."""
    pytest.importorskip("numpy")
    from bones.envs import VectorEnv
    from bones.train_actions import TrainActionSpace

    assert VectorEnv(variant, players, n=2).action_space == TrainActionSpace(variant, players)
    pytest.importorskip("pettingzoo")
    from bones.envs.pettingzoo import raw_env

    assert raw_env(variant=variant, players=players).space == TrainActionSpace(variant, players)


@pytest.mark.parametrize(("variant", "players"), TRAIN_VARIANTS)
def test_openspiel_does_not_register_them_and_says_which_family(variant, players):
    pyspiel = pytest.importorskip("pyspiel")
    import bones.envs.openspiel as bos

    assert f"bones_{variant}" not in pyspiel.registered_names()
    assert "bones_straight" in pyspiel.registered_names()
    game_class = type("G", (bos.BonesGame,), {"variant": variant})
    with pytest.raises(
        OptionError, match=rf"^{variant}: bones.envs.openspiel .* not the trains family"
    ):
        game_class({"players": players})


def test_double_six_variants_still_build():
    assert ActionSpace("straight", 2).size > 0 and TensorSpec("block", 4).size > 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: bones.Round.deal("mexican-train", players=9),
            r"^mexican-train: players must be one of 2, 3, 4, 5, 6, 7, 8; got 9",
        ),
        (
            lambda: bones.Round.deal("chicken-foot", players=1),
            r"^chicken-foot: players must be one of 2, .*; got 1",
        ),
        (
            lambda: bones.Round.deal("mexican-train", players=8, set="double-6", hand_size={8: 5}),
            r"^mexican-train: option 'hand_size' 5 with 8 players needs 40 tiles; "
            r"the set has 27 besides the engine double",
        ),
        (
            lambda: bones.Round.deal("chicken-foot", players=8, set="double-6", hand_size=4),
            r"^chicken-foot: option 'hand_size' 4 with 8 players needs 32 tiles",
        ),
        (
            lambda: bones.Round.deal("mexican-train", players=4, engine=13),
            r"^mexican-train: 'engine' must be an int from 0 to 12 .*got 13",
        ),
        (
            lambda: bones.Round.deal("mexican-train", players=4, set="double-9", engine=10),
            r"^mexican-train: 'engine' must be an int from 0 to 9 \(the double-9 set",
        ),
        (
            lambda: bones.Round.deal("mexican-train", players=4, engine=True),
            r"^mexican-train: 'engine' must be an int .*got True",
        ),
        (
            lambda: bones.Round.deal("chicken-foot", players=4, engine_toes=5),
            r"^chicken-foot: option 'engine_toes' must be one of 4, 6; got 5",
        ),
        (
            lambda: bones.Round.deal("mexican-train", players=4, engine_toes=4),
            r"^mexican-train: unknown option 'engine_toes'",
        ),
        (
            lambda: bones.Round.deal("chicken-foot", players=4, first_turn_own_train=True),
            r"^chicken-foot: unknown option 'first_turn_own_train'",
        ),
        (
            lambda: bones.Round.deal("mexican-train", players=4, lead_tile="6-6"),
            r"^mexican-train: a train round has no lead tile .*lead_tile='6-6'",
        ),
        (
            lambda: bones.Round.from_deal(
                "chicken-foot", hands=[["1-0"], ["1-1"]], stock=[], lead_tile="1-0"
            ),
            r"^chicken-foot: a train round has no lead tile",
        ),
        (
            lambda: bones.Round.deal("mexican-train", players=4, set="double-15"),
            r"^mexican-train: option 'set' must be one of",
        ),
        (
            lambda: bones.Round.deal("mexican-train", players=4, zero_double=3),
            r"^mexican-train: option 'zero_double' must be one of 0, 50; got 3",
        ),
    ],
)
def test_bad_options_name_the_variant_and_the_option(call, message):
    with pytest.raises(OptionError, match=message):
        call()


@pytest.mark.parametrize(
    ("hands", "options", "kind", "message"),
    [
        ([["12-0"], ["1-1"]], {"set": "double-6"}, ValueError,
         r"^mexican-train \(set double-6\): hands\[0\]: tile 12-0 is not in the double-6 set"),
        ([["13-0"], ["1-1"]], {}, ValueError,
         r"^mexican-train \(set double-12\): hands\[0\]\[0\]: not a tile: '13-0'"),
        ([["1-0"], ["1-0"]], {}, ValueError,
         r"^mexican-train \(set double-12\): tile 1-0 is dealt twice"),
        ([["12-12"], ["1-0"]], {}, ValueError, r"12-12 is the engine double"),
        ([[1.5], ["1-0"]], {}, TypeError, r"^mexican-train \(set double-12\): hands\[0\]\[0\]"),
    ],
)  # fmt: skip
def test_from_deal_with_a_tile_outside_the_set_names_the_variant(hands, options, kind, message):
    with pytest.raises(kind, match=message):
        bones.Round.from_deal("mexican-train", hands=hands, stock=[], partial=True, **options)


def test_a_bad_call_leaves_nothing_half_made():
    # the errors come before any round exists: the next deal is the same as ever
    before = bones.Round.deal("mexican-train", players=4, seed=3).to_msgpack()
    for bad in ({"engine": 13}, {"hand_size": {4: 40}}, {"lead_tile": "1-1"}):
        with pytest.raises(OptionError):
            bones.Round.deal("mexican-train", players=4, seed=3, **bad)
    assert bones.Round.deal("mexican-train", players=4, seed=3).to_msgpack() == before
