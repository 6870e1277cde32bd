"""RULES.md §3.9: the worked examples of variant B (Multiplayer Dominoes), one test each.

Two players, 7 tiles each, the stock holds the other 14 (top first), default options
except ``geometry="unbounded"`` (RULES.md §3.4 G4: the logical rules are tested without
table geometry); MP-11 and MP-12 play on a small bounded table.  MP-10 (game end) belongs
to tests/test_game.py.  MP-8 is checked twice: with the example's own hands (a deal with
tiles out of play) and from a full deal found by search.
"""

from __future__ import annotations

import helpers
import pytest
from helpers import (
    ALL_TILES,
    Scenario,
    drawn,
    ends,
    hand,
    layout_tiles,
    legal,
    passes,
    pips,
    split,
)

V = "multiplayer"
G4 = {"geometry": "unbounded"}


def deal(*args, **opts):
    return helpers.deal(*args, **{**G4, **opts})


def replay(*args, **opts):
    return helpers.replay(*args, **{**G4, **opts})


def lead_of(*args, **opts):
    return helpers.lead_of(*args, **{**G4, **opts})


def test_mp_1_opener_highest_double_forced():
    hands = [
        "5-5 6-1 4-2 3-1 2-0 1-0 5-2",  # P0: 5-5 is the highest double dealt
        "3-3 6-5 6-4 5-3 4-1 3-0 2-1",  # P1: 3-3; 6-6 stays in the stock
    ]
    assert lead_of(V, hands) == (0, {"5-5"})
    # option opening_tile_forced=False: same leader, any tile
    assert lead_of(V, hands, opening_tile_forced=False) == (0, set(split(hands[0])))


def test_mp_2_opener_no_doubles_heaviest_tile():
    hands = [
        "6-2 5-3 6-1 5-2 4-3 6-0 4-2",  # P0: best 6-2 (8)
        "5-4 4-1 3-1 2-1 1-0 2-0 3-0",  # P1: best 5-4 (9)
    ]
    assert lead_of(V, hands) == (1, {"5-4"})


def test_mp_3_equal_sums_high_half_decides():
    hands = [
        "6-3 6-2 5-3 6-1 4-3 5-2 6-0",  # P0: best 6-3 (9, high half 6)
        "5-4 4-2 4-1 3-2 2-1 1-0 5-1",  # P1: best 5-4 (9)
    ]
    assert lead_of(V, hands) == (0, {"6-3"})


def test_mp_3_pip_sum_before_high_half_and_lexicographic_option():
    hands = [
        "6-0 5-1 4-2 5-0 4-1 3-2 4-0",  # P0: best 6-0 (6)
        "5-4 5-3 5-2 4-3 3-1 2-1 3-0",  # P1: best 5-4 (9), no 6-x tile
    ]
    assert lead_of(V, hands) == (1, {"5-4"})
    assert lead_of(V, hands, tile_ranking="lexicographic") == (0, {"6-0"})


# MP-4: found deal.  After P0's 4-2@W the ends are 4 and 6, P1 holds exactly {2-1, 3-0}
# and the stock holds 3 tiles: 5-2 on top, then 6-1 (P0 drew the other 11).
MP_4 = Scenario(
    hands=(
        "6-2 4-3 4-4 6-4 6-5 5-3 1-1",
        "2-1 3-0 6-3 3-2 2-2 2-0 5-4",
    ),
    stock="5-5 3-3 6-0 5-0 6-6 0-0 4-0 1-0 4-1 5-1 4-2 5-2 6-1 3-1",
    leader=0,
    moves="6-4 5-4@E 6-2@W 3-2@W 6-5@E 6-3@W 6-0@W 2-0@W 6-6@E 2-2@W 4-2@W",
)


def test_mp_4_draw_with_three_in_stock_then_pass():
    r = replay(V, MP_4, upto=-1)
    assert r.to_move == 0 and r.stock_size == 3
    assert hand(r, 1) == {"2-1", "3-0"}
    before = len(r.events)
    r.play("4-2@W")
    assert ends(r) == {"W": 4, "E": 6}
    new = r.events[before + 1 :]
    # P1 draws 2-5 (stock 2), still has no move, and may not draw at 2: passes
    assert drawn(new, 1) == 1 and passes(new, 1) == 1
    assert [e.kind for e in new] == ["draw", "pass"]
    assert r.stock_size == 2
    assert hand(r, 1) == {"2-1", "3-0", "5-2"}
    assert r.to_move == 0 and not r.is_over


