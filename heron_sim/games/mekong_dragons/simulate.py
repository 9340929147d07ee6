"""Les Dragons du Mékong's Python driver: validate, seed, run the kernel in chunks, collect."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from ..base import core_frame, play_slices, seat_strategies
from . import engine as E
from .rules import CARDS, COLOURS_BY_PLAYERS, VILLAGES, MekongRules

#: Strategy names, in kernel-id order; the first is the default.
#: greedy: programs by a template (build, then move; a dragon on a threatening leader) and
#: executes each card toward its target village; random: random cards, random execution;
#: blocker: greedy's execution, but programs to stop the leader (the opponent nearest its
#: village, ties to the next seat, no draw): a dragon on it from four moves out, a plank taken
#: from its way whenever it is no farther than itself, then greedy's building and moving.
STRATEGIES: tuple[str, ...] = ("greedy", "random", "blocker")
_CHUNK = 1000


def seat_villages(players: int) -> np.ndarray:
    """Home village of each seat (colours in play by player count, the seed's order)."""
    return np.array([VILLAGES.index(c) for c in COLOURS_BY_PLAYERS[players]], dtype=np.int64)


def simulate(rules: MekongRules, games: int, players: int, seed: int, strategies: list[str],
             progress: Callable[[int], None] | None = None, first_game: int = 0) -> pd.DataFrame:
    """Play ``games`` games (indices first_game ..) and return one row per game.

    Columns: CORE_COLUMNS (length in rounds; seat 0 starts with the statuette), then
    ``colours``, ``stones_left``, ``planks_on_board``, and per seat ``<card>_i`` (times each
    card was programmed and revealed), ``cancelled_i`` (cards cancelled by a dragon),
    ``water_i`` (falls in the water), ``fallen_i`` (planks lost, too short), ``placed_i``.
    """
    strategies, strat = seat_strategies(strategies, players, {s: i for i, s in enumerate(STRATEGIES)},
                                        2, 6, games, seed, first_game)
    geo = rules.geometry()
    ip = rules.kernel_params()
    home = seat_villages(players)
    og = np.zeros((games, E.NOG), dtype=np.int64)
    os_ = np.zeros((games, players, E.NOS), dtype=np.int64)
    def play(start, stop):
        E.play_batch(np.uint64(seed), first_game + start, strat, home, ip, geo["dist"],
                     float(rules.judgement_error), og[start:stop], os_[start:stop])

    play_slices(games, _CHUNK, play, progress)
    cols = {
        "colours": ",".join(COLOURS_BY_PLAYERS[players]),
        "stones_left": og[:, E.O_STONES_LEFT],
        "planks_on_board": og[:, E.O_PLANKS_ON],
    }
    names = list(CARDS) + ["cancelled", "water", "fallen", "placed"]
    for k, name in enumerate(names):
        for i in range(players):
            cols[f"{name}_{i}"] = os_[:, i, k]
    return core_frame(seed, first_game, players, strategies, og[:, E.O_WINNER], og[:, E.O_LENGTH],
                      og[:, E.O_FINISHED], **cols)
