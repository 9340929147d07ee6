"""One really-played turn: the rolls (Pond, Anxiety, keep/reroll, powers) and the scoring."""

from __future__ import annotations

from .jit import hot

from ..rules.rules import (
    EFFECT_CHOICE, EFFECT_REGENERATE, EFFECT_SWAP, P_ANXIETY, P_POND, P_ROLLS,
)
from ..strategies.common import can_target
from ..strategies.dispatch import (
    EXPERT, GREEDY, HAS_EXPERT, HAS_GREEDY, HAS_HUMAN, HAS_PRUDENT, HAS_RACER, HUMAN, PRUDENT, RACER, decide,
)
from ..strategies.expert_turn import KEEP_NEXT, USED, expert_roll_phase
from ..strategies.prudent_turn import prudent_roll_phase
from .dice import (
    best_set, count_animals, doubling_guide, newly_kept_count, reserved_herons, roll_free_dice,
)
from .layout import (
    BONUS, C_ANXIETIES, C_COMBOS, C_LION_RESCUES, C_POWERS, C_SEAT_ANX, C_SEAT_DOUBLED, D_BULL,
    D_KEEP, D_LION, D_POWER, D_SET_CHOICE, D_SET_SWAP, FREE, GUIDE, KEEP, KEPT, LION, NDICE,
    OUT_ANXIETY, OUT_POND, OUT_RESCUED, OUT_SCORED, R_EFFECT, READY, ROLL, ROLLS_LEFT,
    ROW, SET_SIZE, SID, STATUS, TAUREAU, PATIENCE,
)
from .greedy_turn import greedy_roll_phase, greedy_score
from .powers import apply_power, has_roll_time_power, power_enabled
from .rulebook import bull_applies, bull_bonus, guide_power_doubles, set_advance


@hot
def roll_phase(seat, w, R, rng, sp):
    """Roll, keep and reroll until the turn's dice are final.

    Returns (outcome, value): (OUT_POND, H) for a Peaceful Pond with H herons (the push-back);
    (OUT_ANXIETY, 0) for Heron's Anxiety; (OUT_RESCUED, 0) for an Anxiety rescued by the Lion
    (the dice are then scored); (OUT_SCORED, 0) when the player stops or cannot reroll.
    ``w[ROLL]`` is the number of the roll the turn ended on (1 = first). A greedy seat takes
    the fused path of heron_sim.engine.greedy_turn (same results, same draws); an expert seat
    that of heron_sim.strategies.expert_turn, which hands the turn back to the loop below (at a
    decision point, the dice laid out) where the tables alone do not decide; a racer and a human
    seat too (a human's power decision already made there: not used, or its use applied here); a
    prudent seat that of heron_sim.strategies.prudent_turn, which hands the whole turn back
    (the stream rewound) where it would use a power.
    """
    w[PATIENCE] = -1  # no Patience yet this turn
    if HAS_GREEDY and w[SID + seat] == GREEDY:
        return greedy_roll_phase(seat, w, R, rng)
    n = w[NDICE]
    row = w[ROW]
    reserved = -1
    asked = False  # the ready roll-time power's decision at this decision point is made
    sid = w[SID + seat]
    # the seat's score reads the dice by animal its roll phase leaves in w[COUNTS]: the fused
    # turns of expert, racer and prudent count the dice without placing them (each condition
    # opens with its kernel's constant, so a kernel without the strategy never compiles it)
    counted = ((HAS_EXPERT and sid == EXPERT) or (HAS_RACER and sid == RACER)
               or (HAS_PRUDENT and sid == PRUDENT) or (HAS_HUMAN and sid == HUMAN))
    if HAS_PRUDENT and sid == PRUDENT:
        code = prudent_roll_phase(seat, w, R, rng, sp)
        if code >= 0:
            return code % 4, code // 4
    elif (HAS_EXPERT and sid == EXPERT) or (HAS_RACER and sid == RACER) or (HAS_HUMAN and sid == HUMAN):
        code = expert_roll_phase(seat, w, R, rng, sp)
        if code >= 0:
            return code % 4, code // 4
        if code <= USED:  # a human's power use, decided at this decision point
            apply_power(seat, USED - code, w, R, rng, sp)
        asked = code == KEEP_NEXT  # a human's power, not used at this decision point
        reserved = reserved_herons(w)
    if reserved < 0:
        rolls = R[P_ROLLS] + w[BONUS + seat]  # the Wolf square's bonus roll is used up now
        w[BONUS + seat] = 0
        for i in range(n):
            w[STATUS + i] = FREE
        herons = roll_free_dice(w, R, rng)
        w[ROLL] = 1
        w[ROLLS_LEFT] = rolls - 1
        if herons >= R[P_POND]:
            total = herons
            while total < n:
                new = roll_free_dice(w, R, rng)
                total += new
                if new == 0:
                    break
            return OUT_POND, total
        reserved = herons  # kept up to date: +new herons per roll, recounted after a power
    while True:
        if reserved >= R[P_ANXIETY]:
            w[row + C_ANXIETIES] += 1
            w[row + C_SEAT_ANX + seat] += 1
            if w[GUIDE + seat] == LION and w[READY + seat] != 0 and power_enabled(R, LION):
                if decide(D_LION, seat, w, R, rng, sp) == 1:
                    w[READY + seat] = 0
                    w[row + C_POWERS + LION] += 1
                    w[row + C_LION_RESCUES] += 1
                    if counted:
                        count_animals(w)  # what the expert's score reads
                    return OUT_RESCUED, 0
            return OUT_ANXIETY, 0
        guide = w[GUIDE + seat]
        if not asked and w[READY + seat] != 0 and has_roll_time_power(guide) and power_enabled(R, guide):
            action = decide(D_POWER, seat, w, R, rng, sp)
            if action >= 0:
                apply_power(seat, action, w, R, rng, sp)
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
            if w[KEEP + i] != 0 and w[STATUS + i] == FREE:
                w[STATUS + i] = KEPT
        reserved += roll_free_dice(w, R, rng)
        w[ROLLS_LEFT] -= 1
        w[ROLL] += 1


