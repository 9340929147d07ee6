"""Luck-adjusted win rates: a control variate on the players' luck, cross-fitted (issue 32 item 2).

A player's luck (heron_sim.strategies.expert_luck: the value after each roll minus its exact
expectation, on the expert's tables) has mean zero given the deal and every decision, whoever
plays. So for any per-game figure ``y`` (a seat's win: 0/1), ``y − β·X`` (``X``: the game's
luck features) has the same expectation as ``y`` for any fixed ``β``, and a smaller variance
when ``β`` is the regression of ``y`` on ``X``. Fitting ``β`` on the same games would bias the
estimate by O(1/n); it is fitted **out of sample by halves** (cross-fitting): ``β_A`` fitted on
half A is applied to half B and ``β_B`` to half A, then every game's residual enters one mean.

Paired differences between two rule sets played on the same seeds (game ``i`` of each from
the stream ``(seed, i)``): :func:`adjusted_rate_difference` (any controls, fitted on the
difference, cross-fitted the same way) and, by guide and for the guide spread,
:func:`paired_guide_differences`, whose control is each run's own control of the guide's holder
(:func:`seat_controls`, fitted within its run), the variant's minus the base's
(:func:`controlled_rate_difference`): each has mean zero in its own run, so their difference does
too.

A rate over *finished* games (the frame's win rates) is a ratio: wins / finished. Its adjusted
form is (mean of ``y − β·X``) ÷ (finished share), with the delta-method interval of a ratio
(the residual ``y − β·X − rate·finished``); when every game finishes it is the plain mean.
Intervals are normal (z = 1.96) on the residuals' standard error; the plain estimate and its
Wilson interval stay beside it.

Features (:func:`luck_features`): for seat ``s``, its own luck and the sum of the others' (the
winner is whoever the dice favour most: one's own luck raises the chance, the others' lower it),
and, where the frame has them, its weighted lucks (heron_sim.strategies.luck_weights: each turn
slot's luck weighted by the squares at the slot's start, so that a square in a close finish can
count for more than a square at the start). ``X`` is never centred on its sample mean: its
expectation is known (0), which is what makes the cross-fitted estimate unbiased.

The win rates by seat and by guide share one fit (:func:`seat_controls`): each seat's win is
regressed on its features, pooled over the seats (one coefficient vector for every seat, plus a
deviation per seat shrunk towards it by a ridge penalty, :data:`RIDGE`, so a seat's own player
keeps its own weights where the games show them), cross-fitted by halves; a seat's control is its
features times its coefficients from the other half. A guide's win rate when dealt uses its
holder's control. A per-target fit of 22 features overfits (the lucks' tails are long: a seat's
in-sample variance ratio 2.2, out of sample 1.7 on 10,000 games, docs/luck.md); the pooled one
does not.
"""

from __future__ import annotations

import numpy as np

from .intervals import Z95

__all__ = ["adjusted_mean", "adjusted_rate", "adjusted_rate_difference", "luck_columns", "luck_features",
           "adjusted_win_rates", "paired_guide_differences", "paired_variance_ratio", "seat_controls", "target_control",
           "variance_ratio", "RIDGE"]

#: the ridge penalty on each seat's deviation from the pooled coefficients, in units of the
#: features' standard deviations (chosen on the two pilot runs of strategies.luck_weights: from
#: 10 to 10,000 the variance ratios moved by less than 2 %; 0 lets a seat overfit, infinity
#: forces one player's weights on another)
RIDGE = 1000.0


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
    return _controlled_rate(y, d, y - _residuals(y, X), z)


def _controlled_rate(y, d, c, z: float = Z95) -> tuple[float, float, float, float]:
    """mean(y − c) / mean(d) and its delta-method interval, ``c`` a zero-mean control by game."""
    r = y - c
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


