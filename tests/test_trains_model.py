"""The reference model of the train games (tests/trains_model.py) on hand-made positions.

Every rule of TRAINS_SPEC.md has a test here, so that the model can be trusted as the
other side of the differential test (tests/test_trains_differential.py). Small deals with
a double-6 set keep every step checkable by hand; tiles in no hand and not in the stock
simply stay out of play.
"""

from __future__ import annotations

import random

import pytest
from trains_model import (
    Result,
    TrainsModel,
    make_tile,
    parse_tile,
    set_tiles,
    tile_index,
    tile_text,
)


def trains(*hands: str, stock: str = "", engine: int = 6, leader: int = 0, **options):
    """A Mexican Train round on a double-6 set: hands as "6-1 2-2", stock top first."""
    return TrainsModel(
        "trains", 6, [h.split() for h in hands], stock.split(), engine, leader, **options
    )


def foot(*hands: str, stock: str = "", engine: int = 6, leader: int = 0, **options):
    """A Chicken Foot round on a double-6 set."""
    return TrainsModel(
        "chicken_foot", 6, [h.split() for h in hands], stock.split(), engine, leader, **options
    )


def play_all(m: TrainsModel, *moves: str) -> None:
    for move in moves:
        m.play(move)


# --------------------------------------------------------------------------------------
# Sets and tiles


def test_set_sizes_and_index_order():
    for n, size in [(6, 28), (9, 55), (12, 91)]:
        tiles = set_tiles(n)
        assert len(tiles) == size == len(set(tiles))
        assert [tile_index(t, n) for t in tiles] == list(range(size))
    assert set_tiles(6)[:3] == [(0, 0), (1, 0), (2, 0)]
    assert set_tiles(12)[-1] == (12, 12)


def test_tile_text_is_high_low_and_parsing_takes_either_order():
    assert parse_tile("5-12") == parse_tile("12-5") == (12, 5) == make_tile(5, 12)
    assert tile_text((12, 5)) == "12-5"
    for bad in ["12", "a-b", "1-2-3", "-1-2"]:
        with pytest.raises(ValueError):
            parse_tile(bad)


def test_bad_deals_are_refused():
    with pytest.raises(ValueError, match="twice"):
        trains("6-1", "6-1")
    with pytest.raises(ValueError, match="engine"):
        trains("6-6", "6-1")  # the engine is on the table, not in a hand
    with pytest.raises(ValueError, match="set"):
        trains("7-1", "6-1")
    with pytest.raises(ValueError, match="players"):
        trains("6-1")
    with pytest.raises(ValueError, match="leader"):
        trains("6-1", "6-2", leader=2)
    with pytest.raises(ValueError, match="layout"):
        TrainsModel("line", 6, [["6-1"], ["6-2"]], [], 6, 0)
    with pytest.raises(ValueError, match="engine_toes"):
        foot("6-1", "6-2", engine_toes=5)


# --------------------------------------------------------------------------------------
# Mexican Train


def test_first_moves_start_the_own_train_or_the_mexican_train():
    m = trains("6-1 6-2 3-3", "6-5 4-1")
    assert m.to_move == 0
    assert m.legal_moves() == ["6-1@M", "6-1@P0", "6-2@M", "6-2@P0"]
    m.play("6-1@P0")
    # P0 now shows 1, but it is private: seat 1's 4-1 may not go there
    assert m.to_move == 1
    assert m.legal_moves() == ["6-5@M", "6-5@P1"]
    assert m.open == {"P0": 1, "P1": 6, "M": 6}


def test_markers_open_a_train_and_the_owner_closes_it():
    m = trains("6-1 6-3 2-0 5-1", "4-4 1-0", stock="5-5 3-2")
    m.play("6-1@P0")
    # seat 1 has no 6: draws 5-5, which does not fit, and passes: a marker on P1
    assert m.public_events() == [("place", 0, "6-1"), ("draw", 1, None), ("pass", 1, None)]
    assert m.public == {1}
    assert m.hand_texts(1) == {"4-4", "1-0", "5-5"} and m.stock_size == 1
    assert m.to_move == 0
    assert m.legal_moves() == ["5-1@P0", "6-3@M", "6-3@P1"]
    m.play("6-3@P1")  # seat 0 plays on seat 1's public train
    # seat 1 draws 3-2, which fits its own train only: that is the only move
    assert m.to_move == 1 and m.drawn == (3, 2)
    assert m.legal_moves() == ["3-2@P1"]
    m.play("3-2@P1")  # the owner plays on the own train: the marker comes off
    assert m.public == set()
    assert m.legal_moves() == ["5-1@P0"]  # 2-0 would fit P1, now private again


