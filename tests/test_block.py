"""RULES.md §4b: the Block variant (OpenSpiel's python_block_dominoes and
python_team_dominoes), one test per rule of the section.

2 players: 7 tiles each, the other 14 never used; 4 players: partnerships 0+2 vs 1+3, all
28 dealt.  Seat 0 leads any tile unless a leader is given; one line, no spinner; no
drawing, a player without a placement passes; the lower side total wins the other side's
total (zero-sum), equal totals give 0.
"""

from __future__ import annotations

import pytest
from helpers import (
    Scenario,
    deal,
    ends,
    hand_pips,
    legal,
    playable,
    replay,
)

import bones

V = "block"


@pytest.mark.parametrize("seed", range(5))
def test_block_two_players_seven_each_never_drawn(seed):
    r = bones.Round.deal(V, players=2, seed=seed)
    assert r.hand_sizes == (7, 7)
    assert r.stock_size == 0
    tiles = [str(t) for s in range(2) for t in r.hand(s)]
    assert len(set(tiles)) == 14
    assert r.sides == ((0,), (1,))


@pytest.mark.parametrize("seed", range(5))
def test_block_four_players_all_28_dealt_in_partnerships(seed):
    r = bones.Round.deal(V, players=4, seed=seed)
    assert r.hand_sizes == (7, 7, 7, 7)
    assert r.stock_size == 0
    assert len({str(t) for s in range(4) for t in r.hand(s)}) == 28
    assert r.sides == ((0, 2), (1, 3))
    assert [r.side_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_block_three_players_not_allowed():
    with pytest.raises(bones.OptionError):
        bones.Round.deal(V, players=3, seed=0)


@pytest.mark.parametrize("players", [2, 4])
def test_block_seat_0_leads_any_tile(players):
    r = bones.Round.deal(V, players=players, seed=11)
    assert r.to_move == 0
    assert legal(r) == {str(t) for t in r.hand(0)}
    r = bones.Round.deal(V, players=players, seed=11, leader=1)
    assert r.to_move == 1
    assert legal(r) == {str(t) for t in r.hand(1)}


HANDS = [
    "6-4 6-1 0-0 2-0 2-2 3-0 3-3",  # P0
    "4-1 6-2 6-5 5-0 5-2 5-3 5-5",  # P1
]


def test_block_tile_fitting_both_ends_gives_two_moves():
    r = deal(V, HANDS, leader=0)
    r.play("6-4")
    r.play("4-1@E")
    assert ends(r) == {"W": 6, "E": 1}
    assert legal(r) == {"6-1@W", "6-1@E"}
    r.play("6-1@E")
    assert ends(r) == {"W": 6, "E": 6}


def test_block_equal_ends_give_one_move():
    r = deal(V, HANDS, leader=0)
    for move in ("6-4", "4-1@E", "6-1@E"):
        r.play(move)
    assert ends(r) == {"W": 6, "E": 6}
    # P1 holds 6-2 and 6-5: each fits both ends, which show the same number
    moves = list(r.legal_moves)
    assert sorted(str(m.tile) for m in moves) == ["6-2", "6-5"]


def test_block_lone_double_lead_gives_one_move_per_tile():
    r = deal(V, ["3-3 0-0 1-0 1-1 2-0 2-1 2-2", "3-1 3-2 4-0 4-1 4-2 4-4 5-0"], leader=0)
    r.play("3-3")
    assert sorted(str(m.tile) for m in r.legal_moves) == ["3-1", "3-2"]


def test_block_doubles_are_ordinary_no_spinner():
    r = deal(V, ["3-3 0-0 1-0 1-1 2-0 2-1 2-2", "3-1 3-2 4-0 4-1 4-2 4-4 5-0"], leader=0)
    for move in ("3-3", "3-1@W", "1-0@W", "3-2@E"):
        r.play(move)
    assert set(ends(r)) == {"W", "E"}  # a spinner would open N and S here


def test_block_player_without_placement_passes_never_draws():
    # P1 holds nothing with a 6 or a 4: it passes, and P0 goes on
    r = deal(V, ["6-4 6-6 6-1 0-0 2-0 2-2 3-0", "1-1 2-1 3-1 5-0 5-2 5-3 5-5"], leader=0)
    r.play("6-4")
    assert [(e.kind, e.seat) for e in r.events[1:]] == [("pass", 1)]
    assert r.to_move == 0 and r.stock_size == 0
    assert playable(r.hand(1), [n for _, n in r.ends]) == []


# Found deals: BLOCK_2_OUT (P1 goes out; P0 passes on the way), BLOCK_2_BLOCKED (P0 is
# lighter), BLOCK_2_TIE (12 and 12), BLOCK_4_OUT_LOSES (P0 goes out, P2's tiles outweigh
# Team B's).
BLOCK_2_OUT = Scenario(
    hands=(
        "0-0 2-0 3-0 3-1 5-1 4-2 4-4",
        "5-0 4-1 6-1 6-2 3-3 5-4 6-5",
    ),
    stock="",
    leader=0,
    moves="2-0 6-2@W 0-0@E 5-0@E 5-1@E 6-1@E 6-5@W 5-4@W 4-4@W 4-1@W 3-1@W 3-3@W",
)
BLOCK_2_BLOCKED = Scenario(
    hands=(
        "1-0 5-1 2-2 3-2 4-2 5-3 6-4",
        "2-1 3-1 6-1 4-3 6-3 5-4 6-6",
    ),
    stock="",
    leader=0,
    moves="6-4 4-3@E 5-3@E 6-1@W 5-1@W 5-4@W 4-2@W 2-1@W 1-0@W",
)
BLOCK_2_TIE = Scenario(
    hands=(
        "1-1 4-2 1-0 5-3 6-3 3-1 5-5",
        "5-1 2-1 6-2 5-2 6-4 0-0 6-0",
    ),
    stock="",
    leader=0,
    moves="3-1 2-1@E 5-3@W 6-2@E 5-5@W 6-4@E 4-2@E 5-2@W",
)
BLOCK_4_OUT_LOSES = Scenario(
    hands=(
        "4-0 5-0 3-1 4-1 3-2 4-2 6-5",
        "6-0 1-1 5-1 2-2 5-2 3-3 6-6",
        "2-0 3-0 6-2 5-3 4-4 6-4 5-5",
        "0-0 1-0 2-1 6-1 4-3 6-3 5-4",
    ),
    stock="",
    leader=0,
    moves=(
        "4-2 2-2@E 4-4@W 5-4@W 5-0@W 6-0@W 6-2@E 6-1@W 4-1@W 6-6@E 6-4@E 4-3@W 3-2@W 5-2@W "
        "5-3@W 6-3@W 6-5@W 5-1@W 1-0@W 4-0@E 3-0@W 0-0@E 3-1@W"
    ),
)


def check_passes(scenario: Scenario, players: int) -> int:
    """Replay move by move: every pass is by a player without a placement; never a draw."""
    r = deal(V, scenario.hands, scenario.stock, scenario.leader)
    count = 0
    for move in scenario.moves.split():
        before = len(r.events)
        r.play(move)
        numbers = [n for _, n in r.ends]
        for e in r.events[before + 1 :]:
            assert e.kind == "pass", e
            assert playable(r.hand(e.seat), numbers) == [], e
            count += 1
    assert r.stock_size == 0 and r.hand_sizes == tuple(len(r.hand(s)) for s in range(players))
    return count


def test_block_out_two_players_passes_and_result():
    assert check_passes(BLOCK_2_OUT, 2) > 0
    r = replay(V, BLOCK_2_OUT)
    assert not r.hand(1) and hand_pips(r, 0) == 9
    assert r.result.reason == "out"
    assert r.result.winners == (1,)
    assert r.result.values == (9, 0)
    assert r.result.points == (-9, 9)  # zero-sum: the winner takes the other side's total
    assert r.result.last_seat == 1


def test_block_blocked_lower_total_wins_the_other_total():
    check_passes(BLOCK_2_BLOCKED, 2)
    r = replay(V, BLOCK_2_BLOCKED)
    numbers = {n for _, n in r.ends}
    assert all(playable(r.hand(s), numbers) == [] for s in range(2))
    assert r.result.reason == "blocked"
    assert r.result.values == (9, 25)
    assert r.result.winners == (0,)
    assert r.result.points == (25, -25)
    assert r.result.last_seat == 0


def test_block_blocked_equal_totals_give_zero():
    r = replay(V, BLOCK_2_TIE)
    assert r.result.reason == "blocked"
    assert r.result.values == (12, 12)
    assert r.result.winners == ()
    assert r.result.points == (0, 0)


def test_block_team_goes_out_and_still_loses():
    check_passes(BLOCK_4_OUT_LOSES, 4)
    r = replay(V, BLOCK_4_OUT_LOSES)
    assert not r.hand(0)
    team_a = hand_pips(r, 0) + hand_pips(r, 2)
    team_b = hand_pips(r, 1) + hand_pips(r, 3)
    assert (team_a, team_b) == (12, 11)
    assert r.result.reason == "out"
    assert r.result.values == (12, 11)
    assert r.result.winners == (1,)
    assert r.result.points == (-12, 12)
    assert r.result.last_seat == 0
