"""Plain records of the train games (``bones.core.trains``): a round's result and what one
seat may know of a round."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

#: Why a train round ended (:attr:`TrainResult.reason`).
TrainReason = Literal["out", "blocked"]

#: One event of a round: ``(kind, seat, tile, target)``; kind is ``"place"`` (tile and
#: target given), ``"draw"`` (the tile only where the viewer may see it, else None) or
#: ``"pass"`` (tile and target None).
TrainEvent = tuple[str, int, "str | None", "str | None"]


class TrainResult(NamedTuple):
    """How a train round ended.

    ``reason``: ``"out"`` (a placement emptied ``out_seat``'s hand) or ``"blocked"`` (every
    seat passed in a row with the stock empty; ``out_seat`` is None).  ``penalties``: per
    seat, the pips left in its hand (0-0 counts the round's ``zero_double``); the lowest
    total over a game wins.
    """

    reason: TrainReason
    out_seat: int | None
    penalties: tuple[int, ...]


@dataclass(frozen=True)
class TrainObservation:
    """What ``seat`` may know of a train round: its own hand, everyone's hand sizes, the
    stock's size (not its order), the public layout and the public events, in which only
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
    events: tuple[TrainEvent, ...]  # public events; this seat's own draws show the tile
    legal_moves: tuple[str, ...]  # this seat's legal moves when it is to move, else ()
    zero_double: int
    first_turn_own_train: bool
    engine_toes: int
    result: TrainResult | None  # once the round is over
