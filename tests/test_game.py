"""The game layer: scores, the target, Kozel's recording rules, the next leader, msgpack.

The worked examples of RULES.md that are about the game (not about one round) are tested
on the pure bookkeeping functions of bones.gamerules; full seeded games then check that every
variant plays to an end, reproducibly, and survives a msgpack round trip.
"""

from __future__ import annotations

import random

import msgpack
import pytest

import bones
from bones.game import Game, new_game, random_seat, round_seed, splitmix64
from bones.gamerules import FAMILY_RULES, target_winners
from bones.gamerules.kozel import (
    KozelAccounts,
    KozelRules,
    kozel_entry,
    kozel_game_end,
    kozel_record,
)
from bones.gamerules.straight import round5, straight_hand_end
from bones.records import RoundResult
from bones.variant import DOUBLE_SIX_BASES

STRAIGHT = bones.variant("straight").resolve(2)
STRAIGHT4 = bones.variant("straight").resolve(4)
MULTI = bones.variant("multiplayer").resolve(2)
KOZEL2 = bones.variant("kozel").resolve(2)
KOZEL3 = bones.variant("kozel").resolve(3)
KOZEL4 = bones.variant("kozel").resolve(4)
DRAW = bones.variant("draw").resolve(2)

TWO = ((0,), (1,))
THREE = ((0,), (1,), (2,))
TEAMS = ((0, 2), (1, 3))


def next_leader(base, options, result, **kw):
    """The next leader by the game rules of rule family ``base`` under ``options``."""
    return FAMILY_RULES[base](options).next_leader(result, **kw)


def leader(base, options, result, sides=TWO, seat_values=None, prev_leader=0, lot=0):
    players = sum(len(s) for s in sides)
    return next_leader(
        base,
        options,
        result,
        sides=sides,
        seat_values=seat_values or [0] * players,
        prev_leader=prev_leader,
        lot=lot,
    )


def kz(**options):
    return KozelRules.from_options({**KOZEL2, **options})


def record_rounds(rounds, sides=2, rules=None, accounts=None):
    """Record ``rounds`` = [(winners, values), ...]; returns accounts and the entries."""
    rules = rules or kz()
    acc = accounts or KozelAccounts.empty(sides)
    written = []
    for winners, values in rounds:
        acc, w = kozel_record(acc, winners, values, rules)
        written.append(w)
    return acc, written


# ---------------------------------------------------------------------------------------
# Seeds


def test_splitmix64_reference_values():
    # splitmix64 of 0 and 1 as every implementation computes them
    assert splitmix64(0) == 0xE220A8397B1DCDAF
    assert splitmix64(1) == 0x910A2DEC89025CC1


def test_round_seeds_are_fixed_distinct_and_fit_63_bits():
    seeds = [round_seed(7, i) for i in range(200)]
    assert len(set(seeds)) == 200
    assert all(0 <= s < 1 << 63 for s in seeds)
    assert round_seed(7, 3) == round_seed(7, 3) != round_seed(8, 3)
    assert round_seed(-1, 0) == round_seed((1 << 64) - 1, 0)


def test_random_seat_is_seeded_and_covers_every_seat():
    for players in (2, 3, 4):
        seats = [random_seat(11, i, players) for i in range(400)]
        assert set(seats) == set(range(players))
        assert seats == [random_seat(11, i, players) for i in range(400)]


# ---------------------------------------------------------------------------------------
# Straight (All Fives)


def test_round5():
    table = {0: 0, 1: 0, 2: 0, 3: 5, 4: 5, 7: 5, 8: 10, 12: 10, 13: 15, 22: 20, 38: 40}
    assert {n: round5(n) for n in table} == table


def test_af10_domino_bonus_and_dominoer_leads_next():
    # P0's last tile counted 20 (already in round.scores); P1 holds 12 -> bonus 10.
    result = RoundResult("out", (0,), (10, 0), (0, 12), 0)
    assert straight_hand_end((20, 0), result.points, target=250) == (30, 0)
    assert leader("straight", STRAIGHT, result, lot=1) == (0, {})
    # the dominoer leads whoever led before
    assert leader("straight", STRAIGHT, result._replace(last_seat=1, winners=(1,)), lot=0) == (
        1,
        {},
    )


