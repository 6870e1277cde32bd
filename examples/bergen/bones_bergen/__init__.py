"""Bergen, a bones plugin that defines a whole game through the public plugin API only.

The play is the draw game's (``bones.variant("draw")``): one line, no spinner, draw from
the boneyard until a tile fits while more than two tiles are left in it.  What is
Bergen's is the scoring, supplied by two pieces of the plugin API:

* :func:`headers`, the variant's ``move_scorer``: a play that leaves the same number at
  both ends of the line scores 2 (a double header), 3 when one of those ends is a double
  (a triple header);
* :class:`BergenRules`, the variant's ``game_rules``: the hand's winner (the player who
  goes out; in a blocked hand the lightest hand, nobody on a tie) scores 1 point, the
  draw game's pip award is not used, and the first player to 15 after a hand wins.

Sources: https://www.pagat.com/domino/line/bergen.html (deal, reserve, headers) and
http://domino-games.com/domino-rules/bergen-rules.html (one point to the lightest hand,
game to 15); see README.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import bones
from bones.gamerules import GameRecord, Settlement, bad, others, target_winners
from bones.plugins import hookimpl

__all__ = ["BERGEN", "BergenRules", "headers", "register_variants"]

__version__ = "0.1.0"

DOUBLE_HEADER = 2  # both ends show the same number
TRIPLE_HEADER = 3  # ... and one of them is a double, laid across the line
HAND_POINT = 1  # the hand's winner
TARGET = 15


def line_ends(layout: Sequence[Any]) -> dict[str, tuple[int, bool]]:
    """The open ends of a line of moves: ``{"W": (number, is a double), "E": ...}``.

    ``layout`` is what a ``move_scorer`` gets (the moves placed so far, public
    information): the lead shows its high half west and its low half east, and a tile
    placed at an end leaves its other half open there."""
    ends: dict[str, tuple[int, bool]] = {}
    for move in layout:
        tile = move.tile
        if move.is_lead:
            ends = {"W": (tile.high, tile.is_double), "E": (tile.low, tile.is_double)}
            continue
        number, _ = ends[move.end]
        ends[move.end] = (tile.low if tile.high == number else tile.high, tile.is_double)
    return ends


def headers(layout: Sequence[Any], move: Any, count: int) -> int:
    """Bergen's ``move_scorer``: what ``move`` scores when placed on ``layout``.

    A lead double is a double header (2); after the lead, a play that leaves the same
    number at both ends scores 2, or 3 when either end is a double (``count``, the sum of
    the ends, is not used)."""
    ends = line_ends([*layout, move])
    (west, west_double), (east, east_double) = ends["W"], ends["E"]
    if west != east:
        return 0
    if move.is_lead:  # a lead double: both ends are the same tile
        return DOUBLE_HEADER
    return TRIPLE_HEADER if west_double or east_double else DOUBLE_HEADER


class BergenRules(bones.GameRules):
    """Bergen's game: each hand adds the headers its players made and 1 point for its
    winner; after a hand, the highest score at or above 15 wins (a tie there is a shared
    win).  The previous hand's winner leads the next one (the default)."""

    def __init__(self, options: Any) -> None:
        super().__init__(options)
        self.target: int = self.options["target"]

    def settle(
        self,
        rnd: Any,
        result: bones.RoundResult,
        scores: tuple[int, ...],
        state: Any,
        *,
        index: int,
    ) -> Settlement:
        """``scores`` plus the hand's headers (its play events) and the winner's point;
        the draw game's pip award (``result.points``) is not Bergen's and is ignored."""
        new = list(scores)
        for event in rnd.events:
            if event.kind == "play":
                new[rnd.side_of(event.seat)] += event.points
        for side in result.winners:  # nobody after a blocked hand with equal lightest
            new[side] += HAND_POINT
        final = tuple(new)
        winners = target_winners(final, self.target)
        if winners:
            return Settlement(final, None, winners, others(winners, len(final)))
        return Settlement(final, None, None, ())

    def check(self, record: GameRecord) -> None:
        """A loaded game: nobody had reached the target before the last hand, no hand
        lowers a score, and the end follows from the scores."""
        history = record.history
        for i, entry in enumerate(history[:-1]):
            if target_winners(entry, self.target):
                raise bad(f"the game was already over after round {i}, yet it went on")
        for i in range(1, len(history)):
            if any(a < b for a, b in zip(history[i], history[i - 1], strict=True)):
                raise bad(f"history[{i}] lowers a score, which no Bergen hand does")
        winners = target_winners(record.scores, self.target)
        losers = others(winners, len(record.scores)) if winners else ()
        if record.over != bool(winners) or (record.winners, record.losers) != (winners, losers):
            raise bad("over, winners and losers do not follow from the Bergen scores")


BERGEN = bones.variant("draw").with_defaults(
    "bergen",
    description="Bergen: double and triple headers, a point per hand, to 15",
    move_scorer=headers,
    game_rules=BergenRules,
    hand_size={2: 6, 3: 6, 4: 5},
    stock_reserve=2,
    teams_with_4=False,
    target=TARGET,
)


@hookimpl
def register_variants(register: Callable[[bones.Variant], None]) -> None:
    """Register Bergen."""
    register(BERGEN)
