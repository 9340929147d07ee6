"""Balance metrics over per-game result frames (see ``heron_sim.simulation.results_frame``).

Each function computes a table (a DataFrame) from the per-game rows; the report draws them.
Rates carry 95 % Wilson intervals, means t intervals, and every table its sample size.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..animals import NAMES as ANIMALS
from .intervals import wilson
from .stats import (binom_test, eta_squared, holm, normal_sf, paired_difference, quantile_interval,
                    t_interval)


def seats(df: pd.DataFrame) -> int:
    return int(df["players"].iloc[0]) if len(df) else 0


def _guide_codes(df: pd.DataFrame, s: int) -> np.ndarray:
    col = df[f"guide_{s}"]
    return col.cat.codes.to_numpy() if hasattr(col, "cat") else np.array([ANIMALS.index(v) for v in col])


# ---------------------------------------------------------------- Ludii's standard metrics
def ludii_metrics(df: pd.DataFrame) -> dict:
    """Ludii's outcome metrics, under their names.

    - Balance: 1 - the largest difference between two seats' win rates (wins / games);
      1 is perfectly balanced.
    - AdvantageP1: win rate of the first seat (wins / games).
    - Completion: share of games that end with a winner (not stopped at the round limit).
    """
    n = len(df)
    P = seats(df)
    winner = df["winner"].to_numpy()
    rates = np.array([(winner == s).sum() / n for s in range(P)]) if n else np.zeros(0)
    balance = 1.0 - float(rates.max() - rates.min()) if rates.size else math.nan
    k1 = int((winner == 0).sum())
    kc = int(df["finished"].sum())
    a, alo, ahi = wilson(k1, n)
    c, clo, chi = wilson(kc, n)
    return {"Balance": balance, "AdvantageP1": a, "AdvantageP1_ci": (alo, ahi),
            "Completion": c, "Completion_ci": (clo, chi), "games": n}


def balance_of(winner: np.ndarray, players: int) -> float:
    """Ludii's Balance of a vector of winners (seat, -1 for none)."""
    n = len(winner)
    rates = np.array([(winner == s).sum() / n for s in range(players)])
    return 1.0 - float(rates.max() - rates.min())


# ---------------------------------------------------------------- length and pace
def length_table(df: pd.DataFrame) -> dict:
    """Game length in rounds over finished games: mean (t interval), median and p90 (order
    statistic intervals), and the number of games."""
    r = df.loc[df["finished"].to_numpy(bool), "rounds"].to_numpy(float)
    m, mlo, mhi = t_interval(r)
    med, medlo, medhi = quantile_interval(r, 0.5)
    p90, p90lo, p90hi = quantile_interval(r, 0.9)
    return {"games": int(r.size), "mean": m, "mean_low": mlo, "mean_high": mhi,
            "median": med, "median_low": medlo, "median_high": medhi,
            "p90": p90, "p90_low": p90lo, "p90_high": p90hi}


def rounds_distribution(df: pd.DataFrame) -> pd.Series:
    """Share of finished games ending in each round."""
    r = df.loc[df["finished"].to_numpy(bool), "rounds"]
    return r.value_counts(normalize=True).sort_index()


def per_turn_rates(df: pd.DataFrame) -> dict:
    """Advance, Pond and Anxiety per really-played turn (ratio estimates; the intervals
    come from a t interval of per-game ratios weighted by turns, i.e. a ratio estimator)."""
    P = seats(df)
    played = df["played_turns"].to_numpy(float)
    adv = sum(df[f"advance_{s}"].to_numpy(float) for s in range(P))
    out = {"turns": int(played.sum())}
    for name, num in (("advance", adv), ("pond", df["ponds"].to_numpy(float)),
                      ("anxiety", df["anxieties"].to_numpy(float))):
        out[name], out[f"{name}_low"], out[f"{name}_high"] = ratio_interval(num, played)
    return out


