"""Summaries of per-game result frames (heron_sim.simulation.results_frame)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..animals import NAMES as ANIMALS
from .intervals import wilson
from .luck_adjust import adjusted_win_rates, variance_ratio
from .metrics import seat_table


def _seats(df: pd.DataFrame) -> int:
    return int(df["players"].iloc[0]) if len(df) else 0


def summarize(df: pd.DataFrame) -> dict:
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
    """
    n = len(df)
    P = _seats(df)
    finished = df["finished"].to_numpy(bool) if n else np.zeros(0, bool)
    rounds = df.loc[finished, "rounds"].to_numpy() if n else np.zeros(0)
    winner = df["winner"].to_numpy() if n else np.zeros(0, int)
    st = seat_table(df) if n else None
    by_guide, by_guide_ci = {}, {}
    for a, name in enumerate(ANIMALS):
        dealt = 0
        wins = 0
        for s in range(P):
            has = (df[f"guide_{s}"].cat.codes.to_numpy() == a) & finished
            dealt += int(has.sum())
            wins += int((has & (winner == s)).sum())
        if dealt:
            rate, lo, hi = wilson(wins, dealt)
            by_guide[name] = rate
            by_guide_ci[name] = [lo, hi]
    played = int(df["played_turns"].sum()) if n else 0
    advance = int(sum(df[f"advance_{s}"].sum() for s in range(P))) if n else 0
    adjusted = adjusted_win_rates(df)
    return {
        "games": n,
        "finished": int(finished.sum()),
        "unfinished": n - int(finished.sum()),
        "rounds_mean": float(rounds.mean()) if rounds.size else float("nan"),
        "rounds_median": float(np.median(rounds)) if rounds.size else float("nan"),
        "rounds_p90": float(np.percentile(rounds, 90)) if rounds.size else float("nan"),
        "win_rate_by_seat": [float(x) for x in st["win_rate"]] if n else [],
        "win_rate_by_seat_ci": [[float(a), float(b)] for a, b in zip(st["low"], st["high"])] if n else [],
        "win_rate_by_seat_p_holm": [float(x) for x in st["p_holm"]] if n else [],
        "win_rate_by_guide": by_guide,
        "win_rate_by_guide_ci": by_guide_ci,
        "pond_per_game": float(df["ponds"].mean()) if n else float("nan"),
        "pond_per_played_turn": float(df["ponds"].sum() / played) if played else float("nan"),
        "anxiety_per_played_turn": float(df["anxieties"].sum() / played) if played else float("nan"),
        "advance_per_played_turn": float(advance / played) if played else float("nan"),
        "lion_rescues_per_game": float(df["lion_rescues"].mean()) if n else float("nan"),
        "lead_changes_mean": float(df["lead_changes"].mean()) if n else float("nan"),
        **power_uses_per_game_dealt(df),
        **adjusted,
        "luck_variance_ratio": variance_ratio(adjusted) or None,
    }


def power_uses_per_game_dealt(df: pd.DataFrame) -> dict:
    """Each guide's power uses per game in which it was dealt at the start, for any seating.

    ``power_uses_per_game_dealt``: guide -> uses of its power (all seats) / games where a seat
    was dealt it (every game of the frame, finished or not; a guide never dealt is left out).
    ``power_uses_per_game_dealt_by_strategy``: strategy -> guide -> the uses of the games where
    a seat of that strategy was dealt the guide / those games. The engine counts a power's uses
    by game, not by seat: a use is credited to the seat dealt the guide at the start, so this is
    exact while no swap (7- or 8+ set, 🌀) moved the guide and approximate after one.
    """
    n = len(df)
    P = _seats(df)
    total: dict = {}
    by: dict = {}
    if not n:
        return {"power_uses_per_game_dealt": total, "power_uses_per_game_dealt_by_strategy": by}
    codes = np.stack([df[f"guide_{s}"].cat.codes.to_numpy() for s in range(P)], axis=1)
    seats = _strategy_seats(df, P)
    for a, name in enumerate(ANIMALS):
        uses = df[f"power_{name}"].to_numpy()
        holder = codes == a
        dealt = holder.any(axis=1)
        if dealt.any():
            total[name] = float(uses[dealt].sum() / dealt.sum())
        for st in sorted(seats):
            mine = (holder & seats[st]).any(axis=1)
            if mine.any():
                by.setdefault(st, {})[name] = float(uses[mine].sum() / mine.sum())
    return {"power_uses_per_game_dealt": total, "power_uses_per_game_dealt_by_strategy": by}


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
