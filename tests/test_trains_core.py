"""The compiled core of the train games (``bones.core.trains``): the rules of TRAINS_SPEC on
small hand-made positions, play/undo exactness, msgpack and hidden information."""

from __future__ import annotations

import gc
import pickle
import random
import re

import pytest

trains = pytest.importorskip("bones.core.trains")
from bones.core.trains import TrainMove, TrainRound, random_playouts  # noqa: E402
from bones.core.wideset import SET_TILES, SetTile  # noqa: E402
from bones.errors import IllegalMove, OptionError  # noqa: E402
from bones.variant import STANDARD_HANDS  # noqa: E402


def outcome(r):
    """``(reason, out seat, penalties)`` of a finished round."""
    return (r.result.reason, r.result.out_seat, r.result.penalties)


def legal(r: TrainRound) -> set[str]:
    return {str(m) for m in r.legal_moves}


def six(layout: str, hands, stock=(), **kw) -> TrainRound:
    """A hand-made double-6 position, engine 6-6, seat 0 leading."""
    kw.setdefault("leader", 0)
    return TrainRound.from_deal(
        layout, set_max=6, hands=hands, stock=stock, engine=6, partial=True, **kw
    )


# --- tiles and moves -----------------------------------------------------------------------


def test_set_tiles_numbering_and_text():
    assert len(SET_TILES) == 91
    for a in range(13):
        for b in range(a, 13):
            t = SET_TILES[a * 13 - a * (a - 1) // 2 + (b - a)]
            assert (t.low, t.high) == (a, b)
            assert str(t) == f"{b}-{a}"
            assert SetTile.parse(f"{a}-{b}") is t
            assert SetTile.parse(f"{b}-{a}") is t
            assert t.pips == a + b and t.is_double == (a == b)
    assert SetTile.parse(SET_TILES[5]) is SET_TILES[5]
    assert hash(SetTile.parse("12-5")) == SetTile.parse("5-12").index
    for bad in ("13-1", "x", "1-2-3", "", "-1-2"):
        with pytest.raises(ValueError):
            SetTile.parse(bad)
    with pytest.raises(TypeError):
        SetTile.parse(5)


@pytest.mark.parametrize("text", ["12-5@M", "7-3@P1", "9-4@9-9", "0-0@P7", "4-2@9-4"])
def test_move_text_round_trips(text):
    m = TrainMove.parse(text)
    assert str(m) == text
    assert TrainMove.parse(str(m)) is m
    assert m.kind == "place" and m.tile2 is None
    assert str(m.tile) == text.split("@")[0]
    assert m.target == text.split("@")[1]


def test_move_parse_normalises_and_refuses():
    assert str(TrainMove.parse(" 5-12@m ")) == "12-5@M"
    assert str(TrainMove.parse("4-9@9-9")) == "9-4@9-9"
    for bad in ("12-5", "12-5@", "12-5@P8", "12-5@Q", "13-5@M", "12-5@P", "@M", "x" * 100):
        with pytest.raises(ValueError):
            TrainMove.parse(bad)
    with pytest.raises(TypeError):
        TrainMove.parse(None)


def test_objects_made_without_their_constructor_are_refused():
    for cls in (TrainRound, TrainMove, SetTile):
        with pytest.raises(TypeError):
            cls.__new__(cls)
        with pytest.raises(TypeError):
            cls()


# --- Mexican Train ---------------------------------------------------------------------


def test_markers_go_on_with_a_pass_and_off_with_the_owners_placement():
    r = six("trains", [["5-0", "3-3", "1-5"], ["6-1", "1-2", "4-4"]])
    # seat 0 holds no 6 and the stock is empty: it passes at once, its train goes public
    assert r.log == (("pass", 0, None, None),)
    assert r.to_move == 1
    assert r.trains[0] == (6, 0, True)
    assert legal(r) == {"6-1@P0", "6-1@P1", "6-1@M"}
    r.play("6-1@P0")
    assert legal(r) == {"5-1@P0"}  # P1 is private, M shows 6
    r.play("5-1@P0")
    assert r.trains[0] == (5, 2, False)  # the owner's placement lifted the marker
    # seat 1 cannot play (P0 is private again): it passes and its train goes public
    assert r.log[-1] == ("pass", 1, None, None)
    assert r.trains[1] == (6, 0, True)
    assert legal(r) == {"5-0@P0"}
    assert r.trains[2] == (6, 0, True)  # the Mexican train is always public


def test_mexican_train_starts_with_the_engine_number():
    r = six("trains", [["6-2", "2-3", "4-0"], ["6-5", "1-0"]])
    assert legal(r) == {"6-2@P0", "6-2@M"}
    r.play("6-2@M")
    assert r.trains[-1] == (2, 1, True)
    assert legal(r) == {"6-5@P1", "6-5@M"} - {"6-5@M"}  # M now shows 2
    r.play("6-5@P1")
    assert legal(r) == {"3-2@M"}
    assert r.open_ends == (("P0", 6), ("M", 2))


def test_double_satisfied_by_the_same_player():
    r = six("trains", [["6-3", "3-3", "3-1", "6-2"], ["6-5", "5-4", "2-2"]])
    r.play("6-3@P0")
    r.play("6-5@P1")
    assert "6-2@M" in legal(r)
    r.play("3-3@P0")
    assert r.pending == "P0"
    assert r.to_move == 0  # the bonus move
    assert legal(r) == {"3-1@P0"}  # not 6-2@M: the double must be satisfied first
    assert r.open_ends == (("P0", 3),)
    r.play("3-1@P0")
    assert r.pending is None
    assert r.to_move == 1


def test_double_satisfied_by_the_next_player_after_a_marker():
    r = six("trains", [["6-3", "3-3", "2-0"], ["6-5", "3-4", "5-2"]])
    r.play("6-3@P0")
    r.play("6-5@P1")
    r.play("3-3@P0")
    # seat 0 cannot satisfy, the stock is empty: it passes and its train goes public
    assert r.log[-2:] == (("place", 0, "3-3", "P0"), ("pass", 0, None, None))
    assert r.trains[0][2] is True
    assert r.to_move == 1
    assert r.pending == "P0"
    assert legal(r) == {"4-3@P0"}  # not 5-2@P1: bound to the pending double
    r.play("4-3@P0")
    assert r.pending is None
    assert r.trains[0] == (4, 3, True)  # seat 1's placement leaves seat 0's marker
    assert r.log[-1] == ("pass", 0, None, None)  # 2-0 fits nowhere: seat 0 passes
    assert r.to_move == 1 and legal(r) == {"5-2@P1"}


def test_double_satisfied_two_seats_later():
    r = six("trains", [["6-3", "3-3", "2-0"], ["6-5", "1-0", "4-4"], ["6-4", "3-1", "5-5"]])
    for move in ["6-3@P0", "6-5@P1", "6-4@P2", "3-3@P0"]:
        r.play(move)
    assert r.log[-2:] == (("pass", 0, None, None), ("pass", 1, None, None))
    assert [t[2] for t in r.trains] == [True, True, False, True]
    assert r.to_move == 2 and r.pending == "P0"
    assert legal(r) == {"3-1@P0"}  # 5-5 would fit seat 1's public train, but not now
    r.play("3-1@P0")
    assert r.pending is None
    assert r.log[-1] == ("pass", 0, None, None)
    assert r.to_move == 1 and legal(r) == {"1-0@P0"}


def test_forced_draw_must_be_played_and_is_hidden():
    r = six("trains", [["6-3", "3-3", "2-0"], ["6-5", "3-4", "5-2"]], stock=["5-3", "1-0"])
    r.play("6-3@P0")
    r.play("6-5@P1")
    r.play("3-3@P0")
    assert r.log[-1] == ("draw", 0, None, None)
    assert r.log_of(0)[-1] == ("draw", 0, "5-3", None)
    assert r.log_of(1)[-1] == ("draw", 0, None, None)
    assert r.to_move == 0 and r.stock_size == 1
    assert legal(r) == {"5-3@P0"}  # exactly the drawn tile's placements
    assert [str(t) for t in r.hand(0)] == ["2-0", "5-3"]


def test_drawn_tile_that_does_not_fit_is_a_pass():
    r = six("trains", [["5-0", "3-3"], ["6-1"]], stock=["2-1", "4-4"])
    assert r.log == (("draw", 0, None, None), ("pass", 0, None, None))
    assert r.hand_sizes == (3, 1) and r.stock_size == 1 and r.to_move == 1


def test_a_drawn_double_is_played_and_the_bonus_move_draws_again():
    r = six("trains", [["6-3", "1-0"], ["6-5", "4-4"]], stock=["3-3", "3-2", "2-2"])
    r.play("6-3@P0")
    r.play("6-5@P1")
    assert r.log[-1] == ("draw", 0, None, None)
    assert legal(r) == {"3-3@P0"}
    r.play("3-3@P0")
    assert r.log[-2:] == (("place", 0, "3-3", "P0"), ("draw", 0, None, None))
    assert r.to_move == 0 and r.pending == "P0" and legal(r) == {"3-2@P0"}
    r.play("3-2@P0")
    assert r.pending is None and r.stock_size == 0
    # seat 1 draws 2-2 (fits nowhere open to it) and passes; seat 0 passes, and its marker
    # opens P0 (showing 2) to seat 1's 2-2: not blocked, play goes on
    assert r.log[-3:] == (("draw", 1, None, None), ("pass", 1, None, None),
                          ("pass", 0, None, None))  # fmt: skip
    assert r.to_move == 1 and legal(r) == {"2-2@P0"}
    r.play("2-2@P0")
    # nobody can satisfy the double: blocked
    assert outcome(r) == ("blocked", None, (1, 8))
    before = snapshot(r)
    r.undo()
    r.undo()
    r.undo()
    assert r.stock_size == 2 and [str(t) for t in r.hand(0)] == ["1-0", "3-3"]
    r.play("3-3@P0")
    r.play("3-2@P0")
    r.play("2-2@P0")
    assert snapshot(r) == before


def test_first_turn_own_train():
    r = six("trains", [["6-1", "6-2"], ["6-3", "1-4"]], first_turn_own_train=True)
    assert legal(r) == {"6-1@P0", "6-2@P0"}
    r.play("6-1@P0")
    assert legal(r) == {"6-3@P1"}
    r.play("6-3@P1")
    assert legal(r) == {"6-2@M"}
    plain = six("trains", [["6-1", "6-2"], ["6-3", "1-4"]])
    assert legal(plain) == {"6-1@P0", "6-2@P0", "6-1@M", "6-2@M"}


def test_first_turn_own_train_and_a_pending_double():
    hands = [["6-1", "1-1", "5-0"], ["1-2", "3-0"]]
    r = six("trains", hands, first_turn_own_train=True)
    r.play("6-1@P0")
    assert r.log[-1] == ("pass", 1, None, None)  # no 6 for its own empty train
    r.play("1-1@P0")
    # seat 0 cannot satisfy; seat 1 holds 1-2 but may place only on its own empty train
    assert r.is_over
    assert outcome(r) == ("blocked", None, (5, 6))
    plain = six("trains", hands)
    plain.play("6-1@P0")
    plain.play("1-1@P0")
    assert plain.to_move == 1 and legal(plain) == {"2-1@P0"}


def test_out_on_an_unsatisfied_double():
    r = six("trains", [["6-1", "1-1"], ["6-2", "2-3"]])
    r.play("6-1@P0")
    r.play("6-2@P1")
    r.play("1-1@P0")
    assert r.is_over and r.to_move is None and r.legal_moves == ()
    assert outcome(r) == ("out", 0, (0, 5))
    with pytest.raises(IllegalMove, match="over"):
        r.play(0)


@pytest.mark.parametrize(("zero_double", "penalties"), [(0, (3, 7)), (50, (53, 7))])
def test_blocked_round_and_zero_double(zero_double, penalties):
    r = six("trains", [["0-0", "1-2"], ["3-4"]], zero_double=zero_double)
    assert r.is_over
    assert r.log == (("pass", 0, None, None), ("pass", 1, None, None))
    res = r.result
    assert (res.reason, res.out_seat, res.penalties) == ("blocked", None, penalties)


def test_blocked_needs_an_empty_stock():
    # every seat passes in a row after a failed draw, but tiles remain: play goes on
    r = six("trains", [["0-0"], ["1-1"]], stock=["2-2", "3-3", "4-6"])
    assert not r.is_over
    assert [e[0] for e in r.log] == ["draw", "pass", "draw", "pass", "draw"]
    assert r.to_move == 0 and legal(r) == {"6-4@P0", "6-4@P1", "6-4@M"}


def test_zero_double_defaults():
    assert six("trains", [["1-2"], ["3-4"]]).zero_double == 0
    assert six("chicken_foot", [["1-2"], ["3-4"]]).zero_double == 50


# --- Chicken Foot ----------------------------------------------------------------------


def test_chicken_foot_engine_takes_four_toes_by_default_or_six():
    hands = [["6-0", "6-1", "6-2", "1-3"], ["6-3", "6-4", "6-5", "0-4"]]
    r = six("chicken_foot", hands)
    assert r.engine_toes == 4
    for move in ["6-0@6-6", "6-3@6-6", "6-1@6-6"]:
        r.play(move)
        assert r.pending == "6-6"
    r.play("6-4@6-6")  # the fourth toe: a cross, play spreads
    assert r.pending is None
    assert r.open_ends == (("6-0", 0), ("6-1", 1), ("6-3", 3), ("6-4", 4))
    r = six("chicken_foot", hands, engine_toes=6)
    assert r.pending == "6-6" and r.open_ends == (("6-6", 6),)
    assert legal(r) == {"6-0@6-6", "6-1@6-6", "6-2@6-6"}
    for move in ["6-0@6-6", "6-3@6-6", "6-1@6-6", "6-4@6-6", "6-2@6-6"]:
        r.play(move)
        assert r.pending == "6-6"
    r.play("6-5@6-6")
    assert r.pending is None
    assert r.open_ends == (
        ("6-0", 0), ("6-1", 1), ("6-2", 2), ("6-3", 3), ("6-4", 4), ("6-5", 5)
    )  # fmt: skip
    assert legal(r) == {"3-1@6-1", "3-1@6-3"}


def test_chicken_foot_engine_with_four_toes_and_a_later_double():
    r = six(
        "chicken_foot",
        [["6-0", "6-1", "0-0", "2-0", "3-0", "4-0"], ["6-3", "6-4", "5-0", "5-1", "2-1"]],
        engine_toes=4,
    )
    for move in ["6-0@6-6", "6-3@6-6", "6-1@6-6", "6-4@6-6"]:
        r.play(move)
    assert r.pending is None
    assert legal(r) == {"0-0@6-0", "2-0@6-0", "3-0@6-0", "4-0@6-0", "3-0@6-3", "4-0@6-4"}
    r.play("0-0@6-0")
    assert r.pending == "0-0" and r.to_move == 1  # no bonus move in Chicken Foot
    assert legal(r) == {"5-0@0-0"}  # not 1-5@6-1: the double's toes first
    r.play("5-0@0-0")
    assert legal(r) == {"2-0@0-0", "3-0@0-0", "4-0@0-0"}
    r.play("2-0@0-0")
    assert r.log[-1] == ("pass", 1, None, None)
    r.play("3-0@0-0")
    assert r.pending is None
    assert legal(r) == {"5-1@6-1", "5-1@5-0", "2-1@6-1", "2-1@2-0"}
    assert ("0-0", 0) not in r.open_ends and ("6-0", 0) not in r.open_ends
    r.play("2-1@2-0")
    assert r.placements[-1] == (1, "2-1", "2-0")
    assert r.undo() == TrainMove.parse("2-1@2-0")
    assert legal(r) == {"5-1@6-1", "5-1@5-0", "2-1@6-1", "2-1@2-0"}


def test_chicken_foot_forced_draw_blocked_and_zero_double():
    r = six("chicken_foot", [["1-2"], ["6-3", "0-0"]], stock=["6-0", "4-4"])
    assert r.log == (("draw", 0, None, None),)
    assert legal(r) == {"6-0@6-6"}
    r = six("chicken_foot", [["0-0", "1-2"], ["3-4"]])
    assert outcome(r) == ("blocked", None, (53, 7))  # 0-0 counts 50 by default here
    r = six("chicken_foot", [["0-0", "1-2"], ["3-4"]], zero_double=0)
    assert r.result.penalties == (3, 7)


def test_chicken_foot_out_on_a_double():
    r = six("chicken_foot", [["6-1", "1-1"], ["6-2", "2-3", "4-0"]], engine_toes=4)
    for move in ["6-1@6-6", "6-2@6-6"]:
        r.play(move)
    # the engine still wants toes and nobody holds a 6: everyone passes, blocked
    assert r.pending == "6-6" and outcome(r) == ("blocked", None, (2, 9))
    r = six("chicken_foot", [["6-1", "6-4", "1-1"], ["6-2", "6-3", "2-3"]], engine_toes=4)
    for move in ["6-1@6-6", "6-2@6-6", "6-4@6-6", "6-3@6-6"]:
        r.play(move)
    assert legal(r) == {"1-1@6-1"}
    r.play("1-1@6-1")
    assert outcome(r) == ("out", 0, (0, 5))


# --- validation ------------------------------------------------------------------------


def full_hands(set_max=6, engine=6, players=2, size=5):
    tiles = [t for t in SET_TILES if t.high <= set_max and str(t) != f"{engine}-{engine}"]
    hands = [[str(t) for t in tiles[i * size : (i + 1) * size]] for i in range(players)]
    return hands, [str(t) for t in tiles[players * size :]]


def test_from_deal_full_deal():
    hands, stock = full_hands()
    r = TrainRound.from_deal("trains", set_max=6, hands=hands, stock=stock, engine=6)
    assert sum(r.hand_sizes) + r.stock_size + len(r.placements) == 27
    assert not r.is_partial
    same = TrainRound.from_deal(
        "trains", set_max=6, hands=hands, stock=stock, engine=6, partial=True
    )
    assert not same.is_partial and same == r  # partial=True allows, it does not mark
    assert six("trains", [["1-2"], ["3-4"]]).is_partial


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        (lambda h, s: (h, s[:-1]), ValueError, r"stock: .*missing.*partial=True"),
        (lambda h, s: ([h[0][:-1], h[1]], s + [h[0][-1]]), ValueError, "same number"),
        (lambda h, s: ([h[0] + ["9-9"], h[1]], s), ValueError, "not in the double-6 set"),
        (lambda h, s: ([h[0] + ["6-6"], h[1]], s), ValueError, r"hands\[0\].*engine double"),
        (lambda h, s: (h, s + ["6-6"]), ValueError, r"stock.*engine double"),
        (lambda h, s: ([h[0] + ["xx"], h[1]], s), ValueError, r"hands\[0\]\[5\]: not a tile"),
        (lambda h, s: (h, s + [h[1][0]]), ValueError, r"dealt twice \(hands\[1\] and stock\)"),
        (lambda h, s: ([h[0], h[0]], s), ValueError, "dealt twice"),
        (lambda h, s: ([h[0]], s), ValueError, "2 to 8 players"),
        (lambda h, s: ([h[0], []], s), ValueError, r"hands\[1\] is empty"),
        (lambda h, s: ([h[0], h[1] + [5]], s), TypeError, r"hands\[1\]\[5\]"),
        (lambda h, s: ("6-1", s), TypeError, "not a string"),
    ],
)
def test_from_deal_refuses_bad_deals(change, error, match):
    hands, stock = full_hands()
    hands, stock = change(hands, stock)
    with pytest.raises(error, match=match):
        TrainRound.from_deal("trains", set_max=6, hands=hands, stock=stock, engine=6)


