"""bones.train_actions.TrainActionSpace: the fixed action space of the train games (issue
24, docs/envs.md): one index per (tile, target), the same for every seat and round of a
set and player count; masks are the legal moves; bad input is a clear error."""

from __future__ import annotations

import dataclasses
import random

import pytest
from helpers import register_plugin_variants

import bones
from bones.core.trains import TrainMove
from bones.core.wideset import SetTile
from bones.errors import OptionError
from bones.train_actions import TrainActionSpace

CASES = [
    ("mexican-train", 4, {}, 91, 5),
    ("mexican-train", 2, {"set": "double-6"}, 28, 3),
    ("mexican-train", 8, {"set": "double-9"}, 55, 9),
    ("chicken-foot", 3, {}, 55, 55),
    ("chicken-foot", 6, {"set": "double-12"}, 91, 91),
]


@pytest.mark.parametrize(("variant", "players", "options", "tiles", "targets"), CASES)
def test_the_layout_and_every_index_round_trips(variant, players, options, tiles, targets):
    space = TrainActionSpace(variant, players, **options)
    assert (len(space.tiles), len(space.targets)) == (tiles, targets)
    assert space.size == len(space) == tiles * targets
    assert list(space.tiles) == sorted(space.tiles)  # SetTile index order
    if variant == "mexican-train":
        assert space.targets == (*(f"P{s}" for s in range(players)), "M")
    else:
        assert space.targets == tuple(str(t) for t in space.tiles)
    for i in range(space.size):
        move = space.move(i)
        tile, target = divmod(i, targets)
        assert move == TrainMove.parse(f"{space.tiles[tile]}@{space.targets[target]}")
        assert space.index(move) == i and space.index(str(move)) == i
    assert space == TrainActionSpace(variant, players, **options)
    assert hash(space) == hash(TrainActionSpace(variant, players, **options))


@pytest.mark.parametrize(("variant", "players", "options", "tiles", "targets"), CASES)
def test_random_rounds_through_the_mask(variant, players, options, tiles, targets):
    space = TrainActionSpace(variant, players, **options)
    for seed in range(3):
        r = bones.Round.deal(variant, players, seed=seed, **options)
        rng = random.Random(seed)
        mask = bytearray(space.size)
        plies = 0
        while not r.is_over:
            space.action_mask(r, mask)
            legal = [i for i, m in enumerate(mask) if m]
            assert legal == space.legal_actions(r)
            assert sorted(map(str, r.legal_moves)) == sorted(str(space.move(i)) for i in legal)
            r.play(space.move(rng.choice(legal)))
            plies += 1
        assert plies > 0 and space.legal_actions(r) == []
        space.action_mask(r, mask)
        assert not any(mask)


def test_numpy_masks():
    np = pytest.importorskip("numpy")
    space = TrainActionSpace("chicken-foot", 3)
    r = bones.Round.deal("chicken-foot", 3, seed=4)
    for dtype in (bool, np.int8, np.uint8):
        mask = np.zeros(space.size, dtype)
        space.action_mask(r, mask)
        assert np.flatnonzero(mask).tolist() == space.legal_actions(r)
    with pytest.raises(ValueError, match="writable buffer of 3025 bytes"):
        space.action_mask(r, np.zeros(space.size, np.float32))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: TrainActionSpace("straight", 2), OptionError,
         r"^straight: a straight variant is played on the double-six core; its action "
         r"space is bones.ActionSpace$"),
        (lambda: TrainActionSpace("mexican-train", 9), OptionError,
         r"^mexican-train: players must be one of 2, .*; got 9"),
        (lambda: TrainActionSpace("chicken-foot", 3, set="double-7"), OptionError,
         r"^chicken-foot: option 'set' must be one of"),
        (lambda: TrainActionSpace("no-such-game", 3), OptionError, r"unknown variant"),
        (lambda: TrainActionSpace("mexican-train").move(455), ValueError,
         r"^no action 455: mexican-train has actions 0..454$"),
        (lambda: TrainActionSpace("mexican-train").move(-1), ValueError, r"^no action -1"),
        (lambda: TrainActionSpace("mexican-train").move(True), TypeError, r"not bool"),
        (lambda: TrainActionSpace("mexican-train").move("3"), TypeError, r"not str"),
        (lambda: TrainActionSpace("mexican-train").index("12-5@P4"), ValueError,
         r"^12-5@P4 is not a move of mexican-train with the double-12 set and 4 players$"),
        (lambda: TrainActionSpace("mexican-train", set="double-9").index("12-5@M"), ValueError,
         r"not a move of mexican-train with the double-9 set"),
        (lambda: TrainActionSpace("mexican-train").index("9-4@9-9"), ValueError,
         r"not a move of mexican-train"),
        (lambda: TrainActionSpace("chicken-foot", 3).index("9-4@M"), ValueError,
         r"not a move of chicken-foot"),
        (lambda: TrainActionSpace("mexican-train").legal_actions(
            bones.Round.deal("mexican-train", 3)), ValueError,
         r"^this space is for mexican-train \(double-12, 4 players\), not a trains round "
         r"of double-12 with 3 players$"),
        (lambda: TrainActionSpace("mexican-train").legal_actions(bones.Round.deal("block")),
         TypeError, r"a TrainRound, not Round"),
        (lambda: TrainActionSpace("mexican-train").action_mask(
            bones.Round.deal("mexican-train", 4), bytearray(454)), ValueError,
         r"writable buffer of 455 bytes"),
        (lambda: TrainActionSpace("mexican-train").action_mask(
            bones.Round.deal("mexican-train", 4), bytes(455)), ValueError,
         r"writable buffer of 455 bytes"),
    ],
)  # fmt: skip
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_variant_object_and_a_plugins_variant(fresh_registry):
    theirs = dataclasses.replace(
        bones.variant("mexican-train"), name="their-train", description="Theirs", plugin=None
    )
    register_plugin_variants(fresh_registry, "their-trains", theirs)
    assert TrainActionSpace(bones.variant("their-train"), 3) == TrainActionSpace("their-train", 3)
    assert TrainActionSpace("their-train", 3).size == 91 * 4
    assert SetTile.parse("12-12") in TrainActionSpace("their-train", 3).tiles
