"""Hardening of the compiled core (issue 6): no input, no plugin and no way of making an
object crashes the interpreter or leaves a round half-changed.

* ``play`` is atomic: a variant whose ``move_scorer`` raises, or returns something that is
  not an int in range, gets a ``BonesError`` naming the variant and its scorer, and the
  round is exactly as before (same bytes, same legal moves), however often it is retried.
* ``Move.parse`` / ``Tile.parse``: TypeError for every non-str (every time), ValueError for
  every str that is not a move or a tile.
* ``play`` / ``in legal_moves`` with anything: ``IllegalMove`` / ``False``, never another
  exception.
* Compiled classes made with ``__new__`` from Python refuse (TypeError) instead of handing
  out an uninitialised object (probed in a subprocess, so a crash is a failure, not the end
  of the test run).
* ``Observation.points_after`` agrees with what the round actually scores, for every
  variant, a Python ``move_scorer`` with ``score_scale`` and ``exact_target`` included.
"""

from __future__ import annotations

import copy
import pickle
import random
import subprocess
import sys
import textwrap

import pytest
from helpers import CASES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bones
from bones import BonesError, IllegalMove, Tile
from bones.core.moves import Move  # the line family's compiled classes, not the faces
from bones.core.round import Round
from bones.plugins import hookimpl
from bones.plugins.manager import get_plugin_manager

# -- a plugin variant with a Python move_scorer whose behaviour a test switches ---------------

BEHAVIOUR: dict[str, object] = {"mode": "count"}


def switchable_scorer(layout, move, count):
    mode = BEHAVIOUR["mode"]
    if mode == "raise":
        raise RuntimeError("scorer exploded")
    if mode == "count":
        # fives and threes: multiples of 5 or 3 score the count itself (scaled by the round)
        return count if count > 0 and (count % 5 == 0 or count % 3 == 0) else 0
    if callable(mode):
        return mode(layout, move, count)
    return mode  # a fixed (possibly bad) return value


class ScorerPlugin:
    @hookimpl
    def register_variants(self, register):
        straight = bones.variant("straight")
        register(straight.with_defaults("scored", move_scorer=switchable_scorer))
        register(
            straight.with_defaults(
                "scored-fives",
                move_scorer=switchable_scorer,
                score_scale=5,
                exact_target=True,
                target=60,
            )
        )


@pytest.fixture
def scored(fresh_registry):
    BEHAVIOUR["mode"] = "count"
    get_plugin_manager().register(ScorerPlugin(), name="core-safety-scorers")
    fresh_registry.reset(plugins=False)
    yield
    BEHAVIOUR["mode"] = "count"


def _state(r: Round) -> tuple[bytes, list[str], tuple[int, ...], tuple[object, ...]]:
    return r.to_msgpack(), [str(m) for m in r.legal_moves], r.scores, r.events


# -- 1. play is atomic -------------------------------------------------------------------------

BAD_RETURNS = [
    pytest.param("raise", "raised RuntimeError: scorer exploded", id="raises"),
    pytest.param("ten", "returned str 'ten', not an int", id="str"),
    pytest.param(5.0, "returned float 5.0, not an int", id="float"),
    pytest.param(None, "returned NoneType None, not an int", id="none"),
    pytest.param(True, "returned bool True, not an int", id="bool"),
    pytest.param(10**30, "out of range", id="huge"),
    pytest.param(-(10**6), "out of range", id="huge-negative"),
    pytest.param(2**63, "out of range", id="int64"),
    pytest.param(10**5000, "an int of 16610 bits, out of range", id="huge-str-limit"),
]