def test_from_deal_refuses_bad_options():
    hands, stock = full_hands()
    kw = dict(hands=hands, stock=stock)
    cases = [
        (dict(layout="dominoes"), "layout"),
        (dict(set_max=7), "set_max"),
        (dict(engine=7), "engine"),
        (dict(zero_double=25), "zero_double"),
        (dict(engine_toes=5, layout="chicken_foot"), "engine_toes"),
        (dict(engine_toes=6), "engine_toes is an option of the chicken_foot"),
        (dict(first_turn_own_train=True, layout="chicken_foot"), "first_turn_own_train"),
        (dict(first_turn_own_train=1), "first_turn_own_train"),
    ]
    for extra, match in cases:
        args = {"layout": "trains", "set_max": 6, "engine": 6, **kw, **extra}
        with pytest.raises(OptionError, match=match):
            TrainRound.from_deal(args.pop("layout"), **args)
    with pytest.raises(ValueError, match="leader must be a seat 0..1"):
        TrainRound.from_deal("trains", set_max=6, engine=6, leader=2, **kw)
    with pytest.raises(TypeError, match="leader must be an int"):
        TrainRound.from_deal("trains", set_max=6, engine=6, leader="0", **kw)


def test_deal_checks_its_arguments():
    r = TrainRound.deal("trains", players=4, seed=7)
    assert r.set_max == 12 and r.engine == 12 and r.hand_sizes == (15,) * 4
    assert r.stock_size + sum(r.hand_sizes) == 90
    c = TrainRound.deal("chicken_foot", players=8, seed=7)
    assert c.set_max == 9 and c.hand_sizes[0] + c.stock_size >= 5
    assert TrainRound.deal("trains", players=4, seed=7) == r
    assert TrainRound.deal("trains", players=4, seed=8) != r
    with pytest.raises(ValueError, match="players must be 2..8"):
        TrainRound.deal("trains", players=9)
    with pytest.raises(ValueError, match="players must be 2..8"):
        TrainRound.deal("trains", players=1)
    with pytest.raises(ValueError, match="players \\* hand_size"):
        TrainRound.deal("trains", set_max=9, players=8, hand_size=7)
    with pytest.raises(ValueError, match="players \\* hand_size"):
        TrainRound.deal("trains", players=2, hand_size=0)
    # the default hand sizes are the variants' standard table, double-6 included
    for layout in ("trains", "chicken_foot"):
        for set_max in (6, 9, 12):
            for players in range(2, 9):
                want = STANDARD_HANDS[layout][f"double-{set_max}"][players]
                d = TrainRound.deal(layout, set_max=set_max, players=players, seed=players)
                drawn = [sum(1 for e in d.log if e[:2] == ("draw", i)) for i in range(players)]
                dealt = tuple(n - k for n, k in zip(d.hand_sizes, drawn, strict=True))
                assert dealt == (want,) * players, (layout, set_max, players)
    assert TrainRound.deal("trains", set_max=6, players=2, hand_size=13).stock_size <= 1
    with pytest.raises(ValueError, match="leader"):
        TrainRound.deal("trains", players=3, leader=3)
    for kw in ({"players": 2**70}, {"hand_size": 2**70}, {"hand_size": -(2**70)}):
        with pytest.raises(ValueError):
            TrainRound.deal("trains", **kw)
    with pytest.raises(ValueError):
        random_playouts("trains", 12, 4, 15, 2**70)


