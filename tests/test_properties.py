"""Property tests over random deals and random move choices, for every variant and every
allowed player count (hypothesis).

Every step of every game is checked against RULES.md: tile conservation, every placement
on an open end with the end's number, "must play" (the legal moves use exactly the
playable tiles), forced draws and passes only when the rules force them (§1.5, §2.5,
§3.5, §4.5, §4b), straight counts and scores in fives (§2.6), the round result by the
variant's scoring rules (§2.8, §3.6, §4.7-§4.8, §4b), undo restoring the exact state,
determinism, and msgpack round trips at random points.
"""

from __future__ import annotations

import random

import pytest
from helpers import CASES, layout_tiles, move_parts, pips, playable, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bones
from bones import Observation, Round

IDS = [f"{v}-{n}" for v, n in CASES]
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


def examples(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
    )


def round5(n: int) -> int:
    return 5 * ((n + 2) // 5)


def reserve_of(variant: str, players: int) -> int:
    """Stock tiles that may never be drawn (RULES.md §2.5, §3.5; block never draws)."""
    opts = bones.variant(variant).resolve(players)
    reserve = opts.get("boneyard_reserve", opts.get("stock_reserve", 0))
    return 28 if reserve == "all" else int(reserve)  # all: the boneyard is out of play


def hand_set(r: Round, seat: int) -> set[str]:
    return {str(t) for t in r.hand(seat)}


F3 = "fives-and-threes"


def fives_and_threes(count: int) -> int:
    """Fives and Threes (docs/rules.md): count/5 for a multiple of 5 plus count/3 for a
    multiple of 3."""
    if count <= 0:
        return 0
    return (count // 5 if count % 5 == 0 else 0) + (count // 3 if count % 3 == 0 else 0)


def kozel_value(hand: set[str]) -> int:
    return 25 if hand == {"0-0"} else sum(pips(t) for t in hand)  # §4.7


class Checker:
    """Plays a round with random choices and checks every step."""

    def __init__(self, variant: str, players: int, seed: int, choice_seed: int) -> None:
        self.variant = variant
        self.players = players
        self.r = Round.deal(variant, players=players, seed=seed)
        self.rng = random.Random(choice_seed)
        self.reserve = reserve_of(variant, players)
        self.total = sum(self.r.hand_sizes) + self.r.stock_size  # 28, 14 for block 2p
        self.check_tiles()

    # ---- invariants of a position
    def check_tiles(self) -> None:
        r = self.r
        hands = [hand_set(r, s) for s in range(self.players)]
        table = layout_tiles(r.layout)
        assert r.hand_sizes == tuple(len(h) for h in hands)
        everything = [t for h in hands for t in h] + table
        assert len(everything) == len(set(everything)), "a tile is in two places"
        assert len(everything) + r.stock_size == self.total
        if self.variant == "straight":
            assert all(s % 5 == 0 for s in r.scores)

    def check_legal_moves(self) -> list[bones.Move]:
        r = self.r
        seat = r.to_move
        moves = list(r.legal_moves)
        assert moves, "the seat to move has a real choice"
        mine = hand_set(r, seat)
        ends = dict(r.ends)
        if not r.layout:
            assert all(m.is_lead for m in moves)
            return moves
        used = set()
        for m in moves:
            parts = move_parts(m)
            assert parts, m
            for tile, end in parts:
                assert tile in mine, m
                assert end in ends, m
                assert ends[end] in (int(tile[0]), int(tile[2])), m
                used.add(tile)
            if m.is_double_double:  # RULES.md §4.4
                assert self.variant == "kozel"
                (t1, e1), (t2, e2) = parts
                assert e1 != e2 and ends[e1] != ends[e2]
                assert t1[0] == t1[2] and t2[0] == t2[2]
        # must play, and every playable tile may be played (§1.5 step 2)
        assert used == set(playable(mine, ends.values())), (used, mine, ends)
        return moves

    # ---- one move and what the engine did after it
    def step(self, move: bones.Move) -> None:
        r = self.r
        seat = r.to_move
        before_hands = [hand_set(r, s) for s in range(self.players)]
        before_score = r.scores[r.side_of(seat)]
        stock = r.stock_size
        n_events = len(r.events)
        n_layout = len(r.layout)
        r.play(move)
        new = r.events[n_events:]
        play, forced = new[0], new[1:]
        assert (play.kind, play.seat, play.move) == ("play", seat, move)
        placed = [t for t, _ in move_parts(move)] or [str(move.tile)]
        assert layout_tiles(r.layout[n_layout:]) == placed
        if self.variant == "straight":  # §2.6: a positive multiple of five scores itself
            assert play.count == r.count
            c = play.count
            assert play.points == (c if c > 0 and c % 5 == 0 else 0)
        if self.variant == F3:  # count/5 + count/3, 1 for taking the side out, exact 61
            assert play.count == r.count
            side = r.sides[r.side_of(seat)]
            out = all(len(before_hands[s]) == (len(placed) if s == seat else 0) for s in side)
            points = fives_and_threes(play.count) + out
            assert play.points == (0 if before_score + points > 61 else points)
        else:
            assert play.points % 5 == 0
        hands_after_play = [set(h) for h in before_hands]
        hands_after_play[seat] -= set(placed)
        if r.is_over and r.result.reason in ("out", "target"):
            assert not forced
        numbers = [n for _, n in r.ends]
        final = [hand_set(r, s) for s in range(self.players)]
        expected = (seat + 1) % self.players
        drawn: dict[int, int] = {}
        for e in forced:
            assert e.seat == expected, (e, forced)
            assert playable(hands_after_play[e.seat], numbers) == [], e
            if e.kind == "draw":
                assert e.count >= 1
                assert stock - e.count >= self.reserve, "drew a reserved tile"
                stock -= e.count
                drawn[e.seat] = drawn.get(e.seat, 0) + e.count
            else:
                assert e.kind == "pass", e
                assert stock <= self.reserve, "passed with a drawable stock"
                assert playable(final[e.seat], numbers) == [], e
                expected = (expected + 1) % self.players
        assert stock == r.stock_size
        for s, k in drawn.items():
            new_tiles = final[s] - hands_after_play[s]
            assert len(new_tiles) == k and final[s] >= hands_after_play[s]
            hits = playable(new_tiles, numbers)
            if not r.is_over and r.to_move == s:
                # drawing stopped at the first playable tile, which must be played
                assert len(hits) == 1, (new_tiles, numbers)
                assert {str(m.tile) for m in r.legal_moves} == set(hits)
            else:
                assert hits == [] and r.stock_size <= self.reserve
        for s in range(self.players):
            if s not in drawn:
                assert final[s] == hands_after_play[s]
        if not r.is_over:
            assert r.to_move == expected
        self.check_tiles()

    # ---- the result
    def check_result(self) -> None:
        r = self.r
        res = r.result
        assert r.is_over and res is not None
        assert len(r.legal_moves) == 0
        hands = [hand_set(r, s) for s in range(self.players)]
        sides = r.sides
        pip_sums = [sum(pips(t) for s in side for t in hands[s]) for side in sides]
        last = [e for e in r.events if e.kind == "play"][-1]
        assert res.last_seat == last.seat
        numbers = {n for _, n in r.ends}
        if res.reason == "out":
            assert not hands[res.last_seat]
            if self.variant == F3:  # both partners out
                assert not any(hands[s] for s in sides[r.side_of(res.last_seat)])
        elif res.reason == "blocked":
            assert r.stock_size <= self.reserve
            assert all(playable(h, numbers) == [] for h in hands)
            if self.variant == F3:  # one partner may be out, never a whole side
                assert all(any(hands[s] for s in side) for side in sides)
            else:
                assert all(hands)
        else:
            assert res.reason == "target" and self.variant in ("straight", F3)
        winner = r.side_of(res.last_seat)
        ns = len(sides)
        if self.variant == "kozel":
            values = [sum(kozel_value(hands[s]) for s in side) for side in sides]
        else:
            values = pip_sums
        assert list(res.values) == values
        points = [0] * ns
        if self.variant == "straight" and res.reason != "target":
            if res.reason == "out":  # §2.8, partner's pips ignored
                winners = (winner,)
                points[winner] = round5(sum(values) - values[winner])
            else:
                low = min(values)
                mins = tuple(i for i in range(ns) if values[i] == low)
                if len(mins) == 1:
                    winners = mins
                    points[mins[0]] = round5(sum(values) - low)
                elif len(mins) == ns:
                    winners = ()
                else:  # three players, two tie for least
                    winners = mins
                    third = next(i for i in range(ns) if i not in mins)
                    for i in mins:
                        points[i] = round5(values[third]) // 2 // 5 * 5
            assert res.winners == winners and list(res.points) == points
        elif self.variant == F3:  # the point for going out was scored with the last tile
            assert res.winners == ((winner,) if res.reason == "out" else ())
            assert list(res.points) == points
        elif self.variant == "multiplayer":  # §3.6
            if res.reason == "out":
                assert res.winners == (winner,)
                points[winner] = values[1 - winner]
            elif values[0] != values[1]:
                w = 0 if values[0] < values[1] else 1
                assert res.winners == (w,)
                points[w] = values[1 - w] - values[w]
            else:
                light = [sorted(pips(t) for t in h) for h in hands]
                expect = () if light[0] == light[1] else ((0,) if light[0] < light[1] else (1,))
                assert res.winners == expect
            assert list(res.points) == points
        elif self.variant == "kozel":  # §4.8
            if res.reason == "out":
                winners = (winner,)
            else:
                low = min(values)
                winners = tuple(i for i in range(ns) if values[i] == low)
                if len(winners) == ns:
                    winners = ()  # eggs
            assert res.winners == winners
            losers = [i for i in range(ns) if winners and i not in winners]
            assert list(res.points) == [values[i] if i in losers else 0 for i in range(ns)]
        elif self.variant == "block":  # §4b, zero-sum
            if values[0] == values[1]:
                assert res.winners == () and list(res.points) == [0, 0]
            else:
                w = 0 if values[0] < values[1] else 1
                assert res.winners == (w,)
                points[w], points[1 - w] = values[1 - w], -values[1 - w]
                assert list(res.points) == points
        elif self.variant == "draw" and res.reason == "out":
            assert res.winners == (winner,)

    def play_out(self, undo: bool = False, serial: float = 0.0) -> list[str]:
        moves = []
        while not self.r.is_over:
            legal = self.check_legal_moves()
            move = self.rng.choice(legal)
            if undo:
                self.check_undo(move)
            if serial and self.rng.random() < serial:
                self.check_serial()
            self.step(move)
            moves.append(str(move))
        self.check_result()
        if serial:
            self.check_serial()
        return moves

    def check_undo(self, move: bones.Move) -> None:
        r = self.r
        before = snapshot(r)
        r.play(move)
        after = snapshot(r)
        assert r.undo() == move
        assert snapshot(r) == before  # bytes, legal moves, to_move, hands, events, ...
        r.play(move)
        assert snapshot(r) == after
        assert r.undo() == move

    def check_serial(self) -> None:
        r = self.r
        data = r.to_msgpack()
        loaded = Round.from_msgpack(data)
        assert loaded == r and loaded.to_msgpack() == data
        assert snapshot(loaded) == snapshot(r)
        seat = self.rng.randrange(self.players)
        obs = r.observation(seat)
        assert Observation.from_msgpack(obs.to_msgpack()) == obs


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@examples(150)
@given(seed=SEEDS, choice_seed=SEEDS)
def test_random_games_follow_the_rules(variant, players, seed, choice_seed):
    Checker(variant, players, seed, choice_seed).play_out()


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@examples(25)
@given(seed=SEEDS, choice_seed=SEEDS)
def test_undo_restores_the_exact_state(variant, players, seed, choice_seed):
    checker = Checker(variant, players, seed, choice_seed)
    start = snapshot(checker.r)
    moves = checker.play_out(undo=True)
    r = checker.r
    for move in reversed(moves):
        assert str(r.undo()) == move
    assert snapshot(r) == start
    with pytest.raises(IndexError):
        r.undo()


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@examples(20)
@given(seed=SEEDS, choice_seed=SEEDS)
def test_same_seed_same_game(variant, players, seed, choice_seed):
    a = Checker(variant, players, seed, choice_seed)
    b = Checker(variant, players, seed, choice_seed)
    assert a.r.to_msgpack() == b.r.to_msgpack()
    assert a.play_out() == b.play_out()
    assert a.r.to_msgpack() == b.r.to_msgpack()
    assert a.r.result == b.r.result and a.r.events == b.r.events
    replayed = Round.deal(variant, players=players, seed=seed)
    for move in a.r.moves:
        replayed.play(move)
    assert replayed.to_msgpack() == a.r.to_msgpack()


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@examples(20)
@given(seed=SEEDS, choice_seed=SEEDS)
def test_msgpack_round_trips_at_random_points(variant, players, seed, choice_seed):
    Checker(variant, players, seed, choice_seed).play_out(serial=0.3)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_deal_is_a_deal(variant, players):
    opts = bones.variant(variant).resolve(players)
    for seed in range(30):
        r = Round.deal(variant, players=players, seed=seed)
        size = opts["hand_size"]
        assert r.hand_sizes == (size,) * players
        # block and Fives and Threes never draw: the undealt tiles are out of play
        expected_stock = 0 if variant in ("block", F3) else 28 - size * players
        assert r.stock_size == expected_stock
        assert not r.layout and not r.events and not r.is_over
        assert Round.deal(variant, players=players, seed=seed).to_msgpack() == r.to_msgpack()


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
@examples(1500)
@given(seed=SEEDS, choice_seed=SEEDS)
def test_many_random_games_follow_the_rules(variant, players, seed, choice_seed):
    Checker(variant, players, seed, choice_seed).play_out()