def test_mp_4_drawn_playable_tile_must_be_played():
    # "If the top tile had been 6-1": swap 5-2 and 6-1, which nobody touched before
    stock = MP_4.stock.replace("5-2 6-1", "6-1 5-2")
    r = replay(V, MP_4._replace(stock=stock))
    assert drawn(r.events[-1:], 1) == 1
    assert r.stock_size == 2
    assert r.to_move == 1
    assert legal(r) == {"6-1@E"}
    r.play("6-1@E")
    assert ends(r) == {"W": 4, "E": 1}


# MP-5: found deal.  P1's last move leaves the stock at 2; P0 holds only 5-5 against
# ends 3 and 0.
MP_5 = Scenario(
    hands=(
        "5-4 3-2 6-2 4-1 6-1 5-5 5-1",
        "0-0 4-4 3-1 1-0 2-2 2-0 6-0",
    ),
    stock="2-1 6-3 4-3 1-1 4-0 3-3 6-6 6-4 4-2 5-2 6-5 3-0 5-0 5-3",
    leader=0,
    moves=(
        "4-1 1-0@E 5-4@W 6-0@E 6-2@E 2-0@E 5-1@W 0-0@E 6-1@W 6-3@W 3-2@W 2-1@W 1-1@W "
        "3-1@W 4-3@W 4-4@W 4-0@W 3-0@W"
    ),
)


def test_mp_5_stock_at_two_pass_immediately():
    r = replay(V, MP_5, upto=-1)
    assert r.to_move == 1 and r.stock_size == 2
    before = len(r.events)
    r.play("3-0@W")
    assert ends(r) == {"W": 3, "E": 0}
    assert hand(r, 0) == {"5-5"}
    new = r.events[before + 1 :]
    assert [(e.kind, e.seat) for e in new] == [("pass", 0)]
    assert r.stock_size == 2
    assert r.to_move == 1 and not r.is_over


# MP-6 Domino.  Found deal: P0 plays its last tile while P1 holds {6-6, 1-0}.
MP_6 = Scenario(
    hands=(
        "4-2 2-0 4-0 5-2 5-0 0-0 5-5",
        "6-6 1-0 4-4 5-1 6-4 6-1 6-2",
    ),
    stock="6-5 3-3 3-2 3-0 4-3 4-1 3-1 6-0 5-4 6-3 5-3 2-1 2-2 1-1",
    leader=0,
    moves=(
        "5-5 5-1@W 5-0@E 6-1@W 0-0@E 6-4@W 4-0@E 4-4@W 4-2@W 6-2@W 6-5@W 4-3@E 5-2@W 3-2@W "
        "3-1@W 3-3@E 4-1@W 3-0@E 2-0@E"
    ),
)


def test_mp_6_domino():
    r = replay(V, MP_6)
    assert not r.hand(0) and hand(r, 1) == {"6-6", "1-0"}
    assert r.result.reason == "out"
    assert r.result.winners == (0,)
    assert r.result.values == (0, 13)
    assert r.result.points == (13, 0)
    assert r.result.last_seat == 0


def test_mp_6_domino_stock_pips_to_winner_option():
    r = replay(V, MP_6, stock_pips_to_winner=True)
    on_table = set(layout_tiles(r.layout))
    in_hands = {t for s in range(2) for t in hand(r, s)}
    stock = set(ALL_TILES) - on_table - in_hands
    assert len(stock) == r.stock_size
    assert r.result.points == (13 + sum(pips(t) for t in stock), 0)


# MP-7 Blocked.  Found deal: stock 2, P0 {6-4}, P1 {6-5, 3-3}.
MP_7 = Scenario(
    hands=(
        "6-4 6-3 3-1 5-3 3-0 5-4 6-6",
        "6-5 3-3 1-1 6-2 0-0 3-2 5-2",
    ),
    stock="4-4 2-1 5-5 6-1 1-0 4-3 2-2 5-0 2-0 4-1 6-0 4-2 5-1 4-0",
    leader=0,
    moves=(
        "6-6 6-2@W 6-3@E 5-2@W 3-1@E 1-1@E 5-3@W 3-2@W 2-1@E 2-2@W 2-0@W 0-0@W 3-0@W 4-3@W "
        "4-4@W 4-1@W 4-2@E 1-0@W 6-0@W 6-1@W 5-4@E 5-5@E 5-0@E"
    ),
)


