"""RULES.md §2.13: the worked examples of variant A (Straight / All Fives), one test each.

Default options unless a test names one.  Positions are reached from full deals (7 tiles
each; for two and three players the stock holds the rest, top first) with legal moves.
The end-of-hand examples use deals found by a search over random games: the comment
above each deal says what the example fixes, and the test checks exactly that.  Where a
full deal cannot give the example's numbers, or practically never does (AF-7's two-tile
boneyard, AF-12, AF-13 c/d), the deal leaves tiles out of play and the comment says so.
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
    legal,
    passes,
    play_all,
    replay,
    rest,
)

import bones
from bones import Event, IllegalMove, Move

V = "straight"


def round5(n: int) -> int:
    """RULES.md §1.4: nearest multiple of five."""
    return 5 * ((n + 2) // 5)


def play_event(r: bones.Round, move: str) -> Event:
    """Play ``move`` and return its play event."""
    seat = r.to_move
    before = len(r.events)
    r.play(move)
    event = r.events[before]
    assert event.kind == "play" and event.seat == seat and event.move == Move.parse(move)
    return event


# --------------------------------------------------------------------------------------
# AF-1 Leads


@pytest.mark.parametrize(
    ("lead", "count", "points"),
    [
        ("5-5", 10, 10),
        ("6-4", 10, 10),
        ("3-2", 5, 5),
        ("4-1", 5, 5),
        ("5-0", 5, 5),
        ("6-6", 12, 0),
        ("6-5", 11, 0),
        ("0-0", 0, 0),  # zero never scores
    ],
)
def test_af_1_lead_counts(lead, count, points):
    others = rest(lead)
    r = deal(V, [[lead, *others[:6]], others[6:13]], others[13:], leader=0)
    r.play(lead)
    assert r.events[0] == Event("play", 0, Move.parse(lead), count, points)
    assert r.count == count
    assert tuple(r.scores) == (points, 0)


# --------------------------------------------------------------------------------------
# AF-2 Spinner as lead, sides first, four arms; AF-3 ordinary double at an arm end

AF_2_HANDS = [
    "6-6 6-4 6-2 5-3 0-0 1-0 2-0",  # P0: 6-6, 6-4, 6-2 (5-3 for AF-3)
    "6-3 6-1 3-3 2-1 2-2 4-0 4-1",  # P1: 6-3, 6-1 (3-3 for AF-3)
]


def six_positions(r: bones.Round) -> set[str]:
    """The playable positions that show a 6 (where a 6-x tile can go)."""
    return {name for name, number in r.ends if number == 6}


def six_tile_positions(r: bones.Round) -> set[str]:
    """The positions of the legal moves that place a 6-x tile from the mover's hand."""
    return {m.end for m in r.legal_moves if 6 in (m.tile.high, m.tile.low)}


def test_af_2_spinner_lead_sides_first():
    r = full_deal(V, AF_2_HANDS, leader=0)
    steps = [
        # placement, positions for a 6-x tile afterwards, count, points
        ("6-6", {"W", "E"}, 12, 0),
        ("6-3@W", {"E"}, 15, 15),
        ("6-4@E", {"N", "S"}, 7, 0),
        ("6-1@N", {"S"}, 8, 0),
        ("6-2@S", set(), 10, 10),
    ]
    scores = [0, 0]
    for i, (move, positions, count, points) in enumerate(steps):
        seat = i % 2
        assert r.to_move == seat
        event = play_event(r, move)
        assert (event.count, event.points) == (count, points), move
        assert r.count == count
        scores[seat] += points
        assert list(r.scores) == scores
        assert six_positions(r) == positions, move
        if i < len(steps) - 1:
            # the next mover holds 6-x tiles: they may go exactly there
            got = six_tile_positions(r)
            if i == 0:  # W and E are equivalent on a lone spinner (RULES.md §2.4: MAY canonicalise)
                assert got and got <= {"W", "E"}
            else:
                assert got == positions, move
    assert ends(r) == {"W": 3, "E": 4, "N": 1, "S": 2}


def test_af_2_no_arm_before_both_sides_are_covered():
    r = full_deal(V, AF_2_HANDS, leader=0)
    play_all(r, "6-6 6-3@W")
    assert not {m.end for m in r.legal_moves} & {"N", "S"}
    with pytest.raises(IllegalMove):
        r.play("6-4@N")
    assert set(ends(r)) == {"W", "E"}


def test_af_3_ordinary_double_at_an_arm_end():
    r = full_deal(V, AF_2_HANDS, leader=0)
    play_all(r, "6-6 6-3@W 6-4@E")
    assert (ends(r)["W"], ends(r)["E"], r.count) == (3, 4, 7)
    event = play_event(r, "3-3@W")  # P1: W is now a crosswise double
    assert (event.count, event.points) == (10, 10)
    event = play_event(r, "5-3@W")  # P0
    assert (event.count, event.points) == (9, 0)
    assert ends(r) == {"W": 5, "E": 4, "N": 6, "S": 6}


# --------------------------------------------------------------------------------------
# AF-4 First double is not the lead


