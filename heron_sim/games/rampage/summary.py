"""Rampage's Markdown summary: seat advantage, length, strategies, skill, faces, scoring sources."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...analysis.intervals import mean_interval, wilson

SOURCES = ("sets", "floors", "teeth", "char")


def _pct(rate, low, high) -> str:
    # clip the interval's rounding noise (a Wilson bound of -1e-17 would print as -0.0)
    return f"{100 * rate:.1f} % [{max(0.0, 100 * low):.1f}, {min(100.0, 100 * high):.1f}]"


def seat_table(df: pd.DataFrame) -> pd.DataFrame:
    """Wins of each seat with a 95 % Wilson interval (finished games only)."""
    fin = df[df["finished"]]
    players = int(df["players"].iloc[0])
    rows = []
    for i in range(players):
        k = int((fin["winner"] == i).sum())
        rate, low, high = wilson(k, len(fin))
        rows.append({"seat": i, "strategy": df["seats"].iloc[0].split(",")[i],
                     "skill": float(df[f"skill_{i}"].iloc[0]) if f"skill_{i}" in df else np.nan,
                     "wins": k, "rate": rate, "low": low, "high": high})
    return pd.DataFrame(rows)


def strategy_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win rate of each strategy per seat it occupied, with a 95 % Wilson interval."""
    fin = df[df["finished"]]
    players = int(df["players"].iloc[0])
    seats = df["seats"].iloc[0].split(",")
    rows = []
    for name in sorted(set(seats)):
        idx = [i for i in range(players) if seats[i] == name]
        k = int(fin["winner"].isin(idx).sum())
        n = len(fin) * len(idx)
        rate, low, high = wilson(k, n)
        rows.append({"strategy": name, "seats": len(idx), "wins": k, "rate": rate, "low": low, "high": high})
    return pd.DataFrame(rows)


def source_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per scoring source: mean points of winners and of the others, how often the winner leads
    that source, and how often it is the source of the winner's largest lead over the runner-up."""
    fin = df[df["finished"] & (df["winner"] >= 0)]
    players = int(df["players"].iloc[0])
    if fin.empty:
        return pd.DataFrame()
    w = fin["winner"].to_numpy()
    pts = {s: fin[[f"{s}_{i}" for i in range(players)]].to_numpy(float) for s in SOURCES}
    score = fin[[f"score_{i}" for i in range(players)]].to_numpy(float)
    rows_idx = np.arange(len(fin))
    masked = score.copy()
    masked[rows_idx, w] = -np.inf
    runner = masked.argmax(axis=1)
    margins = np.stack([pts[s][rows_idx, w] - pts[s][rows_idx, runner] for s in SOURCES], axis=1)
    deciding = margins.argmax(axis=1)
    rows = []
    for k, s in enumerate(SOURCES):
        mine = pts[s][rows_idx, w]
        others = (pts[s].sum(axis=1) - mine) / (players - 1)
        leads = mine >= pts[s].max(axis=1)
        rows.append({"source": s, "winner_mean": mine.mean(), "others_mean": others.mean(),
                     "winner_leads": leads.mean(), "largest_margin": (deciding == k).mean()})
    return pd.DataFrame(rows)


