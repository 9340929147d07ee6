"""Luck-adjusted win rates: a control variate on the players' luck, cross-fitted (issue 32 item 2).

A player's luck (heron_sim.strategies.expert_luck: the value after each roll minus its exact
expectation, on the expert's tables) has mean zero given the deal and every decision, whoever
plays. So for any per-game figure ``y`` (a seat's win: 0/1), ``y − β·X`` (``X``: the game's
luck features) has the same expectation as ``y`` for any fixed ``β``, and a smaller variance
when ``β`` is the regression of ``y`` on ``X``. Fitting ``β`` on the same games would bias the
estimate by O(1/n); it is fitted **out of sample by halves** (cross-fitting): ``β_A`` fitted on
half A is applied to half B and ``β_B`` to half A, then every game's residual enters one mean.

A rate over *finished* games (the frame's win rates) is a ratio: wins / finished. Its adjusted
form is (mean of ``y − β·X``) ÷ (finished share), with the delta-method interval of a ratio
(the residual ``y − β·X − rate·finished``); when every game finishes it is the plain mean.
Intervals are normal (z = 1.96) on the residuals' standard error; the plain estimate and its
Wilson interval stay beside it.

Features: for seat ``s``, its own luck and the sum of the others' (the winner is whoever the dice
favour most: one's own luck raises the chance, the others' lower it); for guide ``g``, the same
for the seat dealt ``g`` (0 where it was not dealt: still mean zero, the deal precedes every
roll). ``X`` is never centred on its sample mean: its expectation is known (0), which is what
makes the cross-fitted estimate unbiased.
"""

from __future__ import annotations

import numpy as np

from .intervals import Z95

__all__ = ["adjusted_mean", "adjusted_rate", "luck_columns", "adjusted_win_rates", "variance_ratio"]


