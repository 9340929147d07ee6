"""The roll-time guide powers (Wolf, Eagle, Deer, Heron's Patience) applied to the dice."""

from __future__ import annotations

from ..engine.jit import U, hot

from ..engine.rulebook import power_enabled  # noqa: F401 (the rule, also read from here)
from ..strategies.dispatch import decide
from ..engine.dice import roll_die
from ..engine.layout import (
    AIGLE, C_POWERS, CERF, D_EAGLE_PICK, EAGLE_DIE, EAGLE_FACES, FACE, FREE, FRESH, GUIDE, PATIENCE,
    X_EAGLE_DRAWS, X_PATIENCE_COST,
    HERON, KEPT, LOUP, MAX_FACES, NDICE, POWER_ARG, R_FACES, R_NFACES, READY, RESERVED,
    ROLLS_LEFT, ROW, STATUS,
)


@hot
def has_roll_time_power(guide):
    return guide == LOUP or guide == AIGLE or guide == CERF or guide == HERON


@hot
def apply_power(seat, action, w, R, rng, sp):
    """Apply the seat's guide power ``action`` (die + POWER_ARG * arg) and exhaust the guide.

    Raises ValueError on an illegal action (a strategy bug, never silently ignored).
    """
    n = w[NDICE]
    die = action % POWER_ARG
    arg = action // POWER_ARG
    if die >= n:
        raise ValueError("power: die index out of range")
    guide = w[U(GUIDE + seat)]
    if guide == LOUP:
        # Reroll any die, even kept or a reserved heron: handled as a freshly rolled die.
        f = roll_die(die, w, R, rng)
        w[U(FACE + die)] = f
        w[U(FRESH + die)] = 1
        w[U(STATUS + die)] = RESERVED if f == HERON else FREE
    elif guide == AIGLE:
        if w[U(STATUS + die)] == RESERVED:
            raise ValueError("Eagle: cannot pick a reserved heron")
        w[EAGLE_DIE] = die
        draws = R[X_EAGLE_DRAWS]  # two (rulings §5), or variant eagle_draws
        for k in range(draws):
            w[U(EAGLE_FACES + k)] = roll_die(die, w, R, rng)
        pick = decide(D_EAGLE_PICK, seat, w, R, rng, sp)
        if pick < 0 or pick > draws:
            raise ValueError("Eagle: the pick must be 0 (the original face) or a drawn face 1..eagle_draws")
        if pick > 0:
            w[U(FACE + die)] = w[U(EAGLE_FACES + pick - 1)]
        if w[U(FACE + die)] == HERON:
            w[U(STATUS + die)] = RESERVED
    elif guide == CERF:
        if w[U(FACE + die)] == HERON or arg < 0 or arg >= HERON:
            raise ValueError("Deer: the die and the new animal must not be herons")
        shown = False
        for j in range(n):
            if j != die and w[U(FACE + j)] == arg:
                shown = True
        if not shown:
            raise ValueError("Deer: the new animal must show on another die")
        w[U(FACE + die)] = arg
    elif guide == HERON:
        cost = R[X_PATIENCE_COST]  # one roll (rulings §5), or variant patience_cost
        if w[ROLLS_LEFT] < cost:
            raise ValueError("Heron: Patience needs patience_cost remaining rolls")
        if w[U(STATUS + die)] != FREE or arg < 0 or arg >= R[U(R_NFACES + die)]:
            raise ValueError("Heron: Patience sets a free die to one of its own faces")
        w[ROLLS_LEFT] -= cost
        f = R[U(R_FACES + MAX_FACES * die + arg)]
        w[U(FACE + die)] = f
        w[U(STATUS + die)] = RESERVED if f == HERON else KEPT
        if f != HERON:
            w[PATIENCE] = f  # the animal a heron_patience_doubling Héron doubles this turn
    else:
        raise ValueError("power: this guide has no roll-time power")
    w[U(READY + seat)] = 0
    w[U(w[ROW] + C_POWERS + guide)] += 1
