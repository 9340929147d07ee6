"""What Les Dragons du Mékong's ``simulate`` (its :func:`~heron_sim.games.declare.light_game`
driver) calls and collects: the kernel's outputs, its call, and the frame's columns, one row per
game.

Columns after the core ones (length in rounds; seat 0 starts with the statuette): ``colours``,
``stones_left``, ``planks_on_board``, and per seat ``<card>_i`` (times each card was programmed
and revealed), ``cancelled_i`` (cards cancelled by a dragon), ``water_i`` (falls in the water),
``fallen_i`` (planks lost, too short), ``placed_i``.
"""

from __future__ import annotations

import numpy as np

from ..driver import Out, packed_core, seat_fields
from . import engine as E
from .rules import CARDS, COLOURS_BY_PLAYERS, VILLAGES, MekongRules

#: Strategy names, in kernel-id order; the first is the default.
#: greedy: programs by a template (build, then move; a dragon on a threatening leader) and
#: executes each card toward its target village; random: random cards, random execution;
#: blocker: greedy's execution, but programs to stop the leader (the opponent nearest its
#: village, ties to the next seat, no draw): a dragon on it from four moves out, a plank taken
#: from its way whenever it is no farther than itself, then greedy's building and moving.
STRATEGIES: tuple[str, ...] = ("greedy", "random", "blocker")
#: Games per kernel call.
CHUNK = 1000

#: The kernel writes one int64[NOG] row per game and int64[P, NOS] per seat.
OUTPUTS = {"og": Out(np.int64, (E.NOG,)), "os": Out(np.int64, ("P", E.NOS))}
#: The core columns, from the packed game row.
CORE = packed_core("og", E.O_WINNER, E.O_LENGTH, E.O_FINISHED)


def seat_villages(players: int) -> np.ndarray:
    """Home village of each seat (colours in play by player count, the seed's order)."""
    return np.array([VILLAGES.index(c) for c in COLOURS_BY_PLAYERS[players]], dtype=np.int64)


def prepare(rules: MekongRules, players: int):
    """The kernel's arrays of the rules at ``players`` players."""
    return seat_villages(players), rules.kernel_params(), rules.geometry()["dist"], float(rules.judgement_error)


def kernel(arrays, seed, first, strat, out) -> None:
    """Play the games ``first ..`` of ``seed`` into this slice of the outputs."""
    home, ip, dist, error = arrays
    E.play_batch(np.uint64(seed), first, strat, home, ip, dist, error, out["og"], out["os"])


def columns(out, rules: MekongRules, players: int) -> dict:
    """The game's columns, in the frame's order (see the module's doc)."""
    og = out["og"]
    return {"colours": ",".join(COLOURS_BY_PLAYERS[players]),
            "stones_left": og[:, E.O_STONES_LEFT], "planks_on_board": og[:, E.O_PLANKS_ON],
            **seat_fields(out["os"], [*CARDS, "cancelled", "water", "fallen", "placed"])}
