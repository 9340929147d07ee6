"""Confidence intervals used by every summary and report."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(successes, trials, z: float = Z95):
    """Wilson score interval for a binomial rate; returns (rate, low, high).

    Works on scalars or arrays. A rate with 0 trials is NaN.
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low, high = centre - half, centre + half
    if np.ndim(p) == 0:
        return float(p), float(low), float(high)
    return p, low, high


def mean_interval(values, z: float = Z95):
    """Mean and normal-approximation (t for large n) interval; returns (mean, low, high)."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    m = float(x.mean())
    if n < 2:
        return m, math.nan, math.nan
    se = float(x.std(ddof=1)) / math.sqrt(n)
    return m, m - z * se, m + z * se
