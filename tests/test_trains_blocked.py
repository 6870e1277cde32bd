"""The blocked rule of the train games (docs/rules.md, "The end of a round"): a round is
blocked only when the stock is empty and no seat can place.  A pass puts a marker on the
passer's train, which may open it to a seat that passed before: play then goes on."""

from __future__ import annotations

import random

import pytest
from test_trains_differential import random_deal
from test_trainsample_exact import check_samples
from trains_model import TrainsModel

from bones import Round
from bones.core.trains import TrainRound
from bones.core.trainsample import TrainSampler, public_of
from bones.observation import TrainObservation

ROUNDS = 800
SLOW_ROUNDS = 20000


def replaced(obs, **changes):
    """obs with some fields changed (a TrainObservation is made from its fields)."""
    return TrainObservation(**{f: changes.get(f, getattr(obs, f)) for f in obs.FIELDS})


def test_a_marker_put_up_by_a_pass_opens_a_train_to_an_earlier_passer():
    r = Round.from_deal(
        "mexican-train", hands=[["12-3", "1-1"], ["3-2", "0-0"]], stock=[], leader=0,
        partial=True,
    )  # fmt: skip
    r.play("12-3@P0")
    # seat 1 passes (P0 is private), seat 0 passes: its marker makes P0 public, and seat 1
    # holds 3-2 for it
    assert r.log[1:] == (("pass", 1, None, None), ("pass", 0, None, None))
    assert not r.is_over and r.to_move == 1
    assert [str(m) for m in r.legal_moves] == ["3-2@P0"]
    r.play("3-2@P0")
    # seat 0 holds 1-1 (P0 shows 2, P1 and M 12); seat 1 holds 0-0: nobody can place
    assert r.log[4:] == (("pass", 0, None, None), ("pass", 1, None, None))
    assert r.result.reason == "blocked" and r.result.penalties == (2, 0)


def test_play_goes_on_for_a_seat_reached_after_a_full_run_of_passes():
    # three seats: 12-5@P0; seat 1 and seat 2 pass; seat 0 passes (P0 public, showing 5):
    # seat 1 holds 5-4, so play goes on; seat 1 is the next to move after seat 0
    r = TrainRound.from_deal(
        "trains", set_max=12, hands=[["12-5", "1-1"], ["5-4", "0-0"], ["2-2", "3-0"]],
        stock=[], leader=0, partial=True,
    )  # fmt: skip
    r.play("12-5@P0")
    assert [e[0] for e in r.log[1:]] == ["pass", "pass", "pass"]
    assert r.to_move == 1 and [str(m) for m in r.legal_moves] == ["5-4@P0"]


def no_seat_can_place(m: TrainsModel) -> bool:
    """The independent model's own placement rules: no seat holds a tile for a target open
    to it (its markers, pending double and first-turn restriction applied)."""
    return not any(m._placements(seat, m.hands[seat]) for seat in range(m.players))


def long_runs(r: TrainRound) -> int:
    """Runs of at least ``players`` passes made with the stock empty that a placement
    ended (the rounds the old rule, ``players`` passes in a row, scored blocked)."""
    n = passes = 0
    left = r.stock_size + sum(1 for e in r.log if e[0] == "draw")
    for kind, *_ in r.log:
        if kind == "draw":
            left -= 1
        elif kind == "pass":
            passes += 1
        else:
            n += passes >= r.players and left == 0
            passes = 0
    return n


