"""The expert's table look-up on dice counted in registers: :func:`held_column`.

heron_sim.strategies.expert_values.lookup finds the dice laid out in the workspace (a face and a status
a die) in the tables; :func:`held_column` finds the same entry from the dice counted by animal,
packed 8 bits a lane (the dice held, the dice free), without touching the workspace: the digits
``k * B + c`` come straight from the lanes, each sort key carries its animal's size, and the
slots land in a 4-bit map. The same rank by the same sorting network, so the same column
(tests/test_expert_turn.py plays the same games through both). The expert's fused turn
(heron_sim.strategies.expert_turn) and the counted power scan (heron_sim.strategies.expert_scan)
read the tables through it.
"""

from __future__ import annotations

import numpy as np

from numba import njit

from ..engine.jit import U, hot, hot_inline
from ..engine.layout import HERON
from .expert_dp import ENTRY, N_TABLES, ROW_ANX, ROW_B, ROW_DIR, ROW_FIRST, ROW_G, ROW_RMAX, ROW_STRIDE
from .greedy_turn import _lane

_U = np.uint64  # an unsigned index: no wrap-around of negative ones


@hot
def _key(kept, roll, B, a, g0):
    """Sort key of animal a for the rank (expert_values._rank's order): its digit ``k * B + c``, then
    its size ``k + c`` (a function of the digit: the order is the digit's), then ``7 - a`` (ties
    by increasing index); the guide's animal -1 (it sorts last)."""
    k = _lane(kept, a)
    c = _lane(roll, a)
    return -1 if a == g0 else ((k * B + c) * 32 + k + c) * 8 + 7 - a


@hot_inline
def _step(row, go, D, stride, key, slot, rank, rem, slots):
    """expert_values._rank_step with the size in the key, the slots in a register (4 bits by
    animal) and the slot's rank term read in one load from the merged counts (expert_dp.ROW_G),
    added as a float (exact: the counts are integers far below 2**53)."""
    a = 7 - (key & 7)
    digit = key >> 8
    slots |= slot << (4 * a)
    rank += row[_U(go + ((6 - slot) * D + digit) * stride + rem)]
    return rank, rem - ((key >> 3) & 31), slots


@hot
def state_column(sp, ts, t, g, r, kept, roll, n):
    """heron_sim.strategies.expert_values.lookup for table ``t`` and guide ``g``, with the dice set
    aside ``kept`` and this roll's dice ``roll`` (packed counts; no power used this turn, so the
    only fresh held dice are this roll's herons), without touching the workspace: the same
    rank, by the same sorting network. Returns (column or -1, slot of animal a in bits 4a..)."""
    return held_column(sp, ts, t, g, r, kept, roll, n, _fresh(roll))


@hot_inline
def sort6_desc(k0, k1, k2, k3, k4, k5):
    """Six integers in decreasing order, by the optimal sorting network of six (12
    compare-exchanges, no branches): the look-ups' sort of the animals' keys (here,
    expert_values._rank, luck_turn._kept_index)."""
    k0, k5 = max(k0, k5), min(k0, k5)
    k1, k3 = max(k1, k3), min(k1, k3)
    k2, k4 = max(k2, k4), min(k2, k4)
    k1, k2 = max(k1, k2), min(k1, k2)
    k3, k4 = max(k3, k4), min(k3, k4)
    k0, k3 = max(k0, k3), min(k0, k3)
    k2, k5 = max(k2, k5), min(k2, k5)
    k0, k1 = max(k0, k1), min(k0, k1)
    k2, k3 = max(k2, k3), min(k2, k3)
    k4, k5 = max(k4, k5), min(k4, k5)
    k1, k2 = max(k1, k2), min(k1, k2)
    k3, k4 = max(k3, k4), min(k3, k4)
    return k0, k1, k2, k3, k4, k5


@hot
def _fresh(roll):
    """1 when this roll shows a heron (then a held die is fresh), else 0."""
    return 1 if _lane(roll, HERON) > 0 else 0


@hot_inline
def held_column(sp, ts, t, g, r, kept, roll, n, fl):
    """:func:`state_column` with the held dice ``kept`` (herons: any in either lane 6), the free
    dice ``roll`` and ``fl`` (1: a held die is fresh) given: the look-up after a power.

    It is on the critical path of every decision, so it reads the row with unsigned indices
    (numba then skips the wrap-around of negative ones), each slot's rank term in one load from
    the merged counts, and sums the rank in floats, converted once."""
    row = sp[_U(ts)]
    anx = int(row[_U(ROW_ANX)])
    rmax = int(row[_U(ROW_RMAX)])
    h = _lane(kept + roll, HERON)
    if h >= anx or r < 0 or r > rmax:
        return -1, 0
    B = int(row[_U(ROW_B)])
    go = int(row[_U(ROW_G)])
    stride = int(row[_U(ROW_STRIDE)])
    D = B * B
    g0 = g if g < 6 else 0
    s = n - h
    kg = _lane(kept, g0)
    cg = _lane(roll, g0)
    rank = row[_U(go + (6 * D + kg * B + cg) * stride + s)]
    rem = s - kg - cg
    k0 = _key(kept, roll, B, 0, g0)
    k1 = _key(kept, roll, B, 1, g0)
    k2 = _key(kept, roll, B, 2, g0)
    k3 = _key(kept, roll, B, 3, g0)
    k4 = _key(kept, roll, B, 4, g0)
    k5 = _key(kept, roll, B, 5, g0)
    k0, k1, k2, k3, k4, k5 = sort6_desc(k0, k1, k2, k3, k4, k5)
    slots = 0  # the guide's animal: slot 0
    rank, rem, slots = _step(row, go, D, stride, k0, 1, rank, rem, slots)
    rank, rem, slots = _step(row, go, D, stride, k1, 2, rank, rem, slots)
    rank, rem, slots = _step(row, go, D, stride, k2, 3, rank, rem, slots)
    rank, rem, slots = _step(row, go, D, stride, k3, 4, rank, rem, slots)
    rank, rem, slots = _step(row, go, D, stride, k4, 5, rank, rem, slots)
    d = ((t * (rmax + 1) + r) * anx + h) * 2 + fl  # expert_values._column
    if rank >= row[_U(ROW_DIR + 2 * d + 1)]:
        return -1, slots
    return int(row[_U(ROW_DIR + 2 * d)]) + ENTRY * int(rank), slots