def luck_features(df) -> np.ndarray | None:
    """[games, players, k] each seat's luck features (None without luck columns): its own luck,
    the others' summed, then its weighted lucks (``luck_seat<s>_<name>``,
    heron_sim.strategies.luck_weights) where the frame has them all, then for each special square
    ``q`` its landing luck (``luck_seat<s>_sq<q>``, heron_sim.strategies.luck_turn.land_luck) and
    the others' summed."""
    from ..strategies.luck_weights import NAMES

    cols = luck_columns(df)
    if not cols:
        return None
    P = len(cols)
    L = df[cols].to_numpy(dtype=float)
    feats = [L, L.sum(axis=1, keepdims=True) - L]
    weighted = [[f"{c}_{name}" for c in cols] for name in NAMES]
    if all(c in df.columns for names in weighted for c in names):
        feats += [df[names].to_numpy(dtype=float) for names in weighted]
    squares = [c[len(cols[0]) + 1:] for c in df.columns if c.startswith(f"{cols[0]}_sq")]
    for q in squares:  # the landing lucks (luck_turn.land_luck): the seat's own, the others' summed
        Lq = df[[f"{c}_{q}" for c in cols]].to_numpy(dtype=float)
        feats += [Lq, Lq.sum(axis=1, keepdims=True) - Lq]
    fin = [f"{c}_finish" for c in cols]
    if all(c in df.columns for c in fin):  # the finish lucks (issue 59 item 1): own, the others' summed
        Lf = df[fin].to_numpy(dtype=float)
        feats += [Lf, Lf.sum(axis=1, keepdims=True) - Lf]
    return np.stack(feats, axis=2).reshape(len(df), P, len(feats))


def _seat_fit(X: np.ndarray, Y: np.ndarray, ridge: float) -> np.ndarray:
    """[players, k] coefficients: ``Y[:, s]`` regressed on ``X[:, s]`` for every seat at once, an
    intercept per seat, one pooled coefficient vector plus a deviation per seat penalised by
    ``ridge`` (features scaled to unit standard deviation; normal equations, seat by seat)."""
    n, P, K = X.shape
    if n * P <= P + K + 1:
        return np.zeros((P, K))
    scale = X.reshape(-1, K).std(axis=0)
    scale[scale == 0] = 1.0
    dim = P + K + P * K
    M = np.zeros((dim, dim))
    v = np.zeros(dim)
    base = np.arange(P, P + K)
    for s in range(P):
        D = np.column_stack([np.ones(n), X[:, s] / scale])
        gram, rhs = D.T @ D, D.T @ Y[:, s]
        idx = np.concatenate([[s], base, P + K + s * K + np.arange(K)])
        rep = np.concatenate([[0], np.arange(1, K + 1), np.arange(1, K + 1)])  # z twice: pooled, own
        M[np.ix_(idx, idx)] += gram[np.ix_(rep, rep)]
        v[idx] += rhs[rep]
    M[P + K:, P + K:] += ridge * np.eye(P * K)
    coef = np.linalg.lstsq(M, v, rcond=None)[0]
    return (coef[base][None, :] + coef[P + K:].reshape(P, K)) / scale


def seat_controls(X: np.ndarray, Y: np.ndarray, ridge: float = RIDGE, inner: bool = False):
    """[games, players] each seat's control ``X[g, s]·β_s``, the coefficients fitted
    (:func:`_seat_fit`) on the other half of the games: zero mean whatever ``Y`` is, since the
    features have mean zero and the coefficients do not depend on the game they are applied to.
    ``inner``: also the in-half controls (each game's features times its own half's
    coefficients), which :func:`target_control` scales by."""
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float)
    fold = _halves(X.shape[0])
    out = np.zeros(Y.shape)
    own = np.zeros(Y.shape)
    for k in (0, 1):
        fit = fold != k
        beta = _seat_fit(X[fit], Y[fit], ridge)
        out[~fit] = np.einsum("npk,pk->np", X[~fit], beta)
        own[fit] = np.einsum("npk,pk->np", X[fit], beta)
    return (out, own) if inner else out


