"""Pins for rule details that no worked example fixed (issue 6).

Each test here fails when the behaviour it names is broken; ``python mutation/run.py``
(docs/testing.md) checks that with hand-made mutants of the core, the game layer and the
match statistics.

* All Fives: a count that lands exactly on the target ends the round at once; with
  ``exact_target`` an exact hit scores (and ends) and an overshoot is void; the
  ``muggins`` move is offered only to the opponents of an unclaimed count.
* Kozel: the redeal on exactly five doubles or exactly six tiles of one number
  (``redeal_bad_hand``), and KZ-8 played from a full deal.
* Match statistics: the GSPRT bounds when alpha != beta, and pentanomial counts that
  ignore unfinished pairs.
"""

from __future__ import annotations

import math

import pytest
from helpers import ALL_TILES, canon, full_deal, hand, layout_tiles, lead_of, legal

import bones
from bones.core.round import points_after
from bones.gamerules import FAMILY_RULES, target_winners
from bones.gamerules.kozel import (
    KozelAccounts,
    KozelGameRules,
    KozelRules,
    kozel_entry,
    kozel_game_end,
    kozel_record,
)
from bones.gamerules.straight import straight_hand_end
from bones.match.report import summarize
from bones.match.stats import (
    SPRT,
    SequentialTest,
    estimate,
    pentanomial_counts,
    pentanomial_estimate,
)

S = "straight"
# P0 leads 5-5 (a count of 10); P1 answers 5-0@W (count 10) or 6-5@W (count 6).
AF_HANDS = ["5-5 0-0 4-0 1-1 2-1 2-2 3-1", "5-0 6-5 1-0 2-0 3-0 3-2 3-3"]


def lead_ten(scores, **opts) -> bones.Round:
    """P0 leads 5-5 (count 10) with the game scores ``scores`` before the hand."""
    r = full_deal(S, AF_HANDS, leader=0, scores=scores, **opts)
    r.play("5-5")
    return r


# --------------------------------------------------------------------------------------
# The target during the round (RULES.md §2.9: reaching it, >=, ends the hand at once)


def test_count_landing_exactly_on_target_ends_the_round():
    r = lead_ten([240, 0])
    assert r.events[-1].points == 10
    assert r.scores == (250, 0)
    assert r.is_over
    assert r.result.reason == "target"
    assert r.result.winners == (0,)
    assert r.result.points == (0, 0)
    assert len(r.legal_moves) == 0


def test_count_one_short_of_target_goes_on():
    r = lead_ten([239, 0])
    assert r.scores == (249, 0)
    assert not r.is_over and r.to_move == 1


def test_game_ends_when_a_count_lands_exactly_on_target():
    r = lead_ten([240, 0])
    game = bones.Game.from_round(S, r, scores=[240, 0])
    assert game.next_round() is None
    assert game.is_over
    assert game.scores == (250, 0)
    assert game.winners == (0,) and game.losers == (1,)


def test_end_of_hand_check_does_not_stop_on_the_target():
    r = lead_ten([240, 0], target_check="end_of_hand")
    assert r.scores == (250, 0)
    assert not r.is_over


@pytest.mark.parametrize("target", [250, 255])
def test_target_winners_at_or_above(target):
    assert target_winners([250, 100], 250) == (0,)
    assert target_winners([250, 250], 250) == (0, 1)
    assert target_winners([255, 250], 250) == (0,)
    assert target_winners([249, 100], 250) == ()
    assert target_winners([target, 100], 250, exact=True) == ((0,) if target == 250 else ())


# --------------------------------------------------------------------------------------
# exact_target: the target must be hit exactly; an overshoot is void


def test_exact_target_hit_scores_and_ends():
    r = lead_ten([240, 0], exact_target=True)
    assert r.events[-1].points == 10
    assert r.scores == (250, 0)
    assert r.is_over and r.result.reason == "target" and r.result.winners == (0,)
    game = bones.Game.from_round(S, r, scores=[240, 0], exact_target=True)
    assert game.next_round() is None
    assert game.winners == (0,) and game.scores == (250, 0)


