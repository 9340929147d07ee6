"""Confidence intervals used by every summary and report (statsmodels / scipy underneath)."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st
from statsmodels.stats.proportion import proportion_confint

Z95 = float(_st.norm.ppf(0.975))


def wilson(successes, trials, z: float = Z95):
    """Wilson score interval for a binomial rate; returns (rate, low, high).

    Works on scalars or arrays. A rate with 0 trials is NaN. Computed by statsmodels'
    ``proportion_confint(method="wilson")`` at the level that ``z`` stands for."""
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    alpha = 2 * float(_st.norm.sf(z))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        safe = np.where(n > 0, n, 1.0)
        low, high = proportion_confint(k, safe, alpha=alpha, method="wilson")
    # the rate always lies inside its interval (at k = 0 or k = n rounding could put it a hair outside)
    low = np.where(n > 0, np.minimum(low, p), np.nan)
    high = np.where(n > 0, np.maximum(high, p), np.nan)
    if np.ndim(p) == 0:
        return float(p), float(low), float(high)
    return p, low, high


def clopper_pearson(successes: int, trials: int, conf: float = 0.95) -> tuple[float, float, float]:
    """Exact (Clopper-Pearson) interval; returns (rate, low, high)."""
    if trials <= 0:
        return math.nan, math.nan, math.nan
    low, high = proportion_confint(successes, trials, alpha=1 - conf, method="beta")
    return successes / trials, float(low), float(high)
