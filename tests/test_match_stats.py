"""Match statistics against known values: Elo, intervals, pentanomial, GSPRT."""

from __future__ import annotations

import math

import pytest

from bones.match.stats import (
    SPRT,
    SequentialTest,
    elo_from_score,
    estimate,
    estimate_samples,
    game_scores,
    llr,
    llr_counts,
    llr_pentanomial,
    llr_trinomial,
    pentanomial_counts,
    pentanomial_estimate,
    score_from_elo,
    trinomial_estimate,
)


def test_elo_known_values():
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.005)
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.25) == pytest.approx(-190.85, abs=0.005)
    assert elo_from_score(10 / 11) == pytest.approx(400.0)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    for elo in (-300, -10, 0, 35.5, 400):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)


def test_trinomial_interval():
    # 60 wins, 20 draws, 20 losses: score 0.7, variance 0.7 - 0.49 - 0.05 ... by hand:
    e = trinomial_estimate(60, 20, 20)
    mean = (60 + 10) / 100
    var = (60 * (1 - mean) ** 2 + 20 * (0.5 - mean) ** 2 + 20 * mean**2) / 100
    assert e.score == pytest.approx(mean) and e.variance == pytest.approx(var)
    half = 1.959963984540054 * math.sqrt(var / 100)
    assert (e.score_lo, e.score_hi) == pytest.approx((mean - half, mean + half))
    assert e.elo_error == pytest.approx(
        (elo_from_score(mean + half) - elo_from_score(mean - half)) / 2
    )
    assert e.elo_lo < e.elo < e.elo_hi


def test_pentanomial_estimate_matches_fastchess_formula():
    counts = [10, 20, 100, 200, 170]  # LL LD DD/WL WD WW
    e = pentanomial_estimate(counts)
    n = sum(counts)
    p = [c / n for c in counts]
    score = p[4] + 0.75 * p[3] + 0.5 * p[2] + 0.25 * p[1]
    var = sum(pi * (v - score) ** 2 for pi, v in zip(p, (0, 0.25, 0.5, 0.75, 1), strict=True))
    assert e.n == n and e.score == pytest.approx(score) and e.variance == pytest.approx(var)
    # a pair sample gives the same estimate
    pairs = [0] * 10 + [0.25] * 20 + [0.5] * 100 + [0.75] * 200 + [1.0] * 170
    assert estimate_samples(pairs).elo_error == pytest.approx(e.elo_error)


def test_pentanomial_counts():
    assert pentanomial_counts([0, 0.5, 1, 1, 1.5, 2, 2]) == [1, 1, 2, 1, 2]
    with pytest.raises(ValueError):
        pentanomial_counts([0.3])


def test_estimate_edge_cases():
    assert estimate(0.5, 0.0, 0).n == 0
    e = estimate_samples([0.5] * 10)
    assert e.score == 0.5 and e.elo == 0.0 and e.los == 0.5 and e.elo_error == 0.0
    d = estimate_samples([1.0, 1.0]).to_dict()
    assert d["elo"] is None  # JSON has no infinity


def test_sprt_bounds_and_parse():
    s = SPRT.parse(["elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"])
    assert s == SPRT()
    assert s.lower == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944, abs=1e-3)
    assert s.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)
    assert SPRT.parse(["elo0=-5,elo1=5"]) == SPRT(-5, 5)
    assert s.decide(3.0) == "H1" and s.decide(-3.0) == "H0" and s.decide(0.0) is None
    for bad in (
        ["elo1=0"],
        ["alpha=0"],
        ["beta=1.5"],
        ["gamma=1"],
        ["elo0=x"],
        ["alpha=0.6", "beta=0.5"],
    ):
        with pytest.raises(ValueError):
            SPRT.parse(bad)


def test_llr_formula_and_signs():
    s0, s1 = score_from_elo(0), score_from_elo(10)
    assert llr(0.6, 0.04, 100, 0, 10) == pytest.approx(100 * (s1 - s0) * (1.2 - s0 - s1) / 0.08)
    strong = [0, 2, 30, 60, 80]  # clearly better: H1
    weak = [80, 60, 30, 2, 0]  # clearly worse: H0
    even = [10, 40, 100, 40, 10]  # score exactly 0.5: towards H0 of elo1=10
    sprt = SPRT()
    assert llr_pentanomial(strong, 0, 10) > sprt.upper
    assert llr_pentanomial(weak, 0, 10) < sprt.lower
    assert llr_pentanomial(even, 0, 10) < 0
    # the LLR is zero where the mean is halfway between s0 and s1
    mid = (s0 + s1) / 2
    assert llr(mid, 0.1, 1000, 0, 10) == pytest.approx(0.0, abs=1e-12)
    # grows linearly with the number of pairs at a fixed distribution
    assert llr_pentanomial([2 * c for c in strong], 0, 10) == pytest.approx(
        2 * llr_pentanomial(strong, 0, 10), rel=1e-3
    )
    assert llr_pentanomial([0] * 5, 0, 10) == 0.0
    # a start of only won pairs is far from deciding (the mean/variance form would be)
    assert 0 < llr_pentanomial([0, 0, 0, 0, 1], 0, 10) < 0.1
    assert llr_pentanomial([0, 0, 0, 0, 5], 0, 10) < sprt.upper
    # near the hypotheses the exact (maximum-likelihood) LLR is the mean/variance form
    counts = [100, 400, 1000, 420, 100]
    e = pentanomial_estimate(counts)
    assert llr_pentanomial(counts, 0, 10) == pytest.approx(
        llr(e.score, e.variance, sum(counts), 0, 10), rel=2e-3
    )
    assert llr_trinomial(60, 20, 20, 0, 10) > 0 > llr_trinomial(20, 20, 60, 0, 10)


def test_sequential_test():
    t = SequentialTest(SPRT(0, 10), (0.0, 0.25, 0.5, 0.75, 1.0))
    decision = None
    for i in range(10_000):
        decision = t.add(1.0 if i % 3 else 0.5)
        if decision:
            break
    assert decision == "H1" and 20 < t.n < 200
    assert t.llr == pytest.approx(llr_counts(t.counts, 0, 10, (0.0, 0.25, 0.5, 0.75, 1.0)))
    t0 = SequentialTest(SPRT(0, 10), (0.0, 0.5, 1.0))
    while t0.add(0.5) is None:
        pass
    assert t0.decision == "H0"


def test_game_scores():
    assert game_scores([2, 0], [0, 1]) == {0: (1.0, 1), 1: (0.0, 1)}
    assert game_scores([0, 0], [1, 0]) == {1: (0.5, 1), 0: (0.5, 1)}  # a block tie
    # three sides, bot 0 holds two of them (an AAB seating): compared only with bot 1
    assert game_scores([2, 0, 0], [0, 0, 1]) == {0: (1.5, 2), 1: (0.5, 2)}
    # three bots, Kozel: winner 2, middle 1, goat 0
    scores = game_scores([1, 2, 0], [0, 1, 2])
    assert scores == {0: (1.0, 2), 1: (2.0, 2), 2: (0.0, 2)}
    assert game_scores([2, 0, 2, 0], [0, 1, 0, 1]) == {0: (4.0, 4), 1: (0.0, 4)}