@pytest.mark.parametrize("before", [241, 245, 249])
def test_exact_target_overshoot_is_void(before):
    r = lead_ten([before, 0], exact_target=True)
    assert r.events[-1].count == 10
    assert r.events[-1].points == 0
    assert r.scores == (before, 0)
    assert not r.is_over and r.to_move == 1


def test_exact_target_points_after():
    opts = {"exact_target": True}
    assert points_after(S, 2, opts, [], ["5-5"], side_score=240) == [10]
    assert points_after(S, 2, opts, [], ["5-5"], side_score=241) == [0]
    assert points_after(S, 2, {}, [], ["5-5"], side_score=245) == [10]


def test_exact_target_hand_bonus():
    assert straight_hand_end([240, 0], [10, 0], target=250, exact_target=True) == (250, 0)
    assert straight_hand_end([245, 0], [10, 0], target=250, exact_target=True) == (245, 0)
    assert straight_hand_end([245, 0], [10, 0], target=250) == (255, 0)


# --------------------------------------------------------------------------------------
# muggins_claim: an unclaimed count may be claimed by the opponents only


def test_muggins_offered_to_the_opponent_of_an_unclaimed_count():
    r = full_deal(S, AF_HANDS, leader=0, muggins_claim=True)
    assert "muggins" not in legal(r)  # nothing to claim before the lead
    assert "5-5!" in legal(r) and "5-5" in legal(r)
    r.play("5-5")  # the count of 10 is not claimed
    assert r.scores == (0, 0)
    assert r.to_move == 1
    assert "muggins" in legal(r)
    r.play("muggins")
    assert r.scores == (0, 10)
    assert r.events[-1].kind == "muggins" and r.events[-1].points == 10
    assert r.to_move == 1  # the claim is not the turn: P1 still plays a tile
    assert "muggins" not in legal(r)


def test_muggins_not_offered_when_the_count_was_claimed():
    r = full_deal(S, AF_HANDS, leader=0, muggins_claim=True)
    r.play("5-5!")
    assert r.scores == (10, 0)
    assert r.to_move == 1
    assert "muggins" not in legal(r)


def test_muggins_not_offered_to_the_side_that_made_the_count():
    r = full_deal(S, AF_HANDS, leader=0, muggins_claim=True)
    r.play("5-5")
    r.play("6-5@W")  # P1 lets the count go and makes a count of 6: nothing to claim
    assert r.to_move == 0
    assert "muggins" not in legal(r)
    # P1's own unclaimed count (5-0@W: 10) is offered to P0, never back to P1
    r = full_deal(S, AF_HANDS, leader=0, muggins_claim=True)
    r.play("5-5!")
    r.play("5-0@W")
    assert r.to_move == 0 and "muggins" in legal(r)


def test_muggins_in_partnerships_goes_to_the_other_team():
    hands = [
        "5-5 6-6 6-4 6-3 6-2 6-1 6-0",
        "0-0 1-0 1-1 2-0 2-1 2-2 5-0",
        "3-0 3-1 3-2 3-3 4-0 4-1 4-2",
        "5-1 5-2 5-3 5-4 6-5 4-3 4-4",
    ]
    r = full_deal(S, hands, leader=0, muggins_claim=True)
    r.play("5-5")
    assert r.to_move == 1 and "muggins" in legal(r)
    r.play("muggins")
    assert r.scores == (0, 10)  # team 1 (seats 1 and 3)
    r = full_deal(S, hands, leader=0, muggins_claim=True)
    r.play("5-5")
    r.play("5-0@W!")  # P1 claims its own count: P0's miss is gone, P2 cannot claim it
    assert r.scores == (0, 10)
    assert r.to_move == 2 and "muggins" not in legal(r)


def test_claimed_count_is_scaled():
    r = full_deal(S, AF_HANDS, leader=0, muggins_claim=True, score_scale=5, target=61)
    r.play("5-5!")
    assert r.scores == (2, 0)
    opts = {"muggins_claim": True, "score_scale": 5, "target": 61}
    assert points_after(S, 2, opts, ["5-5"], ["muggins", "5-0@W!", "5-0@W"]) == [2, 2, 0]


