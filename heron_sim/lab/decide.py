"""The lab's decisions, one copy for every game (issue 62 item 1).

The Héron race's lab (:mod:`.study`, :mod:`.ladder`) and the lighter games' lab (:mod:`.light`)
measure different things (column sums of the engine's frame; win shares, lengths and finished
games of a lighter game's frame) but decide alike, through the functions here:

- :func:`race_key`: the order of the ladder (``ladder.score_key``), of the search's front and of
  every racing rung: feasible first, then the score (lower is better), then the fewest rules
  changed. How the score is computed from a candidate's losses stays with each lab (see
  :func:`race_key`).
- :func:`dominates` / :func:`pareto`: the non-dominated candidates of the search.
- :func:`goal_test`: the equivalence test of a loss against the designer's goal (passes, fails,
  undecided, likely fails; the games that would decide it); with a floor, of a figure against a
  goal of two sides (the held-out check, :mod:`.heldout`, judges each table through it).
- :func:`holm_over_family`: Holm's correction over every goal test of the finalists, by the
  package's one Holm (:func:`heron_sim.analysis.stats.holm_reject`).

A game declares only its metrics, levers and words; nothing here knows a game.
"""

from __future__ import annotations

import math


# ---------------------------------------------------------------- the race
def race_key(feasible: bool, score: float, n_changed: int) -> tuple:
    """The key every ordering of candidates sorts by (smallest first): feasible first, then the
    score (a sum of losses each divided by the base's: lower is better), then the fewest rules
    changed.

    Each lab divides by the base's loss its own way (issue 62: left as it was, since unifying it
    changes which candidates race): the Héron lab divides by a positive finite base loss and
    keeps the raw loss otherwise (:func:`heron_sim.lab.ladder.run_ladder`); the lighter games'
    lab divides by ``max(|base loss|, 1e-9)`` (:meth:`heron_sim.lab.light.Study.score`)."""
    return (not feasible, score, n_changed)


def dominates(a, b) -> bool:
    """``a`` is no worse than ``b`` on every loss and better on one (losses are minimised)."""
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def pareto(points: list) -> list[int]:
    """Indices of the non-dominated points."""
    return [i for i, p in enumerate(points) if not any(dominates(q, p) for j, q in enumerate(points) if j != i)]


# ---------------------------------------------------------------- the goal test
#: The goal test's readings, in the order of :func:`goal_test`.
PASSES, FAILS = "passes", "fails (decisive)"
UNDERPOWERED, LIKELY_FAILS = "undecided (underpowered)", "likely fails (not decisive)"
NO_INTERVAL = "undecided (no interval)"


def games_to_decide(games: int, half: float, gap: float) -> int:
    """The games a table that would bring the interval's half-width ``half`` (measured on
    ``games``) within ``gap`` of the estimate, if the estimate held (the half-width shrinks as
    1/sqrt(games)); the ceiling of an exact count is that count (1e-9 below it)."""
    return int(math.ceil(games * (half / gap) ** 2 - 1e-9))


def goal_test(est: float, lo: float, hi: float, goal: float, games: int, floor: float = -math.inf) -> dict:
    """Whether a loss (minimised: the goal is met when ``est <= goal``) meets its goal, as an
    equivalence test reads it: ``passes`` when the 95 % interval's upper bound ``hi`` is within
    the goal, ``fails (decisive)`` when its lower bound ``lo`` is past it, ``undecided
    (underpowered)`` when the estimate meets the goal but the interval reaches past it, ``likely
    fails (not decisive)`` when the estimate misses and the interval reaches back; ``undecided
    (no interval)`` when a figure is not finite. ``games_needed``: the games a table that would
    decide an undecided test if the estimate held (None when decided, or the estimate on the goal).

    ``floor``: a goal with two sides, met when ``floor <= est <= goal`` (the held-out check's
    target within ± its tolerance, or a figure at least a floor with ``goal`` = inf): ``passes``
    when the interval lies within both, ``fails (decisive)`` when it lies wholly past either;
    an estimate that meets both needs the games that show every side the interval still crosses
    (the largest count; None when the estimate is on that side's bound), one that misses needs
    those that show the side it misses. One-sided by default (``floor`` = -inf)."""
    if not (math.isfinite(est) and math.isfinite(lo) and math.isfinite(hi)):
        return {"decision": NO_INTERVAL, "games_needed": None}
    if hi <= goal and lo >= floor:
        return {"decision": PASSES, "games_needed": None}
    if lo > goal or hi < floor:
        return {"decision": FAILS, "games_needed": None}
    if floor <= est <= goal:
        sides = [(hi - est, goal - est)] if hi > goal else []
        sides += [(est - lo, est - floor)] if lo < floor else []
        need = None if any(gap == 0 for _, gap in sides) else max(games_to_decide(games, h, gap) for h, gap in sides)
        return {"decision": UNDERPOWERED, "games_needed": need}
    if est > goal:
        return {"decision": LIKELY_FAILS, "games_needed": games_to_decide(games, est - lo, est - goal)}
    return {"decision": LIKELY_FAILS, "games_needed": games_to_decide(games, hi - est, floor - est)}


# ---------------------------------------------------------------- Holm over the finalists
def holm_over_family(out: list[dict], alpha: float = 0.05) -> int:
    """Holm's correction over every (variant, goal) test of the finalists: each objective with a
    goal and a one-sided p of "the goal is not met" (``p_goal``) gets ``goal_met_holm``, true when
    Holm rejects it and the goal is met with 95 % confidence (``goal_met_95``: a claim after the
    correction is never stronger than before it); every finalist gets ``holm_family`` (the number
    of tests, 0 without any). Returns the size of the family."""
    from ..analysis.stats import holm_reject

    tests = [o for e in out for o in e["objectives"] if o.get("goal") is not None and "p_goal" in o]
    for o, r in zip(tests, holm_reject([o["p_goal"] for o in tests], alpha=alpha)):
        o["goal_met_holm"] = bool(r and o["goal_met_95"])
    for e in out:
        e["holm_family"] = len(tests)
    return len(tests)