def test_no_draw_while_holding_a_playable_tile_and_the_drawn_tile_must_be_played():
    m = trains("6-1 2-1", "5-4 3-2", stock="6-3 2-0")
    m.play("6-1@P0")
    assert m.public_events()[1:] == [("draw", 1, None)]
    assert m.to_move == 1
    assert m.legal_moves() == ["6-3@M", "6-3@P1"]  # the bot still chooses where
    assert m.hand_texts(1) == {"5-4", "3-2", "6-3"}
    with pytest.raises(ValueError):
        m.play("3-2@P1")


def test_a_double_gives_a_bonus_move_and_its_tile_satisfies_it():
    m = trains("6-2 2-2 5-2 4-4", "6-1 3-2 6-3")
    play_all(m, "6-2@P0", "6-1@P1")
    assert m.legal_moves() == ["2-2@P0", "5-2@P0"]
    m.play("2-2@P0")
    assert m.pending == "P0" and m.to_move == 0  # the same seat moves again
    assert m.legal_moves() == ["5-2@P0"]
    m.play("5-2@P0")  # satisfied: the turn ends
    assert m.pending is None and m.to_move == 1
    assert m.legal_moves() == ["6-3@M"]


def test_an_unsatisfied_double_binds_every_seat_in_turn():
    m = trains("6-2 2-2 0-0", "6-1 4-3", "6-3 5-2 5-3", stock="5-5 4-4")
    play_all(m, "6-2@P0", "6-1@P1", "6-3@P2")
    m.play("2-2@P0")
    # seat 0 has no 2: draws 5-5, passes (marker on P0); seat 1 has no 2 either: draws
    # 4-4, passes (marker on its own train P1), although 4-3 would fit nowhere anyway
    assert m.public_events()[4:] == [
        ("draw", 0, None),
        ("pass", 0, None),
        ("draw", 1, None),
        ("pass", 1, None),
    ]
    assert m.public == {0, 1} and m.pending == "P0"
    # seat 2 could play 4-3 on its own train, but the double comes first
    assert m.to_move == 2
    assert m.legal_moves() == ["5-2@P0"]
    m.play("5-2@P0")
    assert m.pending is None and m.to_move == 0
    assert m.public == {0, 1}  # seat 2 is not P0's owner: the marker stays


def test_a_pending_double_and_an_empty_stock_pass_without_drawing():
    m = trains("6-2 2-2 0-0", "6-1 4-3 3-3", stock="")
    play_all(m, "6-2@P0", "6-1@P1", "2-2@P0")
    assert m.public_events()[3:] == [("pass", 0, None), ("pass", 1, None)]
    assert m.over and m.result == Result("blocked", None, (0, 13))


def test_a_double_as_the_last_tile_goes_out():
    m = trains("6-2 2-2", "6-1 5-5 3-3")
    play_all(m, "6-2@P0", "6-1@P1", "2-2@P0")
    assert m.over and m.to_move is None and m.legal_moves() == []
    assert m.result == Result("out", 0, (0, 16))


def test_first_turn_own_train_option():
    hands = ("6-1 1-1 4-4 0-0", "5-1 3-2")
    stock = "3-3 5-0 2-2"
    m = trains(*hands, stock=stock, first_turn_own_train=True)
    assert m.legal_moves() == ["6-1@P0"]  # not the Mexican train while P0 is empty
    m.play("6-1@P0")
    # seat 1: only its own train, which needs a 6: draw 3-3, pass
    assert m.public_events()[1:] == [("draw", 1, None), ("pass", 1, None)]
    assert m.legal_moves() == ["1-1@P0"]
    m.play("1-1@P0")
    # seat 0 has no 1: draws 5-0 and passes; seat 1 could satisfy with 5-1, but its own
    # train is still empty, so it may not: it draws 2-2 and passes, and with the stock
    # empty after every seat passed in a row the round is blocked
    assert m.public_events()[4:] == [
        ("draw", 0, None),
        ("pass", 0, None),
        ("draw", 1, None),
        ("pass", 1, None),
    ]
    assert m.result == Result("blocked", None, (13, 21))

    m = trains(*hands, stock=stock)  # the default: no such limit
    assert m.legal_moves() == ["6-1@M", "6-1@P0"]
    play_all(m, "6-1@P0", "1-1@P0")
    assert m.to_move == 1 and m.legal_moves() == ["5-1@P0"]


