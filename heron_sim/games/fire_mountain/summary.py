"""Markdown summary of a Fire Mountain run: seat advantage, lengths, strategies, species, quakes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...analysis.intervals import mean_interval, wilson
from .rules import SPECIES


def _pct(rate: float, low: float, high: float) -> str:
    return f"{100 * rate:.1f} % [{100 * low:.1f}, {100 * high:.1f}]"


def seat_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win rate of each seat among finished games, with its 95 % Wilson interval."""
    fin = df[df["finished"]]
    n = len(fin)
    players = int(df["players"].iloc[0])
    rows = []
    for p in range(players):
        k = int((fin["winner"] == p).sum())
        rows.append((p, k, n, *wilson(k, n)))
    return pd.DataFrame(rows, columns=["seat", "wins", "games", "rate", "low", "high"])


def strategy_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win rate of each strategy per seat played (finished games), with a Wilson interval."""
    fin = df[df["finished"]]
    wins: dict[str, int] = {}
    plays: dict[str, int] = {}
    for seats, grp in fin.groupby("seats"):
        names = seats.split(",")
        for p, name in enumerate(names):
            plays[name] = plays.get(name, 0) + len(grp)
            wins[name] = wins.get(name, 0) + int((grp["winner"] == p).sum())
    rows = [(s, wins[s], plays[s], *wilson(wins[s], plays[s])) for s in sorted(plays)]
    return pd.DataFrame(rows, columns=["strategy", "wins", "seat_games", "rate", "low", "high"])


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
        won = np.concatenate([fin["winner"].to_numpy() == p for p in range(players)])
        k1, n1 = int((had & won).sum()), int(had.sum())
        k0, n0 = int((~had & won).sum()), int((~had).sum())
        rows.append((s, n1 / max(1, len(had)), *wilson(k1, n1), *wilson(k0, n0)))
    return pd.DataFrame(rows, columns=["species", "share_hatched", "rate_with", "low_with",
                                       "high_with", "rate_without", "low_without", "high_without"])


def summarize(df: pd.DataFrame) -> str:
    """Markdown answering the game's questions (95 % intervals throughout)."""
    n = len(df)
    players = int(df["players"].iloc[0])
    fin = df[df["finished"]]
    out = [f"# La Colère de la Montagne de Feu — {n} games, {players} players",
           "", f"Seats: `{df['seats'].iloc[0]}`; master seed {int(df['seed'].iloc[0])}; "
           f"finished {len(fin)} / {n}.", "", "## Seat advantage (share of wins, fair = "
           f"{100 / players:.1f} %)", "", "| seat | wins | win rate [95 %] |", "|---|---|---|"]
    for r in seat_table(df).itertuples():
        out.append(f"| {r.seat} | {r.wins} | {_pct(r.rate, r.low, r.high)} |")
    m, lo, hi = mean_interval(df["length"])
    q = np.percentile(df["length"], [0, 10, 25, 50, 75, 90, 100]) if n else [np.nan] * 7
    out += ["", "## Game length (player turns)", "",
            f"Mean {m:.1f} [{lo:.1f}, {hi:.1f}] turns ({m / players:.1f} rounds).", "",
            "| min | p10 | p25 | median | p75 | p90 | max |", "|---|---|---|---|---|---|---|",
            "| " + " | ".join(f"{v:.0f}" for v in q) + " |"]
    m, lo, hi = mean_interval(df["eruptions"])
    out.append(f"\nEruptions per game: {m:.2f} [{lo:.2f}, {hi:.2f}].")
    out += ["", "## Strategy win rates (per seat played)", "",
            "| strategy | wins | seat-games | win rate [95 %] |", "|---|---|---|---|"]
    for r in strategy_table(df).itertuples():
        out.append(f"| {r.strategy} | {r.wins} | {r.seat_games} | {_pct(r.rate, r.low, r.high)} |")
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
    m, lo, hi = mean_interval(df["quakes"])
    out += ["", "## Earthquakes", "",
            f"Earthquakes per game: {m:.2f} [{lo:.2f}, {hi:.2f}].",
            f"Earthquakes that flip the majority of an occupied region: {flips} / {quakes} = "
            f"{_pct(*wilson(flips, quakes))} (Wilson; quakes of one game are not independent).",
            f"Games with at least one flip: {_pct(*wilson(int((df['quake_flips'] > 0).sum()), n))}.",
            f"Cro-Magnons sent back by Tyrannosaurs per game: {df['threatened'].mean():.2f}."]
    return "\n".join(out) + "\n"
