"""Markdown summary of a Fire Mountain run: seat advantage, lengths, strategies, species, quakes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...analysis.intervals import wilson
from ...analysis.stats import t_interval
from ...analysis.metrics import light_seat_table, light_win_shares
from .. import registered
from ..base import pct_text, run_frame, seat_markdown, tidy_frames
from ..sections import heading_lines, strategy_lines, turns_lines
from .rules import MAX_PLAYERS, MIN_PLAYERS, SPECIES

#: Every player count the seed allows.
PLAYERS = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
#: The seed's readings (the defaults), the old model's readings, and the end-of-round option.
READINGS = {"seed readings (default)": {}, "fixed order of the dice": {"free_order": False},
            "Triceratops guards (old power)": {"triceratops_guards": True},
            "old model (fixed order, Triceratops power)": {"free_order": False, "triceratops_guards": True},
            "end of round (not the seed)": {"end": "round"}}


_pct = pct_text


def seat_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win share of each seat over decided games, 95 % Wilson interval, test against the fair
    1/players (:func:`heron_sim.analysis.metrics.light_seat_table`; a tie for the best score
    goes to the seat farthest from the first, so Fire Mountain has no shared win)."""
    return light_seat_table(df).rename(columns={"win_rate": "rate"})


def species_table(df: pd.DataFrame) -> pd.DataFrame:
    """For each species: win rate of seats that hatched at least one, against seats that hatched
    none (finished games; an observational comparison, not a controlled one)."""
    fin = df[df["finished"]]
    players = int(df["players"].iloc[0])
    rows = []
    for s in SPECIES:
        if f"hatched_{s}_0" not in fin:
            continue
        had = np.concatenate([fin[f"hatched_{s}_{p}"].to_numpy() > 0 for p in range(players)])
        won = light_win_shares(fin).T.ravel() > 0.5
        k1, n1 = int((had & won).sum()), int(had.sum())
        k0, n0 = int((~had & won).sum()), int((~had).sum())
        rows.append((s, n1 / max(1, len(had)), *wilson(k1, n1), *wilson(k0, n0)))
    return pd.DataFrame(rows, columns=["species", "share_hatched", "rate_with", "low_with",
                                       "high_with", "rate_without", "low_without", "high_without"])


def summarize(df: pd.DataFrame) -> str:
    """Markdown answering the game's questions (95 % intervals throughout)."""
    n = len(df)
    out = heading_lines(df, "La Colère de la Montagne de Feu")
    out += seat_markdown(df)
    out += turns_lines(df)
    m, lo, hi = t_interval(df["eruptions"])
    out.append(f"\nEruptions per game: {m:.2f} [{lo:.2f}, {hi:.2f}].")
    out += strategy_lines(df, "## Strategy win rates (per seat played)", "win rate [95 %]", wins=".0f")
    out += ["", "## Value of each species", "",
            "Win rate of seats that hatched at least one of the species vs seats that hatched none "
            "(observational: good players hatch more).", "",
            "| species | seats hatching | win rate with [95 %] | win rate without [95 %] |",
            "|---|---|---|---|"]
    for r in species_table(df).itertuples():
        out.append(f"| {r.species} | {100 * r.share_hatched:.1f} % | "
                   f"{_pct(r.rate_with, r.low_with, r.high_with)} | "
                   f"{_pct(r.rate_without, r.low_without, r.high_without)} |")
    quakes, flips = int(df["quakes"].sum()), int(df["quake_flips"].sum())
    m, lo, hi = t_interval(df["quakes"])
    out += ["", "## Earthquakes", "",
            f"Earthquakes per game: {m:.2f} [{lo:.2f}, {hi:.2f}].",
            f"Earthquakes that flip the majority of an occupied region: {flips} / {quakes} = "
            f"{_pct(*wilson(flips, quakes))} (Wilson; quakes of one game are not independent).",
            f"Games with at least one flip: {_pct(*wilson(int((df['quake_flips'] > 0).sum()), n))}.",
            f"Cro-Magnons sent back by Tyrannosaurs per game: {df['threatened'].mean():.2f}."]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- tidy frames for the report
#: This game, from the registry when called (its package registers it after importing this module).
_game = registered("fire-mountain")
seat_shares, readings, strategies = tidy_frames(_game, READINGS, PLAYERS)


def species_frame(games: int = 4000, seed: int = 1, players=PLAYERS) -> pd.DataFrame:
    """Win rate of seats that hatched each species against those that did not (observational),
    at every player count."""
    return pd.concat([species_table(run_frame(_game(), P, games, seed)).assign(players=P) for P in players],
                     ignore_index=True)
