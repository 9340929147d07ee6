"""The prudent player's turn, fused: the roll phase of a ``prudent`` seat without ``decide``.

``prudent_roll_phase`` does what heron_sim.engine.turn.roll_phase does for a seat whose strategy
is ``prudent`` (heron_sim.strategies.prudent), with the same random draws in the same order and
the same decisions, for unscripted dice all alike: like the expert's and greedy's fused turns it
counts each roll's dice by animal (packed 8 bits a lane) instead of placing them, since which
die shows what never matters to prudent when every die is alike. The keep/stop choice is the
same pure function, :func:`heron_sim.strategies.prudent.rerolls`, asked the same numbers
(the dice's heron and target probabilities summed die by die, as the generic path sums them),
remembered in the workspace (w[PMEMO]) once asked: within a batch the answer depends only on
the dice's numbers, the guide's doubling and a ready Taureau.

It plays the first roll, a Peaceful Pond, Heron's Anxiety and the Lion's rescue, and every
keep/stop decision. Where prudent uses a roll-time power (the Wolf, the Eagle, the Deer: these
need the dice placed) or the dice are not all alike or scripted, it rewinds the stream and the
Wolf square's bonus roll and returns ``CONTINUE``: the generic loop then plays the whole turn
from its first roll (the same draws, the same decisions; nothing else was changed). When it
ends the roll phase itself it leaves all dice by animal in w[COUNTS], which the score reads
(heron_sim.engine.turn.score_dice: prudent scores as greedy does, never swapping guides).
tests/test_expert_turn.py plays the same games through both paths (prudent_decide seated as a
plug-in).
"""

from __future__ import annotations

import numpy as np

from ..engine.dice import best_set
from ..engine.greedy_turn import _lane, counts_into, roll_counts
from ..engine.jit import hot
from ..engine.layout import (
    AIGLE, BONUS, C_ANXIETIES, C_LION_RESCUES, C_POWERS, C_SEAT_ANX, CERF, GUIDE, HERON,
    LION, LOUP, NDICE, OUT_ANXIETY, OUT_POND, OUT_RESCUED, OUT_SCORED, PMEMO, PMEMO_LEN, R_ADVANCE,
    R_NDICE, R_UNIFORM, READY, ROLL, ROLLS_LEFT, ROW, RPTR, RSCRIPT_LEN, TAUREAU,
)
from ..rules.rules import P_ANXIETY, P_POND, P_ROLLS
from .prudent import _advance_of, _face_prob, power_enabled, rerolls

#: prudent_roll_phase: the generic loop plays this turn (stream rewound).
CONTINUE = -1

_BYTE = np.uint64(0xFF)


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
        return size >= 2 and size < n and R[R_ADVANCE + size + 1] > R[R_ADVANCE + size] and other > 0
    if guide == AIGLE:
        return size >= 2 and other > 0
    return False


@hot
def memo_words(R, players):
    """Words of the memo of :func:`_memo_rerolls` (2 bits an answer) for these rules and seats."""
    n = R[R_NDICE]
    entries = players * (n + 1) * R[P_ANXIETY] * (n + 1) * 6 * 4
    return (entries + 31) // 32


@hot
def _rerolls(seat, w, R, sp, f, h, size0, target, s0):
    """prudent.rerolls for every die alike: the heron and target probabilities summed die by die,
    as prudent_keep sums them (the same floating-point numbers)."""
    ph = _face_prob(R, 0, HERON)  # every die alike: die 0's faces
    pt = _face_prob(R, 0, target)
    qh = 0.0
    qt = 0.0
    for _ in range(f):
        qh += ph
        qt += pt
    return rerolls(seat, w, R, sp, f, qh / f, qt / f, h, size0, size0, target, s0)


