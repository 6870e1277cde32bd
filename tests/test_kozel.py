"""RULES.md §4.14: the worked examples of variant C (Kozel), one test each.

What a single round decides is tested here (leader and lead tile, legal moves, draws,
``result``: reason, winners, points = each losing side's own value, values, last_seat).
The game-level examples (the 13 rule KZ-7, eggs carried over in KZ-9, the goat KZ-12,
next leaders, KZ-16) belong to tests/test_game.py.  Deals are full (2 players 7 tiles,
3-4 players 5, the bazaar holds the rest) except where a comment says the deal leaves
tiles out of play: KZ-5's two-tile bazaar, and the fish examples that a full deal cannot
give (KZ-8: an odd total at ends 4/4) or practically never gives (KZ-9's 2/2, KZ-11,
KZ-14's 6/6/15).
"""

from __future__ import annotations

import pytest
from helpers import (
    Scenario,
    deal,
    drawn,
    ends,
    full_deal,
    hand,
    hand_pips,
    last_play,
    lead_of,
    legal,
    passes,
    play_all,
    replay,
    split,
)

from bones import IllegalMove, Move

V = "kozel"


def test_kz_1_opener_highest_double_forced():
    hands = [
        "4-4 6-1 5-2 4-3 3-1 2-1 1-0",  # P0: 4-4
        "6-6 2-0 6-5 5-4 5-3 4-2 3-0",  # P1: 6-6
    ]
    assert lead_of(V, hands) == (1, {"6-6"})


def test_kz_2_opener_no_doubles_pip_sum_then_lexicographic_option():
    hands = [
        "6-0 5-1 4-2 5-0 4-1 3-2 4-0",  # P0: best 6-0 (6)
        "5-4 5-3 5-2 4-3 3-1 2-1 3-0",  # P1: best 5-4 (9)
    ]
    assert lead_of(V, hands) == (1, {"5-4"})
    assert lead_of(V, hands, nondouble_ranking="lexicographic") == (0, {"6-0"})


def test_kz_2_opener_equal_sums_high_half():
    hands = [
        "6-3 6-2 5-3 6-1 4-3 5-2 6-0",  # P0: 6-3 (9)
        "5-4 4-2 4-1 3-2 2-1 1-0 5-1",  # P1: 5-4 (9)
    ]
    assert lead_of(V, hands) == (0, {"6-3"})


def test_kz_3_one_one_first():
    hands = [
        "6-6 3-2 6-5 5-4 4-3 2-1 1-0",  # P0: 6-6
        "1-1 6-4 5-3 4-2 3-1 2-0 6-0",  # P1: 1-1
    ]
    assert lead_of(V, hands, opening_order="one_one_first") == (1, {"1-1"})
    assert lead_of(V, hands) == (0, {"6-6"})  # default: highest double


def test_kz_3_one_one_first_only_zero_double_and_no_zero_double_lead():
    hands = [
        "0-0 6-5 4-1 3-1 2-1 1-0 2-0",  # P0: 0-0 is the only double dealt, and 6-5
        "5-4 5-3 4-3 5-2 4-2 3-2 3-0",  # P1: best 5-4
    ]
    assert lead_of(V, hands, opening_order="one_one_first") == (0, {"0-0"})
    assert lead_of(V, hands, opening_order="one_one_first", no_zero_double_lead=True) == (
        0,
        {"6-5"},
    )


# --------------------------------------------------------------------------------------
# KZ-4 Double-double.  Found deals: after the moves P0 is to move with ends W=2, E=5 and
# holds exactly {2-2, 5-5, 4-3} (KZ_4) or exactly {2-2, 5-5} (KZ_4_SHORT).
KZ_4 = Scenario(
    hands=(
        "2-2 5-5 4-3 5-0 6-4 4-4 3-0",
        "3-1 5-4 6-6 5-2 6-2 3-2 0-0",
    ),
    stock="4-2 2-1 1-0 2-0 4-0 6-5 1-1 5-3 3-3 5-1 4-1 6-1 6-0 6-3",
    leader=0,
    moves="6-4 6-2@W 4-4@E 3-2@W 3-0@W 5-4@E 5-0@W 5-2@W",
)
KZ_4_SHORT = Scenario(
    hands=(
        "2-2 5-5 0-0 4-1 5-2 5-4 6-1",
        "5-1 4-3 6-6 6-4 1-0 3-0 1-1",
    ),
    stock="4-2 4-4 2-0 6-5 5-3 2-1 6-3 4-0 3-3 5-0 6-0 3-1 3-2 6-2",
    leader=0,
    moves="5-4 4-3@E 5-2@W 3-0@E 0-0@E 1-0@E 4-1@E 6-4@E 6-1@E 5-1@E",
)


