"""The story of a game in winning chances: when it was decided, how often the lead changed hands,
how often a player given little chance came back.

From a trace (heron_sim.analysis.positions, every turn slot's starting position of sampled games)
and the worth of positions (heron_sim.analysis.worth), each seat's chance of winning at the start
of every slot, then the game's end (the winner's chance 1). Per game:

- **lead changes**: how many times the seat with the best chance changes (a tie for the best
  chance names nobody and changes nothing);
- **decisive turn**: the round at whose start the winner's chance first reaches 80 %, also as a
  share of the game's rounds (1: only its last turn decided it);
- **decided before the last round**: the winner's chance reached 80 % before the last round began;
- **comeback**: the winner's chance was below 10 % at the start of some slot;
- **uncertainty**: the mean, over the slots, of the entropy of the chances divided by its largest
  value, log(players) (1: every seat as likely to win, 0: the winner known) -- Ludii's
  *Uncertainty*, in winning chances;
- **decisiveness**: the share of the game's slots played after the winner's chance first reached
  80 % (0: decided at the very end) -- the length of the end a designer would call played out.

Every figure is a mean over games, given with a 95 % interval (normal approximation over the
games, which are independent; a share's interval is Wilson's). Unfinished games are counted
apart and left out of the figures (they have no winner).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: The winner's chance from which a game is called decided.
DECIDED = 0.80
#: A chance below which a later win is a comeback.
LONG_SHOT = 0.10


@dataclass
class GameStory:
    """Per finished game: ``lead_changes``, ``decisive_round`` (the round at whose start the
    winner's chance first reached DECIDED), ``rounds``, ``decided_early`` (before the last
    round), ``comeback``, ``uncertainty``, ``decisiveness``."""

    lead_changes: np.ndarray
    decisive_round: np.ndarray
    rounds: np.ndarray
    decided_early: np.ndarray
    comeback: np.ndarray
    uncertainty: np.ndarray
    decisiveness: np.ndarray
    unfinished: int


def chances_of(trace, worth) -> np.ndarray:
    """Each seat's chance of winning at the start of every slot of ``trace`` (float64[slots,
    players])."""
    return worth.chances(trace.pos, trace.guide, trace.ready, trace.to_move)


def stories(trace, chances: np.ndarray) -> GameStory:
    """The measures of every finished game of ``trace`` (chances: :func:`chances_of`)."""
    P = trace.players
    games = trace.game.astype(np.int64)
    starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]])
    ends = np.r_[starts[1:], games.size]
    out = {k: [] for k in ("lead_changes", "decisive_round", "rounds", "decided_early", "comeback",
                           "uncertainty", "decisiveness")}
    unfinished = 0
    for a, b in zip(starts, ends):
        winner = int(trace.winner[games[a]])
        if winner < 0:
            unfinished += 1
            continue
        c = chances[a:b]
        slot_round = trace.slot[a:b] // P  # 0 = the first round
        rounds = int(slot_round[-1]) + 1
        best = c.max(axis=1)
        unique = (c == best[:, None]).sum(axis=1) == 1
        leader = np.where(unique, c.argmax(axis=1), -1)
        named = leader[leader >= 0]
        changes = int((named[1:] != named[:-1]).sum()) if named.size else 0
        mine = c[:, winner]
        reached = np.flatnonzero(mine >= DECIDED)
        first = int(reached[0]) if reached.size else b - a  # b - a: only at the end
        decisive_round = int(slot_round[first]) + 1 if reached.size else rounds
        ent = -(np.where(c > 0, c * np.log(np.maximum(c, 1e-300)), 0.0)).sum(axis=1) / math.log(P)
        out["lead_changes"].append(changes)
        out["decisive_round"].append(decisive_round)
        out["rounds"].append(rounds)
        out["decided_early"].append(decisive_round < rounds)
        out["comeback"].append(bool((mine < LONG_SHOT).any()))
        out["uncertainty"].append(float(ent.mean()))
        out["decisiveness"].append((b - a - first) / (b - a))
    arr = {k: np.array(v, dtype=np.float64) for k, v in out.items()}
    return GameStory(unfinished=unfinished, **arr)


def _mean(x: np.ndarray) -> dict:
    n = int(x.size)
    if n == 0:
        return {"value": math.nan, "low": math.nan, "high": math.nan}
    m = float(x.mean())
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return {"value": m, "low": m - half, "high": m + half}


def _share(x: np.ndarray) -> dict:
    from .intervals import wilson

    n = int(x.size)
    if n == 0:
        return {"value": math.nan, "low": math.nan, "high": math.nan}
    k = int(x.sum())
    _, lo, hi = wilson(k, n)
    return {"value": k / n, "low": float(lo), "high": float(hi)}


def measures(story: GameStory) -> dict:
    """The figures a designer reads, each ``{value, low, high}`` (95 %), and the games."""
    rel = story.decisive_round / np.maximum(story.rounds, 1)
    return {
        "games": int(story.rounds.size),
        "unfinished": int(story.unfinished),
        "rounds": _mean(story.rounds),
        "lead_changes": _mean(story.lead_changes),
        "decisive_round": _mean(story.decisive_round),
        "decisive_share": _mean(rel),
        "decided_before_last_round": _share(story.decided_early),
        "comebacks": _share(story.comeback),
        "uncertainty": _mean(story.uncertainty),
        "decisiveness": _mean(story.decisiveness),
        "decided_at": DECIDED,
        "long_shot": LONG_SHOT,
    }


def trace_frame(trace, chances: np.ndarray):
    """One row per slot start, then each game's end: game (its number), slot, round, to_move
    (the seat to move, 1-based; 0 on the end row), each seat's square and chance of winning."""
    import pandas as pd

    P = trace.players
    games = trace.game.astype(np.int64)
    ends = np.flatnonzero(np.r_[games[1:] != games[:-1], True])
    # the end rows: after the last slot, the winner's chance 1 (unfinished: the last chances)
    end_c = chances[ends].copy()
    won = trace.winner[games[ends]]
    fin = won >= 0
    end_c[fin] = 0.0
    end_c[np.flatnonzero(fin), won[fin]] = 1.0
    data = {
        "game": np.r_[trace.number[games], trace.number[games[ends]]],
        "slot": np.r_[trace.slot, trace.slot[ends] + 1].astype(np.int64),
        "to_move": np.r_[trace.to_move.astype(np.int64) + 1, np.zeros(ends.size, dtype=np.int64)],
    }
    for s in range(P):
        data[f"square_{s + 1}"] = np.r_[trace.pos[:, s], trace.final[games[ends], s]].astype(np.int64)
    for s in range(P):
        data[f"chance_{s + 1}"] = np.r_[chances[:, s], end_c[:, s]]
    frame = pd.DataFrame(data)
    frame["round"] = frame["slot"] // P + 1
    order = np.lexsort((frame["slot"].to_numpy(), frame["game"].to_numpy()))
    frame = frame.iloc[order].reset_index(drop=True)
    return frame[["game", "slot", "round", "to_move"] + [f"square_{s + 1}" for s in range(P)]
                 + [f"chance_{s + 1}" for s in range(P)]]