def test_af12_next_leader_random_after_a_block():
    result = RoundResult("blocked", (0,), (15, 0), (8, 13), 1)
    # the seat the game drew by lot, whoever won or placed last
    for lot in (0, 1):
        assert leader("straight", STRAIGHT, result, lot=lot) == (lot, {})
    # the lot is the game's seeded draw for that round
    picks = {random_seat(5, index, 2) for index in range(1, 30)}
    assert picks == {0, 1}
    # option last_bone: the highest double leads after a block; rotate: the next seat
    assert leader("straight", {**STRAIGHT, "next_leader": "last_bone"}, result) == (
        None,
        {"first_leader": "highest_double"},
    )
    out = RoundResult("out", (1,), (5, 0), (3, 0), 1)
    assert leader("straight", {**STRAIGHT, "next_leader": "last_bone"}, out) == (1, {})
    rot = {**STRAIGHT4, "next_leader": "rotate"}
    assert leader("straight", rot, out, sides=TEAMS, prev_leader=3) == (0, {})


def af12_round(**options):
    # lead 6-6, then nobody holds a 6 and the boneyard is empty: blocked; P0 8, P1 13
    hands = [["6-6", "5-3"], ["1-0", "4-4", "2-2"]]
    rnd = bones.Round.from_deal("straight", hands=hands, leader=0, partial=True, **options)
    rnd.play("6-6")
    assert rnd.is_over and rnd.result.reason == "blocked"
    return rnd


def test_af12_in_a_game():
    leaders = set()
    for seed in range(12):
        game = Game.from_round("straight", af12_round(), seed=seed)
        nxt = game.next_round()
        assert game.scores == (15, 0)
        assert nxt.leader == random_seat(seed, 1, 2) and nxt.lead_tile is None
        leaders.add(nxt.leader)
    assert leaders == {0, 1}
    game = Game.from_round(
        "straight", af12_round(blocked_award="difference"), **{"blocked_award": "difference"}
    )
    game.next_round()
    assert game.scores == (5, 0)


def test_af16_target_reached_ends_the_game_without_bonus():
    assert target_winners((255, 30), 250) == (0,)
    assert target_winners((245, 30), 250) == ()
    # three-player split crossing together: higher wins, equal is a draw
    assert target_winners((260, 255, 0), 250) == (0,)
    assert target_winners((255, 255, 0), 250) == (0, 1)


def test_af16_game_ends_at_once_with_the_round():
    # Team A (P0+P2) has 245; P2's last tile 4-1 makes the count 6 + 4 = 10 -> 255: the
    # game ends at once and no domino bonus is paid.
    hands = [["6-2", "0-0"], ["2-1", "5-5"], ["4-1"], ["3-3", "5-0"]]
    rnd = bones.Round.from_deal("straight", hands=hands, leader=0, scores=[245, 200], partial=True)
    for move in ("6-2", "2-1@E", "4-1@E"):
        rnd.play(move)
    assert rnd.is_over and rnd.result.reason == "target"
    game = Game.from_round("straight", rnd, scores=(245, 200))
    assert game.next_round() is None
    assert game.is_over and game.winners == (0,) and game.losers == (1,)
    assert game.scores == (255, 200)  # the count only: no bonus for P1+P3's 13 pips


def test_af10_in_a_game():
    # P0 leads 4-4 (8), P1 6-4 (8 + 6 = 14), P0 goes out with 6-6: 8 + 12 = 20 -> +20;
    # P1 holds 6-5 1-0 = 12 -> bonus 10; P0 leads the next hand.
    hands = [["4-4", "6-6"], ["6-4", "6-5", "1-0"]]
    rnd = bones.Round.from_deal("straight", hands=hands, stock=["3-3"], leader=0, partial=True)
    rnd.play("4-4")
    rnd.play(next(m for m in rnd.legal_moves if str(m.tile) == "6-4"))
    rnd.play(rnd.legal_moves[0])
    assert rnd.result.points == (10, 0) and rnd.scores == (20, 0)
    game = Game.from_round("straight", rnd, seed=3)
    nxt = game.next_round()
    assert game.scores == (30, 0) and not game.is_over
    assert nxt is game.round and nxt.leader == 0 and nxt.lead_tile is None
    assert nxt.scores == (30, 0) and game.round_index == 1