def test_first_turn_own_train_ends_when_anyone_starts_the_train():
    m = trains("6-1 6-3 4-4", "5-1 2-2", stock="0-0 6-5", first_turn_own_train=True)
    m.play("6-1@P0")
    # seat 1 may only start its own train and holds no 6: draws 0-0, passes (P1 public)
    assert m.public_events()[1:] == [("draw", 1, None), ("pass", 1, None)]
    assert m.legal_moves() == ["6-3@M", "6-3@P1"]
    m.play("6-3@P1")  # seat 0 starts seat 1's public train
    # seat 1's train is no longer empty: the limit is gone, and the drawn 6-5 may go on M
    assert m.to_move == 1 and m.drawn == (6, 5)
    assert m.legal_moves() == ["6-5@M"]


def test_a_seat_that_cannot_play_draws_before_the_first_move():
    m = trains("1-0", "2-0", stock="3-3 4-4 5-5 6-0")
    # seat 0 draws 3-3 and passes, seat 1 draws 4-4 and passes: two passes in a row, but
    # tiles are left to draw, so the round goes on
    assert not m.over
    assert m.public_events() == [
        ("draw", 0, None),
        ("pass", 0, None),
        ("draw", 1, None),
        ("pass", 1, None),
        ("draw", 0, None),
        ("pass", 0, None),
        ("draw", 1, None),
    ]
    assert m.to_move == 1 and m.stock_size == 0
    # seat 0 passed, so its empty train is public too
    assert m.legal_moves() == ["6-0@M", "6-0@P0", "6-0@P1"]


def test_blocked_when_every_seat_passed_in_a_row_with_an_empty_stock():
    m = trains("1-0 0-0", "2-0", "3-1", stock="4-4", zero_double=50)
    assert m.over
    assert m.public_events() == [
        ("draw", 0, None),
        ("pass", 0, None),
        ("pass", 1, None),
        ("pass", 2, None),
    ]
    assert m.result == Result("blocked", None, (59, 2, 4))
    m = trains("1-0 0-0", "2-0", "3-1", stock="4-4")
    assert m.result == Result("blocked", None, (9, 2, 4))


def test_going_out_scores_every_other_hand_with_the_zero_double_option():
    for zero, second in [(0, 1), (50, 51)]:
        m = trains("6-2", "0-0 1-0", zero_double=zero)
        m.play("6-2@M")
        assert m.result == Result("out", 0, (0, second))


def test_an_illegal_move_changes_nothing():
    m = trains("6-1 6-2", "6-5 4-1")
    before = (m.legal_moves(), [list(h) for h in m.hands], list(m.events), m.to_move)
    for bad in ["6-1@P1", "6-1@X", "5-4@M", "6-1", "6-1@P2"]:
        with pytest.raises(ValueError):
            m.play(bad)
    assert (m.legal_moves(), [list(h) for h in m.hands], list(m.events), m.to_move) == before
    m.play("6-2@M")
    assert m.legal_moves() == ["6-5@P1"]


def test_the_move_texts_on_a_double_twelve_set():
    m = TrainsModel("trains", 12, [["12-5", "5-3"], ["7-3", "12-11"]], [], 12, 1)
    assert m.legal_moves() == ["12-11@M", "12-11@P1"]
    m.play("12-11@M")
    assert m.legal_moves() == ["12-5@P0"]


# --------------------------------------------------------------------------------------
# Chicken Foot


