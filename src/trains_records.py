"""Plain records of the train games (``bones.core.trains``): a round's result and what one
seat may know of a round."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .records import RoundResult

#: Why a train round ended (:attr:`TrainResult.reason`).
TrainReason = Literal["out", "blocked"]

#: One event of a round: ``(kind, seat, tile, target)``; kind is ``"place"`` (tile and
#: target given), ``"draw"`` (the tile only where the viewer may see it, else None) or
#: ``"pass"`` (tile and target None).
TrainEvent = tuple[str, int, "str | None", "str | None"]


class TrainResult(RoundResult):
    """How a train round ended: a :class:`bones.RoundResult` (every seat is a side of its
    own), so the referee, the game and the journal treat a train round like any other.

    ``reason``: ``"out"`` (a placement emptied the hand of ``out_seat``, the round's only
    winner) or ``"blocked"`` (every seat passed in a row with the stock empty; the seats
    with the lowest penalty win, ``out_seat`` is None).  ``points`` and ``values``: per
    seat, the penalty, the pips left in its hand (0-0 counts the round's ``zero_double``);
    the lowest total over a game wins.  ``last_seat``: the seat that placed the last tile
    (the leader when nobody placed one).
    """

    __slots__ = ()

    @property
    def out_seat(self) -> int | None:
        """The seat that went out, or None after a block."""
        return self.winners[0] if self.reason == "out" else None

    @property
    def penalties(self) -> tuple[int, ...]:
        """Per seat, the pips left in its hand (``points``)."""
        return self.points


@dataclass(frozen=True)
class TrainObservation:
    """What ``seat`` may know of a train round: its own hand, everyone's hand sizes, the
    stock's size (not its order), the public layout and the round's log, in which only
    this seat's own draws show the tile drawn.  Made by ``TrainRound.observation(seat)``.
    """

    seat: int
    layout: str  # "trains" or "chicken_foot"
    set_max: int  # N of the double-N set
    engine: int  # the engine double's number
    players: int
    leader: int
    to_move: int | None  # None once the round is over
    hand: tuple[str, ...]  # this seat's tiles, in index order
    hand_sizes: tuple[int, ...]
    stock_size: int
    trains: tuple[tuple[int, int, bool], ...]  # trains layout: (open, tiles, public) per train
    pending: str | None  # the double that must be satisfied (or whose toes are due)
    open_ends: tuple[tuple[str, int], ...]  # (target, open number) the mover may use
    placements: tuple[tuple[int, str, str], ...]  # (seat, tile, target) in play order
    log: tuple[TrainEvent, ...]  # the round's log as this seat sees it: its own draws show the tile
    legal_moves: tuple[str, ...]  # this seat's legal moves when it is to move, else ()
    zero_double: int
    first_turn_own_train: bool
    engine_toes: int
    result: TrainResult | None  # once the round is over

    def _repr_svg_(self) -> str:
        """The position as this seat sees it, as SVG (for notebooks; bones.render)."""
        from .render.trains_svg import train_svg_of

        return train_svg_of(self)

    def points_after(self, move: object) -> int:
        """What ``move`` scores now: nothing, in a train game (its penalties come at the
        end of the round); as :meth:`bones.Observation.points_after` for the bots that
        rank moves by it."""
        return 0
