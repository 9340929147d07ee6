"""Small compiled helpers shared by strategies (legality of targets, what the dice show)."""

from __future__ import annotations

from ..engine.jit import U, hot

from ..engine.layout import FACE, NDICE, PLAYERS, POS, PROT


def param_column(params: dict, name: str) -> int:
    """The column of a seat's parameter row that holds the strategy's parameter ``name``: its
    place in the strategy's ``PARAMS`` (heron_sim.strategies.seat_arrays writes them in that
    order, from column 0). The kernels read ``sp[seat, COLUMN]`` with the module's constant,
    never a bare column number."""
    return list(params).index(name)


@hot
def can_target(w, seat, target):
    """An opponent can be targeted (move back, position or guide swap) unless it is protected."""
    return 0 <= target < w[PLAYERS] and target != seat and w[U(PROT + target)] == 0


@hot
def furthest_ahead_opponent(w, seat):
    """Unprotected opponent furthest ahead (ties: next in turn order), or -1 if none is strictly
    ahead of ``seat``."""
    players = w[PLAYERS]
    best = -1
    for k in range(1, players):
        o = (seat + k) % players
        if can_target(w, seat, o) and (best < 0 or w[U(POS + o)] > w[U(POS + best)]):
            best = o
    if best >= 0 and w[U(POS + best)] > w[U(POS + seat)]:
        return best
    return -1


@hot
def snake_square_landing(w, seat, sq):
    """Where the Serpent square takes pawn ``seat`` standing on ``sq``: one square behind the
    nearest other pawn not on ``sq`` (ties in distance: the one ahead), floored at 0; ``sq``
    itself when every other pawn is on ``sq`` (no effect)."""
    best = -1
    best_d = 0
    for o in range(w[PLAYERS]):
        if o == seat or w[U(POS + o)] == sq:
            continue
        d = abs(w[U(POS + o)] - sq)
        if best < 0 or d < best_d or (d == best_d and w[U(POS + o)] > w[U(POS + best)]):
            best = o
            best_d = d
    if best < 0:
        return sq
    pos = w[U(POS + best)] - 1
    return pos if pos > 0 else 0


@hot
def shown_elsewhere(w, die, animal):
    """Some die other than ``die`` shows ``animal`` (the Deer's condition)."""
    for j in range(w[NDICE]):
        if j != die and w[U(FACE + j)] == animal:
            return True
    return False
