"""Markdown summary of an Akeruption run: seats, length, strategies, wall kinds and hold rates."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...analysis.intervals import wilson
from ...analysis.metrics import light_win_shares
from .. import registered
from ..base import pct_text, seat_markdown, tidy_frames
from ..sections import heading_lines, strategy_lines, turns_lines
from .exact import hold_probability
from .rules import MAX_PLAYERS, MIN_PLAYERS, WALLS

#: Every player count the seed allows.
PLAYERS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
#: The seed's readings (the defaults) and, for each, the old model's reading.
READINGS = {"seed readings (default)": {}, "zones at or above (>=)": {"strict_zones": False},
            "no bypass of walls": {"wall_bypass": False}, "only walls facing a flow tested": {"test_every_wall": False},
            "old model (all three)": {"strict_zones": False, "wall_bypass": False, "test_every_wall": False}}

_BONUS = {"straw": 0, "wood": 1, "stone": 2}


_pct = pct_text


def hold_table(df: pd.DataFrame) -> pd.DataFrame:
    """Observed hold rate of each wall kind against the exact rate (its die bonus), with the
    deviation in standard errors."""
    rows = []
    for kind in WALLS:
        n, k = int(df[f"tests_{kind}"].sum()), int(df[f"holds_{kind}"].sum())
        bonus = int(df[f"bonus_{kind}"].iloc[0]) if f"bonus_{kind}" in df else _BONUS[kind]
        exact = float(hold_probability(bonus))
        se = math.sqrt(exact * (1 - exact) / n) if n else math.nan
        rows.append((kind, n, k, *wilson(k, n), exact, (k / n - exact) / se if n else math.nan))
    return pd.DataFrame(rows, columns=["kind", "tests", "holds", "rate", "low", "high", "exact", "z"])


def summarize(df: pd.DataFrame) -> str:
    """Markdown answering the game's questions (95 % intervals throughout)."""
    n = len(df)
    players = int(df["players"].iloc[0])
    fin = df[df["finished"]]
    out = heading_lines(df, "Akeruption", shared=True)
    out += seat_markdown(df, {"mean final °C": [f"{fin[f'temp_{p}'].mean():.0f}" for p in range(players)]})
    ends = df["end"].value_counts()
    out += turns_lines(df, f" Ended by a burnt village: {_pct(*wilson(int(ends.get('burnt', 0)), n))}; by the "
                           f"empty pile: {_pct(*wilson(int(ends.get('pile', 0)), n))}.")
    out += ["", f"New eruptions per game: {df['eruptions'].mean():.2f}; flows into villages: "
            f"{df['flows'].mean():.1f}."]
    out += strategy_lines(df)
    out += ["", "## Wall kinds", "",
            "Hold rate of the dice test (white + bonus > orange, ties to the lava) against the exact "
            "rate from the 36 outcomes; *stops* = times a wall of that kind stood against lava "
            "(each stop of a village wall keeps out a flow's heat that turn).", "",
            "| kind | built / game | tests | hold rate [95 %] | exact | z | stops per wall built |",
            "|---|---|---|---|---|---|---|"]
    for r in hold_table(df).itertuples():
        built = sum(df[f"built_{r.kind}_{p}"].sum() for p in range(players))
        stops = df[f"stops_{r.kind}"].sum()
        out.append(f"| {r.kind} | {built / max(1, n):.2f} | {r.tests} | {_pct(r.rate, r.low, r.high)} "
                   f"| {r.exact:.4f} | {r.z:+z.2f} | {stops / built if built else float('nan'):.2f} |")
    out += ["", "Win rate of seats by the kind of wall they built most (finished games):", "",
            "| most-built kind | seat-games | win rate [95 %] |", "|---|---|---|"]
    kinds = np.stack([np.stack([fin[f"built_{k}_{p}"].to_numpy() for k in WALLS], axis=1)
                      for p in range(players)])          # [P, games, 3]
    won = light_win_shares(fin).T                       # [P, games], shared wins as fractions
    top = np.where(kinds.sum(axis=2) == 0, -1, kinds.argmax(axis=2))
    for k, kind in [(-1, "none"), *enumerate(WALLS)]:
        sel = top == k
        out.append(f"| {kind} | {int(sel.sum())} | {_pct(*wilson(float(won[sel].sum()), int(sel.sum())))} |")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- tidy frames for the report
#: This game, from the registry when called (its package registers it after importing this module).
_game = registered("akeruption")
seat_shares, readings, strategies = tidy_frames(_game, READINGS, PLAYERS)


def wall_frame(games: int = 4000, seed: int = 1, players=PLAYERS) -> pd.DataFrame:
    """Hold rate of each wall kind against the exact rate, at every player count."""
    from ..base import run_frame
    return pd.concat([hold_table(run_frame(_game(), P, games, seed)).assign(players=P) for P in players],
                     ignore_index=True)
