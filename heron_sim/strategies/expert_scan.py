"""The roll-time powers' scan with the dice counted in registers: :func:`power_scan_counted`.

heron_sim.strategies.expert_values.power_scan values every legal use of a ready Wolf, Eagle, Deer or
Héron's Patience on the dice laid out in the workspace (one-step look-ahead on the expert's
tables) and returns the best, the first die in index order among equals. Each value it reads
is one table look-up of the dice with one die changed, and it finds them through the workspace
(:func:`heron_sim.strategies.expert_values.lookup`'s digits and slots written die by die): about 2
microseconds a scan, most of a human player's turn when it uses its power (a human draws its
use and scans the dice for it, heron_sim.strategies.human.power_after_draw).

:func:`power_scan_counted` walks the dice in the same order, skips the same dice, considers the
same uses in the same order and reads the same table entries, but finds each through
:func:`heron_sim.strategies.expert_column.held_column`: the other dice counted once by animal
(held, free, herons), the die's new face added in a register. Where the tables do not answer
(an Anxiety, no roll left, dice they do not hold) it takes the reference's own general path
(:func:`heron_sim.strategies.expert_values._value_with_face`). The values are the same floats, summed
in the same order (``wolf_of_values``, ``eagle_of_values`` are the reference's own arithmetic),
so the answer is the same value and action, bit for bit (tests/test_expert_scan.py compares
the two on the dice of played turns, every roll-time guide and variants; the golden games
check the games). Unlike the reference it leaves the workspace's look-up scratch (w[KEEP],
w[COUNTS]) as it found it; no decision reads that scratch before a fresh look-up writes it.
"""

from __future__ import annotations

import numpy as np

from ..engine.dice import doubling_guide
from ..engine.jit import U, hot
from ..engine.layout import (
    AIGLE, CERF, FACE, FREE, FRESH, GUIDE, HERON, KEPT, LOUP, MAX_FACES, NDICE, PATIENCE, POWER_ARG, R_FACES,
    R_NFACES, R_UNIFORM, RESERVED, ROLLS_LEFT, STATUS, X_PATIENCE_COST, X_PATIENCE_DOUBLING,
)
from .common import shown_elsewhere
from .expert_values import (
    _consider, _face_seen_earlier, _same_as_earlier, _value_with_face, eagle_of_values, state_value,
    table_of, table_seat, wolf_of_values,
)
from .expert_column import held_column
from .expert_dp import ROW_ANX, ROW_RMAX

_ONE = np.uint64(1)
_S48 = np.uint64(8 * HERON)


@hot
def _interchangeable(w, R, i):
    """heron_sim.strategies.expert_values._same_as_earlier (die i is interchangeable with an earlier
    die), without comparing the dice's faces where every die is alike."""
    if R[R_UNIFORM] == 0:
        return _same_as_earlier(w, R, i)
    f = w[U(FACE + i)]
    st = w[U(STATUS + i)]
    fr = w[U(FRESH + i)]
    for j in range(i):
        if w[U(FACE + j)] == f and w[U(STATUS + j)] == st and w[U(FRESH + j)] == fr:
            return True
    return False


@hot
def _others(w, die):
    """Every die but ``die`` counted: (held, free, herons, fresh held) as
    heron_sim.strategies.expert_values._prep_without counts them: held (kept or reserved) and free
    non-heron dice packed 8 bits an animal, the herons whatever their status, and 1 where a
    held die is fresh."""
    held = np.uint64(0)
    free = np.uint64(0)
    h = 0
    fl = 0
    for i in range(w[NDICE]):
        if i == die:
            continue
        f = w[U(FACE + i)]
        st = w[U(STATUS + i)]
        if st != FREE and w[U(FRESH + i)] != 0:
            fl = 1
        if f == HERON:
            h += 1
        elif st == FREE:
            free += _ONE << np.uint64(8 * f)
        else:
            held += _ONE << np.uint64(8 * f)
    return held, free, h, fl


@hot
def _face_col(w, sp, ts, t, g, r, die, face, status, held, free, h0, fl0):
    """The table column of the dice with die ``die`` showing ``face`` / ``status`` (its
    freshness as is), the other dice counted (:func:`_others`); -1 where the tables do not
    answer (an Anxiety, no roll left or more than the tables hold, dice they do not hold)."""
    h = h0 + (1 if face == HERON else 0)
    if h >= int(sp[U(ts), ROW_ANX]) or r <= 0 or r > int(sp[U(ts), ROW_RMAX]):
        return -1
    fl = fl0
    if status != FREE and w[U(FRESH + die)] != 0:
        fl = 1
    if face != HERON:
        one = _ONE << np.uint64(8 * face)
        if status == FREE:
            free += one
        else:
            held += one
    col, _ = held_column(sp, ts, t, g, r, held + (np.uint64(h) << _S48), free, w[NDICE], fl)
    return col


