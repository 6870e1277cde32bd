"""Bergen through bones' public API: the headers on hand-made positions, the hand point,
full games with bones.Game, and saved games."""

from __future__ import annotations

import random

import msgpack
import pytest
from bones_bergen import BERGEN, BergenRules, headers, line_ends

import bones


def deal(*hands: str, stock: str = "", **options):
    """A Bergen hand with these hands ("5-3 5-1" each), seat 0 to lead."""
    return bones.Round.from_deal(
        "bergen",
        hands=[h.split() for h in hands],
        stock=stock.split(),
        leader=0,
        partial=True,
        **options,
    )


def points(rnd) -> list[int]:
    """What each play of ``rnd`` scored, in order."""
    return [e.points for e in rnd.events if e.kind == "play"]


def test_the_variant():
    v = bones.variant("bergen")
    assert v.base == "draw" and v.game_rules is BergenRules and v.move_scorer is headers
    assert [v.resolve(n)["hand_size"] for n in (2, 3, 4)] == [6, 6, 5]
    assert v.resolve(4)["stock_reserve"] == 2 and v.resolve(4)["teams_with_4"] is False
    assert v.resolve(2)["target"] == 15
    assert v.with_defaults("bergen-21", target=21).game_rules is BergenRules  # inherited
    assert BERGEN.name == "bergen"


def test_line_ends():
    moves = [bones.Move.parse(m) for m in ("5-3", "3-1@E", "5-1@W", "1-1@W")]
    assert line_ends(moves[:1]) == {"W": (5, False), "E": (3, False)}
    assert line_ends(moves[:3]) == {"W": (1, False), "E": (1, False)}
    assert line_ends(moves) == {"W": (1, True), "E": (1, False)}


def test_double_header_then_triple_header():
    r = deal("5-3 5-1 6-6", "3-1 1-1 0-0")
    for move in ("5-3", "3-1@E", "5-1@W", "1-1@W"):
        r.play(move)
    # 5|3, 5|1: nothing; 1|1 a double header (2); 1-1 across the west 1: a triple header
    assert points(r) == [0, 0, 2, 3]
    assert r.scores == (2, 3)


def test_a_lead_double_is_a_double_header():
    r = deal("6-6 2-1", "6-4 4-0")
    r.play("6-6")
    r.play("6-4@E")  # 6 (the double) against 4: nothing
    assert points(r) == [2, 0]


def test_the_hand_point_goes_to_the_player_who_goes_out():
    r = deal("5-3 5-1", "3-1 0-0")
    for move in ("5-3", "3-1@E", "5-1@W"):  # seat 0 makes 1|1 and goes out
        r.play(move)
    assert r.is_over and r.result.reason == "out"
    game = bones.Game.from_round("bergen", r, seed=1)
    assert game.next_round() is not None
    assert game.scores == (2 + 1, 0)  # the header and the hand point, no pip award
    assert game.round.leader == 0  # the winner leads the next hand


def test_a_blocked_hand_goes_to_the_lightest_hand():
    r = deal("5-3 5-1 6-6", "3-1 1-1 0-0")
    for move in ("5-3", "3-1@E", "5-1@W", "1-1@W"):
        r.play(move)
    # 6-6 and 0-0 fit nowhere and the stock is empty: blocked, 12 against 0
    assert r.is_over and r.result.reason == "blocked" and r.result.winners == (1,)
    game = bones.Game.from_round("bergen", r, seed=1)
    game.next_round()
    assert game.scores == (2, 3 + 1)


def test_a_tie_for_the_lightest_hand_scores_nothing():
    r = deal("5-3 6-6", "3-1 4-2 6-0")  # 12 against 12 once blocked
    r.play("5-3")
    r.play("3-1@E")
    assert r.is_over and r.result.winners == ()
    game = bones.Game.from_round("bergen", r, seed=1)
    game.next_round()
    assert game.scores == (0, 0)


def test_the_game_ends_after_the_hand_that_reaches_15():
    rules = BergenRules(bones.variant("bergen").resolve(2))
    r = deal("5-3 5-1", "3-1 0-0")
    for move in ("5-3", "3-1@E", "5-1@W"):
        r.play(move)
    end = rules.settle(r, r.result, (12, 14), None, index=0)
    assert end.scores == (15, 14) and end.winners == (0,) and end.losers == (1,)
    goes_on = rules.settle(r, r.result, (11, 14), None, index=0)
    assert goes_on.scores == (14, 14) and goes_on.winners is None


def play_out(rnd, rng):
    while not rnd.is_over:
        legal = rnd.legal_moves
        rnd.play(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_full_games(players):
    for seed in range(4):
        rng = random.Random(seed)
        game = bones.new_game("bergen", players, seed=seed)
        while not game.is_over:
            assert game.round_index < 60, "the game does not end"
            before = game.scores
            rnd = game.round
            play_out(rnd, rng)
            expected = list(before)
            for event in rnd.events:
                if event.kind == "play":
                    expected[rnd.side_of(event.seat)] += event.points
            for side in rnd.result.winners:
                expected[side] += 1
            saved = bones.Game.from_msgpack(game.to_msgpack())
            assert saved.to_msgpack() == game.to_msgpack()
            game.next_round()
            assert game.scores == tuple(expected)
        top = max(game.scores)
        assert top >= 15
        if len(game.history) > 1:
            assert max(game.history[-2]) < 15  # nobody had reached 15 before the last hand
        assert game.winners == tuple(i for i, s in enumerate(game.scores) if s == top)
        again = bones.Game.from_msgpack(game.to_msgpack())
        assert (again.scores, again.winners, again.losers) == (
            game.scores,
            game.winners,
            game.losers,
        )


def finished_game(seed=3):
    rng = random.Random(seed)
    game = bones.new_game("bergen", 2, seed=seed)
    while not game.is_over:
        play_out(game.round, rng)
        game.next_round()
    return game


def test_a_tampered_save_is_refused():
    game = finished_game()
    doc = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
    doc["winners"], doc["losers"] = doc["losers"], doc["winners"]
    with pytest.raises(ValueError, match="do not follow from the Bergen scores"):
        bones.Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))
    doc = msgpack.unpackb(game.to_msgpack(), raw=False, strict_map_key=False)
    doc["state"] = [1]  # Bergen carries nothing between hands
    with pytest.raises(ValueError, match="'state' must be nil"):
        bones.Game.from_msgpack(msgpack.packb(doc, use_bin_type=True))
