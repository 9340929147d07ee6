"""``greedy``: the reference policy of the rulings §7.

After each roll it chases the animal with the largest count among all dice showing (ties: its
guide's animal, then lowest index), keeps every free die of this roll showing it, and rerolls
whenever the rules allow; it never stops voluntarily before that. Powers: Bull whenever it
applies, Lion at every Anxiety, Snake on a nominal move back of 2 or more; never Wolf, Eagle,
Deer or Heron. Squares: 🔄 +1 for itself; Aigle swaps with the unprotected opponent furthest
ahead if strictly ahead; Cerf regenerates an exhausted guide; it never swaps guides.
"""

from __future__ import annotations

from ..engine.jit import U, hot

from ..engine.dice import best_set, count_animals
from ..engine.layout import (
    D_BULL, D_DEER_SQUARE, D_EAGLE_SQUARE, D_KEEP, D_LION, D_SNAKE, FACE, FREE, FRESH, GUIDE, KEEP,
    NDICE, NOMINAL, ROLLS_LEFT, STATUS,
)
from .common import furthest_ahead_opponent

NAME = "greedy"
DESCRIPTION = "Reference policy (rulings §7): keep the largest set, reroll while allowed."
SID = 0  # the kernel's id of this strategy (unique; heron_sim.strategies.dispatch)
DECIDE = "greedy_decide"  # its decision function, called by the generated dispatcher
ORDER = 0  # where it is listed (help, "all", "ai")
FUSED_TURN = "greedy_turn.greedy_fused_turn"  # its turn without decide (heron_sim.loop.turn)
FUSED_SCORE = "greedy_turn.greedy_score"  # and its scoring, from the counts the turn leaves
OWN_KERNEL = True  # seated alone (the default seating), it always plays in its own kernel


@hot
def greedy_keep(seat, w):
    """Keep the free dice showing the target animal; return 1 to reroll, 0 to stop."""
    count_animals(w)
    _, target = best_set(w, w[U(GUIDE + seat)])
    newly = 0       # dice newly kept from this roll (fresh reserved herons included)
    free_left = 0   # free dice left to reroll
    for i in range(w[NDICE]):
        keep = 0
        if w[U(STATUS + i)] == FREE:
            if w[U(FACE + i)] == target:
                keep = 1
                newly += 1
            else:
                free_left += 1
        elif w[U(FRESH + i)] != 0:
            newly += 1
        w[U(KEEP + i)] = keep
    if w[ROLLS_LEFT] > 0 and free_left > 0 and newly > 0:
        return 1
    return 0


@hot
def greedy_decide(kind, seat, w):
    if kind == D_KEEP:
        return greedy_keep(seat, w)
    if kind == D_LION or kind == D_BULL or kind == D_DEER_SQUARE:
        return 1
    if kind == D_SNAKE:
        return 1 if w[NOMINAL] >= 2 else 0
    if kind == D_EAGLE_SQUARE:
        return furthest_ahead_opponent(w, seat)
    # D_POWER, D_SET_SWAP, D_SET_CHOICE (regenerate), D_EXCHANGE (+1 for itself): -1;
    # D_EAGLE_PICK is never asked (greedy never uses the Eagle).
    return -1
