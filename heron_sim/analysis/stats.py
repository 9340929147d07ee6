"""Statistical tests and intervals used by the experiments (no SciPy needed).

Everything takes plain arrays and returns floats, so that tests can check it on synthetic
data with known answers.
"""

from __future__ import annotations

import math

import numpy as np

from .intervals import Z95


# ---------------------------------------------------------------- distributions
def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def _gammainc_lower_reg(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) (series / continued fraction)."""
    if x <= 0:
        return 0.0
    gln = math.lgamma(a)
    if x < a + 1.0:
        term = 1.0 / a
        total = term
        ap = a
        for _ in range(10_000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return total * math.exp(-x + a * math.log(x) - gln)
    # Lentz continued fraction for Q(a, x)
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return 1.0 - math.exp(-x + a * math.log(x) - gln) * h


def chi2_sf(x: float, dof: int) -> float:
    """P(X > x) for a chi-square with ``dof`` degrees of freedom."""
    if dof <= 0:
        return math.nan
    return max(0.0, 1.0 - _gammainc_lower_reg(dof / 2.0, x / 2.0))


def t_quantile(df: int, q: float = 0.975) -> float:
    """Student t quantile (Cornish-Fisher expansion; exact enough for df >= 3)."""
    z = math.sqrt(2.0) * _erfinv(2 * q - 1)
    if df <= 0 or not math.isfinite(df):
        return z
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def _erfinv(y: float) -> float:
    # Newton iterations on erf, from a good start
    if y <= -1:
        return -math.inf
    if y >= 1:
        return math.inf
    a = 0.147
    ln = math.log(1 - y * y)
    t = 2 / (math.pi * a) + ln / 2
    x = math.copysign(math.sqrt(math.sqrt(t * t - ln / a) - t), y)
    for _ in range(3):
        x -= (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


# ---------------------------------------------------------------- tests
def binom_test(k: int, n: int, p: float) -> float:
    """Two-sided exact binomial test of ``k`` successes in ``n`` trials against rate ``p``.

    p-value = sum of the probabilities of every outcome no more likely than ``k``.
    """
    if n <= 0:
        return math.nan
    ks = np.arange(n + 1)
    logp = (np.array([math.lgamma(n + 1)]) - _lgamma_vec(ks + 1) - _lgamma_vec(n - ks + 1)
            + ks * math.log(p) + (n - ks) * math.log1p(-p)) if 0 < p < 1 else None
    if logp is None:
        return 1.0 if (p == 0 and k == 0) or (p == 1 and k == n) else 0.0
    pk = logp[k]
    mask = logp <= pk + 1e-7 * abs(pk) + 1e-12
    m = logp[mask].max()
    return float(min(1.0, math.exp(m) * np.exp(logp[mask] - m).sum()))


def _lgamma_vec(x: np.ndarray) -> np.ndarray:
    return np.array([math.lgamma(v) for v in np.asarray(x, dtype=float)])


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (same order as given); reject where <= alpha."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    order = np.argsort(p)
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i] = running
    return adj


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
    z = Z95 if conf == 0.95 else math.sqrt(2.0) * _erfinv(conf)
    h = z * math.sqrt(n * q * (1 - q))
    lo = int(max(0, math.floor(n * q - h)))
    hi = int(min(n - 1, math.ceil(n * q + h)))
    return float(np.quantile(x, q)), float(x[lo]), float(x[hi])


def paired_difference(a, b, conf: float = 0.95) -> dict:
    """Mean of ``b - a`` over pairs (same seeds), t interval and two-sided p-value.

    Pairs where either side is NaN are dropped.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    ok = ~(np.isnan(a) | np.isnan(b))
    d = b[ok] - a[ok]
    n = int(d.size)
    mean, lo, hi = t_interval(d, conf)
    if n >= 2:
        sd = float(d.std(ddof=1))
        if sd > 0:
            p = 2 * normal_sf(abs(mean) / (sd / math.sqrt(n)))
        else:
            p = 1.0 if mean == 0 else 0.0
    else:
        p = math.nan
    return {"a": float(np.mean(a[ok])) if n else math.nan,
            "b": float(np.mean(b[ok])) if n else math.nan,
            "diff": mean, "low": lo, "high": hi, "p": p, "n": n}


def two_proportions(k1: int, n1: int, k2: int, n2: int) -> dict:
    """Difference of two independent rates (2 - 1): Newcombe interval and z-test p-value."""
    from .intervals import wilson

    p1, l1, u1 = wilson(k1, n1)
    p2, l2, u2 = wilson(k2, n2)
    d = p2 - p1
    low = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    pool = (k1 + k2) / (n1 + n2) if n1 + n2 else math.nan
    se = math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2)) if n1 and n2 else math.nan
    p = 2 * normal_sf(abs(d) / se) if se and se > 0 else (1.0 if d == 0 else math.nan)
    return {"a": p1, "b": p2, "diff": d, "low": low, "high": high, "p": p}


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
