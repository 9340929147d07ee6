"""Paired figures of a base and a variant played on the same games, updated as games stream in.

Each game is a row of per-game columns: the lab's (heron_sim.lab.metrics.COLUMNS: wins by seat
and guide, rounds, dead turns, Ponds, Anxieties, push-back, lead changes ...) and the uses of
each guide's power. Every figure is a function of the column sums (a rate is wins / games
dealt, a length rounds / finished games), so the intervals come from the lab's paired Poisson
bootstrap: replicate sums under Poisson(1) weights shared by the base and the variant, the
interval of a difference pairing every game with itself (common random numbers).

To update in milliseconds whatever the number of games, games are pooled into
:data:`BLOCKS` blocks (game ``i`` in block ``i mod BLOCKS``) and the weights are drawn per
block: the block sums are independent (the games are), so this is the Poisson bootstrap of the
blocks, which for more games than blocks is the same interval as the bootstrap of the games
(the variance of a sum of independent blocks is the sum of their variances); with fewer games
than blocks each block holds at most one game and it *is* the bootstrap of the games. The cost of
an update is two (BOOT x BLOCKS) @ (BLOCKS x columns) products, ~10-40 ms.

Readings are the report's (heron_sim.analysis.stats.equivalence): a share against ±1 point
(:data:`heron_sim.analysis.judge.SHARE_MARGIN`), a length, a count or a use rate against ±5 %
of the base's value (:data:`~heron_sim.analysis.judge.LENGTH_MARGIN`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from ..analysis.stats import equivalence
from ..animals import NAMES as ANIMALS
from ..lab.metrics import IX, METRICS, K, matrix_from_rows
from ..analysis.executive import GUIDES
from ..analysis.judge import LENGTH_MARGIN, SHARE_MARGIN
from ..runner.kinds.common import SECONDS_PER_TURN

#: Blocks the games are pooled into for the bootstrap (game i: block i mod BLOCKS).
BLOCKS = 2048
#: Bootstrap replicates (the lab's racing uses 1000 too).
BOOT = 1000
#: Seed of the bootstrap weights (fixed: the same games give the same intervals).
BOOT_SEED = 20261201
#: Columns: the lab's, then the uses of each guide's power per game.
POWER = {g: K + a for a, g in enumerate(ANIMALS)}
K2 = K + len(ANIMALS)
#: The length histogram's last bin holds every longer game.
HIST_MAX = 80


def game_columns(rows: np.ndarray, rules) -> np.ndarray:
    """The per-game columns (int32[games, K2]) of the engine's raw output rows."""
    from ..engine import layout as L

    X = np.empty((rows.shape[0], K2), dtype=np.int32)
    X[:, :K] = matrix_from_rows(rows, rules)
    X[:, K:] = rows[:, L.C_POWERS : L.C_POWERS + len(ANIMALS)]
    return X


def length_bins(rows: np.ndarray) -> np.ndarray:
    """Each game's bin of :func:`length_histogram` (int16: rounds, HIST_MAX or more in the last;
    -1 for an unfinished game)."""
    from ..engine import layout as L

    fin = rows[:, L.C_FINISHED] != 0
    return np.where(fin, np.minimum(rows[:, L.C_ROUNDS], HIST_MAX), -1).astype(np.int16)


def histogram_of_bins(bins: np.ndarray) -> np.ndarray:
    """Finished games by length bin (int64[HIST_MAX + 1])."""
    return np.bincount(bins[bins >= 0].astype(np.int64), minlength=HIST_MAX + 1)[: HIST_MAX + 1]


def length_histogram(rows: np.ndarray) -> np.ndarray:
    """Finished games by length in rounds (int64[HIST_MAX + 1]; the last bin: HIST_MAX or more)."""
    return histogram_of_bins(length_bins(rows))


@lru_cache(maxsize=1)
def weights() -> np.ndarray:
    """The Poisson(1) bootstrap weights of the blocks (float32[BOOT, BLOCKS]), drawn once."""
    return np.random.default_rng(BOOT_SEED).poisson(1.0, size=(BOOT, BLOCKS)).astype(np.float32)