def ratio_interval(num, den) -> tuple[float, float, float]:
    """Ratio of sums sum(num)/sum(den) over games, with a delta-method 95 % interval."""
    num = np.asarray(num, float)
    den = np.asarray(den, float)
    n = num.size
    if n == 0 or den.sum() == 0:
        return math.nan, math.nan, math.nan
    r = num.sum() / den.sum()
    if n < 2:
        return float(r), math.nan, math.nan
    resid = num - r * den
    se = math.sqrt((resid**2).sum() / (n - 1) / n) / den.mean()
    return float(r), float(r - 1.959964 * se), float(r + 1.959964 * se)


def combo_distribution(df: pd.DataFrame) -> pd.DataFrame:
    """Share of scored turns whose largest set had each size, with Wilson intervals."""
    cols = sorted((c for c in df.columns if c.startswith("combo_")), key=lambda c: int(c[6:]))
    counts = np.array([df[c].sum() for c in cols], dtype=float)
    total = counts.sum()
    rate, lo, hi = wilson(counts, total)
    return pd.DataFrame({"size": [int(c[6:]) for c in cols], "turns": counts.astype(int),
                         "share": rate, "low": lo, "high": hi})


# ---------------------------------------------------------------- win rates
def share_test(shares, fair: float) -> dict:
    """Win share of one seat (or strategy) over ``n`` games, against a fair share.

    ``shares``: per game, the seat's share of the win in [0, 1] (1 won alone, 1/k one of k
    co-winners, 0 lost). Returns ``wins`` (sum of shares), ``games`` (n), ``win_rate`` (mean
    share), a 95 % Wilson interval (``low``, ``high``) and a two-sided ``p`` against ``fair``:

    - every share 0 or 1 (no shared win): the Wilson interval and the exact binomial test;
    - some fractional share: the Wilson interval at the fractional count and the score test
      z = (mean - fair) / sqrt(fair (1 - fair) / n). Both are the binomial score statistics with
      the Bernoulli variance; a variable in [0, 1] with mean m has variance at most m (1 - m),
      so with fractions they are (slightly) conservative, never anti-conservative.
    """
    x = np.asarray(shares, dtype=float)
    n = int(x.size)
    k = float(x.sum())
    out = {"games": n, "wins": k}
    if n == 0:
        return out | {"win_rate": math.nan, "low": math.nan, "high": math.nan, "p": math.nan}
    rate, lo, hi = wilson(k, n)
    whole = bool(np.all((x == 0) | (x == 1)))
    if whole:
        p = binom_test(int(round(k)), n, fair)
    elif 0 < fair < 1:
        z = (k / n - fair) / math.sqrt(fair * (1 - fair) / n)
        p = min(1.0, 2 * normal_sf(abs(z)))
    else:
        p = math.nan
    return out | {"win_rate": rate, "low": lo, "high": hi, "p": p}


