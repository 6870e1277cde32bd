"""Match statistics as pure functions: Elo from a score, 95% intervals, pentanomial counts,
per-game pairwise scores and the GSPRT.  Modelled on fastchess (docs/matches.md),
with Student's t for the intervals.

Scores are in [0, 1] (a win 1, a draw 1/2, a loss 0).  An *estimate* takes a sample of
independent *units* -- single games, or the duplicate sets of a deal (two games with the
sides swapped: the pentanomial unit) -- and gives the mean score, the sample variance of
one unit and the 95% interval of the mean, mapped to Elo with the logistic curve.  Using
the variance of the duplicate sets is what makes the pentanomial interval tighter than the
trinomial one: the two games of a pair share the luck of the deal.

The interval is Student's t over the units (n - 1 degrees of freedom, the sample
variance), so it has its nominal 95% coverage over a handful of deals too, where the
normal quantile 1.96 with the population variance covers about 90% (10 units).  The t
distribution is computed here (the regularised incomplete beta function by its continued
fraction): scipy is not a runtime dependency.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "PENTANOMIAL",
    "PENTANOMIAL_VALUES",
    "TRINOMIAL_VALUES",
    "SPRT",
    "SequentialTest",
    "Estimate",
    "elo_from_score",
    "estimate",
    "estimate_counts",
    "estimate_samples",
    "game_scores",
    "llr",
    "llr_counts",
    "llr_pentanomial",
    "llr_trinomial",
    "mean_interval",
    "pentanomial_counts",
    "pentanomial_estimate",
    "score_from_elo",
    "sign_test",
    "t_cdf",
    "t_quantile",
    "trinomial_estimate",
]

#: Names of the pentanomial bins: the score of a deal pair, 0, 1/2, 1, 3/2, 2 points.
PENTANOMIAL = ("LL", "LD", "DD/WL", "WD", "WW")

#: The bins of a single game (L, D, W) and of a deal pair (pair points / 2).
TRINOMIAL_VALUES = (0.0, 0.5, 1.0)
PENTANOMIAL_VALUES = (0.0, 0.25, 0.5, 0.75, 1.0)


def elo_from_score(score: float) -> float:
    """The Elo difference of an expected ``score``: ``-400 log10(1/score - 1)``
    (75% -> +190.85); ``±inf`` at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: an even score is 0.0, not -0.0