def test_af_4_first_double_is_not_the_lead():
    hands = [
        "5-3 3-2 3-1 0-0 1-0 1-1 2-0",  # P0
        "3-3 4-3 2-1 2-2 4-0 4-1 4-2",  # P1
    ]
    r = full_deal(V, hands, leader=0)
    event = play_event(r, "5-3")
    assert (event.count, event.points) == (8, 0)
    assert ends(r) == {"W": 5, "E": 3}
    event = play_event(r, "3-3@E")  # the spinner, inner side covered
    assert (event.count, event.points) == (11, 0)
    assert ends(r) == {"W": 5, "E": 3}
    assert {m.end for m in r.legal_moves} <= {"W", "E"}
    event = play_event(r, "3-2@E")  # both sides covered: the spinner counts 0
    assert (event.count, event.points) == (7, 0)
    assert ends(r) == {"W": 5, "E": 2, "N": 3, "S": 3}
    event = play_event(r, "4-3@N")
    assert (event.count, event.points) == (11, 0)
    event = play_event(r, "3-1@S")
    assert (event.count, event.points) == (12, 0)
    assert ends(r) == {"W": 5, "E": 2, "N": 4, "S": 1}


# --------------------------------------------------------------------------------------
# AF-5 Maximum count 35


def test_af_5_maximum_count_35():
    hands = [
        "1-1 6-6 4-4 5-5 5-0 2-0 2-1",  # P0
        "6-1 4-1 5-1 1-0 2-2 3-0 3-1",  # P1
    ]
    r = full_deal(V, hands, leader=0)
    # the counts on the way follow §2.6; the example fixes the last one
    steps = [
        ("1-1", 2),
        ("6-1@W", 8),  # 6 + spinner 2 (one side open)
        ("6-6@W", 14),
        ("4-1@E", 16),  # spinner closed
        ("4-4@E", 20),
        ("5-1@N", 25),
        ("5-5@N", 30),
        ("1-0@S", 30),
        ("5-0@S", 35),
    ]
    for move, count in steps:
        event = play_event(r, move)
        assert event.count == count, move
        assert event.points == (count if count % 5 == 0 else 0), move
    assert last_play(r) == Event("play", 0, Move.parse("5-0@S"), 35, 35)
    assert list(r.scores) == [20 + 30 + 35, 25 + 30]


# --------------------------------------------------------------------------------------
# AF-6 Muggins option, Hoyle's sequence (and the same counts with the default spinner)


@pytest.mark.parametrize("spinner_rule", ["none", "first_double"])
def test_af_6_muggins_hoyle_sequence(spinner_rule):
    hands = [
        "5-5 0-0 4-0 1-1 2-1 2-2 3-1",  # P0
        "5-0 6-5 1-0 2-0 3-0 3-2 3-3",  # P1
    ]
    r = full_deal(V, hands, leader=0, spinner_rule=spinner_rule)
    for move, count in [("5-5", 10), ("5-0@W", 10), ("0-0@W", 10), ("6-5@E", 6), ("4-0@W", 10)]:
        event = play_event(r, move)
        assert (event.count, event.points) == (count, count if count % 5 == 0 else 0), move
    assert list(r.scores) == [30, 10]
    if spinner_rule == "none":
        assert set(ends(r)) == {"W", "E"}  # no spinner: never an arm
    else:
        assert set(ends(r)) == {"W", "E", "N", "S"}


# --------------------------------------------------------------------------------------
# AF-7 Draw until playable

AF_7_HANDS = [
    "3-0 1-0 2-0 4-0 5-0 6-0 3-2",  # P0 leads 3-0
    "6-6 5-4 1-1 2-2 4-4 5-5 6-1",  # P1: no 3, no 0
]


def test_af_7_draw_until_playable():
    r = full_deal(V, AF_7_HANDS, top="2-4 5-6 1-3", leader=0)
    r.play("3-0")
    assert not set(AF_7_HANDS[1].split()) & {"3-0"}
    # P1 drew 2-4 and 5-6 (kept) and then 1-3, which it must play
    assert drawn(r.events, 1) == 3
    assert r.stock_size == 14 - 3
    assert r.to_move == 1
    assert hand(r, 1) == set(AF_7_HANDS[1].split()) | {"4-2", "6-5", "3-1"}
    assert legal(r) == {"3-1@W"}
    event = play_event(r, "3-1@W")
    assert (event.count, event.points) == (1, 0)
    assert hand(r, 1) == set(AF_7_HANDS[1].split()) | {"4-2", "6-5"}
    assert r.to_move == 0


def test_af_7_boneyard_exhausted_then_pass():
    # "If the boneyard had been [2-4, 5-6] only": a stock of just those two tiles
    r = deal(V, AF_7_HANDS, stock="2-4 5-6", leader=0, partial=True)
    r.play("3-0")
    assert drawn(r.events, 1) == 2
    assert passes(r.events, 1) == 1
    assert r.stock_size == 0
    assert hand(r, 1) == set(AF_7_HANDS[1].split()) | {"4-2", "6-5"}
    assert r.to_move == 0
    assert not r.is_over


# --------------------------------------------------------------------------------------
# AF-8 Must play, may not draw