# --------------------------------------------------------------- the first rolls' columns
# A turn's first decision (nothing kept yet, the rules' rolls left) is the most frequent look-up:
# its column depends on the table, the guide's animal and the roll's counts only. The tables
# hold it for every first roll (ROW_FIRST: r0, the number C of compositions of n dice into the
# seven animals, their rank terms, then one float a (table, guide's animal, composition):
# (column + 1) * 2**24 + slots), each filled by held_column itself, so :func:`turn_column` finds
# the same column and slots from the roll's rank (six loads, no sort).


def first_roll_terms(n: int) -> tuple[int, np.ndarray]:
    """(C, terms): the number of compositions of ``n`` dice into 7 lanes, and ``terms[a, c, rem]``,
    the compositions before those whose lane ``a`` holds ``c`` of the ``rem`` dice left (lanes
    before it fixed): a composition's rank is the sum of its six terms (the heron's lane is what
    is left). Floats, flat (6 x (n + 1) x (n + 1))."""
    from math import comb

    S = n + 1
    terms = np.zeros((6, S, S))
    for a in range(6):
        k = 6 - a  # lanes after this one
        for rem in range(S):
            acc = 0
            for c in range(rem + 1):
                terms[a, c, rem] = acc
                acc += comb(rem - c + k - 1, k - 1)
    return comb(n + 6, 6), terms.ravel()


@hot_inline
def _first_rank(row, fo, roll, n):
    """The rank of the roll's counts among the compositions of ``n`` dice (:func:`first_roll_terms`)."""
    S = n + 1
    rem = n
    rank = 0.0
    for a in range(6):
        c = _lane(roll, a)
        rank += row[_U(fo + 2 + (a * S + c) * S + rem)]
        rem -= c
    return int(rank)


@hot_inline
def turn_column(sp, ts, t, g, r, kept, roll, n):
    """:func:`held_column` of the dice set aside ``kept`` and this roll's ``roll`` (a held die is
    fresh where this roll shows a heron): at the turn's first decision (nothing kept, the tables'
    first rolls left), read from the first rolls' columns (ROW_FIRST) — the same column and slots
    — else looked up."""
    row = sp[_U(ts)]
    fo = int(row[_U(ROW_FIRST)])
    if kept == np.uint64(0) and fo > 0 and r == int(row[_U(fo)]):
        S = n + 1
        g0 = g if g < 6 else 0
        x = int(row[_U(fo + 2 + 6 * S * S + (t * 6 + g0) * int(row[_U(fo + 1)]) + _first_rank(row, fo, roll, n))])
        return (x >> 24) - 1, x & 0xFFFFFF
    return held_column(sp, ts, t, g, r, kept, roll, n, _fresh(roll))


@njit(cache=True)
def _fill_first(row, n):
    """The first rolls' columns of ``row`` (ROW_FIRST set, r0, C and the terms written): every
    composition of ``n`` dice, found by held_column with nothing kept."""
    sp = row.reshape((1, row.size))
    fo = int(row[ROW_FIRST])
    r0 = int(row[U(fo)])
    C = int(row[U(fo + 1)])
    S = n + 1
    at = fo + 2 + 6 * S * S
    c = np.zeros(6, dtype=np.int64)
    filled = 0
    while True:
        total = c.sum()
        if total <= n:
            roll = np.uint64(0)
            for a in range(6):
                roll += np.uint64(c[a]) << np.uint64(8 * a)
            roll += np.uint64(n - total) << np.uint64(8 * HERON)
            k = _first_rank(row, fo, roll, n)
            for t in range(N_TABLES):
                for g0 in range(6):
                    col, slots = held_column(sp, 0, t, g0, r0, np.uint64(0), roll, n, _fresh(roll))
                    row[U(at + (t * 6 + g0) * C + k)] = float((col + 1) * (1 << 24) + slots)
            filled += 1
        a = 0  # the next counts (lane 0 fastest)
        while a < 6 and c[a] == n:
            c[a] = 0
            a += 1
        if a == 6:
            break
        c[a] += 1
    return filled


def first_roll_section(row: np.ndarray, n: int, r0: int) -> np.ndarray:
    """``row`` with its first rolls' columns appended (ROW_FIRST set): ``r0`` the rolls left at a
    turn's first decision under the rules (their rolls less one)."""
    C, terms = first_roll_terms(n)
    out = np.concatenate([row, [float(r0), float(C)], terms, np.zeros(N_TABLES * 6 * C)])
    out[ROW_FIRST] = row.size
    if _fill_first(out, n) != C:
        raise AssertionError("first rolls' columns: a composition missed")
    return out
