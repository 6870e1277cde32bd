"""The fixed action space (docs/envs.md): indices <-> moves, masks, play(index)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import CASES
from hypothesis import given, settings
from hypothesis import strategies as st

import bones
from bones import IllegalMove, Move, Round
from bones.core.actions import ActionSpace

OPTION_CASES = [(name, players, {}) for name, players in CASES] + [
    ("straight", 2, {"muggins_claim": True}),
    ("straight", 3, {"spinner_rule": "all_doubles"}),
    ("straight", 2, {"spinner_rule": "none", "may_draw_with_playable": True}),
    ("multiplayer", 2, {"voluntary_pass": True}),
    ("multiplayer", 2, {"voluntary_pass": True, "stock_reserve": 0}),
]


def random_rounds(variant, players, options, n=6, seed=0):
    """Rounds at random points of random play."""
    rng = random.Random(seed)
    for k in range(n):
        r = Round.deal(variant, players, seed=seed * 1000 + k, **options)
        while not r.is_over:
            yield r
            r.play(rng.choice(list(r.legal_moves)))


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_actions_are_the_legal_moves(variant, players, options):
    space = ActionSpace(variant, players, **options)
    mask = np.zeros(space.size, dtype=bool)
    for r in random_rounds(variant, players, options):
        assert r.action_space == space
        actions = r.legal_actions
        assert actions == sorted({space.index(m) for m in r.legal_moves})
        assert len(actions) == len(r.legal_moves)
        assert [space.move(a) for a in actions] == sorted(r.legal_moves, key=space.index)
        r.action_mask(mask)
        assert list(np.flatnonzero(mask)) == actions
        assert bytes(r.action_mask()) == mask.tobytes()
        mover = r.observation(r.to_move)
        assert mover.legal_actions == actions
        for seat in range(players):
            if seat != r.to_move:
                assert r.observation(seat).legal_actions == []


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_play_index_is_play_move(variant, players, options):
    rng = random.Random(1)
    a = Round.deal(variant, players, seed=5, **options)
    b = Round.deal(variant, players, seed=5, **options)
    while not a.is_over:
        action = rng.choice(a.legal_actions)
        a.play(action)
        b.play(Move.from_action(action, variant, players, **options))
        assert a == b


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_every_index_round_trips(variant, players, options):
    space = ActionSpace(variant, players, **options)
    for index in range(space.size):
        move = space.move(index)
        assert move.action(variant, players, **options) == index
        assert Move.parse(str(move)) == move
    names = [name for name, _, _ in space.sections]
    assert names[:3] == ["lead", "@W", "@E"]
    assert sum(count for _, _, count in space.sections) == space.size


def test_layouts_follow_the_options():
    assert ActionSpace("block", 2).size == 28 * 3
    assert ActionSpace("straight", 2).size == 28 * 5  # first_double: W E N S
    assert ActionSpace("straight", 2, spinner_rule="all_doubles").size == 28 * 17
    assert ActionSpace("kozel", 4).size == 28 * 3 + 42
    assert ActionSpace("straight", 2, muggins_claim=True).size == 2 * 28 * 5 + 1
    space = ActionSpace("multiplayer", 2, voluntary_pass=True)
    sections = {name: (first, count) for name, first, count in space.sections}
    assert sections["draw"] == (84, 1) and sections["pass"] == (85, 1)
    assert Move.parse("2-2@W+5-5@E").action("kozel", 4) == 84 + 6 * 2 + 4
    assert Move.parse("6-4").action("block") == bones.Tile.parse("6-4").index
    assert Move.parse("6-4@E").action("block") == 56 + bones.Tile.parse("6-4").index
    with pytest.raises(ValueError, match="not an action"):
        Move.parse("6-4@N").action("block")
    with pytest.raises(ValueError, match="not an action"):
        Move.parse("draw").action("block")


@pytest.mark.parametrize("bad", [True, False, -1, 84, 10**30, 1.0, "1", None, object()])
def test_bad_actions_leave_the_round_unchanged(bad):
    r = Round.deal("block", 2, seed=3)
    before = r.to_msgpack()
    with pytest.raises(IllegalMove):
        r.play(bad)
    assert r.to_msgpack() == before
    space = r.action_space
    if isinstance(bad, int):
        with pytest.raises(IllegalMove):
            space.move(bad)


def test_numpy_integers_and_a_finished_round():
    r = Round.deal("block", 2, seed=3)
    r.play(np.int64(r.legal_actions[0]))
    while not r.is_over:
        r.play(r.legal_actions[-1])
    assert r.legal_actions == []
    assert not any(r.action_mask())
    with pytest.raises(IllegalMove, match="over"):
        r.play(0)


def test_mask_buffers():
    r = Round.deal("straight", 2, seed=1)
    size = r.action_space.size
    for out in (np.zeros(size, np.uint8), np.zeros(size, bool), bytearray(size)):
        assert r.action_mask(out) is out
        assert sum(bytes(out)) == len(r.legal_actions)
    with pytest.raises(ValueError, match=f"{size} one-byte items"):
        r.action_mask(np.zeros(size - 1, bool))
    with pytest.raises(ValueError, match="one-byte"):
        r.action_mask(np.zeros(size, np.float32))
    with pytest.raises(TypeError, match="writable"):
        r.action_mask(bytes(size))
    with pytest.raises(TypeError):
        r.action_mask(np.zeros((size, 2), bool)[:, 0])  # not contiguous


def test_an_action_space_made_without_its_constructor_is_safe():
    space = ActionSpace.__new__(ActionSpace)
    assert space.size == 0
    with pytest.raises(TypeError):
        space.move(0)
    with pytest.raises(TypeError):
        space.index(Move.parse("6-4"))
    with pytest.raises(bones.OptionError):
        ActionSpace(3)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), index=st.integers(-(2**40), 2**40), steps=st.integers(0, 12))
def test_any_index_is_played_or_refused(seed, index, steps):
    r = Round.deal("straight", 2, seed=seed)
    for _ in range(steps):
        if r.is_over:
            break
        r.play(r.legal_actions[seed % len(r.legal_actions)])
    before = r.to_msgpack()
    legal = index in r.legal_actions
    try:
        r.play(index)
    except IllegalMove:
        assert not legal
        assert r.to_msgpack() == before
    else:
        assert legal
        assert r.moves[len(Round.from_msgpack(before).moves)] == r.action_space.move(index)


def test_the_core_does_not_import_numpy():
    import subprocess
    import sys

    code = (
        "import sys, bones\n"
        "import bones.core.actions, bones.core.tensor, bones.core.vector\n"
        "r = bones.Round.deal('straight', 2)\n"
        "r.action_mask(); r.observation_tensor(0); r.play(r.legal_actions[0])\n"
        "assert 'numpy' not in sys.modules, 'numpy imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
