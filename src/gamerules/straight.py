"""Straight (All Fives): the hand end, the hand bonus and penalty, the exact target.

The round itself scores the counts, checks the target at every scoring event and awards
the hand bonus (``RoundResult.points``); the game adds what is left: the bonus (void
past an exact target), the optional hand penalty, the target check and the next leader.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..records import RoundResult
from .base import FinishedRound, GameRecord, GameRules, Settlement, bad, target_winners
from .target import target_settlement

__all__ = ["StraightGameRules", "round5", "straight_hand_end"]


def round5(n: int) -> int:
    """The nearest multiple of five (RULES.md §1.4): remainders 1-2 down, 3-4 up."""
    return 5 * ((n + 2) // 5)


def straight_hand_end(
    scores: Sequence[int],
    bonus: Sequence[int],
    *,
    target: int,
    exact_target: bool = False,
    immediate: bool = True,
    penalty: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """The game scores after an All Fives hand that ended by a domino or a block.

    ``scores``: the side totals at the end of play (game scores + the counts of the hand,
    i.e. ``round.scores``).  ``bonus``: the hand bonus per side.  With ``exact_target`` a
    bonus that would take a side past ``target`` is void.  ``penalty`` (option
    ``hand_penalty``): per side, its own pips rounded to five (and scaled), subtracted
    after the bonus; with ``immediate`` it is not subtracted when the bonus has already
    ended the game (the target is checked at every scoring event).
    """
    out = list(scores)
    for side, points in enumerate(bonus):
        if exact_target and out[side] + points > target:
            continue  # an overshoot is void
        out[side] += points
    if penalty is not None and not (immediate and target_winners(out, target, exact_target)):
        out = [s - p for s, p in zip(out, penalty, strict=True)]
    return tuple(out)


class StraightGameRules(GameRules):
    """All Fives to ``target``: options ``exact_target``, ``target_check``,
    ``hand_penalty``, ``score_scale`` and ``next_leader`` (``dominoer``, ``last_bone``,
    ``rotate``)."""

    score_order = 1  # points: the higher total finishes ahead

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.target: int = options.get("target", 0)
        self.exact: bool = bool(options.get("exact_target"))

    def _award(self, result: RoundResult) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """``(bonus, penalty)`` of a hand: the round's award, and with ``hand_penalty``
        each side's own pips rounded to five (scaled), taken after the bonus so that the
        target is checked first."""
        if not self.options.get("hand_penalty"):
            return tuple(result.points), None
        scale = self.options.get("score_scale", 1)
        return tuple(result.points), tuple(round5(v) // scale for v in result.values)

    def settle(
        self,
        rnd: FinishedRound,
        result: RoundResult,
        scores: tuple[int, ...],
        state: Any,
        *,
        index: int,
    ) -> Settlement:
        """The round's own scores carry the game's (``scores`` is not read): a round
        that ended on the target has no hand bonus; otherwise :func:`straight_hand_end`."""
        if result.reason == "target":
            new = tuple(rnd.scores)
        else:
            bonus, penalty = self._award(result)
            new = straight_hand_end(
                rnd.scores,
                bonus,
                penalty=penalty,
                target=self.target,
                exact_target=self.exact,
                immediate=self.options.get("target_check") == "immediate",
            )
        return target_settlement(new, result, self.target, self.exact)

    def next_leader(
        self,
        result: RoundResult,
        *,
        sides: Sequence[Sequence[int]],
        seat_values: Sequence[int],
        prev_leader: int,
        lot: int,
    ) -> tuple[int | None, Mapping[str, Any]]:
        """``dominoer``: the player who went out, by lot after a block; ``last_bone``:
        the player who went out, the holder of the highest double after a block (the
        round-1 rule with ``first_leader=highest_double``); ``rotate``: the seat left of
        the previous leader."""
        nl = self.options.get("next_leader")
        if nl == "rotate":
            return (prev_leader + 1) % len(seat_values), {}
        if result.reason == "out":
            return result.last_seat, {}
        if nl == "last_bone":
            return None, {"first_leader": "highest_double"}
        return lot, {}

    def leader_options(self, index: int) -> tuple[Mapping[str, Any], ...]:
        if index > 0 and self.options.get("next_leader") == "last_bone":
            return ({}, {"first_leader": "highest_double"})
        return ({},)

    def _check_step(self, i: int, before: Sequence[int], after: Sequence[int]) -> None:
        """Without ``hand_penalty`` no round lowers a score."""
        if not self.options.get("hand_penalty") and any(
            a < b for a, b in zip(after, before, strict=True)
        ):
            raise bad(f"history[{i}] lowers a score, which no round of this variant does")

    def check(self, record: GameRecord) -> None:
        results, history = record.results, record.history
        last = len(results) - 1
        for i, (result, entry) in enumerate(zip(results, history, strict=True)):
            if i == last and record.over:
                break
            if result.reason == "target" or target_winners(entry, self.target, self.exact):
                raise bad(f"the game was already over after round {i}, yet it went on")
            if i > 0:
                self._check_step(i, history[i - 1], entry)
        if record.over and last > 0:
            self._check_step(last, history[-2], history[-1])
        if record.over:  # record the last round again: the same scores and the same end
            before = history[-2] if len(history) > 1 else record.deal_scores  # unread
            again = self.settle(record.round, results[-1], before, record.state, index=last)
            if again.winners is None or (again.scores, again.winners, again.losers) != (
                record.scores,
                record.winners,
                record.losers,
            ):
                raise bad("scores, winners and losers do not follow from the last round")
        elif self.target and target_winners(record.scores, self.target, self.exact):
            raise bad("the scores have reached the target, yet the game is not over")
