"""The fairness monitor sees every game of a deal (issue 43): a bot that remembers deals
and exploits only the middle games of a 3-entry round robin is flagged; honest bots are
flagged at most at the stated rate.

The simulation is in process, with real games: Block, 2 players, a round robin of X,
``greedy`` and ``expert`` (each deal: 3 encounters x 2 seatings, X in 4 games).  X is
``greedy``; a game in which it "remembers" the deal scores the best of the results of
:data:`KNOWING`'s bots in its place on the same deal, seats, opponent and seeds (an
oracle's pick among replays: the stand-in for knowing the hands).  Each of X's games is
played every way once, into a pool of deals;
every simulated contest draws its deals from the pool and a random play order of X's
games in each deal (the runner's shuffle), and X exploits each of its games at places
``places`` of its order with probability ``fraction``.  The monitor's verdict is
:func:`bones.match.fairness.later_games_test` on X's scores in play order, as
``bones match`` computes it.

``python tests/test_fairness_later.py`` prints the detection-power table of
docs/contest.md (a few minutes)."""

from __future__ import annotations

import functools
import random
import sys

import pytest

from bones.match.driver import play_game
from bones.match.fairness import later_games_test
from bones.match.report import FAIRNESS_ALPHA
from bones.match.schedule import MatchConfig, plan
from bones.match.stats import sign_test

SECRET = "ab" * 32
MIDDLE = (1, 2)  # the second and third of X's four games of a deal
LATER = (1, 2, 3)


def _score(rec: dict, seat: int) -> float:
    mine, theirs = rec["ranks"][seat], rec["ranks"][1 - seat]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


#: What X plays in a game it knows: the best of these bots' results on the game (an
#: oracle's pick among replays, the stand-in for playing with the hands known).
KNOWING = ("greedy", "expert", "heaviest", "random", "montecarlo:simulations=20")


def _scores(x: str, deals: int, seed: int) -> list[list[tuple[float, int]]]:
    """X's score and seat in each of its games of each deal, X played by ``x``."""
    config = MatchConfig(
        bots=(x, "greedy", "expert"), format="round-robin", variant="block",
        games=deals * 2, seed=seed, secret=SECRET, timeout=None,
    )  # fmt: skip
    p = plan(config)
    scores: list[list[tuple[float, int]]] = [[] for _ in range(deals)]
    for gid in range(p.schedule.total):
        task = p.task(gid)
        if 0 in task["seat_bots"]:
            seat = task["seat_bots"].index(0)
            scores[p.schedule.locate(gid)[0]].append((_score(play_game(task), seat), seat))
    return scores


@functools.lru_cache(maxsize=4)
def pool(deals: int, seed: int = 43) -> tuple[tuple[tuple[float, float, int], ...], ...]:
    """Per deal, X's four games: (its score as greedy, its score knowing the deal, its
    seat)."""
    plain = _scores("greedy", deals, seed)
    others = [_scores(x, deals, seed) for x in KNOWING[1:]]
    out = []
    for d, games in enumerate(plain):
        out.append(
            tuple(
                (s, max([s] + [o[d][g][0] for o in others]), seat)
                for g, (s, seat) in enumerate(games)
            )
        )
    return tuple(out)


def contest(
    games: tuple[tuple[tuple[float, float, int], ...], ...],
    deals: int,
    fraction: float,
    places: tuple[int, ...],
    rng: random.Random,
) -> tuple[float, float, float]:
    """One contest of ``deals`` deals drawn from ``games``: (X's gain in points of score,
    the monitor's p-value, the old first-against-last sign test's p-value)."""
    sequences = []
    honest = cheat = 0.0
    up = down = 0
    for _ in range(deals):
        deal = list(games[rng.randrange(len(games))])
        rng.shuffle(deal)  # the play order of X's games of the deal
        played = []
        for place, (plain, known, seat) in enumerate(deal):
            used = known if place in places and rng.random() < fraction else plain
            played.append((used, seat))
            honest += plain
            cheat += used
        sequences.append(played)
        up += played[-1][0] > played[0][0]
        down += played[-1][0] < played[0][0]
    n = 4 * deals
    return 100 * (cheat - honest) / n, later_games_test(sequences).p, sign_test(up, down)


