"""The fairness monitor's test (docs/contest.md, "The fairness monitor"): does a bot score
better in the later games of a deal than in its first?

A bot that recognises a deal it played before (through a channel no sandbox closes) can
exploit it in any game of the deal but its first.  The runner plays the games of a deal
in a random order, so for an honest bot which of its games of a deal came first is
chance, whatever the seats and opponents of those games.  For each deal the statistic
is ``T = Σ w · sign(later game's score − first game's score)`` over every later game of
the bot in that deal (every seat, every encounter), ``w`` = :data:`SAME_SEAT` for a
game in the first game's seat (the same hand: its luck cancels, so that comparison is
the sharpest) and 1 for another seat (a bot that exploits only games in another seat
than its first is still seen).  Summed over deals, its exact null distribution is the
convolution, deal by deal, of the ``k`` equally likely values ``T`` takes when each of
the bot's ``k`` games of the deal is the first.  Comparing only the last game with the
first (the monitor before issue 43) missed a bot that exploits only the middle games of
a round robin; comparing every pair of games in order would miss it too (its middle
games are better than its first and its last alike).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

__all__ = ["LaterGames", "LaterGamesFold", "later_games_test"]


@dataclass(frozen=True)
class LaterGames:
    """The test's counts and p-value: over every deal, how many later games scored better
    and worse than the bot's first game of that deal, the deals with two games or more,
    and the one-sided exact p-value of ``better − worse`` (1.0 with nothing to test)."""

    deals: int
    better: int
    worse: int
    p: float


#: The weight of a later game in the first game's seat (against 1 for another seat):
#: in simulated Block round robins (tests/test_fairness_later.py) 3 flagged a bot that
#: exploits the middle games as often as same-seat comparisons alone, and 1 (every
#: game alike) less often.
SAME_SEAT = 3


def _value(games: Sequence[tuple[float, Hashable]], i: int) -> int:
    """``T`` of a deal if its game ``i`` was the first."""
    first, seat = games[i]
    return sum(
        (SAME_SEAT if there == seat else 1) * ((s > first) - (s < first))
        for j, (s, there) in enumerate(games)
        if j != i
    )


def _convolve(a: dict[int, float], b: dict[int, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, 0.0) + p * q
    return out


def _power(dist: dict[int, float], n: int) -> dict[int, float]:
    result: dict[int, float] = {0: 1.0}
    while n:
        if n & 1:
            result = _convolve(result, dist)
        n >>= 1
        if n:
            dist = _convolve(dist, dist)
    return result


class LaterGamesFold:
    """:func:`later_games_test` folded one deal at a time, in memory that does not grow
    with the deals (a count per distinct null distribution): what a match summary keeps
    per bot."""

    def __init__(self) -> None:
        self.observed = self.better = self.worse = self.tested = 0
        self.groups: Counter[tuple[int, ...]] = Counter()

    def add(self, games: Sequence[tuple[float, Hashable]]) -> None:
        """One deal: the bot's games in the order played, each (score, seat)."""
        if len(games) < 2:
            return
        self.tested += 1
        first = games[0][0]
        self.better += sum(s > first for s, _ in games[1:])
        self.worse += sum(s < first for s, _ in games[1:])
        self.observed += _value(games, 0)
        null = tuple(sorted(_value(games, i) for i in range(len(games))))
        if any(null):  # a deal whose games all scored alike adds 0 whatever the order
            self.groups[null] += 1

    def result(self) -> LaterGames:
        if not self.groups:
            return LaterGames(self.tested, self.better, self.worse, 1.0)
        total: dict[int, float] = {0: 1.0}
        for null, count in self.groups.items():
            one: dict[int, float] = {}
            for value in null:
                one[value] = one.get(value, 0.0) + 1.0 / len(null)
            total = _convolve(total, _power(one, count))
        p = math.fsum(q for value, q in total.items() if value >= self.observed)
        return LaterGames(self.tested, self.better, self.worse, min(max(p, 0.0), 1.0))


def later_games_test(deals: Sequence[Sequence[tuple[float, Hashable]]]) -> LaterGames:
    """The test over ``deals``: per deal, the bot's games in the order they were played,
    each as (its score, its seat: any value that is equal for games in the same seat);
    a deal with one game tells nothing and is left out."""
    fold = LaterGamesFold()
    for games in deals:
        fold.add(games)
    return fold.result()
