"""The expert's values of the options of each logged decision, recomputed from the logged state.

For every decision read from a log (heron_sim.playtest.log) the state the player saw is laid out
in a workspace (guide, ready, rolls left, the dice with their kept/reserved/fresh status) and
valued with the expert's own compiled functions (heron_sim.strategies.expert) on the tables of
the rules played, exactly as the ``human`` family values them when it plays
(heron_sim.strategies.human): the log never stores a value.

``evaluate(R, sp, state, out)``: ``state`` int64[m, S_WIDTH] (columns ``S_*``), ``out``
float64[m, V_WIDTH] (columns ``V_*``):

- keep: V_FLAG 1 when stop and reroll are both open (0: a forced stop, no roll left or no legal
  reroll; 2: dice the tables do not hold, where the family keeps as greedy), V_A the stop's value
  (the dice's score, or consolation_no_set for a turn worth 0; the table's value where the
  expert itself stops), V_B the best reroll's value, V_C 1 where the expert rerolls, V_ACTION the bit mask of the dice that
  reroll keeps (the first free dice of each animal, in die order, as the player keeps them);
- power: V_FLAG 1 when some use is legal, V_A the value of the dice without the power, V_B the
  best use's value (one-step look-ahead), V_ACTION the best use (die + 32 * arg), V_C the value
  of the use logged (when one is);
- eagle_face: V_A .. the values of the original face and of each drawn face (V_A + k);
- lion: V_A the rescued dice's score.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.dice import count_animals
from ..engine.layout import (
    AIGLE, D_EAGLE_PICK, D_KEEP, D_LION, D_POWER, EAGLE_DIE, EAGLE_FACES, FACE, FRESH, GUIDE, HEADER,
    HERON, KEEP, MEMO, NDICE, PATIENCE, PLAYERS, POWER_ARG, READY, RESERVED, ROLL, ROLLS_LEFT, STATUS,
    X_CONS_NOSET,
)
from ..strategies.expert import (
    KEEP_STOP, _value_with_face, apply_keep_action, counted_advance, final_advance, has_tables,
    keep_column, power_scan, state_value, use_value,
)

# state columns
S_KIND, S_GUIDE, S_READY, S_ROLLS_LEFT, S_ROLL, S_NDICE, S_EAGLE_DIE, S_NDRAWS, S_LOGGED, S_PATIENCE = range(10)
S_EAGLE_FACES = 10            # [6]
S_FACE = 16                   # [16]
S_STATUS = S_FACE + 16        # [16]
S_FRESH = S_STATUS + 16       # [16]
S_WIDTH = S_FRESH + 16
# value columns
V_FLAG, V_A, V_B, V_C, V_ACTION = 0, 1, 2, 3, 10
V_WIDTH = 11


@njit(cache=True)
def lay_out(w, seat, state, m):
    """Lay the decision of row ``m`` of ``state`` out in workspace ``w`` for ``seat``: its guide,
    readiness, rolls, the dice with their status; the look-up's memo cleared."""
    n = state[m, S_NDICE]
    w[NDICE] = n
    w[GUIDE + seat] = state[m, S_GUIDE]
    w[READY + seat] = state[m, S_READY]
    w[ROLLS_LEFT] = state[m, S_ROLLS_LEFT]
    w[ROLL] = state[m, S_ROLL]
    w[PATIENCE] = state[m, S_PATIENCE]
    w[MEMO] = 0
    w[MEMO + 1] = 0
    for i in range(16):
        w[FACE + i] = state[m, S_FACE + i] if i < n else 0
        w[STATUS + i] = state[m, S_STATUS + i] if i < n else 0
        w[FRESH + i] = state[m, S_FRESH + i] if i < n else 0
        w[KEEP + i] = 0
    for k in range(6):
        w[EAGLE_FACES + k] = state[m, S_EAGLE_FACES + k]
    w[EAGLE_DIE] = state[m, S_EAGLE_DIE]


@njit(cache=True)
def evaluate(R, sp, state, out):
    w = np.zeros(HEADER + 64, dtype=np.int64)
    seat = 0
    w[PLAYERS] = 2
    for m in range(state.shape[0]):
        n = state[m, S_NDICE]
        lay_out(w, 0, state, m)
        w[GUIDE + 1] = 6 if state[m, S_GUIDE] != 6 else 5
        for j in range(V_WIDTH):
            out[m, j] = 0.0
        kind = state[m, S_KIND]
        r = w[ROLLS_LEFT]
        if kind == D_KEEP:
            col = keep_column(seat, w, R, sp)
            if col == KEEP_STOP:
                continue
            if col < 0:
                out[m, V_FLAG] = 2.0
                continue
            count_animals(w)
            action = int(sp[0, col])
            reroll = int(sp[0, col + 2])
            if reroll < 0:
                continue
            if action < 0:
                stop_value = sp[0, col + 1]
            else:
                adv = counted_advance(seat, w, R)
                stop_value = float(adv if adv > 0 else R[X_CONS_NOSET])
            out[m, V_FLAG] = 1.0
            out[m, V_A] = stop_value
            out[m, V_B] = sp[0, col + 3]
            out[m, V_C] = 1.0 if action >= 0 else 0.0
            apply_keep_action(seat, w, sp, reroll)
            mask = 0
            for i in range(n):
                if w[KEEP + i] != 0:
                    mask |= 1 << i
            out[m, V_ACTION] = float(mask)
        elif kind == D_POWER:
            if not has_tables(seat, sp):
                continue
            base = state_value(seat, w, R, sp, r)
            v, action = power_scan(seat, w, R, sp, -1e300)
            if action < 0:
                continue
            out[m, V_FLAG] = 1.0
            out[m, V_A] = base
            out[m, V_B] = v
            out[m, V_ACTION] = float(action)
            logged = state[m, S_LOGGED]
            if logged >= 0:
                out[m, V_C] = use_value(seat, w, R, sp, logged)
        elif kind == D_EAGLE_PICK:
            die = w[EAGLE_DIE]
            st = w[STATUS + die]
            out[m, V_FLAG] = 1.0
            out[m, V_A] = state_value(seat, w, R, sp, r)
            for k in range(state[m, S_NDRAWS]):
                f = w[EAGLE_FACES + k]
                out[m, V_A + 1 + k] = _value_with_face(seat, w, R, sp, r, die, f, RESERVED if f == HERON else st)
        elif kind == D_LION:
            out[m, V_FLAG] = 1.0
            out[m, V_A] = float(final_advance(seat, w, R))
    return out


#: Rows valued by one call of :func:`evaluate` (a stop request is read between calls).
CHUNK = 8192


def values(R: np.ndarray, sp: np.ndarray, state: np.ndarray) -> np.ndarray:
    """:func:`evaluate` into a new array, :data:`CHUNK` rows at a time: Ctrl-C under the command
    line stops between chunks (heron_sim.interrupt.check raises Stopped)."""
    from ..interrupt import check

    out = np.zeros((state.shape[0], V_WIDTH), dtype=np.float64)
    state = np.ascontiguousarray(state, dtype=np.int64)
    for lo in range(0, state.shape[0], CHUNK):
        check()
        evaluate(R, sp, state[lo : lo + CHUNK], out[lo : lo + CHUNK])
    return out


__all__ = ["evaluate", "values", "AIGLE", "POWER_ARG"]