def seat_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win rate of each seat over finished games (an unfinished game has no winner and would
    pull every seat below 1/players), 95 % Wilson interval, exact binomial test against
    1/players, Holm-corrected over the seats. A Héron game always has one winner when it ends."""
    fin = df[df["finished"].to_numpy(bool)]
    winner = fin["winner"].to_numpy()
    rows = []
    P = seats(df)
    for s in range(P):
        t = share_test((winner == s).astype(float), 1 / P)
        rows.append({"seat": s, "games": t["games"], "wins": int(round(t["wins"])), "win_rate": t["win_rate"],
                     "low": t["low"], "high": t["high"], "fair": 1 / P, "p": t["p"]})
    t = pd.DataFrame(rows)
    if len(t):
        t["p_holm"] = holm(t["p"])
    return t


def guide_table(df: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """Win rate of each guide (dealt at the start) per game, against the fair 1/7.

    ``win_rate`` = games won by the player dealt that guide / all games (fair share 1/7 when
    guides are dealt uniformly at random); ``win_rate_when_dealt`` = wins / games where it was
    dealt (fair 1/players). Exact binomial p-values, Holm-corrected across the guides;
    ``flag`` marks a guide "strong"/"weak" on the when-dealt scale only when its test survives
    Holm at ``alpha`` and its interval lies beyond ±1 point (``analysis.judge.guide_flag``). Over finished
    games: an unfinished game has no winner and would pull every guide below its fair share.
    """
    if "finished" in df:
        df = df[df["finished"].to_numpy(bool)].reset_index(drop=True)
    n = len(df)
    P = seats(df)
    winner = df["winner"].to_numpy()
    rows = []
    for a, name in enumerate(ANIMALS):
        dealt = np.zeros(n, bool)
        won = np.zeros(n, bool)
        for s in range(P):
            has = _guide_codes(df, s) == a
            dealt |= has
            won |= has & (winner == s)
        k, d = int(won.sum()), int(dealt.sum())
        rate, lo, hi = wilson(k, n)
        cr, clo, chi = wilson(k, d)
        rows.append({"guide": name, "games": n, "dealt": d, "wins": k, "win_rate": rate,
                     "low": lo, "high": hi, "fair": 1 / len(ANIMALS),
                     "win_rate_when_dealt": cr, "when_dealt_low": clo, "when_dealt_high": chi,
                     "fair_when_dealt": 1 / P,
                     "p": binom_test(k, n, 1 / len(ANIMALS)) if n else math.nan,
                     "p_when_dealt": binom_test(k, d, 1 / P) if d else math.nan})
    t = pd.DataFrame(rows)
    t["p_holm"] = holm(t["p"].fillna(1.0))
    t["p_when_dealt_holm"] = holm(t["p_when_dealt"].fillna(1.0))
    # one scale (win rate when dealt, fair 1/players) and one margin (±1 point) for every flag
    from .judge import guide_flag

    t["flag"] = [guide_flag(r["win_rate_when_dealt"], r["when_dealt_low"], r["when_dealt_high"], 1 / P,
                            r["p_when_dealt_holm"], alpha=alpha) for _, r in t.iterrows()]
    return t


def guide_win_indicator(df: pd.DataFrame, guide: int) -> np.ndarray:
    """Per game: 1 if the player dealt ``guide`` won, else 0 (NaN if not dealt)."""
    P = seats(df)
    winner = df["winner"].to_numpy()
    dealt = np.zeros(len(df), bool)
    won = np.zeros(len(df), bool)
    for s in range(P):
        has = _guide_codes(df, s) == guide
        dealt |= has
        won |= has & (winner == s)
    return np.where(dealt, won.astype(float), np.nan)


def doubling_share(df: pd.DataFrame) -> pd.DataFrame:
    """Share of advance that came from Guide Power doubling, overall and by starting guide
    (ratio over player-games, delta-method 95 % interval)."""
    P = seats(df)
    codes = np.concatenate([_guide_codes(df, s) for s in range(P)])
    adv = np.concatenate([df[f"advance_{s}"].to_numpy(float) for s in range(P)])
    dbl = np.concatenate([df[f"doubled_{s}"].to_numpy(float) for s in range(P)])
    rows = []
    s, lo, hi = ratio_interval(dbl, adv)
    rows.append({"guide": "all", "share": s, "low": lo, "high": hi, "players": int(adv.size)})
    for a, name in enumerate(ANIMALS):
        sel = codes == a
        s, lo, hi = ratio_interval(dbl[sel], adv[sel])
        rows.append({"guide": name, "share": s, "low": lo, "high": hi, "players": int(sel.sum())})
    return pd.DataFrame(rows)


def strategy_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win rate of each strategy per seat it held in finished games (wins / seats played; an
    unfinished game has no winner), with the fair share of a seat (1 / players), advance and
    Anxiety per turn (over every game)."""
    P = seats(df)
    winner = df["winner"].to_numpy()
    fin = df["finished"].to_numpy(bool)
    acc: dict[str, dict] = {}
    for s in range(P):
        for name, sub in df.groupby(f"strategy_{s}", observed=True):
            idx = sub.index.to_numpy()
            a = acc.setdefault(name, {"seats": 0, "wins": 0, "adv": [], "turns": [], "anx": []})
            a["seats"] += int(fin[idx].sum())
            a["wins"] += int((winner[idx] == s).sum())
            a["adv"].append(sub[f"advance_{s}"].to_numpy(float))
            a["turns"].append(sub[f"turns_{s}"].to_numpy(float))
            a["anx"].append(sub[f"anxiety_{s}"].to_numpy(float))
    rows = []
    for name, a in acc.items():
        rate, lo, hi = wilson(a["wins"], a["seats"])
        adv, turns, anx = (np.concatenate(a[k]) for k in ("adv", "turns", "anx"))
        ar, alo, ahi = ratio_interval(adv, turns)
        xr, xlo, xhi = ratio_interval(anx, turns)
        rows.append({"strategy": name, "seats": a["seats"], "wins": a["wins"], "win_rate": rate,
                     "low": lo, "high": hi, "fair": 1 / P, "advance_per_turn": ar,
                     "advance_low": alo, "advance_high": ahi, "anxiety_per_turn": xr,
                     "anxiety_low": xlo, "anxiety_high": xhi})
    return pd.DataFrame(rows)


