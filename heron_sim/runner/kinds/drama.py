"""When a game is decided, in winning chances (issue 59 item 2): lead changes, the decisive round,
comebacks from below 10 %, uncertainty and decisiveness, at each player count.

One batch of games per player count, one strategy at every seat (the file's ``strategy``). The
analysis replays the batch's games turn slot by turn slot (heron_sim.analysis.positions: the same
games, checked winner by winner), values every position by the worth of positions of these rules
and players (heron_sim.analysis.worth, built from ``build_games`` self-play games of another seed,
cached) and reads the story of each game (heron_sim.analysis.drama).

Facts: ``drama.<players>.<measure>`` (``lead_changes``, ``decisive_round``, ``rounds``,
``decided_before_last_round``, ``comebacks``, ``uncertainty``, ``decisiveness``).
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
import pandas as pd
from pydantic import Field

from ...errors import HeronSimError
from ...sections import Figure, Table, num_ci, pct_ci, plot
from ..jobs import Job
from ..options import HeronExperiment, PlayerCounts, figures_of
from .base import ExperimentKind, Sizes

FIGURES = ("curves",)

#: The measures, in the table's order: (key, label, is a share, digits, the fact's unit)
MEASURES = (
    ("lead_changes", "lead changes per game (best chance)", False, 1, "lead changes"),
    ("decisive_round", "decisive round (winner past 80 %)", False, 1, "rounds"),
    ("decided_before_last_round", "decided before the last round", True, 1, "share"),
    ("comebacks", "comebacks (winner once below 10 %)", True, 1, "share"),
    ("uncertainty", "openness (1: every player as likely to win, 0: decided)", False, 3, "index"),
    ("decisiveness", "share of turns played once decided", False, 3, "index"),
)


class DramaExperiment(HeronExperiment):
    """The options of an experiment file of kind ``drama``."""

    kind: Literal["drama"] = "drama"
    player_counts: PlayerCounts = (2, 4, 6)
    strategy: Annotated[str, Field(description="the strategy at every seat (one name)")] = "regular"
    build_games: Annotated[int, Field(ge=500, le=1_000_000,
                                      description="self-play games the worth of positions is built from")] = 20_000
    figures: figures_of(FIGURES) = FIGURES


class DramaKind(ExperimentKind):
    """Lead changes, the decisive round and comebacks, in winning chances, by player count."""

    name = "drama"
    options = DramaExperiment
    figures = FIGURES
    intro = "When the game is decided: each player's chance of winning at every turn, read game by game."

    def jobs(self, exp: DramaExperiment, g: Sizes) -> list[Job]:
        from ...strategies import parse_seating

        jobs = []
        for m in exp.modes:
            for P in exp.player_counts:
                rules = exp.rules.build(m, P)
                seating = parse_seating(exp.strategy, P)
                jobs.append(Job(f"games_{m}_{P}", "games", rules, g(exp.games), exp.seed, [seating],
                                labels={"mode": m, "players": P}))
        return jobs

    def fill(self, exp: DramaExperiment, data, sec) -> None:
        from ...analysis.drama import chances_of, measures, stories
        from ...analysis.positions import trace_turn_starts
        from ...analysis.worth import worth_of

        rows, curves = [], None
        shown_at = 4 if 4 in exp.player_counts else exp.player_counts[0]
        for m in exp.modes:
            for P in exp.player_counts:
                key = f"games_{m}_{P}"
                job = self.job(data, key)
                frame = data.frame(key)
                rules = data.rules(key)
                seating = list(job["seatings"][0])
                trace = trace_turn_starts(rules, seating, exp.seed, len(frame))
                if not np.array_equal(trace.winner.astype(np.int64), frame["winner"].to_numpy(np.int64)):
                    raise HeronSimError(f"--from: {data.folder}: the games of {key} replay differently "
                                        "(a run folder of another version? rerun it)")
                worth = worth_of(rules, seating, games=exp.build_games)
                chances = chances_of(trace, worth)
                meas = measures(stories(trace, chances))
                rows.append(self._facts(sec, m, P, meas))
                if curves is None and P == shown_at:
                    curves = _typical_games(trace, chances, P)
        shown = pd.DataFrame({label: [pct_ci(r[k]["value"], r[k]["low"], r[k]["high"]) if share
                                      else num_ci(r[k]["value"], r[k]["low"], r[k]["high"], digits)
                                      for r in rows]
                              for k, label, share, digits, _ in MEASURES},
                             index=[f"{r['players']} players" for r in rows])
        shown.insert(2, "mean rounds", [num_ci(r["rounds"]["value"], r["rounds"]["low"], r["rounds"]["high"], 1)
                                         for r in rows])
        sec.tables.append(Table("When the game is decided, by number of players (95 % intervals)", shown.T,
                                note=(f"Every player: {exp.strategy}; {rows[0]['games']:,} games a table, "
                                      "every turn valued by the worth of positions (docs/worth.md); the fair "
                                      "share is 1 / players, so a chance below 10 % is nearer the fair share "
                                      "at 6 players than at 2."),
                                data=_numbers(rows)))
        sec.findings.extend(_finding(r) for r in rows)
        if curves is not None and self.want(exp, "curves"):
            sec.figures.append(Figure("curves", "Each player's chance of winning, turn by turn, in three "
                                      "games (the first, the median and the longest of the batch)",
                                      plot("chance_curves", curves)))

    @staticmethod
    def _facts(sec, mode: str, P: int, meas: dict) -> dict:
        row = {"players": P, "games": meas["games"], "unfinished": meas["unfinished"]}
        for k, label, _, _, unit in MEASURES:
            v = meas[k]
            sec.fact(f"drama.{P}.{k}", f"{label}, {P} players", v["value"], v["low"], v["high"],
                     meas["games"], unit)
            row[k] = v
        r = meas["rounds"]
        sec.fact(f"drama.{P}.rounds", f"rounds per game, {P} players", r["value"], r["low"], r["high"], meas["games"],
                 "rounds")
        row["rounds"] = r
        return row


def _numbers(rows: list[dict]) -> pd.DataFrame:
    """The table's numbers: one row per player count, each measure's value, low and high."""
    out = []
    for r in rows:
        d = {"players": r["players"], "games": r["games"], "unfinished": r["unfinished"]}
        for k in [m[0] for m in MEASURES] + ["rounds"]:
            d.update({k: r[k]["value"], f"{k}_low": r[k]["low"], f"{k}_high": r[k]["high"]})
        out.append(d)
    return pd.DataFrame(out).set_index("players")


def _typical_games(trace, chances: np.ndarray, P: int) -> pd.DataFrame:
    """Three games' chances by slot (the first game, the one of median length, the longest):
    columns game, label, slot, round, seat, chance, winner."""
    games = trace.game.astype(np.int64)
    lengths = np.bincount(games)
    done = np.flatnonzero(trace.winner >= 0)
    if done.size == 0:
        return pd.DataFrame(columns=["game", "label", "slot", "round", "seat", "chance", "winner"])
    order = done[np.argsort(lengths[done], kind="stable")]
    picks = [("first game", int(done[0])), ("median length", int(order[order.size // 2])),
             ("longest", int(order[-1]))]
    parts = []
    for label, g in picks:
        rows = np.flatnonzero(games == g)
        for s in range(P):
            parts.append(pd.DataFrame({"game": g, "label": label, "slot": trace.slot[rows],
                                       "round": trace.slot[rows] / P + 1, "seat": s + 1,
                                       "chance": chances[rows, s], "winner": int(trace.winner[g]) + 1}))
    return pd.concat(parts, ignore_index=True)


def _finding(r: dict) -> str:
    d, c = r["decided_before_last_round"], r["comebacks"]
    return (f"At {r['players']} players the winner's chance passes 80 % in round "
            f"{r['decisive_round']['value']:.1f} of {r['rounds']['value']:.1f} on average; "
            f"{100 * d['value']:.0f} % of games are decided before their last round and "
            f"{100 * c['value']:.0f} % are won by a player whose chance once fell below 10 %.")
