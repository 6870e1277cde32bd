"""The compiled train games (bones.core.trains) against the reference model, ply by ply.

Thousands of seeded random rounds of Mexican Train ("trains") and Chicken Foot
("chicken_foot"), double-6/9/12 sets, 2 to 8 players, every rule option both ways, random
hand sizes (the usual ones and smaller or larger ones, down to an empty stock). The same
deal (hands, stock order, engine, leader) goes to the model (tests/trains_model.py, which
shares no code with bones) and to ``TrainRound.from_deal``; a seeded RNG picks a move from
the sorted legal texts and both play it. After every ply the two must agree on the set of
legal move texts, the seat to move, every hand, the stock size, whether the round is over
and the public events so far (kind, seat, placed tile); at the end also on the reason, the
out seat and every penalty. A disagreement fails with the deal as a ``from_deal`` call and
the moves so far: a reproducible case.

The core tests skip until bones.core.trains exists. The harness itself is tested now,
against the model dressed up as a core (``ModelCore``): it must pass on the model and catch
a model with one rule changed.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from trains_model import TrainsModel, set_tiles, tile_text

# The variants' standard hand sizes (pure Python, no core needed); the model and the core
# take hand_size as a plain int.
from bones.variant import STANDARD_HANDS

ROUNDS = 3000  # the default run: about 5 s for the model's side
SLOW_ROUNDS = 40000


@dataclass
class Deal:
    layout: str
    set_max: int
    hands: list[list[str]]
    stock: list[str]  # top first
    engine: int
    leader: int
    options: dict[str, Any] = field(default_factory=dict)

    def kwargs(self) -> dict[str, Any]:
        return dict(
            set_max=self.set_max,
            hands=[list(h) for h in self.hands],
            stock=list(self.stock),
            engine=self.engine,
            leader=self.leader,
            **self.options,
        )

    def code(self) -> str:
        """The deal as a from_deal call that can be pasted into a session."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs().items())
        return f"TrainRound.from_deal({self.layout!r}, {args})"


def random_deal(rng: random.Random) -> Deal:
    layout = rng.choice(["trains", "chicken_foot"])
    set_max = rng.choice([6, 9, 12])
    players = rng.randint(2, 8)
    engine = rng.randint(0, set_max)
    tiles = [tile_text(t) for t in set_tiles(set_max) if t != (engine, engine)]
    rng.shuffle(tiles)
    most = (len(tiles)) // players  # players * hand_size <= n_tiles - 1
    usual = STANDARD_HANDS[layout][f"double-{set_max}"][players]  # the variants' deal
    hand_size = min(usual, most) if rng.random() < 0.5 else rng.randint(1, most)
    hands = [tiles[s * hand_size : (s + 1) * hand_size] for s in range(players)]
    stock = tiles[players * hand_size :]
    options: dict[str, Any] = {"zero_double": rng.choice([0, 50])}
    if layout == "trains":
        options["first_turn_own_train"] = rng.random() < 0.5
    else:
        options["engine_toes"] = rng.choice([4, 6])
    return Deal(layout, set_max, hands, stock, engine, rng.randrange(players), options)


# --------------------------------------------------------------------------------------
# What is compared


def core_events(r: Any) -> list[tuple[str, int, str | None]]:
    return [(kind, seat, tile if kind == "place" else None) for kind, seat, tile, *_ in r.log]


def model_events(m: TrainsModel) -> list[tuple[str, int, str | None]]:
    return [(kind, seat, tile if kind == "place" else None) for kind, seat, tile, _ in m.events]


def core_state(r: Any) -> dict[str, Any]:
    return {
        "legal": {str(move) for move in r.legal_moves},
        "to_move": r.to_move,
        "hands": [{str(t) for t in r.hand(s)} for s in range(r.players)],
        "stock_size": r.stock_size,
        "over": r.is_over,
        "n_events": len(r.log),
    }


