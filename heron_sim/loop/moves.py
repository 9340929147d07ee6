"""Pawn moves: forward to the finish (or bounce back), and fixed moves back (the Snake's cancel)."""

from __future__ import annotations

from ..engine.jit import U, hot

from ..rules.rules import P_EXACT, P_FINISH, P_SNAKE_ADVANCE, P_SNAKE_MAX_CANCEL
from ..strategies.dispatch import decide
from .powers import power_enabled
from ..engine.layout import C_POWERS, D_SNAKE, GUIDE, NOMINAL, POS, READY, ROW, SERPENT
from ..engine.rulebook import pond_pushback  # noqa: F401 (the rule; the loop reads it from here)


@hot
def forward(p, delta, w, R):
    """Move pawn ``p`` forward ``delta`` squares; True if it wins (reaches the finish).

    Exact-finish variant: an overshoot bounces back from the finish and does not win.
    """
    finish = R[P_FINISH]
    pos = w[U(POS + p)] + delta
    if pos >= finish:
        if R[P_EXACT] == 0 or pos == finish:
            w[U(POS + p)] = finish
            return True
        pos = finish - (pos - finish)
        if pos < 0:
            pos = 0
    w[U(POS + p)] = pos
    return False


@hot
def move_back(p, amount, w, R, rng, sp):
    """A fixed move back of ``amount`` hits pawn ``p`` (Pond, Lion square, 🔄 −1, Héron square).

    A ready Snake guide may cancel it and advance ``snake_advance`` (1) instead (that advance triggers nothing; it
    can win); variant ``snake_max_cancel``: only moves back of at most that many squares. Floors at square 0. Returns True if ``p`` wins. The caller checks protection.
    """
    if (w[U(GUIDE + p)] == SERPENT and w[U(READY + p)] != 0 and power_enabled(R, SERPENT)
            and (R[P_SNAKE_MAX_CANCEL] == 0 or amount <= R[P_SNAKE_MAX_CANCEL])):
        w[NOMINAL] = amount
        if decide(D_SNAKE, p, w, R, rng, sp) == 1:
            w[U(READY + p)] = 0
            w[U(w[ROW] + C_POWERS + SERPENT)] += 1
            return forward(p, R[P_SNAKE_ADVANCE], w, R)
    pos = w[U(POS + p)] - amount
    w[U(POS + p)] = pos if pos > 0 else 0
    return False
