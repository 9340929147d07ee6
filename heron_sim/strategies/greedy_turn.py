"""Greedy's turn, fused: the hot path of most runs.

``greedy_roll_phase`` and ``greedy_score`` do exactly what ``roll_phase`` and ``score_dice``
(heron_sim.loop.turn) do for a seat whose strategy is ``greedy`` (heron_sim.strategies.greedy),
with the same random draws in the same order, but without asking ``decide`` and without
recounting the dice at every step: each roll rolls the free dice and counts this roll's animals
in one pass (the random state kept in a register, four dice cut from each 64-bit draw), the
counts of the dice set aside (kept, reserved herons) are carried from roll to roll, and the
choice, the keep and the reroll test read those counts. Greedy never uses a roll-time power, so
none is offered; it always rescues with the Lion and always uses the Bull; a 7-set never swaps
and an 8+ set regenerates.

The scripted-dice harness goes through here too (scripted dice are read as in
heron_sim.engine.dice.roll_die), and tests/test_speed.py checks this path against the generic one
game by game (the ``scripted`` strategy with an empty script plays greedy through ``decide``).

Scratch: ``w[KEEP + a]`` (a = 0..6) holds the last roll's dice by animal; ``w[COUNTS + a]`` the
dice set aside, and all dice once the roll phase ends (``greedy_score`` reads them).
"""

from __future__ import annotations

import numpy as np

from ..rules.rules import (
    EFFECT_CHOICE, EFFECT_REGENERATE, P_ANXIETY, P_ROLLS,
)
from ..engine.dice import doubling_guide, roll_die
from ..engine.jit import U, hot, hot_inline
from ..engine.layout import (
    BONUS, C_ANXIETIES, C_COMBOS, C_LION_RESCUES, C_POWERS, C_SEAT_ANX, C_SEAT_DOUBLED, COUNTS, FACE,
    FREE, FRESH, GUIDE, HERON, KEEP, KEPT, LION, MAX_FACES, NDICE, OUT_ANXIETY, OUT_POND,
    OUT_RESCUED, OUT_SCORED, R_EFFECT, R_FACES, R_NFACES, R_REJECT, READY, RESERVED,
    R_UNIFORM, ROLL, ROLLS_LEFT, ROW, RPTR, DSCRIPT_LEN, RSCRIPT_LEN, SET_SIZE, STATUS, TAUREAU,
)
from ..engine.rulebook import bull_applies, bull_bonus, guide_power_doubles, pond_opens, power_enabled, set_advance

FREE_LIST = KEEP  # [MAX_DICE] scratch: indices of the free dice, ascending
from ..engine.rng import accepted, chunk_face, chunk_product, draw_index, next_draw

_ONE = np.uint64(1)
_BYTE = np.uint64(0xFF)
_S48 = np.uint64(8 * HERON)




@hot
def roll_free_list(nf, w, R, rng):
    """Roll the ``nf`` free dice listed in ``w[FREE_LIST:]`` (ascending die order: the draws of
    heron_sim.engine.dice.roll_free_dice). Returns this roll's dice by animal, packed 8 bits a
    lane (lane a = animal a, lane 6 = herons)."""
    packed = np.uint64(0)
    if w[RPTR] < w[RSCRIPT_LEN]:
        for j in range(nf):
            i = w[U(FREE_LIST + j)]
            f = roll_die(i, w, R, rng)
            w[U(FACE + i)] = f
            packed += _ONE << np.uint64(8 * f)
        return packed
    s = rng[0]
    bits = np.uint64(0)
    chunks = 0
    if R[R_UNIFORM] != 0:  # every die alike (pack_rules): one table, read once
        faces = np.uint64(R[R_NFACES])
        reject = np.uint64(R[R_REJECT])
        for j in range(nf):
            i = w[U(FREE_LIST + j)]
            k, s, bits, chunks = draw_index(faces, reject, s, bits, chunks)
            f = R[U(R_FACES + k)]
            w[U(FACE + i)] = f
            packed += _ONE << np.uint64(8 * f)
        rng[0] = s
        return packed
    for j in range(nf):
        i = w[U(FREE_LIST + j)]
        faces = np.uint64(R[U(R_NFACES + i)])
        reject = np.uint64(R[U(R_REJECT + i)])
        k, s, bits, chunks = draw_index(faces, reject, s, bits, chunks)
        f = R[U(R_FACES + MAX_FACES * i + k)]
        w[U(FACE + i)] = f
        packed += _ONE << np.uint64(8 * f)
    rng[0] = s
    return packed