def test_af_8_must_play_may_not_draw():
    hands = [
        "6-1 6-2 4-4 0-0 1-1 3-3 4-3",  # P0: after 6-1, nothing else matches 2 or 5
        "6-5 2-1 5-5 5-0 5-1 5-2 5-3",  # P1
    ]
    r = full_deal(V, hands, leader=1)
    play_all(r, "6-5 6-1@W 2-1@W")
    assert ends(r) == {"W": 2, "E": 5}
    assert r.to_move == 0 and r.stock_size == 14
    assert "6-2" in hand(r, 0) and "4-4" in hand(r, 0)
    assert legal(r) == {"6-2@W"}
    for illegal in ("draw", "pass", "4-4@W", "6-2@E"):
        with pytest.raises(IllegalMove):
            r.play(illegal)
    assert legal(r) == {"6-2@W"} and r.stock_size == 14


def test_af_8_option_may_draw_with_playable():
    hands = [
        "6-1 6-2 4-4 0-0 1-1 3-3 4-3",
        "6-5 2-1 5-5 5-0 5-1 5-2 5-3",
    ]
    r = full_deal(V, hands, leader=1, may_draw_with_playable=True)
    play_all(r, "6-5 6-1@W 2-1@W")
    assert legal(r) == {"6-2@W", "draw"}
    r.play("draw")  # 1-0, the top of the stock; the turn goes on
    assert r.events[-1] == Event("draw", 0, None, 1, 0)
    assert r.to_move == 0 and r.stock_size == 13
    assert hand(r, 0) == {"6-2", "4-4", "0-0", "1-1", "3-3", "4-3", "1-0"}
    assert legal(r) == {"6-2@W", "draw"}


# --------------------------------------------------------------------------------------
# AF-18 Option spinner_sides_first=false


def test_af_18_spinner_arms_open_at_once():
    hands = [
        "6-6 0-0 1-0 1-1 2-0 3-0 3-3",  # P0
        "6-2 2-1 2-2 4-0 4-1 4-2 4-4",  # P1: 6-2 is its only 6-x tile
    ]
    r = full_deal(V, hands, leader=0, spinner_sides_first=False)
    r.play("6-6")
    positions = {m.end for m in r.legal_moves if str(m.tile) == "6-2"}
    # W and E are equivalent on a lone spinner (§2.4: an engine MAY canonicalise them)
    assert {"N", "S"} <= positions and positions & {"W", "E"}
    assert positions <= {"W", "E", "N", "S"}
    # with the default (sides first) only W/E
    r = full_deal(V, hands, leader=0)
    r.play("6-6")
    assert {m.end for m in r.legal_moves if str(m.tile) == "6-2"} <= {"W", "E"}


# --------------------------------------------------------------------------------------
# AF-9 Rounding table, through the domino bonus: P0 goes out while P1 holds n pips.
# Found deals, one per n.