@pytest.mark.parametrize(("mode", "message"), BAD_RETURNS)
def test_play_is_atomic_when_the_scorer_fails(scored, mode, message):
    r = Round.deal("scored", seed=7)
    r.play(r.legal_moves[0])  # a position with a layout: the next move is a placement
    before = _state(r)
    BEHAVIOUR["mode"] = mode
    move = next(m for m in r.legal_moves if not (m.is_draw or m.is_pass))
    for _ in range(300):  # more retries than a round holds plies (256)
        with pytest.raises(BonesError) as info:
            r.play(move)
        assert not isinstance(info.value, ValueError)  # not IllegalMove: the move is legal
        text = str(info.value)
        assert "'scored'" in text and "move_scorer" in text and "switchable_scorer" in text
        assert message in text
        assert _state(r) == before
    if mode == "raise":
        assert isinstance(info.value.__cause__, RuntimeError)
    BEHAVIOUR["mode"] = "count"
    r.play(move)  # and the round goes on normally
    assert len(r.moves) == 2
    assert r.undo() == move and _state(r) == before


def test_play_is_atomic_for_the_lead_too(scored):
    r = Round.deal("scored", seed=3)
    before = _state(r)
    BEHAVIOUR["mode"] = "raise"
    for move in list(r.legal_moves):
        with pytest.raises(BonesError, match="move_scorer"):
            r.play(move)
        assert _state(r) == before


def test_a_scorer_cannot_change_the_round_it_scores(scored):
    r = Round.deal("scored", seed=5)
    before = _state(r)

    def meddle(layout, move, count):
        r.play(r.legal_moves[0])  # re-entering the round from inside its scorer
        return 0

    BEHAVIOUR["mode"] = meddle
    with pytest.raises(BonesError, match="may not play, undo or copy"):
        r.play(r.legal_moves[0])
    assert _state(r) == before

    def undo_it(layout, move, count):
        r.undo()
        return 0

    BEHAVIOUR["mode"] = undo_it
    with pytest.raises(BonesError, match="may not play, undo or copy"):
        r.play(r.legal_moves[0])
    assert _state(r) == before


def test_replays_with_a_failing_scorer(scored):
    r = Round.deal("scored", seed=11)
    hands, stock = [r.hand(0), r.hand(1)], r.stock
    for _ in range(4):
        r.play(r.legal_moves[0])
    data = r.to_msgpack()
    BEHAVIOUR["mode"] = "raise"
    with pytest.raises(BonesError, match="scorer exploded"):
        Round.from_deal("scored", hands=hands, stock=stock, leader=r.leader, moves=r.moves)
    with pytest.raises(ValueError, match="move_scorer"):
        Round.from_msgpack(data)
    BEHAVIOUR["mode"] = "count"
    assert Round.from_msgpack(data) == r


def test_a_replay_longer_than_a_round_is_refused():
    r = Round.deal("straight", seed=1)
    with pytest.raises(IllegalMove, match="more than 256 moves"):
        Round.from_deal(
            "straight",
            hands=[r.hand(0), r.hand(1)],
            stock=r.stock,
            leader=r.leader,
            moves=["draw"] * 300,
        )


# -- 2. Move.parse and Tile.parse --------------------------------------------------------------

NON_STR = [
    None,
    0,
    1,
    -1,
    10**30,
    1.5,
    b"6-4",
    bytearray(b"6-4"),
    ["6-4"],
    ("6", "4"),
    {},
    object(),
]
BAD_STR = [
    "",
    " ",
    "\x00",
    "\ud800",
    "\udfff-1",
    "6-4\ud800",
    "x" * 1_000_000,
    "6-4" * 100_000,
    "9" * 5000 + "-1",
    "99999999999999999999-1",
    "6-99999999999999999999",
    "-1-1",
    "7-1",
    "6-",
    "٣-1",  # an Arabic-Indic digit: not ASCII
    "6-4@Q",
    "6-4@" + "W" * 100,
    "6-4!!",
    "!" * 100_000,
    "6-4" + "!" * 100_000,
    "2-2@W+5-5@E+1-1@N",
    "6-4@W+5-5@E",
    "2-2+5-5",
]