def target_control(y, d, c_out, c_in) -> np.ndarray:
    """One figure's control by game: the seat control ``c_out`` scaled by ``γ``, the coefficient of
    the control in the least-squares fit of ``y`` on (1, ``c_in``, ``d``) over the other half of
    the games (each half's γ from its own games and its own coefficients only, so the control of
    a game depends on the other half alone: still mean zero). A figure whose player turns luck
    into wins differently from the seats' average (a guide that seldom wins) gets its own scale,
    down to none where the control does not explain it."""
    y, d, c_out, c_in = (np.asarray(v, dtype=float) for v in (y, d, c_out, c_in))
    fold = _halves(y.size)
    out = np.zeros(y.size)
    for k in (0, 1):
        fit = fold != k
        A = np.column_stack([np.ones(fit.sum()), c_in[fit], d[fit]])
        gamma = np.linalg.lstsq(A, y[fit], rcond=None)[0][1] if fit.sum() > 3 else 0.0
        out[~fit] = gamma * c_out[~fit]
    return out


def _holder_control(C: np.ndarray, holder: np.ndarray) -> np.ndarray:
    """The control of seat ``holder[g]`` in each game (0 where -1: the guide was not dealt)."""
    return np.where(holder >= 0, C[np.arange(C.shape[0]), np.clip(holder, 0, None)], 0.0)


def adjusted_win_rates(df, guides: tuple[str, ...] | None = None, features: np.ndarray | None = None) -> dict:
    """``win_rate_by_seat_adjusted`` (+ ``_ci``, ``_se``), the same by guide, and
    ``first_player_advantage_adjusted`` (+ ``_ci``; seat 1's win rate − 1/players), beside the
    plain standard errors ``win_rate_by_seat_se`` / ``win_rate_by_guide_se`` and the plain
    ``first_player_advantage`` (+ ``_ci``, normal). The adjusted figures are None when the frame
    has no luck columns (the plain ones are always given). ``features``: the seats' luck features
    ([games, players, k], each of mean zero) to use instead of the frame's (:func:`luck_features`;
    experiments/luck_chances.py)."""
    from ..animals import NAMES as ANIMALS

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
    X = luck_features(df) if features is None else features
    Y = np.stack([(winner == s).astype(float) for s in range(P)], axis=1)
    C, Cin = (None, None) if X is None else seat_controls(X, Y, inner=True)
    seat_se = [plain_rate_se((winner == s).astype(float), fin) for s in range(P)]
    out["win_rate_by_seat_se"] = seat_se
    fair = 1.0 / P
    plain1 = float((winner == 0).sum() / fin.sum())
    out["first_player_advantage"] = plain1 - fair
    out["first_player_advantage_ci"] = [plain1 - fair - Z95 * seat_se[0], plain1 - fair + Z95 * seat_se[0]]
    if C is not None:
        rates, cis, ses = [], [], []
        for s in range(P):
            rate, lo, hi, se = _controlled_rate(Y[:, s], fin, target_control(Y[:, s], fin, C[:, s], Cin[:, s]))
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
        if C is not None:
            c = target_control(y, dealt, _holder_control(C, holder), _holder_control(Cin, holder))
            rate, lo, hi, se = _controlled_rate(y, dealt, c)
            by[name], by_ci[name], by_se[name] = rate, [lo, hi], se
    out["win_rate_by_guide_se"] = by_plain
    if C is not None:
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


def _diff_influence(ya, da, yb, db, ca, cb) -> np.ndarray:
    """Each game's term of ``cb·rate_b − ca·rate_a`` linearised (the delta method of two ratios
    mean(y)/mean(d), paired by game): its mean is 0 at the estimates."""
    ra = ya.sum() / da.sum()
    rb = yb.sum() / db.sum()
    return cb * (yb - rb * db) / db.mean() - ca * (ya - ra * da) / da.mean()


