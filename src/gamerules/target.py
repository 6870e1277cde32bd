"""The plain target games: Multiplayer, Draw and Block.

Each round's points (the round's award, ``RoundResult.points``) are added to the game
scores; the first side at or above the target wins (the highest on a tie between sides
that reach it together).  Block is one round: its winners win the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..records import RoundResult
from .base import (
    FinishedRound,
    GameRecord,
    GameRules,
    Settlement,
    bad,
    lightest_winner,
    others,
    target_winners,
)

__all__ = [
    "BlockGameRules",
    "DrawGameRules",
    "MultiplayerGameRules",
    "TargetGameRules",
    "added",
    "target_settlement",
]


def added(scores: Sequence[int], points: Sequence[int]) -> tuple[int, ...]:
    """``scores`` plus ``points``, side by side."""
    return tuple(s + p for s, p in zip(scores, points, strict=True))


def target_settlement(
    scores: tuple[int, ...], result: RoundResult, target: int, exact: bool = False
) -> Settlement:
    """The game at ``scores`` after ``result``: over once a side has reached ``target``
    (:func:`~bones.gamerules.target_winners`); a round that ended on the target
    (``reason="target"``) ends the game even if no side is at it (then the highest
    win)."""
    winners = target_winners(scores, target, exact)
    if result.reason == "target" and not winners:  # the round says so: trust it
        winners = tuple(i for i, s in enumerate(scores) if s == max(scores))
    if winners:
        return Settlement(scores, None, winners, others(winners, len(scores)))
    return Settlement(scores, None, None, ())


class TargetGameRules(GameRules):
    """A race to ``options["target"]``: every round adds its points to the scores."""

    #: The game is one round (Block): its winners win the game.
    one_round: ClassVar[bool] = False
    score_order = 1  # points: the higher total finishes ahead

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.target: int = options.get("target", 0)

    def settle(
        self,
        rnd: FinishedRound,
        result: RoundResult,
        scores: tuple[int, ...],
        state: Any,
        *,
        index: int,
    ) -> Settlement:
        new = added(scores, result.points)
        if self.one_round:
            winners = tuple(result.winners)
            return Settlement(new, None, winners, others(winners, len(new)))
        return target_settlement(new, result, self.target)

    def check(self, record: GameRecord) -> None:
        """No round but the last ended the game; each history entry is the one before
        plus the round's points; the end follows from the last round."""
        results, history = record.results, record.history
        last = len(results) - 1
        for i, (result, entry) in enumerate(zip(results, history, strict=True)):
            if i == last and record.over:
                break
            if self.one_round:
                raise bad("a block game is over after its one round")
            if result.reason == "target" or target_winners(entry, self.target):
                raise bad(f"the game was already over after round {i}, yet it went on")
        for i in range(1, len(results)):
            if history[i] != added(history[i - 1], results[i].points):
                raise bad(f"history[{i}] is not history[{i - 1}] plus round {i}'s points")
        if record.over:  # record the last round again: the same scores and the same end
            result = results[-1]
            if len(history) > 1:
                before = history[-2]
            else:
                before = tuple(a - b for a, b in zip(record.scores, result.points, strict=True))
            again = self.settle(record.round, result, before, record.state, index=last)
            if again.winners is None or (again.scores, again.winners, again.losers) != (
                record.scores,
                record.winners,
                record.losers,
            ):
                raise bad("scores, winners and losers do not follow from the last round")
        elif not self.one_round and self.target and target_winners(record.scores, self.target):
            raise bad("the scores have reached the target, yet the game is not over")


class MultiplayerGameRules(TargetGameRules):
    """Multiplayer: to 100; ``next_leader`` ``previous_winner`` (the out-player, after a
    block the lightest winner, without a winner the round-1 rule) or ``opening_rule``
    (the round-1 rule every round)."""

    def next_leader(
        self,
        result: RoundResult,
        *,
        sides: Sequence[Sequence[int]],
        seat_values: Sequence[int],
        prev_leader: int,
        lot: int,
    ) -> tuple[int | None, Mapping[str, Any]]:
        if self.options.get("next_leader") == "opening_rule":
            return None, {}
        if result.reason == "out":
            return result.last_seat, {}
        return lightest_winner(result, sides, seat_values), {}


class DrawGameRules(TargetGameRules):
    """Draw: to 100; the out-player leads next, after a block the lightest player of the
    winning side, without a winner the player who placed the last tile."""


class BlockGameRules(TargetGameRules):
    """Block: one round; its winners win the game (the scores add its points)."""

    one_round = True
