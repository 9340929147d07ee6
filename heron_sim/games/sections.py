"""The sections every lighter game's summary shares, and the summary a game gets by default.

A game's ``summarize(df)`` writes Markdown; the sections here are its common parts, each a list
of lines in the words the games' pages already use (the report translates them phrase by
phrase: :mod:`heron_sim.report.game_lang`): the heading (:func:`heading_lines`), the seat
advantage (:func:`~.base.seat_markdown`), the length in player turns (:func:`turns_lines`) or in
rounds (:func:`rounds_lines`), the strategies' win shares (:func:`strategy_lines`).
:func:`default_summary` puts them together; a game extends it with its own questions
(functions of the frame giving more lines) instead of writing the rest again.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np
import pandas as pd

from .base import pct_text, seat_markdown

#: A question a game adds to its default summary: the frame -> Markdown lines (its own heading
#: first, "## ...").
Question = Callable[[pd.DataFrame], list]


def heading_lines(df: pd.DataFrame, title: str, shared: bool = False) -> list[str]:
    """``# Title — n games, P players`` and the run's seats, master seed and finished games
    (``shared``: with the shared wins among them), then the seat advantage's heading."""
    n = len(df)
    players = int(df["players"].iloc[0])
    fin = df[df["finished"]]
    tail = f"; shared wins: {int((fin['winner'] < 0).sum())}." if shared else "."
    return [f"# {title} — {n} games, {players} players", "",
            f"Seats: `{df['seats'].iloc[0]}`; master seed {int(df['seed'].iloc[0])}; finished "
            f"{len(fin)} / {n}{tail}", "", "## Seat advantage", ""]


def turns_lines(df: pd.DataFrame, after_mean: str = "") -> list[str]:
    """The length of a game counted in player turns: its mean (t interval) and in rounds, then
    ``after_mean`` on the same line, and a table of quantiles."""
    from ..analysis.stats import t_interval

    n = len(df)
    players = int(df["players"].iloc[0])
    m, lo, hi = t_interval(df["length"])
    q = np.percentile(df["length"], [0, 10, 25, 50, 75, 90, 100]) if n else [np.nan] * 7
    return ["", "## Game length (player turns)", "",
            f"Mean {m:.1f} [{lo:.1f}, {hi:.1f}] turns ({m / players:.1f} rounds).{after_mean}", "",
            "| min | p10 | p25 | median | p75 | p90 | max |", "|---|---|---|---|---|---|---|",
            "| " + " | ".join(f"{v:.0f}" for v in q) + " |"]


def rounds_lines(lengths: pd.Series, heading: str = "## Length (rounds)", extremes: bool = True) -> list[str]:
    """The length of a game counted in rounds (``lengths``: the games measured): its mean (t
    interval), quantiles (``extremes``: and its min and max), and how many games lasted each
    number of rounds."""
    from ..analysis.stats import t_interval

    if len(lengths):
        m, lo, hi = t_interval(lengths)
        q = lengths.quantile([0.05, 0.25, 0.5, 0.75, 0.95])
    else:
        m = lo = hi = np.nan
        q = pd.Series([np.nan] * 5)
    tail = f"; min {lengths.min()}, max {lengths.max()}." if extremes else "."
    out = ["", heading, "",
           f"Mean {m:.2f} [{lo:.2f}, {hi:.2f}]; 5/25/50/75/95 % quantiles "
           + " / ".join(f"{v:.0f}" for v in q) + tail, "", "| rounds | games |", "|---|---|"]
    for k, v in lengths.value_counts().sort_index().items():
        out.append(f"| {k} | {v} |")
    return out


def strategy_lines(df: pd.DataFrame, heading: str = "## Strategy win shares (per seat played; a shared win counts 1/k)",
                   rate: str = "win share [95 %]", wins_first: bool = True, wins: str = ".1f") -> list[str]:
    """Each strategy's win share over the seats it played
    (:func:`heron_sim.analysis.metrics.light_strategy_table`, a shared win 1/k to each
    co-winner) with its 95 % Wilson interval, as a table: strategy, wins and seat-games (or
    seat-games and wins: ``wins_first``), ``rate``."""
    from ..analysis.metrics import light_strategy_table

    cols = "wins | seat-games" if wins_first else "seat-games | wins"
    out = ["", heading, "", f"| strategy | {cols} | {rate} |", "|---|---|---|---|"]
    t = light_strategy_table(df)
    for r in t[t["seat"].astype(str) == "all"].itertuples():
        counts = (f"{r.wins:{wins}} | {r.seat_games}" if wins_first else f"{r.seat_games} | {r.wins:{wins}}")
        out.append(f"| {r.strategy} | {counts} | {pct_text(r.win_rate, r.low, r.high)} |")
    return out


def default_summary(df: pd.DataFrame, title: str, unit: str = "turns",
                    questions: Iterable[Question] = ()) -> str:
    """A game's summary with nothing of its own: the heading, the seat advantage, the length
    (``unit``: "turns", player turns, or "rounds"), the strategies' win shares, then each of
    the game's ``questions``."""
    out = heading_lines(df, title, shared=True)
    out += seat_markdown(df)
    out += turns_lines(df) if unit == "turns" else rounds_lines(df["length"])
    out += strategy_lines(df)
    for question in questions:
        out += ["", *question(df)]
    return "\n".join(out) + "\n"


def summary_of(title: str, unit: str = "turns", questions: Iterable[Question] = ()) -> Callable[[pd.DataFrame], str]:
    """``summarize(df)`` for a game: :func:`default_summary` with its title, unit and questions."""
    questions = tuple(questions)
    if unit not in ("turns", "rounds"):
        from ..errors import HeronSimError

        raise HeronSimError(f"unit: {unit!r}; allowed: turns, rounds")

    def summarize(df: pd.DataFrame) -> str:
        return default_summary(df, title, unit, questions)

    summarize.__doc__ = f"Markdown summary of a {title} run: seats, length ({unit}), strategies" + \
        (", and the game's own questions." if questions else ".")
    return summarize


__all__ = ["Question", "default_summary", "heading_lines", "rounds_lines", "strategy_lines", "summary_of",
           "turns_lines"]