# --- play / undo / copy / msgpack ------------------------------------------------------


def expected_legal(r: TrainRound) -> set[str]:
    """The legal moves from the public targets and the mover's hand: every tile showing a
    target's open number, one move per (tile, target); only the drawn tile after a draw."""
    if r.is_over:
        return set()
    seat = r.to_move
    tiles = [str(t) for t in r.hand(seat)]
    last = r.log_of(seat)[-1] if r.log else None
    if last is not None and last[0] == "draw" and last[1] == seat:
        tiles = [last[2]]
    out = set()
    for target, v in r.open_ends:
        for tile in tiles:
            if str(v) in tile.split("-"):
                out.add(f"{tile}@{target}")
    return out


def snapshot(r: TrainRound):
    seats = range(r.players)
    return (
        tuple(str(m) for m in r.legal_moves),
        r.to_move,
        tuple(tuple(str(t) for t in r.hand(s)) for s in seats),
        tuple(str(t) for t in r.stock),
        tuple(r.log_of(s) for s in seats),
        r.log,
        r.trains,
        r.pending,
        r.open_ends,
        r.placements,
        r.is_over,
        r.result,
    )


GAMES = [
    ("trains", 12, 4, None, {}),
    ("trains", 9, 2, None, {"first_turn_own_train": True}),
    ("trains", 12, 8, None, {}),
    ("trains", 6, 3, 3, {}),
    ("chicken_foot", 9, 4, None, {}),
    ("chicken_foot", 12, 3, None, {"engine_toes": 4, "zero_double": 0}),
    ("chicken_foot", 6, 2, 4, {}),
    ("chicken_foot", 9, 3, None, {"engine_toes": 6}),
]