AF_9_DEALS = {
    0: Scenario(
        hands=(
            "6-1 4-2 5-3 2-2 3-0 6-3 6-2",
            "6-6 1-1 2-1 3-3 0-0 4-4 3-1",
        ),
        stock="6-4 5-2 6-5 5-0 6-0 5-5 2-0 5-4 3-2 5-1 1-0 4-0 4-1 4-3",
        leader=0,
        moves=(
            "6-2 6-6@W 4-2@E 4-4@E 6-3@W 3-1@W 6-1@S 2-1@W 2-2@W 1-1@S 6-4@N 5-2@W 5-3@W "
            "3-3@W 3-0@W"
        ),
    ),
    1: Scenario(
        hands=(
            "5-2 0-0 2-1 2-2 6-5 6-1 3-0",
            "5-3 2-0 1-0 5-0 4-4 5-4 5-1",
        ),
        stock="6-2 3-1 5-5 4-1 4-0 6-3 6-4 3-2 1-1 4-2 4-3 6-0 3-3 6-6",
        leader=0,
        moves="5-2 5-3@W 2-2@E 2-0@E 2-1@N 5-1@N 3-0@W 5-0@E 6-5@E 5-4@N 0-0@W 4-4@N 6-1@E",
    ),
    2: Scenario(
        hands=(
            "3-1 5-3 5-2 2-1 4-1 5-4 5-0",
            "5-5 6-5 1-1 0-0 6-0 3-2 5-1",
        ),
        stock="3-0 6-4 6-1 6-3 1-0 2-2 4-2 4-0 3-3 4-4 6-6 6-2 4-3 2-0",
        leader=0,
        moves="5-4 6-5@W 4-1@E 6-0@W 2-1@E 0-0@W 5-0@W 5-5@W 5-2@W 3-2@E 3-1@E 5-1@E 5-3@E",
    ),
    3: Scenario(
        hands=(
            "4-4 5-3 5-1 1-0 3-1 3-3 6-0",
            "5-5 3-0 2-1 4-1 3-2 6-6 4-3",
        ),
        stock="4-2 6-5 2-2 4-0 6-3 6-1 5-4 6-2 2-0 5-0 1-1 5-2 6-4 0-0",
        leader=0,
        moves=(
            "3-3 3-0@W 1-0@W 4-3@E 3-1@W 3-2@S 5-3@N 4-1@E 5-1@E 5-5@N 4-2@S 6-5@N 4-4@S "
            "6-6@N 6-0@N"
        ),
    ),
    4: Scenario(
        hands=(
            "5-2 4-0 2-1 6-6 6-1 6-3 3-3",
            "5-1 3-0 4-3 2-2 6-4 2-0 3-1",
        ),
        stock="4-4 5-4 6-2 5-5 0-0 1-0 4-1 1-1 6-0 5-3 3-2 4-2 5-0 6-5",
        leader=0,
        moves="3-3 3-1@W 6-3@E 3-0@S 4-0@S 4-3@N 6-1@E 6-4@N 6-6@N 5-1@E 2-1@W 2-0@W 5-2@E",
    ),
    7: Scenario(
        hands=(
            "6-4 0-0 4-4 6-5 5-0 4-1 1-1",
            "3-1 5-5 2-0 4-0 4-3 6-1 5-2",
        ),
        stock="5-3 6-0 4-2 3-2 3-0 2-1 6-3 5-4 5-1 6-2 2-2 6-6 1-0 3-3",
        leader=0,
        moves="4-4 4-3@W 4-1@E 4-0@N 5-0@N 5-5@N 1-1@E 5-2@N 6-4@S 2-0@N 0-0@N 3-1@E 6-5@S",
    ),
    8: Scenario(
        hands=(
            "6-0 5-4 1-1 6-5 6-6 5-5 5-1",
            "1-0 4-1 4-4 6-2 2-0 5-3 3-3",
        ),
        stock="4-3 2-2 6-1 3-2 4-0 5-2 5-0 0-0 6-4 3-1 6-3 3-0 2-1 4-2",
        leader=0,
        moves=(
            "6-6 6-2@W 6-0@E 2-0@E 6-5@N 5-3@N 4-3@N 4-1@N 1-1@N 1-0@N 2-2@W 6-1@S 5-1@S "
            "3-2@E 5-5@S 3-3@E 5-4@S"
        ),
    ),
    12: Scenario(
        hands=(
            "2-1 4-4 4-1 5-4 2-2 3-1 6-1",
            "5-0 6-6 1-1 6-4 0-0 3-0 1-0",
        ),
        stock="4-0 2-0 6-5 5-1 3-3 6-2 3-2 4-2 5-5 5-3 6-3 4-3 6-0 5-2",
        leader=0,
        moves="3-1 1-1@E 2-1@E 3-0@W 4-1@S 5-0@W 2-2@E 1-0@N 5-4@W 0-0@N 4-4@W 6-4@W 6-1@W",
    ),
    13: Scenario(
        hands=(
            "5-5 5-1 6-1 6-6 6-4 0-0 3-0",
            "4-3 4-0 1-1 3-3 2-1 3-2 5-2",
        ),
        stock="6-0 6-3 4-2 3-1 6-2 2-0 4-1 2-2 5-4 4-4 6-5 5-0 5-3 1-0",
        leader=0,
        moves="3-0 3-2@W 0-0@E 4-0@E 6-4@E 5-2@W 5-5@W 6-0@N 6-1@N 1-1@N 5-1@W 2-1@N 6-6@E",
    ),
    22: Scenario(
        hands=(
            "4-3 0-0 2-2 1-0 5-2 6-1 5-3",
            "3-2 6-4 5-5 4-2 4-4 6-6 2-0",
        ),
        stock="5-4 3-3 4-1 5-0 6-5 3-1 6-2 6-0 6-3 3-0 2-1 4-0 1-1 5-1",
        leader=0,
        moves="5-3 5-5@W 5-2@W 2-0@W 0-0@W 3-2@E 2-2@E 4-2@E 4-3@E 5-4@N 1-0@W 4-4@N 6-1@W",
    ),
    23: Scenario(
        hands=(
            "5-1 3-1 3-0 5-5 6-2 5-3 6-0",
            "4-4 1-1 4-0 6-4 6-5 3-2 4-1",
        ),
        stock="5-2 2-0 0-0 6-6 5-0 6-1 3-3 2-1 4-2 1-0 5-4 6-3 4-3 2-2",
        leader=0,
        moves="5-5 6-5@W 6-2@W 3-2@W 3-1@W 1-1@W 5-1@W 5-2@W 5-3@E 2-0@W 3-0@E 4-0@E 6-0@W",
    ),
    24: Scenario(
        hands=(
            "6-2 4-0 6-3 1-1 5-3 5-4 5-2",
            "6-6 4-3 2-2 6-4 6-1 3-2 3-1",
        ),
        stock="4-2 6-5 3-3 4-1 0-0 3-0 5-0 1-0 6-0 5-5 4-4 2-1 5-1 2-0",
        leader=0,
        moves="4-0 4-3@W 6-3@W 6-4@W 5-4@W 6-5@W 6-2@W 2-2@W 5-2@W 4-2@S 5-3@W 3-1@W 1-1@W",
    ),
    37: Scenario(
        hands=(
            "6-4 6-2 3-2 4-0 4-2 3-1 5-1",
            "2-1 6-6 3-0 1-1 0-0 4-4 1-0",
        ),
        stock="6-0 5-0 2-0 5-3 3-3 4-3 2-2 4-1 6-3 5-5 6-5 5-4 6-1 5-2",
        leader=0,
        moves="6-4 4-4@E 6-2@W 2-1@W 5-1@W 5-0@W 4-0@W 4-3@W 3-1@W 1-1@W 4-2@E 1-0@W 3-2@E",
    ),
    38: Scenario(
        hands=(
            "3-0 6-6 6-5 6-1 4-2 2-0 6-0",
            "5-4 5-3 6-4 5-0 6-3 4-1 4-0",
        ),
        stock="4-3 2-2 5-2 2-1 6-2 1-1 0-0 5-5 5-1 1-0 3-2 3-3 4-4 3-1",
        leader=0,
        moves="4-2 4-1@W 6-1@W 6-3@W 3-0@W 4-0@W 2-0@E 6-4@W 6-6@W 5-0@E 6-5@E 6-2@E 6-0@W",
    ),
}