def test_kz_4_double_double_three_choices():
    r = replay(V, KZ_4)
    assert r.to_move == 0
    assert ends(r) == {"W": 2, "E": 5}
    assert hand(r, 0) == {"2-2", "5-5", "4-3"}
    assert legal(r) == {"2-2@W", "5-5@E", "2-2@W+5-5@E"}
    assert Move.parse("2-2@W+5-5@E") in r.legal_moves
    before = len(r.events)
    r.play("2-2@W+5-5@E")
    event = r.events[before]
    assert (event.kind, event.seat, event.move) == ("play", 0, Move.parse("2-2@W+5-5@E"))
    assert ends(r) == {"W": 2, "E": 5}
    assert hand(r, 0) == {"4-3"}
    assert r.hand_sizes[0] == 1
    assert not r.is_over


@pytest.mark.parametrize("single", ["2-2@W", "5-5@E"])
def test_kz_4_double_double_is_optional(single):
    r = replay(V, KZ_4)
    r.play(single)
    assert hand(r, 0) == {"2-2", "5-5", "4-3"} - {single[:3]}


def test_kz_4_double_double_goes_out():
    r = replay(V, KZ_4_SHORT)
    assert ends(r) == {"W": 2, "E": 5}
    assert hand(r, 0) == {"2-2", "5-5"}
    assert legal(r) == {"2-2@W", "5-5@E", "2-2@W+5-5@E"}
    r.play("2-2@W+5-5@E")
    assert r.is_over
    assert r.result.reason == "out"
    assert r.result.winners == (0,)
    assert r.result.last_seat == 0
    assert r.result.points == (0, hand_pips(r, 1))
    assert r.result.values == (0, hand_pips(r, 1))


def test_kz_4_equal_ends_no_double_double():
    hands = [
        "6-1 3-3 4-4 0-0 2-0 2-1 2-2",  # P0: after 6-1, holds 3-3 and 4-4 (no other 3)
        "6-3 3-1 5-0 5-1 5-2 5-4 5-5",  # P1
    ]
    r = full_deal(V, hands, leader=1)
    play_all(r, "6-3 6-1@W 3-1@W")
    assert ends(r) == {"W": 3, "E": 3}
    assert {"3-3", "4-4"} <= hand(r, 0)
    moves = list(r.legal_moves)
    assert moves and {str(m.tile) for m in moves} == {"3-3"}
    assert not any(m.is_double_double for m in moves)
    with pytest.raises(IllegalMove):
        r.play("3-3@W+4-4@E")


def test_kz_4_never_on_the_lead():
    r = full_deal(V, ["2-2 5-5 6-0 6-1 6-2 6-3 6-4", "1-1 3-0 3-1 4-0 4-1 5-0 5-1"], leader=0)
    assert not any(m.is_double_double for m in r.legal_moves)
    assert legal(r) == set(split("2-2 5-5 6-0 6-1 6-2 6-3 6-4"))


# --------------------------------------------------------------------------------------
# KZ-5 Bazaar.  Found deal: after the moves (P1 lays a double-double on the way) the ends
# are W=1, E=4, P0 holds exactly {6-6, 2-3} and the bazaar is untouched: 5-5, 0-2, 4-6
# on top.
KZ_5 = Scenario(
    hands=(
        "6-6 3-2 3-0 4-1 4-4 1-0 6-2",
        "4-3 0-0 2-2 4-2 1-1 6-1 2-1",
    ),
    stock="5-5 2-0 6-4 6-0 5-0 5-4 5-2 5-1 3-1 3-3 4-0 6-5 5-3 6-3",
    leader=0,
    moves="4-1 4-2@W 1-0@E 2-2@W+0-0@E 3-0@E 4-3@E 6-2@W 6-1@W 4-4@E 1-1@W",
)


def test_kz_5_bazaar_draw_until_playable():
    r = replay(V, KZ_5, upto=-1)
    assert drawn(r.events, 0) == 0 and r.stock_size == 14
    before = len(r.events)
    r.play("1-1@W")
    assert ends(r) == {"W": 1, "E": 4}
    forced = r.events[before + 1 :]
    assert forced and all((e.kind, e.seat) == ("draw", 0) for e in forced)
    assert drawn(r.events, 0) == 3
    assert r.to_move == 0
    assert hand(r, 0) == {"6-6", "3-2", "5-5", "2-0", "6-4"}
    assert legal(r) == {"6-4@E"}
    r.play("6-4@E")
    assert ends(r) == {"W": 1, "E": 6}
    assert hand(r, 0) == {"6-6", "3-2", "5-5", "2-0"}
    assert r.stock_size == 14 - 3


