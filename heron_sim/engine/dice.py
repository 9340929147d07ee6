"""Rolling dice (random or scripted) and reading the dice showing."""

from __future__ import annotations

import numpy as np

from .jit import U, hot
from .layout import (
    COUNTS, FACE, FREE, FRESH, HERON, KEEP, MAX_FACES, NDICE, PATIENCE, R_FACES, R_NFACES, R_REJECT,
    RESERVED, RPTR, RSCRIPT, RSCRIPT_LEN, STATUS, X_PATIENCE_DOUBLING,
)
from ..rules.rules import HERON_SET_SHIFT, P_HERON_DOUBLING
from .rng import below, draw_index



@hot
def roll_die(i, w, R, rng):
    """Animal shown by die ``i``: the next scripted face while a dice script is left, else a
    fair draw over the die's faces."""
    p = w[RPTR]
    if p < w[RSCRIPT_LEN]:
        w[RPTR] = p + 1
        return w[U(w[RSCRIPT] + p)]
    return R[U(R_FACES + MAX_FACES * i + below(rng, R[U(R_NFACES + i)]))]


@hot
def roll_free_dice(w, R, rng):
    """Roll every free die; herons are reserved at once. Returns the number of new herons.

    Unscripted dice are cut 16 bits at a time from 64-bit draws (four dice a draw), by
    Lemire's multiply-and-shift with rejection of the lowest ``65536 mod faces`` values, so
    each face is exactly equiprobable. Unused bits are dropped at the end of the roll.
    """
    new_herons = 0
    scripted = w[RPTR] < w[RSCRIPT_LEN]
    s = rng[0]
    bits = np.uint64(0)
    chunks = 0
    for i in range(w[NDICE]):
        if w[U(STATUS + i)] == FREE:
            if scripted:
                f = roll_die(i, w, R, rng)
            else:
                k, s, bits, chunks = draw_index(np.uint64(R[U(R_NFACES + i)]), np.uint64(R[U(R_REJECT + i)]),
                                                s, bits, chunks)
                f = R[U(R_FACES + MAX_FACES * i + k)]
            w[U(FACE + i)] = f
            w[U(FRESH + i)] = 1
            if f == HERON:
                w[U(STATUS + i)] = RESERVED
                new_herons += 1
        else:
            w[U(FRESH + i)] = 0
    if not scripted:
        rng[0] = s
    return new_herons


@hot
def reserved_herons(w):
    n = 0
    for i in range(w[NDICE]):
        if w[U(STATUS + i)] == RESERVED:
            n += 1
    return n


@hot
def count_animals(w):
    """w[COUNTS + a] = dice showing animal a (herons included at index 6)."""
    for a in range(7):
        w[U(COUNTS + a)] = 0
    for i in range(w[NDICE]):
        w[U(COUNTS + w[U(FACE + i)])] += 1


@hot
def best_set(w, guide):
    """Largest set of one non-heron animal among w[COUNTS]: (size, animal); ties: the guide's
    animal, then the lowest index."""
    size = 0
    animal = 0
    for a in range(6):
        c = w[U(COUNTS + a)]
        if c > size:
            size = c
            animal = a
    if guide < 6 and size > 0 and w[U(COUNTS + guide)] == size:
        animal = guide
    return size, animal


@hot
def newly_kept_count(w):
    """If w[KEEP] (over free dice) is applied: dice newly kept from this roll, free dice left."""
    newly = 0
    free_left = 0
    for i in range(w[NDICE]):
        if w[U(STATUS + i)] == FREE:
            if w[U(KEEP + i)] != 0:
                newly += 1
            else:
                free_left += 1
        elif w[U(FRESH + i)] != 0:
            newly += 1
    return newly, free_left


@hot
def heron_earns_doubling(guide, size, w, R):
    """Variant ``heron_doubling_herons = k >= 1``: a Héron guide earns the Guide Power doubling
    when the final dice show at least k herons (counted by count_animals) and its set has at least
    ``heron_doubling_min_set`` dice. k = 0: never (the rulings). Both live in R[P_HERON_DOUBLING]
    (k + HERON_SET_SHIFT * min_set)."""
    k = R[P_HERON_DOUBLING] % HERON_SET_SHIFT
    min_set = R[P_HERON_DOUBLING] // HERON_SET_SHIFT
    return guide == HERON and k > 0 and w[U(COUNTS + HERON)] >= k and size >= min_set


@hot
def doubling_guide(guide, w, R):
    """The animal whose sets a seat's Guide Power doubles (and that wins ties of the largest
    set): its guide's animal; for a Héron guide under variant ``heron_patience_doubling``, the
    animal it set with Patience this turn (w[PATIENCE]; none: the heron, which never combines)."""
    if guide == HERON and R[X_PATIENCE_DOUBLING] != 0 and w[PATIENCE] >= 0:
        return w[PATIENCE]
    return guide