@dataclass
class TracedGames:
    """:func:`trace_games`' answer: the trace's frame (:func:`trace_frame`), the measures
    (:func:`measures`), the games traced and whether a stop cut them short."""

    frame: object
    measures: dict
    games: int
    interrupted: bool


def trace_games(rules, seating, seed: int, games: int, *, worth=None, progress=None,
                stop=None) -> TracedGames:
    """Replay games 0 .. ``games`` - 1 of ``seed`` (the games ``simulate`` plays), each seat's
    chance of winning at every slot from ``worth`` (default: the cached worth of positions of
    these rules and seating, built first if need be)."""
    from .positions import trace_turn_starts
    from .worth import worth_of

    if worth is None:
        worth = worth_of(rules, seating, stop=stop)
    trace = trace_turn_starts(rules, seating, seed, games, stop=stop, progress=progress)
    chances = chances_of(trace, worth)
    return TracedGames(trace_frame(trace, chances), measures(stories(trace, chances)), trace.games,
                       trace.games < games)


def story_of_game(frame, game: int):
    """One game of a trace frame (:func:`trace_frame`), turn by turn: each slot's round, the
    player who moved (1-based), its square before and after, every player's chance after the turn
    and the mover's change of chance (points of probability); and the turn that moved the winner's
    chance the most. Returns (turns DataFrame, winner (1-based, 0 if unfinished), that turn's
    index or -1)."""
    import pandas as pd

    g = frame[frame["game"] == game].sort_values("slot").reset_index(drop=True)
    if g.empty:
        return pd.DataFrame(), 0, -1
    P = sum(c.startswith("chance_") for c in g.columns)
    chances = g[[f"chance_{s + 1}" for s in range(P)]].to_numpy()
    squares = g[[f"square_{s + 1}" for s in range(P)]].to_numpy()
    rows = []
    for t in range(len(g) - 1):
        m = int(g["to_move"].iloc[t]) - 1
        rows.append({"round": int(g["round"].iloc[t]), "player": m + 1,
                     "square_before": int(squares[t, m]), "square_after": int(squares[t + 1, m]),
                     "change": float(chances[t + 1, m] - chances[t, m]),
                     **{f"chance_{s + 1}": float(chances[t + 1, s]) for s in range(P)}})
    turns = pd.DataFrame(rows)
    end = chances[-1]
    winner = int(np.argmax(end)) + 1 if end.max() == 1.0 else 0
    key = -1
    if winner and len(turns):
        gain = np.diff(chances[:, winner - 1])
        key = int(np.argmax(gain))
    return turns, winner, key