def score_from_elo(elo: float) -> float:
    """The expected score of an Elo difference: ``1 / (1 + 10**(-elo/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz, as Cephes
    and Numerical Recipes evaluate it); converges fast for ``x < (a + 1) / (a + b + 2)``."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= c * d
        if abs(c * d - 1.0) < 4e-16:
            break
    return h


def _beta_lower(a: float, b: float, log_x: float, log_y: float) -> float:
    """``I_x(a, b)``, the regularised incomplete beta function, for ``x + y = 1`` given by
    their logarithms (``1 - x`` would lose its digits when ``x`` is near 1, ``x`` itself
    when it is below the floats) and ``x < (a + 1) / (a + b + 2)``, where the continued
    fraction converges fast."""
    log_front = a * log_x + b * log_y + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    return math.exp(log_front) * _beta_fraction(a, b, math.exp(log_x)) / a


def _t_tail(t: float, df: float) -> float:
    """``P(T > |t|)`` for Student's t with ``df`` degrees of freedom:
    ``I_x(df/2, 1/2) / 2`` with ``x = df / (df + t^2)``, or near ``t = 0`` (``x`` past
    the fraction's range) ``1/2 - I_y(1/2, df/2) / 2`` with ``y = 1 - x``: both forms
    keep the tail's digits, however small it is."""
    t2 = t * t
    if t2 == 0.0:
        return 0.5
    log_y = -math.log1p(df / t2)
    log_x = math.log(df) - 2.0 * math.log(abs(t)) + log_y  # x = y df / t^2: no overflow
    if math.exp(log_x) < (df / 2.0 + 1.0) / (df / 2.0 + 2.5):
        return 0.5 * _beta_lower(df / 2.0, 0.5, log_x, log_y)
    return 0.5 - 0.5 * _beta_lower(0.5, df / 2.0, log_y, log_x)


def t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df > 0`` degrees of freedom."""
    if not df > 0:
        raise ValueError(f"Student's t needs df > 0; got {df}")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = _t_tail(t, df)
    return 1.0 - tail if t >= 0 else tail


def _t_density(t: float, df: float) -> float:
    log_norm = math.lgamma((df + 1.0) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
    return math.exp(log_norm - (df + 1.0) / 2.0 * math.log1p(t * t / df))


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df > 0`` degrees of freedom (``t_cdf``'s
    inverse: ``t_quantile(0.975, 9)`` is 2.2622)."""
    if not df > 0:
        raise ValueError(f"Student's t needs df > 0; got {df}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1; got {p}")
    if p == 0.5:
        return 0.0
    return _t_upper(1.0 - p, df) if p > 0.5 else -_t_upper(p, df)


@functools.lru_cache(maxsize=1024)
def _t_upper(tail: float, df: float) -> float:
    """The ``t > 0`` with ``P(T > t) = tail`` (``0 < tail < 1/2``), by Newton's method
    kept inside a bracket that bisection narrows when a step would leave it; ``inf``
    when ``t`` is past the floats' range (a tail below about ``df**(df/2) / 1e308**df``)."""
    lo, hi = 0.0, 1.0
    while _t_tail(hi, df) > tail:
        lo, hi = hi, 2.0 * hi
    t = (lo + hi) / 2.0
    for _ in range(200):
        excess = _t_tail(t, df) - tail  # falls as t grows: its slope is -density
        if excess > 0:
            lo = t
        elif excess < 0:
            hi = t
        else:
            return t
        density = _t_density(t, df)
        step = t + excess / density if density > 0.0 else math.nan
        if not lo < step < hi:  # (a NaN step too)
            step = (lo + hi) / 2.0
        if abs(step - t) <= 4e-16 * step or hi - lo <= 4e-16 * hi:
            return step
        t = step
    return t


def _half_width(variance: float, n: int) -> float:
    """Half the 95% t interval of a mean of ``n`` units of sample variance ``variance``."""
    return t_quantile(0.975, n - 1) * math.sqrt(max(variance, 0.0) / n)


def mean_interval(samples: Sequence[float]) -> tuple[float, float, float]:
    """The mean of independent values of any kind (score differences, pips) and its 95%
    interval ``mean ± t(0.975, n - 1) s / sqrt(n)`` (``s`` the sample standard deviation);
    the interval is NaN under 2 values, and of zero width when they are all equal (values
    without bounds allow no other answer).  Scores in [0, 1] take
    :func:`estimate_samples`, which bounds or withholds such intervals."""
    n = len(samples)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean, var = _mean_var(samples)
    if n < 2:
        return mean, math.nan, math.nan
    half = _half_width(var, n)
    return mean, mean - half, mean + half


#: Why an interval of units that all scored the same is what it is (``Estimate.note``).
SAME_INTERIOR = "every unit scored the same: no spread to measure"
SAME_EXTREME = "every unit scored {}: the exact bound for any score in [0, 1]"


@dataclass(frozen=True)
class Estimate:
    """A score estimate from ``n`` independent units: ``score`` (the mean), ``variance``
    (the sample variance of one unit), the 95% interval ``score_lo``..``score_hi`` of the
    mean, the same in Elo (``elo``, ``elo_lo``, ``elo_hi``, ``elo_error`` = half the
    width, as fastchess prints ``elo +/- error``) and ``los``, the likelihood of
    superiority.  ``note`` says why an interval of units that all scored the same is a
    bound or not available (empty otherwise)."""

    n: int
    score: float
    variance: float
    score_lo: float
    score_hi: float
    elo: float
    elo_lo: float
    elo_hi: float
    elo_error: float
    los: float
    note: str = ""

    def to_dict(self) -> dict[str, float | int | str | None]:
        return {k: _finite(getattr(self, k)) for k in self.__dataclass_fields__}


def _finite(x: float | int | str) -> float | int | str | None:
    """JSON has no infinity: ``None`` for ``±inf``/``nan``."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def estimate(score: float, variance: float, n: int) -> Estimate:
    """The estimate of a mean ``score`` over ``n`` units of sample variance ``variance``
    (the ``n - 1`` denominator): interval ``score ± t(0.975, n - 1) sqrt(variance / n)``,
    mapped to Elo; ``elo_error`` is half the Elo width (fastchess's ``+/-``); LOS
    ``P(T < (score - 1/2) / sqrt(variance / n))``, T Student's t with ``n - 1``
    degrees of freedom.

    Never a zero-width interval: with fewer than 2 units the variance, the interval, its
    Elo and the LOS are not available (NaN; None in JSON).  When every unit scored the
    same there is no spread to measure: at 0 (or 1) the interval is the exact bound that
    holds for any score in [0, 1] -- ``P(n units all 0) <= (1 - mean)**n``, so the upper
    end is ``1 - 0.025**(1/n)`` (Clopper--Pearson's) -- and between them it is not
    available; the LOS is not available in both cases (``note`` says why)."""
    nan = math.nan
    if n <= 0:
        return Estimate(0, nan, nan, nan, nan, nan, nan, nan, nan, nan)
    elo = elo_from_score(score)
    if n < 2:
        return Estimate(n, score, nan, nan, nan, elo, nan, nan, nan, nan)
    if variance <= 0.0:
        if 0.0 < score < 1.0:
            return Estimate(n, score, 0.0, nan, nan, elo, nan, nan, nan, nan, SAME_INTERIOR)
        bound = 0.025 ** (1.0 / n)
        lo, hi = (0.0, 1.0 - bound) if score <= 0.0 else (bound, 1.0)
        note = SAME_EXTREME.format("0" if score <= 0.0 else "1")
    else:
        half = _half_width(variance, n)
        # a score lies in [0, 1]: an interval past it would promise what no bot can reach
        lo, hi = max(score - half, 0.0), min(score + half, 1.0)
        note = ""
    elo_lo, elo_hi = elo_from_score(lo), elo_from_score(hi)
    error = (elo_hi - elo_lo) / 2.0
    los = t_cdf((score - 0.5) / math.sqrt(variance / n), n - 1) if variance > 0 else nan
    return Estimate(n, score, variance, lo, hi, elo, elo_lo, elo_hi, error, los, note)


def _mean_var(samples: Sequence[float]) -> tuple[float, float]:
    """The mean and the sample variance (``n - 1`` denominator; 0 for one value)."""
    n = len(samples)
    mean = math.fsum(samples) / n
    return mean, math.fsum((x - mean) ** 2 for x in samples) / max(n - 1, 1)


def estimate_samples(samples: Sequence[float]) -> Estimate:
    """:func:`estimate` from the scores of independent units."""
    if not samples:
        return estimate(math.nan, math.nan, 0)
    mean, var = _mean_var(samples)
    return estimate(mean, var, len(samples))


def estimate_counts(counts: Mapping[float, int]) -> Estimate:
    """:func:`estimate_samples` of a histogram ``{unit score: how many units}`` (the same
    numbers: ``math.fsum`` is exactly rounded, so the order of the units does not matter)."""
    units = itertools.chain.from_iterable(itertools.repeat(v, c) for v, c in counts.items())
    return estimate_samples(list(units))


def trinomial_estimate(wins: int, draws: int, losses: int) -> Estimate:
    """The estimate from single games: win 1, draw 1/2, loss 0."""
    return estimate_counts({1.0: wins, 0.5: draws, 0.0: losses})


def pentanomial_counts(pair_scores: Iterable[float]) -> list[int]:
    """Counts of deal pairs by their points (0, 1/2, 1, 3/2, 2), in the order of
    :data:`PENTANOMIAL`: LL, LD, DD/WL, WD, WW."""
    counts = [0] * 5
    for points in pair_scores:
        index = round(points * 2)
        if not 0 <= index <= 4 or abs(points * 2 - index) > 1e-9:
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points; got {points}")
        counts[index] += 1
    return counts


def pentanomial_estimate(counts: Sequence[int]) -> Estimate:
    """The estimate from pentanomial counts (a pair's score is its points / 2)."""
    return estimate_counts(dict(zip(PENTANOMIAL_VALUES, counts, strict=True)))


def llr(mean: float, variance: float, n: float, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for ``n`` units of
    mean score ``mean`` and unit variance ``variance``, in its mean/variance form (the
    normal approximation of the logistic GSPRT, fishtest's classic formula):
    ``n (s1 - s0) (2 mean - s0 - s1) / (2 variance)`` with ``s = score_from_elo(elo)``.
    Good for many units; :func:`llr_counts` (what the SPRT uses) is exact."""
    if n <= 0 or not variance > 0:
        return 0.0
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)


#: fastchess's regularisation: an empty bin counts as this many units.
_EMPTY = 1e-3


def _mle(values: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution on ``values`` closest to the empirical ``probs`` (maximum
    likelihood) whose mean is ``s``: ``p_i = phat_i / (1 + theta (a_i - s))`` with
    ``theta`` the root of ``sum phat_i (a_i - s) / (1 + theta (a_i - s)) = 0``
    (Van den Bergh, "Comments on Normalized Elo", proposition 1.1; fastchess's logistic
    GSPRT).  ``s`` must lie strictly between the smallest and the largest value."""
    d = [a - s for a in values]
    lo = -1.0 / max(d)  # 1 + theta * max(d) > 0
    hi = -1.0 / min(d)  # 1 + theta * min(d) > 0
    for _ in range(200):  # bisection: f decreases from +inf at lo to -inf at hi
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        f = math.fsum(p * x / (1.0 + mid * x) for p, x in zip(probs, d, strict=True))
        if f > 0:
            lo = mid
        else:
            hi = mid
    theta = (lo + hi) / 2.0
    return [p / (1.0 + theta * x) for p, x in zip(probs, d, strict=True)]


def llr_counts(
    counts: Mapping[float, float], elo0: float, elo1: float, support: Iterable[float] = (0.0, 1.0)
) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) from a
    histogram ``{unit score: count}``, as fastchess computes it for the logistic model:
    ``N sum phat_i log(p1_i / p0_i)``, where ``phat`` is the observed distribution and
    ``p0``/``p1`` the maximum-likelihood distributions whose means are the expected
    scores of ``elo0``/``elo1`` (:func:`_mle`).  For many units it equals the
    mean/variance form :func:`llr`; unlike that form it stays bounded on a handful of
    units, so one won pair cannot decide a test.

    Each value of ``support`` that has no unit counts as 0.001 units (fastchess's
    regularisation of empty bins): pass :data:`PENTANOMIAL_VALUES` for deal pairs,
    :data:`TRINOMIAL_VALUES` for single games; the default (0 and 1) serves units of any
    other shape (the six games of a three-player deal)."""
    bins = {float(v): float(c) for v, c in counts.items() if c}
    if not bins:
        return 0.0
    for value in support:
        if float(value) not in bins:
            bins[float(value)] = _EMPTY
    values = sorted(bins)
    total = math.fsum(bins.values())
    probs = [bins[v] / total for v in values]
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    if not values[0] < s0 < values[-1] or not values[0] < s1 < values[-1]:
        return 0.0
    p0 = _mle(values, probs, s0)
    p1 = _mle(values, probs, s1)
    return total * math.fsum(
        p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True)
    )


def llr_pentanomial(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """:func:`llr_counts` from pentanomial counts (LL, LD, DD/WL, WD, WW), regularised as
    fastchess does."""
    histogram = dict(zip(PENTANOMIAL_VALUES, counts, strict=True))
    return llr_counts(histogram, elo0, elo1, PENTANOMIAL_VALUES)


def llr_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """:func:`llr_counts` from single games, regularised as fastchess does."""
    histogram = {0.0: losses, 0.5: draws, 1.0: wins}
    return llr_counts(histogram, elo0, elo1, TRINOMIAL_VALUES)


@dataclass(frozen=True)
class SPRT:
    """A sequential probability ratio test of H0 ``elo <= elo0`` against H1
    ``elo >= elo1`` with error rates ``alpha`` (accepting H1 when H0 holds) and ``beta``."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT: elo0 must be below elo1; got {self.elo0}, {self.elo1}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"SPRT: {name} must be between 0 and 1; got {value}")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("SPRT: alpha + beta must be below 1")

    @property
    def lower(self) -> float:
        """``log(beta / (1 - alpha))``: at or below it H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """``log((1 - beta) / alpha)``: at or above it H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def decide(self, value: float) -> str | None:
        """``"H1"``, ``"H0"`` or ``None`` (go on) for a log-likelihood ratio."""
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None

    @classmethod
    def parse(cls, items: Iterable[str]) -> SPRT:
        """``["elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"]`` (any subset, also comma
        separated); missing keys keep their defaults."""
        values: dict[str, float] = {}
        for item in (part for text in items for part in text.replace(",", " ").split()):
            key, eq, text = item.partition("=")
            key = key.strip()
            if not eq or key not in cls.__dataclass_fields__:
                raise ValueError(
                    f"--sprt takes elo0=E0 elo1=E1 alpha=A beta=B (any of them); got {item!r}"
                )
            try:
                values[key] = float(text)
            except ValueError:
                raise ValueError(f"--sprt {key} must be a number; got {text!r}") from None
        return cls(**values)

    def to_dict(self) -> dict[str, float]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}

    @classmethod
    def from_dict(cls, data: Mapping[str, float]) -> SPRT:
        return cls(**{k: float(v) for k, v in data.items()})

    def __str__(self) -> str:
        return f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"


def game_scores(ranks: Sequence[int], side_bots: Sequence[int]) -> dict[int, tuple[float, int]]:
    """Each bot's pairwise score in one game: ``{bot: (points, comparisons)}``.

    ``ranks``: per side, its place, higher finishing ahead and equal ranks tied
    (:func:`bones.match.journal.ranks_of`; bones 0.1 wrote 2 won, 1 neither, 0 lost);
    ``side_bots``: the bot playing each side.  Every pair of sides held
    by different bots is compared: the better rank scores 1, equal ranks 1/2 each.  A
    bot's game score is its points divided by its comparisons; with two sides it is the
    usual 1, 1/2 or 0.
    """
    out: dict[int, list[float]] = {}
    n = len(ranks)
    for i in range(n):
        for j in range(n):
            if i == j or side_bots[i] == side_bots[j]:
                continue
            a = ranks[i]
            b = ranks[j]
            acc = out.setdefault(side_bots[i], [0.0, 0])
            acc[0] += 1.0 if a > b else 0.5 if a == b else 0.0
            acc[1] += 1
    return {bot: (acc[0], int(acc[1])) for bot, acc in out.items()}


class SequentialTest:
    """An :class:`SPRT` fed one unit score at a time, in schedule order.

    ``support``: the bin values that are regularised when empty (see :func:`llr_counts`).
    After each :meth:`add`, ``llr`` is the log-likelihood ratio of the units so far and
    ``decision`` ``"H0"``, ``"H1"`` or ``None``; ``n`` counts the units.
    """

    def __init__(self, sprt: SPRT, support: Iterable[float] = (0.0, 1.0)) -> None:
        self.sprt = sprt
        self.support = tuple(support)
        self.counts: dict[float, int] = {}
        self.n = 0
        self.llr = 0.0
        self.decision: str | None = None

    def add(self, unit_score: float) -> str | None:
        """Add one unit (a deal pair's score / 2, a game's score, ...); return the
        decision after it."""
        key = round(float(unit_score), 12)
        self.counts[key] = self.counts.get(key, 0) + 1
        self.n += 1
        self.llr = llr_counts(self.counts, self.sprt.elo0, self.sprt.elo1, self.support)
        self.decision = self.sprt.decide(self.llr)
        return self.decision


def sign_test(better: int, worse: int) -> float:
    """The one-sided p-value of the sign test: the chance of ``better`` or more of
    ``better + worse`` fair coin flips coming up heads (ties are left out before).  It is
    exact, and assumes nothing of the differences but that each is as likely positive
    as negative: what a random play order makes true of an honest bot's score in the
    last game of a deal minus its first (the two are a random pair of the deal's games,
    in a random order).  The mean of the later games minus the first would not do with
    three or more games a deal: one good seating of six makes the first game mostly
    worse than that mean, though the order is fair.  1.0 when there is nothing to
    test."""
    n = better + worse
    if better < 0 or worse < 0:
        raise ValueError(f"the sign test counts differences; got {better}, {worse}")
    if better == 0:
        return 1.0
    log_half = n * math.log(0.5)
    total = 0.0
    for k in range(better, n + 1):  # the terms fall fast past n / 2: stop when they vanish
        term = math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + log_half)
        total += term
        if k > n / 2 and term < total * 1e-17:
            break
    return min(total, 1.0)