def test_mp_7_blocked_difference():
    r = replay(V, MP_7)
    assert r.stock_size == 2
    assert hand(r, 0) == {"6-4"} and hand(r, 1) == {"6-5", "3-3"}
    assert r.result.reason == "blocked"
    assert r.result.winners == (0,)
    assert r.result.values == (10, 17)
    assert r.result.points == (7, 0)  # the two stock tiles are ignored


# MP-8 Blocked tie, tie-break.  The example's hands leave only 6 for both ends: P0 leads
# 6-6 from {6-6, 0-1, 4-5}, P1 holds {0-2, 3-5}, and the stock holds just two tiles (the
# rest are out of play), so nobody may draw.
MP_8_HANDS = ["6-6 1-0 5-4", "2-0 5-3"]


@pytest.mark.parametrize(
    ("opts", "winners"),
    [({}, (0,)), ({"blocked_tie": "no_winner"}, ())],
    ids=["lightest_tile", "no_winner"],
)
def test_mp_8_blocked_tie_lightest_tile(opts, winners):
    r = deal(V, MP_8_HANDS, stock="6-1 6-2", leader=0, partial=True, **opts)
    r.play("6-6")
    assert r.stock_size == 2
    assert hand(r, 0) == {"1-0", "5-4"} and hand(r, 1) == {"2-0", "5-3"}
    assert r.result.reason == "blocked"
    assert r.result.values == (10, 10)
    assert r.result.winners == winners  # lightest tiles 1 vs 2
    assert r.result.points == (0, 0)


# The same rule from a full deal (found): a 10-10 block where P0's lightest tile is 1-0
# (pips 1) against P1's 3-1 (pips 4).
MP_8_FULL = Scenario(
    hands=(
        "4-3 0-0 2-2 6-2 4-1 5-4 6-5",
        "4-0 5-1 5-5 5-3 3-3 6-4 1-1",
    ),
    stock="3-2 3-1 6-6 5-0 6-1 2-0 3-0 4-4 2-1 1-0 6-3 4-2 5-2 6-0",
    leader=1,
    moves=(
        "5-1 4-1@E 6-4@E 6-5@E 5-3@W 4-3@W 4-0@W 5-4@E 5-0@W 4-4@E 5-5@W 4-2@E 3-2@E 3-0@E "
        "0-0@E 2-0@E 2-1@E 1-1@E 6-1@E 6-6@E 6-2@E 2-2@E"
    ),
)


def test_mp_8_blocked_tie_full_deal():
    r = replay(V, MP_8_FULL)
    assert r.stock_size == 2
    assert hand(r, 0) == {"1-0", "6-3"} and hand(r, 1) == {"3-1", "3-3"}
    assert r.result.reason == "blocked"
    assert r.result.values == (10, 10)
    assert r.result.winners == (0,)
    assert r.result.points == (0, 0)


# MP-9 Complete tie.  Found deal: blocked with P0 {0-3}, P1 {1-2}.
MP_9 = Scenario(
    hands=(
        "3-0 6-6 6-4 3-3 4-4 6-2 0-0",
        "2-1 3-1 5-3 4-3 1-1 5-0 5-5",
    ),
    stock="5-4 4-2 5-1 6-1 6-5 4-1 2-0 5-2 6-0 2-2 4-0 6-3 3-2 1-0",
    leader=0,
    moves=(
        "6-6 6-1@W 6-2@E 4-2@E 6-4@E 3-1@W 3-3@W 5-3@W 6-5@W 6-0@W 0-0@W 5-0@W 6-3@E 5-2@W "
        "2-2@W 2-0@W 4-0@W 4-3@E 4-4@W 4-1@W 1-1@W 5-1@W 5-5@W 5-4@W"
    ),
)


@pytest.mark.parametrize("blocked_tie", ["lightest_tile", "no_winner"])
def test_mp_9_complete_tie_no_winner(blocked_tie):
    r = replay(V, MP_9, blocked_tie=blocked_tie)
    assert hand(r, 0) == {"3-0"} and hand(r, 1) == {"2-1"}
    assert r.result.reason == "blocked"
    assert r.result.values == (3, 3)
    assert r.result.winners == ()
    assert r.result.points == (0, 0)