@pytest.mark.parametrize(
    ("n", "rounded"),
    [
        (0, 0),
        (1, 0),
        (2, 0),
        (3, 5),
        (4, 5),
        (7, 5),
        (8, 10),
        (12, 10),
        (13, 15),
        (22, 20),
        (23, 25),
        (24, 25),
        (37, 35),
        (38, 40),
    ],
)
def test_af_9_rounding_table(n, rounded):
    assert round5(n) == rounded  # the table itself (RULES.md §1.4)
    r = replay(V, AF_9_DEALS[n])
    assert r.is_over
    assert hand_pips(r, 1) == n and not r.hand(0)
    assert r.result.reason == "out"
    assert r.result.winners == (0,)
    assert r.result.values == (0, n)
    assert r.result.points == (rounded, 0)
    assert r.result.last_seat == 0


# --------------------------------------------------------------------------------------
# AF-10 Domino, two players.  Found deal: P0's last tile makes the count 20; P1 is left
# with {6-5, 1-0}.
AF_10 = Scenario(
    hands=(
        "0-0 4-0 5-4 3-2 3-0 6-4 6-6",
        "6-5 1-0 3-3 6-0 4-4 5-0 2-2",
    ),
    stock="6-3 6-2 6-1 1-1 2-0 5-2 5-1 4-3 5-3 2-1 4-1 4-2 5-5 3-1",
    leader=0,
    moves="3-0 3-3@W 4-0@E 4-4@E 6-4@E 6-0@E 0-0@E 5-0@E 3-2@W 2-2@W 5-4@E 6-3@S 6-6@S",
)


def test_af_10_domino_two_players():
    r = replay(V, AF_10, upto=-1)
    scores_before = tuple(r.scores)
    event = play_event(r, "6-6@S")
    assert event.seat == 0 and (event.count, event.points) == (20, 20)
    assert tuple(r.scores) == (scores_before[0] + 20, scores_before[1])
    assert hand(r, 1) == {"6-5", "1-0"}
    assert r.result == bones.RoundResult("out", (0,), (10, 0), (0, 12), 0)
    # "P0 total for the hand 30": the last count plus the bonus
    assert event.points + r.result.points[0] == 30


# --------------------------------------------------------------------------------------
# AF-11 Domino, three players: sum before rounding.  Found deal: P2 goes out, P0 and P1
# hold 12 pips each.
AF_11 = Scenario(
    hands=(
        "5-1 6-2 6-6 2-2 2-0 5-2 0-0",
        "6-1 6-3 4-4 1-0 5-5 4-1 4-3",
        "3-1 4-0 3-0 5-0 5-4 6-5 4-2",
    ),
    stock="5-3 2-1 6-4 1-1 6-0 3-3 3-2",
    leader=0,
    moves=(
        "2-0 1-0@E 4-2@W 5-1@E 4-4@W 5-4@E 6-4@W 4-3@S 3-0@S 6-2@W 4-1@N 3-1@N 2-1@W 6-3@N "
        "6-5@N 5-2@N 6-1@W 4-0@S 6-6@W 6-0@W 5-0@W"
    ),
)


def test_af_11_domino_three_players_sum_before_rounding():
    r = replay(V, AF_11)
    assert (hand_pips(r, 0), hand_pips(r, 1), len(r.hand(2))) == (12, 12, 0)
    assert r.result.reason == "out"
    assert r.result.winners == (2,)
    assert r.result.points == (0, 0, 25)  # round5(24), not round5(12) + round5(12) = 20
    assert r.result.values == (12, 12, 0)
    assert r.result.last_seat == 2


# --------------------------------------------------------------------------------------
# AF-13 Blocked ties.  (a) Found deal: a 2-player block at 10 pips each.
AF_13_A = Scenario(
    hands=(
        "6-5 3-3 6-1 2-0 6-3 6-4 5-2",
        "2-1 3-0 0-0 4-0 1-0 5-4 4-4",
    ),
    stock="6-0 6-6 4-2 4-1 1-1 3-1 4-3 5-1 3-2 5-3 2-2 5-5 5-0 6-2",
    leader=0,
    moves=(
        "6-4 5-4@E 6-5@W 5-1@E 5-2@W 2-1@W 6-1@E 1-0@W 2-0@W 6-6@E 6-3@E 3-1@E 3-2@W 3-0@W "
        "5-0@W 4-1@E 5-3@W 6-0@N 3-3@W 4-2@E 2-2@E 4-3@W 6-2@S 0-0@N 4-0@W"
    ),
)
# (b) Found deal: a 3-player block, P0 7, P1 7, P2 18.
AF_13_B = Scenario(
    hands=(
        "5-3 4-4 5-2 3-2 6-1 4-3 3-0",
        "6-5 5-1 4-0 5-0 3-3 6-3 4-2",
        "6-0 6-4 4-1 6-2 0-0 6-6 2-1",
    ),
    stock="5-5 1-0 5-4 2-2 3-1 2-0 1-1",
    leader=0,
    moves=(
        "5-3 6-3@E 6-0@E 3-0@E 6-5@W 6-4@W 4-3@W 3-3@E 3-1@W 3-2@E 4-2@E 5-4@E 6-1@W 5-1@E "
        "4-1@E 4-4@E 4-0@E 0-0@E 2-0@E 6-2@E 6-6@W"
    ),
)