def model_state(m: TrainsModel) -> dict[str, Any]:
    return {
        "legal": set(m.legal_moves()),
        "to_move": m.to_move,
        "hands": [m.hand_texts(s) for s in range(m.players)],
        "stock_size": m.stock_size,
        "over": m.over,
        "n_events": len(m.events),
    }


def core_result(r: Any) -> tuple[str, int | None, tuple[int, ...]] | None:
    res = r.result
    return None if res is None else (res.reason, res.out_seat, tuple(res.penalties))


def model_result(m: TrainsModel) -> tuple[str, int | None, tuple[int, ...]] | None:
    res = m.result
    return None if res is None else (res.reason, res.out_seat, res.penalties)


def model_layout(m: TrainsModel) -> dict[str, Any]:
    """The table as the model sees it: the waiting double, the placements, the trains."""
    out: dict[str, Any] = {
        "placements": [
            (seat, tile, target) for kind, seat, tile, target in m.events if kind == "place"
        ]
    }
    if m.layout == "trains":
        out["pending"] = m.pending
        out["trains"] = {
            tid: (m.open[tid], m.length[tid], tid == "M" or int(tid[1:]) in m.public)
            for tid in m.open
        }
    else:
        # SPEC: the engine counts as the double "whose toes are due" until it has them all
        out["pending"] = None if m.foot is None else m.foot[0]
    return out


def core_layout(r: Any) -> dict[str, Any]:
    """The same from the core's r.placements, r.pending and r.trains (trains layout).

    SPEC: r.trains is read as one entry per train, P0, P1, ... then M, each
    (open_number, n_tiles, public); an entry that starts with the train's id is accepted
    too. The Mexican train counts as public.
    """
    out: dict[str, Any] = {
        "placements": [(seat, str(tile), str(target)) for seat, tile, target in r.placements],
        "pending": r.pending,
    }
    if r.layout_name == "trains":
        ids = [f"P{s}" for s in range(r.players)] + ["M"]
        trains = {}
        for tid, entry in zip(ids, r.trains, strict=False):
            if len(entry) == 4:
                tid, entry = str(entry[0]), entry[1:]
            open_number, n_tiles, public = entry
            trains[tid] = (open_number, n_tiles, tid == "M" or bool(public))
        out["trains"] = trains
    return out


def show(value: Any) -> str:
    """Sets sorted, so that a report reads the same every time."""
    if isinstance(value, set):
        return "{" + ", ".join(sorted(map(repr, value))) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(show, value)) + "]"
    return repr(value)


