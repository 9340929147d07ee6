"""``random``: every decision drawn uniformly over its legal options.

- Keep/stop: uniform over {stop} and every legal keep (a subset of this roll's free dice that
  leaves at least one free die and keeps at least one new die unless a heron of this roll
  already counts); with no roll left it stops.
- A one-shot power: a fair coin whether to use it when it can be used, then a uniform legal
  target (die, face or animal); Eagle's face: uniform over the original and the two drawn faces.
- Yes/no choices (Lion, Bull, Snake, Cerf square): a fair coin. Choices of an opponent (guide
  swap, 🔄, Aigle square): uniform over "none" (or the self option) and each legal opponent.
"""

from __future__ import annotations

from ..engine.jit import U, hot

from ..engine.layout import (
    X_EAGLE_DRAWS, X_PATIENCE_COST,
    AIGLE, CERF, D_EAGLE_PICK, D_EAGLE_SQUARE, D_EXCHANGE, D_KEEP, D_POWER, D_SET_CHOICE,
    D_SET_SWAP, FACE, FREE, FRESH, GUIDE, HERON, KEEP, LOUP, NDICE, PLAYERS, POWER_ARG, R_NFACES,
    RESERVED, ROLLS_LEFT, STATUS,
)
from ..engine.rng import below
from .common import can_target, shown_elsewhere

NAME = "random"
DESCRIPTION = "Uniform over legal choices (a baseline, not a player)."
SID = 1  # the kernel's id of this strategy (unique; heron_sim.strategies.dispatch)
DECIDE = "random_decide"  # its decision function, called by the generated dispatcher
ORDER = 4  # where it is listed (help, "all", "ai")


@hot
def random_keep(w, rng):
    n = w[NDICE]
    free = 0
    fresh_held = 0
    for i in range(n):
        w[U(KEEP + i)] = 0
        if w[U(STATUS + i)] == FREE:
            free += 1
        elif w[U(FRESH + i)] != 0:
            fresh_held += 1
    if w[ROLLS_LEFT] <= 0 or free == 0:
        return 0
    full = (1 << free) - 1
    # Legal masks: all but `full` (a die must stay free), and not 0 unless a die of this roll
    # is already held (a reserved heron).
    first = 0 if fresh_held > 0 else 1
    n_legal = full - first
    if n_legal <= 0:
        return 0
    u = below(rng, n_legal + 1)
    if u == n_legal:
        return 0
    mask = u + first
    bit = 0
    for i in range(n):
        if w[U(STATUS + i)] == FREE:
            if (mask >> bit) & 1:
                w[U(KEEP + i)] = 1
            bit += 1
    return 1


@hot
def random_opponent_or_none(w, seat, rng):
    players = w[PLAYERS]
    n = 0
    for o in range(players):
        if can_target(w, seat, o):
            n += 1
    u = below(rng, n + 1)
    if u == n:
        return -1
    for o in range(players):
        if can_target(w, seat, o):
            if u == 0:
                return o
            u -= 1
    return -1


@hot
def random_power(seat, w, R, rng):
    """-1 (the coin says no, or nothing is legal) or a legal action die + POWER_ARG * arg."""
    n = w[NDICE]
    guide = w[U(GUIDE + seat)]
    if below(rng, 2) == 0:
        return -1
    if guide == LOUP:
        return below(rng, n)
    if guide == AIGLE:
        m = 0
        for i in range(n):
            if w[U(STATUS + i)] != RESERVED:
                m += 1
        if m == 0:
            return -1
        u = below(rng, m)
        for i in range(n):
            if w[U(STATUS + i)] != RESERVED:
                if u == 0:
                    return i
                u -= 1
    if guide == CERF:
        # (die, animal): the die not a heron, the animal a non-heron showing on another die.
        m = 0
        for i in range(n):
            if w[U(FACE + i)] != HERON:
                for a in range(6):
                    if shown_elsewhere(w, i, a):
                        m += 1
        if m == 0:
            return -1
        u = below(rng, m)
        for i in range(n):
            if w[U(FACE + i)] != HERON:
                for a in range(6):
                    if shown_elsewhere(w, i, a):
                        if u == 0:
                            return i + POWER_ARG * a
                        u -= 1
    if guide == HERON:
        if w[ROLLS_LEFT] < R[X_PATIENCE_COST]:
            return -1
        m = 0
        for i in range(n):
            if w[U(STATUS + i)] == FREE:
                m += R[U(R_NFACES + i)]
        if m == 0:
            return -1
        u = below(rng, m)
        for i in range(n):
            if w[U(STATUS + i)] == FREE:
                if u < R[U(R_NFACES + i)]:
                    return i + POWER_ARG * u
                u -= R[U(R_NFACES + i)]
    return -1


@hot
def random_decide(kind, seat, w, R, rng):
    if kind == D_KEEP:
        return random_keep(w, rng)
    if kind == D_POWER:
        return random_power(seat, w, R, rng)
    if kind == D_EAGLE_PICK:
        return below(rng, R[X_EAGLE_DRAWS] + 1)  # the original face or one of the drawn
    if kind == D_SET_SWAP or kind == D_SET_CHOICE or kind == D_EXCHANGE or kind == D_EAGLE_SQUARE:
        return random_opponent_or_none(w, seat, rng)
    # Yes/no: Lion, Bull, Snake, Cerf square.
    return below(rng, 2)
