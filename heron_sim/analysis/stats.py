"""Statistical tests and intervals used by the experiments (scipy.stats and statsmodels underneath).

Everything takes plain arrays and returns floats, so that tests can check it on synthetic
data with known answers.
"""

from __future__ import annotations

import math

import numpy as np

from scipy import stats as _st

from .intervals import Z95


# ---------------------------------------------------------------- distributions
def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal."""
    return float(_st.norm.sf(z))


def chi2_sf(x: float, dof: int) -> float:
    """P(X > x) for a chi-square with ``dof`` degrees of freedom."""
    if dof <= 0:
        return math.nan
    return float(_st.chi2.sf(x, dof))


def t_quantile(df: int, q: float = 0.975) -> float:
    """Student t quantile (the normal one when ``df`` is not a positive finite number)."""
    if df is None or df <= 0 or not math.isfinite(df):
        return float(_st.norm.ppf(q))
    return float(_st.t.ppf(q, df))


# ---------------------------------------------------------------- tests
def binom_test(k: int, n: int, p: float) -> float:
    """Two-sided exact binomial test of ``k`` successes in ``n`` trials against rate ``p``
    (``scipy.stats.binomtest``: the probabilities of every outcome no more likely than ``k``)."""
    if n <= 0:
        return math.nan
    return float(_st.binomtest(int(k), int(n), p).pvalue)


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (same order as given); reject where <= alpha.

    Computed here (the step-down maximum of ``(m - i) p_(i)``, capped at 1: what
    ``statsmodels.stats.multitest.multipletests(method="holm")`` gives, tested) rather than by
    statsmodels, whose Holm branch calls ``gc.collect()`` at every call (~0.35 s each with a
    report's frames in memory) and used to be silenced by swapping ``gc.collect`` process-wide,
    which is not safe beside other threads (a Dask client).
    """
    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return p.copy()
    order = np.argsort(p, kind="mergesort")
    m = p.size
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(stepped, 1.0)
    return out


def holm_reject(pvalues, alpha: float = 0.05) -> np.ndarray:
    """Holm's step-down test: which hypotheses are rejected (same order as given). The ``k``-th
    smallest p (from 0) is rejected while every p up to it is at most ``alpha / (m - k)``: the
    comparison statsmodels' ``multipletests(method="holm")`` makes; :func:`holm`'s adjusted p-values at most ``alpha`` decide the same but where a
    product rounds across the boundary (tests/test_lab_order.py). The package's
    one Holm: the report's guide tests, the lab's goal tests, the lighter games' studies."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    order = np.argsort(p, kind="mergesort")
    passed = np.logical_and.accumulate(p[order] <= alpha / (m - np.arange(m))) if m else np.zeros(0, bool)
    out = np.zeros(m, dtype=bool)
    out[order] = passed
    return out


def equivalence(diff: float, low: float, high: float, margin: float) -> str:
    """Practical reading of an effect ``diff`` with interval [low, high] against a margin of
    practical equivalence ``margin`` (same unit): "negligible" when the whole interval lies
    within +-margin, "real and relevant" when it lies wholly beyond it, "real but small" when
    it excludes 0 but stays within the margin on one side, else "uncertain"."""
    if not all(map(math.isfinite, (diff, low, high))):
        return "uncertain"
    if -margin <= low and high <= margin:
        return "negligible" if (low <= 0 <= high) else "real but small"
    if low > margin or high < -margin:
        return "real and relevant"
    if low > 0 or high < 0:
        return "real, possibly relevant"
    return "uncertain"


# ---------------------------------------------------------------- intervals
def t_interval(values, conf: float = 0.95) -> tuple[float, float, float]:
    """Mean and Student-t interval; returns (mean, low, high)."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if n < 2:
        return m, math.nan, math.nan
    se = float(x.std(ddof=1)) / math.sqrt(n)
    h = t_quantile(n - 1, 0.5 + conf / 2) * se
    return m, m - h, m + h