def test_the_engine_takes_its_toes_before_anything_else():
    hands = ("6-1 6-2 2-0", "6-3 6-4 5-3")
    m = foot(*hands, engine_toes=4)
    assert m.legal_moves() == ["6-1@6-6", "6-2@6-6"]
    m.play("6-1@6-6")
    assert m.to_move == 1  # no bonus move in Chicken Foot
    assert m.legal_moves() == ["6-3@6-6", "6-4@6-6"]
    play_all(m, "6-3@6-6", "6-2@6-6")
    # 5-3 would fit the free end of 6-3, but the engine still needs its 4th toe
    assert m.legal_moves() == ["6-4@6-6"]
    m.play("6-4@6-6")
    assert m.ends == {"6-1": 1, "6-3": 3, "6-2": 2, "6-4": 4}
    assert m.legal_moves() == ["2-0@6-2"]

    m = foot(*hands, stock="0-0", engine_toes=6)  # the double chicken foot: six toes
    play_all(m, "6-1@6-6", "6-3@6-6", "6-2@6-6", "6-4@6-6")
    # 2-0 does not fit the engine: seat 0 draws 0-0, passes; seat 1 passes with 5-3
    assert m.public_events()[4:] == [("draw", 0, None), ("pass", 0, None), ("pass", 1, None)]
    assert m.result == Result("blocked", None, (2, 8))


def test_a_double_needs_three_toes_one_move_per_tile():
    m = foot("6-1 6-2 1-1 3-1 4-1 0-0", "6-3 6-4 5-1 2-0 3-0", stock="2-1 5-5", engine_toes=4)
    play_all(m, "6-1@6-6", "6-3@6-6", "6-2@6-6", "6-4@6-6")
    # a tile goes on any free end showing one of its numbers, a double too
    assert m.legal_moves() == ["1-1@6-1", "3-1@6-1", "3-1@6-3", "4-1@6-1", "4-1@6-4"]
    m.play("1-1@6-1")
    assert m.to_move == 1  # no bonus move: the next seat owes the first toe
    assert m.legal_moves() == ["5-1@1-1"]  # not 2-0@6-2 or 3-0@6-3
    m.play("5-1@1-1")
    assert m.legal_moves() == ["3-1@1-1", "4-1@1-1"]  # toes are one target
    m.play("3-1@1-1")
    # seat 1 has no 1: draws 2-1, which fits, and must play it as the third toe
    assert m.legal_moves() == ["2-1@1-1"]
    m.play("2-1@1-1")
    assert m.foot is None
    # the toes' ends are open now; 6-1's end was closed by 1-1
    assert m.ends == {"6-3": 3, "6-2": 2, "6-4": 4, "5-1": 5, "3-1": 3, "2-1": 2}
    assert m.legal_moves() == ["4-1@6-4"]
    m.play("4-1@6-4")  # a tile closes the end it is placed on and opens its other number
    assert m.ends == {"6-3": 3, "6-2": 2, "5-1": 5, "3-1": 3, "2-1": 2, "4-1": 1}
    assert m.legal_moves() == ["2-0@2-1", "2-0@6-2", "3-0@3-1", "3-0@6-3"]


def test_chicken_foot_out_and_zero_double():
    m = foot("6-1", "6-2 0-0", zero_double=50)
    m.play("6-1@6-6")
    assert m.result == Result("out", 0, (0, 58))


def test_chicken_foot_double_twelve_move_texts():
    m = TrainsModel("chicken_foot", 12, [["9-4", "4-2"], ["10-9"]], [], 9, 0, engine_toes=4)
    assert m.legal_moves() == ["9-4@9-9"]
    m.play("9-4@9-9")
    assert m.legal_moves() == ["10-9@9-9"]


def test_events_carry_the_placed_tile_and_its_target():
    m = trains("6-2 2-0", "6-1 4-3", stock="3-3")
    play_all(m, "6-2@M", "6-1@P1", "2-0@M")
    assert m.events == [
        ("place", 0, "6-2", "M"),
        ("place", 1, "6-1", "P1"),
        ("place", 0, "2-0", "M"),
    ]
    assert m.result == Result("out", 0, (0, 7))


# --------------------------------------------------------------------------------------
# The worked examples of docs/rules.md (Mexican Train and Chicken Foot), step by step


def mt12(*hands: str, stock: str = "", leader: int = 0, **options):
    return TrainsModel(
        "trains", 12, [h.split() for h in hands], stock.split(), 12, leader, **options
    )


def cf9(*hands: str, stock: str = "", leader: int = 0, **options):
    return TrainsModel(
        "chicken_foot", 9, [h.split() for h in hands], stock.split(), 9, leader, **options
    )


