"""The special squares' effects (after a move by the player's own combination; no cascade)."""

from __future__ import annotations

from ..engine.jit import U, hot, hot_inline

from ..rules.board import (
    BULL_ALL, DEER_TOTEM, EAGLE_SWAP, EXCHANGE, HERON_BACK, LION_ALL, NEUTRAL, PROTECTION,
    REGENERATION, ROTATION, SNAKE_JOIN, WOLF_ROLL, WONDER,
)
from ..rules.rules import P_SINGLE_USE
from ..strategies.common import can_target, snake_square_landing
from ..strategies.dispatch import decide
from ..engine.layout import (
    BONUS, C_SQUARES, D_DEER_SQUARE, D_EAGLE_SQUARE, D_EXCHANGE, GUIDE, PLAYERS, POS, PROT, R_BOARD,
    READY, ROW, SKIP, USED,
)
from .moves import forward, move_back


@hot_inline
def trigger_square(a, w, R, rng, sp):
    """Apply the square under the active pawn ``a`` (:func:`square_effect`). Returns the winning
    seat, or -1. Inlined into the turn: most landings are on a square with no effect, answered
    here without a call."""
    if R[U(R_BOARD + w[U(POS + a)])] == NEUTRAL:
        return -1
    return square_effect(a, w, R, rng, sp)


@hot
def square_effect(a, w, R, rng, sp):
    """Apply the square under the active pawn ``a``. Returns the winning seat, or -1.

    Several pawns reaching the finish through one effect: the active player first, then turn
    order from the seat after it (effects are applied in that order; the first to arrive wins).
    """
    players = w[PLAYERS]
    sq = w[U(POS + a)]
    code = R[U(R_BOARD + sq)]
    if code == NEUTRAL:
        return -1
    if R[P_SINGLE_USE] != 0:
        if w[U(w[USED] + sq)] != 0:
            return -1
        w[U(w[USED] + sq)] = 1
    w[U(w[ROW] + C_SQUARES + sq)] += 1
    if code == WOLF_ROLL:
        w[U(BONUS + a)] = 1
    elif code == EXCHANGE:
        target = decide(D_EXCHANGE, a, w, R, rng, sp)
        if target >= 0 and can_target(w, a, target):
            if move_back(target, 1, w, R, rng, sp):
                return target
        elif forward(a, 1, w, R):
            return a
    elif code == BULL_ALL:
        for k in range(players):
            p = (a + k) % players
            if forward(p, 3, w, R):
                return p
    elif code == WONDER:
        w[U(SKIP + a)] = 1
        w[U(PROT + a)] = 1
    elif code == SNAKE_JOIN:
        w[U(POS + a)] = snake_square_landing(w, a, sq)
    elif code == ROTATION:
        # Every player passes its guide (and its state) to the next player in turn order.
        last_g = w[U(GUIDE + players - 1)]
        last_r = w[U(READY + players - 1)]
        for p in range(players - 1, 0, -1):
            w[U(GUIDE + p)] = w[U(GUIDE + p - 1)]
            w[U(READY + p)] = w[U(READY + p - 1)]
        w[GUIDE] = last_g
        w[READY] = last_r
    elif code == LION_ALL:
        for k in range(1, players):
            o = (a + k) % players
            if w[U(PROT + o)] == 0:
                if move_back(o, 3, w, R, rng, sp):
                    return o
    elif code == PROTECTION:
        w[U(PROT + a)] = 1
    elif code == EAGLE_SWAP:
        target = decide(D_EAGLE_SQUARE, a, w, R, rng, sp)
        if target >= 0 and can_target(w, a, target):
            pos = w[U(POS + a)]
            w[U(POS + a)] = w[U(POS + target)]
            w[U(POS + target)] = pos
    elif code == DEER_TOTEM:
        if w[U(READY + a)] == 0 and decide(D_DEER_SQUARE, a, w, R, rng, sp) == 1:
            w[U(READY + a)] = 1
        elif forward(a, 2, w, R):
            return a
    elif code == REGENERATION:
        for p in range(players):
            w[U(READY + p)] = 1
    elif code == HERON_BACK:
        if move_back(a, 10, w, R, rng, sp):
            return a
    return -1