def test_straight_hand_end_options():
    # exact target: an overshooting bonus is void, a bonus that hits the target counts
    assert straight_hand_end((240, 0), (15, 0), target=250, exact_target=True) == (240, 0)
    assert straight_hand_end((240, 0), (10, 0), target=250, exact_target=True) == (250, 0)
    assert target_winners((250, 0), 250, exact=True) == (0,)
    assert target_winners((255, 0), 250, exact=True) == ()
    # hand penalty: after the bonus; not when the bonus already ended the game
    assert straight_hand_end((100, 50), (15, 0), target=250, penalty=(5, 15)) == (110, 35)
    assert straight_hand_end((240, 50), (15, 0), target=250, penalty=(5, 15)) == (255, 50)
    assert straight_hand_end((240, 50), (15, 0), target=250, immediate=False, penalty=(10, 15)) == (
        245,
        35,
    )


# ---------------------------------------------------------------------------------------
# Multiplayer


def test_mp6_domino_winner_leads_next():
    result = RoundResult("out", (0,), (13, 0), (0, 13), 0)
    assert leader("multiplayer", MULTI, result) == (0, {})
    assert leader("multiplayer", {**MULTI, "next_leader": "opening_rule"}, result) == (None, {})


def test_mp8_blocked_tie_next_leader():
    # P0 wins the tie-break with +0 and leads; with blocked_tie=no_winner: round-1 rule
    won = RoundResult("blocked", (0,), (0, 0), (10, 10), 1)
    assert leader("multiplayer", MULTI, won, seat_values=[10, 10]) == (0, {})
    nobody = RoundResult("blocked", (), (0, 0), (10, 10), 1)
    assert leader("multiplayer", MULTI, nobody, seat_values=[10, 10]) == (None, {})


def test_mp10_game_end():
    scores = (95 + 7, 40)
    assert target_winners(scores, MULTI["target"]) == (0,)
    assert target_winners((99, 40), MULTI["target"]) == ()


def test_mp10_in_a_game():
    # MP-7's block (P0 {4-6} 10, P1 {6-5 3-3} 17, two tiles left in the stock) from 95
    hands = [["2-1", "6-4"], ["6-5", "3-3"]]
    rnd = bones.Round.from_deal(
        "multiplayer", hands=hands, stock=["0-0", "1-1"], leader=0, partial=True
    )
    rnd.play("2-1")
    assert rnd.result.reason == "blocked" and rnd.result.points == (7, 0)
    game = Game.from_round("multiplayer", rnd, scores=(95, 60))
    assert game.next_round() is None
    assert game.scores == (102, 60) and game.winners == (0,) and game.losers == (1,)


def test_draw_next_leader():
    out = RoundResult("out", (1,), (9, 0), (9, 0), 1)
    assert leader("draw", DRAW, out) == (1, {})
    blocked = RoundResult("blocked", (1,), (4, 0), (8, 4), 0)
    assert leader("draw", DRAW, blocked, seat_values=[8, 4]) == (1, {})
    tie = RoundResult("blocked", (), (0, 0), (6, 6), 0)
    assert leader("draw", DRAW, tie, seat_values=[6, 6]) == (0, {})


# ---------------------------------------------------------------------------------------
# Kozel recording


def test_kz7_thirteen_rule():
    rules = kz()
    score, opened, hanging, entries = 0, False, 0, []
    for value in (10, 9, 14, 3):
        score, opened, hanging, w = kozel_entry(score, opened, hanging, value, rules)
        entries.append(w)
    assert entries == [0, 0, 14, 3] and score == 17 and opened


def test_kz7_carry():
    rules = kz(sub13_mode="carry")
    score, opened, hanging, entries = 0, False, 0, []
    for value in (10, 9, 14, 3):
        score, opened, hanging, w = kozel_entry(score, opened, hanging, value, rules)
        entries.append(w)
    assert entries == [0, 19, 14, 3] and score == 36 and hanging == 0


def test_kz7_through_kozel_record():
    rounds = [((0,), (0, v)) for v in (10, 9, 14, 3)]
    acc, written = record_rounds(rounds)
    assert acc.scores == (0, 17) and [w[1] for w in written] == [0, 0, 14, 3]