@pytest.mark.parametrize(("layout", "set_max", "players", "size", "opts"), GAMES)
def test_play_undo_is_exact(layout, set_max, players, size, opts):
    rng = random.Random(f"{layout}{set_max}{players}")
    plies = 0
    for game in range(10):
        engine = rng.randrange(set_max + 1)
        r = TrainRound.deal(
            layout, set_max, players, size, engine, game % players, seed=game, **opts
        )
        trail = [snapshot(r)]
        start = r.copy()
        while not r.is_over:
            r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
            assert legal(r) == expected_legal(r)
            assert len(r.legal_moves) == len(legal(r))  # no move listed twice
            trail.append(snapshot(r))
            plies += 1
            if rng.random() < 0.2:  # an undo and the same move again
                m = r.undo()
                assert snapshot(r) == trail[-2]
                r.play(m)
                assert snapshot(r) == trail[-1]
        back = TrainRound.from_msgpack(r.to_msgpack())
        assert back == r and snapshot(back) == trail[-1]
        assert eval(repr(r), {"TrainRound": TrainRound}) == r
        c = r.copy()
        for expected in reversed(trail[:-1]):
            r.undo()
            assert snapshot(r) == expected
        assert r == start and snapshot(r) == snapshot(start)
        with pytest.raises(IndexError):
            r.undo()
        assert snapshot(c) == trail[-1]  # the copy is independent
    assert plies > 40