@hot_inline
def roll_counts(nf, R, rng):
    """Roll ``nf`` dice that are all alike (``R[R_UNIFORM]``), with the draws of
    :func:`roll_free_list`, and return only this roll's dice by animal, packed 8 bits a lane:
    with identical dice, which die shows what never matters to greedy."""
    s = rng[0]
    bits = np.uint64(0)
    chunks = 0
    faces = np.uint64(R[R_NFACES])
    reject = np.uint64(R[R_REJECT])
    packed = np.uint64(0)
    left = nf
    # four dice a draw while none of its four chunks is rejected (draw_index rejects a chunk
    # with probability (65536 mod faces) / 65536: 2 in 65,536 for the 7-faced die): die j reads
    # chunk j % 4 of the roll's draw j // 4, as draw_index would; at a draw with a rejected
    # chunk, and for the last dice, draw_index itself goes on from that draw's first chunk
    while left >= 4:
        s, bits = next_draw(s)
        k0 = chunk_product(bits, 0, faces)
        k1 = chunk_product(bits, 1, faces)
        k2 = chunk_product(bits, 2, faces)
        k3 = chunk_product(bits, 3, faces)
        if not (accepted(k0, reject) & accepted(k1, reject) & accepted(k2, reject) & accepted(k3, reject)):
            chunks = 4
            break
        packed += (_face_lane(R, chunk_face(k0)) + _face_lane(R, chunk_face(k1))
                   + _face_lane(R, chunk_face(k2)) + _face_lane(R, chunk_face(k3)))
        left -= 4
    for _ in range(left):
        k, s, bits, chunks = draw_index(faces, reject, s, bits, chunks)
        packed += _face_lane(R, k)
    rng[0] = s
    return packed


@hot_inline
def _face_lane(R, k):
    """One die showing face index ``k`` of the dice all alike, packed like a roll."""
    return _ONE << np.uint64(8 * R[U(R_FACES + k)])


@hot
def _lane(packed, a):
    return np.int64((packed >> np.uint64(8 * a)) & _BYTE)


@hot
def counts_into(w, packed):
    """All dice by animal, packed 8 bits a lane, into w[COUNTS] (what the score reads)."""
    for a in range(7):
        w[U(COUNTS + a)] = _lane(packed, a)


@hot
def _drop(nf, w, target):
    """Compact the free list: drop the dice showing ``target`` or a heron. Returns its length."""
    k = 0
    for j in range(nf):
        i = w[U(FREE_LIST + j)]
        f = w[U(FACE + i)]
        w[U(FREE_LIST + k)] = i
        k += (f != target) & (f != HERON)
    return k


@hot
def _finish(nf, w, n, packed):
    """End of the roll phase: statuses (as the generic path leaves them), and all dice by
    animal in w[COUNTS]."""
    for i in range(n):
        w[U(STATUS + i)] = KEPT + (RESERVED - KEPT) * (w[U(FACE + i)] == HERON)
        w[U(FRESH + i)] = 0
    for j in range(nf):  # the last roll's dice: fresh, and free unless herons
        i = w[U(FREE_LIST + j)]
        w[U(FRESH + i)] = 1
        w[U(STATUS + i)] = FREE + (RESERVED - FREE) * (w[U(FACE + i)] == HERON)
    for a in range(7):
        w[U(COUNTS + a)] = _lane(packed, a)


@hot_inline
def _roll(placed, nf, w, R, rng):
    """This roll's dice by animal: the free list's dice rolled and placed, or (dice all alike,
    no script) only counted. Same draws either way."""
    if placed:
        return roll_free_list(nf, w, R, rng)
    return roll_counts(nf, R, rng)


@hot_inline
def _set_aside(placed, nf, w, target, left):
    """The free dice once those showing ``target`` or a heron are set aside: the list
    compacted, or (counted dice) just their number, ``left``."""
    if placed:
        return _drop(nf, w, target)
    return left


@hot_inline
def _end(placed, nf, w, n, packed):
    """End of the roll phase: all dice by animal in w[COUNTS]; placed dice also get the
    statuses the generic path leaves (counted dice have none: nothing reads them after a
    greedy turn)."""
    if placed:
        _finish(nf, w, n, packed)
    else:
        _counts(w, packed)


