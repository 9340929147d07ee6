"""What Rampage's ``simulate`` (its :func:`~heron_sim.games.declare.light_game` driver) calls and
collects: the kernel's outputs, its call, and the frame's columns, one row per game.

Columns after the core ones: ``face``, ``winners`` (bit mask of the seats tied for first, 0 if
unfinished; ``winner`` is -1 when it has several bits), ``skill_i``, ``end_reason`` (buildings,
line6, cap), ``escaped``, ``fires`` (lines or zones completed), ``turns``, and per seat
``score_i``, ``sets_i``, ``floors_i``, ``teeth_i`` (points of each source), ``char_i``,
``eaten_i``, ``lost_i`` (teeth lost), ``topples_i``, ``escapes_i``, ``loser_i`` (filled line 6),
``move_i``, ``throw_i``, ``drop_i``, ``blow_i`` (actions taken).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..driver import Out, packed_core
from . import engine as E
from .rules import RampageRules

#: Strategy names, in kernel-id order; the first is the default.
#: greedy: the action of largest rough expected value, eats to complete sets.
#: random: a uniformly random feasible action and target, eats at random.
#: wrecker: goes for the richest standing building and nothing else (drop on it, throw at it,
#: walk towards it; fixed tie-breaks, no draw), eats as greedy.
STRATEGIES: tuple[str, ...] = ("greedy", "random", "wrecker")
#: Games per kernel call.
CHUNK = 1000

#: The kernel writes one int64[NOG] row per game (winner, length, finished, end reason, ...) and
#: float64[P, NOS] per seat (score, its sources, actions, ...).
OUTPUTS = {"og": Out(np.int64, (E.NOG,)), "os": Out(np.float64, ("P", E.NOS))}
#: The core columns, from the packed game row.
CORE = packed_core("og", E.O_WINNER, E.O_LENGTH, E.O_FINISHED)


def prepare(rules: RampageRules, players: int):
    """The kernel's arrays of the rules at ``players`` players."""
    return rules.kernel_arrays(players)


def kernel(ka, seed, first, strat, out) -> None:
    """Play the games ``first ..`` of ``seed`` into this slice of the outputs."""
    E.play_batch(np.uint64(seed), first, strat, ka["pp"], ka["ip"], ka["fp"], ka["adj"], ka["b_dist"],
                 ka["b_floors"], ka["corner"], ka["veh_home"], out["og"], out["os"])


def columns(out, rules: RampageRules, players: int) -> dict:
    """The game's columns, in the frame's order (see the module's doc)."""
    og, os_ = out["og"], out["os"]
    cols = {"face": rules.escape_face}
    skill = rules.seat_skills(players)
    for i in range(players):
        cols[f"skill_{i}"] = skill[i]
    cols["end_reason"] = pd.Categorical.from_codes(og[:, E.O_REASON], ["buildings", "line6", "cap"])
    cols["escaped"] = og[:, E.O_ESCAPED]
    cols["fires"] = og[:, E.O_FIRES]
    cols["turns"] = og[:, E.O_TURNS]
    names = ["score", "sets", "floors", "teeth", "char", "eaten", "lost", "topples", "escapes",
             "loser", "move", "throw", "drop", "blow"]
    for k, name in enumerate(names):
        for i in range(players):
            v = os_[:, i, k]
            cols[f"{name}_{i}"] = v.astype(bool) if name == "loser" else v.astype(np.int64)
    sc = os_[:, :, E.S_SCORE].copy()
    sc[os_[:, :, E.S_LOSER] > 0] = -np.inf
    best = sc == sc.max(axis=1, keepdims=True)
    mask = (best.astype(np.int64) << np.arange(players, dtype=np.int64)).sum(axis=1)
    cols["winners"] = np.where(og[:, E.O_FINISHED] > 0, mask, 0).astype(np.int64)
    return cols