class PairedSums:
    """Block sums of the per-game columns of several rule sets played on the same games."""

    def __init__(self, sides: int = 2):
        self.blocks = np.zeros((sides, BLOCKS, K2), dtype=np.int64)
        self.hist = np.zeros((sides, HIST_MAX + 1), dtype=np.int64)
        self.games = 0

    def add(self, side: int, first_game: int, X: np.ndarray, hist: np.ndarray | None = None) -> None:
        """Add games ``first_game .. first_game + len(X) - 1`` of one side."""
        n = X.shape[0]
        a = 0
        while a < n:  # contiguous games fall in contiguous blocks (wrapping at BLOCKS)
            b0 = (first_game + a) % BLOCKS
            m = min(n - a, BLOCKS - b0)
            self.blocks[side, b0 : b0 + m] += X[a : a + m]
            a += m
        if hist is not None:
            self.hist[side] += hist

    def sums(self, side: int) -> np.ndarray:
        return self.blocks[side].sum(axis=0).astype(float)

    def replicates(self, side: int) -> np.ndarray:
        """Replicate sums (float64[BOOT, K2]); the product in float32 (block sums are exact
        there below 2**24, far above any count a block holds) then widened."""
        return (weights() @ self.blocks[side].astype(np.float32)).astype(np.float64)


# ---------------------------------------------------------------- the figures the page shows
@dataclass(frozen=True)
class Row:
    key: str
    label: str
    group: str
    unit: str          # "rate" (shown in %), "points" (a rate gap, in points), "rounds", "minutes", "count", "share"
    fn: Callable       # (S [..., K2], players) -> value [...]
    margin: str = "relative"  # "share": ±1 point; "relative": ±5 % of the base's value


def _lab(name: str) -> Callable:
    fn = METRICS[name].fn
    return lambda S, P: fn(S, P)


def _div(a, b):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def rows_for(players: int) -> list[Row]:
    """The figures of a table of ``players`` seats, in the page's order."""
    share = "share"
    out = [
        Row("length", "length (rounds, finished games)", "Pace", "rounds", _lab("length")),
        Row("minutes", f"length in minutes (assumed {SECONDS_PER_TURN} s a turn)", "Pace", "minutes",
            lambda S, P: METRICS["length"].fn(S, P) * P * SECONDS_PER_TURN / 60),
        Row("completion", "games with a winner", "Pace", "rate", _lab("completion"), share),
        Row("dead_turn_rate", "dead turns (played turns moving nobody forward)", "Pace", "rate", _lab("dead_turn_rate"), share),
        Row("advance_per_turn", "advance per played turn (squares)", "Pace", "count", _lab("advance_per_turn")),
        Row("pond_rate", "Étang (Pond) per played turn", "Turns", "rate", _lab("pond_rate"), share),
        Row("anxiety_rate", "Angoisse (Anxiety) per played turn", "Turns", "rate", _lab("anxiety_rate"), share),
        Row("pushback", "Pond push-back per game (squares)", "Turns", "count", _lab("pushback")),
        Row("lead_changes", "lead changes per game", "Turns", "count", _lab("lead_changes")),
        Row("guide_spread", "guide spread (largest gap to the fair share)", "Balance", "points", _lab("guide_spread"), share),
        Row("first_player_advantage", "first-player advantage (seat 1 - fair share)", "Balance", "points",
            _lab("first_player_advantage"), share),
        Row("seat_balance", "seat balance (1 - largest seat gap)", "Balance", "share", _lab("seat_balance"), share),
    ]
    for s in range(players):
        out.append(Row(f"seat_{s}_win_rate", f"seat {s + 1} wins", "Seats", "rate", _lab(f"seat_{s}_win_rate"), share))
    for g in ANIMALS:
        out.append(Row(f"guide_{g}_win_rate", f"{GUIDES[g]} wins when dealt", "Guides", "rate",
                       _lab(f"guide_{g}_win_rate"), share))
    for g in ANIMALS:
        c = POWER[g]
        out.append(Row(f"power_{g}", f"{GUIDES[g]} power uses per game dealt", "Powers", "count",
                       (lambda c, g: lambda S, P: _div(S[..., c].astype(float), S[..., IX[f"dealt_{g}"]].astype(float)))(c, g)))
    return out


