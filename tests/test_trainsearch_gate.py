"""pimc's gate under ``infer`` > 0 in the train games (issue 43): the effective number of
samples is Kish's (Σw)²/Σw² of the belief weights w = exp(log-likelihood), and the lead
is the weighted paired mean over its standard error on that many samples — recomputed
here from the log-likelihoods, on records whose largest log-likelihood is not the
first (where the search rescales its sums as the shift grows).
``bones.core.trainsearch.gate_statistic`` runs the search's own accumulation
(``add_sample``) and ``lead`` on given samples."""

from __future__ import annotations

import math
import random

import pytest

from bones.core.trainsearch import gate_statistic


def _expected(lls, utilities, ref, best):
    top = max(lls)
    w = [math.exp(ll - top) for ll in lls]
    mass = sum(w)
    effective = mass * mass / sum(x * x for x in w)
    diff = sum(x * (u[best] - u[ref]) for x, u in zip(w, utilities, strict=True)) / mass
    square = sum(x * (u[best] - u[ref]) ** 2 for x, u in zip(w, utilities, strict=True)) / mass
    spread = max(square - diff * diff, 0.0)
    return effective, diff / math.sqrt(spread / (effective - 1))


def test_the_effective_count_and_the_lead_are_recomputed_from_the_log_likelihoods():
    lls = [-3.0, -1.0, -2.5, 0.7, -4.0, 0.2, 0.69]  # the largest is the fourth
    utilities = [[1.0, 0.0, 2.0], [0.5, 1.5, 3.0], [2.0, 2.0, 1.0], [0.0, -1.0, 1.5],
                 [3.0, 0.0, 0.0], [1.0, 1.0, 2.5], [-1.0, 0.5, 0.0]]  # fmt: skip
    effective, lead = gate_statistic(lls, utilities, ref=0, best=2)
    want_effective, want_lead = _expected(lls, utilities, 0, 2)
    assert effective == pytest.approx(want_effective, rel=1e-12)
    assert lead == pytest.approx(want_lead, rel=1e-12)
    # not the unweighted count, nor the count of the weights relative to the first
    assert abs(effective - len(lls)) > 1
    w0 = [math.exp(ll - lls[0]) for ll in lls]
    assert effective == pytest.approx(sum(w0) ** 2 / sum(x * x for x in w0), rel=1e-12)


def test_random_records_with_a_later_largest_log_likelihood():
    rng = random.Random(43)
    for _ in range(200):
        k = rng.randrange(3, 40)
        n = rng.randrange(2, 6)
        lls = [rng.uniform(-30, 5) for _ in range(k)]
        if lls.index(max(lls)) == 0:
            lls.reverse()
        utilities = [[rng.uniform(-20, 20) for _ in range(n)] for _ in range(k)]
        ref, best = rng.sample(range(n), 2)
        effective, lead = gate_statistic(lls, utilities, ref, best)
        want_effective, want_lead = _expected(lls, utilities, ref, best)
        assert effective == pytest.approx(want_effective, rel=1e-9)
        if want_effective >= 2:
            assert lead == pytest.approx(want_lead, rel=1e-9, abs=1e-9)
        else:  # below two effective samples the gate sees no lead
            assert lead == 0.0


def test_without_infer_every_sample_counts_alike():
    lls = [-5.0, 3.0, -1.0, 2.0]
    utilities = [[0.0, 1.0], [1.0, 3.0], [2.0, 2.5], [0.0, 0.0]]
    effective, lead = gate_statistic(lls, utilities, 0, 1, infer=0.0)
    assert effective == 4.0
    assert lead == pytest.approx(_expected([0.0] * 4, utilities, 0, 1)[1], rel=1e-12)
    # one sample far likelier than the rest: about one effective sample, no lead
    effective, lead = gate_statistic([-900.0, 0.0, -800.0], [[0, 1], [0, 5], [0, 2]], 0, 1)
    assert effective == pytest.approx(1.0) and lead == 0.0
