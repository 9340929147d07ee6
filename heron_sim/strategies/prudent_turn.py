"""The prudent player's turn, fused: the roll phase of a ``prudent`` seat without ``decide``.

``prudent_roll_phase`` does what heron_sim.loop.turn.roll_phase does for a seat whose strategy
is ``prudent`` (heron_sim.strategies.prudent), with the same random draws in the same order and
the same decisions, for unscripted dice all alike: like the expert's and greedy's fused turns it
counts each roll's dice by animal (packed 8 bits a lane) instead of placing them, since which
die shows what never matters to prudent when every die is alike. The keep/stop choice is the
same pure function, :func:`heron_sim.strategies.prudent.rerolls`, asked the same numbers
(the dice's heron and target probabilities summed die by die, as the generic path sums them),
remembered in the workspace (w[PMEMO]) once asked (heron_sim.strategies.prudent.memo_rerolls,
which the generic path asks too): within a batch the answer depends only on the dice's numbers,
the guide's doubling and a ready Taureau.

It plays the first roll, a Peaceful Pond, Heron's Anxiety and the Lion's rescue, every
keep/stop decision, and the roll-time powers prudent uses, on the counts: the Wolf (the last
reserved heron in die order, rerolled as a fresh die) and the Eagle and the Deer on the last
decision (a die showing neither a heron nor the target shows the target after; only the
target's count matters to the score then). The Wolf's and the Eagle's faces are drawn with
roll_die on die 0's faces, the draws of the generic path's apply_power. Where the counts do not
tell what the generic path would do (after the Wolf, whether the heron it rerolled was this
roll's, when that decides whether a die is newly held), or the dice are not all alike or
scripted, it rewinds the stream (its counter and buffered half-word) and the Wolf square's
bonus roll and returns ``CONTINUE``: the generic loop then plays the whole turn from its first
roll (the same draws, the same decisions; nothing else was changed). When it
ends the roll phase itself it leaves all dice by animal in w[COUNTS], which the score reads
(heron_sim.loop.turn.score_dice: prudent scores as greedy does, never swapping guides).
tests/test_expert_turn.py plays the same games through both paths (prudent_decide seated as a
plug-in).
"""

from __future__ import annotations

import numpy as np

from ..engine.dice import best_set, roll_die
from .greedy_turn import _lane, counts_into, roll_counts
from ..engine.jit import U, hot
from ..engine.layout import (
    AIGLE, BONUS, C_ANXIETIES, EAGLE_FACES, X_EAGLE_DRAWS, C_LION_RESCUES, C_POWERS, C_SEAT_ANX, CERF, GUIDE, HERON,
    LION, LOUP, NDICE, OUT_ANXIETY, OUT_POND, OUT_RESCUED, OUT_SCORED, R_ADVANCE,
    R_UNIFORM, READY, ROLL, ROLLS_LEFT, ROW, RPTR, RSCRIPT_LEN, TURN_FROM_START,
)
from ..rules.rules import P_ANXIETY, P_ROLLS
from ..engine.rulebook import pond_opens, power_enabled
from .prudent import _advance_of, memo_rerolls, memo_words  # noqa: F401 - memo_words: loops

#: prudent_roll_phase: the generic loop plays this turn (stream rewound).
CONTINUE = -1

_BYTE = np.uint64(0xFF)
_ONE = np.uint64(1)
_S48 = np.uint64(8 * HERON)


@hot
def _uses_power(guide, r, h, size, n, R):
    """heron_sim.strategies.prudent.prudent_power says "use" for these dice (all herons reserved,
    ``size`` dice of the largest set): the Wolf with one heron short of the Anxiety and a roll
    left; the Deer and the Eagle on the last decision, a set of 2+ and a die to change."""
    if guide == LOUP:
        return h == R[P_ANXIETY] - 1 and r > 0 and h > 0
    if r > 0:
        return False
    other = n - h - size  # dice showing neither a heron nor the largest set's animal
    if guide == CERF:
        return size >= 2 and size < n and R[U(R_ADVANCE + size + 1)] > R[U(R_ADVANCE + size)] and other > 0
    if guide == AIGLE:
        return size >= 2 and other > 0
    return False