def summarize(df: pd.DataFrame) -> str:
    """Markdown answering Rampage's questions (see docs/games/rampage.md)."""
    n = len(df)
    players = int(df["players"].iloc[0])
    fin = df[df["finished"]]
    out = [f"# Rampage: {n} games, {players} players, seats {df['seats'].iloc[0]}, "
           f"escape face {df['face'].iloc[0]}, seed {df['seed'].iloc[0]}", ""]
    reasons = df["end_reason"].value_counts()
    ties = int((fin["winner"] < 0).sum())
    out.append(f"Finished: {len(fin)} / {n}; ended by buildings {reasons.get('buildings', 0)}, "
               f"by line 6 {reasons.get('line6', 0)}, stopped at the cap {reasons.get('cap', 0)}; "
               f"ties for first {ties}.")
    out += ["", "## Seat advantage (win rate, 95 % interval; fair = "
            f"{100 / players:.1f} %)", "", "| seat | strategy | skill | wins | win rate |",
            "|---|---|---|---|---|"]
    for r in seat_table(df).itertuples():
        out.append(f"| {r.seat} | {r.strategy} | {r.skill:.2f} | {r.wins} | {_pct(r.rate, r.low, r.high)} |")

    m, lo, hi = mean_interval(df["length"])
    q = df["length"].quantile([0.05, 0.25, 0.5, 0.75, 0.95])
    out += ["", "## Length (rounds)", "",
            f"Mean {m:.2f} [{lo:.2f}, {hi:.2f}]; 5/25/50/75/95 % quantiles "
            f"{q.iloc[0]:.0f} / {q.iloc[1]:.0f} / {q.iloc[2]:.0f} / {q.iloc[3]:.0f} / {q.iloc[4]:.0f}; "
            f"min {df['length'].min()}, max {df['length'].max()}.", "", "| rounds | games |", "|---|---|"]
    for k, v in df["length"].value_counts().sort_index().items():
        out.append(f"| {k} | {v} |")

    out += ["", "## Strategy win rates (per seat occupied, 95 % interval)", "",
            "| strategy | seats | wins | win rate |", "|---|---|---|---|"]
    for r in strategy_table(df).itertuples():
        out.append(f"| {r.strategy} | {r.seats} | {r.wins} | {_pct(r.rate, r.low, r.high)} |")

    skills = np.array([float(df[f"skill_{i}"].iloc[0]) for i in range(players)])
    out += ["", "## How much skill decides the winner", ""]
    if np.ptp(skills) == 0:
        out.append(f"All seats have skill {skills[0]:.2f}: give `skills = [...]` in a --rules file "
                   "to seat players of different skills.")
    else:
        top = np.flatnonzero(skills == skills.max())
        k = int(fin["winner"].isin(top).sum())
        rate, low, high = wilson(k, len(fin))
        fair = len(top) / players
        out.append(f"The most skilled seat(s) {list(map(int, top))} (skill {skills.max():.2f}) win "
                   f"{_pct(rate, low, high)} of finished games (no skill effect: {100 * fair:.1f} %).")
        w = fin["winner"].to_numpy()
        ok = w >= 0
        if ok.any():
            ws = skills[w[ok]]
            out.append(f"Mean skill of the winner {ws.mean():.3f} against a seat average of "
                       f"{skills.mean():.3f}.")

    out += ["", f"## Escape board (face {df['face'].iloc[0]})", ""]
    em, elo, ehi = mean_interval(df["escaped"])
    fm, flo, fhi = mean_interval(df["fires"])
    l6 = int((df["end_reason"] == "line6").sum())
    rate, low, high = wilson(l6, n)
    what = "lines" if df["face"].iloc[0] == "A" else "zones"
    out.append(f"Meeples escaped per game {em:.2f} [{elo:.2f}, {ehi:.2f}]; {what} completed per game "
               f"{fm:.2f} [{flo:.2f}, {fhi:.2f}]; games ended by line 6 {_pct(rate, low, high)}.")
    lost = df[[f"lost_{i}" for i in range(players)]].to_numpy().mean()
    out.append(f"Teeth lost per monster per game {lost:.2f}. Compare faces by running again with "
               "`escape_face = \"B\"` (or \"A\") in a --rules file.")

    out += ["", "## Which scoring source wins games", ""]
    st = source_table(df)
    if st.empty:
        out.append("No game with a single winner.")
    else:
        out += ["| source | winner's mean points | others' mean points | winner leads it | "
                "winner's largest margin |", "|---|---|---|---|---|"]
        for r in st.itertuples():
            out.append(f"| {r.source} | {r.winner_mean:.2f} | {r.others_mean:.2f} | "
                       f"{100 * r.winner_leads:.1f} % | {100 * r.largest_margin:.1f} % |")
    acts = {a: df[[f"{a}_{i}" for i in range(players)]].to_numpy().sum() for a in ("move", "throw", "drop", "blow")}
    tot = sum(acts.values()) or 1
    out += ["", "Actions taken: " + ", ".join(f"{a} {100 * v / tot:.1f} %" for a, v in acts.items()) + "."]
    return "\n".join(out)
