"""One turn slot, and whole games."""

from __future__ import annotations

from ..engine.jit import U, hot, hot_inline

from ..rules.rules import P_MAX_ROUNDS
from ..engine.layout import (
    ACTIVE, C_ADVANCE, C_FINISHED, C_POND_LEAD_LOSSES, C_GUIDE, C_LEAD_CHANGES, C_MID_LAST, C_MID_LEADER, C_PLAYED,
    C_PONDS, C_POS, C_PUSHBACK, C_ROUNDS, C_SEAT_POND_BACK, C_SEAT_POND_HITS, C_SEAT_PONDS, C_SKIPPED,
    C_TURNS, C_WINNER, COUNTS, DPTR, GUIDE, LEAD,
    MAX_SEATS, OUT_ANXIETY, OUT_POND, PLAYERS, POS, PROT, READY, ROUND, ROW, RPTR, SID, SKIP,
    WINNER, BONUS, R_ROWS, R_TSET, X_CONS_ANX, X_CONS_NOSET, X_EXTRA_ROLLS, X_START, LUCK, LUCK_ROW, LAND, LAND_SLOTS, FINL,
)
from .moves import forward, move_back, pond_pushback
from ..engine.rng import below
from .squares import trigger_square
from .turn import roll_phase, score_dice
from ..strategies import luck_weights


@hot_inline
def _unique_extreme(w, largest):
    """Seat strictly ahead of (largest) or behind all others, or -1 on a tie (the extreme
    square held by two seats or more). Written without branches on the squares (selects):
    which seat leads changes from slot to slot, and a mispredicted branch cost more than the
    loop's work."""
    sign = 1 if largest else -1
    best = 0
    top = sign * w[POS]
    seen = 1  # seats on the extreme square so far
    for p in range(1, w[PLAYERS]):
        v = sign * w[U(POS + p)]
        ahead = v > top
        best = p if ahead else best
        seen = 1 if ahead else seen + (v == top)
        top = v if ahead else top
    return best if seen == 1 else -1


@hot
def turn_rules(g, w, R, sp):
    """The rules and the strategies' parameter rows of a turn of guide ``g``'s holder: ``R`` and
    ``sp`` themselves, or with rules by guide (layout.R_ROWS) that guide's row of ``R`` and the
    block of ``sp`` holding the tables of its rules (views: nothing is copied). With luck on
    (``w[LUCK_ROW] > 0``) each block has one more row, after the seats': the luck row of its
    rules (heron_sim.simulation._with_luck_row), so the turn's luck reads its own rules' tables."""
    n = R[R_ROWS]
    if n == 0:
        return R, sp
    Rg = R[n * (g + 1): n * (g + 2)]
    rows = w[PLAYERS] + (1 if w[LUCK_ROW] > 0 else 0)
    k = Rg[R_TSET] * rows
    return Rg, sp[k: k + rows]


@hot_inline
def play_slot(a, w, R, rng, sp):
    """Seat ``a``'s turn slot, under the rules of the guide it holds at the slot's start (the
    rules by guide follow the card: a guide swapped or rotated during the turn changes the rules
    of its new holder's next turn). Returns the winning seat, or -1."""
    Rg, spg = turn_rules(w[U(GUIDE + a)], w, R, sp)
    return _play_slot(a, w, Rg, rng, spg)


@hot_inline
def _play_slot(a, w, R, rng, sp):
    players = w[PLAYERS]
    row = w[ROW]
    w[ACTIVE] = a
    w[U(PROT + a)] = 0  # protection ends at the start of the player's next turn slot
    if w[U(SKIP + a)] != 0:
        w[U(SKIP + a)] = 0
        w[U(row + C_SKIPPED)] += 1
        return -1
    w[U(row + C_PLAYED)] += 1
    w[U(row + C_TURNS + a)] += 1
    outcome, value = roll_phase(a, w, R, rng, sp)
    if outcome == OUT_POND:
        w[U(row + C_PONDS)] += 1
        value = pond_pushback(R, value)  # H herons: H squares back (rulings §3), or a variant
        w[U(row + C_PUSHBACK)] += value
        w[U(row + C_SEAT_PONDS + a)] += 1
        leader = _unique_extreme(w, True)
        for k in range(1 if value > 0 else players, players):  # a push-back of 0 hits nobody
            o = (a + k) % players
            if w[U(PROT + o)] == 0:
                w[U(row + C_SEAT_POND_HITS + o)] += 1
                before = w[U(POS + o)]
                if move_back(o, value, w, R, rng, sp):
                    return o
                if w[U(POS + o)] < before:
                    w[U(row + C_SEAT_POND_BACK + o)] += before - w[U(POS + o)]
        if leader >= 0 and _unique_extreme(w, True) != leader:
            w[U(row + C_POND_LEAD_LOSSES)] += 1
        return -1
    if outcome == OUT_ANXIETY:
        # variant consolation_anxiety: a few squares after an unrescued Anxiety (trigger nothing)
        if R[X_CONS_ANX] > 0 and forward(a, R[X_CONS_ANX], w, R):
            return a
        return -1
    advance = score_dice(a, w, R, rng, sp)
    w[U(row + C_ADVANCE + a)] += advance
    if advance <= 0:
        # variant consolation_no_set: a few squares after a scored turn worth 0 (no set of 3
        # with the rulings' table); like the Anxiety's, it triggers no square
        if R[X_CONS_NOSET] > 0 and forward(a, R[X_CONS_NOSET], w, R):
            return a
        return -1  # an advance of 0 is not a move: the square does not trigger again
    if forward(a, advance, w, R):
        return a
    return trigger_square(a, w, R, rng, sp)