# MP-11 and MP-12 on a bounded table 4 tile lengths wide and 2 high (x -8..8, y -4..4 in
# grid units; docs/geometry.md).  The lead 4-0 lies at x -2..2.  On E: 2-0 goes straight
# on, the next tile meets the edge and turns south, the third turns again beside it
# (heading west, under the line) and leaves no room for a fourth: E closes.  On W the
# same happens turning north (the side with more free table).
SMALL = {"geometry": "bounded", "table_width": 4, "table_height": 2}
CLOSE_E = ("4-0", "2-0@E", "5-2@E", "6-5@E")  # E shows 6 and is closed


def test_mp_11_closed_end():
    hands = ["4-0 5-2 6-1 4-3", "2-0 6-5 1-1"]
    r = helpers.deal(V, hands, stock="3-3 5-5 5-0", leader=0, partial=True, **SMALL)
    for move in CLOSE_E[:3]:
        r.play(move)
    assert r.closed_ends == ()
    r.play(CLOSE_E[3])
    assert r.closed_ends == ("E",)
    assert ends(r) == {"W": 4}
    # seat 0 holds 6-1, which fits only the closed end: its one legal move is on W
    assert legal(r) == {"4-3@W"}
    r.play("4-3@W")
    assert r.closed_ends == ("E",)  # G3: it stays closed
    # unbounded, the same 6-1 would be playable on E
    free = helpers.deal(V, hands, stock="3-3 5-5 5-0", leader=0, partial=True, **G4)
    for move in CLOSE_E:
        free.play(move)
    assert legal(free) == {"4-3@W", "6-1@E"}


def test_mp_11_no_placement_means_drawing():
    # seat 0 holds {6-1, 3-2}: 6 is closed and W shows 4, stock 5 -> it must draw (to 2)
    hands = ["4-0 5-2 6-1 3-2", "2-0 6-5 1-1"]
    r = helpers.deal(V, hands, stock="3-3 5-5 5-0 1-0 2-2", leader=0, partial=True, **SMALL)
    for move in CLOSE_E[:3]:
        r.play(move)
    events = len(r.events)
    r.play(CLOSE_E[3])
    assert r.closed_ends == ("E",)
    new = r.events[events:]
    assert drawn(new, 0) == 3  # 3-3, 5-5, 5-0 (none fits W's 4), down to the reserve of 2
    assert r.stock_size == 2
    assert hand(r, 0) == {"6-1", "3-2", "3-3", "5-5", "5-0"}


# Both ends closed: E as above, then W by 4-3, 3-1 (turns north) and 5-1 (turns east,
# beside it).  Seat 1 is to move with 6-1 and the stock holds 6.
MP_12_HANDS = ["4-0 5-2 4-3 5-1 1-1", "2-0 6-5 3-1 6-1"]
MP_12_MOVES = (*CLOSE_E, "4-3@W", "3-1@W", "5-1@W")
MP_12_STOCK = "6-6 5-5 2-2 0-0 6-4 1-0"


def test_mp_12_both_ends_closed():
    r = helpers.deal(V, MP_12_HANDS, stock=MP_12_STOCK, leader=0, partial=True, **SMALL)
    for move in MP_12_MOVES[:-1]:
        r.play(move)
    assert r.closed_ends == ("E",)
    events = len(r.events)
    r.play(MP_12_MOVES[-1])
    assert set(r.closed_ends) == {"W", "E"}
    assert r.ends == ()
    new = r.events[events:]
    # seat 1 draws 4 (down to 2, nothing can ever be played) and passes; seat 0 passes:
    # blocked (the engine sees it at once, RULES.md 1.6)
    assert drawn(new, 1) == 4
    assert r.stock_size == 2
    assert r.result.reason == "blocked"
    assert hand(r, 0) == {"1-1"}
    assert hand(r, 1) == {"6-1", "6-6", "5-5", "2-2", "0-0"}
    assert r.result.values == (2, 33)  # the drawn tiles count against the drawer
    assert r.result.winners == (0,) and r.result.points == (31, 0)


def test_mp_12_end_when_closed_option():
    # open question B2 decided as an option: end the round as soon as both ends close
    r = helpers.deal(
        V, MP_12_HANDS, stock=MP_12_STOCK, leader=0, partial=True, end_when_closed=True, **SMALL
    )
    for move in MP_12_MOVES:
        r.play(move)
    assert r.stock_size == 6  # nobody drew
    assert r.result.reason == "blocked"
    assert r.result.values == (2, 7)
    assert r.result.winners == (0,) and r.result.points == (5, 0)
    r.undo()
    assert not r.is_over and r.closed_ends == ("E",)