def _halves(n: int) -> np.ndarray:
    """A fixed split of the games into two halves (games in order: first half, second half)."""
    fold = np.zeros(n, dtype=np.int64)
    fold[n // 2:] = 1
    return fold


def _fit(y: np.ndarray, X: np.ndarray) -> np.ndarray:
    """β of the least-squares regression of y on X with an intercept (the intercept dropped)."""
    if y.size <= X.shape[1] + 1:
        return np.zeros(X.shape[1])
    A = np.column_stack([np.ones(y.size), X])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    return coef[1:]


def _residuals(y: np.ndarray, X: np.ndarray) -> np.ndarray:
    """y − β·X with β cross-fitted by halves."""
    fold = _halves(y.size)
    out = np.empty(y.size, dtype=float)
    for k in (0, 1):
        fit = fold != k
        beta = _fit(y[fit], X[fit])
        out[~fit] = y[~fit] - X[~fit] @ beta
    return out


def adjusted_mean(y, X, z: float = Z95) -> tuple[float, float, float, float]:
    """The mean of ``y`` adjusted by the zero-mean controls ``X`` [games, k]: (estimate, low,
    high, standard error)."""
    y = np.asarray(y, dtype=float)
    X = np.asarray(X, dtype=float).reshape(y.size, -1)
    if y.size < 4:
        return float("nan"), float("nan"), float("nan"), float("nan")
    r = _residuals(y, X)
    m = float(r.mean())
    se = float(r.std(ddof=1) / np.sqrt(r.size))
    return m, m - z * se, m + z * se, se


def adjusted_rate(y, d, X, z: float = Z95) -> tuple[float, float, float, float]:
    """The ratio mean(y) / mean(d) (wins / games counted), ``y`` adjusted by ``X``: (estimate,
    low, high, standard error), delta-method interval. ``d`` is not adjusted (it is the
    denominator's indicator: a game counted)."""
    y = np.asarray(y, dtype=float)
    d = np.asarray(d, dtype=float)
    X = np.asarray(X, dtype=float).reshape(y.size, -1)
    if y.size < 4 or d.sum() <= 0:
        return float("nan"), float("nan"), float("nan"), float("nan")
    r = _residuals(y, X)
    dbar = d.mean()
    rate = float(r.mean() / dbar)
    lin = (r - rate * d) / dbar
    se = float(lin.std(ddof=1) / np.sqrt(y.size))
    return rate, rate - z * se, rate + z * se, se


def plain_rate_se(y, d) -> float:
    """The standard error of the plain ratio mean(y) / mean(d) (delta method): what
    :func:`variance_ratio` compares with."""
    y = np.asarray(y, dtype=float)
    d = np.asarray(d, dtype=float)
    dbar = d.mean()
    rate = y.mean() / dbar
    return float(((y - rate * d) / dbar).std(ddof=1) / np.sqrt(y.size))


def luck_columns(df) -> list[str]:
    """The frame's luck columns, seat by seat (``luck_seat1`` ...), or [] when it has none."""
    P = int(df["players"].iloc[0]) if len(df) else 0
    cols = [f"luck_seat{s + 1}" for s in range(P)]
    return cols if P and all(c in df.columns for c in cols) else []


def _features(L: np.ndarray, own: np.ndarray) -> np.ndarray:
    """(own luck, the others' luck summed) by game; ``own`` [games] is the seat (-1: none)."""
    total = L.sum(axis=1)
    idx = np.clip(own, 0, None)
    mine = np.where(own >= 0, L[np.arange(L.shape[0]), idx], 0.0)
    others = np.where(own >= 0, total - mine, 0.0)
    return np.column_stack([mine, others])


def adjusted_win_rates(df, guides: tuple[str, ...] | None = None) -> dict:
    """``win_rate_by_seat_adjusted`` (+ ``_ci``, ``_se``), the same by guide, and
    ``first_player_advantage_adjusted`` (+ ``_ci``; seat 1's win rate − 1/players), beside the
    plain standard errors ``win_rate_by_seat_se`` / ``win_rate_by_guide_se`` and the plain
    ``first_player_advantage`` (+ ``_ci``, normal). The adjusted figures are None when the frame
    has no luck columns (the plain ones are always given)."""
    from ..animals import NAMES as ANIMALS

    cols = luck_columns(df)
    adjusted_keys = ("win_rate_by_seat_adjusted", "win_rate_by_seat_adjusted_ci", "win_rate_by_seat_adjusted_se",
                     "win_rate_by_guide_adjusted", "win_rate_by_guide_adjusted_ci", "win_rate_by_guide_adjusted_se",
                     "first_player_advantage_adjusted", "first_player_advantage_adjusted_ci")
    out: dict = dict.fromkeys(("win_rate_by_seat_se", "win_rate_by_guide_se", "first_player_advantage",
                               "first_player_advantage_ci") + adjusted_keys)
    if not len(df):
        return out
    P = int(df["players"].iloc[0])
    winner = df["winner"].to_numpy()
    fin = df["finished"].to_numpy(bool).astype(float)
    if fin.sum() == 0:
        return out
    L = df[cols].to_numpy(dtype=float) if cols else None
    seat_se = [plain_rate_se((winner == s).astype(float), fin) for s in range(P)]
    out["win_rate_by_seat_se"] = seat_se
    fair = 1.0 / P
    plain1 = float((winner == 0).sum() / fin.sum())
    out["first_player_advantage"] = plain1 - fair
    out["first_player_advantage_ci"] = [plain1 - fair - Z95 * seat_se[0], plain1 - fair + Z95 * seat_se[0]]
    if L is not None:
        rates, cis, ses = [], [], []
        for s in range(P):
            rate, lo, hi, se = adjusted_rate((winner == s).astype(float), fin, _features(L, np.full(len(df), s)))
            rates.append(rate)
            cis.append([lo, hi])
            ses.append(se)
        out["win_rate_by_seat_adjusted"] = rates
        out["win_rate_by_seat_adjusted_ci"] = cis
        out["win_rate_by_seat_adjusted_se"] = ses
        out["first_player_advantage_adjusted"] = rates[0] - fair
        out["first_player_advantage_adjusted_ci"] = [cis[0][0] - fair, cis[0][1] - fair]
    by, by_ci, by_se, by_plain = {}, {}, {}, {}
    codes = np.stack([df[f"guide_{s}"].cat.codes.to_numpy() for s in range(P)], axis=1)
    for a, name in enumerate(guides or ANIMALS):
        holder = np.where((codes == a).any(axis=1), (codes == a).argmax(axis=1), -1)
        dealt = (holder >= 0).astype(float) * fin
        if dealt.sum() == 0:
            continue
        y = ((holder >= 0) & (winner == holder)).astype(float)
        by_plain[name] = plain_rate_se(y, dealt)
        if L is not None:
            rate, lo, hi, se = adjusted_rate(y, dealt, _features(L, holder))
            by[name], by_ci[name], by_se[name] = rate, [lo, hi], se
    out["win_rate_by_guide_se"] = by_plain
    if L is not None:
        out["win_rate_by_guide_adjusted"] = by
        out["win_rate_by_guide_adjusted_ci"] = by_ci
        out["win_rate_by_guide_adjusted_se"] = by_se
    return out


def variance_ratio(adjusted: dict) -> dict:
    """Plain variance ÷ adjusted variance of each seat's and each guide's win rate (the games
    the adjusted estimate saves for the same interval), from :func:`adjusted_win_rates`."""
    if adjusted.get("win_rate_by_seat_adjusted_se") is None:
        return {}
    seat = [(p / a) ** 2 if a > 0 else float("nan")
            for p, a in zip(adjusted["win_rate_by_seat_se"], adjusted["win_rate_by_seat_adjusted_se"])]
    guide = {g: (adjusted["win_rate_by_guide_se"][g] / a) ** 2 if a > 0 else float("nan")
             for g, a in adjusted["win_rate_by_guide_adjusted_se"].items()}
    return {"seat": seat, "guide": guide}