def adjusted_rate_difference(ya, da, Xa, yb, db, Xb, ca: float = 1.0, cb: float = 1.0,
                             z: float = Z95) -> dict:
    """``cb·rate_b − ca·rate_a`` for two runs paired game by game (rate = mean(y) / mean(d), as
    :func:`adjusted_rate`), plain and adjusted by both runs' zero-mean controls ``[Xa, Xb]``.

    The plain interval is the delta method's on the paired terms (the pairing's correlation
    included). The adjusted estimate subtracts ``β·X`` from each game's linearised term, ``β``
    the least-squares fit of those terms on the controls, cross-fitted by halves (each half's
    terms and ratios computed on the other half alone); its interval is normal on the
    residuals. Returns ``plain``, ``plain_ci``, ``plain_se``, ``adjusted``, ``adjusted_ci``,
    ``adjusted_se`` (nan where a run counts no game)."""
    ya, da, yb, db = (np.asarray(v, dtype=float) for v in (ya, da, yb, db))
    n = ya.size
    X = np.column_stack([np.asarray(Xa, dtype=float).reshape(n, -1), np.asarray(Xb, dtype=float).reshape(n, -1)])
    out, lin = _paired_plain(ya, da, yb, db, ca, cb, z)
    if lin is None:
        return out
    fold = _halves(n)
    resid = np.empty(n)
    for k in (0, 1):
        fit = fold != k
        if da[fit].sum() <= 0 or db[fit].sum() <= 0:
            beta = np.zeros(X.shape[1])
        else:
            beta = _fit(_diff_influence(ya[fit], da[fit], yb[fit], db[fit], ca, cb), X[fit])
        resid[~fit] = lin[~fit] - X[~fit] @ beta
    return _paired_adjusted(out, resid, z)


def _paired_plain(ya, da, yb, db, ca, cb, z):
    """The plain paired difference's dict (adjusted keys nan) and its linearised terms by game
    (None where a run counts no game)."""
    nan = float("nan")
    out = {"plain": nan, "plain_ci": [nan, nan], "plain_se": nan,
           "adjusted": nan, "adjusted_ci": [nan, nan], "adjusted_se": nan}
    if ya.size < 4 or da.sum() <= 0 or db.sum() <= 0:
        return out, None
    est = float(cb * yb.sum() / db.sum() - ca * ya.sum() / da.sum())
    lin = _diff_influence(ya, da, yb, db, ca, cb)
    se = float(lin.std(ddof=1) / np.sqrt(ya.size))
    out.update(plain=est, plain_ci=[est - z * se, est + z * se], plain_se=se)
    return out, lin


def _paired_adjusted(out, resid, z):
    """``out`` with its adjusted keys from the linearised terms less their controls ``resid``
    (the terms have mean 0 at the plain estimate: the residuals' mean is the adjustment)."""
    adj = out["plain"] + float(resid.mean())
    se_adj = float(resid.std(ddof=1) / np.sqrt(resid.size))
    out.update(adjusted=adj, adjusted_ci=[adj - z * se_adj, adj + z * se_adj], adjusted_se=se_adj)
    return out


def _guide_arrays(df, guides):
    """Per guide: (y: the holder won, d: dealt in a finished game, c: the holder's control,
    :func:`seat_controls`, or None without luck columns)."""
    from ..animals import NAMES as ANIMALS

    P, winner, fin, _, C, Cin = _run_controls(df)
    codes = np.stack([df[f"guide_{s}"].cat.codes.to_numpy() for s in range(P)], axis=1)
    out = {}
    for a, name in enumerate(ANIMALS):
        if guides is not None and name not in guides:
            continue
        holder = np.where((codes == a).any(axis=1), (codes == a).argmax(axis=1), -1)
        d = (holder >= 0).astype(float) * fin
        y = ((holder >= 0) & (winner == holder)).astype(float)
        out[name] = (y, d, None if C is None else
                     target_control(y, d, _holder_control(C, holder), _holder_control(Cin, holder)))
    return out


