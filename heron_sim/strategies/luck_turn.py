"""Each seat's luck, measured by the game loop (heron_sim.loop.turn.roll_phase, luck on).

Called at every roll of a turn's dice (the first roll and the rerolls) when the workspace names
a luck row (``w[LUCK_ROW] > 0``: heron_sim.strategies.expert_luck.luck_row): adds to
``w[LUCK + seat]`` the expert's value after the roll minus its value before (the exact
expectation of the former, heron_sim.strategies.expert_luck), in fixed point (2**-LUCK_SHIFT
squares). The tables read are those of the seat's guide and state (expert.table_of), whoever
plays the seat: luck depends on the dice and the state, not on the strategy.
"""

from __future__ import annotations

from ..engine.jit import hot
from ..engine.layout import (
    FACE, FREE, FRESH, HERON, KEEP, COUNTS, LUCK, LUCK_OFF, LUCK_ROW, LUCK_SHIFT, NDICE, STATUS,
)
from .expert import _column, _rank, anxiety_value, slot0_animal, table_of
from .expert_luck import LK_ANX, LK_B, LK_FIRST, LK_NPRE, LK_PI, LK_RMAX, LK_V

_SCALE = float(1 << LUCK_SHIFT)


@hot
def luck_add(seat, w, x):
    w[LUCK + seat] += int(round(x * _SCALE))


@hot
def value_after(seat, w, R, sp, r, pond):
    """The expert's value of the dice showing, just rolled, with ``r`` rolls left: 0 after a
    Pond, the Anxiety's value (a ready Lion's rescue or the consolation), else Q[r] of the
    state from the tables. Returns -1e300 where the tables hold no entry (then no luck is
    counted for this roll)."""
    if pond:
        return 0.0
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    n = w[NDICE]
    B = int(sp[lr, lo + LK_B])
    rmax = int(sp[lr, lo + LK_RMAX])
    anx = int(sp[lr, lo + LK_ANX])
    for a in range(7):
        w[KEEP + a] = 0
        w[COUNTS + a] = 0
    fl = 0
    for i in range(n):
        f = w[FACE + i]
        held = int(w[STATUS + i] != FREE)
        fl |= held & int(w[FRESH + i] != 0)
        w[KEEP + f] += 1 + held * (B - 1)
        w[COUNTS + f] += 1
    h = w[COUNTS + HERON]
    if h >= anx:
        return float(anxiety_value(seat, w, R))
    if r < 0 or r > rmax:
        return -1e300
    col = _column(seat, w, R, sp, lr, r, h, fl, _rank(seat, w, R, sp, lr, n - h), rmax, anx)
    if col < 0:
        return -1e300
    return sp[lr, col + 1]


@hot
def value_first(seat, w, R, sp, r):
    """The expert's value before the first roll leaving ``r`` rolls (-1e300: none)."""
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    rmax = int(sp[lr, lo + LK_RMAX])
    if r < 0 or r > rmax:
        return -1e300
    return sp[lr, int(sp[lr, lo + LK_FIRST]) + table_of(seat, w, R) * (rmax + 1) + r]


@hot
def value_before(seat, w, R, sp, r):
    """The expert's value before a reroll of the free dice whose post-roll state has ``r``
    rolls left: the kept dice (status KEPT) and reserved herons as they stand (-1e300: none)."""
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    B = int(sp[lr, lo + LK_B])
    rmax = int(sp[lr, lo + LK_RMAX])
    anx = int(sp[lr, lo + LK_ANX])
    npre = int(sp[lr, lo + LK_NPRE])
    if r < 0 or r >= rmax:
        return -1e300
    for a in range(7):
        w[COUNTS + a] = 0
    h = 0
    for i in range(w[NDICE]):
        s = w[STATUS + i]
        if s == FREE:
            continue
        f = w[FACE + i]
        if f == HERON:
            h += 1
        else:
            w[COUNTS + f] += 1
    if h >= anx:
        return -1e300
    g0 = slot0_animal(seat, w, R)
    # the other animals' kept counts, sorted in decreasing order (insertion sort of 5)
    for a in range(6):
        w[KEEP + a] = w[COUNTS + a]
    w[KEEP + g0] = -1
    code = w[COUNTS + g0]
    m = B
    for j in range(5):
        best = 0
        for a in range(1, 6):
            if w[KEEP + a] > w[KEEP + best]:
                best = a
        code += w[KEEP + best] * m
        w[KEEP + best] = -1
        m *= B
    p = int(sp[lr, int(sp[lr, lo + LK_PI]) + code])
    if p < 0:
        return -1e300
    t = table_of(seat, w, R)
    return sp[lr, int(sp[lr, lo + LK_V]) + ((t * rmax + r) * npre + p) * anx + h]