def differences(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    return [f"  {k}: model {show(want[k])}, core {show(got[k])}" for k in want if want[k] != got[k]]


def failure(deal: Deal, moves: list[str], what: str, lines: list[str]) -> str:
    return "\n".join(
        [
            f"core and model disagree {what}",
            *lines,
            "deal:",
            f"  {deal.code()}",
            f"moves so far ({len(moves)}):",
            f"  {moves!r}",
        ]
    )


# --------------------------------------------------------------------------------------
# The harness


def play_both(
    core_cls: Any, deal: Deal, seed: int, check_undo: bool = False, check_layout: bool = False
) -> TrainsModel:
    """Play one round on the model and on core_cls; return the model at the end.

    check_undo: after every ply also undo it on the core, compare with the model's state
    before the ply, and replay it. check_layout: also compare the table (placements, the
    waiting double, the trains' open numbers, lengths and markers).
    """
    rng = random.Random(seed)
    moves: list[str] = []

    def fail(what: str, lines: list[str]) -> None:
        raise AssertionError(failure(deal, moves, what, lines))

    m = TrainsModel(deal.layout, **deal.kwargs())
    try:
        r = core_cls.from_deal(deal.layout, **deal.kwargs())
    except Exception as exc:
        fail("on the deal: the core refused it", [f"  {exc!r}"])

    def compare(what: str, start: int) -> None:
        want, got = model_state(m), core_state(r)
        diff = differences(want, got)
        # events: those added since `start` (the ones before were compared already)
        done = min(want["n_events"], got["n_events"])
        new_want = [(k, s, t if k == "place" else None) for k, s, t, _ in m.events[start:done]]
        new_got = core_events(r)[start:done]
        if new_want != new_got:
            diff.append(f"  events from #{start}: model {new_want!r}, core {new_got!r}")
        if check_layout:
            diff += differences(model_layout(m), core_layout(r))
        if diff:
            fail(what, diff)

    compare("after the deal", 0)
    while not m.over:
        start = len(m.events)
        move = rng.choice(sorted(m.legal_moves()))
        if check_undo:
            before, before_events = model_state(m), model_events(m)
        try:
            r.play(move)
        except Exception as exc:
            fail(f"on play({move!r}): the core raised", [f"  {exc!r}"])
        m.play(move)
        moves.append(move)
        if check_undo:
            undone = r.undo()
            diff = differences(before, core_state(r))
            if core_events(r) != before_events:
                diff.append(f"  events: model {before_events!r}, core {core_events(r)!r}")
            if str(undone) != move:
                diff.append(f"  undo() returned {str(undone)!r}, not {move!r}")
            if core_result(r) is not None:
                diff.append(f"  result after undo: {core_result(r)!r}")
            if diff:
                fail(f"after play({move!r}) and undo()", diff)
            r.play(move)
        compare(f"after play({move!r})", start)
    if model_events(m) != core_events(r):
        fail(
            "on the whole event sequence",
            [f"  model {model_events(m)!r}", f"  core {core_events(r)!r}"],
        )
    if model_result(m) != core_result(r):
        fail("on the result", [f"  model {model_result(m)!r}, core {core_result(r)!r}"])
    return m


def run_rounds(
    core_cls: Any, rounds: int, seed: int, check_undo: bool = False, check_layout: bool = False
) -> dict[str, int]:
    """Play rounds deals; return counts that show what was covered."""
    seen = {"plies": 0, "out": 0, "blocked": 0, "trains": 0, "chicken_foot": 0}
    for i in range(rounds):
        rng = random.Random(f"{seed}-{i}")
        deal = random_deal(rng)
        m = play_both(core_cls, deal, rng.randrange(2**32), check_undo, check_layout)
        seen["plies"] += sum(kind == "place" for kind, *_ in m.events)
        seen[deal.layout] += 1
        assert m.result is not None
        seen[m.result.reason] += 1
    return seen


# --------------------------------------------------------------------------------------
# Against the core


@pytest.fixture(scope="module")
def core() -> Any:
    trains = pytest.importorskip("bones.core.trains")
    return trains.TrainRound


def test_core_agrees_with_the_model(core):
    seen = run_rounds(core, ROUNDS, seed=2026)
    assert seen["trains"] > ROUNDS // 3 and seen["chicken_foot"] > ROUNDS // 3
    assert seen["out"] > ROUNDS // 10 and seen["blocked"] > ROUNDS // 10


def test_core_table_agrees_with_the_model(core):
    """The table too: placements, the waiting double, the trains and their markers."""
    run_rounds(core, 500, seed=7, check_layout=True)


@pytest.mark.slow
def test_core_agrees_with_the_model_on_many_more_rounds(core):
    run_rounds(core, SLOW_ROUNDS, seed=24)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1))
def test_core_undo_restores_the_state_before_every_ply(core, seed):
    rng = random.Random(seed)
    play_both(core, random_deal(rng), rng.randrange(2**32), check_undo=True)


# --------------------------------------------------------------------------------------
# The harness, tested on the model dressed up as a core


class _Move(str):
    """A move as the core returns it: str() gives the text."""


class _Result:
    def __init__(self, reason: str, out_seat: int | None, penalties: tuple[int, ...]) -> None:
        self.reason, self.out_seat, self.penalties = reason, out_seat, penalties