def test_threshold_every_entry():
    rules = kz(threshold_scope="every_entry")
    acc, written = record_rounds([((0,), (0, v)) for v in (10, 9, 14, 3, 20)], rules=rules)
    assert [w[1] for w in written] == [0, 0, 14, 0, 20] and acc.scores == (0, 34)
    carry = kz(threshold_scope="every_entry", sub13_mode="carry")
    acc, written = record_rounds([((0,), (0, v)) for v in (10, 9, 14, 3, 5, 6)], rules=carry)
    assert [w[1] for w in written] == [0, 19, 14, 0, 0, 14] and acc.scores == (0, 47)


def test_open_threshold_option():
    rules = kz(open_threshold=25)
    acc, written = record_rounds([((0,), (0, v)) for v in (20, 24, 25, 3)], rules=rules)
    assert [w[1] for w in written] == [0, 0, 25, 3]
    acc, written = record_rounds([((0,), (0, v)) for v in (0, 5)], rules=kz(open_threshold=0))
    assert [w[1] for w in written] == [0, 5] and acc.opened == (False, True)


def test_kz8_fish_two_players():
    # P0 9, P1 14 -> P0 wins; P1 writes 14 (opens); the last placer leads round 2
    result = RoundResult("blocked", (0,), (0, 14), (9, 14), 1)
    acc, written = record_rounds([(result.winners, result.values)])
    assert written == [(0, 14)] and acc.opened == (False, True)
    assert leader("kozel", KOZEL2, result, seat_values=[9, 14]) == (1, {})


def kz8_round(**options):
    # P1 leads 4-4; P0 {1-2 3-3} = 9 and P1 {6-5 3-0} = 14 cannot follow: fish made by P1
    hands = [["2-1", "3-3"], ["4-4", "6-5", "3-0"]]
    rnd = bones.Round.from_deal("kozel", hands=hands, leader=1, partial=True, **options)
    rnd.play("4-4")
    assert rnd.result.reason == "blocked" and rnd.result.last_seat == 1
    return rnd


def test_kz8_kz15_in_a_game():
    game = Game.from_round("kozel", kz8_round())
    nxt = game.next_round()
    assert game.scores == (0, 14) and game.state.opened == (False, True)
    assert nxt.leader == 1 and nxt.lead_tile is None  # the fish-maker, any tile
    game = Game.from_round("kozel", kz8_round(next_leader="fish_winner"), next_leader="fish_winner")
    assert game.next_round().leader == 0  # the fish winner


def test_kz9_eggs():
    acc, written = record_rounds([((), (8, 8))])
    assert written == [(0, 0)] and acc.pot == 16
    acc, written = record_rounds([((0,), (0, 5))], accounts=acc)
    assert written == [(0, 21)] and acc.scores == (0, 21) and acc.pot == 0


def test_kz9_small_pot_is_consumed_below_the_threshold():
    acc, written = record_rounds([((), (2, 2)), ((0,), (0, 5))])
    assert acc.pot == 0 and acc.scores == (0, 0) and written[1] == (0, 0)
    assert acc.opened == (False, False)


def test_kz9_eggs_accumulate_and_go_to_every_loser():
    rules = KozelRules.from_options(KOZEL3)
    acc, _ = record_rounds([((), (3, 3, 3)), ((), (1, 1, 1))], sides=3, rules=rules)
    assert acc.pot == 12
    acc, written = record_rounds([((0,), (0, 2, 20))], sides=3, rules=rules, accounts=acc)
    assert written == [(0, 14, 32)] and acc.pot == 0


def test_eggs_pot_options():
    acc, _ = record_rounds([((), (8, 8))], rules=kz(eggs_pot="one_side"))
    assert acc.pot == 8
    acc, written = record_rounds([((), (8, 8)), ((0,), (0, 15))], rules=kz(eggs_pot="off"))
    assert acc.pot == 0 and written[1] == (0, 15)


def test_kz10_partnership_out():
    # P2 goes out; Team B (P1 6 + P3 9) writes 15; P2 leads next round
    rules = KozelRules.from_options(KOZEL4)
    result = RoundResult("out", (0,), (0, 15), (7, 15), 2)
    acc, written = record_rounds([(result.winners, result.values)], rules=rules)
    assert written == [(0, 15)]
    assert leader("kozel", KOZEL4, result, sides=TEAMS, seat_values=[7, 6, 0, 9]) == (2, {})