def player_rows(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, seat): seat, starting guide, strategy, won (0/1)."""
    P = seats(df)
    winner = df["winner"].to_numpy()
    parts = []
    for s in range(P):
        parts.append(pd.DataFrame({
            "game": df["game"].to_numpy(), "seat": s,
            "guide": np.asarray(df[f"guide_{s}"].astype(str)),
            "strategy": np.asarray(df[f"strategy_{s}"].astype(str)),
            "won": (winner == s).astype(float),
        }))
    return pd.concat(parts, ignore_index=True)


def variance_explained(df: pd.DataFrame, n_boot: int = 200, seed: int = 0) -> pd.DataFrame:
    """Share of the variance of the per-player outcome (won 0/1) explained by seat, starting
    guide and strategy (eta squared of each factor alone; the rest is the dice), with a 95 %
    bootstrap interval that resamples whole games."""
    rows = player_rows(df)
    n = len(df)
    P = seats(df)
    won = rows["won"].to_numpy().reshape(P, n)  # [seat, game]
    out = []
    rng = np.random.default_rng(seed)
    boots = [rng.integers(0, n, n) for _ in range(n_boot)] if n else []
    for factor in ("seat", "guide", "strategy"):
        codes, levels = pd.factorize(rows[factor])
        codes = codes.reshape(P, n)
        est = _eta2(won, codes, len(levels))
        bs = np.array([_eta2(won[:, b], codes[:, b], len(levels)) for b in boots]) if n else np.zeros(0)
        lo, hi = (np.quantile(bs, [0.025, 0.975]) if bs.size else (math.nan, math.nan))
        out.append({"factor": factor, "levels": len(levels), "eta_squared": est, "low": float(lo), "high": float(hi),
                    "player_games": int(won.size)})
    return pd.DataFrame(out)


def _eta2(y: np.ndarray, codes: np.ndarray, k: int) -> float:
    y = y.ravel().astype(float)
    c = codes.ravel()
    total = ((y - y.mean()) ** 2).sum()
    if total == 0:
        return 0.0
    cnt = np.bincount(c, minlength=k).astype(float)
    sums = np.bincount(c, weights=y, minlength=k)
    ok = cnt > 0
    means = sums[ok] / cnt[ok]
    return float((cnt[ok] * (means - y.mean()) ** 2).sum() / total)


# ---------------------------------------------------------------- drama and coverage
def drama(df: pd.DataFrame) -> dict:
    """Race drama: lead changes per game (t interval); how often the last player at mid-game
    wins, and how often the mid-game leader loses (Wilson; games with a unique leader/last)."""
    lc, lclo, lchi = t_interval(df["lead_changes"].to_numpy(float))
    w = df["winner"].to_numpy()
    ml = df["mid_leader"].to_numpy()
    mlast = df["mid_last"].to_numpy()
    okl, oklast = ml >= 0, mlast >= 0
    lose = wilson(int((okl & (w != ml)).sum()), int(okl.sum()))
    comeback = wilson(int((oklast & (w == mlast)).sum()), int(oklast.sum()))
    return {"lead_changes": lc, "lead_changes_low": lclo, "lead_changes_high": lchi,
            "leader_loses": lose[0], "leader_loses_low": lose[1], "leader_loses_high": lose[2],
            "leader_games": int(okl.sum()),
            "last_wins": comeback[0], "last_wins_low": comeback[1], "last_wins_high": comeback[2],
            "last_games": int(oklast.sum()), "games": len(df)}


def rule_coverage(df: pd.DataFrame) -> pd.DataFrame:
    """How often each special square and each guide power fires: mean per game (t interval)
    and share of games where it fires at least once (Wilson). ``never`` flags a rule that
    never fired in the whole run."""
    n = len(df)
    rows = []
    for col in df.columns:
        if col.startswith("square_"):
            _, sq, effect = col.split("_", 2)
            kind, label = "square", f"{sq} {effect}"
        elif col.startswith("power_"):
            kind, label = "power", col[6:]
        else:
            continue
        v = df[col].to_numpy(float)
        m, lo, hi = t_interval(v)
        k = int((v > 0).sum())
        r, rlo, rhi = wilson(k, n)
        rows.append({"rule": label, "kind": kind, "per_game": m, "low": lo, "high": hi,
                     "games_with": r, "games_with_low": rlo, "games_with_high": rhi,
                     "games": n, "never": bool(v.sum() == 0)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- per-game vectors (compare)
def game_metrics(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per-game values of every metric that is a mean over games (NaN where undefined), so
    that two runs on the same seeds can be compared pair by pair."""
    P = seats(df)
    w = df["winner"].to_numpy()
    fin = df["finished"].to_numpy(bool)
    played = df["played_turns"].to_numpy(float)
    adv = sum(df[f"advance_{s}"].to_numpy(float) for s in range(P))
    out = {
        "rounds (finished games)": np.where(fin, df["rounds"].to_numpy(float), np.nan),
        "Completion": fin.astype(float),
        "AdvantageP1 (seat 1 wins)": (w == 0).astype(float),
        "advance per played turn": np.where(played > 0, adv / np.maximum(played, 1), np.nan),
        "Ponds per game": df["ponds"].to_numpy(float),
        "push-back per game": df["pushback"].to_numpy(float),
        "Anxieties per game": df["anxieties"].to_numpy(float),
        "Lion rescues per game": df["lion_rescues"].to_numpy(float),
        "lead changes per game": df["lead_changes"].to_numpy(float),
        "mid-game leader loses": np.where(df["mid_leader"] >= 0, (w != df["mid_leader"]).astype(float), np.nan),
        "mid-game last wins": np.where(df["mid_last"] >= 0, (w == df["mid_last"]).astype(float), np.nan),
    }
    for s in range(1, P):  # seats numbered from 1 (seat 1 plays first), as in every text of the report
        out[f"seat {s + 1} wins"] = (w == s).astype(float)
    for a, name in enumerate(ANIMALS):
        out[f"guide {name} wins"] = np.nan_to_num(guide_win_indicator(df, a), nan=0.0)
    for col in df.columns:
        if col.startswith("square_") or col.startswith("power_"):
            out[f"{col} per game"] = df[col].to_numpy(float)
    return out


