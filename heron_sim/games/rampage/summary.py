"""Rampage's Markdown summary: seat advantage, length, strategies, skill, faces, scoring sources."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...analysis.intervals import wilson
from ...analysis.stats import t_interval
from ...analysis.metrics import light_seat_table, light_win_shares
from .. import registered
from ..base import pct_text, seat_markdown, tidy_frames
from ..sections import rounds_lines, strategy_lines

SOURCES = ("sets", "floors", "teeth", "char")
#: Every player count the seed allows.
PLAYERS = (2, 3, 4)
#: The seed's readings (the defaults) and the old model's, one at a time and together.
READINGS = {"seed readings (default)": {}, "end when all buildings are captured (old)": {"end_buildings": 0},
            "only street meeples edible (old)": {"edible": "street"},
            "fallen bodies no obstacle (old)": {"fallen_obstacles": False},
            "old model (all three)": {"end_buildings": 0, "edible": "street", "fallen_obstacles": False}}


_pct = pct_text


def seat_table(df: pd.DataFrame) -> pd.DataFrame:
    """Win share of each seat over decided games (a tie for first counts 1/k to each of the k
    tied), 95 % Wilson interval and Holm p against 1/players; with strategy and skill."""
    t = light_seat_table(df).rename(columns={"win_rate": "rate"})
    t.insert(1, "strategy", df["seats"].iloc[0].split(","))
    t.insert(2, "skill", [float(df[f"skill_{i}"].iloc[0]) if f"skill_{i}" in df else np.nan for i in t["seat"]])
    return t


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
    out += ["", "## Seat advantage", ""]
    out += seat_markdown(df, {"strategy": df["seats"].iloc[0].split(","),
                              "skill": [f"{float(df[f'skill_{i}'].iloc[0]):.2f}" for i in range(players)]})

    out += rounds_lines(df["length"])
    out += strategy_lines(df, "## Strategy win rates (per seat occupied, 95 % interval)", "win rate",
                          wins_first=False)

    skills = np.array([float(df[f"skill_{i}"].iloc[0]) for i in range(players)])
    out += ["", "## How much skill decides the winner", ""]
    if np.ptp(skills) == 0:
        out.append(f"All seats have skill {skills[0]:.2f}: give `skills = [...]` in a --rules file "
                   "to seat players of different skills.")
    else:
        top = np.flatnonzero(skills == skills.max())
        sh = light_win_shares(fin)
        sh = sh[sh.sum(axis=1) > 0.5]
        k = float(sh[:, top].sum())
        rate, low, high = wilson(k, len(sh))
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
    em, elo, ehi = t_interval(df["escaped"])
    fm, flo, fhi = t_interval(df["fires"])
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


# ---------------------------------------------------------------- tidy frames for the report
#: This game, from the registry when called (its package registers it after importing this module).
_game = registered("rampage")
seat_shares, readings, strategies = tidy_frames(_game, READINGS, PLAYERS)


def skill_frame(games: int = 4000, seed: int = 1, players=PLAYERS, long_game: bool = False) -> pd.DataFrame:
    """Win share of a skill-1 seat against skill-0 seats (the skilled seat rotated over the
    seats), at every player count; ``long_game``: every building must fall (end_buildings 0)."""
    from ..base import run_frame
    from ...analysis.metrics import share_test
    rows = []
    for P in players:
        parts = []
        for s in range(P):
            skills = [1.0 if i == s else 0.0 for i in range(P)]
            over = {"skills": skills} | ({"end_buildings": 0} if long_game else {})
            sh = light_win_shares(run_frame(_game(), P, max(1, games // P), seed + s, over))
            sh = sh[sh.sum(axis=1) > 0.5]
            parts.append(sh[:, s])
        t = share_test(np.concatenate(parts), 1 / P)
        rows.append({"players": P, "long_game": long_game, **t, "fair": 1 / P})
    return pd.DataFrame(rows)