def test_kz12_goat():
    acc = KozelAccounts((95, 40), (True, True), (0, 0), 0)
    acc, written = record_rounds([((1,), (10, 0))], accounts=acc)
    assert acc.scores == (105, 40)
    assert kozel_game_end(acc.scores, kz()) == ((1,), (0,))  # Team A are the goats
    assert kozel_game_end((100, 40), kz()) is None


def test_kz13_three_players():
    rules = KozelRules.from_options(KOZEL3)
    acc = KozelAccounts((0, 0, 50), (False, False, True), (0, 0, 0), 0)
    acc, written = record_rounds([((0,), (0, 13, 4))], sides=3, rules=rules, accounts=acc)
    assert acc.scores == (0, 13, 54) and written == [(0, 13, 4)]
    assert acc.opened == (False, True, True)


def test_three_player_goats_and_winner():
    rules = KozelRules.from_options(KOZEL3)
    assert kozel_game_end((20, 104, 110), rules) == ((0,), (2,))
    assert kozel_game_end((20, 105, 105), rules) == ((0,), (1, 2))  # equal highest: both
    assert kozel_game_end((20, 20, 101), rules) == ((0, 1), (2,))


def test_kz15_next_leader_after_a_fish():
    result = RoundResult("blocked", (0,), (0, 14), (6, 14), 1)
    assert leader("kozel", KOZEL2, result, seat_values=[6, 14]) == (1, {})
    fw = {**KOZEL2, "next_leader": "fish_winner"}
    assert leader("kozel", fw, result, seat_values=[6, 14]) == (0, {})
    # fish_winner with teams: the lightest player of the winning team; eggs: fish-maker
    teams = RoundResult("blocked", (1,), (11, 0), (11, 8), 0)
    assert leader("kozel", fw, teams, sides=TEAMS, seat_values=[4, 5, 7, 3]) == (3, {})
    eggs = RoundResult("blocked", (), (0, 0), (8, 8), 1)
    assert leader("kozel", fw, eggs, seat_values=[8, 8]) == (1, {})
    # opening_rule: the round-1 rule every round
    assert leader("kozel", {**KOZEL2, "next_leader": "opening_rule"}, result) == (None, {})


def test_kz15_fish_winner_blocker_recording():
    # with fish_winner=blocker the Round names the blocker's side even when it is heavier;
    # the game records what the Round says: the lighter P0 loses and writes its 6
    result = RoundResult("blocked", (1,), (6, 0), (6, 14), 1)
    acc, written = record_rounds([(result.winners, result.values)])
    assert written == [(0, 0)]  # 6 < 13 on a closed account
    opened = KozelAccounts((20, 0), (True, False), (0, 0), 0)
    acc, written = record_rounds([(result.winners, result.values)], accounts=opened)
    assert written == [(6, 0)] and acc.scores == (26, 0)


def test_kz16_credit_winner():
    rules = kz(scoring_style="credit_winner")
    acc, written = record_rounds([((0,), (0, 14))], rules=rules)
    assert written == [(14, 0)] and acc.scores == (14, 0)
    acc, written = record_rounds([((1,), (12, 0))], rules=rules, accounts=acc)
    assert written == [(0, 0)]  # P1's first credit is below 13
    assert kozel_game_end((101, 60), rules) == ((0,), (1,))  # first to 101 wins
    # eggs go to the next winner
    acc, written = record_rounds([((), (5, 5)), ((1,), (15, 0))], rules=rules)
    assert written[1] == (0, 25)


# ---------------------------------------------------------------------------------------
# Whole games (need the compiled core)


def random_game(variant, players, seed, max_rounds=400, **options):
    """Play a whole game with a seeded uniform policy; returns (game, moves per round)."""
    rng = random.Random(seed)
    game = new_game(variant, players=players, seed=seed, **options)
    rounds = []
    while not game.is_over:
        assert len(rounds) < max_rounds, "the game does not end"
        rnd = game.round
        while not rnd.is_over:
            legal = rnd.legal_moves
            rnd.play(legal[rng.randrange(len(legal))])
        rounds.append([str(m) for m in rnd.moves])
        expected = expected_leader(game, rnd)
        if game.next_round() is not None and expected[0] is not None:
            assert game.round.leader == expected[0] and game.round.lead_tile is None
    return game, rounds