def test_kz_5_bazaar_exhausted_then_pass():
    # "With bazaar [5-5, 0-2] only": a bazaar of just those two tiles
    r = replay(V, KZ_5._replace(stock="5-5 2-0"), partial=True)
    assert drawn(r.events, 0) == 2
    assert passes(r.events, 0) == 1
    assert r.stock_size == 0
    assert hand(r, 0) == {"6-6", "3-2", "5-5", "2-0"}
    assert r.to_move == 1 and not r.is_over


# --------------------------------------------------------------------------------------
# KZ-6 Hand values.  Found deals: P0 goes out while P1 holds exactly the example's hand.
KZ_6 = {
    "0-0": Scenario(
        hands=(
            "2-2 5-5 3-2 2-0 3-1 6-2 5-2",
            "0-0 6-6 4-1 6-3 6-1 1-1 5-4",
        ),
        stock="4-0 4-2 5-1 3-3 6-0 1-0 2-1 4-4 5-3 4-3 6-4 6-5 5-0 3-0",
        leader=0,
        moves=(
            "2-2 4-2@W 5-2@E 4-1@W 5-5@E 6-1@W 6-2@W 5-4@E 2-0@W 4-0@W 4-4@W 4-3@W 3-1@W "
            "1-1@W 2-1@W 6-4@E 3-2@W 5-3@W 5-1@W 6-6@E 1-0@W 6-3@E 6-0@W 6-5@W 3-3@E"
        ),
    ),
    "0-0 1-2": Scenario(
        hands=(
            "4-2 6-1 6-3 4-4 1-1 4-3 6-2",
            "0-0 2-1 5-2 3-3 4-1 2-0 3-2",
        ),
        stock="6-5 5-0 4-0 5-1 3-0 6-6 2-2 6-0 3-1 5-3 5-4 5-5 1-0 6-4",
        leader=0,
        moves=(
            "6-1 4-1@E 4-4@E 6-5@W 4-2@E 5-2@W 6-2@W 3-2@E 6-3@W 3-3@W 4-3@W 4-0@W 3-0@E "
            "5-0@W 5-1@W 2-0@E 1-1@W"
        ),
    ),
    "6-6 5-4": Scenario(
        hands=(
            "5-5 4-0 2-2 6-0 3-2 4-3 2-0",
            "6-6 5-4 6-4 6-2 6-1 1-0 5-3",
        ),
        stock="4-2 5-2 4-4 4-1 3-1 0-0 5-1 2-1 5-0 6-5 6-3 3-3 1-1 3-0",
        leader=0,
        moves=(
            "4-3 5-3@E 5-5@E 6-4@W 6-0@W 1-0@W 5-2@E 6-1@W 2-0@E 6-2@W 3-2@W 3-1@W 4-0@E "
            "4-1@W 4-2@W 4-4@E 2-2@W"
        ),
    ),
}


@pytest.mark.parametrize(("loser_hand", "value"), [("0-0", 25), ("0-0 1-2", 3), ("6-6 5-4", 21)])
def test_kz_6_hand_values(loser_hand, value):
    r = replay(V, KZ_6[loser_hand])
    assert hand(r, 1) == set(split(loser_hand))
    assert not r.hand(0)
    assert r.result.reason == "out"
    assert r.result.winners == (0,)
    assert r.result.values == (0, value)
    assert r.result.points == (0, value)  # the loser's raw penalty: its own value
    assert r.result.last_seat == 0


@pytest.mark.parametrize(("lone_zero_double", "value"), [(0, 0), (10, 10)])
def test_kz_6_lone_zero_double_option(lone_zero_double, value):
    r = replay(V, KZ_6["0-0"], lone_zero_double=lone_zero_double)
    assert r.result.values == (0, value)
    assert r.result.points == (0, value)


# --------------------------------------------------------------------------------------
# KZ-8 Fish, two players.  P0 {1-2, 3-3} = 9 and P1 {6-5, 3-0} = 14 leave only 4 for the
# ends; with every tile in play a line's table pips have the parity of its two ends, so a
# fish at ends 4/4 leaves an even total in the hands, and 9 + 14 is odd: this example
# cannot come from a full deal.  The deal leaves the other 21 tiles out of play.