@hot
def swap_guides(a, b, w):
    """Exchange two players' guide cards; the ready/exhausted state travels with the card."""
    g = w[GUIDE + a]
    r = w[READY + a]
    w[GUIDE + a] = w[GUIDE + b]
    w[READY + a] = w[READY + b]
    w[GUIDE + b] = g
    w[READY + b] = r


@hot
def score_dice(seat, w, R, rng, sp):
    """Score the final dice: combination, Guide Power doubling, set effect, Bull.

    Returns the turn's advance (doubling and Bull included). Applies, in the rulings' order,
    the set effect (regenerate or swap) and then the Bull's +2.
    """
    if HAS_GREEDY and w[SID + seat] == GREEDY:
        return greedy_score(seat, w, R)
    sid = w[SID + seat]
    if (HAS_EXPERT and sid == EXPERT) or (HAS_RACER and sid == RACER) or (HAS_PRUDENT and sid == PRUDENT):
        # expert, racer and prudent score as greedy does (expert_decide: no guide swap, regenerate on an 8+ set,
        # Bull always), from the counts its roll phase leaves in w[COUNTS]
        return greedy_score(seat, w, R)
    if HAS_HUMAN and sid == HUMAN and w[GUIDE + seat] != TAUREAU:
        # a human scores as the expert (its set choices are the expert's) but for the Bull's
        # decision (it may forget or decline it: a draw), so the Bull's seat scores below
        return greedy_score(seat, w, R)
    row = w[ROW]
    if not (HAS_HUMAN and sid == HUMAN):  # a human's roll phase leaves the dice counted (its
        count_animals(w)                  # fused turn does not place them)
    guide = w[GUIDE + seat]
    dg = doubling_guide(guide, w, R)
    size, animal = best_set(w, dg)
    w[row + C_COMBOS + size] += 1
    w[SET_SIZE] = size
    doubled = guide_power_doubles(guide, dg, size, animal, w, R)
    advance = set_advance(R, size, doubled)
    if doubled:
        w[row + C_SEAT_DOUBLED + seat] += set_advance(R, size, False)
    effect = R[R_EFFECT + size]
    if effect == EFFECT_REGENERATE:
        w[READY + seat] = 1
    elif effect == EFFECT_SWAP:
        target = decide(D_SET_SWAP, seat, w, R, rng, sp)
        if target >= 0 and can_target(w, seat, target):
            swap_guides(seat, target, w)
    elif effect == EFFECT_CHOICE:
        target = decide(D_SET_CHOICE, seat, w, R, rng, sp)
        if target >= 0 and can_target(w, seat, target):
            swap_guides(seat, target, w)
        else:
            w[READY + seat] = 1
    if bull_applies(R, size, w[GUIDE + seat], w[READY + seat]):
        if decide(D_BULL, seat, w, R, rng, sp) == 1:
            w[READY + seat] = 0
            w[row + C_POWERS + TAUREAU] += 1
            advance += bull_bonus(R)
    return advance
