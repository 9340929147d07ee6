"""``racer``: the expert's tables, played for the race instead of the turn's mean.

At every keep/stop decision it compares, with the expert's table (heron_sim.strategies
.expert_dp), the best reroll's expected advance with a *race value* of stopping now:

- stopping wins the game (the finish is reached): always stop;
- otherwise the advance plus the worth of the square it lands on (``square_worth``): the
  Héron square's -10 and a skipped turn are avoided, the Lion square (opponents -3), the
  Aigle square (swap with the furthest opponent ahead: the gap), the Serpent square (to one
  behind the nearest pawn), the Cerf square, 🔄, the Wolf square's extra roll are sought.

It also tilts its risk with the race: when the leading opponent is ahead it values the reroll
a little more (up to +15 % at 30 squares behind), when it leads it values it a little less.
Everything else (powers, Lion, Bull, Snake, squares) is the expert's, and so is its fused turn
(heron_sim.strategies.expert_turn), which asks :func:`race_action` at each keep/stop decision.
"""

from __future__ import annotations

from ..engine.jit import U, hot, hot_inline
from ..engine.rulebook import consolation_no_set
from ..engine.layout import D_KEEP, PLAYERS, POS, PROT, R_BOARD
from ..rules.board import (
    DEER_TOTEM, EAGLE_SWAP, EXCHANGE, HERON_BACK, LION_ALL, PROTECTION, REGENERATION, SNAKE_JOIN,
    WOLF_ROLL, WONDER,
)
from ..rules.rules import P_EXACT, P_FINISH
from ..engine.dice import count_animals
from .expert import (
    KEEP_STOP, apply_keep_action, counted_advance, expert_decide, keep_column, table_seat,
)
from .common import snake_square_landing
from .greedy import greedy_keep

NAME = "racer"
DESCRIPTION = "Race-aware expert: stops to win, seeks good squares, avoids bad ones, tilts risk."
SID = 5  # the kernel's id of this strategy (unique; heron_sim.strategies.dispatch)
DECIDE = "racer_decide"  # its decision function, called by the generated dispatcher
ORDER = 3  # where it is listed (help, "all", "ai")
TABLES = True
FUSED_TURN = "expert_turn.expert_roll_phase"  # the expert's fused turn, its own stop rule
FUSED_SCORE = "greedy_turn.greedy_score"  # it scores as greedy does (no swap, regenerate, Bull)

WIN = 1000.0  # worth of a stop that wins


@hot
def square_worth(seat, w, R, sq):
    """Rough worth in squares, for this player, of its pawn landing on square ``sq``."""
    finish = R[P_FINISH]
    if sq >= finish:
        return WIN
    code = R[U(R_BOARD + sq)]
    players = w[PLAYERS]
    if code == HERON_BACK:
        return -10.0
    if code == WONDER:
        return -2.0
    if code == LION_ALL:
        return 2.5
    if code == EXCHANGE or code == WOLF_ROLL:
        return 1.0
    if code == DEER_TOTEM:
        return 2.0
    if code == PROTECTION or code == REGENERATION:
        return 0.5
    if code == EAGLE_SWAP:
        best = 0.0
        for o in range(players):
            if o != seat and w[U(PROT + o)] == 0 and w[U(POS + o)] - sq > best:
                best = float(w[U(POS + o)] - sq)
        return best
    if code == SNAKE_JOIN:
        return float(snake_square_landing(w, seat, sq) - sq)
    return 0.0


@hot
def race_tilt(seat, w):
    """The factor on the reroll's expected advance: up to +15 % when the leading opponent is
    ahead (0.5 % a square, 30 squares at most), 0.97 when no opponent is."""
    pos = w[U(POS + seat)]
    lead = 0
    for o in range(w[PLAYERS]):
        if o != seat and w[U(POS + o)] - pos > lead:
            lead = w[U(POS + o)] - pos
    return 1.0 + 0.005 * min(lead, 30) if lead > 0 else 0.97


@hot
def race_action(seat, w, R, sp, ts, col):
    """The racer's keep action at table column ``col`` of the row of seat ``ts``: the best
    reroll's action when its expected advance (tilted by the race) beats the race value of
    stopping now, else -1 (stop). Reads the dice counted by animal in w[COUNTS] (the generic
    path counts them, :func:`racer_keep`; the fused turn of heron_sim.strategies.expert_turn
    counts them as it rolls)."""
    return race_action_tilted(seat, w, R, sp, ts, col, race_tilt(seat, w))


@hot_inline
def race_action_tilted(seat, w, R, sp, ts, col, tilt):
    """:func:`race_action` with the tilt of :func:`race_tilt` given (the fused turn computes it
    once a roll phase: the pawns do not move in it)."""
    reroll_action = int(sp[U(ts), U(col + 2)])
    if reroll_action < 0:
        return -1
    pos = w[U(POS + seat)]
    s0 = counted_advance(seat, w, R)
    land = pos + s0
    if R[P_EXACT] != 0 and land > R[P_FINISH]:
        land = R[P_FINISH] - (land - R[P_FINISH])
    if s0 > 0:
        stop_value = float(s0) + square_worth(seat, w, R, land)
    else:  # consolation_no_set (0 with the rulings) moves the pawn but triggers no square
        c = consolation_no_set(R)
        stop_value = float(c) + (WIN if c > 0 and pos + c >= R[P_FINISH] and R[P_EXACT] == 0 else 0.0)
    if sp[U(ts), U(col + 3)] * tilt > stop_value + 1e-9:
        return reroll_action
    return -1


@hot
def racer_keep(seat, w, R, sp):
    col = keep_column(seat, w, R, sp)
    if col == KEEP_STOP:
        return 0
    if col < 0:
        return greedy_keep(seat, w)
    count_animals(w)  # what race_action reads (apply_keep_action rewrites w[COUNTS] after)
    return apply_keep_action(seat, w, sp, race_action(seat, w, R, sp, table_seat(seat, sp), col))


@hot
def racer_decide(kind, seat, w, R, rng, sp):
    if kind == D_KEEP:
        return racer_keep(seat, w, R, sp)
    return expert_decide(kind, seat, w, R, rng, sp)
