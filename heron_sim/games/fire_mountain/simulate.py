"""Seeded batches of Fire Mountain games collected into a tidy DataFrame (one row per game)."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..base import core_frame, play_slices, seat_strategies
from .engine import STRATEGIES, N_STATS, STAT_NAMES, STRATEGY_ID, run_games
from .rules import MAX_PLAYERS, MIN_PLAYERS, SPECIES, FireMountainRules

_CHUNK = 2000  # games per kernel call: the progress bar moves, memory stays small


def simulate(rules: FireMountainRules, games: int, players: int, seed: int,
             strategies: Sequence[str] | None = None,
             progress: Callable[[int], None] | None = None, first_game: int = 0) -> pd.DataFrame:
    """Play ``games`` games (indices ``first_game ..``) and return one row per game.

    Columns: the core columns (length in player turns), ``score_<seat>``, ``hatched_<species>_<seat>``
    (dinosaurs of that species the seat hatched), and the counters ``quakes``, ``quake_flips``
    (earthquakes that changed the majority of an occupied region), ``eruptions``, ``threatened``
    (Cro-Magnons sent back by a Tyrannosaurus).
    """
    ids = {name: STRATEGY_ID[name] for name in STRATEGIES}
    names, strat = seat_strategies(strategies, players, ids, MIN_PLAYERS, MAX_PLAYERS, games, seed, first_game)
    layout = np.array(rules.layout, np.int64)
    faces = np.array(rules.faces, np.int64)
    species = np.array(rules.species, np.int64)
    cost = np.array(rules.cost, np.int64)
    params = rules.kernel_params(players)
    winner = np.empty(games, np.int64)
    length = np.empty(games, np.int64)
    finished = np.empty(games, np.bool_)
    scores = np.empty((games, players), np.int64)
    hatched = np.empty((games, players, len(SPECIES)), np.int64)
    stats = np.empty((games, N_STATS), np.int64)
    def play(a, b):
        run_games(seed, first_game + a, b - a, strat, layout, faces, species, cost, params,
                  winner[a:b], length[a:b], finished[a:b], scores[a:b], hatched[a:b], stats[a:b])

    play_slices(games, _CHUNK, play, progress)
    df = core_frame(seed, first_game, players, names, winner, length, finished)
    for p in range(players):
        df[f"score_{p}"] = scores[:, p]
    for s in rules.species:
        for p in range(players):
            df[f"hatched_{SPECIES[s]}_{p}"] = hatched[:, p, s]
    for i, name in enumerate(STAT_NAMES):
        df[name] = stats[:, i]
    return df
