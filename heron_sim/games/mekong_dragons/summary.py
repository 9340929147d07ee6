"""Les Dragons du Mékong's Markdown summary: first-player advantage, length, strategies, cards."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...analysis.intervals import wilson
from .. import registered
from ..base import pct_text, run_frame, seat_markdown, tidy_frames
from ..sections import rounds_lines, strategy_lines
from .rules import CARDS

#: Every player count the seed allows (colours for 2..6 players).
PLAYERS = (2, 3, 4, 5, 6)
#: The model's choices that the issue questioned: the dragon's step (hidden programmes), and the
#: rotation control (the same board, islands renumbered).
READINGS = {"dragon step guessed (default)": {}, "dragon on the first step (old)": {"dragon_step": "first"},
            "board turned 180°": {"board_rotation": 3}, "no judgement error": {"judgement_error": 0.0}}


_pct = pct_text


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
    out += ["## First-player advantage (seat 1 starts with the statuette)", ""]
    out += seat_markdown(df, {"colour": colours, "strategy": seats})

    out += rounds_lines(fin["length"], f"## Length (rounds, {players} players; finished games)", extremes=False)
    out += strategy_lines(df, "## Strategy win rates (per seat occupied, 95 % interval)", "win rate",
                          wins_first=False, wins=".0f")

    out += ["", "## Value of each card", "",
            "Plays per seat and game; winners' and others' plays; win rate of the seat-games that "
            "played the card at least once and of those that did not (association, not cause: "
            "`forbidden_cards = [\"...\"]` in a --rules file removes a card from the first seat and "
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


# ---------------------------------------------------------------- tidy frames for the report
#: This game, from the registry when called (its package registers it after importing this module).
_game = registered("mekong-dragons")
seat_shares, readings, strategies = tidy_frames(_game, READINGS, PLAYERS)


def card_frame(games: int = 4000, seed: int = 1, players=PLAYERS) -> pd.DataFrame:
    """Card associations (:func:`card_table`, observational) at every player count, flattened."""
    rows = []
    for P in players:
        t = card_table(run_frame(_game(), P, games, seed))
        for r in t.itertuples():
            rows.append({"players": P, "card": r.card, "plays": r.plays, "winner": r.winner, "others": r.others,
                         "rate_used": r.used[0], "low_used": r.used[1], "high_used": r.used[2],
                         "rate_unused": r.unused[0], "low_unused": r.unused[1], "high_unused": r.unused[2]})
    return pd.DataFrame(rows)


def card_values(games: int = 4000, seed: int = 1, players=PLAYERS) -> pd.DataFrame:
    """A card's value measured by removing it from seat 0 (``forbidden_cards``): seat 0's win
    share with and without it on the same seeds, at every player count."""
    from ..base import seat_rows
    rows = []
    for P in players:
        base = seat_rows(run_frame(_game(), P, games, seed)).iloc[0]
        for card in CARDS:
            t = seat_rows(run_frame(_game(), P, games, seed, {"forbidden_cards": [card]})).iloc[0]
            rows.append({"players": P, "card": card, "share_with": base["win_rate"], "share_without": t["win_rate"],
                         "low_without": t["low"], "high_without": t["high"], "value": base["win_rate"] - t["win_rate"]})
    return pd.DataFrame(rows)