@hot
def _counted(seat, w, R, rng, sp):
    n = w[NDICE]
    row = w[ROW]
    rolls = R[P_ROLLS] + w[U(BONUS + seat)]  # the Wolf square's bonus roll is used up now
    w[U(BONUS + seat)] = 0
    nf = n
    roll = roll_counts(nf, R, rng)
    w[ROLL] = 1
    w[ROLLS_LEFT] = rolls - 1
    herons = _lane(roll, HERON)
    if pond_opens(R, herons):
        total = herons
        while total < n:
            nf -= _lane(roll, HERON)  # the herons stay reserved
            roll = roll_counts(nf, R, rng)
            new = _lane(roll, HERON)
            total += new
            if new == 0:
                break
        return OUT_POND + 4 * total
    guide = w[U(GUIDE + seat)]
    anxiety = R[P_ANXIETY]
    power = ((guide == LOUP or guide == AIGLE or guide == CERF) and w[U(READY + seat)] != 0
             and power_enabled(R, guide))
    kept = np.uint64(0)  # the dice set aside (kept, reserved herons), packed like a roll
    while True:
        total = kept + roll
        counts_into(w, total)
        h = _lane(total, HERON)
        if h >= anxiety:
            w[U(row + C_ANXIETIES)] += 1
            w[U(row + C_SEAT_ANX + seat)] += 1
            if guide == LION and w[U(READY + seat)] != 0 and power_enabled(R, LION):
                size, _ = best_set(w, guide)
                if R[U(R_ADVANCE + size)] > 0:  # prudent_decide's D_LION
                    w[U(READY + seat)] = 0
                    w[U(row + C_POWERS + LION)] += 1
                    w[U(row + C_LION_RESCUES)] += 1
                    return OUT_RESCUED
            return OUT_ANXIETY
        r = w[ROLLS_LEFT]
        size0, target = best_set(w, guide)
        if power and _uses_power(guide, r, h, size0, n, R):
            # prudent_power and apply_power, on the dice counted (every die alike: the faces
            # drawn are die 0's, the draws the same); the power is spent, the loop goes on
            if guide == LOUP:
                # the last reserved heron in die order is rerolled, as a freshly rolled die
                ch = _lane(roll, HERON)
                face = roll_die(0, w, R, rng)
                if ch > 0:  # taken as one of this roll's herons (it is when no older heron is held)
                    roll += (_ONE << np.uint64(8 * face)) - (_ONE << _S48)
                else:  # an older heron: the die joins this roll
                    kept -= _ONE << _S48
                    roll += _ONE << np.uint64(8 * face)
                    nf += 1
                if ch == 1 and _lane(kept, HERON) > 0 and face != HERON:
                    # whether that heron was this roll's (then no die is newly held unless one
                    # shows the target) is the only thing the counts do not tell: the decision
                    # depends on it when no die of this roll shows the new target
                    counts_into(w, kept + roll)
                    _, t2 = best_set(w, guide)
                    if _lane(roll, t2) == 0:
                        return CONTINUE
                w[U(READY + seat)] = 0
                w[U(row + C_POWERS + LOUP)] += 1
                power = False
                continue
            # the Eagle and the Deer on the last decision: a die showing neither a heron nor the
            # target shows the target after (the Eagle's if a drawn face shows it); only the
            # target's count matters to the score, whichever such die it was
            gain = guide == CERF
            if guide == AIGLE:
                for k in range(R[X_EAGLE_DRAWS]):
                    fk = roll_die(0, w, R, rng)
                    w[U(EAGLE_FACES + k)] = fk
                    gain = gain or fk == target  # prudent_eagle_pick: the first drawn target
            w[U(READY + seat)] = 0
            w[U(row + C_POWERS + guide)] += 1
            if gain:
                for a in range(6):
                    if a != target and _lane(total, a) > 0:
                        total += (_ONE << np.uint64(8 * target)) - (_ONE << np.uint64(8 * a))
                        break
            counts_into(w, total)
            return OUT_SCORED
        if r <= 0:
            return OUT_SCORED
        ct = _lane(roll, target)
        ch = _lane(roll, HERON)
        f = nf - ct - ch  # this roll's dice showing neither the target nor a heron
        if f == 0 or ct + ch == 0:
            return OUT_SCORED
        s0 = _advance_of(seat, w, R, size0, target)
        if s0 > 0:
            if not memo_rerolls(seat, w, R, sp, f, h, size0, target, s0, guide, n, anxiety):
                return OUT_SCORED
        kept += (np.uint64(ct) << np.uint64(8 * target)) + (roll & (_BYTE << np.uint64(8 * HERON)))
        nf = f
        roll = roll_counts(nf, R, rng)
        w[ROLLS_LEFT] -= 1
        w[ROLL] += 1


@hot
def prudent_roll_phase(seat, w, R, rng, sp):
    """heron_sim.loop.turn.roll_phase for a ``prudent`` seat: ``outcome + 4 * value``, or
    ``TURN_FROM_START`` with the stream and w[BONUS + seat] as they were (the generic loop plays the
    turn)."""
    if R[R_UNIFORM] == 0 or w[RPTR] < w[RSCRIPT_LEN]:
        return TURN_FROM_START
    start = rng[0]
    half = rng[1]  # the Wolf's and the Eagle's draws (roll_die) use the buffered half-word
    has_half = rng[2]
    bonus = w[U(BONUS + seat)]
    code = _counted(seat, w, R, rng, sp)
    if code == CONTINUE:
        rng[0] = start
        rng[1] = half
        rng[2] = has_half
        w[U(BONUS + seat)] = bonus
        return TURN_FROM_START
    return code