class ModelCore:
    """TrainsModel behind the core's Python face (the part the harness uses)."""

    model_cls: type[TrainsModel] = TrainsModel

    def __init__(self, model: TrainsModel) -> None:
        self.m = model
        self.history: list[tuple[TrainsModel, str]] = []

    @classmethod
    def from_deal(cls, layout: str, **kwargs: Any) -> ModelCore:
        return cls(cls.model_cls(layout, **kwargs))

    @property
    def legal_moves(self) -> tuple[_Move, ...]:
        return tuple(_Move(t) for t in self.m.legal_moves())

    def play(self, move: str) -> None:
        before = copy.deepcopy(self.m)
        self.m.play(str(move))
        self.history.append((before, str(move)))

    def undo(self) -> _Move:
        self.m, move = self.history.pop()
        return _Move(move)

    players = property(lambda self: self.m.players)
    layout_name = property(lambda self: self.m.layout)
    placements = property(lambda self: tuple(model_layout(self.m)["placements"]))
    pending = property(lambda self: model_layout(self.m)["pending"])

    @property
    def trains(self) -> tuple[tuple[int, int, bool], ...]:
        table = model_layout(self.m)["trains"]
        return tuple(table[f"P{s}"] for s in range(self.m.players)) + (table["M"],)

    to_move = property(lambda self: self.m.to_move)
    stock_size = property(lambda self: self.m.stock_size)
    is_over = property(lambda self: self.m.over)
    log = property(lambda self: tuple(self.m.events))

    def hand(self, seat: int) -> tuple[str, ...]:
        return tuple(sorted(self.m.hand_texts(seat)))

    @property
    def result(self) -> _Result | None:
        res = self.m.result
        return None if res is None else _Result(res.reason, res.out_seat, res.penalties)


class _FastModelCore(ModelCore):
    """Without undo (no copy of the model at every ply)."""

    def play(self, move: str) -> None:
        self.m.play(str(move))


class _FourToesModel(TrainsModel):
    """A wrong rule: a Chicken Foot double takes 2 toes instead of 3."""

    def _place_on_foot(self, t, anchor):
        super()._place_on_foot(t, anchor)
        if self.foot is not None and self.foot[2] == 3:
            self.foot = (self.foot[0], self.foot[1], 2)


class _NoMarkerModel(TrainsModel):
    """A wrong rule: a pass does not put a marker on the passer's train."""

    def _pass(self, seat):
        had = seat in getattr(self, "public", {seat})
        super()._pass(seat)
        if self.layout == "trains" and not had:
            self.public.discard(seat)


class _LazyUndoCore(ModelCore):
    """A wrong undo: the stock is not given back."""

    def undo(self) -> _Move:
        stock = list(self.m.stock)
        move = super().undo()
        self.m.stock = stock
        return move


def test_the_harness_passes_on_the_model_itself():
    seen = run_rounds(ModelCore, 50, seed=1, check_undo=True)
    assert seen["plies"] > 500 and seen["out"] and seen["blocked"]
    seen = run_rounds(_FastModelCore, 500, seed=2)
    assert seen["plies"] > 5000 and seen["out"] and seen["blocked"]
    run_rounds(_FastModelCore, 100, seed=3, check_layout=True)


@pytest.mark.parametrize("model_cls", [_FourToesModel, _NoMarkerModel])
def test_the_harness_catches_a_changed_rule(model_cls):
    core_cls = type("Wrong", (ModelCore,), {"model_cls": model_cls})
    with pytest.raises(AssertionError) as caught:
        run_rounds(core_cls, 300, seed=1)
    text = str(caught.value)
    assert "core and model disagree" in text
    assert "TrainRound.from_deal(" in text and "moves so far" in text


def test_the_harness_catches_a_wrong_undo():
    with pytest.raises(AssertionError, match=r"and undo\(\)"):
        run_rounds(_LazyUndoCore, 300, seed=1, check_undo=True)


def test_a_reported_deal_replays():
    """The deal printed on a failure is a call that rebuilds the same round."""
    deal = random_deal(random.Random(5))
    TrainRound = ModelCore  # noqa: N806 - the name the printed code uses
    r = eval(deal.code(), {"TrainRound": TrainRound})
    assert core_state(r) == model_state(TrainsModel(deal.layout, **deal.kwargs()))