def test_docs_mexican_train_markers():
    m = mt12("12-5 12-9 5-3 9-1", "11-4 3-0", stock="8-2 9-3 6-6")
    assert m.legal_moves() == ["12-5@M", "12-5@P0", "12-9@M", "12-9@P0"]
    m.play("12-5@P0")
    assert m.open["P0"] == 5
    assert m.public_events()[1:] == [("draw", 1, None), ("pass", 1, None)]
    assert "8-2" in m.hand_texts(1) and m.public == {1}
    assert m.legal_moves() == ["12-9@M", "12-9@P1", "5-3@P0"]
    m.play("12-9@P1")
    assert m.open["P1"] == 9 and m.drawn == (9, 3)
    assert m.legal_moves() == ["9-3@P1"]
    m.play("9-3@P1")
    assert m.public == set() and m.open["P1"] == 3
    assert m.legal_moves() == ["5-3@P0"]


def test_docs_mexican_train_doubles():
    m = mt12("12-8 8-8 0-0", "12-4 7-3", "12-10 8-2 10-6", stock="11-11 7-7")
    play_all(m, "12-8@P0", "12-4@P1", "12-10@P2")
    assert m.legal_moves() == ["8-8@P0"]
    m.play("8-8@P0")
    assert m.public_events()[4:] == [
        ("draw", 0, None),
        ("pass", 0, None),
        ("draw", 1, None),
        ("pass", 1, None),
    ]
    assert m.hand_texts(0) == {"0-0", "11-11"} and m.hand_texts(1) == {"7-3", "7-7"}
    assert m.public == {0, 1}
    assert m.to_move == 2 and m.legal_moves() == ["8-2@P0"]
    m.play("8-2@P0")
    assert m.public_events()[-2:] == [("pass", 0, None), ("pass", 1, None)]
    assert m.to_move == 2 and m.legal_moves() == ["10-6@P2"]


def test_docs_mexican_train_first_turn_own_train():
    m = mt12("12-7 12-2", "7-5 1-0", stock="4-4")
    assert m.legal_moves() == ["12-2@M", "12-2@P0", "12-7@M", "12-7@P0"]
    m.play("12-7@M")
    assert m.legal_moves() == ["7-5@M"]
    m = mt12("12-7 12-2", "7-5 1-0", stock="4-4", first_turn_own_train=True)
    assert m.legal_moves() == ["12-2@P0", "12-7@P0"]
    m.play("12-2@P0")
    assert m.public_events()[1:] == [("draw", 1, None), ("pass", 1, None)]
    assert m.legal_moves() == ["12-7@M", "12-7@P1"]


def test_docs_mexican_train_scoring():
    for zero, penalty in [(0, 12), (50, 62)]:
        m = mt12("12-3 3-3", "12-1 6-6 0-0", zero_double=zero)
        play_all(m, "12-3@M", "12-1@P1", "3-3@M")
        assert m.result == Result("out", 0, (0, penalty))
    for zero, penalty in [(0, 11), (50, 61)]:
        m = mt12("12-3 5-4", "11-0 0-0", zero_double=zero)
        m.play("12-3@P0")
        assert m.public_events()[1:] == [("pass", 1, None), ("pass", 0, None)]
        assert m.result == Result("blocked", None, (9, penalty))


def test_docs_chicken_foot_double():
    m = cf9("9-1 9-2 1-1 3-1 4-1 7-7", "9-3 9-4 5-1 2-0 3-0", stock="2-1 5-5", engine_toes=4)
    play_all(m, "9-1@9-9", "9-3@9-9", "9-2@9-9", "9-4@9-9")
    assert m.ends == {"9-1": 1, "9-3": 3, "9-2": 2, "9-4": 4}
    assert m.legal_moves() == ["1-1@9-1", "3-1@9-1", "3-1@9-3", "4-1@9-1", "4-1@9-4"]
    m.play("1-1@9-1")
    assert "9-1" not in m.ends and m.legal_moves() == ["5-1@1-1"]
    m.play("5-1@1-1")
    assert m.legal_moves() == ["3-1@1-1", "4-1@1-1"]
    m.play("3-1@1-1")
    assert m.public_events()[-1] == ("draw", 1, None) and m.legal_moves() == ["2-1@1-1"]
    m.play("2-1@1-1")
    assert m.ends == {"9-3": 3, "9-2": 2, "9-4": 4, "5-1": 5, "3-1": 3, "2-1": 2}
    assert m.legal_moves() == ["4-1@9-4"]
    m.play("4-1@9-4")
    assert m.legal_moves() == ["2-0@2-1", "2-0@9-2", "3-0@3-1", "3-0@9-3"]