def test_kz_8_fish_two_players():
    r = deal(V, ["6-4 4-2 2-1 3-3", "6-2 6-5 3-0"], stock=(), leader=0, partial=True)
    play_all(r, "6-4 6-2@W 4-2@W")
    assert ends(r) == {"W": 4, "E": 4}
    assert hand(r, 0) == {"2-1", "3-3"} and hand(r, 1) == {"6-5", "3-0"}
    assert r.is_over
    assert r.result.reason == "blocked"
    assert r.result.values == (9, 14)
    assert r.result.winners == (0,)
    assert r.result.points == (0, 14)
    assert r.result.last_seat == 0  # P0 laid the last tile (and leads round 2)


# --------------------------------------------------------------------------------------
# KZ-9 Eggs (the round's part: nobody wins, nobody writes; the pot is game-level).
# Found deal: a fish at 8 and 8.
KZ_9 = Scenario(
    hands=(
        "3-3 6-4 3-0 5-0 5-4 4-2 3-1",
        "5-5 2-2 2-1 6-6 5-3 5-1 6-2",
    ),
    stock="1-1 4-4 6-0 4-0 6-5 5-2 6-1 2-0 6-3 4-1 0-0 1-0 3-2 4-3",
    leader=0,
    moves=(
        "5-4 5-1@W 3-1@W 5-3@W 6-4@E 6-2@E 5-0@W 2-1@E 3-0@W 1-1@E 3-3@W 6-1@E 6-3@W 6-6@W "
        "6-0@W 0-0@W 6-5@E 1-0@W 5-5@E 4-1@W 4-4@W 4-3@W 5-2@E 3-2@E"
    ),
)


def test_kz_9_eggs_small_tie():
    # "tie 2/2": a fish right after the lead, the other tiles out of play
    r = deal(V, ["6-6 2-0", "1-1"], stock=(), leader=0, partial=True)
    r.play("6-6")
    assert r.result.reason == "blocked"
    assert r.result.values == (2, 2)
    assert r.result.winners == ()
    assert r.result.points == (0, 0)


def test_kz_9_eggs_tied_fish():
    r = replay(V, KZ_9)
    assert r.stock_size == 0
    assert r.result.reason == "blocked"
    assert r.result.values == (8, 8)
    assert r.result.winners == ()
    assert r.result.points == (0, 0)


# --------------------------------------------------------------------------------------
# KZ-10 Partnership, out.  Found deal (4 players, 5 tiles each): P2 goes out, P1 holds
# {6-0}, P3 holds {5-4}.
KZ_10 = Scenario(
    hands=(
        "2-0 2-1 4-0 1-0 4-1",
        "6-0 0-0 4-2 5-1 5-0",
        "5-5 5-3 3-3 3-1 1-1",
        "5-4 3-2 6-1 6-3 6-4",
    ),
    stock="4-4 6-2 2-2 6-6 6-5 3-0 5-2 4-3",
    leader=0,
    moves=(
        "2-1 5-1@E 5-3@E 3-2@W 3-0@W 0-0@W 3-3@E 6-3@E 4-0@W 4-2@W 5-2@W 6-4@E 4-1@E 5-0@W "
        "3-1@E 4-3@E 1-0@W 1-1@W 6-1@W 6-5@W 5-5@W"
    ),
)


def test_kz_10_partnership_out():
    r = replay(V, KZ_10)
    assert r.sides == ((0, 2), (1, 3))
    assert not r.hand(2)
    assert hand(r, 1) == {"6-0"} and hand(r, 3) == {"5-4"}
    assert r.result.reason == "out"
    assert r.result.winners == (0,)
    assert r.result.last_seat == 2
    assert r.result.values[1] == 15
    assert r.result.values[0] == hand_pips(r, 0)  # the partner's tiles still count
    assert r.result.points == (0, 15)  # Team B writes 15, Team A nothing


# --------------------------------------------------------------------------------------
# KZ-11 Partnership, fish.  19 pips left is odd: from a full deal that needs both ends on
# two numbers whose 13 tiles are all on the table, which random games almost never give;
# the deal leaves the other tiles out of play and fishes right after the lead.


def test_kz_11_partnership_fish():
    r = deal(V, ["6-6 4-0", "2-1", "5-2", "3-2"], stock=(), leader=0, partial=True)
    r.play("6-6")
    assert [hand_pips(r, s) for s in range(4)] == [4, 3, 7, 5]
    assert r.result.reason == "blocked"
    assert r.result.values == (11, 8)
    assert r.result.winners == (1,)
    assert r.result.points == (11, 0)  # Team A writes 11 (the 13 rule is game-level)
    assert r.result.last_seat == 0


