"""Markdown summary of an Akeruption run: seats, length, strategies, wall kinds and hold rates."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...analysis.intervals import mean_interval, wilson
from .exact import hold_probability
from .rules import WALLS

_BONUS = {"straw": 0, "wood": 1, "stone": 2}


def _pct(rate: float, low: float, high: float) -> str:
    return f"{100 * rate:.1f} % [{100 * low:.1f}, {100 * high:.1f}]"


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
    out = [f"# Akeruption — {n} games, {players} players", "",
           f"Seats: `{df['seats'].iloc[0]}`; master seed {int(df['seed'].iloc[0])}; finished "
           f"{len(fin)} / {n}; shared wins (-1): {int((fin['winner'] < 0).sum())}.", "",
           f"## Seat advantage (share of wins, fair = {100 / players:.1f} %)", "",
           "| seat | wins | win rate [95 %] | mean final °C |", "|---|---|---|---|"]
    for p in range(players):
        k = int((fin["winner"] == p).sum())
        out.append(f"| {p} | {k} | {_pct(*wilson(k, len(fin)))} | {fin[f'temp_{p}'].mean():.0f} |")
    m, lo, hi = mean_interval(df["length"])
    q = np.percentile(df["length"], [0, 10, 25, 50, 75, 90, 100]) if n else [np.nan] * 7
    ends = df["end"].value_counts()
    out += ["", "## Game length (player turns)", "",
            f"Mean {m:.1f} [{lo:.1f}, {hi:.1f}] turns ({m / players:.1f} rounds). Ended by a burnt "
            f"village: {_pct(*wilson(int(ends.get('burnt', 0)), n))}; by the empty pile: "
            f"{_pct(*wilson(int(ends.get('pile', 0)), n))}.", "",
            "| min | p10 | p25 | median | p75 | p90 | max |", "|---|---|---|---|---|---|---|",
            "| " + " | ".join(f"{v:.0f}" for v in q) + " |", "",
            f"New eruptions per game: {df['eruptions'].mean():.2f}; flows into villages: "
            f"{df['flows'].mean():.1f}."]
    out += ["", "## Strategy win rates (per seat played)", "",
            "| strategy | wins | seat-games | win rate [95 %] |", "|---|---|---|---|"]
    wins: dict[str, int] = {}
    plays: dict[str, int] = {}
    for seats, grp in fin.groupby("seats"):
        for p, name in enumerate(seats.split(",")):
            plays[name] = plays.get(name, 0) + len(grp)
            wins[name] = wins.get(name, 0) + int((grp["winner"] == p).sum())
    for s in sorted(plays):
        out.append(f"| {s} | {wins[s]} | {plays[s]} | {_pct(*wilson(wins[s], plays[s]))} |")
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
                   f"| {r.exact:.4f} | {r.z:+.2f} | {stops / built if built else float('nan'):.2f} |")
    out += ["", "Win rate of seats by the kind of wall they built most (finished games):", "",
            "| most-built kind | seat-games | win rate [95 %] |", "|---|---|---|"]
    kinds = np.stack([np.stack([fin[f"built_{k}_{p}"].to_numpy() for k in WALLS], axis=1)
                      for p in range(players)])          # [P, games, 3]
    won = np.stack([fin["winner"].to_numpy() == p for p in range(players)])
    top = np.where(kinds.sum(axis=2) == 0, -1, kinds.argmax(axis=2))
    for k, kind in [(-1, "none"), *enumerate(WALLS)]:
        sel = top == k
        out.append(f"| {kind} | {int(sel.sum())} | {_pct(*wilson(int(won[sel].sum()), int(sel.sum())))} |")
    return "\n".join(out) + "\n"