def assert_blocked(r: bones.Round) -> None:
    """Boneyard empty and nobody holds a tile for any open end (RULES.md §2.7)."""
    assert r.is_over and r.result.reason == "blocked"
    assert r.stock_size == 0
    numbers = {n for _, n in r.ends}
    for seat in range(r.players):
        assert not any({t.high, t.low} & numbers for t in r.hand(seat)), seat


# AF-12 and AF-13 (c), (d) need an odd pip total left in blocked hands.  With every tile
# in play that takes the spinner's arms (a line's table pips have the parity of its ends),
# and random games of full deals almost never block like that; these deals leave the
# other tiles out of play (empty boneyard) and block right after the lead.


@pytest.mark.parametrize(
    ("opts", "points"),
    [({}, 15), ({"blocked_award": "difference"}, 5)],
    ids=["opponents_total", "difference"],
)
def test_af_12_blocked_two_players(opts, points):
    r = deal(V, ["4-3 6-2", "6-5 2-0"], stock=(), leader=0, partial=True, **opts)
    r.play("4-3")  # P1 holds no 4 or 3 and the boneyard is empty; nor does P0 after it
    assert_blocked(r)
    assert (hand_pips(r, 0), hand_pips(r, 1)) == (8, 13)
    assert r.result.winners == (0,)
    assert r.result.values == (8, 13)
    assert r.result.points == (points, 0)  # round5(13), or round5(13 - 8)
    assert r.result.last_seat == 0


def test_af_13_a_blocked_tie_two_players_nobody_scores():
    r = replay(V, AF_13_A)
    assert_blocked(r)
    assert (hand_pips(r, 0), hand_pips(r, 1)) == (10, 10)
    assert r.result.winners == ()
    assert r.result.points == (0, 0)
    assert r.result.values == (10, 10)


def test_af_13_b_blocked_three_players_two_tie_split():
    r = replay(V, AF_13_B)
    assert_blocked(r)
    assert r.result.values == (7, 7, 18)
    assert r.result.winners == (0, 1)
    assert r.result.points == (10, 10, 0)  # round5(18) = 20, halved


@pytest.mark.parametrize(
    ("hands", "values", "winners", "points"),
    [
        # (c) P2 = 13: round5 = 15, half 7.5, rounded down to a multiple of 5
        (["3-3 6-1", "5-2", "6-5 2-0"], (7, 7, 13), (0, 1), (5, 5, 0)),
        # (d) all three tie: nobody
        (["3-3 6-1", "5-2", "4-0 2-1"], (7, 7, 7), (), (0, 0, 0)),
    ],
    ids=["c-split-rounded-down", "d-all-tied"],
)
def test_af_13_cd_blocked_three_players(hands, values, winners, points):
    r = deal(V, hands, stock=(), leader=0, partial=True)
    r.play("3-3")  # nobody holds a 3
    assert_blocked(r)
    assert r.result.values == values
    assert r.result.winners == winners
    assert r.result.points == points


# --------------------------------------------------------------------------------------
# AF-14 Partnership, blocked.  Found deal (4 players, no boneyard): P0 5, P1 6, P2 9, P3 6.
AF_14 = Scenario(
    hands=(
        "2-2 4-2 6-2 6-3 6-0 3-2 5-4",
        "1-1 4-4 5-0 3-0 3-1 6-1 2-0",
        "4-3 2-1 4-1 6-4 0-0 5-5 4-0",
        "5-3 6-6 5-2 3-3 5-1 6-5 1-0",
    ),
    stock="",
    leader=0,
    moves=(
        "6-3 3-0@E 0-0@E 1-0@E 6-0@S 6-1@W 6-4@S 5-1@E 5-4@E 4-4@S 4-3@S 5-3@S 4-2@E 1-1@W "
        "2-1@W 5-2@W 2-2@E 5-0@N 5-5@W 6-5@W 6-2@E 6-6@W"
    ),
)


def test_af_14_partnership_blocked():
    r = replay(V, AF_14)
    assert_blocked(r)
    assert [hand_pips(r, s) for s in range(4)] == [5, 6, 9, 6]
    assert r.sides == ((0, 2), (1, 3))
    assert r.result.values == (14, 12)
    assert r.result.winners == (1,)
    assert r.result.points == (0, 15)  # round5(14)