# ---------------------------------------------------------------- one-shot powers, one at a time
def power_ablation(on: pd.DataFrame, offs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Value of each guide's one-shot power by a clean per-power ablation.

    ``on``: games under the default rules; ``offs[g]``: the same games (seeds, indices and
    seatings; checked) played with only guide ``g``'s power disabled (``disabled_powers = [g]``). For each ``g``, the paired
    difference (on - off) of the win indicator of the player dealt ``g`` at the start, over the
    games both frames share in which ``g`` was dealt (paired t interval, two-sided p), Holm-
    corrected over the guides ablated. ``uses``/``uses_off``: uses of ``g``'s power per game.
    """
    rows = []
    for g, off in offs.items():
        a = ANIMALS.index(g)
        x_on, x_off = on, off
        same = len(on) == len(off) and all(
            np.array_equal(on[c].to_numpy(), off[c].to_numpy()) for c in ("game", "strategies") if c in on and c in off)
        if not same:
            raise ValueError(f"power_ablation: the {g} ablation does not play the same games (indices and seatings) "
                             "as the default run")
        n = len(on)
        d = paired_difference(guide_win_indicator(x_off, a), guide_win_indicator(x_on, a))
        rows.append({"guide": g, "off": d["a"], "on": d["b"], "diff": d["diff"], "low": d["low"], "high": d["high"],
                     "p": d["p"], "n": d["n"], "games": n,
                     "uses": float(x_on[f"power_{g}"].mean()) if f"power_{g}" in x_on else math.nan,
                     "uses_off": float(x_off[f"power_{g}"].mean()) if f"power_{g}" in x_off else math.nan})
    t = pd.DataFrame(rows, columns=["guide", "off", "on", "diff", "low", "high", "p", "n", "games", "uses", "uses_off"])
    t["p_holm"] = holm(t["p"].fillna(1.0)) if len(t) else []
    return t


# ---------------------------------------------------------------- how often a Pond decides a game
def pond_decides(df: pd.DataFrame) -> dict:
    """How often a Pond costs the leader the lead, from ``pond_lead_losses`` (Ponds after which
    the seat strictly ahead of all others before the Pond no longer is).

    - ``per_pond``: lead-losing Ponds / all Ponds (Wilson over Ponds);
    - ``per_game``: games with at least one lead-losing Pond / all games (Wilson);
    - ``per_game_with_pond``: the same among games with at least one Pond (Wilson);
    - ``per_game_mean``: lead-losing Ponds per game (t interval).
    """
    ponds = df["ponds"].to_numpy(np.int64)
    losses = df["pond_lead_losses"].to_numpy(np.int64)
    n = len(df)
    k_p, n_p = int(losses.sum()), int(ponds.sum())
    k_g = int((losses > 0).sum())
    n_wp = int((ponds > 0).sum())
    out = {"games": n, "ponds": n_p, "lead_losses": k_p, "games_with_loss": k_g, "games_with_pond": n_wp}
    for name, (k, m) in {"per_pond": (k_p, n_p), "per_game": (k_g, n), "per_game_with_pond": (k_g, n_wp)}.items():
        r, lo, hi = wilson(k, m) if m else (math.nan, math.nan, math.nan)
        out[name], out[f"{name}_low"], out[f"{name}_high"] = r, lo, hi
    out["per_game_mean"], out["per_game_mean_low"], out["per_game_mean_high"] = t_interval(losses.astype(float))
    return out


# ---------------------------------------------------------------- lighter games (heron_sim.games)
# Their frames start with seed, game, players, seats, strategies, winner, length, finished
# (``heron_sim.games.base.CORE_COLUMNS``); ``seats`` is the strategy of every seat, comma-joined.
def light_win_shares(df: pd.DataFrame) -> np.ndarray:
    """Per game and seat, the seat's share of the win: float64[n, players].

    A game's co-winners come from its ``winners`` column (bit mask of the seats tied for the
    win after every tie-break; 0: no winner) when the game writes one, else from ``winner``
    (seat, -1: none). Each of k co-winners gets 1/k; an unfinished game gives 0 to every seat.
    """
    n, P = len(df), seats(df)
    fin = df["finished"].to_numpy(bool) if n else np.zeros(0, bool)
    if "winners" in df:
        mask = df["winners"].to_numpy(np.int64)
        won = np.stack([(mask >> s) & 1 for s in range(P)], axis=1).astype(float) if n else np.zeros((0, P))
    else:
        w = df["winner"].to_numpy()
        won = np.stack([w == s for s in range(P)], axis=1).astype(float) if n else np.zeros((0, P))
    won[~fin] = 0.0
    k = won.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(k > 0, won / np.where(k > 0, k, 1), 0.0)


def light_seat_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win share of each seat over the decided games (finished with at least one winner).

    A shared win counts as a fraction: each of k co-winners gets 1/k of the game (see
    :func:`light_win_shares`), so the shares of a game sum to 1 and the fair share of a seat
    is exactly 1/players under seat symmetry, shared wins or not. (Counting only single wins
    over every game, as before, made the fair share 1/players wrong by the rate of shared
    wins.) 95 % Wilson interval and a test against 1/players per seat (:func:`share_test`:
    exact binomial without shared wins, the conservative score test with them),
    Holm-corrected over the seats. ``shared``: games the seat shared with others.
    """
    sh = light_win_shares(df)
    dec = sh.sum(axis=1) > 0.5 if len(df) else np.zeros(0, bool)
    sh = sh[dec]
    P = seats(df)
    rows = []
    for s in range(P):
        t = share_test(sh[:, s], 1 / P)
        rows.append({"seat": s, "games": t["games"], "wins": t["wins"],
                     "shared": int(((sh[:, s] > 0) & (sh[:, s] < 1)).sum()), "win_rate": t["win_rate"],
                     "low": t["low"], "high": t["high"], "fair": 1 / P if P else math.nan, "p": t["p"]})
    t = pd.DataFrame(rows, columns=["seat", "games", "wins", "shared", "win_rate", "low", "high", "fair", "p"])
    if len(t):
        t["p_holm"] = holm(t["p"].fillna(1.0))
    return t


