"""Summaries of per-game result frames (heron_sim.simulation.results_frame)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..animals import NAMES as ANIMALS
from .intervals import Z95, wilson
from .luck_adjust import adjusted_win_rates, luck_columns, variance_ratio


def _seats(df: pd.DataFrame) -> int:
    return int(df["players"].iloc[0]) if len(df) else 0


def summarize(df: "pd.DataFrame | SummaryCounts") -> dict:
    """The headline figures of a run, with 95 % Wilson intervals for the rates.

    Keys: games, finished, unfinished (games - finished: stopped by the round cap, a win for
    nobody), rounds_mean, rounds_median, rounds_p90 (over finished games), win_rate_by_seat
    (wins / finished games: the report's seat table, :func:`heron_sim.analysis.metrics.seat_table`,
    and the lighter games' ``win_rate_by_seat``; the unfinished games are the ``unfinished``
    count, never a loss of every seat), win_rate_by_seat_ci (95 % Wilson),
    win_rate_by_seat_p_holm (exact binomial against 1/players, Holm over the seats),
    win_rate_by_guide (wins of players dealt that guide at the start / finished games in which
    it was dealt, as the report's guide table), win_rate_by_guide_ci,
    pond_per_game, pond_per_played_turn, anxiety_per_played_turn, advance_per_played_turn,
    lion_rescues_per_game, lead_changes_mean, power_uses_per_game_dealt and
    power_uses_per_game_dealt_by_strategy (:func:`power_uses_per_game_dealt`).

    Luck-adjusted beside the plain ones (heron_sim.analysis.luck_adjust, docs/luck.md):
    win_rate_by_seat_adjusted and its _ci (95 %) and _se, win_rate_by_seat_se (the plain
    estimate's), the same by guide, first_player_advantage (seat 1's win rate − 1/players) and
    first_player_advantage_adjusted, each with its _ci; luck_variance_ratio ({"seat": [...],
    "guide": {...}}: plain variance ÷ adjusted, how many times fewer games the adjusted figure
    needs for the same interval). The adjusted ones are None (JSON null) when the frame has no
    luck columns (``luck_seat1`` ...: ``simulate(..., luck=True)``).

    Every figure but the luck-adjusted ones is a function of sums over the games
    (:class:`SummaryCounts`): ``df`` may be those sums, as ``simulate --json`` keeps them in its
    threads (heron_sim.simulation.simulate_counts: memory flat in the number of games).
    """
    if isinstance(df, SummaryCounts):
        return summary_of_counts(df)
    adjusted = adjusted_win_rates(df) if len(df) and luck_columns(df) else None
    return summary_of_counts(counts_of_frame(df), adjusted)


@dataclass
class SummaryCounts:
    """What :func:`summarize` reads of a run, as sums over its games (integers: exact in any
    order, so that threads may add their games' in any order). ``rounds[r]``: the finished games
    of ``r`` rounds; ``wins[s]``: the finished games seat ``s`` won; ``guide_dealt[a]`` and
    ``guide_won[a]``: the finished games where guide ``a`` was dealt at the start, and those its
    holder won; ``power_dealt[a]`` and ``power_uses[a]``: every game where it was dealt and the
    uses of its power there; ``by_dealt[k, a]``, ``by_uses[k, a]``: the same over the games where
    a seat of strategy ``strategies[k]`` was dealt it."""

    players: int
    games: int
    finished: int
    rounds: np.ndarray
    wins: np.ndarray
    guide_dealt: np.ndarray
    guide_won: np.ndarray
    played: int
    ponds: int
    anxieties: int
    lion_rescues: int
    lead_changes: int
    advance: int
    power_dealt: np.ndarray
    power_uses: np.ndarray
    strategies: tuple = ()
    by_dealt: np.ndarray = field(default_factory=lambda: np.zeros((0, 7), np.int64))
    by_uses: np.ndarray = field(default_factory=lambda: np.zeros((0, 7), np.int64))


def counts_of_frame(df: pd.DataFrame) -> SummaryCounts:
    """The sums :func:`summarize` reads, from a frame of per-game rows (any of
    heron_sim.simulation's: the full frame, the summary's columns)."""
    n = len(df)
    P = _seats(df)
    finished = df["finished"].to_numpy(bool) if n else np.zeros(0, bool)
    winner = df["winner"].to_numpy() if n else np.zeros(0, int)
    codes = np.stack([df[f"guide_{s}"].cat.codes.to_numpy() for s in range(P)], axis=1) if n else np.zeros((0, 0))
    won = (winner[:, None] == np.arange(P)[None, :]) & finished[:, None]
    seats = _strategy_seats(df, P) if n else {}
    names = tuple(sorted(seats))
    c = SummaryCounts(
        players=P, games=n, finished=int(finished.sum()),
        rounds=np.bincount(df["rounds"].to_numpy()[finished].astype(np.int64)) if n else np.zeros(0, np.int64),
        wins=won.sum(axis=0).astype(np.int64),
        guide_dealt=np.array([int(((codes == a) & finished[:, None]).sum()) for a in range(7)], np.int64),
        guide_won=np.array([int(((codes == a) & won).sum()) for a in range(7)], np.int64),
        played=_total(df, "played_turns"), ponds=_total(df, "ponds"), anxieties=_total(df, "anxieties"),
        lion_rescues=_total(df, "lion_rescues"), lead_changes=_total(df, "lead_changes"),
        advance=sum(_total(df, f"advance_{s}") for s in range(P)),
        power_dealt=np.zeros(7, np.int64), power_uses=np.zeros(7, np.int64), strategies=names,
        by_dealt=np.zeros((len(names), 7), np.int64), by_uses=np.zeros((len(names), 7), np.int64))
    for a, name in enumerate(ANIMALS):
        if not n:
            break
        uses = df[f"power_{name}"].to_numpy().astype(np.int64)
        holder = codes == a
        dealt = holder.any(axis=1)
        c.power_dealt[a], c.power_uses[a] = int(dealt.sum()), int(uses[dealt].sum())
        for k, st in enumerate(names):
            mine = (holder & seats[st]).any(axis=1)
            c.by_dealt[k, a], c.by_uses[k, a] = int(mine.sum()), int(uses[mine].sum())
    return c


def _total(df: pd.DataFrame, column: str) -> int:
    return int(df[column].to_numpy().astype(np.int64).sum()) if len(df) else 0


def _rate_se(won: int, dealt: int, games: int) -> float:
    """The standard error of the plain ratio mean(y) / mean(d) over ``games`` games, ``dealt``
    of them counted (d = 1) and ``won`` of those won (y = 1): the delta method's sample standard
    deviation of (y − rate d) / mean(d), from the three kinds of game (heron_sim.analysis.
    luck_adjust.plain_rate_se over the games' 0/1 columns, the same figure up to rounding)."""
    if games < 2 or dealt == 0:
        return float("nan")
    dbar = dealt / games
    rate = (won / games) / dbar
    terms = ((1 - rate) / dbar, won), (-rate / dbar, dealt - won), (0.0, games - dealt)
    mean = sum(v * k for v, k in terms) / games
    var = sum(k * (v - mean) ** 2 for v, k in terms) / (games - 1)
    return float(np.sqrt(var) / np.sqrt(games))


def _plain_figures(c: SummaryCounts) -> dict:
    """The plain standard errors and the first player's advantage (the keys of
    heron_sim.analysis.luck_adjust.adjusted_win_rates that need no luck), from the sums."""
    out: dict = dict.fromkeys(("win_rate_by_seat_se", "win_rate_by_guide_se", "first_player_advantage",
                               "first_player_advantage_ci"))
    if not c.games or not c.finished:
        return out
    seat_se = [_rate_se(int(c.wins[s]), c.finished, c.games) for s in range(c.players)]
    fair = 1.0 / c.players
    plain1 = float(int(c.wins[0]) / c.finished)
    out["win_rate_by_seat_se"] = seat_se
    out["first_player_advantage"] = plain1 - fair
    out["first_player_advantage_ci"] = [plain1 - fair - Z95 * seat_se[0], plain1 - fair + Z95 * seat_se[0]]
    out["win_rate_by_guide_se"] = {name: _rate_se(int(c.guide_won[a]), int(c.guide_dealt[a]), c.games)
                                   for a, name in enumerate(ANIMALS) if c.guide_dealt[a]}
    return out


def _seat_rows(c: SummaryCounts) -> list[dict]:
    """Each seat's win rate over finished games, its 95 % Wilson interval and the exact binomial
    test against 1/players, Holm over the seats (:func:`heron_sim.analysis.metrics.seat_table`)."""
    from .stats import binom_test, holm

    rows = []
    for s in range(c.players):
        k = float(c.wins[s])
        if c.finished:
            rate, lo, hi = wilson(k, c.finished)
            p = binom_test(int(round(k)), c.finished, 1 / c.players)
        else:
            rate = lo = hi = p = float("nan")
        rows.append({"win_rate": rate, "low": lo, "high": hi, "p": p})
    for row, ph in zip(rows, holm([r["p"] for r in rows]) if rows else []):
        row["p_holm"] = ph
    return rows


def summary_of_counts(c: SummaryCounts, adjusted: dict | None = None) -> dict:
    """:func:`summarize`'s figures from the sums (``adjusted``: the luck-adjusted figures of
    heron_sim.analysis.luck_adjust.adjusted_win_rates, when the games carried the luck)."""
    n = c.games
    # the finished games' rounds in order, 2 bytes a game (numpy's median and percentile read
    # the order statistics: the same figures as from the games' column)
    small = np.uint16 if c.rounds.size <= np.iinfo(np.uint16).max else np.int64
    sorted_rounds = np.repeat(np.arange(c.rounds.size, dtype=small), c.rounds)
    by_guide, by_guide_ci = {}, {}
    for a, name in enumerate(ANIMALS):
        if c.guide_dealt[a]:
            rate, lo, hi = wilson(int(c.guide_won[a]), int(c.guide_dealt[a]))
            by_guide[name] = rate
            by_guide_ci[name] = [lo, hi]
    seats = _seat_rows(c) if n else []
    plain = _plain_figures(c)
    figures = {**plain, **{k: v for k, v in (adjusted or {}).items() if k not in plain}}
    if adjusted is None:
        figures.update(dict.fromkeys(_ADJUSTED_KEYS))
    played = c.played
    return {
        "games": n,
        "finished": c.finished,
        "unfinished": n - c.finished,
        "rounds_mean": float(sorted_rounds.mean()) if sorted_rounds.size else float("nan"),
        "rounds_median": float(np.median(sorted_rounds)) if sorted_rounds.size else float("nan"),
        "rounds_p90": float(np.percentile(sorted_rounds, 90)) if sorted_rounds.size else float("nan"),
        "win_rate_by_seat": [float(r["win_rate"]) for r in seats],
        "win_rate_by_seat_ci": [[float(r["low"]), float(r["high"])] for r in seats],
        "win_rate_by_seat_p_holm": [float(r["p_holm"]) for r in seats],
        "win_rate_by_guide": by_guide,
        "win_rate_by_guide_ci": by_guide_ci,
        "pond_per_game": float(c.ponds / n) if n else float("nan"),
        "pond_per_played_turn": float(c.ponds / played) if played else float("nan"),
        "anxiety_per_played_turn": float(c.anxieties / played) if played else float("nan"),
        "advance_per_played_turn": float(c.advance / played) if played else float("nan"),
        "lion_rescues_per_game": float(c.lion_rescues / n) if n else float("nan"),
        "lead_changes_mean": float(c.lead_changes / n) if n else float("nan"),
        **_power_figures(c),
        **{k: figures.get(k) for k in _FIGURE_KEYS},
        "luck_variance_ratio": variance_ratio(figures) or None,
    }


def _power_figures(c: SummaryCounts) -> dict:
    """:func:`power_uses_per_game_dealt` from the sums."""
    by: dict = {}
    for k, st in enumerate(c.strategies):
        for a, name in enumerate(ANIMALS):
            if c.by_dealt[k, a]:
                by.setdefault(st, {})[name] = float(c.by_uses[k, a] / c.by_dealt[k, a])
    return {"power_uses_per_game_dealt": {name: float(c.power_uses[a] / c.power_dealt[a])
                                          for a, name in enumerate(ANIMALS) if c.power_dealt[a]},
            "power_uses_per_game_dealt_by_strategy": by}


#: adjusted_win_rates' keys, in its order (the JSON's order).
_FIGURE_KEYS = ("win_rate_by_seat_se", "win_rate_by_guide_se", "first_player_advantage", "first_player_advantage_ci",
                "win_rate_by_seat_adjusted", "win_rate_by_seat_adjusted_ci", "win_rate_by_seat_adjusted_se",
                "win_rate_by_guide_adjusted", "win_rate_by_guide_adjusted_ci", "win_rate_by_guide_adjusted_se",
                "first_player_advantage_adjusted", "first_player_advantage_adjusted_ci")
_ADJUSTED_KEYS = _FIGURE_KEYS[4:]


def power_uses_per_game_dealt(df: pd.DataFrame) -> dict:
    """Each guide's power uses per game in which it was dealt at the start, for any seating.

    ``power_uses_per_game_dealt``: guide -> uses of its power (all seats) / games where a seat
    was dealt it (every game of the frame, finished or not; a guide never dealt is left out).
    ``power_uses_per_game_dealt_by_strategy``: strategy -> guide -> the uses of the games where
    a seat of that strategy was dealt the guide / those games. The engine counts a power's uses
    by game, not by seat: a use is credited to the seat dealt the guide at the start, so this is
    exact while no swap (7- or 8+ set, 🌀) moved the guide and approximate after one.
    """
    return _power_figures(counts_of_frame(df))


def _strategy_seats(df: pd.DataFrame, P: int) -> dict[str, np.ndarray]:
    """strategy name -> bool[games, P]: the seats it plays, game by game; read from the columns'
    category codes (pandas' factorize for a column of strings), never by comparing strings row
    by row (0.3 s for 200,000 games)."""
    out: dict[str, np.ndarray] = {}
    n = len(df)
    for s in range(P):
        column = df[f"strategy_{s}"]
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes, names = column.cat.codes.to_numpy(), column.cat.categories
        else:
            codes, names = pd.factorize(column, use_na_sentinel=False)
        for k, name in enumerate(names):
            here = codes == k
            if here.any():
                out.setdefault(str(name), np.zeros((n, P), dtype=bool))[:, s] = here
    return out


def summary_table(summaries: dict[str, dict]) -> pd.DataFrame:
    """Side-by-side table (one column per run label) of the headline figures, as text."""
    rows: dict[str, dict[str, str]] = {}

    def put(label, key, text):
        rows.setdefault(key, {})[label] = text

    for label, s in summaries.items():
        put(label, "games", f"{s['games']:,}")
        put(label, "finished", f"{s['finished']:,}")
        put(label, "rounds mean / median / p90",
            f"{s['rounds_mean']:.2f} / {s['rounds_median']:.0f} / {s['rounds_p90']:.0f}")
        adj = s.get("win_rate_by_seat_adjusted")  # with luck (docs/luck.md): the adjusted beside
        for seat, (rate, (lo, hi)) in enumerate(zip(s["win_rate_by_seat"], s["win_rate_by_seat_ci"])):
            put(label, f"win rate seat {seat + 1}", f"{100 * rate:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]")
            if adj is not None:
                a, (alo, ahi) = adj[seat], s["win_rate_by_seat_adjusted_ci"][seat]
                put(label, f"win rate seat {seat + 1}, luck-adjusted",
                    f"{100 * a:.1f} % [{100 * alo:.1f}, {100 * ahi:.1f}]")
        gadj = s.get("win_rate_by_guide_adjusted") or {}
        for guide, rate in s["win_rate_by_guide"].items():
            lo, hi = s["win_rate_by_guide_ci"][guide]
            put(label, f"win rate guide {guide}", f"{100 * rate:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]")
            if guide in gadj:
                alo, ahi = s["win_rate_by_guide_adjusted_ci"][guide]
                put(label, f"win rate guide {guide}, luck-adjusted",
                    f"{100 * gadj[guide]:.1f} % [{100 * alo:.1f}, {100 * ahi:.1f}]")
        put(label, "Ponds per game", f"{s['pond_per_game']:.3f}")
        put(label, "Pond per played turn", f"{100 * s['pond_per_played_turn']:.2f} %")
        put(label, "Anxiety per played turn", f"{100 * s['anxiety_per_played_turn']:.2f} %")
        put(label, "advance per played turn", f"{s['advance_per_played_turn']:.3f}")
        put(label, "Lion rescues per game", f"{s['lion_rescues_per_game']:.3f}")
        put(label, "lead changes per game", f"{s['lead_changes_mean']:.2f}")
    return pd.DataFrame(rows).T.rename_axis("figure")