def _run_controls(df):
    """A frame's (players, winner, finished as 0/1, each seat's win [games, players], and the
    seats' controls out of and in their half, :func:`seat_controls`; None, None without luck
    columns)."""
    P = int(df["players"].iloc[0])
    winner = df["winner"].to_numpy()
    fin = df["finished"].to_numpy(bool).astype(float)
    Y = np.stack([(winner == s).astype(float) for s in range(P)], axis=1)
    X = luck_features(df)
    C, Cin = (None, None) if X is None else seat_controls(X, Y, inner=True)
    return P, winner, fin, Y, C, Cin


def _seat_arrays(df):
    """Per seat: (y: the seat won, d: a finished game, c: the seat's control, :func:`seat_controls`
    scaled by :func:`target_control`, or None without luck columns)."""
    P, _, fin, Y, C, Cin = _run_controls(df)
    return [(Y[:, s], fin, None if C is None else target_control(Y[:, s], fin, C[:, s], Cin[:, s]))
            for s in range(P)]


def paired_seat_differences(base, variant, z: float = Z95) -> list[dict]:
    """The paired differences variant − base of each seat's win rate (over finished games), for
    two frames of the same games, plain and luck-adjusted as :func:`paired_guide_differences`
    adjusts a guide's (each run's own cross-fitted control of the seat); the adjusted figures
    are nan without luck columns."""
    if len(base) != len(variant) or len(base) == 0:
        raise ValueError("paired frames: the same games in each (same seed, first game and count)")
    if "game" in base.columns and "game" in variant.columns and not np.array_equal(
            base["game"].to_numpy(), variant["game"].to_numpy()):
        raise ValueError("paired frames: the games differ (game): play both with the same seed and games")
    out = []
    zero = np.zeros(len(base))
    for (ya, da, ca), (yb, db, cb) in zip(_seat_arrays(base), _seat_arrays(variant)):
        missing = ca is None or cb is None
        res = controlled_rate_difference(ya, da, zero if missing else ca, yb, db, zero if missing else cb, z=z)
        if missing:
            res.update(adjusted=float("nan"), adjusted_ci=[float("nan")] * 2, adjusted_se=float("nan"))
        out.append(res)
    return out


def controlled_rate_difference(ya, da, ctl_a, yb, db, ctl_b, ca: float = 1.0, cb: float = 1.0,
                               z: float = Z95) -> dict:
    """As :func:`adjusted_rate_difference`, the controls given: each run's own control by game
    (:func:`seat_controls`, already cross-fitted within its run), subtracted from the paired
    linearised terms with the ratios' own weights (``cb·c_b/mean(d_b) − ca·c_a/mean(d_a)``)."""
    ya, da, yb, db, ctl_a, ctl_b = (np.asarray(v, dtype=float) for v in (ya, da, yb, db, ctl_a, ctl_b))
    out, lin = _paired_plain(ya, da, yb, db, ca, cb, z)
    if lin is None:
        return out
    return _paired_adjusted(out, lin - (cb * ctl_b / db.mean() - ca * ctl_a / da.mean()), z)


