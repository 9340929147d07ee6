"""The lab's metrics: per-game columns, the metrics as functions of their sums, and paired
bootstrap intervals.

Every metric the lab optimises or reports is a function of *sums over games* of a few per-game
columns (:data:`COLUMNS`): a win rate is wins / games dealt, a length is rounds of finished
games / finished games, a rate per turn is a count / played turns. So a sample of games is a
matrix ``X`` (one row per game, int32) and a metric is ``f(X.sum(axis=0))``. That makes the
paired bootstrap exact and cheap: weights ``W`` (one Poisson(1) weight per game and replicate,
the same for every rules set played on the same games) give replicate sums ``W @ X`` for the
base and for each variant at once, and the interval of ``f(variant) - f(base)`` pairs every
game with itself (common random numbers).

The dead-turn count is computed from the engine's existing per-game counters (no new engine
column) by heron_sim.analysis.deadturns, the one definition the report uses too: a played turn
is *dead* when it moves nobody — an Anxiety the Lion does not rescue, or a scored turn whose
largest set is worth 0 squares; a Pond is not dead (it pushes the opponents back). Exact for the
rulings and every variant that does not give a 3+ set an advance of 0 with the Bull's bonus on
(such a set may then move 2 squares with the Bull, and is counted as not dead).

Each guide's one-shot power uses per game come from the engine's counters too
(``power_<guide>``; metric ``power_<guide>_use``: uses per game the guide is dealt).

The skill gap (metric ``skill_gap``, :data:`SKILL_METRICS`) is measured on a table of its own,
the panel's skill scenario (:data:`heron_sim.runner.panel.SKILL_SCENARIO`: the expert against the
novice, 2 players, seats and guides rotated), from two columns the seating gives: the games won
by a seat of the weak rung and by a seat of the strong one (:data:`SKILL_PAIR`). It is the
expert's win share there, ``strong / (strong + weak)``: what the experiment kind ``skill``
reports as the skill gap (heron_sim.runner.kinds.skill), under the candidate rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..animals import NAMES as ANIMALS
from .poisson_weights import PoissonOnes

# ---------------------------------------------------------------- per-game columns
COLUMNS: tuple[str, ...] = (
    "games", "finished", "rounds_finished",
    *(f"seat_win_{s}" for s in range(7)),
    *(f"dealt_{g}" for g in ANIMALS),
    *(f"won_{g}" for g in ANIMALS),
    "played", "dead", "lead_changes", "pushback", "ponds", "anxieties", "advance",
    *(f"power_{g}" for g in ANIMALS),
    "skill_weak_win", "skill_strong_win",
    "streak_seats", "stuck3_seats", "longest_dead_sum",
    "mid_last_games", "mid_last_won",
    # the players of each kind at the table (kind j: the j-th distinct strategy of the table, the
    # same in every seating of its rotation): seats held, games won, games last at mid-game
    *(f"kind_seats_{j}" for j in range(7)), *(f"kind_win_{j}" for j in range(7)),
    *(f"mid_last_kind_{j}" for j in range(7)),
)
#: The skill gap's rungs (weak, strong): games won by a seat holding either are counted
#: (columns ``skill_weak_win`` and ``skill_strong_win``) when the seating is known.
SKILL_PAIR: tuple[str, str] = ("novice", "expert")
IX = {name: i for i, name in enumerate(COLUMNS)}
K = len(COLUMNS)
#: The luck-adjusted wins (issue 32 item 3), after the K columns where the last rung measured the
#: luck (``[racing] luck = true``): each seat's win and each guide's win when dealt, less its
#: cross-fitted control on the players' luck (heron_sim.analysis.luck_adjust). Float columns of
#: mean equal to the wins'; :func:`adjusted_sums` puts them in the wins' place.
ADJUSTED: tuple[str, ...] = (*(f"seat_win_{s}" for s in range(7)), *(f"won_{g}" for g in ANIMALS))
KA = K + len(ADJUSTED)


def matrix_from_rows(rows: np.ndarray, rules, seating=None, kinds=None) -> np.ndarray:
    """The per-game columns (int32[games, K]) from the engine's raw output rows; ``seating``
    (the strategy of each seat, when known) gives the skill columns (0 without it) and the
    kinds' columns: ``kinds`` the table's distinct strategies in a fixed order (the same for
    every seating of its rotation; default: this seating's own, in seat order)."""
    from ..engine import layout as L

    n = rows.shape[0]
    P = rules.players
    X = np.zeros((n, K), dtype=np.int32)
    fin = rows[:, L.C_FINISHED] != 0
    winner = rows[:, L.C_WINNER]
    X[:, IX["games"]] = 1
    X[:, IX["finished"]] = fin
    X[:, IX["rounds_finished"]] = np.where(fin, rows[:, L.C_ROUNDS], 0)
    guides = rows[:, L.C_GUIDE : L.C_GUIDE + P]
    for s in range(P):
        X[:, IX[f"seat_win_{s}"]] = winner == s
    for a, g in enumerate(ANIMALS):
        has = guides == a
        X[:, IX[f"dealt_{g}"]] = has.any(axis=1)
        X[:, IX[f"won_{g}"]] = (has & (winner[:, None] == np.arange(P)[None, :])).any(axis=1)
    X[:, IX["played"]] = rows[:, L.C_PLAYED]
    X[:, IX["dead"]] = dead_turns(rows, rules)
    X[:, IX["lead_changes"]] = rows[:, L.C_LEAD_CHANGES]
    X[:, IX["pushback"]] = rows[:, L.C_PUSHBACK]
    X[:, IX["ponds"]] = rows[:, L.C_PONDS]
    X[:, IX["anxieties"]] = rows[:, L.C_ANXIETIES]
    X[:, IX["advance"]] = rows[:, L.C_ADVANCE : L.C_ADVANCE + P].sum(axis=1)
    # comebacks: games with one player last at mid-game, and those it won (the report's figure,
    # heron_sim.analysis.metrics.drama: an unfinished game is not won)
    last = rows[:, L.C_MID_LAST]
    X[:, IX["mid_last_games"]] = last >= 0
    X[:, IX["mid_last_won"]] = (last >= 0) & (winner == last)
    for a, g in enumerate(ANIMALS):
        X[:, IX[f"power_{g}"]] = rows[:, L.C_POWERS + a]
    if seating is not None:
        kinds = tuple(dict.fromkeys(seating)) if kinds is None else tuple(kinds)
        if len(kinds) <= 7:
            for s, name in enumerate(seating):
                j = kinds.index(name) if name in kinds else -1
                if j < 0:
                    continue
                X[:, IX[f"kind_seats_{j}"]] += 1
                X[:, IX[f"kind_win_{j}"]] += winner == s
                X[:, IX[f"mid_last_kind_{j}"]] += last == s
        for s, name in enumerate(seating):
            for col, rung in (("skill_weak_win", SKILL_PAIR[0]), ("skill_strong_win", SKILL_PAIR[1])):
                if name == rung:
                    X[:, IX[col]] += winner == s
    return X


def holders_from_rows(rows: np.ndarray, players: int) -> np.ndarray:
    """int8[games, 7]: the seat dealt each guide in each game, -1 where it was not dealt."""
    from ..engine import layout as L

    guides = rows[:, L.C_GUIDE : L.C_GUIDE + players]
    H = np.full((rows.shape[0], len(ANIMALS)), -1, dtype=np.int8)
    for a in range(len(ANIMALS)):
        has = guides == a
        H[:, a] = np.where(has.any(axis=1), has.argmax(axis=1), -1)
    return H


def luck_adjusted_columns(X: np.ndarray, F: np.ndarray | None, H: np.ndarray) -> np.ndarray:
    """float64[games, len(ADJUSTED)]: each seat's win and each guide's win when dealt, less its
    luck control (heron_sim.analysis.luck_adjust: the seats' pooled controls, each cross-fitted by
    halves, then scaled per figure by :func:`~heron_sim.analysis.luck_adjust.target_control`, as
    ``simulate --json`` adjusts a seat's and a guide's win rate). ``X``: the games' columns
    (:func:`matrix_from_rows`); ``F``: the luck features [games, players, k]
    (:func:`~heron_sim.analysis.luck_adjust.luck_features`), None where the luck is not measured
    (dice that differ): then the plain wins, unadjusted; ``H``: :func:`holders_from_rows`.
    Every control has mean zero whatever the rules, so the columns' means are the wins'."""
    from ..analysis.luck_adjust import _holder_control, seat_controls, target_control

    n = X.shape[0]
    A = np.zeros((n, len(ADJUSTED)))
    for j, name in enumerate(ADJUSTED):
        A[:, j] = X[:, IX[name]]
    if F is None or n < 8:
        return A
    P = F.shape[1]
    Y = A[:, :P].copy()
    C, Cin = seat_controls(F, Y, inner=True)
    ones = np.ones(n)
    for s in range(P):
        A[:, s] -= target_control(Y[:, s], ones, C[:, s], Cin[:, s])
    for a, g in enumerate(ANIMALS):
        h = H[:, a].astype(np.int64)
        d = X[:, IX[f"dealt_{g}"]].astype(float)
        if d.sum() == 0:
            continue
        j = 7 + a
        A[:, j] -= target_control(A[:, j], d, _holder_control(C, h), _holder_control(Cin, h))
    return A


def adjusted_sums(S: np.ndarray) -> np.ndarray | None:
    """The sums ``S`` [..., KA] with the wins' columns replaced by their luck-adjusted sums
    (:data:`ADJUSTED`): every metric of the wins (a seat's or a guide's win rate, the guide spread,
    the first-player advantage, the seat balance) then reads its luck-adjusted figure, the others
    their plain one. None where ``S`` has no adjusted columns."""
    S = np.asarray(S)
    if S.shape[-1] < KA:
        return None
    out = np.array(S[..., :K], dtype=float)
    for j, name in enumerate(ADJUSTED):
        out[..., IX[name]] = S[..., K + j]
    return out


def dead_turns(rows: np.ndarray, rules) -> np.ndarray:
    """Played turns per game that moved nobody (heron_sim.analysis.deadturns: one definition
    for the lab and the report; a Pond is not dead)."""
    from ..analysis.deadturns import dead_per_game

    return dead_per_game(rows, rules)


def batch_matrix(batch) -> np.ndarray:
    """Play one executor batch (heron_sim.runner.executor.Batch) and return its columns (with
    the streak columns of its replayed games when ``batch.streak_every`` asks for them)."""
    from ..runner.executor import play_rows

    X = matrix_from_rows(play_rows(batch), batch.rules, batch.seating, getattr(batch, "kinds", None))
    every = int(getattr(batch, "streak_every", 0) or 0)
    if every > 0:
        fill_streaks(X, batch.rules, batch.seating, batch.seed, batch.first_game, every)
    return X


def batch_matrix_luck(batch) -> tuple:
    """As :func:`batch_matrix`, the batch played with its luck (``batch.luck``): (columns,
    luck features float32[games, players, k] or an empty array where the luck is not measured,
    :func:`holders_from_rows`). The same games as without luck (tests/test_luck_games.py)."""
    from ..analysis.luck_adjust import luck_features
    from ..runner.executor import play_rows
    from ..simulation import results_frame

    rows = play_rows(batch)
    X = matrix_from_rows(rows, batch.rules, batch.seating, getattr(batch, "kinds", None))
    every = int(getattr(batch, "streak_every", 0) or 0)
    if every > 0:
        fill_streaks(X, batch.rules, batch.seating, batch.seed, batch.first_game, every)
    F = luck_features(results_frame(rows, batch.rules, batch.seed, list(batch.seating), batch.first_game))
    F = np.zeros((0,), dtype=np.float32) if F is None else F.astype(np.float32)
    return X, F, holders_from_rows(rows, batch.rules.players)


#: The streak metrics replay one game in this many (game number a multiple of it): the engine
#: keeps no turn-by-turn record, and a replay costs ~3 ms a game (heron_sim.analysis.board).
STREAK_EVERY = 8
#: The metrics that need the streak columns (a study naming one replays one game in STREAK_EVERY).
STREAK_METRICS = ("stuck_3_share", "longest_dead_streak")


def fill_streaks(X: np.ndarray, rules, seating, seed: int, first_game: int, every: int = 1) -> np.ndarray:
    """Fill the streak columns of ``X`` (the games ``first_game ..`` of one seating) for the games
    whose number is a multiple of ``every``, replayed turn by turn (heron_sim.analysis.board):
    ``streak_seats`` (the players of the game), ``stuck3_seats`` (those who did not move for 3 of
    their turns in a row), ``longest_dead_sum`` (the sum of each player's longest run of dead
    turns). The other games keep 0 there (they count in neither the numerator nor the denominator)."""
    from ..analysis.board import STUCK_TURNS, replay_game, streaks_of
    from ..engine.pack import pack_rules
    from ..strategies import parse_seating, seat_arrays

    seating = parse_seating(list(seating), rules.players)
    sids, sp = seat_arrays(seating, rules)
    R = pack_rules(rules)
    for i in range(X.shape[0]):
        g = first_game + i
        if g % every:
            continue
        t, _ = replay_game(rules, seating, seed, g, R, sids, sp)
        longest = streaks_of(t[:, 0], t[:, 1], rules.players)
        X[i, IX["streak_seats"]] = rules.players
        X[i, IX["stuck3_seats"]] = int((longest >= STUCK_TURNS).sum())
        X[i, IX["longest_dead_sum"]] = int(longest.sum())
    return X


# ---------------------------------------------------------------- metrics of the sums
def _c(S: np.ndarray, name: str) -> np.ndarray:
    return S[..., IX[name]].astype(float)


def _div(a, b):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def _decided(S, x):
    """``x`` where at least one game finished, NaN elsewhere: a win rate, a spread or a seat
    gap over games that all went unfinished (nobody won) is no figure (a degenerate study)."""
    return np.where(_c(S, "finished") > 0, x, np.nan)


def _guide_rates(S, players):
    return np.stack([_div(_c(S, f"won_{g}"), _c(S, f"dealt_{g}")) for g in ANIMALS], axis=-1)


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    unit: str        # "rate" (shown in %), "points" (a rate difference, in points), "rounds", "count", "share"
    fn: Callable     # (S [..., K], players) -> value [...]
    headline: bool = True


def _guide_spread(S, players):
    import warnings

    d = np.abs(_guide_rates(S, players) - 1.0 / players)
    with warnings.catch_warnings():  # no guide dealt at all: NaN, said as n/a
        warnings.simplefilter("ignore", RuntimeWarning)
        return _decided(S, np.nanmax(d, axis=-1))


def _seat_balance(S, players):
    rates = np.stack([_div(_c(S, f"seat_win_{s}"), _c(S, "games")) for s in range(players)], axis=-1)
    return _decided(S, 1.0 - (rates.max(axis=-1) - rates.min(axis=-1)))


def _comeback_own(S, players):
    """Comebacks against the player's own chance (issue 58): the games the player last at mid-game
    won, over the games that player would have won at its own rate — its kind's win rate at this
    table over all games (wins of the table's players of that strategy / their seats). 1: being
    last at mid-game costs nothing; at a table of equal players it is the comeback rate ×
    players / completion, so the designer's floor (``comeback_floor`` × the fair share) reads
    ``comeback_floor`` here at every table, a family table too: a novice last at mid-game is
    held to a novice's chance, not to the fair share."""
    exp = 0.0
    for j in range(7):
        p = _div(_c(S, f"kind_win_{j}"), _c(S, f"kind_seats_{j}"))
        exp = exp + np.where(np.isfinite(p), p, 0.0) * _c(S, f"mid_last_kind_{j}")
    return _div(_c(S, "mid_last_won"), exp)


def _metrics() -> dict[str, Metric]:
    m = [
        Metric("guide_spread", "guide spread (largest gap between a guide's win rate when dealt and the fair share)", "points", _guide_spread),
        Metric("first_player_advantage", "first-player advantage (seat 1 win rate − fair share)", "points",
               lambda S, P: _decided(S, _div(_c(S, "seat_win_0"), _c(S, "games")) - 1.0 / P)),
        Metric("length", "mean length (rounds, finished games)", "rounds",
               lambda S, P: _div(_c(S, "rounds_finished"), _c(S, "finished"))),
        Metric("dead_turn_rate", "dead-turn rate (played turns that move nobody; a Pond is not dead)", "rate",
               lambda S, P: _div(_c(S, "dead"), _c(S, "played"))),
        Metric("comeback", "comebacks (the player last at mid-game wins; games with one player last)", "rate",
               lambda S, P: _div(_c(S, "mid_last_won"), _c(S, "mid_last_games"))),
        Metric("comeback_own", "comebacks against the player's own chance (the player last at mid-game wins / "
               "what that player wins over all games at the table)", "share", _comeback_own, headline=False),
        Metric("lead_changes", "lead changes per game", "count",
               lambda S, P: _div(_c(S, "lead_changes"), _c(S, "games"))),
        Metric("pushback", "Pond push-back per game (squares)", "count",
               lambda S, P: _div(_c(S, "pushback"), _c(S, "games"))),
        Metric("completion", "completion (games with a winner)", "rate",
               lambda S, P: _div(_c(S, "finished"), _c(S, "games"))),
        Metric("seat_balance", "seat balance (Ludii: 1 - largest seat gap)", "share", _seat_balance),
        Metric("pond_rate", "Pond per played turn", "rate", lambda S, P: _div(_c(S, "ponds"), _c(S, "played"))),
        Metric("anxiety_rate", "Anxiety per played turn", "rate",
               lambda S, P: _div(_c(S, "anxieties"), _c(S, "played"))),
        Metric("advance_per_turn", "advance per played turn (squares)", "count",
               lambda S, P: _div(_c(S, "advance"), _c(S, "played"))),
        Metric("stuck_3_share", "players who do not move for 3 of their turns in a row (dead-turn streak of 3+)",
               "rate", lambda S, P: _div(_c(S, "stuck3_seats"), _c(S, "streak_seats")), headline=False),
        Metric("longest_dead_streak", "longest run of dead turns per player (turns)", "count",
               lambda S, P: _div(_c(S, "longest_dead_sum"), _c(S, "streak_seats")), headline=False),
        Metric("skill_gap", "skill gap (the expert's win share against the novice, 2 players, seats and guides "
               "rotated)", "rate",
               lambda S, P: _div(_c(S, "skill_strong_win"), _c(S, "skill_strong_win") + _c(S, "skill_weak_win"))),
    ]
    for s in range(7):
        m.append(Metric(f"seat_{s}_win_rate", f"win rate seat {s + 1}", "rate",
                        (lambda s: lambda S, P: _decided(S, _div(_c(S, f"seat_win_{s}"), _c(S, "games"))))(s)))
    for g in ANIMALS:
        m.append(Metric(f"power_{g}_use", f"{g}'s power: uses per game dealt", "count",
                        (lambda g: lambda S, P: _div(_c(S, f"power_{g}"), _c(S, f"dealt_{g}")))(g)))
    for g in ANIMALS:
        m.append(Metric(f"guide_{g}_win_rate", f"win rate when dealt: {g}", "rate",
                        (lambda g: lambda S, P: _decided(S, _div(_c(S, f"won_{g}"), _c(S, f"dealt_{g}"))))(g)))
    return {x.name: x for x in m}


METRICS: dict[str, Metric] = _metrics()
#: The metrics an objective or a constraint may name.
OBJECTIVE_METRICS = ("guide_spread", "first_player_advantage", "length", "dead_turn_rate", "comeback", "lead_changes",
                     "pushback", "completion", "seat_balance", "pond_rate", "anxiety_rate", "advance_per_turn",
                     "skill_gap", "stuck_3_share", "longest_dead_streak", "comeback_own")
#: Objective metrics a proposal's effects list only when a study names them (not headline figures).
NAMED_ONLY = ("comeback_own",)
#: The metrics measured on the panel's skill scenario only (every other metric: on the other tables).
SKILL_METRICS = ("skill_gap",)


def headline_metrics(players: int) -> list[str]:
    """Every headline metric for ``players`` seats (the "every metric" of a proposal's effects)."""
    names = [n for n in OBJECTIVE_METRICS if n not in SKILL_METRICS and n not in NAMED_ONLY]
    names += [f"seat_{s}_win_rate" for s in range(players)]
    names += [f"guide_{g}_win_rate" for g in ANIMALS]
    names += [f"power_{g}_use" for g in ANIMALS]
    return names


def value(metric: str, S: np.ndarray, players: int):
    return METRICS[metric].fn(np.asarray(S), players)


# ---------------------------------------------------------------- bootstrap
class Bootstrap:
    """Replicate sums of several samples played on the same games (same rows = same games).

    ``sums[j]`` is sample j's total (K,), ``reps[j]`` its replicate sums (B, K) under Poisson(1)
    weights shared by every sample, so that contrasts between samples are paired by game.
    """

    def __init__(self, samples: list[np.ndarray], B: int = 1000, seed: int = 0, chunk: int = 10_000):
        n = samples[0].shape[0]
        if any(x.shape[0] != n for x in samples):
            raise ValueError("bootstrap: samples must cover the same games")
        self.n = n
        self.B = B
        # integer columns summed exactly; the luck-adjusted ones (float) in float64
        self.sums = [x.sum(axis=0, dtype=np.int64 if x.dtype.kind in "iu" else np.float64).astype(float)
                     for x in samples]
        self.reps = [np.zeros((B, x.shape[1])) for x in samples]
        weights = PoissonOnes(np.random.default_rng(seed))  # rng.poisson(1.0, ...)'s numbers, faster
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            W = weights.take((B, hi - lo))
            for j, x in enumerate(samples):
                self.reps[j] += W @ x[lo:hi].astype(np.float32)

    def contrast(self, j: int, i: int, fn, conf: float = 0.95) -> dict:
        """``fn(sample j) - fn(sample i)`` on the same games: estimate and percentile interval."""
        a = float(fn(self.sums[i]))
        b = float(fn(self.sums[j]))
        d = np.asarray(fn(self.reps[j]), float) - np.asarray(fn(self.reps[i]), float)
        d = d[np.isfinite(d)]
        lo, hi = (np.quantile(d, [(1 - conf) / 2, (1 + conf) / 2]) if d.size >= 10 else (math.nan, math.nan))
        return {"base": a, "variant": b, "diff": b - a, "low": float(lo), "high": float(hi), "games": self.n}


def wilson_halfwidth(k: float, n: float) -> float:
    if n <= 0:
        return math.inf
    from ..analysis.intervals import wilson

    _, lo, hi = wilson(k, n)
    return (hi - lo) / 2


def rate_halfwidths(S: np.ndarray, players: int) -> dict[str, float]:
    """95 % Wilson half-widths of the headline win rates (seats, guides when dealt)."""
    out = {}
    n = float(S[IX["games"]])
    for s in range(players):
        out[f"seat_{s}_win_rate"] = wilson_halfwidth(float(S[IX[f"seat_win_{s}"]]), n)
    for g in ANIMALS:
        out[f"guide_{g}_win_rate"] = wilson_halfwidth(float(S[IX[f"won_{g}"]]), float(S[IX[f"dealt_{g}"]]))
    return out


def format_value(metric: str, v: float, diff: bool = False) -> str:
    """A metric value (or a difference) in its reader's unit: rates in %, points in points."""
    if v is None or not np.isfinite(v):
        return "n/a"
    unit = METRICS[metric].unit if metric in METRICS else "count"
    if unit in ("rate", "points"):
        return f"{100 * v:+z.2f}" if diff else f"{100 * v:.2f}"
    if unit == "share":
        return f"{v:+z.4f}" if diff else f"{v:.4f}"
    return f"{v:+z.3f}" if diff else f"{v:.3f}"


def unit_suffix(metric: str) -> str:
    unit = METRICS[metric].unit if metric in METRICS else "count"
    return {"rate": " %", "points": " pt", "rounds": " rounds"}.get(unit, "")