@hot
def _face_value(seat, w, R, sp, ts, r, die, face, status, col):
    """heron_sim.strategies.expert_values._face_value from the column :func:`_face_col` found: the
    table's value, else the general path's (the same conditions, a negative value included)."""
    if col >= 0:
        v = sp[U(ts), U(col + 1)]
        if v >= 0.0:
            return v
    return _value_with_face(seat, w, R, sp, r, die, face, status)


@hot
def _columns(w, sp, ts, t, g, r, die, status, mask, held, free, h0, fl0):
    """:func:`_face_col` of die ``die`` showing each animal ``a`` whose bit is set in ``mask``
    (a heron reserved, any other with ``status``), -1 for the others: a 7-tuple by animal,
    every column found before any value is read (the values' loads then overlap)."""
    c0 = _face_col(w, sp, ts, t, g, r, die, 0, status, held, free, h0, fl0) if mask & 1 else -1
    c1 = _face_col(w, sp, ts, t, g, r, die, 1, status, held, free, h0, fl0) if mask & 2 else -1
    c2 = _face_col(w, sp, ts, t, g, r, die, 2, status, held, free, h0, fl0) if mask & 4 else -1
    c3 = _face_col(w, sp, ts, t, g, r, die, 3, status, held, free, h0, fl0) if mask & 8 else -1
    c4 = _face_col(w, sp, ts, t, g, r, die, 4, status, held, free, h0, fl0) if mask & 16 else -1
    c5 = _face_col(w, sp, ts, t, g, r, die, 5, status, held, free, h0, fl0) if mask & 32 else -1
    c6 = _face_col(w, sp, ts, t, g, r, die, HERON, RESERVED, held, free, h0, fl0) if mask & 64 else -1
    return (c0, c1, c2, c3, c4, c5, c6)


@hot
def _values_by_animal(seat, w, R, sp, r, die, status):
    """heron_sim.strategies.expert_values._values_by_animal (the value of the dice with die ``die``
    showing each animal on its faces; a heron reserved, any other with ``status``), counted."""
    nf = R[U(R_NFACES + die)]
    mask = 0
    for k in range(nf):
        mask |= 1 << R[U(R_FACES + MAX_FACES * die + k)]
    ts = table_seat(seat, sp)
    held, free, h0, fl0 = _others(w, die)
    c0, c1, c2, c3, c4, c5, c6 = _columns(w, sp, ts, table_of(seat, w, R), doubling_guide(w[U(GUIDE + seat)], w, R), r,
                                          die, status, mask, held, free, h0, fl0)
    v0 = _face_value(seat, w, R, sp, ts, r, die, 0, status, c0) if mask & 1 else 0.0
    v1 = _face_value(seat, w, R, sp, ts, r, die, 1, status, c1) if mask & 2 else 0.0
    v2 = _face_value(seat, w, R, sp, ts, r, die, 2, status, c2) if mask & 4 else 0.0
    v3 = _face_value(seat, w, R, sp, ts, r, die, 3, status, c3) if mask & 8 else 0.0
    v4 = _face_value(seat, w, R, sp, ts, r, die, 4, status, c4) if mask & 16 else 0.0
    v5 = _face_value(seat, w, R, sp, ts, r, die, 5, status, c5) if mask & 32 else 0.0
    v6 = _face_value(seat, w, R, sp, ts, r, die, HERON, RESERVED, c6) if mask & 64 else 0.0
    return (v0, v1, v2, v3, v4, v5, v6)


@hot
def _one_face(seat, w, R, sp, r, die, face, status):
    """The value of the dice with die ``die`` showing ``face`` / ``status`` (the Deer's and
    Patience's single face), counted."""
    held, free, h0, fl0 = _others(w, die)
    ts = table_seat(seat, sp)
    col = _face_col(w, sp, ts, table_of(seat, w, R), doubling_guide(w[U(GUIDE + seat)], w, R), r, die, face, status,
                    held, free, h0, fl0)
    return _face_value(seat, w, R, sp, ts, r, die, face, status, col)


@hot
def power_scan_counted(seat, w, R, sp, best):
    """heron_sim.strategies.expert_values.power_scan (every legal use of the seat's roll-time power,
    valued on the tables: (value, action) of the best use worth more than ``best``, the first
    die in index order among equals, else (best, -1)), with each value found on the dice
    counted: the same answer, bit for bit."""
    v, action, _ = power_scan_counted_runner(seat, w, R, sp, best)
    return v, action


@hot
def _note(near, floor, v, a):
    """Note use ``a`` in ``near`` (near[0] uses noted, then their actions) when ``v >= floor``."""
    if v >= floor and near[0] < near.shape[0] - 1:
        near[0] += 1
        near[near[0]] = a