def expected_leader(game, rnd):
    lone = game.rules.get("lone_zero_double") if game.base == "kozel" else None
    values = []
    for seat in range(game.players):
        hand = rnd.hand(seat)
        lone_zero = lone is not None and len(hand) == 1 and str(hand[0]) == "0-0"
        values.append(lone if lone_zero else sum(t.pips for t in hand))
    return next_leader(
        game.base,
        game.rules,
        rnd.result,
        sides=game.sides,
        seat_values=values,
        prev_leader=rnd.leader,
        lot=random_seat(game.seed, game.round_index + 1, game.players),
    )


#: Every double-six variant (the train games' own: tests/test_train_games.py).
CASES = [
    (name, n)
    for name in bones.variants()
    if bones.variant(name).base in DOUBLE_SIX_BASES
    for n in bones.variant(name).players
]


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_same_seed_same_game_and_every_game_ends(variant, players):
    game, moves = random_game(variant, players, seed=3)
    again, moves_again = random_game(variant, players, seed=3)
    assert moves == moves_again
    assert game.scores == again.scores and game.results == again.results
    assert game.is_over and set(game.winners).isdisjoint(game.losers)
    assert game.winners or variant == "block"  # block: equal totals, nobody wins
    assert len(game.results) == len(game.history) == game.round_index + 1
    assert game.history[-1] == game.scores
    if variant == "block":
        assert len(moves) == 1
    else:
        other, other_moves = random_game(variant, players, seed=4)
        assert other_moves != moves


OPTION_CASES = [
    ("straight", 2, {"exact_target": True, "score_scale": 5, "target": 61}),
    ("straight", 3, {"target_check": "end_of_hand", "hand_penalty": True}),
    ("straight", 4, {"first_leader": "highest_double", "next_leader": "last_bone"}),
    ("straight", 2, {"next_leader": "rotate", "hand_size": "pagat"}),
    ("multiplayer", 2, {"next_leader": "opening_rule", "blocked_tie": "no_winner"}),
    ("kozel", 3, {"scoring_style": "credit_winner", "eggs_pot": "one_side"}),
    ("kozel", 2, {"sub13_mode": "carry", "threshold_scope": "every_entry"}),
    ("kozel", 4, {"fish_winner": "blocker", "next_leader": "fish_winner"}),
    ("kozel", 4, {"next_leader": "opening_rule", "teams_with_4": False, "open_threshold": 25}),
    ("draw", 4, {"teams_with_4": False, "blocked_award": "difference"}),
]


@pytest.mark.parametrize(("variant", "players", "options"), OPTION_CASES)
def test_games_with_options_end_and_repeat(variant, players, options):
    game, moves = random_game(variant, players, seed=12, **options)
    again, moves_again = random_game(variant, players, seed=12, **options)
    assert moves == moves_again and game.to_msgpack() == again.to_msgpack()
    assert game.is_over and game.winners and game.losers


@pytest.mark.parametrize("options", [{}, {"hand_penalty": True}, {"exact_target": True}])
def test_straight_scores_are_round_scores_plus_award(options):
    rng = random.Random(6)
    game = new_game("straight", players=3, seed=6, target=150, **options)
    while not game.is_over:
        rnd = game.round
        while not rnd.is_over:
            rnd.play(rnd.legal_moves[rng.randrange(len(rnd.legal_moves))])
        result = rnd.result
        if result.reason == "target":
            expected = tuple(rnd.scores)
        else:
            bonus = list(result.points)
            penalty = None
            if options.get("hand_penalty"):
                penalty = [round5(v) for v in result.values]
            expected = straight_hand_end(
                rnd.scores,
                bonus,
                target=150,
                penalty=penalty,
                **{k: v for k, v in options.items() if k == "exact_target"},
            )
        game.next_round()
        assert game.scores == expected
    assert game.winners == target_winners(game.scores, 150, bool(options.get("exact_target")))


