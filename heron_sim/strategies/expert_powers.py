"""The expert's roll-time power decisions, stored in its tables (identical dice only).

At every decision point a ready Wolf, Eagle, Deer or Heron guide asks the expert whether to use
its power; the answer is a one-step look-ahead over every legal use
(:func:`heron_sim.strategies.expert_values.power_scan`), 35 to 70 table look-ups, and it is almost
always "no" (a use must gain ``POWER_MARGIN`` squares). The state after a roll (the canonical
state of the tables) determines that look-ahead's value, so it is computed here once per state,
by running the scan itself (its counted form, heron_sim.strategies.expert_scan: the same answer) on
dice laid out from the state, and its decision is stored
beside the state's action: -1 (no use) or the use in canonical form (the kind of die: the slot
of its face, its status and freshness; and the slot of the Deer's animal or of the Patience's
face). The kernel reads one float and decodes the use on the dice showing
(``expert.decode_power``): no scan at all with identical dice. The look-ahead value of the best
use (whatever its gain) is stored too, after the entries (expert_dp.BEST_VALUES): the human's
softmax weighs it against keeping the power (heron_sim.strategies.human.human_power) and scans
only when it uses the power.

The dice laid out for a state (K, C, h, fl): slot 0 is the guide's animal (animal 0 for the
Heron, whose table does not double), slots 1..5 the other animals in index order; K[j] kept
dice and C[j] dice of this roll (free, fresh) per slot, h reserved herons, the first of them
fresh when fl = 1 (a Wolf may then reroll an older heron and keep "a die of this roll held"; where
every heron is fresh the values are the same). States with fl = 1 and no heron do not occur when
a power can still be used (only a used power holds a fresh non-heron die); their columns keep
-2, "not stored", and the kernel scans there.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..engine.layout import (
    AIGLE, CERF, FACE, FREE, FRESH, GUIDE, HERON, KEPT, LOUP, NDICE, READY, RESERVED,
    ROLLS_LEFT, STATUS,
)
from .expert import near_pack, stored_code
from .expert_scan import power_scan_counted_runner
from .expert_values import UNIQUE_GAP, state_value
from .expert_dp import (
    BEST_VALUES, E_DEER, E_EAGLE, E_PATIENCE, E_WOLF, ENTRY, POWER_MARGIN, ROW_ANX, ROW_DIR, ROW_POWERS,
    ROW_RMAX, T_NODOUBLE, T_PLAIN,
)
from ..engine.layout import MAX_FACES, POWER_ARG, R_FACES


@njit(cache=True)
def _lay_out(w, g, K, C, h, fl):
    """Dice of the state (K, C, h, fl) in the workspace, for guide g."""
    g0 = g if g < HERON else 0
    i = 0
    slot = 0
    for a in range(-1, 6):
        if a == g0:
            continue
        animal = g0 if a < 0 else a
        for _ in range(K[slot]):
            w[FACE + i] = animal
            w[STATUS + i] = KEPT
            w[FRESH + i] = 0
            i += 1
        for _ in range(C[slot]):
            w[FACE + i] = animal
            w[STATUS + i] = FREE
            w[FRESH + i] = 1
            i += 1
        slot += 1
    for k in range(h):
        w[FACE + i] = HERON
        w[STATUS + i] = RESERVED
        w[FRESH + i] = 1 if (fl == 1 and k == 0) else 0
        i += 1
    return i


@njit(cache=True)
def _slot(g, animal):
    """Slot of an animal in the dice of :func:`_lay_out` (6: the heron)."""
    g0 = g if g < HERON else 0
    if animal == HERON:
        return 6
    if animal == g0:
        return 0
    return animal + 1 if animal < g0 else animal


@njit(cache=True)
def _canonical(w, R, g, action):
    """A D_POWER action on the laid-out dice in canonical form: which kind of die (slot of its
    face, status, freshness) + 64 * the argument's slot (Deer: the new animal; Patience: the
    face chosen); -1 for no use."""
    if action < 0:
        return -1
    i = action % POWER_ARG
    arg = action // POWER_ARG
    cls = (_slot(g, w[FACE + i]) * 3 + w[STATUS + i]) * 2 + w[FRESH + i]
    if g == CERF:
        return cls + 64 * _slot(g, arg)
    if g == HERON:
        return cls + 64 * _slot(g, R[R_FACES + MAX_FACES * i + arg])
    return cls


@njit(cache=True, nogil=True)
def _fill(row, R, w, Ks, Cs, starts, first, values_at, q0, q1):
    """The power columns of guides q0 .. q1 - 1 (Loup, Aigle, Cerf, Héron): each guide's own
    column and value slot, read from the keep/stop entries only (ROW_POWERS is 0: nothing stored
    is read), so the guides are filled side by side, each on its own workspace."""
    sp = row.reshape((1, row.size))
    rmax = int(row[ROW_RMAX])
    anx = int(row[ROW_ANX])
    n = w[NDICE]
    guides = np.array([LOUP, AIGLE, CERF, HERON])
    tables = np.array([T_PLAIN, T_PLAIN, T_PLAIN, T_NODOUBLE])
    columns = np.array([E_WOLF, E_EAGLE, E_DEER, E_PATIENCE])
    w[READY] = 1
    near = np.zeros(64, dtype=np.int64)  # the uses near the best (expert_scan._note)
    codes = np.zeros(64, dtype=np.int64)
    for q in range(q0, q1):
        g = guides[q]
        w[GUIDE] = g
        for r in range(rmax + 1):
            w[ROLLS_LEFT] = r
            for h in range(anx):
                for fl in range(2):
                    if fl == 1 and h == 0:
                        continue
                    d = ((tables[q] * (rmax + 1) + r) * anx + h) * 2 + fl  # expert_dp.dir_index
                    off = int(row[ROW_DIR + 2 * d])
                    m = int(row[ROW_DIR + 2 * d + 1])
                    for rank in range(m):
                        s = starts[h] + rank
                        if _lay_out(w, g, Ks[s], Cs[s], h, fl) != n:
                            raise ValueError("expert power tables: a state of the wrong size")
                        base = state_value(0, w, R, sp, r)
                        # the best use whatever its gain: the scan's first use of the highest
                        # value, the use the scan from base + POWER_MARGIN finds when that value
                        # is above it
                        v, action, runner = power_scan_counted_runner(0, w, R, sp, -1e300)  # power_scan_runner's answer
                        col = off + ENTRY * rank
                        kind = _canonical(w, R, g, action)
                        unique = action >= 0 and v - runner > UNIQUE_GAP
                        packed = 0
                        if action >= 0 and not unique:  # the other uses within UNIQUE_GAP (expert.near_scan)
                            near[0] = 0
                            power_scan_counted_runner(0, w, R, sp, -1e300, v - UNIQUE_GAP, near)
                            for j in range(near[0]):
                                codes[j] = _canonical(w, R, g, near[1 + j])
                            packed = near_pack(codes, near[0])
                        row[col + columns[q]] = stored_code(kind, v > base + POWER_MARGIN, unique, packed)
                        row[values_at + BEST_VALUES * ((col - first) // ENTRY) + q] = v


def fill_power_values(row: np.ndarray, rules, states_by_h, first: int, values_at: int) -> None:
    """Fill the power columns of ``row`` and the best uses' values (in place) and mark them
    filled (expert_dp.ROW_POWERS).

    states_by_h[h] = (K, C): the canonical states with h herons, in rank order; ``first``: the
    offset of the first entry; ``values_at``: that of the best uses' values (BEST_VALUES floats
    per entry, in the entries' order).
    """
    assert 2 * BEST_VALUES == ENTRY  # ROW_POWERS's K: the values of the entry at col at (col + K) // 2
    from ..engine.pack import new_workspace, pack_rules

    R = pack_rules(rules)
    Ks = np.ascontiguousarray(np.concatenate([k for k, _ in states_by_h]), dtype=np.int64)
    Cs = np.ascontiguousarray(np.concatenate([c for _, c in states_by_h]), dtype=np.int64)
    starts = np.cumsum([0] + [len(k) for k, _ in states_by_h]).astype(np.int64)
    row[ROW_POWERS] = 0.0

    def fill(q):  # one guide's columns, on a workspace of its own (numba, without the GIL)
        w = new_workspace(R, np.zeros(rules.players, dtype=np.int64))
        _fill(row, R, w, Ks, Cs, starts, first, values_at, q, q + 1)

    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        list(pool.map(fill, range(4)))
    row[ROW_POWERS] = 2 * values_at - first