@hot
def power_scan_counted_runner(seat, w, R, sp, best, floor=0.0, near=None):
    """:func:`power_scan_counted` and the value of the best of the other uses (``runner``), as
    heron_sim.strategies.expert_values.power_scan_runner returns them (the tables' stored power
    decisions, heron_sim.strategies.expert_powers). With ``near`` (an int64 array: the tables'
    build only; without it the notes are compiled away), every use worth ``floor`` or more is
    noted there too (:func:`_note`), in the scan's order."""
    n = w[NDICE]
    r = w[ROLLS_LEFT]
    g = w[U(GUIDE + seat)]
    action = -1
    runner = -1e300
    if g == CERF:
        ts = table_seat(seat, sp)
        t = table_of(seat, w, R)
        dg = doubling_guide(g, w, R)
        for i in range(n):
            f = w[U(FACE + i)]
            if f == HERON or _interchangeable(w, R, i):
                continue
            st = w[U(STATUS + i)]
            held, free, h0, fl0 = _others(w, i)
            m = 0  # the animals it may become (shown elsewhere), their columns first
            for b in range(6):
                if b != f and shown_elsewhere(w, i, b):
                    m |= 1 << b
            cols = _columns(w, sp, ts, t, dg, r, i, st, m, held, free, h0, fl0)
            for b in range(6):
                if m & (1 << b):
                    col = cols[b]
                    v = _face_value(seat, w, R, sp, ts, r, i, b, st, col)
                    if near is not None:
                        _note(near, floor, v, i + POWER_ARG * b)
                    best, action, runner = _consider(v, i + POWER_ARG * b, best, action, runner)
    elif g == HERON:
        cost = R[X_PATIENCE_COST]
        if r >= cost:
            for i in range(n):
                if w[U(STATUS + i)] != FREE or _interchangeable(w, R, i):
                    continue
                if R[X_PATIENCE_DOUBLING] != 0:  # each face with its own doubling
                    for k in range(R[U(R_NFACES + i)]):
                        if _face_seen_earlier(R, i, k):
                            continue
                        f = R[U(R_FACES + MAX_FACES * i + k)]
                        if f != HERON:  # expert_values.patience_use_value: this animal doubles
                            w[PATIENCE] = f
                        v = _one_face(seat, w, R, sp, r - cost, i, f, RESERVED if f == HERON else KEPT)
                        if f != HERON:
                            w[PATIENCE] = -1
                        if near is not None:
                            _note(near, floor, v, i + POWER_ARG * k)
                        best, action, runner = _consider(v, i + POWER_ARG * k, best, action, runner)
                    continue
                vals = _values_by_animal(seat, w, R, sp, r - cost, i, KEPT)
                for k in range(R[U(R_NFACES + i)]):
                    if _face_seen_earlier(R, i, k):
                        continue
                    v = vals[R[U(R_FACES + MAX_FACES * i + k)]]
                    if near is not None:
                        _note(near, floor, v, i + POWER_ARG * k)
                    best, action, runner = _consider(v, i + POWER_ARG * k, best, action, runner)
    elif g == LOUP:
        for i in range(n):
            if _interchangeable(w, R, i):
                continue
            fr = w[U(FRESH + i)]
            w[U(FRESH + i)] = 1  # expert_values.wolf_use_value: the rerolled die is fresh
            vals = _values_by_animal(seat, w, R, sp, r, i, FREE)
            w[U(FRESH + i)] = fr
            v = wolf_of_values(R, i, vals)
            if near is not None:
                _note(near, floor, v, i)
            best, action, runner = _consider(v, i, best, action, runner)
    elif g == AIGLE:
        base = state_value(seat, w, R, sp, r)
        for i in range(n):
            if w[U(STATUS + i)] == RESERVED or _interchangeable(w, R, i):
                continue
            vals = _values_by_animal(seat, w, R, sp, r, i, w[U(STATUS + i)])
            v = eagle_of_values(R, i, vals, base)
            if near is not None:
                _note(near, floor, v, i)
            best, action, runner = _consider(v, i, best, action, runner)
    return best, action, runner


@hot
def use_value_counted(seat, w, R, sp, action):
    """The value :func:`power_scan_counted` gives the use ``action`` (a D_POWER action of the
    seat's guide on the first die of its kind, where the scan values that kind), found the same
    way: the same float, bit for bit (tests/test_expert_scan.py)."""
    r = w[ROLLS_LEFT]
    g = w[U(GUIDE + seat)]
    i = action % POWER_ARG
    arg = action // POWER_ARG
    if g == CERF:
        return _one_face(seat, w, R, sp, r, i, arg, w[U(STATUS + i)])
    if g == HERON:
        f = R[U(R_FACES + MAX_FACES * i + arg)]
        doubles = R[X_PATIENCE_DOUBLING] != 0 and f != HERON
        if doubles:
            w[PATIENCE] = f
        v = _one_face(seat, w, R, sp, r - R[X_PATIENCE_COST], i, f, RESERVED if f == HERON else KEPT)
        if doubles:
            w[PATIENCE] = -1
        return v
    if g == LOUP:
        fr = w[U(FRESH + i)]
        w[U(FRESH + i)] = 1
        vals = _values_by_animal(seat, w, R, sp, r, i, FREE)
        w[U(FRESH + i)] = fr
        return wolf_of_values(R, i, vals)
    return eagle_of_values(R, i, _values_by_animal(seat, w, R, sp, r, i, w[U(STATUS + i)]), state_value(seat, w, R, sp, r))
