"""Match statistics against known values: Elo, intervals (Student's t against scipy, the
cases where every unit scored the same), pentanomial, GSPRT."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bones.match.stats import (
    SPRT,
    SequentialTest,
    elo_from_score,
    estimate,
    estimate_counts,
    estimate_samples,
    game_scores,
    llr,
    llr_counts,
    llr_pentanomial,
    llr_trinomial,
    mean_interval,
    pentanomial_counts,
    pentanomial_estimate,
    score_from_elo,
    t_cdf,
    t_quantile,
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
    # 60 wins, 20 draws, 20 losses, by hand: the sample variance and t(0.975, 99)
    e = trinomial_estimate(60, 20, 20)
    mean = (60 + 10) / 100
    var = (60 * (1 - mean) ** 2 + 20 * (0.5 - mean) ** 2 + 20 * mean**2) / 99
    assert e.score == pytest.approx(mean) and e.variance == pytest.approx(var)
    half = 1.9842169515086827 * math.sqrt(var / 100)  # scipy.stats.t.ppf(0.975, 99)
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
    var *= n / (n - 1)  # fastchess's frequencies give the population variance: unbiased here
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
    d = estimate_samples([1.0, 1.0]).to_dict()
    assert d["elo"] is None  # JSON has no infinity
    one = estimate_samples([0.75])
    assert one.n == 1 and one.score == 0.75 and math.isnan(one.score_lo) and math.isnan(one.los)


def test_every_unit_the_same_interior_is_not_available():
    """Ten deals all 1/2: no spread to measure, not a point interval nor LOS 50%."""
    e = estimate_samples([0.5] * 10)
    assert e.score == 0.5 and e.elo == 0.0 and e.variance == 0.0
    for x in (e.score_lo, e.score_hi, e.elo_lo, e.elo_hi, e.elo_error, e.los):
        assert math.isnan(x)
    assert "same" in e.note
    d = e.to_dict()
    assert d["score_lo"] is d["score_hi"] is d["elo_error"] is d["los"] is None
    assert d["note"] == e.note


@pytest.mark.parametrize("n", [2, 5, 10, 40])
def test_every_unit_at_an_extreme_gets_the_exact_bound(n):
    """All 0: the upper end is 1 - 0.025**(1/n), what a mean of 1 - 0.025**(1/n) gives
    n zeros with 2.5% chance at most for any unit score in [0, 1] (equality for 0/1
    scores: Clopper--Pearson's); all 1 mirrors it.  The LOS is not available."""
    low = estimate_samples([0.0] * n)
    assert low.score_lo == 0.0 and low.score_hi == pytest.approx(1 - 0.025 ** (1 / n))
    assert (1 - low.score_hi) ** n == pytest.approx(0.025)
    assert low.elo == low.elo_lo == -math.inf and math.isfinite(low.elo_hi)
    assert math.isnan(low.los) and "every unit scored 0" in low.note
    high = pentanomial_estimate([0, 0, 0, 0, n])
    assert high.score_hi == 1.0 and high.score_lo == pytest.approx(0.025 ** (1 / n))
    assert high.elo_hi == math.inf and high.elo_lo == pytest.approx(-low.elo_hi)
    assert math.isnan(high.los) and "every unit scored 1" in high.note
    d = high.to_dict()
    assert d["elo_hi"] is None and d["elo_lo"] is not None and d["los"] is None


def test_extreme_bound_holds_for_bounded_scores():
    """The bound is exact for 0/1 units and conservative for any other [0, 1] unit: a
    unit of mean 1 - 0.025**(1/n) that is 0 as often as it can be is a 0/1 unit."""
    n = 5
    hi = estimate_samples([0.0] * n).score_hi
    scipy = pytest.importorskip("scipy.stats")
    assert scipy.beta.ppf(0.975, 1, n) == pytest.approx(hi)  # Clopper-Pearson, 0 of n


def test_t_quantile_matches_scipy():
    scipy = pytest.importorskip("scipy.stats")
    for df in range(1, 1001):
        assert t_quantile(0.975, df) == pytest.approx(scipy.t.ppf(0.975, df), rel=1e-10)
    for df in (1, 2, 3, 7, 30, 299, 1000, 0.5, 2.5):
        for p in (0.001, 0.025, 0.3, 0.5, 0.6, 0.9, 0.995, 0.9999):
            assert t_quantile(p, df) == pytest.approx(scipy.t.ppf(p, df), rel=1e-10, abs=1e-14)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        t_quantile(0.5, 0)


@settings(max_examples=300, deadline=None)
@given(
    st.floats(1e-100, 1.0, exclude_max=True),
    st.floats(0.5, 1e5),
)
def test_t_quantile_inverts_t_cdf(p, df):
    t = t_quantile(p, df)
    assert math.isfinite(t) and (t > 0) == (p > 0.5) and (t < 0) == (p < 0.5)
    tail = min(p, 1.0 - p)  # compared where the probability is known to full precision
    got = t_cdf(-abs(t), df)
    assert got == pytest.approx(tail, rel=1e-8, abs=1e-300)


@pytest.mark.parametrize(
    "p, df", [(0.0, 3), (1.0, 3), (-0.1, 3), (math.nan, 3), (0.9, 0), (0.9, -1), (0.9, math.nan)]
)
def test_t_rejects_bad_arguments(p, df):
    with pytest.raises(ValueError):
        t_quantile(p, df)
    if not df > 0:
        with pytest.raises(ValueError):
            t_cdf(0.5, df)


def test_t_cdf_matches_scipy():
    scipy = pytest.importorskip("scipy.stats")
    for df in (1, 2, 3, 5, 9, 30, 100, 1000, 0.5, 2.5):
        for t in (-50.0, -5.0, -2.0, -0.3, 0.0, 0.1, 1.0, 1.96, 3.0, 10.0, 100.0, 1e6):
            expected = scipy.t.cdf(t, df)
            assert t_cdf(t, df) == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert t_cdf(math.inf, 4) == 1.0 and t_cdf(-math.inf, 4) == 0.0
    assert math.isnan(t_cdf(math.nan, 4))


def test_los_is_students_t():
    scipy = pytest.importorskip("scipy.stats")
    # t = (0.6 - 0.5) / sqrt(0.25 / 10) = 0.632..., 9 degrees of freedom
    e = estimate(0.6, 0.25, 10)
    assert e.los == pytest.approx(scipy.t.cdf(0.1 / math.sqrt(0.025), 9), rel=1e-12)
    assert estimate(0.5, 0.25, 10).los == 0.5


@pytest.mark.parametrize("n", [2, 3, 5, 10])
def test_interval_covers_95_percent_over_few_units(n):
    """Normal unit scores (mean 1/2): the interval covers the mean in 95% of 4000 samples
    (within 3 binomial standard errors); the normal quantile with the population
    variance covered 90.4% at n = 10 and 75% at n = 3."""
    rng = random.Random(n)
    runs = 4000
    hits = 0
    for _ in range(runs):
        e = estimate_samples([rng.gauss(0.5, 0.1) for _ in range(n)])
        hits += e.score_lo <= 0.5 <= e.score_hi
    assert abs(hits / runs - 0.95) <= 3 * math.sqrt(0.95 * 0.05 / runs)


def test_mean_interval_of_any_values():
    mean, lo, hi = mean_interval([-3.0, 1.0, 2.0, 4.0])
    s = math.sqrt(((-4) ** 2 + 0 + 1 + 9) / 3)
    half = 3.182446305284263 * s / 2  # scipy.stats.t.ppf(0.975, 3)
    assert mean == 1.0 and (lo, hi) == pytest.approx((1.0 - half, 1.0 + half))
    one = mean_interval([2.0])
    assert one[0] == 2.0 and math.isnan(one[1]) and math.isnan(one[2])
    assert all(math.isnan(x) for x in mean_interval([]))


def test_estimate_counts_is_the_list():
    counts = {0.0: 3, 1 / 3: 7, 0.5: 0, 5 / 6: 11, 1.0: 2}
    units = [v for v, c in counts.items() for _ in range(c)]
    assert estimate_counts(counts) == estimate_samples(units)
    assert estimate_counts({}).n == 0 and estimate_counts({0.5: 0}).n == 0


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
            st.floats(0.0, 1.0, allow_nan=False),
        ),
        min_size=2,
        max_size=60,
    )
)
def test_interval_contains_the_mean_and_never_has_zero_width(units):
    e = estimate_samples(units)
    if math.isnan(e.score_lo):  # only when every unit scored the same, strictly inside
        assert e.variance == 0.0 and 0.0 < e.score < 1.0 and e.note
        assert math.isnan(e.los)
        return
    lo, hi = max(e.score_lo, 0.0), min(e.score_hi, 1.0)
    assert 0.0 <= lo <= e.score <= hi <= 1.0
    assert hi - lo > 0.0
    assert e.elo_lo <= e.elo <= e.elo_hi
    assert math.isnan(e.los) == (e.variance == 0.0)
    if not math.isnan(e.los):
        assert 0.0 <= e.los <= 1.0


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