# --------------------------------------------------------------------------------------
# AF-15 Partnership, domino.  Found deal: P1 goes out; P0 holds 7, P2 11, P3 9.
AF_15 = Scenario(
    hands=(
        "3-3 2-1 2-2 1-0 5-0 5-3 6-4",
        "2-0 1-1 5-5 6-2 6-1 4-3 6-3",
        "0-0 3-0 6-6 4-4 6-5 5-1 4-1",
        "4-2 6-0 5-2 4-0 5-4 3-2 3-1",
    ),
    stock="",
    leader=0,
    moves=(
        "1-0 6-1@W 3-0@E 6-0@W 5-0@W 6-3@E 6-6@E 5-4@W 6-4@E 6-2@S 4-1@E 5-2@S 5-3@S 1-1@E "
        "5-1@E 4-2@W 3-3@S 2-0@W 0-0@W 4-0@W 4-3@S 4-4@W 5-5@E"
    ),
)


@pytest.mark.parametrize(
    ("opts", "bonus"),
    [({}, 20), ({"partner_pips_on_domino": "subtract"}, 10)],
    ids=["ignore", "subtract"],
)
def test_af_15_partnership_domino(opts, bonus):
    r = replay(V, AF_15, **opts)
    assert [hand_pips(r, s) for s in range(4)] == [7, 0, 11, 9]
    assert r.result.reason == "out"
    assert r.result.winners == (1,)
    assert r.result.last_seat == 1
    assert r.result.points == (0, bonus)  # round5(7 + 11); subtract: round5(18 - 9)


# --------------------------------------------------------------------------------------
# AF-16 Immediate game end (what the round decides; the game is tests/test_game.py).
# Found deals with Team A at 245: team A's first scoring placement is P2's, count 10; in
# AF_16_LAST it is P2's last tile.
AF_16 = Scenario(
    hands=(
        "4-0 5-0 2-1 4-1 4-2 4-4 5-4",
        "0-0 3-1 5-1 4-3 5-3 6-4 6-5",
        "2-0 6-0 1-1 6-1 2-2 5-2 6-3",
        "1-0 3-0 3-2 6-2 3-3 5-5 6-6",
    ),
    stock="",
    leader=0,
    moves="4-2 6-4@W 2-0@E 1-0@E 2-1@E 6-5@W 5-2@W 6-2@E 2-2@W",
)
AF_16_LAST = Scenario(
    hands=(
        "5-5 3-0 5-4 3-1 2-0 3-3 6-1",
        "4-0 4-4 5-2 6-0 2-1 6-4 6-6",
        "3-2 4-2 6-5 2-2 4-1 5-1 5-3",
        "4-3 6-3 1-0 5-0 0-0 6-2 1-1",
    ),
    stock="",
    leader=0,
    moves=(
        "3-0 6-0@E 3-2@W 6-2@W 6-1@W 6-4@E 4-2@E 1-0@W 2-0@E 4-0@W 4-1@W 5-0@E 5-5@E 2-1@W "
        "2-2@W 5-4@E 5-2@W 5-3@W 6-3@W 6-6@W 6-5@W 4-3@E 3-1@E 5-1@E"
    ),
)


@pytest.mark.parametrize("scenario", [AF_16, AF_16_LAST], ids=["mid-hand", "last-tile"])
def test_af_16_immediate_game_end(scenario):
    r = replay(V, scenario, upto=-1, scores=[245, 0])
    assert not r.is_over and r.scores[0] == 245
    assert r.to_move == 2
    last = scenario.moves.split()[-1]
    event = play_event(r, last)
    assert (event.count, event.points) == (10, 10)
    assert r.is_over
    assert r.scores[0] == 255
    assert r.result.reason == "target"
    assert r.result.winners == (0,)
    assert r.result.last_seat == 2
    assert r.result.points == (0, 0)  # the hand is abandoned: no bonus
    if scenario is AF_16_LAST:
        assert not r.hand(2)  # even the domino bonus is not paid
    else:
        assert r.hand(2)
    assert len(r.legal_moves) == 0
    with pytest.raises(IllegalMove):
        r.play(f"{r.hand(3)[0]}@W")


# --------------------------------------------------------------------------------------
# AF-17 4 players, 7 tiles, no boneyard.  Found deals: P3 holds nothing for the ends
# after P2's 4-4@S; AF_17_BLOCKED ends blocked.
AF_17_PASS = Scenario(
    hands=(
        "6-6 1-0 1-1 6-4 4-1 2-2 6-0",
        "3-3 3-2 3-0 6-5 6-1 4-3 4-0",
        "5-3 4-2 6-2 5-4 5-1 4-4 3-1",
        "2-1 6-3 0-0 5-0 5-2 5-5 2-0",
    ),
    stock="",
    leader=0,
    moves="2-2 3-2@W 6-2@E 2-1@N 6-4@E 3-3@W 4-2@S 6-3@W 1-0@N 4-0@N 4-4@S",
)
AF_17_BLOCKED = Scenario(
    hands=(
        "1-0 5-1 2-2 3-2 4-2 5-3 6-4",
        "2-1 3-1 6-1 4-3 6-3 5-4 6-6",
        "0-0 4-0 1-1 4-1 3-3 4-4 5-5",
        "2-0 3-0 5-0 6-0 5-2 6-2 6-5",
    ),
    stock="",
    leader=0,
    moves=(
        "6-4 4-3@E 3-3@E 6-0@W 3-2@E 6-3@S 4-0@W 3-0@N 4-2@E 6-6@S 4-1@E 5-0@N 5-1@E 5-4@N "
        "4-4@W 5-2@E 2-2@E 2-1@E 1-1@E 6-2@S 1-0@E 0-0@E 2-0@S"
    ),
)