def light_length_table(df: pd.DataFrame) -> dict:
    """Length of finished games in the game's own unit: mean (t interval), median, p10, p90,
    min, max; the number of games and the share finished (Wilson)."""
    fin = df["finished"].to_numpy(bool)
    x = df.loc[fin, "length"].to_numpy(float)
    m, mlo, mhi = t_interval(x)
    med, medlo, medhi = quantile_interval(x, 0.5)
    q = np.quantile(x, [0.1, 0.9]) if x.size else [math.nan, math.nan]
    c, clo, chi = wilson(int(fin.sum()), len(df))
    return {"games": len(df), "finished": int(fin.sum()), "finished_rate": c, "finished_low": clo,
            "finished_high": chi, "mean": m, "mean_low": mlo, "mean_high": mhi, "median": med,
            "median_low": medlo, "median_high": medhi, "p10": float(q[0]), "p90": float(q[1]),
            "min": float(x.min()) if x.size else math.nan, "max": float(x.max()) if x.size else math.nan}


def light_length_distribution(df: pd.DataFrame) -> pd.Series:
    """Share of finished games of each length (index: length, in the game's unit)."""
    x = df.loc[df["finished"].to_numpy(bool), "length"]
    return x.value_counts(normalize=True).sort_index()


def light_strategy_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win share of each strategy per seat it played in decided games, overall and seat by
    seat: rows ``seat = "all"`` then one per seat. A shared win counts 1/k to each of its k
    co-winners (:func:`light_win_shares`), so ``fair`` = 1/players is the share of a seat under
    equal strength; 95 % Wilson interval and ``p`` against fair (:func:`share_test`); Holm over
    the ``all`` rows in ``p_holm`` (NaN on the seat rows)."""
    sh = light_win_shares(df)
    dec = sh.sum(axis=1) > 0.5 if len(df) else np.zeros(0, bool)
    P = seats(df)
    seats_col = df["seats"].astype(str).to_numpy()[dec]
    sh = sh[dec]
    from ..strategies import split_names

    parts: dict[tuple, list] = {}
    for seating in sorted(set(seats_col)):
        sel = seats_col == seating
        for s, name in enumerate(split_names(seating)):
            for key in ((name, "all"), (name, s)):
                parts.setdefault(key, []).append(sh[sel, s])
    rows = []
    for name in sorted({k[0] for k in parts}):
        for seat in ["all"] + list(range(P)):
            if (name, seat) not in parts:
                continue
            x = np.concatenate(parts[(name, seat)])
            t = share_test(x, 1 / P)
            rows.append({"strategy": name, "seat": seat, "seat_games": t["games"], "wins": t["wins"],
                         "win_rate": t["win_rate"], "low": t["low"], "high": t["high"],
                         "fair": 1 / P if P else math.nan, "p": t["p"]})
    t = pd.DataFrame(rows, columns=["strategy", "seat", "seat_games", "wins", "win_rate", "low", "high", "fair", "p"])
    t["p_holm"] = np.nan
    alls = t["seat"].astype(str) == "all"
    if alls.any():
        t.loc[alls, "p_holm"] = holm(t.loc[alls, "p"].fillna(1.0))
    return t
