"""Judgements the report makes from its figures, as small pure functions (tested on synthetic
facts): a reading against the margin that respects the family a test comes from (Holm), the
flag of a guide on one scale and inside one margin, the noise floor of a perfectly fair game
at the report's own n, and the verdict that ranks what is wrong by its effect against its margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .stats import equivalence, holm
from .targets import load_targets

#: The designer's targets (experiments/targets.toml; every value assumed until the designer sets it).
TARGETS = load_targets()
#: Margin of practical equivalence for a share (win rates, rates per turn): ±1 percentage point
#: unless the designer's targets say otherwise (``share_margin``).
SHARE_MARGIN = TARGETS["share_margin"]
#: Margin of practical equivalence for a relative length change: ±5 % (``length_margin``).
LENGTH_MARGIN = TARGETS["length_margin"]
#: The reading labels of the page, defined once (the page prints these definitions).
READINGS = {
    "negligible": "the whole 95 % interval lies inside the margin: no effect worth acting on",
    "real but small": "the effect is not zero (after correction for the family of tests) but its interval stays inside the margin",
    "real, possibly relevant": "the effect is not zero (after correction) and its interval reaches beyond the margin",
    "real and relevant": "the whole interval lies beyond the margin and the test survives the correction: worth acting on",
    "uncertain": "the interval holds both zero and values beyond the margin, or the test does not survive the "
                 "correction for its family: these games do not settle it",
}


def reading(diff: float, low: float, high: float, margin: float, p_family: float = math.nan,
            alpha: float = 0.05) -> str:
    """:func:`~heron_sim.analysis.stats.equivalence`, but a "real …" reading needs the test to
    survive the correction over its family (``p_family``, e.g. Holm over the player counts or
    the guides): a claim that does not is "negligible" when its interval lies inside the margin,
    else "uncertain". ``p_family`` NaN: no family (a single test), the interval alone decides."""
    r = equivalence(diff, low, high, margin)
    if r.startswith("real") and math.isfinite(p_family) and p_family > alpha:
        return "negligible" if (-margin <= low and high <= margin) else "uncertain"
    return r


def family_readings(rows: list[tuple[float, float, float, float]], margin: float, alpha: float = 0.05) -> list[tuple[str, float]]:
    """Readings of a family of tests ``(diff, low, high, p)``: each p Holm-adjusted over the
    family, then :func:`reading`. Returns ``(reading, p_holm)`` per row."""
    if not rows:
        return []
    ph = holm([1.0 if not math.isfinite(p) else p for *_, p in rows])
    return [(reading(d, lo, hi, margin, float(q), alpha), float(q)) for (d, lo, hi, _), q in zip(rows, ph)]


def guide_flag(rate: float, low: float, high: float, fair: float, p_holm: float,
               margin: float = SHARE_MARGIN, alpha: float = 0.05) -> str:
    """A guide's flag on the one scale the report uses (win rate when dealt, fair 1/players):
    "strong"/"weak" only when the test survives Holm over the guides and the whole interval lies
    beyond the ±``margin``; "possibly strong/weak" when it survives and the estimate itself lies
    beyond the margin (its interval reaching inside); else "" (within the margin, or not settled)."""
    r = reading(rate - fair, low - fair, high - fair, margin, p_holm, alpha)
    side = "strong" if rate > fair else "weak"
    if r == "real, possibly relevant" and abs(rate - fair) <= margin:
        return ""  # the estimate itself lies inside the margin
    return {"real and relevant": side, "real, possibly relevant": f"possibly {side}"}.get(r, "")


# ---------------------------------------------------------------- a perfectly fair game
def fair_floor(n: int, k: int, reps: int = 2000, seed: int = 20) -> dict:
    """The noise floor of a perfectly fair game at the report's own n, by simulation (fixed
    seed): n games, each won by one of ``k`` seats uniformly; the median and 95th percentile of
    the largest gap between two seats' win rates, and Ludii's Balance (1 − that gap)."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, [1 / k] * k, size=reps)
    rates = counts / n
    gap = rates.max(axis=1) - rates.min(axis=1)
    return _floor(gap)