def test_muggins_points_are_scaled_once():
    # a claimed miss used to be divided by score_scale twice (10 scored 0, not 2)
    r = full_deal(S, AF_HANDS, leader=0, muggins_claim=True, score_scale=5, target=61)
    r.play("5-5")
    r.play("muggins")
    assert r.scores == (0, 2)


# --------------------------------------------------------------------------------------
# GSPRT bounds (Wald): lower = log(beta / (1 - alpha)), upper = log((1 - beta) / alpha)


@pytest.mark.parametrize("alpha, beta", [(0.05, 0.2), (0.1, 0.01), (0.05, 0.05)])
def test_gsprt_bounds(alpha, beta):
    sprt = SPRT(elo0=0, elo1=5, alpha=alpha, beta=beta)
    assert sprt.lower == pytest.approx(math.log(beta / (1 - alpha)))
    assert sprt.upper == pytest.approx(math.log((1 - beta) / alpha))
    assert sprt.decide(sprt.upper) == "H1"
    assert sprt.decide(sprt.lower) == "H0"
    assert sprt.decide((sprt.lower + sprt.upper) / 2) is None


def test_gsprt_unequal_error_rates_known_values():
    sprt = SPRT(alpha=0.05, beta=0.2)
    assert sprt.lower == pytest.approx(-1.55814, abs=1e-5)  # log(0.2 / 0.95)
    assert sprt.upper == pytest.approx(2.77259, abs=1e-5)  # log(0.8 / 0.05)


def test_sequential_test_accepts_h1_on_wins_and_h0_on_losses():
    for unit, expected in ((1.0, "H1"), (0.0, "H0")):
        test = SequentialTest(SPRT(elo0=0, elo1=50, alpha=0.05, beta=0.1), (0.0, 0.5, 1.0))
        decision = None
        for _ in range(200):
            decision = test.add(unit)
            if decision:
                break
        assert decision == expected
        assert (test.llr > 0) == (expected == "H1")


# --------------------------------------------------------------------------------------
# Pentanomial counts: only complete deal pairs


def _rec(game_id: int, group: int, first: int, winner_side: int | None) -> dict:
    """A two-player record: bot ``first`` sits in seat 0; ``winner_side`` None is a draw."""
    ranks = [1, 1] if winner_side is None else [2 if s == winner_side else 0 for s in (0, 1)]
    return {
        "id": game_id,
        "group": group,
        "sides": [[0], [1]],
        "seat_bots": [first, 1 - first],
        "ranks": ranks,
    }


CONFIG = {"bots": ["a", "b"], "duplicate": True, "format": "head-to-head"}


def test_pentanomial_counts_ignore_unfinished_pairs():
    records = [
        _rec(0, 0, 0, 0),  # pair 0: a wins both -> WW
        _rec(1, 0, 1, 1),
        _rec(2, 1, 0, None),  # pair 1: a draw, then a win -> WD
        _rec(3, 1, 1, 1),
        _rec(4, 2, 0, 1),  # pair 2: a loses both -> LL
        _rec(5, 2, 1, 0),
        _rec(6, 3, 0, 0),  # pair 3 unfinished: one game only
    ]
    summary = summarize(CONFIG, records)
    (pair,) = summary["pairs"]
    assert pair["pentanomial"] == {"LL": 1, "LD": 0, "DD/WL": 0, "WD": 1, "WW": 1}
    assert pair["games"] == 7
    assert (pair["wins"], pair["draws"], pair["losses"]) == (4, 1, 2)
    bot_a = summary["bots"][0]
    assert (bot_a["wins"], bot_a["draws"], bot_a["losses"]) == (4, 1, 2)