def paired_guide_differences(base, variant, guides: tuple[str, ...] | None = None, z: float = Z95) -> dict:
    """The paired differences variant − base of each guide's win rate when dealt, and of the
    guide spread, for two frames of the same games (the same seed, first game and count: game
    ``i`` of each from one stream), plain and luck-adjusted (:func:`controlled_rate_difference`:
    each run's control of the guide's holder, :func:`seat_controls`).

    The guide spread of a run is max over guides of |win rate when dealt − 1/players|. Its
    difference is linearised through each run's guide of the largest gap (``spread_guides``:
    the base's and the variant's, from the plain rates) with that gap's sign ``s``:
    ``s_v·(rate_v(g_v) − 1/P) − s_b·(rate_b(g_b) − 1/P)``; the plain estimate is the difference
    of the two spreads (equal to that expression), the adjusted one subtracts the cross-fitted
    control variate of that expression's per-game terms. Sound where each run's largest gap is
    clear (``spread_margin``: in each run, the largest gap minus the second, in plain standard
    errors of the rate; the delta method of a maximum needs it well above 2, say).

    Returns ``{"guide": {name: controlled_rate_difference's dict}, "spread": its dict plus
    spread_guides, spread_margin}``; the adjusted figures are nan without luck columns."""
    n = len(base)
    if n != len(variant) or n == 0:
        raise ValueError("paired frames: the same games in each (same seed, first game and count)")
    for col in ("seed", "game"):
        if col in base.columns and col in variant.columns and not np.array_equal(
                base[col].to_numpy(), variant[col].to_numpy()):
            raise ValueError(f"paired frames: the games differ ({col}): play both with the same seed and games")
    P = int(base["players"].iloc[0])
    fair = 1.0 / P
    A = _guide_arrays(base, guides)
    B = _guide_arrays(variant, guides)
    zero = np.zeros(n)
    out: dict = {"guide": {}}
    gaps = {}
    for name in A:
        ya, da, Xa = A[name]
        yb, db, Xb = B[name]
        if da.sum() <= 0 or db.sum() <= 0:
            continue
        missing = Xa is None or Xb is None
        res = controlled_rate_difference(ya, da, zero if missing else Xa, yb, db, zero if missing else Xb, z=z)
        if missing:
            res.update(adjusted=float("nan"), adjusted_ci=[float("nan")] * 2, adjusted_se=float("nan"))
        out["guide"][name] = res
        gaps[name] = (ya.sum() / da.sum() - fair, plain_rate_se(ya, da), yb.sum() / db.sum() - fair,
                      plain_rate_se(yb, db))
    if not gaps:
        return out
    gb = max(gaps, key=lambda g: abs(gaps[g][0]))
    gv = max(gaps, key=lambda g: abs(gaps[g][2]))

    def margin(i, top):
        rest = sorted((abs(v[i]) for g, v in gaps.items() if g != top), reverse=True)
        return float((abs(gaps[top][i]) - rest[0]) / gaps[top][i + 1]) if rest else float("inf")

    sb = 1.0 if gaps[gb][0] >= 0 else -1.0
    sv = 1.0 if gaps[gv][2] >= 0 else -1.0
    ya, da, Xa = A[gb]
    yb, db, Xb = B[gv]
    missing = Xa is None or Xb is None
    res = controlled_rate_difference(ya, da, zero if missing else Xa, yb, db, zero if missing else Xb,
                                     ca=sb, cb=sv, z=z)
    shift = -(sv - sb) * fair  # s_v·(r_v − 1/P) − s_b·(r_b − 1/P) = s_v·r_v − s_b·r_b − (s_v − s_b)/P
    for key in ("plain", "adjusted"):
        res[key] += shift
        res[f"{key}_ci"] = [v + shift for v in res[f"{key}_ci"]]
    if missing:
        res.update(adjusted=float("nan"), adjusted_ci=[float("nan")] * 2, adjusted_se=float("nan"))
    res["spread_guides"] = [gb, gv]
    res["spread_margin"] = [margin(0, gb), margin(2, gv)]
    out["spread"] = res
    return out


def paired_variance_ratio(paired: dict) -> dict:
    """Plain variance ÷ adjusted variance of each guide's paired difference and of the spread
    difference, from :func:`paired_guide_differences`."""
    def ratio(d):
        a = d["adjusted_se"]
        return (d["plain_se"] / a) ** 2 if a > 0 else float("nan")

    out = {"guide": {g: ratio(d) for g, d in paired["guide"].items()}}
    if "spread" in paired:
        out["spread"] = ratio(paired["spread"])
    return out
