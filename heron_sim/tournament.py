"""Round-robin tournaments between strategies: head-to-head win rates and a rating.

    from heron_sim.rules import Rules
    from heron_sim.tournament import tournament
    res = tournament(Rules.build(mode="8d8"), ["greedy", "expert", "racer"], games=2000, seed=1)
    print(res.to_text())

Design. Every pair (A, B) plays two-player games. Each game index i is played twice, once with
A in seat 0 and once with B in seat 0, from the same random stream (seed, i): the guides are
dealt by seat from that stream, so A and B each get both seats *and* both guide hands of every
deal, and seat and guide advantages cancel exactly in the pair's totals (common random numbers
also sharpen the comparison). Unfinished games (round cap) count for neither side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from .analysis.intervals import wilson
from .errors import HeronSimError
from .interrupt import stop_requested
from .rules import Rules
from .simulation import simulate
from .strategies import parse_strategy


@dataclass
class TournamentResult:
    """What a tournament measured.

    strategies : the strategy specs, in the order given.
    games : games per ordered seating of each pair (each pair plays 2 * games).
    wins : int64[k, k], wins[i, j] = games strategy i won against strategy j.
    win_rate, low, high : float64[k, k] DataFrames, i's win rate against j and its 95 % Wilson
        interval (diagonal NaN); draws (unfinished games) are left out.
    ranking : one row per strategy, best first: games, wins, win_rate (all its games) with its
        interval, rating (Bradley–Terry on the pair results, Elo scale, mean 0), advance per
        really-played turn, Anxiety rate per really-played turn.
    """

    strategies: list[str]
    games: int
    seed: int
    mode: str
    wins: np.ndarray
    win_rate: pd.DataFrame
    low: pd.DataFrame
    high: pd.DataFrame
    ranking: pd.DataFrame
    requested: int = 0     # games asked for (all pairs, both seatings)
    played: int = 0        # games really played (fewer if interrupted)
    interrupted: bool = False

    def matrix_text(self) -> str:
        cells = {}
        for a in self.strategies:
            cells[a] = [
                "—" if a == b else
                f"{100 * self.win_rate.loc[a, b]:.1f} [{100 * self.low.loc[a, b]:.1f}, {100 * self.high.loc[a, b]:.1f}]"
                for b in self.strategies
            ]
        return pd.DataFrame(cells, index=self.strategies).T.rename_axis("row vs column").to_string()

    def to_text(self) -> str:
        rk = self.ranking.copy()
        for c in ("win_rate", "low", "high", "anxiety_rate"):
            rk[c] = (100 * rk[c]).round(1)
        rk["rating"] = rk["rating"].round(0).astype(int)
        rk["advance_per_turn"] = rk["advance_per_turn"].round(3)
        cut = (f"INTERRUPTED: {self.played:,} of {self.requested:,} games played; the tables hold "
               "only those (the last pair may lack its mirrored seating)\n\n" if self.interrupted else "")
        return (f"{cut}Tournament, {self.mode}, two-player games, {self.games:,} per seating of each pair "
                f"(seats and guides mirrored), seed {self.seed}\n\n"
                f"Head-to-head win rate of the row against the column, % [95 % Wilson interval]:\n"
                f"{self.matrix_text()}\n\nRanking (rating: Bradley–Terry, Elo scale):\n"
                f"{rk.to_string(index=False)}\n")

    def to_dict(self) -> dict:
        return {
            "mode": self.mode, "games": self.games, "seed": self.seed,
            "strategies": self.strategies,
            "wins": self.wins.tolist(),
            "win_rate": {a: {b: _nan_none(self.win_rate.loc[a, b]) for b in self.strategies} for a in self.strategies},
            "low": {a: {b: _nan_none(self.low.loc[a, b]) for b in self.strategies} for a in self.strategies},
            "high": {a: {b: _nan_none(self.high.loc[a, b]) for b in self.strategies} for a in self.strategies},
            "ranking": self.ranking.to_dict(orient="records"),
            "requested": self.requested, "played": self.played, "interrupted": self.interrupted,
        }


def _nan_none(x):
    x = float(x)
    return None if math.isnan(x) else x


def bradley_terry(wins: np.ndarray, iters: int = 2000, tol: float = 1e-12) -> np.ndarray:
    """Bradley–Terry strengths by the MM algorithm (Hunter 2004) on ``wins[i, j]``; returns
    Elo-scale ratings ``400 log10(p_i)`` with mean 0. A pseudo-count of 0.5 win each way keeps
    the fit finite when a strategy wins (or loses) every game."""
    w = wins.astype(float) + 0.5 * (1 - np.eye(len(wins)))
    n = w + w.T
    p = np.ones(len(w))
    for _ in range(iters):
        denom = (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = w.sum(axis=1) / denom
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    r = 400 * np.log10(p)
    return r - r.mean()


def tournament(rules: Rules, strategies: list[str], games: int, seed: int = 1, *,
               threads: int | None = None, progress=None) -> TournamentResult:
    """Play every pair of ``strategies`` head to head (two-player games of ``rules``).

    ``games`` games per seating: each pair plays ``2 * games`` games (see the module doc).
    """
    strategies = [s.strip() for s in strategies if s.strip()]
    if len(strategies) < 2:
        raise HeronSimError("--strategies: give at least two strategies (comma list)")
    if len(set(strategies)) != len(strategies):
        raise HeronSimError("--strategies: a strategy is listed twice")
    for s in strategies:
        if parse_strategy(s)[0] == "scripted":
            raise HeronSimError("--strategies: 'scripted' cannot play a tournament")
    if games < 1:
        raise HeronSimError(f"--games: {games}; allowed: >= 1")
    r2 = rules.replace(players=2)
    k = len(strategies)
    wins = np.zeros((k, k), dtype=np.int64)
    adv = np.zeros(k)
    turns = np.zeros(k)
    anx = np.zeros(k)
    pairs = [(a, b) for i, j in combinations(range(k), 2) for a, b in ((i, j), (j, i))]
    requested, played, interrupted = games * len(pairs), 0, False
    for first, second in pairs:
        if stop_requested():
            interrupted = True
            break
        df = simulate(r2, games, seed, [strategies[first], strategies[second]], threads=threads)
        played += len(df)
        interrupted = interrupted or bool(df.attrs.get("interrupted"))
        wins[first, second] += int((df["winner"] == 0).sum())
        wins[second, first] += int((df["winner"] == 1).sum())
        for seat, who in ((0, first), (1, second)):
            adv[who] += df[f"advance_{seat}"].sum()
            turns[who] += df[f"turns_{seat}"].sum()
            anx[who] += df[f"anxiety_{seat}"].sum()
        if progress is not None:
            progress(len(df))
        if interrupted:
            break
    decided = wins + wins.T
    rate, lo, hi = wilson(wins, decided)
    for m in (rate, lo, hi):
        np.fill_diagonal(m, np.nan)
    frame = lambda m: pd.DataFrame(m, index=strategies, columns=strategies)  # noqa: E731
    total_w = wins.sum(axis=1)
    total_n = decided.sum(axis=1)
    wr, wlo, whi = wilson(total_w, total_n)
    ranking = pd.DataFrame({
        "strategy": strategies,
        "games": total_n,
        "wins": total_w,
        "win_rate": wr, "low": wlo, "high": whi,
        "rating": bradley_terry(wins),
        "advance_per_turn": adv / np.maximum(turns, 1),
        "anxiety_rate": anx / np.maximum(turns, 1),
    }).sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    return TournamentResult(strategies, games, seed, rules.mode, wins, frame(rate), frame(lo),
                            frame(hi), ranking, requested, played, interrupted)
