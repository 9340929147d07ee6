"""Luck and skill: rungs of the skill ladder against each other on the same games.

Two rungs ``a`` and ``b`` meet at a table of ``players`` seats, each holding half of them
(:func:`mirrored_seatings`: ``a, b, a, b, ...`` and ``b, a, b, a, ...`` and, for an odd count,
each of their rotations), and every seating plays the *same* games (the streams (seed, game)):
the guides are dealt by seat from the game's stream, so both rungs get every seat and every
hand of every deal. A game index is therefore the unit of the sample: its wins by ``a`` seats
and by ``b`` seats over the seatings (:func:`side_wins`), one row of a matrix ``X`` whose columns
are the pairings. A share is ``sum(b wins) / sum(decided)``; its interval, the Bradley–Terry
ratings' intervals and every difference between rule sets come from one bootstrap over game
indices (:func:`replicate_sums`: Poisson(1) weights per game index, the same for every column,
so the pairings' correlation through the shared dice, and the pairing of a rule variant with the
rulings game by game, are kept in every replicate).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: bootstrap replicates of the skill intervals
BOOT_B = 1000


def mirrored_seatings(a: str, b: str, players: int) -> list[list[str]]:
    """The seatings of a meeting of ``a`` and ``b`` at ``players`` seats: the alternation
    ``a, b, a, ...`` and its mirror ``b, a, b, ...`` and every rotation of them, each once (two
    seatings at an even count, ``2 * players`` at an odd one), so that each rung holds every seat
    equally often and, over all of them, half of the seats.

    >>> mirrored_seatings("novice", "expert", 2)
    [['novice', 'expert'], ['expert', 'novice']]
    >>> mirrored_seatings("x", "y", 3)[:3]
    [['x', 'y', 'x'], ['y', 'x', 'x'], ['x', 'x', 'y']]
    """
    out: list[list[str]] = []
    for first, second in ((a, b), (b, a)):
        base = [first if s % 2 == 0 else second for s in range(players)]
        for r in range(players):
            seat = [base[(s + r) % players] for s in range(players)]
            if seat not in out:
                out.append(seat)
    return out


def side_wins(frames: list[pd.DataFrame], a: str, b: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game index, the games won by an ``a`` seat and by a ``b`` seat over the seatings
    ``frames`` (one game frame per seating, the same game indices in each; unfinished games count
    for neither). Returns ``(game, a_wins, b_wins)``, int64 arrays sorted by game index."""
    games = None
    aw = bw = None
    for df in frames:
        d = df.sort_values("game", kind="stable")
        g = d["game"].to_numpy(np.int64)
        if games is None:
            games, aw, bw = g, np.zeros(len(g), np.int64), np.zeros(len(g), np.int64)
        elif len(g) != len(games) or not (g == games).all():
            raise ValueError("skill: the seatings of a pairing did not play the same games")
        ws = d["winner_strategy"].astype(str).to_numpy()
        aw += ws == a
        bw += ws == b
    return games, aw, bw


def replicate_sums(X: np.ndarray, B: int = BOOT_B, seed: int = 0, chunk: int = 4096) -> np.ndarray:
    """Bootstrap replicate column sums of ``X`` (rows: game indices): ``W @ X`` with one
    Poisson(1) weight per game index and replicate (float64[B, columns])."""
    X = np.asarray(X, dtype=np.float32)
    rng = np.random.default_rng(seed)
    out = np.zeros((B, X.shape[1]))
    for lo in range(0, X.shape[0], chunk):
        hi = min(X.shape[0], lo + chunk)
        W = rng.poisson(1.0, size=(B, hi - lo)).astype(np.float32)
        out += W @ X[lo:hi]
    return out


def percentile(reps: np.ndarray, conf: float = 0.95) -> tuple[float, float]:
    """The percentile interval of replicate values (NaN when fewer than 10 are finite)."""
    r = np.asarray(reps, float)
    r = r[np.isfinite(r)]
    if r.size < 10:
        return math.nan, math.nan
    lo, hi = np.quantile(r, [(1 - conf) / 2, (1 + conf) / 2])
    return float(lo), float(hi)


def share(k, n):
    """``k / n`` (NaN where ``n`` is 0), on scalars or arrays."""
    k, n = np.asarray(k, float), np.asarray(n, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, k / np.where(n > 0, n, 1), np.nan)


def bradley_terry_many(wins: np.ndarray, iters: int = 5000, tol: float = 1e-10) -> np.ndarray:
    """Bradley–Terry ratings (Elo scale, mean 0) of ``wins[..., i, j]`` (games ``i`` won against
    ``j``), over any leading axes (bootstrap replicates): the MM algorithm (Hunter 2004) with a
    pseudo-count of 0.5 win each way, as :func:`heron_sim.tournament.bradley_terry` (the same
    ratings on one matrix, tested)."""
    wins = np.asarray(wins, float)
    k = wins.shape[-1]
    w = wins + 0.5 * (1 - np.eye(k))
    n = w + np.swapaxes(w, -1, -2)
    total = w.sum(axis=-1)
    p = np.ones(wins.shape[:-1])
    for _ in range(iters):
        denom = (n / (p[..., :, None] + p[..., None, :])).sum(axis=-1)
        new = total / denom
        new /= np.exp(np.mean(np.log(new), axis=-1, keepdims=True))
        done = np.max(np.abs(new - p)) < tol
        p = new
        if done:
            break
    r = 400 * np.log10(p)
    return r - r.mean(axis=-1, keepdims=True)


def wins_matrix(sums: np.ndarray, pairs: list[tuple[int, int]], k: int, cols: list[tuple[int, int]]) -> np.ndarray:
    """The wins matrices ``[..., k, k]`` of the pairings from column sums ``sums[..., columns]``:
    pairing ``pairs[q] = (i, j)`` has its ``i`` wins in column ``cols[q][0]`` and its ``j`` wins in
    ``cols[q][1]``."""
    sums = np.asarray(sums, float)
    out = np.zeros(sums.shape[:-1] + (k, k))
    for (i, j), (ci, cj) in zip(pairs, cols):
        out[..., i, j] = sums[..., ci]
        out[..., j, i] = sums[..., cj]
    return out
