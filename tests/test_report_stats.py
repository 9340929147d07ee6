"""Known answers for the statistics the report uses (scipy / statsmodels underneath)."""

import math

import numpy as np
import pytest

from heron_sim.analysis.intervals import clopper_pearson, wilson
from heron_sim.analysis.stats import (binom_test, chi2_sf, equivalence, holm, paired_difference,
                                      t_interval, t_quantile)

pytestmark = pytest.mark.exact


def test_binomial_test_known_values():
    # 7 heads of 10 fair coins: P(X >= 7) + P(X <= 3) = 2 * 176 / 1024
    assert binom_test(7, 10, 0.5) == pytest.approx(352 / 1024, abs=1e-12)
    # all successes against p = 0.5: 2 * 0.5 ** 10
    assert binom_test(10, 10, 0.5) == pytest.approx(2 / 1024, abs=1e-12)
    assert math.isnan(binom_test(0, 0, 0.5))


def test_chi2_and_t_quantiles():
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-9)
    assert chi2_sf(18.307038053275146, 10) == pytest.approx(0.05, abs=1e-9)
    assert math.isnan(chi2_sf(1.0, 0))
    assert t_quantile(10) == pytest.approx(2.228138851986273, abs=1e-9)
    assert t_quantile(float("inf")) == pytest.approx(1.959963984540054, abs=1e-12)


def test_holm_adjustment_by_hand():
    # sorted 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 1*0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_wilson_and_clopper_pearson_known_values():
    r, lo, hi = wilson(5, 10)
    assert (r, lo, hi) == pytest.approx((0.5, 0.2365930905, 0.7634069095), abs=1e-9)
    r, lo, hi = clopper_pearson(5, 10)
    assert (lo, hi) == pytest.approx((0.1870860284, 0.8129139716), abs=1e-9)
    r, lo, hi = wilson(np.array([0, 3]), np.array([0, 4]))
    assert math.isnan(r[0]) and math.isnan(lo[0]) and r[1] == 0.75


def test_t_interval_and_paired_difference_by_hand():
    m, lo, hi = t_interval([1.0, 2.0, 3.0, 4.0])
    half = 3.182446305284263 * math.sqrt(5 / 3) / 2  # t(3) 97.5 % quantile * sd / sqrt(n)
    assert (m, lo, hi) == pytest.approx((2.5, 2.5 - half, 2.5 + half), abs=1e-9)
    d = paired_difference([1, 2, 3, 4], [2, 4, 4, 6])  # differences 1, 2, 1, 2
    assert d["diff"] == 1.5 and d["n"] == 4
    # t = 1.5 / (0.57735 / 2) = 5.196 on 3 df
    assert d["p"] == pytest.approx(0.013846, abs=1e-5)


@pytest.mark.parametrize("diff,low,high,want", [
    (0.2, -0.5, 0.9, "negligible"),           # inside +-1, 0 included
    (0.5, 0.2, 0.8, "real but small"),        # excludes 0, inside +-1
    (3.0, 2.0, 4.0, "real and relevant"),     # wholly beyond the margin
    (1.2, 0.3, 2.1, "real, possibly relevant"),
    (0.5, -1.5, 2.5, "uncertain"),
])
def test_equivalence_reading(diff, low, high, want):
    assert equivalence(diff, low, high, 1.0) == want


def test_wilson_contains_its_rate_at_the_edges():
    for k, n in [(0, 1), (0, 7), (0, 1000), (5, 5), (1000, 1000)]:
        r, lo, hi = wilson(k, n)
        assert 0.0 <= lo <= r <= hi <= 1.0, (k, n, lo, r, hi)