def _quantiles(x: np.ndarray) -> np.ndarray:
    """2.5 % and 97.5 % quantiles of each row of ``x`` (replicates with no value left out;
    NaN where fewer than 10 replicates have one)."""
    finite = np.isfinite(x)
    out = np.full((x.shape[0], 2), np.nan)
    full = finite.all(axis=1)
    if full.any():  # the usual case, vectorised
        out[full] = np.quantile(x[full], [0.025, 0.975], axis=1).T
    for i in np.flatnonzero(~full & (finite.sum(axis=1) >= 10)):
        out[i] = np.quantile(x[i][finite[i]], [0.025, 0.975])
    return out


def _num(x) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def figures(acc: PairedSums, players: int, changed: bool = True) -> dict:
    """Every figure of both sides: estimate and 95 % interval of each, paired difference
    (variant - base) with its interval and reading; the length histograms; games behind them."""
    S = [acc.sums(j) for j in (0, 1)]
    R = [acc.replicates(j) for j in (0, 1)]
    games = int(S[0][IX["games"]])
    rows = rows_for(players)
    with np.errstate(all="ignore"):
        vals = [[float(row.fn(S[j], players)) for j in (0, 1)] for row in rows]
        reps = [[np.asarray(row.fn(R[j], players), float) for j in (0, 1)] for row in rows]
    q = _quantiles(np.stack([x for r in reps for x in (r[0], r[1], r[1] - r[0])]))
    out = []
    for i, row in enumerate(rows):
        v = vals[i]
        ci = [tuple(q[3 * i]), tuple(q[3 * i + 1])]
        d = v[1] - v[0]
        dl, dh = q[3 * i + 2]
        if row.margin == "share":
            margin = SHARE_MARGIN
        else:
            margin = LENGTH_MARGIN * abs(v[0]) if math.isfinite(v[0]) else math.nan
        reading = equivalence(d, dl, dh, margin) if changed and math.isfinite(margin) else ""
        # settled: the difference's interval is no wider than its margin on each side and its
        # reading is not "uncertain" (an interval holding 0 and values beyond the margin: too few
        # games to conclude); until then the page shows the figure greyed and small, "too few
        # games yet" (issue 33 item 3), not as a headline beside an "uncertain" badge
        settled = (not changed) or (math.isfinite(margin) and math.isfinite(dl) and math.isfinite(dh)
                                    and (dh - dl) / 2 <= margin and reading != "uncertain")
        n = games
        if row.key in ("length", "minutes"):
            n = int(S[0][IX["finished"]])
        elif row.key.startswith(("guide_", "power_")) and row.key != "guide_spread":
            g = row.key.split("_")[1]
            n = int(S[0][IX[f"dealt_{g}"]])
        elif row.key in ("dead_turn_rate", "pond_rate", "anxiety_rate", "advance_per_turn"):
            n = int(S[0][IX["played"]])
        out.append({"key": row.key, "label": row.label, "group": row.group, "unit": row.unit,
                    "base": _num(v[0]), "base_low": _num(ci[0][0]), "base_high": _num(ci[0][1]),
                    "variant": _num(v[1]), "variant_low": _num(ci[1][0]), "variant_high": _num(ci[1][1]),
                    "diff": _num(d), "low": _num(dl), "high": _num(dh),
                    "relative": _num(d / v[0]) if v[0] else None,
                    "rel_low": _num(dl / v[0]) if v[0] and dl == dl else None,
                    "rel_high": _num(dh / v[0]) if v[0] and dh == dh else None,
                    "margin": _num(margin), "reading": reading, "settled": bool(settled), "n": n})
    return {"games": games, "rows": out, "fair": 1.0 / players,
            "hist": [acc.hist[0].tolist(), acc.hist[1].tolist()], "hist_max": HIST_MAX}