def fair_floor_dealt(n_dealt: int, p: float, k: int, reps: int = 2000, seed: int = 20) -> dict:
    """The guide spread (:func:`guide_spread_interval`: the largest gap between a win rate and
    the fair share ``p``) of ``k`` win rates, each over ``n_dealt`` games won with chance ``p``,
    in a perfectly fair game (guides: each dealt in n·players/7 games, fair win rate 1/players)."""
    rng = np.random.default_rng(seed)
    rates = rng.binomial(n_dealt, p, size=(reps, k)) / max(n_dealt, 1)
    return _floor(np.abs(rates - p).max(axis=1))


def _floor(gap: np.ndarray) -> dict:
    return {"gap_median": float(np.median(gap)), "gap_p95": float(np.quantile(gap, 0.95)),
            "balance_median": float(1 - np.median(gap)), "balance_p05": float(1 - np.quantile(gap, 0.95))}


def balance_interval(wins: np.ndarray, n: int, reps: int = 2000, seed: int = 21) -> tuple[float, float, float]:
    """Ludii's Balance of a batch and a 95 % bootstrap interval (multinomial resampling of the
    seats' wins, fixed seed)."""
    wins = np.asarray(wins, float)
    k = len(wins)
    if n <= 0 or k < 2:
        return math.nan, math.nan, math.nan
    est = 1 - (wins.max() - wins.min()) / n
    rng = np.random.default_rng(seed)
    c = rng.multinomial(n, wins / wins.sum() if wins.sum() else [1 / k] * k, size=reps) / n
    b = 1 - (c.max(axis=1) - c.min(axis=1))
    return float(est), float(np.quantile(b, 0.025)), float(np.quantile(b, 0.975))


def guide_spread_interval(wins, dealt, fair: float, reps: int = 2000, seed: int = 22) -> tuple[float, float, float]:
    """The guide spread, the one definition of the report, the lab and the explorer
    (:func:`heron_sim.lab.metrics._guide_spread`): the largest gap between a guide's win rate when
    dealt (``wins[i] / dealt[i]``) and the fair share ``fair``, with a 95 % parametric bootstrap
    interval (each rate redrawn binomially, fixed seed), widened to hold the estimate (the
    bootstrap of a largest gap is biased up)."""
    wins, dealt = np.asarray(wins, float), np.asarray(dealt, float)
    ok = dealt > 0
    wins, dealt = wins[ok], dealt[ok]
    if len(wins) < 1:
        return math.nan, math.nan, math.nan
    r = wins / dealt
    rng = np.random.default_rng(seed)
    b = rng.binomial(dealt.astype(np.int64), r, size=(reps, len(r))) / dealt
    gap = np.abs(b - fair).max(axis=1)
    est = float(np.abs(r - fair).max())
    return est, min(est, float(np.quantile(gap, 0.025))), max(est, float(np.quantile(gap, 0.975)))


# ---------------------------------------------------------------- the verdict
@dataclass
class Problem:
    what: str        # one line in words
    figure: str      # the figure with its interval
    size: float      # the effect against its margin (|effect| / margin); > 1: beyond it
    anchor: str      # the answer it links to
    fine: bool = False  # shown as fine (the reading is negligible or real but small)
    #: which of the designer's targets it rests on are still assumed, in words ("" when none:
    #: :func:`heron_sim.analysis.executive.assumed_note`)
    assumed: str = ""
    #: where it stands among equals (the kinds' order of questions; ties keep it in each list)
    order: float = 1000.0
    #: the ids of the facts (results/findings.json) it rests on, when the kind names them: the
    #: brief's first screen merges the problems of one finding (a guide overall and per rung)
    facts: tuple[str, ...] = ()


def rank(problems: list[Problem]) -> tuple[list[Problem], list[Problem], list[Problem]]:
    """What is wrong (its interval lies beyond the margin the designer's targets set: size > 1,
    every one, largest first), what is fine, and what these games leave open (neither)."""
    wrong = sorted((p for p in problems if not p.fine and p.size > 1), key=lambda p: -p.size)
    fine = [p for p in problems if p.fine]
    open_ = [p for p in problems if not p.fine and p.size <= 1]
    return wrong, fine, open_


def lower_bound_size(diff: float, low: float, high: float, margin: float) -> float:
    """How far the effect's interval lies beyond the margin, in margins: the bound of the
    interval nearest zero divided by the margin (0 when the interval holds zero)."""
    if not all(map(math.isfinite, (diff, low, high))) or margin <= 0:
        return 0.0
    if low > 0:
        return low / margin
    if high < 0:
        return -high / margin
    return 0.0
