"""Plain records the engine hands out: round results and public events."""

from __future__ import annotations

from typing import Any, NamedTuple


class Event(NamedTuple):
    """One public event of a round.

    ``kind`` is ``"play"`` (``move`` placed by ``seat``; ``count`` is the layout count after
    it, ``points`` what it scored), ``"draw"`` (``seat`` drew ``count`` tiles, unseen by the
    others), ``"pass"``, or ``"muggins"`` (``seat`` claimed ``points`` that the previous
    player failed to claim; All Fives with ``muggins_claim``).
    """

    kind: str
    seat: int
    move: Any = None
    count: int = 0  # type: ignore[assignment]  # a field, shadowing tuple.count on purpose
    points: int = 0


class RoundResult(NamedTuple):
    """How a round ended.

    ``reason``: ``"out"`` (a player emptied the hand), ``"blocked"`` (nobody can place and
    nobody may draw: Kozel's fish) or ``"target"`` (a side reached the game target during
    the round).  ``winners``: side indices (empty when nobody wins).  ``points``: per side,
    what the variant's round scoring awards (see docs/rules.md).  ``values``: per side, the
    hand values left.  ``last_seat``: the seat that placed the last tile.
    """

    reason: str
    winners: tuple[int, ...]
    points: tuple[int, ...]
    values: tuple[int, ...]
    last_seat: int
