"""One really-played turn: the rolls (Pond, Anxiety, keep/reroll, powers) and the scoring."""

from __future__ import annotations

from ..engine.jit import U, hot, hot_inline

from ..rules.rules import (
    EFFECT_CHOICE, EFFECT_REGENERATE, EFFECT_SWAP, P_ANXIETY, P_ROLLS,
)
from ..strategies.common import can_target
from ..strategies.dispatch import (
    decide, fused_score, fused_turn, land_luck, luck_add, pond_luck, power_luck, value_after, value_before,
    value_first,
)
from ..engine.dice import (
    best_set, count_animals, doubling_guide, newly_kept_count, reserved_herons, roll_free_dice,
)
from ..engine.layout import (
    BONUS, C_ANXIETIES, C_COMBOS, C_LION_RESCUES, C_POWERS, C_SEAT_ANX, C_SEAT_DOUBLED, D_BULL,
    D_KEEP, D_LION, D_POWER, D_SET_CHOICE, D_SET_SWAP, FACE, FREE, GUIDE, KEEP, KEPT, LION, NDICE,
    OUT_ANXIETY, OUT_POND, OUT_RESCUED, OUT_SCORED, R_EFFECT, READY, ROLL, ROLLS_LEFT,
    ROW, SCORE_GENERIC, SCORE_GENERIC_COUNTED, SET_SIZE, STATUS, TAUREAU, PATIENCE, TURN_FROM_START,
    TURN_KEEP_NEXT, TURN_NONE, TURN_USED, LUCK_ROW, POWER_ARG,
)
from .powers import apply_power, has_roll_time_power, power_enabled
from ..engine.rulebook import bull_applies, bull_bonus, guide_power_doubles, pond_opens, set_advance


@hot_inline
def roll_phase(seat, w, R, rng, sp):
    """Roll, keep and reroll until the turn's dice are final.

    Returns (outcome, value): (OUT_POND, H) for a Peaceful Pond with H herons (the push-back);
    (OUT_ANXIETY, 0) for Heron's Anxiety; (OUT_RESCUED, 0) for an Anxiety rescued by the Lion
    (the dice are then scored); (OUT_SCORED, 0) when the player stops or cannot reroll.
    ``w[ROLL]`` is the number of the roll the turn ended on (1 = first). A seat whose strategy
    declares a fused turn (heron_sim.strategies.declared, ``FUSED_TURN``: greedy's, the expert's
    for expert, racer and human, prudent's) plays it first (same results, same draws); it may hand
    the turn back to the loop below (heron_sim.engine.layout, ``TURN_*``): from the start (the
    stream rewound), or at a decision point with the dice laid out (a human's power decision
    already made there: not used, or its use applied here).

    With luck on (``w[LUCK_ROW] > 0``, heron_sim.strategies.luck_turn) every seat plays this
    generic path (the same games as the fused turns: tests/test_expert_turn.py) and each roll
    of the turn's dice, and each draw of the Wolf's and the Eagle's powers, adds the expert's value
    after it minus its value before to the seat's luck; each first roll adds to every opponent it
    could push back the expected push-back minus the Étang's push-back it rolled.
    """
    w[PATIENCE] = -1  # no Patience yet this turn
    code = TURN_NONE if w[LUCK_ROW] > 0 else fused_turn(seat, w, R, rng, sp)
    if code >= 0:
        return code % 4, code // 4
    return roll_phase_loop(seat, w, R, rng, sp, code)


