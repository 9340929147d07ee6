"""Negative controls shared by the lighter games' tests: two runs of one game on setups that
differ only by a relabelling (a rotated board, renumbered islands or districts) must give the
same seat shares within sampling error."""

from __future__ import annotations

import math

import numpy as np

from heron_sim.analysis.metrics import light_win_shares


def seat_share_gaps(a, b) -> list[float]:
    """Per seat, |share_a - share_b| in standard errors of the difference (decided games;
    a shared win counts 1/k). Shares are per-game values in [0, 1], so their sample variance
    gives the standard error."""
    out = []
    sa, sb = light_win_shares(a), light_win_shares(b)
    sa, sb = sa[sa.sum(axis=1) > 0.5], sb[sb.sum(axis=1) > 0.5]
    for s in range(sa.shape[1]):
        x, y = sa[:, s], sb[:, s]
        se = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
        out.append(abs(x.mean() - y.mean()) / se if se > 0 else (0.0 if x.mean() == y.mean() else math.inf))
    return out


def assert_rotation_invariant(a, b, z: float = 4.5) -> None:
    gaps = seat_share_gaps(a, b)
    assert max(gaps) < z, f"seat shares differ between relabelled setups by {np.round(gaps, 2)} standard errors"