def test_pentanomial_counts_buckets():
    assert pentanomial_counts([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    with pytest.raises(ValueError):
        pentanomial_counts([0.75])


def test_live_sprt_waits_for_complete_pairs():
    sprt = {"elo0": 0.0, "elo1": 200.0, "alpha": 0.05, "beta": 0.05}
    config = {**CONFIG, "sprt": sprt}
    # a wins every game; the last pair is unfinished and must not be fed to the SPRT
    records = [_rec(i, i // 2, i % 2, i % 2) for i in range(7)]
    summary = summarize(config, records)
    assert summary["sprt"]["units"] <= 3
    full = summarize(config, records[:6])
    assert summary["sprt"]["llr"] == pytest.approx(full["sprt"]["llr"])


# --------------------------------------------------------------------------------------
# Kozel redeal (RULES.md §4.2): >= 5 doubles or >= 6 tiles of one number


def _shape(tiles) -> tuple[int, int]:
    doubles = sum(t.high == t.low for t in tiles)
    most = max(sum(n in (t.high, t.low) for t in tiles) for n in range(7))
    return doubles, most


def test_kozel_redeal_exactly_five_doubles_or_six_of_a_number():
    seen: set[str] = set()
    for seed in range(1500):
        opts = {"seed": seed, "hand_size": "seven"}
        plain = bones.Round.deal("kozel", 4, **opts)
        again = bones.Round.deal("kozel", 4, redeal_bad_hand=True, **opts)
        hands = [list(plain.hand(s)) for s in range(4)]
        shapes = [_shape(h) for h in hands]
        doubles = max(d for d, _ in shapes)
        most = max(m for _, m in shapes)
        bad = doubles >= 5 or most >= 6
        redealt = [list(again.hand(s)) for s in range(4)] != hands
        assert redealt == bad, (seed, shapes)
        assert all(d < 5 and m < 6 for d, m in (_shape(again.hand(s)) for s in range(4)))
        if doubles == 5 and most < 6:
            seen.add("five doubles")
        if doubles == 4 and most < 6:
            seen.add("four doubles")
        if most == 6 and doubles < 5:
            seen.add("six of a number")
        if most == 5 and doubles < 5:
            seen.add("five of a number")
    assert seen == {"five doubles", "four doubles", "six of a number", "five of a number"}


# --------------------------------------------------------------------------------------
# KZ-8 from a full deal.  RULES.md's hands (P0 {2-0, 3-3} = 8, P1 {6-5, 3-0} = 14) cannot
# arise with every tile in play: a line's tiles hold every number an even number of times
# when its ends are equal (4/4), so the tiles left in the hands must too, and {2-0, 3-3,
# 6-5, 3-0} holds 2, 3, 5 and 6 an odd number of times.  The only two-tile P1 hand worth
# 14 that fits beside P0 {2-0, 3-3} at ends 4/4 is {6-2, 6-0}.  Deal found by a search
# (P1 lays 1-1 and 6-6 at once on the way); nobody draws after the bazaar is empty.
KZ_8_HANDS = ["2-0 3-3 5-5 0-0 6-5 5-2 6-1", "6-0 6-2 4-1 3-0 4-2 2-1 4-0"]
KZ_8_STOCK = "3-2 6-6 5-0 5-4 2-2 5-1 3-1 1-1 5-3 6-4 4-3 4-4 6-3 1-0"
KZ_8_MOVES = (
    "5-5 5-0@W 0-0@W 3-0@W 6-5@E 3-2@W 6-1@E 2-1@W 5-1@W 4-1@E 5-4@E 5-3@W 5-2@E 3-1@W "
    "2-2@E 4-2@E 6-4@E 1-1@W+6-6@E 6-3@E 1-0@W 4-3@E 4-0@W 4-4@W"
)


def kz_8_round() -> bones.Round:
    hands = [h.split() for h in KZ_8_HANDS]
    stock = KZ_8_STOCK.split()
    assert sorted(map(canon, hands[0] + hands[1] + stock)) == sorted(ALL_TILES)
    return bones.Round.from_deal("kozel", hands, stock=stock, leader=None, moves=KZ_8_MOVES.split())


def test_kz_8_fish_from_a_full_deal():
    r = kz_8_round()
    assert r.leader == 0  # round 1: P0 holds 5-5, the highest double dealt
    assert r.stock_size == 0
    assert sorted(layout_tiles(r.layout)) == sorted(
        t for t in ALL_TILES if t not in {"2-0", "3-3", "6-2", "6-0"}
    )
    assert dict(r.ends) == {"W": 4, "E": 4}
    assert hand(r, 0) == {"2-0", "3-3"} and hand(r, 1) == {"6-2", "6-0"}
    assert r.is_over
    assert r.result.reason == "blocked"
    assert r.result.values == (8, 14)
    assert r.result.winners == (0,)
    assert r.result.points == (0, 14)
    assert [e for e in r.events if e.kind == "play"][-1].seat == r.result.last_seat


def test_kz_8_game_records_and_next_leader():
    r = kz_8_round()
    game = bones.Game.from_round("kozel", r)
    nxt = game.next_round()
    assert nxt is not None and not game.is_over
    assert game.scores == (0, 14)  # 14 >= 13 opens P1's account
    assert game.state.opened == (False, True)
    assert nxt.leader == r.result.last_seat  # the fish-maker leads round 2, any tile
    assert nxt.lead_tile is None


# --------------------------------------------------------------------------------------
# Details found by mutation testing (mutation/mutants.py)


def test_a_count_of_zero_cannot_be_claimed():
    r = full_deal(S, AF_HANDS, leader=0, muggins_claim=True)
    assert "0-0" in legal(r) and "0-0!" not in legal(r)  # a lead of 0-0 counts 0
    assert "4-0!" not in legal(r) and "5-5!" in legal(r)  # 4 is no multiple of 5


# Two players with 13 tiles each leave a boneyard of 2: P1 holds no 6.
RESERVE_HANDS = [
    "6-6 6-5 6-4 6-3 6-2 6-1 6-0 0-0 1-0 1-1 2-0 2-1 2-2",
    "3-0 3-1 3-2 3-3 4-0 4-1 4-2 4-3 4-4 5-0 5-1 5-2 5-3",
]


@pytest.mark.parametrize("reserve", [0, 1, 2])
def test_boneyard_reserve_is_never_drawn(reserve):
    r = full_deal(S, RESERVE_HANDS, leader=0, hand_size=13, boneyard_reserve=reserve)
    assert r.stock_size == 2
    r.play("6-6")
    if reserve == 2:  # nothing may be drawn: P1 passes
        assert r.stock_size == 2
        assert [e.kind for e in r.events[1:]] == ["pass"]
        assert r.to_move == 0
    else:  # P1 draws both tiles (5-4 and 5-5), neither playable, then passes
        assert r.stock_size == reserve
        assert sum(e.count for e in r.events if e.kind == "draw") == 2 - reserve


@pytest.mark.parametrize("reserve", [1, 2])
def test_voluntary_draw_respects_the_reserve(reserve):
    r = full_deal(
        S,
        RESERVE_HANDS,
        leader=0,
        hand_size=13,
        boneyard_reserve=reserve,
        may_draw_with_playable=True,
    )
    r.play("6-0")  # P1 holds 0-tiles: may play, or draw while the boneyard allows
    assert r.to_move == 1 and "3-0@E" in legal(r)
    assert ("draw" in legal(r)) == (reserve == 1)


def test_voluntary_passes_by_every_player_block_the_round():
    hands = ["6-6 0-0 1-0 1-1 2-0 2-1 2-2", "3-0 3-1 3-2 3-3 4-0 4-1 4-2"]
    r = full_deal("multiplayer", hands, leader=0, voluntary_pass=True)
    r.play("6-6")  # nobody holds a 6
    assert legal(r) == {"draw", "pass"}
    r.play("pass")
    assert not r.is_over and r.to_move == 0
    r.play("pass")
    assert r.is_over and r.result.reason == "blocked"
    assert r.stock_size == 14


def test_one_one_first_puts_six_six_before_zero_zero():
    # no double 1-1 ... 5-5 in the hands: 6-6 comes before 0-0 in 1-1, ..., 6-6, 0-0
    hands = ["0-0 6-5 2-1 3-1 4-1 5-1 6-1", "6-6 1-0 2-0 3-0 4-0 5-0 6-0"]
    assert lead_of("kozel", hands, opening_order="one_one_first") == (1, {"6-6"})
    assert lead_of("kozel", hands, opening_order="lowest_double_first") == (0, {"0-0"})


# A 4-player domino found by a search: P1 goes out; the partner P3 keeps 4-4 and 5-5 (18)
# while the opponents keep 0-0 and 2-2 (4).
PARTNER_HANDS = [
    "0-0 2-0 3-0 5-0 1-1 5-1 6-3",
    "4-0 6-0 4-1 6-1 3-2 5-2 6-4",
    "3-1 2-2 4-2 6-2 4-3 5-3 6-5",
    "1-0 2-1 3-3 4-4 5-4 5-5 6-6",
]
PARTNER_MOVES = (
    "2-0 3-2@W 5-3@W 1-0@E 5-0@W 6-0@W 6-2@W 2-1@W 1-1@W 6-1@W 3-1@N 6-6@W 6-3@W 4-1@S "
    "4-3@S 3-3@S 3-0@N 4-0@N 4-2@N 5-1@E 5-2@N 6-5@E 5-4@N 6-4@N"
)


@pytest.mark.parametrize("option, bonus", [("ignore", 5), ("subtract", 0)])
def test_partner_pips_on_domino(option, bonus):
    r = bones.Round.from_deal(
        S,
        [h.split() for h in PARTNER_HANDS],
        leader=0,
        moves=PARTNER_MOVES.split(),
        partner_pips_on_domino=option,
    )
    assert r.result.reason == "out" and r.result.last_seat == 1
    assert r.result.values == (4, 18)
    assert r.result.points == (0, bonus)  # subtract: 4 - 18 < 0 gives nothing


# --------------------------------------------------------------------------------------
# The game layer's pure functions (src/gamerules/)


def next_leader(base, options, result, **kw):
    """The next leader by the game rules of rule family ``base`` under ``options``."""
    return FAMILY_RULES[base](options).next_leader(result, **kw)


def test_next_leader_rotate_and_lightest_winner():
    blocked = bones.RoundResult("blocked", (1,), (0, 20, 0), (9, 3, 12), 2)
    sides3 = ((0,), (1,), (2,))
    kw = {"sides": sides3, "seat_values": (9, 3, 12), "lot": 0}
    rotate = {"next_leader": "rotate"}
    assert next_leader("straight", rotate, blocked, prev_leader=0, **kw) == (1, {})
    assert next_leader("straight", rotate, blocked, prev_leader=2, **kw) == (0, {})
    # Kozel fish_winner, partnerships: the lightest player of the winning side leads
    fish = bones.RoundResult("blocked", (1,), (11, 0), (11, 8), 0)
    kw4 = {"sides": ((0, 2), (1, 3)), "seat_values": (4, 6, 7, 2), "prev_leader": 0, "lot": 0}
    assert next_leader("kozel", {"next_leader": "fish_winner"}, fish, **kw4) == (3, {})
    assert next_leader("kozel", {"next_leader": "out_player"}, fish, **kw4) == (0, {})


def test_kozel_entry_threshold_and_pot():
    rules = KozelRules()
    assert kozel_entry(0, False, 0, 13, rules) == (13, True, 0, 13)
    assert kozel_entry(0, False, 0, 12, rules) == (0, False, 0, 0)
    acc = KozelAccounts.empty(2)
    acc, written = kozel_record(acc, (), (8, 8), rules)  # eggs: pot 16
    acc, written = kozel_record(acc, (), (3, 3), rules)  # eggs again: pot 22
    assert acc.pot == 22 and written == (0, 0)
    acc, written = kozel_record(acc, (0,), (0, 5), rules)
    assert written == (0, 27) and acc.pot == 0 and acc.scores == (0, 27)
    assert kozel_game_end((101, 40), rules) == ((1,), (0,))  # exactly 101: the goat
    assert kozel_game_end((100, 40), rules) is None


def test_hand_penalty_is_rounded_and_subtracted():
    # the penalty is each side's own pips rounded to five, taken after the bonus
    for seed in range(40):
        game = bones.Game(S, 2, seed=seed, hand_penalty=True, target=10_000)
        r = game.round
        while not r.is_over:
            r.play(r.legal_moves[0])
        expected = tuple(
            s + p - 5 * ((v + 2) // 5)
            for s, p, v in zip(r.scores, r.result.points, r.result.values, strict=True)
        )
        game.next_round()
        assert game.scores == expected
        if any(v % 5 == 2 for v in r.result.values):  # round5 rounds 2 down
            return
    raise AssertionError("no hand left a remainder of 2 pips")


def test_likelihood_of_superiority():
    # LOS = T_99((score - 1/2) / sqrt(variance / n)), Student's t with n - 1 degrees of
    # freedom: here T_99(2) and T_99(-2) (Phi(2) = 0.97725 for the normal)
    assert estimate(0.6, 0.25, 100).los == pytest.approx(0.97588, abs=1e-5)
    assert estimate(0.4, 0.25, 100).los == pytest.approx(0.02412, abs=1e-5)
    assert estimate(0.5, 0.25, 100).los == 0.5


def test_pentanomial_variance_is_the_sample_variance():
    # half the pairs LL, half WW: unit scores 0 and 1, mean 1/2, variance 1/3 (the n - 1
    # denominator, which with the t quantile gives the interval its 95% over few pairs)
    e = pentanomial_estimate([2, 0, 0, 0, 2])
    assert e.score == 0.5 and e.variance == pytest.approx(1 / 3) and e.n == 4


def test_kozel_seat_value_lone_zero_double_only():
    # the seat values Game.next_round gives next_leader (fish_winner: the lightest leads)
    def value(tiles, lone=25):
        # seat 0 holds ``tiles``; seat 1 a tile that is not among them
        other = "6-6" if "6-6" not in tiles else "5-5"
        rnd = bones.Round.from_deal("kozel", [tiles.split(), [other]], partial=True)
        return KozelGameRules({"lone_zero_double": lone}).seat_value(rnd, 0)

    assert value("0-0") == 25 and value("0-0", 10) == 10
    assert value("3-0") == 3 and value("6-0") == 6  # a lone x-0 is only its pips
    assert value("0-0 2-1") == 3
    assert value("0-0", None) == 0


# A Kozel round (found by a search) whose line shows 0 at both ends once all seven 0-tiles
# are down, with 6 tiles still in the bazaar.
FISH_HANDS = ["1-0 6-0 1-1 4-3 5-3 6-3 6-6", "3-0 5-0 5-1 6-1 2-2 6-2 6-5"]
FISH_STOCK = "4-4 6-4 2-0 2-1 3-2 5-2 4-0 0-0 5-4 4-2 4-1 5-5 3-3 3-1"
FISH_MOVES = (
    "6-6 6-2@W 6-3@E 3-0@E 1-0@E 6-1@E 6-0@E 2-2@W 2-0@W 5-0@W 5-3@W 3-2@W 5-2@W 6-5@W "
    "6-4@W 4-0@W 0-0@W"
)


@pytest.mark.parametrize("early", [True, False])
def test_structural_fish_early(early):
    r = bones.Round.from_deal(
        "kozel",
        [h.split() for h in FISH_HANDS],
        stock=FISH_STOCK.split(),
        leader=None,
        moves=FISH_MOVES.split(),
        structural_fish_early=early,
    )
    assert dict(r.ends) == {"W": 0, "E": 0}
    assert r.is_over and r.result.reason == "blocked"
    # early: the bazaar stays undrawn; else the next player draws all 6 tiles in vain
    assert r.stock_size == (6 if early else 0)
