"""The SPRT's input: the test a match runs is fed each duplicate set's mean score, so the
LLR it reports is the GSPRT's of the match's own pentanomial counts, and a long match of
two equal bots is decided H1 no more often than its alpha allows."""

from __future__ import annotations

import random

import pytest

from bones.match import MatchConfig, run_match
from bones.match.report import LiveTally
from bones.match.stats import PENTANOMIAL, SPRT, llr_pentanomial


@pytest.mark.parametrize("sprt, variant", [(SPRT(0, 10), "straight"), (SPRT(-20, 20), "draw")])
def test_reported_llr_is_that_of_the_pentanomial_counts(tmp_path, sprt, variant):
    config = MatchConfig(
        bots=("greedy", "random"), variant=variant, players=2, games=60, seed=11, sprt=sprt
    )
    summary = run_match(config, tmp_path / "m.jsonl", jobs=1, progress=False)
    (pair,) = summary["pairs"]
    counts = [pair["pentanomial"][k] for k in PENTANOMIAL]
    test = summary["sprt"]
    assert test["units"] == sum(counts) > 0
    assert test["llr"] == pytest.approx(llr_pentanomial(counts, sprt.elo0, sprt.elo1), abs=1e-9)


def _pair(rng: random.Random, group: int, favoured: float) -> list[dict]:
    """The two games of one deal between two equal bots (bot 0 in seat 0, then seat 1):
    with probability ``favoured`` the deal decides (the same seat wins both games), else
    each game is a coin toss; a draw now and then.  Symmetric: bot 0 scores 1/2 in
    expectation, its Elo is 0."""
    games = []
    seat = rng.randrange(2)
    for k, seat_bots in enumerate(([0, 1], [1, 0])):
        u = rng.random()
        if u < 0.05:
            ranks = [1, 1]
        elif rng.random() < favoured:
            ranks = [1, 0] if seat == 0 else [0, 1]
        else:
            ranks = [1, 0] if rng.random() < 0.5 else [0, 1]
        games.append(
            {
                "id": 2 * group + k,
                "group": group,
                "sides": [[0], [1]],
                "seat_bots": seat_bots,
                "ranks": ranks,
            }  # fmt: skip
        )
    return games


@pytest.mark.slow
def test_equal_bots_are_decided_h1_at_most_alpha_of_the_time():
    """200 matches of two equal bots, each up to 4,000 deal pairs, through the tally the
    runner feeds: H1 (elo >= 60 rather than <= 0) at most alpha = 5% of the time, give or
    take 3 standard deviations (6 of 200 here; a tally fed each pair's summed points
    decides H1 in all 200, after 29 pairs on average)."""
    sprt = SPRT(0, 60, 0.05, 0.05)
    runs, h1, undecided = 200, 0, 0
    for seed in range(runs):
        rng = random.Random(seed)
        tally = LiveTally(["a", "b"], sprt, 2, 2)
        for group in range(4000):
            for rec in _pair(rng, group, favoured=0.4):
                tally.add(rec)
            if tally.decision is not None:
                break
        h1 += tally.decision == "H1"
        undecided += tally.decision is None
    bound = runs * sprt.alpha + 3 * (runs * sprt.alpha * (1 - sprt.alpha)) ** 0.5
    assert h1 <= bound, (h1, bound)
    assert undecided <= runs // 20  # long enough: the matches decide