@hot
def roll_phase_loop(seat, w, R, rng, sp, code):
    """:func:`roll_phase`'s generic loop: the whole turn (``code`` = TURN_NONE: no fused turn,
    or luck on), or from where the seat's fused turn handed it back (``TURN_*``)."""
    luck = w[LUCK_ROW] > 0
    n = w[NDICE]
    row = w[ROW]
    reserved = -1
    asked = False  # the ready roll-time power's decision at this decision point is made
    # the seat's score reads the dice by animal its fused turn leaves in w[COUNTS] (a fused
    # turn counts the dice without placing them): the loop counts them where it ends the turn
    counted = code != TURN_NONE or luck
    if code != TURN_NONE and code != TURN_FROM_START:  # handed back at a decision point
        if code <= TURN_USED:  # a human's power use, decided at this decision point
            apply_power(seat, TURN_USED - code, w, R, rng, sp)
        asked = code == TURN_KEEP_NEXT  # a human's power, not used at this decision point
        reserved = reserved_herons(w)
    if reserved < 0:
        rolls = R[P_ROLLS] + w[U(BONUS + seat)]  # the Wolf square's bonus roll is used up now
        w[U(BONUS + seat)] = 0
        for i in range(n):
            w[U(STATUS + i)] = FREE
        herons = roll_free_dice(w, R, rng)
        w[ROLL] = 1
        w[ROLLS_LEFT] = rolls - 1
        if luck:
            before = value_first(seat, w, R, sp, rolls - 1)
            after = value_after(seat, w, R, sp, rolls - 1, pond_opens(R, herons))
            if before > -1e299 and after > -1e299:
                luck_add(seat, w, after - before)
                land_luck(seat, w, R, sp, after, rolls - 1)  # where the dice would land the pawn
        if pond_opens(R, herons):
            total = herons
            while total < n:
                new = roll_free_dice(w, R, rng)
                total += new
                if new == 0:
                    break
            if luck:  # the push-back is the others' luck
                pond_luck(seat, w, R, sp, total)
            return OUT_POND, total
        if luck:
            pond_luck(seat, w, R, sp, 0)
        reserved = herons  # kept up to date: +new herons per roll, recounted after a power
    while True:
        if reserved >= R[P_ANXIETY]:
            w[U(row + C_ANXIETIES)] += 1
            w[U(row + C_SEAT_ANX + seat)] += 1
            if w[U(GUIDE + seat)] == LION and w[U(READY + seat)] != 0 and power_enabled(R, LION):
                if decide(D_LION, seat, w, R, rng, sp) == 1:
                    w[U(READY + seat)] = 0
                    w[U(row + C_POWERS + LION)] += 1
                    w[U(row + C_LION_RESCUES)] += 1
                    if counted:
                        count_animals(w)  # what the expert's score reads
                    return OUT_RESCUED, 0
            return OUT_ANXIETY, 0
        guide = w[U(GUIDE + seat)]
        if not asked and w[U(READY + seat)] != 0 and has_roll_time_power(guide) and power_enabled(R, guide):
            action = decide(D_POWER, seat, w, R, rng, sp)
            if action >= 0:
                die = action % POWER_ARG
                face0 = 0
                status0 = 0
                if luck and die < n:
                    face0 = w[U(FACE + die)]
                    status0 = w[U(STATUS + die)]
                apply_power(seat, action, w, R, rng, sp)
                if luck:  # the Wolf's reroll, the Eagle's draws (the others draw nothing)
                    power_luck(seat, w, R, sp, guide, die, face0, status0)
                reserved = reserved_herons(w)
                continue  # Anxiety is checked after every die modification
        asked = False
        if decide(D_KEEP, seat, w, R, rng, sp) == 0:
            if counted:
                count_animals(w)  # what the expert's score reads
            return OUT_SCORED, 0
        newly, free_left = newly_kept_count(w)
        if w[ROLLS_LEFT] <= 0 or free_left == 0 or newly == 0:
            raise ValueError("illegal reroll: needs a roll left, a free die and a newly kept die")
        for i in range(n):
            if w[U(KEEP + i)] != 0 and w[U(STATUS + i)] == FREE:
                w[U(STATUS + i)] = KEPT
        before = value_before(seat, w, R, sp, w[ROLLS_LEFT] - 1) if luck else 0.0
        reserved += roll_free_dice(w, R, rng)
        w[ROLLS_LEFT] -= 1
        w[ROLL] += 1
        if luck and before > -1e299:
            after = value_after(seat, w, R, sp, w[ROLLS_LEFT], False)
            if after > -1e299:
                luck_add(seat, w, after - before)
                land_luck(seat, w, R, sp, after, w[ROLLS_LEFT])  # where the dice would land the pawn


@hot
def swap_guides(a, b, w):
    """Exchange two players' guide cards; the ready/exhausted state travels with the card."""
    g = w[U(GUIDE + a)]
    r = w[U(READY + a)]
    w[U(GUIDE + a)] = w[U(GUIDE + b)]
    w[U(READY + a)] = w[U(READY + b)]
    w[U(GUIDE + b)] = g
    w[U(READY + b)] = r


@hot_inline
def score_dice(seat, w, R, rng, sp):
    """Score the final dice: combination, Guide Power doubling, set effect, Bull.

    Returns the turn's advance (doubling and Bull included). Applies, in the rulings' order,
    the set effect (regenerate or swap) and then the Bull's +2.
    """
    advance = fused_score(seat, w, R)  # the seat's strategy's own scoring (``FUSED_SCORE``)
    if advance != SCORE_GENERIC and advance != SCORE_GENERIC_COUNTED:
        return advance
    return score_dice_generic(seat, w, R, rng, sp, advance)


@hot
def score_dice_generic(seat, w, R, rng, sp, advance):
    """:func:`score_dice` where the seat's strategy has no fused scoring (``advance`` =
    SCORE_GENERIC: the dice placed) or left the dice counted (SCORE_GENERIC_COUNTED)."""
    row = w[ROW]
    if advance == SCORE_GENERIC:  # else its fused turn left the dice counted, not placed
        count_animals(w)
    guide = w[U(GUIDE + seat)]
    dg = doubling_guide(guide, w, R)
    size, animal = best_set(w, dg)
    w[U(row + C_COMBOS + size)] += 1
    w[SET_SIZE] = size
    doubled = guide_power_doubles(guide, dg, size, animal, w, R)
    advance = set_advance(R, size, doubled)
    if doubled:
        w[U(row + C_SEAT_DOUBLED + seat)] += set_advance(R, size, False)
    effect = R[U(R_EFFECT + size)]
    if effect == EFFECT_REGENERATE:
        w[U(READY + seat)] = 1
    elif effect == EFFECT_SWAP:
        target = decide(D_SET_SWAP, seat, w, R, rng, sp)
        if target >= 0 and can_target(w, seat, target):
            swap_guides(seat, target, w)
    elif effect == EFFECT_CHOICE:
        target = decide(D_SET_CHOICE, seat, w, R, rng, sp)
        if target >= 0 and can_target(w, seat, target):
            swap_guides(seat, target, w)
        else:
            w[U(READY + seat)] = 1
    if bull_applies(R, size, w[U(GUIDE + seat)], w[U(READY + seat)]):
        if decide(D_BULL, seat, w, R, rng, sp) == 1:
            w[U(READY + seat)] = 0
            w[U(row + C_POWERS + TAUREAU)] += 1
            advance += bull_bonus(R)
    return advance