@pytest.mark.parametrize("value", NON_STR, ids=repr)
def test_parse_of_a_non_str_is_a_type_error_every_time(value):
    for _ in range(5):
        with pytest.raises(TypeError, match="not "):
            Move.parse(value)
        with pytest.raises(TypeError, match="not "):
            Tile.parse(value)


@pytest.mark.parametrize("text", BAD_STR, ids=lambda t: repr(t)[:30])
def test_parse_of_a_bad_str_is_a_value_error_every_time(text):
    for _ in range(3):
        with pytest.raises(ValueError) as info:
            Move.parse(text)
        assert len(str(info.value)) < 400  # a huge input is not echoed whole
        with pytest.raises(ValueError) as info:
            Tile.parse(text)
        assert len(str(info.value)) < 400


def test_parse_still_reads_every_form():
    assert str(Move.parse(" 4-6@w ")) == "6-4@W"
    assert str(Move.parse("6-4@W!")) == "6-4@W!"
    assert str(Move.parse("5-5@E+2-2@W")) == "2-2@W+5-5@E"
    assert str(Tile.parse("4:6")) == "6-4" and Tile.parse("06-4") is Tile.parse("6-4")
    assert Tile.parse(bones.TILES[5]) is bones.TILES[5]


def test_tiles_and_moves_still_copy_and_pickle():
    t = Tile.parse("6-4")
    m = Move.parse("6-4@W")
    assert copy.copy(t) is t and copy.deepcopy(t) is t and pickle.loads(pickle.dumps(t)) is t
    assert copy.copy(m) == m and pickle.loads(pickle.dumps(m)) == m
    r = Round.deal("straight", seed=2)
    r.play(r.legal_moves[0])
    assert pickle.loads(pickle.dumps(r)) == r and copy.copy(r) == r and copy.deepcopy(r) == r


# -- 3. compiled classes made without their constructor ----------------------------------------

PROBE = textwrap.dedent(
    """
    import bones
    from bones.core.round import LegalMoves, Round
    from bones.core.rules import CompiledRules
    from bones.core.moves import Move
    from bones.core.tiles import Tile

    classes = [Round, LegalMoves, Move, Tile, CompiledRules]

    class SubRound(Round):
        pass

    class SubMove(Move):
        pass

    classes += [SubRound, SubMove]

    def poke(obj):
        # every public name: call methods with no or one argument, read properties
        for name in dir(obj):
            if name.startswith("__") and name not in (
                "__len__", "__iter__", "__repr__", "__str__", "__hash__", "__bool__",
                "__copy__", "__reduce__", "__getitem__", "__contains__", "__eq__"
            ):
                continue
            try:
                value = getattr(obj, name)
            except Exception:
                continue
            if callable(value):
                for args in ((), (0,), ("6-4",), (obj,)):
                    try:
                        value(*args)
                    except Exception:
                        pass

    for cls in classes:
        for make in (
            lambda: cls.__new__(cls),
            lambda: cls.__new__(cls, None),
            lambda: cls.__new__(cls, object()),
            lambda: cls(),
        ):
            try:
                obj = make()
            except TypeError:
                continue
            print("MADE", cls.__name__)
            poke(obj)

    # the real objects still work, and poking them is harmless
    r = Round.deal("straight", seed=1)
    poke(r.legal_moves)
    poke(r.legal_moves[0])
    poke(bones.TILES[3])
    poke(r.rules)
    assert len(r.legal_moves) == 7
    print("OK")
    """
)


def test_compiled_classes_refuse_new_without_constructor():
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "MADE" not in proc.stdout, proc.stdout
    assert proc.stdout.strip().endswith("OK")


@pytest.mark.parametrize(
    "cls",
    [Round, Move, Tile, type(Round.deal("block").legal_moves), type(Round.deal("block").rules)],
)
def test_new_is_a_clear_type_error(cls):
    with pytest.raises(TypeError, match="use "):
        cls.__new__(cls)


