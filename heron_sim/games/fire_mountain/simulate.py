"""What Fire Mountain's ``simulate`` (its :func:`~heron_sim.games.declare.light_game` driver)
calls and collects: the kernel's outputs, its call, and the frame's columns, one row per game.

Columns after the core ones (length in player turns): ``score_<seat>``,
``hatched_<species>_<seat>`` (dinosaurs of that species the seat hatched), and the counters
``quakes``, ``quake_flips`` (earthquakes that changed the majority of an occupied region),
``eruptions``, ``threatened`` (Cro-Magnons sent back by a Tyrannosaurus).
"""

from __future__ import annotations

import numpy as np

from ..driver import Out, per_seat
from .engine import N_STATS, STAT_NAMES, run_games
from .rules import SPECIES, FireMountainRules

#: Games per kernel call: the progress bar moves, memory stays small.
CHUNK = 2000

#: The kernel's outputs, a row per game.
OUTPUTS = {"winner": Out(np.int64), "length": Out(np.int64), "finished": Out(np.bool_),
           "scores": Out(np.int64, ("P",)), "hatched": Out(np.int64, ("P", len(SPECIES))),
           "stats": Out(np.int64, (N_STATS,))}


def prepare(rules: FireMountainRules, players: int):
    """The kernel's arrays of the rules at ``players`` players."""
    i64 = lambda x: np.array(x, np.int64)  # noqa: E731
    return i64(rules.layout), i64(rules.faces), i64(rules.species), i64(rules.cost), rules.kernel_params(players)


def kernel(arrays, seed, first, strat, out) -> None:
    """Play the games ``first ..`` of ``seed`` into this slice of the outputs."""
    run_games(seed, first, len(out["winner"]), strat, *arrays, out["winner"], out["length"], out["finished"],
              out["scores"], out["hatched"], out["stats"])


def columns(out, rules: FireMountainRules, players: int) -> dict:
    """The game's columns, in the frame's order (see the module's doc)."""
    hatched = out["hatched"]
    return {**per_seat("score", out["scores"]),
            **{f"hatched_{SPECIES[s]}_{p}": hatched[:, p, s] for s in rules.species for p in range(players)},
            **{name: out["stats"][:, i] for i, name in enumerate(STAT_NAMES)}}
