"""Fives and Threes (docs/rules.md, section `fives-and-threes`): the count rule, doubles at
the ends, the point for going out, blocked hands, partnerships, the exact target of 61,
points_after agreeing with the core, and every compiled bot playing it."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from helpers import deal

import bones
from bones.bot import play_round
from bones.core.round import points_after
from bones.plugins import hookimpl
from bones.plugins.manager import get_plugin_manager

V = "fives-and-threes"

#: Every count a line without a spinner can show (0..22: 6-6 at one end and 5-5 at the
#: other is the most), and its points, written out by hand from the sources' tables
#: (3 -> 1, 5 -> 1, 6 -> 2, 9 -> 3, 10 -> 2, 12 -> 4, 15 -> 8, 18 -> 6, 20 -> 4).
TABLE = {
    0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 1, 6: 2, 7: 0, 8: 0, 9: 3, 10: 2, 11: 0, 12: 4,
    13: 0, 14: 0, 15: 8, 16: 0, 17: 0, 18: 6, 19: 0, 20: 4, 21: 7, 22: 0,
}  # fmt: skip


def f3(count: int) -> int:
    """The rule in words: count/5 for a multiple of five plus count/3 for a multiple of
    three."""
    if count <= 0:
        return 0
    return (count // 5 if count % 5 == 0 else 0) + (count // 3 if count % 3 == 0 else 0)


def test_the_table_is_the_rule() -> None:
    assert all(f3(c) == p for c, p in TABLE.items())
    assert f3(30) == 16 and f3(45) == 24  # beyond a line's counts: 6 + 10, 9 + 15


def test_the_variant() -> None:
    v = bones.variant(V)
    assert v.base == "straight" and v.players == (2, 3, 4)
    assert [v.resolve(n)["hand_size"] for n in (2, 3, 4)] == [7, 5, 5]
    assert v.resolve(4, hand_size="teesdale")["hand_size"] == 6
    assert v.resolve(2, hand_size="teesdale")["hand_size"] == 9
    with pytest.raises(bones.OptionError, match="no value for 3 players"):
        v.resolve(3, hand_size="teesdale")
    opts = v.resolve(4)
    assert opts["target"] == 61 and opts["exact_target"] is True
    assert opts["spinner_rule"] == "none" and opts["boneyard_reserve"] == "all"
    r = bones.Round.deal(V, players=2, seed=1)
    assert r.stock_size == 0 and r.hand_sizes == (7, 7)  # the 14 others are out of play
    assert bones.Round.deal(V, players=4, seed=1).sides == ((0, 2), (1, 3))


def test_score_scale_other_than_one_is_refused(fresh_registry) -> None:
    options = dict(bones.variant("straight").options)
    options["count_rule"] = bones.variant(V).options["count_rule"]
    scaled = bones.Variant("f3-scaled", "straight", "a test", (2,), options)

    class Plugin:
        @hookimpl
        def register_variants(self, register):
            register(scaled)

    get_plugin_manager().register(Plugin(), name="f3-scaled-plugin")
    fresh_registry.reset(plugins=False)
    assert bones.Round.deal("f3-scaled", players=2, seed=0).stock_size == 14
    with pytest.raises(bones.OptionError, match="score_scale must be 1"):
        bones.Round.deal("f3-scaled", players=2, seed=0, score_scale=5)


# -- hand-made positions through the real Round ------------------------------------------


@pytest.mark.parametrize(
    ("lead", "count", "points"),
    [("5-0", 5, 1), ("2-1", 3, 1), ("3-3", 6, 2), ("6-3", 9, 3), ("5-5", 10, 2),
     ("6-6", 12, 4), ("6-1", 7, 0), ("0-0", 0, 0)],
)  # fmt: skip
def test_the_lead_scores(lead: str, count: int, points: int) -> None:
    r = deal(V, [f"{lead} 4-4", "1-1"], partial=True)
    r.play(lead)
    event = r.events[0]
    assert (event.count, event.points) == (count, points)
    assert r.scores[0] == points


def test_a_double_at_an_end_counts_both_halves() -> None:
    # 6-6 leads (12: 4); 6-3 at E leaves the double alone at W: 12 + 3 = 15, 3 fives and
    # 5 threes, 8 points; 6-2 covers the double: 2 + 3 = 5, 1 point.
    r = deal(V, ["6-6 6-2 4-4", "6-3 1-1"], partial=True)
    r.play("6-6")
    assert (r.count, r.scores) == (12, (4, 0))
    r.play("6-3@E")
    assert (r.count, r.scores) == (15, (4, 8))
    # after a lone lead double the first tile is recorded at W, so the double's free
    # side is E
    assert r.layout[-1].end == "W" and bones.Move.parse("6-2@E") in r.legal_moves
    r.play("6-2@E")
    assert (r.count, r.scores) == (5, (5, 8))
    # the double five and the blank: 10 + 0 scores 2
    r = deal(V, ["5-5 4-4", "5-0 1-1"], partial=True)
    r.play("5-5")
    r.play("5-0@E")
    assert (r.count, r.scores) == (10, (2, 2))


def test_doubles_at_both_ends() -> None:
    # 6-5 leads (11: 0); 6-6 at W: 12 + 5 = 17 (0); 5-5 at E: 12 + 10 = 22 (0, the largest
    # count a line can show); a line's 18 with a double: 6-6 at W and 6 at E.
    r = deal(V, ["6-5 5-5 1-0", "6-6 4-4"], partial=True)
    r.play("6-5")
    r.play("6-6@W")
    assert (r.count, r.scores) == (17, (0, 0))
    r.play("5-5@E")
    assert r.count == 22 and r.scores == (0, 0)
    r = deal(V, ["6-4 3-3", "6-6 2-2"], partial=True)
    r.play("6-4")  # 10: 2
    r.play("6-6@W")  # 12 + 4 = 16: 0
    assert r.scores == (2, 0)


def test_going_out_scores_one_point_with_the_last_tile() -> None:
    # 5-5 leads (2); seat 1 knocks (6-6 fits nothing); 5-0 at E: the double 10 + 0 = 10
    # scores 2, and the last tile 1 more: one scoring event of 3.
    r = deal(V, ["5-5 5-0", "6-6"], partial=True)
    r.play("5-5")
    assert r.to_move == 0 and r.events[-1].kind == "pass"
    r.play("5-0@E")
    assert r.is_over and r.result.reason == "out"
    assert (r.events[-1].kind, r.events[-1].points) == ("play", 3)
    assert r.scores == (5, 0)
    assert r.result.winners == (0,) and r.result.points == (0, 0)  # scored already


def test_going_out_on_a_count_of_nothing_still_scores_the_point() -> None:
    r = deal(V, ["6-1", "2-2"], partial=True)
    r.play("6-1")  # 7: nothing, but the hand is empty
    assert r.is_over and r.scores == (1, 0)


def test_a_blocked_hand_scores_nothing() -> None:
    r = deal(V, ["6-6 1-1", "2-2 3-3"], partial=True)
    r.play("6-6")  # 12: 4; nobody can follow a 6
    assert r.is_over and r.result.reason == "blocked"
    assert r.scores == (4, 0)
    assert r.result.winners == () and r.result.points == (0, 0)


def test_partners_both_go_out() -> None:
    # seat 0 leads its only tile 5-0 (5: 1), but seat 2 still holds a tile: play goes on
    # and seat 0 knocks from then on.  Seat 2's 1-0 at E makes 5 + 1 = 6 (2) and takes
    # the side out (1): the side has 1 + 3 = 4.
    r = deal(V, ["5-0", "6-6", "1-0", "4-4"], partial=True)
    r.play("5-0")
    assert not r.is_over and r.scores == (1, 0) and r.hand_sizes == (0, 1, 1, 1)
    assert r.to_move == 2  # seat 1 knocked
    assert r.observation(2).points_after("1-0@E") == 3
    r.play("1-0@E")
    assert r.is_over and r.result.reason == "out" and r.result.winners == (0,)
    assert r.scores == (4, 0)


def test_partnership_out_first_partner() -> None:
    r = deal(V, ["5-0", "6-6", "1-0", "4-4"], partial=True, partnership_out="first_partner")
    r.play("5-0")  # 1 for the count, 1 for going out
    assert r.is_over and r.result.reason == "out" and r.scores == (2, 0)


def test_a_hand_with_one_partner_out_can_block() -> None:
    r = deal(V, ["5-0", "6-6", "1-1", "4-4"], partial=True)
    r.play("5-0")  # 1; nobody holds a 5 or a 0
    assert r.is_over and r.result.reason == "blocked"
    assert r.scores == (1, 0) and r.result.winners == ()


def test_each_for_himself_with_four() -> None:
    r = deal(V, ["5-0", "6-6", "1-0", "4-4"], partial=True, teams_with_4=False)
    r.play("5-0")
    assert r.is_over and r.scores == (2, 0, 0, 0)


def test_exact_target_voids_the_count_and_the_point_together() -> None:
    # at 58, 5-0 to go out with a count of 10 (the 5-5 at W): 2 + 1 = 3 makes 61 exactly
    hands = ["5-5 5-0", "6-6"]
    r = deal(V, hands, partial=True, scores=[56, 0])
    r.play("5-5")  # 10: 2 -> 58
    r.play("5-0@E")  # 2 + 1 -> 61
    assert r.scores == (61, 0) and r.result.reason == "target"
    # at 59 the same 3 would make 62: all of it is void
    r = deal(V, hands, partial=True, scores=[57, 0])
    r.play("5-5")  # -> 59
    assert r.observation(0).points_after("5-0@E") == 0
    r.play("5-0@E")
    assert r.scores == (59, 0) and r.result.reason == "out"
    r = deal(V, hands, partial=True, scores=[57, 0], exact_target=False)
    r.play("5-5")
    r.play("5-0@E")
    assert r.scores == (62, 0) and r.result.reason == "target"


# -- agreement: points_after, the core, the events -----------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_points_after_agrees_with_the_core(players: int) -> None:
    rng = random.Random(players)
    seen: set[int] = set()
    outs = 0
    for seed in range(60):
        # scores near 61, so that the exact target voids some events
        start = [rng.randrange(40, 61) for _ in range(2 if players == 4 else players)]
        r = bones.Round.deal(V, players=players, seed=seed, scores=start)
        while not r.is_over:
            seat = r.to_move
            obs = r.observation(seat)
            for move in r.legal_moves:
                c = r.copy()
                before = c.scores[c.side_of(seat)]
                c.play(move)
                assert obs.points_after(move) == c.scores[c.side_of(seat)] - before, move
            move = rng.choice(list(r.legal_moves))
            side = r.sides[r.side_of(seat)]
            sizes = r.hand_sizes
            r.play(move)
            event = next(e for e in reversed(r.events) if e.kind == "play")
            seen.add(event.count)
            out = all(sizes[s] == (1 if s == seat else 0) for s in side)
            outs += out
            expected = TABLE[event.count] + out
            before = r.scores[r.side_of(seat)] - event.points
            assert event.points == (0 if before + expected > 61 else expected)
    assert outs >= 5
    assert {3, 5, 6, 9, 10, 12, 15, 18} <= seen


def test_module_points_after_needs_hand_sizes_for_the_point() -> None:
    layout = ["5-5"]  # 5-0 at E: the double 10 + 0 scores 2
    assert points_after(V, 2, {}, layout, ["5-0@E"]) == [2]
    assert points_after(V, 2, {}, layout, ["5-0@E"], 0, [1, 3], 0) == [3]
    assert points_after(V, 2, {}, layout, ["5-0@E"], 0, [2, 3], 0) == [2]
    assert points_after(V, 4, {}, layout, ["5-0@E"], 0, [1, 3, 1, 3], 0) == [2]
    assert points_after(V, 4, {}, layout, ["5-0@E"], 0, [1, 3, 0, 3], 0) == [3]
    assert points_after(V, 4, {}, layout, ["5-0@E"], 59, [1, 3, 0, 3], 0) == [0]
    assert points_after("straight", 2, {}, layout, ["5-0@E"], 0, [1, 3], 0) == [10]
    with pytest.raises(ValueError, match="together"):
        points_after(V, 2, {}, layout, ["5-0@E"], 0, [1, 3])
    with pytest.raises(ValueError, match="hand_sizes"):
        points_after(V, 2, {}, layout, ["5-0@E"], 0, [1, 3, 3], 0)
    with pytest.raises(ValueError, match="seat"):
        points_after(V, 2, {}, layout, ["5-0@E"], 0, [1, 3], 2)
    with pytest.raises(TypeError, match="hand_sizes"):
        points_after(V, 2, {}, layout, ["5-0@E"], 0, [1, "3"], 0)


# -- games and bots ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_game_is_won_on_61_exactly(players: int) -> None:
    for seed in range(3):
        game = bones.Game(V, players=players, seed=seed)
        bots = [bones.make_bot("greedy", seed=seed + s) for s in range(players)]
        leaders = []
        while not game.is_over:
            leaders.append(game.round.leader)
            play_round(game.round, bots)
            game.next_round()
            assert all(s <= 61 for s in game.scores)
        assert game.winners and all(game.scores[w] == 61 for w in game.winners)
        # the lead passes to the left
        assert all(b == (a + 1) % players for a, b in zip(leaders, leaders[1:], strict=False))


@pytest.mark.parametrize(
    "spec",
    ["expert", "montecarlo:simulations=16", "pimc:samples=8,time_ms=0",
     "ismcts:iterations=40,time_ms=0"],
)  # fmt: skip
@pytest.mark.parametrize("players", [2, 4])
def test_the_compiled_bots_play_it(spec: str, players: int) -> None:
    for seed in range(2):
        rnd = bones.Round.deal(V, players=players, seed=seed)
        bots = [bones.make_bot(spec, seed=seed + s) for s in range(players)]
        result = play_round(rnd, bots)  # rejects an illegal move
        assert rnd.is_over and result == rnd.result


def test_the_cli_plays_a_match(tmp_path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bones", "match", "--seed", "1", "greedy", "random", "--variant", V,
         "--games", "4", "--seed", "1", "--journal", str(tmp_path / "m.jsonl")],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert "greedy" in out and "random" in out


def test_a_python_scorer_with_the_going_out_point_agrees(fresh_registry) -> None:
    """The same rules with the count scored by a Python move_scorer: the Round (which
    calls the scorer itself) and the searches' copies (the core's hook) add the point for
    going out as the built-in variant does."""
    slow = bones.variant(V).with_defaults(
        "f3-py", move_scorer=lambda layout, move, count: f3(count)
    )

    class Plugin:
        @hookimpl
        def register_variants(self, register):
            register(slow)

    get_plugin_manager().register(Plugin(), name="f3-py-plugin")
    fresh_registry.reset(plugins=False)
    for players in (2, 4):
        for seed in range(6):
            fast = bones.Round.deal(V, players=players, seed=seed)
            bots = [bones.make_bot("pimc:samples=4,time_ms=0", seed=s) for s in range(players)]
            play_round(fast, bots)
            moves = [str(e.move) for e in fast.events if e.kind == "play"]
            python = bones.Round.deal("f3-py", players=players, seed=seed)
            builtin = bones.Round.deal(V, players=players, seed=seed)
            for move in moves:
                seat = python.to_move
                assert python.observation(seat).points_after(move) == builtin.observation(
                    seat
                ).points_after(move)
                python.play(move)
                builtin.play(move)
            assert python.scores == fast.scores and python.result == fast.result
        rnd = bones.Round.deal("f3-py", players=players, seed=1)
        bots = [bones.make_bot("pimc:samples=4,time_ms=0", seed=s) for s in range(players)]
        assert play_round(rnd, bots) == rnd.result