SEARCH_PROBE = textwrap.dedent(
    """
    import bones
    from bones.observation import Observation
    from bones.core.search import choose

    r = bones.Round.deal("straight", seed=1)
    obs = r.observation(r.to_move)
    legal = tuple(r.legal_moves)
    bad = [
        {"seat": 7},
        {"seat": -1},
        {"hand_sizes": (7,) * 5},
        {"hand_sizes": (7, 300)},
        {"layout": legal[:1] * 40},
        {"stock_size": 300},
    ]
    for change in bad:
        fields = {k: getattr(obs, k) for k in Observation.FIELDS}
        fields.update(change)
        try:
            choose(Observation(**fields), legal, simulations=50, seed=1)
        except ValueError:
            continue
        raise SystemExit(f"accepted {change}")
    print("OK")
    """
)


def test_search_refuses_an_inconsistent_observation():
    # the sampler indexes fixed C arrays by seat, sizes and layout length
    proc = subprocess.run(
        [sys.executable, "-c", SEARCH_PROBE], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-500:]
    assert proc.stdout.strip() == "OK"


# -- 4. play / in with anything ------------------------------------------------------------------

ODD_MOVES = [
    "99999999999999999999-1",
    "6-99999999999999999999@W",
    "9" * 5000 + "-1",
    "",
    "\ud800",
    "x" * 100_000,
    "6-4@W" * 1000,
    "muggins",
    "draw",
    "pass",
    "2-2@W+5-5@E",
    "6-4@N7",
    None,
    0,
    10**30,
    1.5,
    b"6-4",
    ["6-4"],
    object(),
    Tile.parse("6-4"),
    Move.parse("6-6@S7"),
    Move.parse("2-2@W+5-5@E"),
    Move.parse("muggins"),
]


@pytest.mark.parametrize("move", ODD_MOVES, ids=lambda m: repr(m)[:30])
def test_play_and_contains_of_anything_are_illegal_move_and_false(move):
    r = Round.deal("straight", seed=4)
    r.play(r.legal_moves[0])
    before = _state(r)
    for _ in range(3):
        assert (move in r.legal_moves) is False
        with pytest.raises(IllegalMove) as info:
            r.play(move)
        assert len(str(info.value)) < 1000
        assert _state(r) == before


def test_seat_and_index_arguments_out_of_range_are_clean_errors():
    r = Round.deal("straight", seed=4)
    for seat in (10**30, -(10**30), 2, -1):
        with pytest.raises(ValueError, match="no seat"):
            r.hand(seat)
        with pytest.raises(ValueError, match="no seat"):
            r.side_of(seat)
        with pytest.raises(ValueError, match="no seat"):
            r.observation(seat)
    for seat in (None, 1.0, "0", True):
        with pytest.raises(TypeError):
            r.hand(seat)
    for index in (10**30, -(10**30), 7, -8):
        with pytest.raises(IndexError):
            r.legal_moves[index]
    assert r.legal_moves[-1] == list(r.legal_moves)[-1]


# -- 7. points_after agrees with the round ------------------------------------------------------


def _check_points_after(r: Round) -> int:
    """For every legal placement of the seat to move: what its observation predicts equals
    what the round adds to that side when the move is played (the play event's points,
    which the round also added to the side's score).  Returns how many were compared."""
    seat = r.to_move
    obs = r.observation(seat)
    side = r.side_of(seat)
    compared = 0
    for move in r.legal_moves:
        if move.is_draw or move.is_pass:
            continue
        after = r.copy()
        n_events = len(after.events)
        before = after.scores[side]
        after.play(move)
        event = after.events[n_events]
        assert event.kind == ("muggins" if move.is_muggins else "play") and event.seat == seat
        assert after.scores[side] - before >= event.points or after.is_over
        predicted = obs.points_after(move)
        assert predicted == event.points, (r.variant, str(move), predicted, event.points)
        compared += 1
    return compared