def test_af_17_four_players_pass_without_drawing():
    r = replay(V, AF_17_PASS, upto=-1)
    assert r.stock_size == 0
    before = len(r.events)
    r.play("4-4@S")
    assert [(e.kind, e.seat) for e in r.events[before + 1 :]] == [("pass", 3)]
    assert not any(e.kind == "draw" for e in r.events)
    numbers = {n for _, n in r.ends}
    assert not any({t.high, t.low} & numbers for t in r.hand(3))
    assert r.to_move == 0 and not r.is_over


def test_af_17_four_players_blocked():
    r = replay(V, AF_17_BLOCKED)
    assert_blocked(r)
    assert not any(e.kind == "draw" for e in r.events)
    assert all(r.hand(s) for s in range(4))
    assert r.result.values == (18, 22)
    assert r.result.winners == (0,)
    assert r.result.points == (20, 0)  # round5(22)


# --------------------------------------------------------------------------------------
# §2.8 Blocked ties among four individual players (teams_with_4=false): the k players tied
# for least each score round5(pips of the others) / k, rounded down to a multiple of 5; all
# four tied: nobody.  A lead of 6-6 that nobody can follow, the other tiles out of play.


@pytest.mark.parametrize(
    ("hands", "values", "winners", "points", "opts"),
    [
        # the worked example: 12, 19, 17, 12 -> floor5(round5(36) / 2) = floor5(17.5) = 15
        (
            ["6-6 5-5 2-0", "5-4 5-3 1-1", "4-4 3-3 2-1", "5-2 3-2"],
            (12, 19, 17, 12),
            (0, 3),
            (15, 0, 0, 15),
            {},
        ),
        # two tie: 5, 5, 9, 11 -> round5(20) / 2 = 10 each
        (["6-6 3-2", "4-1", "4-3 2-0", "5-4 1-1"], (5, 5, 9, 11), (0, 1), (10, 10, 0, 0), {}),
        # three tie: 4, 4, 4, 13 -> round5(13) = 15, / 3 = 5 each
        (["6-6 4-0", "3-1", "2-2", "5-3 5-0"], (4, 4, 4, 13), (0, 1, 2), (5, 5, 5, 0), {}),
        # three tie, a third that rounds down to zero: 4, 4, 4, 9 -> 10 / 3 -> 0 each
        (["6-6 4-0", "3-1", "2-2", "5-4"], (4, 4, 4, 9), (0, 1, 2), (0, 0, 0, 0), {}),
        # all four tie: nobody
        (["6-6 4-0", "3-1", "2-2", "2-1 1-0"], (4, 4, 4, 4), (), (0, 0, 0, 0), {}),
        # blocked_award=difference: 12, 19, 17, 12 -> (19 - 12) + (17 - 12) = 12 -> 10 / 2
        (
            ["6-6 5-5 2-0", "5-4 5-3 1-1", "4-4 3-3 2-1", "5-2 3-2"],
            (12, 19, 17, 12),
            (0, 3),
            (5, 0, 0, 5),
            {"blocked_award": "difference"},
        ),
    ],
    ids=["worked-12-19-17-12", "two-tie", "three-tie", "three-tie-zero", "all-four", "diff"],
)
def test_af_2_8_blocked_tie_four_individual_players(hands, values, winners, points, opts):
    r = deal(V, hands, stock=(), leader=0, partial=True, teams_with_4=False, **opts)
    r.play("6-6")  # nobody holds a 6 after the lead
    assert_blocked(r)
    assert r.result.values == values
    assert r.result.winners == winners
    assert r.result.points == points
    # the game adds each tied player's share
    game = bones.Game.from_round(V, r, scores=(0, 0, 0, 0), teams_with_4=False, **opts)
    game.next_round()
    assert game.scores == points


def test_af_2_4_lead_spinner_w_and_e_listed_once_whatever_n_and_s_hold():
    """§2.4: with spinner_sides_first=false, W and E of a lead spinner whose W and E are
    both empty are one placement (listed once, either accepted), whatever N and S hold."""
    hands = [
        "6-6 6-1 0-0 1-1 2-0 3-0 3-3",  # P0
        "6-2 6-3 2-2 4-0 4-1 4-2 4-4",  # P1
    ]
    r = full_deal(V, hands, leader=0, spinner_sides_first=False)
    r.play("6-6")
    r.play("6-2@N")  # N holds a tile, S is empty, W and E still show the lone 6-6
    positions = sorted(m.end for m in r.legal_moves if str(m.tile) == "6-1")
    assert positions == ["S", "W"]  # E is the same placement as W: listed once
    west = r.copy()
    west.play("6-1@W")
    east = r.copy()
    east.play("6-1@E")  # the equivalent placement is accepted and gives the same position
    assert west.count == east.count == 1 + 12 + 2
    assert west.moves == east.moves
    r.play("6-1@W")
    r.play("6-3@S")  # now W holds a tile: E is a placement of its own
    assert not r.is_over
