"""Les Dragons du Mékong's Python driver: validate, seed, run the kernel in chunks, collect."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from ..driver import Driver, Out, packed_core, seat_fields
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


def _prepare(rules: MekongRules, players: int):
    return seat_villages(players), rules.kernel_params(), rules.geometry()["dist"], float(rules.judgement_error)


def _kernel(arrays, seed, first, strat, out) -> None:
    home, ip, dist, error = arrays
    E.play_batch(np.uint64(seed), first, strat, home, ip, dist, error, out["og"], out["os"])


def _columns(out, rules: MekongRules, players: int) -> dict:
    og = out["og"]
    return {"colours": ",".join(COLOURS_BY_PLAYERS[players]),
            "stones_left": og[:, E.O_STONES_LEFT], "planks_on_board": og[:, E.O_PLANKS_ON],
            **seat_fields(out["os"], [*CARDS, "cancelled", "water", "fallen", "placed"])}


#: The driver (games.driver): the kernel writes one int64[NOG] row per game and int64[P, NOS] per seat.
DRIVER = Driver(strategies=STRATEGIES, min_players=2, max_players=6,
                outputs={"og": Out(np.int64, (E.NOG,)), "os": Out(np.int64, ("P", E.NOS))},
                prepare=_prepare, kernel=_kernel, columns=_columns,
                core=packed_core("og", E.O_WINNER, E.O_LENGTH, E.O_FINISHED),
                chunk=_CHUNK)


def simulate(rules: MekongRules, games: int, players: int, seed: int, strategies: list[str],
             progress: Callable[[int], None] | None = None, first_game: int = 0) -> pd.DataFrame:
    """Play ``games`` games (indices first_game ..) and return one row per game.

    Columns: CORE_COLUMNS (length in rounds; seat 0 starts with the statuette), then
    ``colours``, ``stones_left``, ``planks_on_board``, and per seat ``<card>_i`` (times each
    card was programmed and revealed), ``cancelled_i`` (cards cancelled by a dragon),
    ``water_i`` (falls in the water), ``fallen_i`` (planks lost, too short), ``placed_i``.
    """
    return DRIVER.simulate(rules, games, players, seed, strategies, progress, first_game)