def _random_game(variant: str, players: int, seed: int, rng: random.Random, **kw) -> int:
    r = Round.deal(variant, players=players, seed=seed, **kw)
    compared = 0
    while not r.is_over:
        compared += _check_points_after(r)
        r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
    return compared


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), choices=st.randoms(use_true_random=False))
def test_points_after_agrees_with_the_round_builtin_variants(seed, choices):
    for variant, players in CASES:
        _random_game(variant, players, seed, choices)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    choices=st.randoms(use_true_random=False),
    scores=st.tuples(st.integers(48, 60), st.integers(48, 60)),
    exact=st.booleans(),
)
def test_points_after_agrees_with_the_round_muggins_scaled(seed, choices, scores, exact):
    # muggins_claim with score_scale=5: a claimed or a stolen count is scaled once
    opts = {"muggins_claim": True, "score_scale": 5, "target": 61, "exact_target": exact}
    r = Round.deal("straight", seed=seed, scores=list(scores), **opts)
    while not r.is_over:
        _check_points_after(r)
        r.play(r.legal_moves[choices.randrange(len(r.legal_moves))])


def test_a_stolen_count_is_scaled_once():
    hands = [["5-5", "6-1"], ["6-6", "4-1", "3-3"]]
    r = Round.from_deal(
        "straight", hands=hands, leader=0, partial=True, muggins_claim=True, score_scale=5
    )
    r.play("5-5")  # the lead counts 10, not claimed
    assert r.observation(1).points_after("muggins") == 2
    r.play("muggins")
    assert r.scores == (0, 2) and r.events[-1].points == 2


@pytest.mark.parametrize("variant", ["scored", "scored-fives"])
def test_points_after_agrees_with_the_round_python_scorer(scored, variant):
    # scores near the target of 60 make exact_target void some counts
    compared = 0

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(
        seed=st.integers(0, 2**32),
        choices=st.randoms(use_true_random=False),
        scores=st.tuples(st.integers(0, 60), st.integers(0, 60)),
    )
    def run(seed, choices, scores):
        nonlocal compared
        compared += _random_game(variant, 2, seed, choices, scores=list(scores))

    run()
    assert compared > 50


def test_points_after_python_scorer_with_score_scale_and_exact_target(scored):
    # a fixed deal: the lead 5-5 counts 10, the scorer returns 10, score_scale=5 makes it
    # 2; with the side at 59 of target 60 exact_target voids it, at 58 it reaches 60
    hands = [["5-5", "6-1"], ["6-6", "4-1"]]
    for score, expected in ((0, 2), (58, 2), (59, 0)):
        r = Round.from_deal("scored-fives", hands=hands, leader=0, scores=[score, 0], partial=True)
        assert r.observation(0).points_after("5-5") == expected
        r.play("5-5")
        assert r.events[0].points == expected and r.scores[0] == score + expected


def test_points_after_with_a_failing_scorer_is_a_bones_error(scored):
    r = Round.deal("scored", seed=1)
    obs = r.observation(r.to_move)
    BEHAVIOUR["mode"] = "oops"
    with pytest.raises(BonesError, match="not an int"):
        obs.points_after(r.legal_moves[0])


def test_a_pimc_thread_made_outside_pimc_refuses_to_run():
    """pimc's per-thread task is reachable as bones.core.search._PimcThread: made by
    hand it has no sampler, and running it must be an error, not a crash (a subprocess,
    so a segfault fails the test)."""
    code = textwrap.dedent(
        """
        from bones.core.search import _PimcThread
        for task in (_PimcThread(), _PimcThread.__new__(_PimcThread)):
            try:
                task.run()
            except ValueError as exc:
                assert "made by pimc" in str(exc)
            else:
                raise SystemExit("ran")
        print("OK")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "OK", proc.stderr[-2000:]