# --------------------------------------------------------------------------------------
# KZ-13 Three players.  Found deal: P0 goes out, P1 holds 13, P2 holds 4.
KZ_13 = Scenario(
    hands=(
        "4-0 6-4 3-2 2-2 3-0",
        "5-1 1-1 5-4 4-1 6-6",
        "6-0 6-3 4-3 4-2 5-2",
    ),
    stock="6-1 4-4 5-3 1-0 0-0 2-0 6-2 3-3 2-1 6-5 5-5 3-1 5-0",
    leader=0,
    moves=(
        "6-4 5-4@E 5-2@E 2-2@E 6-6@W 6-3@W 3-0@W 1-0@W 4-2@E 4-0@E 6-1@W 6-0@E 6-2@W 2-1@W "
        "6-5@E 5-5@E 5-1@W 5-0@W 0-0@W 5-3@E 4-3@E 2-0@W 4-4@E 3-2@W"
    ),
)


def test_kz_13_three_players_every_loser_writes_own_value():
    r = replay(V, KZ_13)
    assert r.sides == ((0,), (1,), (2,))
    assert r.result.reason == "out"
    assert r.result.winners == (0,)
    assert r.result.values == (0, 13, 4)
    assert r.result.points == (0, 13, 4)


# --------------------------------------------------------------------------------------
# KZ-14 Three-player fish.  Found deal: all three hold 6 (eggs).
KZ_14_EGGS = Scenario(
    hands=(
        "4-3 4-2 5-5 0-0 6-2",
        "4-0 4-1 3-1 6-6 2-2",
        "5-2 3-3 5-0 5-3 6-1",
    ),
    stock="3-2 4-4 6-0 1-0 6-4 5-4 2-1 2-0 6-5 5-1 1-1 6-3 3-0",
    leader=0,
    moves=(
        "0-0 4-0@W 5-0@E 5-5@E 4-1@W 6-1@W 6-2@W 2-2@W 5-2@W 5-4@W 6-5@E 6-3@E 4-3@E 4-4@W "
        "4-2@W 2-1@W 1-1@W 6-4@E 6-6@E 5-1@W 6-0@E 3-0@E 5-3@E"
    ),
)


def test_kz_14_three_player_fish_tie_for_least():
    # 6, 6, 15 leaves an odd total: as in KZ-11, a fish right after the lead
    r = deal(V, ["6-6 5-1", "4-2", "5-4 3-3"], stock=(), leader=0, partial=True)
    r.play("6-6")
    assert r.result.reason == "blocked"
    assert r.result.values == (6, 6, 15)
    assert r.result.winners == (0, 1)
    assert r.result.points == (0, 0, 15)


def test_kz_14_three_player_fish_all_tied_eggs():
    r = replay(V, KZ_14_EGGS)
    assert r.stock_size == 0
    assert r.result.reason == "blocked"
    assert r.result.values == (6, 6, 6)
    assert r.result.winners == ()
    assert r.result.points == (0, 0, 0)


# --------------------------------------------------------------------------------------
# KZ-15 Next leader after a fish (the round's part: who laid the last tile, who won; the
# next leader itself is game-level).  Found deal: P1 lays the fish tile, P0 is lighter.
KZ_15 = Scenario(
    hands=(
        "2-0 3-0 6-0 2-1 5-1 6-1 2-2",
        "0-0 5-2 4-3 6-3 4-4 5-4 5-5",
    ),
    stock="4-1 4-2 4-0 3-1 5-0 3-3 1-0 6-2 1-1 6-4 6-5 3-2 5-3 6-6",
    leader=0,
    moves=(
        "2-1 5-2@W 6-1@E 5-5@W 5-1@W 6-3@E 3-0@E 0-0@E 6-0@E 4-1@W 4-2@W 6-2@W 6-4@W 4-0@W "
        "2-0@W 6-5@E 2-2@W 5-4@E 3-2@W 4-3@E 5-3@W 5-0@W 1-0@W 1-1@W 3-1@E"
    ),
)


def test_kz_15_fish_maker_and_fish_winner():
    r = replay(V, KZ_15)
    assert last_play(r).seat == 1
    assert r.result.reason == "blocked"
    assert r.result.last_seat == 1  # the fish-maker (leads round 2 by default)
    assert r.result.winners == (0,)  # the lighter player wins the fish
    assert r.result.values == (12, 14)
    assert r.result.points == (0, 14)


def test_kz_15_fish_winner_blocker_option():
    # option fish_winner=blocker: the player who made the fish wins regardless of pips
    r = replay(V, KZ_15, fish_winner="blocker")
    assert r.result.reason == "blocked"
    assert r.result.winners == (1,)
    assert r.result.points == (12, 0)
