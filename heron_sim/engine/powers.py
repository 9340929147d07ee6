"""The roll-time guide powers (Wolf, Eagle, Deer, Heron's Patience) applied to the dice."""

from __future__ import annotations

from .jit import hot

from ..rules.rules import P_POWERS, P_POWERS_OFF
from ..strategies.dispatch import decide
from .dice import roll_die
from .layout import (
    AIGLE, C_POWERS, CERF, D_EAGLE_PICK, EAGLE_DIE, EAGLE_F1, EAGLE_F2, FACE, FREE, FRESH, GUIDE,
    HERON, KEPT, LOUP, MAX_FACES, NDICE, POWER_ARG, R_FACES, R_NFACES, READY, RESERVED,
    ROLLS_LEFT, ROW, STATUS,
)


@hot
def power_enabled(R, guide):
    """The one-shot power of ``guide`` can be used (powers on, and this one not disabled)."""
    return R[P_POWERS] != 0 and (R[P_POWERS_OFF] >> guide) & 1 == 0


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
    guide = w[GUIDE + seat]
    if guide == LOUP:
        # Reroll any die, even kept or a reserved heron: handled as a freshly rolled die.
        f = roll_die(die, w, R, rng)
        w[FACE + die] = f
        w[FRESH + die] = 1
        w[STATUS + die] = RESERVED if f == HERON else FREE
    elif guide == AIGLE:
        if w[STATUS + die] == RESERVED:
            raise ValueError("Eagle: cannot pick a reserved heron")
        w[EAGLE_DIE] = die
        w[EAGLE_F1] = roll_die(die, w, R, rng)
        w[EAGLE_F2] = roll_die(die, w, R, rng)
        pick = decide(D_EAGLE_PICK, seat, w, R, rng, sp)
        if pick == 1:
            w[FACE + die] = w[EAGLE_F1]
        elif pick == 2:
            w[FACE + die] = w[EAGLE_F2]
        elif pick != 0:
            raise ValueError("Eagle: the pick must be 0, 1 or 2")
        if w[FACE + die] == HERON:
            w[STATUS + die] = RESERVED
    elif guide == CERF:
        if w[FACE + die] == HERON or arg < 0 or arg >= HERON:
            raise ValueError("Deer: the die and the new animal must not be herons")
        shown = False
        for j in range(n):
            if j != die and w[FACE + j] == arg:
                shown = True
        if not shown:
            raise ValueError("Deer: the new animal must show on another die")
        w[FACE + die] = arg
    elif guide == HERON:
        if w[ROLLS_LEFT] <= 0:
            raise ValueError("Heron: Patience needs a remaining roll")
        if w[STATUS + die] != FREE or arg < 0 or arg >= R[R_NFACES + die]:
            raise ValueError("Heron: Patience sets a free die to one of its own faces")
        w[ROLLS_LEFT] -= 1
        f = R[R_FACES + MAX_FACES * die + arg]
        w[FACE + die] = f
        w[STATUS + die] = RESERVED if f == HERON else KEPT
    else:
        raise ValueError("power: this guide has no roll-time power")
    w[READY + seat] = 0
    w[w[ROW] + C_POWERS + guide] += 1