def check_rounds(rounds: int, seed: str) -> dict[str, int]:
    """Seeded random rounds of every train variant: both layouts, double-6 to double-12,
    2 to 8 seats, every option; each round also replays in the independent model, its
    moves undo to the deal exactly, and its msgpack and record replay to the same round."""
    seen = {"blocked": 0, "out": 0, "went_on": 0}
    players_seen = set()
    for i in range(rounds):
        rng = random.Random(f"{seed}-{i}")
        deal = random_deal(rng)
        r = TrainRound.from_deal(deal.layout, **deal.kwargs())
        start = r.to_msgpack()
        states = []
        while not r.is_over:
            states.append(r.copy())
            r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
        players_seen.add((deal.layout, deal.set_max, r.players))
        seen[r.result.reason] += 1
        seen["went_on"] += long_runs(r) > 0
        m = TrainsModel(deal.layout, **deal.kwargs())
        for move in r.moves:
            m.play(str(move))
        assert m.result is not None and m.result.reason == r.result.reason, deal.code()
        if r.result.reason == "blocked":
            assert r.stock_size == 0 and no_seat_can_place(m), deal.code()
        again = TrainRound.from_msgpack(r.to_msgpack())
        assert again == r and again.log == r.log and again.result == r.result
        replayed = TrainRound.from_deal(deal.layout, **deal.kwargs(), moves=list(r.moves))
        assert replayed == r and replayed.log == r.log
        for before in reversed(states):  # undo restores every earlier position exactly
            r.undo()
            assert r == before and r.log == before.log and r.legal_moves == before.legal_moves
            assert public_of(r) == public_of(before)
            assert [r.hand(s) for s in range(r.players)] == [
                before.hand(s) for s in range(r.players)]  # fmt: skip
        assert r.to_msgpack() == start
    assert seen["blocked"] > rounds // 10 and seen["out"] > rounds // 10
    assert seen["went_on"] > rounds // 200  # the rounds the old rule ended early
    assert len(players_seen) > 30
    return seen


def test_a_blocked_round_leaves_no_seat_with_a_placement():
    check_rounds(ROUNDS, "blocked")


@pytest.mark.slow
def test_many_blocked_rounds_leave_no_seat_with_a_placement():
    check_rounds(SLOW_ROUNDS, "blocked-slow")


def positions_after_a_long_run():
    """Positions of seeded random full deals just after a run of ``players`` passes with
    the stock empty that did not block the round (the seat to move can place)."""
    for i in range(2000):
        rng = random.Random(f"long-run-{i}")
        deal = random_deal(rng)
        r = TrainRound.from_deal(deal.layout, **deal.kwargs())
        while not r.is_over:
            r.play(r.legal_moves[rng.randrange(len(r.legal_moves))])
            run = 0
            for kind, *_ in reversed(r.log):
                if kind != "pass":
                    break
                run += 1
            if not r.is_over and r.stock_size == 0 and run >= r.players:
                yield r.copy()
                break


def test_the_sampler_rebuilds_a_round_that_went_on_after_a_full_run_of_passes():
    done = 0
    for r in positions_after_a_long_run():
        obs = r.observation(r.to_move)
        check_samples(obs, 3)
        # a record with more passes in a row on the empty stock than a round allows
        extra = tuple(("pass", (r.to_move + k) % r.players, None, None)
                      for k in range(r.players))  # fmt: skip
        with pytest.raises(ValueError, match="passes in a row"):
            TrainSampler(replaced(obs, log=obs.log + extra))
        done += 1
        if done == 5:
            break
    assert done == 5


def test_play_goes_on_when_only_a_seat_two_or_more_turns_away_can_place():
    """Issue 43: the tests above reach the seat next after a run of passes; here the next
    seats cannot place and only one further round can.  Mexican Train, 4 seats, stock
    empty: 12-3@P0; seats 1, 2, 3 pass (P0 is private, nobody holds a 12); seat 0 passes
    (four passes in a row, the old rule's block), its marker making P0 public with its
    3 open.  Seat 1 (next) holds 0-1 and seat 2 holds 0-2: neither can place; seat 3,
    three turns from the passer, holds 3-6.  Play goes on to it; only after its
    placement and four more passes is the round blocked."""
    deal = dict(hands=[["12-3", "9-9"], ["0-1"], ["0-2"], ["3-6", "8-8"]], stock=[], leader=0)
    r = Round.from_deal("mexican-train", **deal, partial=True)
    r.play("12-3@P0")
    assert [e[:2] for e in r.log[1:]] == [("pass", 1), ("pass", 2), ("pass", 3), ("pass", 0),
                                          ("pass", 1), ("pass", 2)]  # fmt: skip
    assert not r.is_over and r.to_move == 3
    assert [str(m) for m in r.legal_moves] == ["6-3@P0"]
    r.play("6-3@P0")
    assert [e[:2] for e in r.log[8:]] == [("pass", 0), ("pass", 1), ("pass", 2), ("pass", 3)]
    assert r.result.reason == "blocked" and r.result.points == (18, 1, 2, 16)
    m = TrainsModel("trains", set_max=12, engine=12, **deal)  # the independent model agrees
    for move in r.moves:
        m.play(str(move))
    assert m.result is not None and m.result.reason == "blocked" and no_seat_can_place(m)