def test_tiles_are_conserved_and_bounds_hold():
    for layout, set_max, players, size, opts in GAMES:
        for seed in range(20):
            r = TrainRound.deal(layout, set_max, players, size, seed=seed, **opts)
            total = (set_max + 1) * (set_max + 2) // 2 - 1
            while True:
                placed = len(r.placements)
                assert sum(r.hand_sizes) + r.stock_size + placed == total
                if r.is_over:
                    break
                assert r.legal_moves
                r.play(
                    r.legal_moves[random.Random(seed * 1000 + placed).randrange(len(r.legal_moves))]
                )
            res = r.result
            if res.reason == "out":
                assert r.hand_sizes[res.out_seat] == 0 and res.penalties[res.out_seat] == 0
            else:
                tail = []  # the events since the last placement
                for event in reversed(r.log):
                    if event[0] == "place":
                        break
                    tail.append(event)
                assert r.stock_size == 0 and [e[0] for e in tail].count("pass") >= players
                assert tail[0][0] == "pass"


def test_illegal_moves_change_nothing():
    r = TrainRound.deal("trains", players=4, seed=3)
    for _ in range(5):
        r.play(r.legal_moves[0])
    before = (r.to_msgpack(), snapshot(r))
    illegal = ["12-12@M", "nonsense", "0-0@P9", 999, -1, True, None, 2.0, b"x"]
    illegal += [TrainMove.parse("3-1@4-4"), TrainMove.parse("11-10@P3")]
    for move in illegal:
        if move in [str(m) for m in r.legal_moves]:
            continue
        with pytest.raises(IllegalMove) as info:
            r.play(move)
        assert (
            "legal:" in str(info.value)
            or "index" in str(info.value)
            or "TrainMove" in str(info.value)
        )
        assert (r.to_msgpack(), snapshot(r)) == before


