"""Seeded batches of Fire Mountain games collected into a tidy DataFrame (one row per game)."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from ..driver import Driver, Out, per_seat
from .engine import STRATEGIES, N_STATS, STAT_NAMES, STRATEGY_ID, run_games
from .rules import MAX_PLAYERS, MIN_PLAYERS, SPECIES, FireMountainRules

_CHUNK = 2000  # games per kernel call: the progress bar moves, memory stays small


def _prepare(rules: FireMountainRules, players: int):
    i64 = lambda x: np.array(x, np.int64)  # noqa: E731
    return i64(rules.layout), i64(rules.faces), i64(rules.species), i64(rules.cost), rules.kernel_params(players)


def _kernel(arrays, seed, first, strat, out) -> None:
    run_games(seed, first, len(out["winner"]), strat, *arrays, out["winner"], out["length"], out["finished"],
              out["scores"], out["hatched"], out["stats"])


def _columns(out, rules: FireMountainRules, players: int) -> dict:
    hatched = out["hatched"]
    return {**per_seat("score", out["scores"]),
            **{f"hatched_{SPECIES[s]}_{p}": hatched[:, p, s] for s in rules.species for p in range(players)},
            **{name: out["stats"][:, i] for i, name in enumerate(STAT_NAMES)}}


#: The driver (games.driver): the kernel's outputs, one row per game.
DRIVER = Driver(strategies=STRATEGIES, min_players=MIN_PLAYERS, max_players=MAX_PLAYERS,
                outputs={"winner": Out(np.int64), "length": Out(np.int64), "finished": Out(np.bool_),
                         "scores": Out(np.int64, ("P",)), "hatched": Out(np.int64, ("P", len(SPECIES))),
                         "stats": Out(np.int64, (N_STATS,))},
                prepare=_prepare, kernel=_kernel, columns=_columns, ids={name: STRATEGY_ID[name] for name in STRATEGIES},
                chunk=_CHUNK)


def simulate(rules: FireMountainRules, games: int, players: int, seed: int,
             strategies: Sequence[str] | None = None,
             progress: Callable[[int], None] | None = None, first_game: int = 0) -> pd.DataFrame:
    """Play ``games`` games (indices ``first_game ..``) and return one row per game.

    Columns: the core columns (length in player turns), ``score_<seat>``, ``hatched_<species>_<seat>``
    (dinosaurs of that species the seat hatched), and the counters ``quakes``, ``quake_flips``
    (earthquakes that changed the majority of an occupied region), ``eruptions``, ``threatened``
    (Cro-Magnons sent back by a Tyrannosaurus).
    """
    return DRIVER.simulate(rules, games, players, seed, strategies, progress, first_game)