@hot
def _memo_rerolls(seat, w, R, sp, f, h, size0, target, s0, guide, n, anxiety):
    """:func:`_rerolls`, remembered in the workspace's memo (w[PMEMO], 2 bits an answer: 0 not
    known yet, 1 stop, 2 reroll). Its answer depends on these numbers only, given the rules and
    the seat's risk, which do not change within a batch: whether the target is the guide's
    animal (the doubling) and whether a ready Taureau adds its bonus stand for the guide."""
    words = w[PMEMO_LEN]
    if words == 0:
        return _rerolls(seat, w, R, sp, f, h, size0, target, s0)
    dbl = 1 if target == guide else 0
    bull = 1 if guide == TAUREAU and w[READY + seat] != 0 else 0
    idx = ((((seat * (n + 1) + f) * anxiety + h) * (n + 1) + size0) * 6 + target) * 4 + dbl * 2 + bull
    at = w[PMEMO] + (idx >> 5)
    shift = 2 * (idx & 31)
    v = (w[at] >> shift) & 3
    if v == 0:
        v = 2 if _rerolls(seat, w, R, sp, f, h, size0, target, s0) else 1
        w[at] |= v << shift
    return v == 2


@hot
def _counted(seat, w, R, rng, sp):
    n = w[NDICE]
    row = w[ROW]
    rolls = R[P_ROLLS] + w[BONUS + seat]  # the Wolf square's bonus roll is used up now
    w[BONUS + seat] = 0
    nf = n
    roll = roll_counts(nf, R, rng)
    w[ROLL] = 1
    w[ROLLS_LEFT] = rolls - 1
    herons = _lane(roll, HERON)
    if herons >= R[P_POND]:
        total = herons
        while total < n:
            nf -= _lane(roll, HERON)  # the herons stay reserved
            roll = roll_counts(nf, R, rng)
            new = _lane(roll, HERON)
            total += new
            if new == 0:
                break
        return OUT_POND + 4 * total
    guide = w[GUIDE + seat]
    anxiety = R[P_ANXIETY]
    power = ((guide == LOUP or guide == AIGLE or guide == CERF) and w[READY + seat] != 0
             and power_enabled(R, guide))
    kept = np.uint64(0)  # the dice set aside (kept, reserved herons), packed like a roll
    while True:
        total = kept + roll
        counts_into(w, total)
        h = _lane(total, HERON)
        if h >= anxiety:
            w[row + C_ANXIETIES] += 1
            w[row + C_SEAT_ANX + seat] += 1
            if guide == LION and w[READY + seat] != 0 and power_enabled(R, LION):
                size, _ = best_set(w, guide)
                if R[R_ADVANCE + size] > 0:  # prudent_decide's D_LION
                    w[READY + seat] = 0
                    w[row + C_POWERS + LION] += 1
                    w[row + C_LION_RESCUES] += 1
                    return OUT_RESCUED
            return OUT_ANXIETY
        r = w[ROLLS_LEFT]
        size0, target = best_set(w, guide)
        if power and _uses_power(guide, r, h, size0, n, R):
            return CONTINUE
        if r <= 0:
            return OUT_SCORED
        ct = _lane(roll, target)
        ch = _lane(roll, HERON)
        f = nf - ct - ch  # this roll's dice showing neither the target nor a heron
        if f == 0 or ct + ch == 0:
            return OUT_SCORED
        s0 = _advance_of(seat, w, R, size0, target)
        if s0 > 0:
            if not _memo_rerolls(seat, w, R, sp, f, h, size0, target, s0, guide, n, anxiety):
                return OUT_SCORED
        kept += (np.uint64(ct) << np.uint64(8 * target)) + (roll & (_BYTE << np.uint64(8 * HERON)))
        nf = f
        roll = roll_counts(nf, R, rng)
        w[ROLLS_LEFT] -= 1
        w[ROLL] += 1


@hot
def prudent_roll_phase(seat, w, R, rng, sp):
    """heron_sim.engine.turn.roll_phase for a ``prudent`` seat: ``outcome + 4 * value``, or
    ``CONTINUE`` with the stream and w[BONUS + seat] as they were (the generic loop plays the
    turn)."""
    if R[R_UNIFORM] == 0 or w[RPTR] < w[RSCRIPT_LEN]:
        return CONTINUE
    start = rng[0]
    bonus = w[BONUS + seat]
    code = _counted(seat, w, R, rng, sp)
    if code == CONTINUE:
        rng[0] = start
        w[BONUS + seat] = bonus
    return code
