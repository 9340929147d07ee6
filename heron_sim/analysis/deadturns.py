"""One definition of a dead turn, shared by the lab (heron_sim.lab.metrics) and the report
(the pond and modes sections).

A played turn is **dead** when it moves nobody: the active player's own combination moves it
0 squares *and* the turn opens no Peaceful Pond. So a dead turn is an Anxiety the Lion does not
rescue, or a scored turn whose largest set is worth 0 squares (no set of 3 under the rulings).
A Pond is *not* dead: it pushes every unprotected opponent back (at least 4 squares), which is
the largest swing a turn can make — for a designer a turn that changes the race is not a turn
where "nothing happens". (The lab counted a Pond as dead before issue 17; the report did not.)

:func:`is_dead` reads single turns (outcome and own move, as the report's turn frames give
them); :func:`dead_per_game` reads the engine's per-game counters (Ponds are not counted; an
Anxiety counts unless the Lion rescued it; a scored turn counts when its set's advance is 0,
except a set of 3+ the Taureau's bonus may lift). Both apply the same rule.
"""

from __future__ import annotations

import numpy as np


def is_dead(outcome, own_move):
    """Per turn: the turn opened no Pond and moved its player 0 squares."""
    from ..engine import layout as L

    return (np.asarray(outcome) != L.OUT_POND) & (np.asarray(own_move) == 0)


def dead_per_game(rows: np.ndarray, rules) -> np.ndarray:
    """Dead turns per game, from the engine's raw output rows (no Pond counted)."""
    from ..animals import animal_index
    from ..engine import layout as L

    bull = rules.bull_bonus > 0 and rules.power_enabled(animal_index("taureau"))
    dead = rows[:, L.C_ANXIETIES] - rows[:, L.C_LION_RESCUES]
    for size, adv in enumerate(rules.combo_advance):
        if adv == 0 and not (size >= 3 and bull):
            dead = dead + rows[:, L.C_COMBOS + size]
    return dead