@hot_inline
def greedy_roll_phase(seat, w, R, rng):
    """heron_sim.loop.turn.roll_phase for a greedy seat (same outcome, values and draws).
    With dice all alike and no script, the dice are counted, never placed: which die shows
    what never matters to greedy."""
    placed = not (R[R_UNIFORM] != 0 and w[RSCRIPT_LEN] == 0 and w[DSCRIPT_LEN] == 0)
    n = w[NDICE]
    row = w[ROW]
    rolls = R[P_ROLLS] + w[U(BONUS + seat)]  # the Wolf square's bonus roll is used up now
    w[U(BONUS + seat)] = 0
    if placed:
        for i in range(n):
            w[U(FREE_LIST + i)] = i
    nf = n
    roll = _roll(placed, nf, w, R, rng)
    herons = _lane(roll, HERON)
    w[ROLL] = 1
    w[ROLLS_LEFT] = rolls - 1
    if pond_opens(R, herons):
        total = herons
        kept = np.uint64(0)
        while total < n:
            kept += roll & (_BYTE << _S48)  # the herons stay reserved
            nf = _set_aside(placed, nf, w, HERON, nf - _lane(roll, HERON))
            roll = _roll(placed, nf, w, R, rng)
            new = _lane(roll, HERON)
            total += new
            if new == 0:
                break
        _end(placed, nf, w, n, kept + roll)
        return OUT_POND, total
    reserved = herons
    guide = w[U(GUIDE + seat)]
    kept = np.uint64(0)  # the dice set aside (kept, reserved herons), packed like a roll
    while True:
        if reserved >= R[P_ANXIETY]:
            w[U(row + C_ANXIETIES)] += 1
            w[U(row + C_SEAT_ANX + seat)] += 1
            _end(placed, nf, w, n, kept + roll)
            if guide == LION and w[U(READY + seat)] != 0 and power_enabled(R, LION):
                w[U(READY + seat)] = 0
                w[U(row + C_POWERS + LION)] += 1
                w[U(row + C_LION_RESCUES)] += 1
                return OUT_RESCUED, 0
            return OUT_ANXIETY, 0
        # The largest set among all dice showing; ties: the guide's animal, then lowest index.
        total = kept + roll
        size = 0
        target = 0
        for a in range(6):  # selects, not branches: which animal leads is a coin toss
            c = _lane(total, a)
            better = c > size
            target = a if better else target
            size = c if better else size
        if guide < 6 and size > 0 and _lane(total, guide) == size:
            target = guide
        new_herons = _lane(roll, HERON)
        taken = _lane(roll, target)       # free dice of this roll showing the target
        left = nf - new_herons - taken    # free dice left to reroll
        if w[ROLLS_LEFT] <= 0 or left == 0 or taken + new_herons == 0:
            _end(placed, nf, w, n, total)
            return OUT_SCORED, 0
        kept += (np.uint64(taken) << np.uint64(8 * target)) + (np.uint64(new_herons) << _S48)
        nf = _set_aside(placed, nf, w, target, left)
        roll = _roll(placed, nf, w, R, rng)
        reserved += _lane(roll, HERON)
        w[ROLLS_LEFT] -= 1
        w[ROLL] += 1


@hot
def _counts(w, packed):
    for a in range(7):
        w[U(COUNTS + a)] = _lane(packed, a)


@hot_inline
def greedy_score(seat, w, R):
    """heron_sim.loop.turn.score_dice for a greedy seat, after greedy_roll_phase (reads the
    counts it leaves in w[COUNTS])."""
    row = w[ROW]
    guide = w[U(GUIDE + seat)]
    dg = doubling_guide(guide, w, R)  # an expert's Héron may have set an animal with Patience
    size = 0
    animal = 0
    for a in range(6):
        c = w[U(COUNTS + a)]
        if c > size:
            size = c
            animal = a
    if dg < 6 and size > 0 and w[U(COUNTS + dg)] == size:
        animal = dg
    w[U(row + C_COMBOS + size)] += 1
    w[SET_SIZE] = size
    doubled = guide_power_doubles(guide, dg, size, animal, w, R)
    advance = set_advance(R, size, doubled)
    if doubled:
        w[U(row + C_SEAT_DOUBLED + seat)] += set_advance(R, size, False)
    effect = R[U(R_EFFECT + size)]
    if effect == EFFECT_REGENERATE or effect == EFFECT_CHOICE:  # greedy never swaps guides
        w[U(READY + seat)] = 1
    if bull_applies(R, size, guide, w[U(READY + seat)]):
        w[U(READY + seat)] = 0
        w[U(row + C_POWERS + TAUREAU)] += 1
        advance += bull_bonus(R)
    return advance


@hot_inline
def greedy_fused_turn(seat, w, R, rng, sp):
    """Greedy's fused turn as the game loop takes it (heron_sim.engine.layout, ``TURN_*``): the
    roll phase always played to its end, ``outcome + 4 * value``."""
    outcome, value = greedy_roll_phase(seat, w, R, rng)
    return outcome + 4 * value
