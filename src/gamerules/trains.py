"""The train games' game: Mexican Train and Chicken Foot.

A game is one round per double of the set, from the highest down to 0-0 (13 rounds with
double-12, 10 with double-9): round ``i`` is dealt with the engine double ``highest - i``.
Each round adds every seat's penalty (the pips left in its hand) to its score; after the
last round the lowest total wins (every seat on it, on a tie).  The first round's leader
is drawn by lot; each later round is led by the seat after the previous round's leader.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar

from ..records import RoundResult
from .base import FinishedRound, GameRecord, GameRules, Settlement, bad, others

__all__ = ["SET_MAX", "TrainGameRules"]

#: The highest number of each set the train families play with (option ``set``); defined
#: here, below bones.variant (which re-exports it), because the train game reads it.
SET_MAX: Mapping[str, int] = MappingProxyType({"double-6": 6, "double-9": 9, "double-12": 12})


class TrainGameRules(GameRules):
    """One round per engine double, penalties added, the lowest total wins."""

    score_order = -1  # penalties: the lower total finishes ahead
    score_unit = "pips"

    #: The double-12 set has 1,092 pips, and a 0-0 may count 50.
    max_award: ClassVar[int] = 1_200

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.top: int = SET_MAX[options["set"]]

    @property
    def rounds(self) -> int:
        """The rounds of a game: one per double of the set."""
        return self.top + 1

    def deal_options(self, index: int) -> Mapping[str, Any]:
        return {"engine": self.top - index}

    def settle(
        self,
        rnd: FinishedRound,
        result: RoundResult,
        scores: tuple[int, ...],
        state: Any,
        *,
        index: int,
    ) -> Settlement:
        new = tuple(s + p for s, p in zip(scores, result.points, strict=True))
        if index + 1 < self.rounds:
            return Settlement(new)
        low = min(new)
        winners = tuple(seat for seat, s in enumerate(new) if s == low)
        return Settlement(new, None, winners, others(winners, len(new)))

    def next_leader(
        self,
        result: RoundResult,
        *,
        sides: Sequence[Sequence[int]],
        seat_values: Sequence[int],
        prev_leader: int,
        lot: int,
    ) -> tuple[int | None, Mapping[str, Any]]:
        return (prev_leader + 1) % len(sides), {}

    def check(self, record: GameRecord) -> None:
        if len(record.results) > self.rounds:
            raise bad(f"{len(record.results)} rounds recorded; a game has {self.rounds}")
        if any(p < 0 for result in record.results for p in result.points):
            raise bad("a train round's penalties are never negative")
