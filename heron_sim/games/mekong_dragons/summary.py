"""Les Dragons du Mékong's Markdown summary: first-player advantage, length, strategies, cards."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...analysis.intervals import mean_interval, wilson
from .rules import CARDS


def _pct(rate, low, high) -> str:
    # clip the interval's rounding noise (a Wilson bound of -1e-17 would print as -0.0)
    return f"{100 * rate:.1f} % [{max(0.0, 100 * low):.1f}, {min(100.0, 100 * high):.1f}]"


def card_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per card: plays per seat and game, winners' and others' plays, and the win rate of the
    seat-games that played it at least once against those that did not (finished games)."""
    fin = df[df["finished"]]
    players = int(df["players"].iloc[0])
    won = np.stack([(fin["winner"] == i).to_numpy() for i in range(players)], axis=1)
    rows = []
    for card in CARDS:
        plays = fin[[f"{card}_{i}" for i in range(players)]].to_numpy()
        used = plays > 0
        k1, n1 = int((won & used).sum()), int(used.sum())
        k0, n0 = int((won & ~used).sum()), int((~used).sum())
        r1, l1, h1 = wilson(k1, n1)
        r0, l0, h0 = wilson(k0, n0)
        rows.append({"card": card, "plays": plays.mean() if plays.size else np.nan,
                     "winner": plays[won].mean() if won.any() else np.nan,
                     "others": plays[~won].mean() if (~won).any() else np.nan,
                     "used": (r1, l1, h1), "unused": (r0, l0, h0)})
    return pd.DataFrame(rows)


def summarize(df: pd.DataFrame) -> str:
    """Markdown answering the Mekong questions (see docs/games/mekong-dragons.md)."""
    n = len(df)
    players = int(df["players"].iloc[0])
    fin = df[df["finished"]]
    seats = df["seats"].iloc[0].split(",")
    colours = df["colours"].iloc[0].split(",")
    out = [f"# Les Dragons du Mékong: {n} games, {players} players ({', '.join(colours)}), "
           f"seats {df['seats'].iloc[0]}, seed {df['seed'].iloc[0]}", "",
           f"Finished: {len(fin)} / {n} (the others reached the round cap).", ""]
    if fin.empty:
        out.append("No game finished: nobody crossed the delta (too many planks lost?).")
        return "\n".join(out)
    out += [
           f"## First-player advantage (seat 0 starts with the statuette; fair = {100 / players:.1f} %)",
           "", "| seat | colour | strategy | wins | win rate |", "|---|---|---|---|---|"]
    for i in range(players):
        k = int((fin["winner"] == i).sum())
        out.append(f"| {i} | {colours[i]} | {seats[i]} | {k} | {_pct(*wilson(k, len(fin)))} |")

    m, lo, hi = mean_interval(fin["length"]) if len(fin) else (np.nan,) * 3
    q = fin["length"].quantile([0.05, 0.25, 0.5, 0.75, 0.95]) if len(fin) else pd.Series([np.nan] * 5)
    out += ["", f"## Length (rounds, {players} players; finished games)", "",
            f"Mean {m:.2f} [{lo:.2f}, {hi:.2f}]; 5/25/50/75/95 % quantiles "
            + " / ".join(f"{v:.0f}" for v in q) + ".", "", "| rounds | games |", "|---|---|"]
    for k, v in fin["length"].value_counts().sort_index().items():
        out.append(f"| {k} | {v} |")

    out += ["", "## Strategy win rates (per seat occupied, 95 % interval)", "",
            "| strategy | seats | wins | win rate |", "|---|---|---|---|"]
    for name in sorted(set(seats)):
        idx = [i for i in range(players) if seats[i] == name]
        k = int(fin["winner"].isin(idx).sum())
        out.append(f"| {name} | {len(idx)} | {k} | {_pct(*wilson(k, len(fin) * len(idx)))} |")

    out += ["", "## Value of each card", "",
            "Plays per seat and game; winners' and others' plays; win rate of the seat-games that "
            "played the card at least once and of those that did not (association, not cause: "
            "`forbidden_cards = [\"...\"]` in a --rules file removes a card from seat 0 and "
            "measures its value directly).", "",
            "| card | plays | winner | others | win rate if played | win rate if not |",
            "|---|---|---|---|---|---|"]
    for r in card_table(df).itertuples():
        out.append(f"| {r.card} | {r.plays:.2f} | {r.winner:.2f} | {r.others:.2f} | "
                   f"{_pct(*r.used)} | {_pct(*r.unused)} |")
    per = {k: df[[f"{k}_{i}" for i in range(players)]].to_numpy().sum(axis=1).mean()
           for k in ("cancelled", "water", "fallen", "placed")}
    out += ["", f"Per game: {per['cancelled']:.2f} cards cancelled by dragons, {per['water']:.2f} "
            f"falls in the water, {per['fallen']:.2f} planks lost (too short), {per['placed']:.2f} "
            f"planks laid; {df['stones_left'].mean():.1f} stones left in the reserve at the end."]
    return "\n".join(out)