def test_docs_chicken_foot_engine_toes():
    hands = ("9-1 9-2 2-0", "9-3 9-4 5-3")
    m = cf9(*hands, stock="8-8", engine_toes=6)
    play_all(m, "9-1@9-9", "9-3@9-9", "9-2@9-9", "9-4@9-9")
    assert m.public_events()[4:] == [("draw", 0, None), ("pass", 0, None), ("pass", 1, None)]
    assert m.result == Result("blocked", None, (18, 8))
    m = cf9(*hands, stock="8-8")  # engine_toes=4, the default
    play_all(m, "9-1@9-9", "9-3@9-9", "9-2@9-9", "9-4@9-9")
    assert m.legal_moves() == ["2-0@9-2"]


def test_docs_chicken_foot_scoring():
    for zero, penalty in [(50, 64), (0, 14)]:
        m = cf9("9-6", "9-5 0-0", "6-2 3-1", zero_double=zero)
        m.play("9-6@9-9")
        assert m.result == Result("out", 0, (0, penalty, 12))


# --------------------------------------------------------------------------------------
# Random rounds: what must hold at every step, whatever the deal


def random_model(seed: int) -> TrainsModel:
    rng = random.Random(seed)
    layout = rng.choice(["trains", "chicken_foot"])
    n = rng.choice([6, 9, 12])
    players = rng.randint(2, 8)
    engine = rng.randint(0, n)
    tiles = [tile_text(t) for t in set_tiles(n) if t != (engine, engine)]
    rng.shuffle(tiles)
    size = rng.randint(1, len(tiles) // players)
    hands = [tiles[s * size : (s + 1) * size] for s in range(players)]
    return TrainsModel(
        layout,
        n,
        hands,
        tiles[players * size :],
        engine,
        rng.randrange(players),
        zero_double=rng.choice([0, 50]),
        first_turn_own_train=rng.random() < 0.5,
        engine_toes=rng.choice([4, 6]),
    )


@pytest.mark.parametrize("seed", range(300))
def test_random_rounds_keep_the_rules(seed):
    m = random_model(seed)
    rng = random.Random(seed)
    every = sorted([t for hand in m.hands for t in hand] + m.stock)
    stock0 = m.stock_size + sum(kind == "draw" for kind, *_ in m.events)  # draws at the deal
    while True:
        placed = [parse_tile(tile) for kind, _, tile, _ in m.events if kind == "place"]
        # every tile is in a hand, in the stock or on the table, once
        assert sorted([t for hand in m.hands for t in hand] + m.stock + placed) == every
        draws = sum(kind == "draw" for kind, *_ in m.events)
        assert m.stock_size == stock0 - draws
        # a draw is followed by a placement of that seat or its pass
        for i, (kind, seat, _, _) in enumerate(m.events):
            if kind == "draw" and i + 1 < len(m.events):
                assert m.events[i + 1][0] in ("place", "pass") and m.events[i + 1][1] == seat
        if m.over:
            break
        legal = m.legal_moves()
        assert legal and m.to_move is not None
        targets = {move.split("@")[1] for move in legal}
        tiles = {move.split("@")[0] for move in legal}
        if m.drawn is not None:
            assert tiles == {tile_text(m.drawn)}
        assert tiles <= m.hand_texts(m.to_move)
        if m.layout == "trains" and m.pending is not None:
            assert targets == {m.pending}
        if m.layout == "chicken_foot" and m.foot is not None:
            assert targets == {m.foot[0]}
        m.play(rng.choice(legal))
    assert m.to_move is None and m.legal_moves() == []
    res = m.result
    assert res is not None
    for seat in range(m.players):
        pips = sum(m.zero_double if t == (0, 0) else t[0] + t[1] for t in m.hands[seat])
        assert res.penalties[seat] == pips
    if res.reason == "out":
        assert m.hands[res.out_seat] == [] and m.events[-1][:2] == ("place", res.out_seat)
    else:
        assert res.reason == "blocked" and res.out_seat is None and m.stock_size == 0
        turns = [e for e in m.events if e[0] != "draw"]
        assert [kind for kind, *_ in turns[-m.players :]] == ["pass"] * m.players