def test_play_accepts_a_move_its_text_or_its_action():
    r = TrainRound.deal("chicken_foot", players=3, seed=5)
    moves = r.legal_moves
    a, b, c = r.copy(), r.copy(), r.copy()
    a.play(moves[-1])
    b.play(str(moves[-1]))
    c.play(r.action_space.index(moves[-1]))  # an action index, as in every family
    assert a == b == c
    assert a.moves == (moves[-1],)


def test_msgpack_refuses_corrupt_bytes_without_crashing():
    rng = random.Random(99)
    samples = []
    for layout in ("trains", "chicken_foot"):
        r = TrainRound.deal(layout, players=3, seed=11)
        for _ in range(25):
            if r.is_over:
                break
            r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
        samples.append(r.to_msgpack())
    partial = six("trains", [["6-1", "1-1"], ["6-2", "2-3"]])
    partial.play("6-1@P0")
    samples.append(partial.to_msgpack())
    assert TrainRound.from_msgpack(samples[-1]) == partial
    loaded = 0
    for _ in range(3000):
        data = bytearray(rng.choice(samples))
        how = rng.randrange(4)
        if how == 0:
            for _ in range(rng.randint(1, 3)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif how == 1:
            data = data[: rng.randrange(len(data))]
        elif how == 2:
            data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
        else:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        try:
            back = TrainRound.from_msgpack(bytes(data))
        except ValueError:
            continue
        loaded += 1
        assert TrainRound.from_msgpack(back.to_msgpack()) == back
    assert loaded < 3000
    for junk in (b"", b"\x00", b"\xc1", None, 5, "text", b"\x93\x01\x02\x03"):
        with pytest.raises(ValueError):
            TrainRound.from_msgpack(junk)


def test_msgpack_replays_and_checks_the_moves():
    import msgpack

    r = six("trains", [["6-1", "1-1"], ["6-2", "2-3"]])
    r.play("6-1@P0")
    obj = msgpack.unpackb(r.to_msgpack())
    assert obj[:2] == ["bones.trainround", 1]
    code = TrainMove.parse("6-2@P0").code  # P0 is private: illegal for seat 1
    obj[12] += bytes([code & 255, code >> 8])
    with pytest.raises(ValueError, match="move 2 is not legal"):
        TrainRound.from_msgpack(msgpack.packb(obj))
    obj = msgpack.unpackb(r.to_msgpack())
    obj[7] = 1  # first_turn_own_train as an int
    with pytest.raises(ValueError, match="wrong field types"):
        TrainRound.from_msgpack(msgpack.packb(obj))
    obj = msgpack.unpackb(r.to_msgpack())
    obj[9] = False  # claims a full deal
    with pytest.raises(ValueError, match="corrupt.*partial=True"):
        TrainRound.from_msgpack(msgpack.packb(obj))
    hands, stock = full_hands()
    full = TrainRound.from_deal("trains", set_max=6, hands=hands, stock=stock, engine=6)
    obj = msgpack.unpackb(full.to_msgpack())
    assert obj[9] is False
    obj[9] = True  # a full deal marked partial
    with pytest.raises(ValueError, match="marked partial"):
        TrainRound.from_msgpack(msgpack.packb(obj))


def test_pickle_and_copy_module():
    import copy
    import pickle

    r = TrainRound.deal("chicken_foot", players=3, seed=2)
    r.play(r.legal_moves[0])
    assert pickle.loads(pickle.dumps(r)) == r
    assert copy.deepcopy(r) == r and copy.copy(r) is not r
    m = r.moves[0]
    assert pickle.loads(pickle.dumps(m)) is m
    t = m.tile
    assert pickle.loads(pickle.dumps(t)) is t


# --- hidden information ----------------------------------------------------------------

TILE_RE = re.compile(r"\b\d{1,2}-\d{1,2}\b")


@pytest.mark.parametrize("layout", ["trains", "chicken_foot"])
def test_observation_shows_only_what_the_seat_may_know(layout):
    r = TrainRound.deal(layout, players=4, seed=21)
    rng = random.Random(4)
    for _ in range(30):
        if r.is_over:
            break
        r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
        for seat in range(4):
            obs = r.observation(seat)
            hidden = {str(t) for s in range(4) if s != seat for t in r.hand(s)}
            hidden |= {str(t) for t in r.stock}
            shown = set(TILE_RE.findall(repr(obs)))
            assert not shown & hidden
            assert obs.hand == r.hand(seat)
            assert all(type(t) is SetTile for t in obs.hand)
            assert obs.hand_sizes == r.hand_sizes and obs.stock_size == r.stock_size
            for kind, who, tile, _ in obs.log:
                if kind == "draw":
                    assert (tile is not None) == (who == seat)
            assert obs.legal_moves == (r.legal_moves if r.to_move == seat else ())
            assert "stock" not in {f for f in obs.FIELDS if f != "stock_size"}
            # nothing the view holds leads to another hand or the stock (gc's referents
            # are every object it keeps, the shared log lists included)
            reachable = [x for ref in gc.get_referents(obs) for x in (ref, *_items(ref))]
            assert not set(TILE_RE.findall(repr(reachable))) & hidden
    with pytest.raises(ValueError, match="seat"):
        r.observation(4)
    assert all(tile is None for kind, _, tile, _ in r.log if kind == "draw")


def _items(obj):
    return (
        [y for x in obj for y in (x, *(x if isinstance(x, tuple) else ()))]
        if isinstance(obj, (list, tuple))
        else []
    )


@pytest.mark.parametrize("layout", ["trains", "chicken_foot"])
def test_observation_keeps_its_moment(layout):
    """A view is made in O(1) from log entries shared with the round; what it shows stays
    what the seat saw when it was made, whatever the round does next (play, undo and a
    different move), and equals a view made from scratch at that moment."""
    r = TrainRound.deal(layout, players=3, seed=5)
    rng = random.Random(2)
    views = []
    for _ in range(40):
        if r.is_over:
            break
        seat = r.to_move
        obs = r.observation(seat)
        fresh = TrainRound.from_msgpack(r.to_msgpack()).observation(seat)
        views.append((obs, fresh.to_msgpack(), fresh))
        r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
        if rng.random() < 0.3:
            r.undo()
            r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
    for obs, packed, fresh in views:
        assert obs.to_msgpack() == packed and obs == fresh and hash(obs) == hash(fresh)
        assert obs.legal_moves and obs.legal_moves[0].tile in obs.hand


def test_a_train_observation_is_made_by_the_round_or_from_its_fields():
    from bones.core.trains import TrainSeatView
    from bones.observation import TrainObservation

    for cls in (TrainSeatView, TrainObservation):
        with pytest.raises(TypeError, match="observation"):
            cls.__new__(cls)
        with pytest.raises(TypeError, match="observation"):
            cls.__new__(cls, object())
    r = TrainRound.deal("trains", players=3, seed=4)
    r.play(r.legal_moves[0])
    obs = r.observation(r.to_move)
    fields = {name: getattr(obs, name) for name in obs.FIELDS}
    again = TrainObservation(**fields)
    assert again == obs and again.to_msgpack() == obs.to_msgpack() and hash(again) == hash(obs)
    assert pickle.loads(pickle.dumps(obs)) == obs and repr(obs).startswith("TrainObservation(")
    with pytest.raises(TypeError, match="set once"):
        obs._give(**fields)
    with pytest.raises(TypeError, match="set once"):
        again._give(**fields)
    with pytest.raises(TypeError, match="missing"):
        TrainObservation(seat=0)
    with pytest.raises(TypeError, match="unknown"):
        TrainObservation(**fields, stock=())
    with pytest.raises(OverflowError):
        TrainObservation(**{**fields, "seat": 300})
    with pytest.raises(ValueError):
        TrainObservation(**{**fields, "layout": "spiral"})


def test_observation_is_frozen():
    obs = TrainRound.deal("trains", players=2, seed=1).observation(0)
    with pytest.raises(AttributeError):
        obs.hand = ()  # type: ignore[misc]


# --- text and playouts -----------------------------------------------------------------


def test_str_lists_one_train_per_line():
    r = six("trains", [["6-3", "3-3", "2-0"], ["6-5", "3-4", "5-2"]])
    r.play("6-3@P0")
    text = str(r)
    lines = text.splitlines()
    assert any(line.split()[0] == "P0" and "6-3" in line for line in lines)
    assert any(line.split()[0] == "M" for line in lines)
    assert "seat 1 to move" in text
    assert repr(r).startswith("TrainRound.from_deal('trains', set_max=6")


def test_random_playouts_summary_is_seeded_and_bounded():
    a = random_playouts("trains", 12, 4, 15, 300, seed=5)
    b = random_playouts("trains", 12, 4, 15, 300, seed=5)
    assert {k: v for k, v in a.items() if k != "seconds"} == {
        k: v for k, v in b.items() if k != "seconds"
    }
    assert a["rounds"] == 300 and 0 <= a["blocked"] <= 300
    assert 300 <= a["plies"] <= 300 * 90 and a["max_events"] <= 1024
    c = random_playouts("chicken_foot", 9, 8, 5, 300, seed=5, engine_toes=4)
    assert c["rounds"] == 300 and c["plies"] > 0
    with pytest.raises(ValueError):
        random_playouts("trains", 12, 9, 10, 1)
    with pytest.raises(ValueError):
        random_playouts("trains", 12, 8, 12, 1)
    with pytest.raises(OptionError):
        random_playouts("block", 12, 4, 10, 1)


@pytest.mark.parametrize("layout", ["trains", "chicken_foot"])
@pytest.mark.parametrize("set_max", [6, 9, 12])
@pytest.mark.parametrize(("players", "hand_size"), [(2, 1), (8, 1), (2, 3)])
def test_playouts_stay_within_the_bounds_with_long_stocks(layout, set_max, players, hand_size):
    res = random_playouts(layout, set_max, players, hand_size, 200, seed=set_max)
    assert res["max_events"] <= 1631  # trainstate.pyx derives this bound
    assert res["plies"] <= 200 * 90


@pytest.mark.parametrize("layout", ["trains", "chicken_foot"])
def test_scores_add_the_penalties_once_the_round_is_over(layout):
    """As ``bones.Round.scores``: the score before the round plus what it scored so far, so
    the penalties once the round is over (issue 30: they stayed the dealt scores)."""
    dealt = (5, 0, 120)
    r = TrainRound.deal(layout, players=3, seed=8, scores=dealt)
    rng = random.Random(1)
    while not r.is_over:
        assert r.scores == dealt
        r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
    points = r.result.points
    assert any(points) and r.scores == tuple(s + p for s, p in zip(dealt, points, strict=True))
    assert TrainRound.from_msgpack(r.to_msgpack()).scores == r.scores
    r.undo()
    assert r.scores == dealt