def bootstrap_interval(values, stat=np.mean, n_boot: int = 1000, seed: int = 0,
                       conf: float = 0.95) -> tuple[float, float, float]:
    """Percentile bootstrap interval of ``stat`` over the rows of ``values``."""
    x = np.asarray(values)
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    est = float(stat(x))
    boots = np.empty(n_boot)
    for b in range(n_boot):
        boots[b] = stat(x[rng.integers(0, n, n)])
    lo, hi = np.quantile(boots, [(1 - conf) / 2, (1 + conf) / 2])
    return est, float(lo), float(hi)


def quantile_interval(values, q: float, conf: float = 0.95) -> tuple[float, float, float]:
    """Quantile ``q`` and its distribution-free interval (order statistics, normal approx)."""
    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    z = Z95 if conf == 0.95 else float(_st.norm.ppf(0.5 + conf / 2))
    h = z * math.sqrt(n * q * (1 - q))
    lo = int(max(0, math.floor(n * q - h)))
    hi = int(min(n - 1, math.ceil(n * q + h)))
    return float(np.quantile(x, q)), float(x[lo]), float(x[hi])


def paired_difference(a, b, conf: float = 0.95) -> dict:
    """Mean of ``b - a`` over pairs (same seeds), its t interval and the two-sided p-value of the
    paired t-test (``scipy.stats.ttest_rel``; the same figures as the t interval of the
    differences, tested).

    Pairs where either side is NaN are dropped. Differences that are all equal have a zero-width
    interval and p = 1 (all zero) or 0 (scipy's test is undefined there).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    ok = ~(np.isnan(a) | np.isnan(b))
    d = b[ok] - a[ok]
    n = int(d.size)
    mean, lo, hi = t_interval(d, conf)
    if n >= 2 and float(d.std(ddof=1)) > 0:
        res = _st.ttest_rel(b[ok], a[ok])
        ci = res.confidence_interval(conf)
        lo, hi, p = float(ci.low), float(ci.high), float(res.pvalue)
    elif n >= 2:
        p = 1.0 if mean == 0 else 0.0
    else:
        p = math.nan
    return {"a": float(np.mean(a[ok])) if n else math.nan,
            "b": float(np.mean(b[ok])) if n else math.nan,
            "diff": mean, "low": lo, "high": hi, "p": p, "n": n}


def two_proportions(k1: int, n1: int, k2: int, n2: int) -> dict:
    """Difference of two independent rates (2 - 1): Newcombe's interval (from the two Wilson
    intervals) and the pooled z-test's p-value, both by statsmodels
    (``confint_proportions_2indep(method="newcomb")``, ``proportions_ztest``; the same figures
    as the formulas once written here, tested). An empty side: NaN; rates of 0 or 1 on both
    sides (no variance): p = 1 if they are equal, else NaN."""
    from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

    from .intervals import wilson

    p1, p2 = wilson(k1, n1)[0], wilson(k2, n2)[0]
    d = p2 - p1
    if not (n1 > 0 and n2 > 0):
        return {"a": p1, "b": p2, "diff": d, "low": math.nan, "high": math.nan, "p": math.nan}
    low, high = confint_proportions_2indep(k2, n2, k1, n1, method="newcomb", compare="diff", alpha=0.05)
    pool = (k1 + k2) / (n1 + n2)
    if 0 < pool < 1:
        p = float(proportions_ztest([k2, k1], [n2, n1])[1])
    else:
        p = 1.0 if d == 0 else math.nan
    return {"a": p1, "b": p2, "diff": d, "low": float(low), "high": float(high), "p": p}


def eta_squared(y, groups) -> float:
    """Share of the variance of ``y`` explained by the categorical ``groups`` (between / total)."""
    y = np.asarray(y, dtype=float)
    g = np.asarray(groups)
    total = float(((y - y.mean()) ** 2).sum())
    if total == 0:
        return 0.0
    between = 0.0
    for level in np.unique(g):
        sel = y[g == level]
        between += sel.size * (sel.mean() - y.mean()) ** 2
    return float(between / total)


def format_p(p: float) -> str:
    """p-values as a reader expects them: 'p < 0.001', 'p = 0.03'."""
    if p is None or not math.isfinite(p):
        return "p = n/a"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"