def power(
    deals: int, fraction: float, places: tuple[int, ...], contests: int, pooled: int = 1000
) -> tuple[int, int, int, float]:
    """(contests with a gain over 5 points, those flagged, flagged by the old test, mean
    gain) over ``contests`` contests on deals drawn from a pool of ``pooled``."""
    games = pool(pooled)
    rng = random.Random(f"{deals}-{fraction}-{places}")
    gained = flagged = old = 0
    total = 0.0
    for _ in range(contests):
        gain, p, p_old = contest(games, deals, fraction, places, rng)
        total += gain
        if gain > 5:
            gained += 1
            flagged += p < FAIRNESS_ALPHA
            old += p_old < FAIRNESS_ALPHA
    return gained, flagged, old, total / contests


def false_flags(deals: int, contests: int, pooled: int = 1000) -> int:
    games = pool(pooled)
    rng = random.Random(f"honest-{deals}")
    return sum(contest(games, deals, 0.0, (), rng)[1] < FAIRNESS_ALPHA for _ in range(contests))


def test_the_test_is_exact_on_small_cases():
    # one deal, three seats, scores 1, 0, 0 in order: T = -2 (first game best); the
    # three choices of the first give T = -2, +1, +1
    test = later_games_test([[(1.0, 0), (0.0, 1), (0.0, 2)]])
    assert (test.better, test.worse) == (0, 2) and test.p == pytest.approx(1.0)
    test = later_games_test([[(0.0, 0), (1.0, 1), (0.0, 2)]])
    assert (test.better, test.worse) == (1, 0) and test.p == pytest.approx(2 / 3)
    assert later_games_test([[(0.5, 0), (0.5, 1)], [(1.0, 0)]]).p == 1.0  # nothing to test
    # two deals of (0, 1, 1, 1), the second game in the first's seat: T = 3 + 1 + 1 = 5
    # each; the four choices of the first give 5, -3, -1, -1: P(T >= 10) = (1/4)^2
    deal = [(0.0, 0), (1.0, 0), (1.0, 1), (1.0, 1)]
    assert later_games_test([deal] * 2).p == pytest.approx(1 / 16)
    assert later_games_test([deal[::-1]] * 2).p == pytest.approx(11 / 16)


def test_a_bot_exploiting_only_the_middle_games_is_flagged():
    """200 deals, 40 contests: a bot that exploits its second and third games of every
    deal (issue 43's trial: 47.9% to 62.9%) gains more than 5 points in each and is
    flagged in at least 80% of them; the old first-against-last test flags few."""
    gained, flagged, old, gain = power(200, 1.0, MIDDLE, 40, pooled=400)
    assert gained >= 36 and gain > 10, gain
    assert flagged >= 0.8 * gained, (flagged, gained)
    assert old < 0.5 * gained


def test_honest_contests_are_rarely_flagged():
    assert false_flags(200, 100, pooled=400) <= 4  # 1% expected; 4 of 100 is p < 0.02 for a 1% rate


@pytest.mark.slow
def test_the_detection_table():
    """docs/contest.md's table: exploiting games 2 and 3 every time is flagged in at
    least 80% of the contests of 200 deals and more; exploiting half of them (about 7
    points) is not, at 200 deals (60 of 100 there), which the docs say."""
    rows = table(contests=100)
    for name, deals, fraction, gained, flagged, _, _ in rows:
        if name == "middle" and deals >= 200 and fraction == 1.0:
            assert gained == 100 and flagged >= 80, (deals, flagged)


def table(contests: int) -> list[tuple[str, int, float, int, int, int, float]]:
    rows = []
    for name, places in (("middle", MIDDLE), ("any later", LATER)):
        for deals in (50, 100, 200, 400):
            for fraction in (0.15, 0.3, 0.5, 1.0):
                gained, flagged, old, gain = power(deals, fraction, places, contests)
                rows.append((name, deals, fraction, gained, flagged, old, gain))
    return rows


if __name__ == "__main__":
    contests = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    print(f"false flags of honest X in {contests * 3} contests of 200 deals:",
          false_flags(200, contests * 3))  # fmt: skip
    print("games exploited | deals | fraction | mean gain | gain > 5 | flagged | old test")
    for name, deals, fraction, gained, flagged, old, gain in table(contests):
        print(f"{name} | {deals} | {fraction:g} | {gain:+.1f} | {gained} | {flagged} | {old}")