def test_kozel_game_goat_and_accounts():
    for seed in range(3):
        game, _ = random_game("kozel", 3, seed=seed)
        rules = KozelRules.from_options(game.rules)
        assert kozel_game_end(game.scores, rules) == (game.winners, game.losers)
        assert max(game.scores) >= 101 and set(game.losers) == {
            i for i, s in enumerate(game.scores) if s == max(game.scores)
        }
        assert isinstance(game.state, KozelAccounts) and game.state.scores == game.scores


def test_options_reach_the_rounds_and_score_scale():
    game, _ = random_game("straight", 2, seed=2, score_scale=5, target=61)
    assert 61 <= max(game.scores) < 61 + 35  # scores count in fives


def test_msgpack_round_trip_mid_game():
    for variant, players in [("straight", 3), ("kozel", 4), ("multiplayer", 2)]:
        rng = random.Random(9)
        game = new_game(variant, players=players, seed=9)
        for _ in range(2):  # two whole rounds, then half of the third
            while not game.round.is_over:
                legal = game.round.legal_moves
                game.round.play(legal[rng.randrange(len(legal))])
            if game.next_round() is None:
                break
        for _ in range(3):
            if not game.round.is_over:
                legal = game.round.legal_moves
                game.round.play(legal[rng.randrange(len(legal))])
        data = game.to_msgpack()
        copy = Game.from_msgpack(data)
        assert copy.to_msgpack() == data
        assert copy.scores == game.scores and copy.results == game.results
        assert copy.round_index == game.round_index and copy.state == game.state
        assert [str(m) for m in copy.round.moves] == [str(m) for m in game.round.moves]
        # both continue identically
        for g in (game, copy):
            policy = random.Random(1)
            while not g.is_over and g.round_index < 40:
                while not g.round.is_over:
                    legal = g.round.legal_moves
                    g.round.play(legal[policy.randrange(len(legal))])
                g.next_round()
        assert copy.to_msgpack() == game.to_msgpack()


def test_msgpack_of_a_finished_game():
    game, _ = random_game("block", 4, seed=5)
    data = game.to_msgpack()
    copy = Game.from_msgpack(data)
    assert copy.is_over and copy.winners == game.winners and copy.to_msgpack() == data


def test_malformed_bytes():
    game = new_game("kozel", players=2, seed=1)
    data = game.to_msgpack()
    doc = msgpack.unpackb(data, raw=False)
    bad = {
        "truncated": data[: len(data) // 2],
        "empty": b"",
        "garbage": b"\xc1\xff\x00junk",
        "not a map": msgpack.packb([1, 2, 3]),
        "schema": msgpack.packb({**doc, "schema": "bones.round"}),
        "version": msgpack.packb({**doc, "version": 99}),
        "missing": msgpack.packb({k: v for k, v in doc.items() if k != "scores"}),
        "scores": msgpack.packb({**doc, "scores": [1, 2, 3]}),
        "round": msgpack.packb({**doc, "round": b"\x00\x01"}),
        "results": msgpack.packb({**doc, "results": [["out"]]}),
        "kozel": msgpack.packb({**doc, "kozel": None}),
        "variant": msgpack.packb({**doc, "variant": "chess"}),
        "extra": data + b"\x00",
    }
    for name, raw in bad.items():
        with pytest.raises(ValueError, match="Game msgpack|variant"):
            Game.from_msgpack(raw)
        assert name
    with pytest.raises(ValueError, match="bytes"):
        Game.from_msgpack("not bytes")  # type: ignore[arg-type]


def test_new_game_validates_and_next_round_guards():
    with pytest.raises(bones.OptionError, match="unknown variant"):
        new_game("chess")
    with pytest.raises(bones.OptionError, match="next_leader"):
        new_game("straight", next_leader="loser")
    with pytest.raises(bones.OptionError, match="players"):
        new_game("multiplayer", players=3)
    with pytest.raises(TypeError):
        new_game("straight", seed="1")
    game = new_game("draw", players=3, seed=2)
    with pytest.raises(ValueError, match="not over"):
        game.next_round()
    game, _ = random_game("block", 2, seed=2)
    with pytest.raises(ValueError, match="game is over"):
        game.next_round()
    assert bones.new_game is new_game and bones.Game is Game


def test_block_is_one_round_zero_sum():
    game, moves = random_game("block", 2, seed=8)
    assert game.is_over and len(game.results) == 1 and sum(game.scores) == 0