@hot
def reset_game(w):
    """Clear the seat fields (strategy ids kept), the game's scalars, output row and marks."""
    for k in range(SID):  # POS, GUIDE, READY, SKIP, PROT, BONUS blocks
        w[U(k)] = 0
    w[ACTIVE] = 0
    w[WINNER] = -1
    w[ROUND] = 0
    w[RPTR] = 0
    w[DPTR] = 0
    for k in range(w[ROW], w[LEAD]):  # the output row and the single-use marks
        w[U(k)] = 0
    for k in range(MAX_SEATS):  # each seat's luck
        w[U(LUCK + k)] = 0
    luck_weights.reset(w)
    for k in range(MAX_SEATS * LAND_SLOTS):  # each seat's landing luck (luck_turn.land_luck)
        w[U(LAND + k)] = 0
    for k in range(MAX_SEATS):  # each seat's finish luck (luck_turn.land_luck)
        w[U(FINL + k)] = 0


@hot
def deal_guides(w, rng):
    """Deal distinct guides at random (a shuffle of the seven from the game's stream); all ready."""
    for i in range(7):
        w[U(COUNTS + i)] = i
    for i in range(6, 0, -1):
        j = below(rng, i + 1)
        t = w[U(COUNTS + i)]
        w[U(COUNTS + i)] = w[U(COUNTS + j)]
        w[U(COUNTS + j)] = t
    for p in range(w[PLAYERS]):
        w[U(GUIDE + p)] = w[U(COUNTS + p)]
        w[U(READY + p)] = 1


@hot
def seat_compensation(w, R):
    """Variants start_squares and first_turn_extra_rolls: each seat's start square and the extra
    rolls of its first really-played turn (kept where the Wolf square's bonus is, which that
    turn uses up; all 0 with the rulings)."""
    for p in range(w[PLAYERS]):
        w[U(POS + p)] = R[U(X_START + p)]
        w[U(BONUS + p)] = R[U(X_EXTRA_ROLLS + p)]


@hot
def play_rounds(first_seat, max_slots, w, R, rng, sp):
    """Play turn slots from ``first_seat`` until a win, the round cap, or ``max_slots`` slots.

    Records the winner, rounds, final positions, lead changes and the mid-game leader and last
    in the output row. Returns the winner or -1.
    """
    players = w[PLAYERS]
    row = w[ROW]
    lead = w[LEAD]
    n_lead = R[P_MAX_ROUNDS] + 1
    max_rounds = R[P_MAX_ROUNDS]
    winner = -1
    leader = -1
    rounds = 0
    slots = 0
    seat = first_seat
    rnd = 1
    luck = w[LUCK_ROW] > 0
    while rnd <= max_rounds and slots < max_slots:
        if luck:
            luck_weights.slot_start(w)
        winner = play_slot(seat, w, R, rng, sp)
        if luck:  # the slot's luck, weighted by the squares at its start
            luck_weights.slot_end(w, R)
        slots += 1
        now = _unique_extreme(w, True)
        if now >= 0 and now != leader:
            if leader >= 0:
                w[U(row + C_LEAD_CHANGES)] += 1
            leader = now
        if winner >= 0:
            rounds = rnd
            break
        seat += 1
        if seat == players:
            w[U(lead + rnd)] = leader
            w[U(lead + n_lead + rnd)] = _unique_extreme(w, False)
            seat = 0
            rounds = rnd
            rnd += 1
    w[WINNER] = winner
    w[ROUND] = rounds
    w[U(row + C_WINNER)] = winner
    w[U(row + C_ROUNDS)] = rounds
    w[U(row + C_FINISHED)] = 1 if winner >= 0 else 0
    mid = rounds // 2
    w[U(row + C_MID_LEADER)] = w[U(lead + mid)] if mid >= 1 else -1
    w[U(row + C_MID_LAST)] = w[U(lead + n_lead + mid)] if mid >= 1 else -1
    for p in range(MAX_SEATS):
        w[U(row + C_POS + p)] = w[U(POS + p)] if p < players else -1
    return winner


@hot
def play_game(w, R, rng, sp):
    """A whole game from the start: deal the guides, place the pawns, play rounds from seat 0."""
    reset_game(w)
    deal_guides(w, rng)
    seat_compensation(w, R)
    row = w[ROW]
    for p in range(MAX_SEATS):
        w[U(row + C_GUIDE + p)] = w[U(GUIDE + p)] if p < w[PLAYERS] else -1
    return play_rounds(0, 1 << 62, w, R, rng, sp)
