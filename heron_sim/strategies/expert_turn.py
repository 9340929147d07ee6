"""The expert's turn, fused: the roll phase of an ``expert``, ``racer`` or ``human`` seat without ``decide``.

``expert_roll_phase`` does what heron_sim.loop.turn.roll_phase does for a seat whose strategy
is ``expert`` (heron_sim.strategies.expert), with the same random draws in the same order and
the same decisions, but as one loop with the dice counted as they are rolled (like greedy's fused
turn, heron_sim.strategies.greedy_turn): the dice of each roll are counted by animal in one pass
(packed 8 bits a lane) and the dice set aside are carried from roll to roll in the same form.
The table look-up (:func:`state_column`) computes the same rank as
:func:`heron_sim.strategies.expert_values.lookup` from those counts, in registers: the digits
``k * B + c`` come straight from the lanes, each sort key carries its animal's size, and the
slots land in a 4-bit map. The free dice are a list of 4-bit die indices in one register
(ascending die order: the draws of heron_sim.engine.dice.roll_free_dice), and the keep walks it
without data-dependent branches (mispredicted branches cost more than the rest of a decision).

It plays the common case itself: the first roll, a Peaceful Pond, Heron's Anxiety (and the
Lion's rescue), every keep/stop decision the tables answer, and the roll-time powers (Wolf,
Eagle, Deer, Heron's Patience) whose use the tables store, on the counts
(:func:`_counted_power`: the stored use decoded on the kind of die it names, applied, the
Eagle's face picked by the same table values, then the decision after the power, whose look-up
says whether a held die is fresh). In any other case (no tables, dice the tables do not hold, a
power decision not stored) it lays the dice out in the workspace exactly as the generic path
would have them at that point and returns ``CONTINUE``: the generic loop then takes over from
the same decision point (the same answers, since decisions do not draw). When it ends the roll
phase itself it leaves all dice by animal in w[COUNTS] (what heron_sim.loop.turn.score_dice
reads for an expert seat) and the faces in w[FACE]; the statuses are laid out only for a Pond
(nothing reads them after the roll phase: the next turn rolls every die).
tests/test_expert_turn.py plays the same games through the fused and the generic path
(expert_decide seated as a plug-in).

A ``racer`` seat (heron_sim.strategies.racer) plays the expert's tables, powers and squares and
differs only in its keep/stop rule: here, at each decision the tables answer, it takes
:func:`heron_sim.strategies.racer.race_action` on the dice counted so far instead of the table's
action (tests/test_expert_turn.py: racer_decide as a plug-in plays the same games).

A ``human`` seat (heron_sim.strategies.human) plays its keep/stop softmax
(:func:`heron_sim.strategies.human.human_action`), its Lion's rescue and its roll-time power
decisions here (:func:`heron_sim.strategies.human.power_counted`: forgetting, the softmax on the
tables' stored values), drawing from the game's stream at the same points as the generic path, and its pick of the
Eagle's face (:func:`_human_eagle_counted`, the softmax of human_eagle_pick on the dice counted).
Where it uses the power (or the tables do not store the decision) the counted turn is played
again placing the dice, the use is chosen on them
(:func:`heron_sim.strategies.human.power_after_draw`) and the generic loop goes on from that
decision point: ``USED - action`` (it applies the use) or ``KEEP_NEXT`` (its keep decision,
the power not used); the draws are made once. At temp = caution = forget = 0 it plays the
expert's turn unchanged. tests/test_human.py: human_decide as a plug-in plays the same games.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine.dice import doubling_guide, roll_die
from .greedy_turn import _lane, counts_into, roll_counts  # the same counted roll as greedy's
from ..engine.jit import U, hot, hot_inline
from ..engine.layout import (
    AIGLE, BONUS, C_ANXIETIES, C_LION_RESCUES, C_POWERS, C_SEAT_ANX, CERF, COUNTS, FACE, FREE, FRESH,
    GUIDE, HERON, KEPT, LION, LOUP, MAX_DICE, MAX_FACES, NDICE, OUT_ANXIETY, OUT_POND, OUT_RESCUED,
    OUT_SCORED, PATIENCE, R_FACES, R_NFACES, R_REJECT, R_UNIFORM, READY, RESERVED, ROLL, ROLLS_LEFT,
    ROW, RPTR, RSCRIPT_LEN, SID, STATUS, EAGLE_FACES, TURN_KEEP_NEXT, TURN_LAID_OUT, TURN_USED, X_EAGLE_DRAWS,
    X_PATIENCE_COST, X_PATIENCE_DOUBLING,
)
from ..engine.rng import draw_index, uniform
from ..rules.rules import P_ANXIETY, P_ROLLS
from .human import SID as HUMAN, TEMP, human_action, human_lion, power_after_draw, power_counted, under, zero as human_zero
from .racer import SID as RACER, race_action_tilted, race_tilt
from .champion import SID as CHAMPION, champion_action, note_counts
from ..engine.rulebook import consolation_anxiety, consolation_no_set, pond_opens, power_enabled
from .expert import (
    NEAR_KINDS, counted_advance, final_advance, has_tables, kind_class, lion_worth_it, power_column, stored_near,
    stored_use, table_of, table_seat,
)
from .expert_values import eagle_of_values, wolf_of_values
from .expert_column import _fresh, held_column, state_column, turn_column  # noqa: F401 - state_column: the look-up of this turn
from .expert_dp import ACTION_BITS, POWER_MARGIN, ROW_POWERS

#: expert_roll_phase: the generic loop goes on from the dice laid out in the workspace.
CONTINUE = TURN_LAID_OUT
#: expert_roll_phase (a human seat): the seat's ready roll-time power was not used at this
#: decision point (its draws made): the generic loop goes on with the keep decision.
KEEP_NEXT = TURN_KEEP_NEXT
#: expert_roll_phase (a human seat): ``USED - action``: the seat uses its roll-time power with
#: this D_POWER action (its draws made, not yet applied): the generic loop applies it and goes on.
USED = TURN_USED

_ONE = np.uint64(1)
_BYTE = np.uint64(0xFF)
_NIBBLE = np.uint64(0xF)
_S48 = np.uint64(8 * HERON)


@hot
def _die(lst, j):
    """Entry j of a die list (4 bits an entry)."""
    return np.int64((lst >> np.uint64(4 * j)) & _NIBBLE)


@hot
def roll_list(lst, nf, w, R, rng):
    """Roll the ``nf`` dice of the list ``lst`` (ascending die order: the draws of
    heron_sim.engine.dice.roll_free_dice, scripted dice included). Returns this roll's dice by
    animal, packed 8 bits a lane (lane 6: herons)."""
    packed = np.uint64(0)
    if w[RPTR] < w[RSCRIPT_LEN]:
        for j in range(nf):
            i = _die(lst, j)
            f = roll_die(i, w, R, rng)
            w[U(FACE + i)] = f
            packed += _ONE << np.uint64(8 * f)
        return packed
    s = rng[0]
    bits = np.uint64(0)
    chunks = 0
    if R[R_UNIFORM] != 0:  # every die alike (pack_rules): one face table, read once
        faces = np.uint64(R[R_NFACES])
        reject = np.uint64(R[R_REJECT])
        for j in range(nf):
            i = _die(lst, j)
            k, s, bits, chunks = draw_index(faces, reject, s, bits, chunks)
            f = R[U(R_FACES + k)]
            w[U(FACE + i)] = f
            packed += _ONE << np.uint64(8 * f)
        rng[0] = s
        return packed
    for j in range(nf):
        i = _die(lst, j)
        faces = np.uint64(R[U(R_NFACES + i)])
        reject = np.uint64(R[U(R_REJECT + i)])
        k, s, bits, chunks = draw_index(faces, reject, s, bits, chunks)
        f = R[U(R_FACES + MAX_FACES * i + k)]
        w[U(FACE + i)] = f
        packed += _ONE << np.uint64(8 * f)
    rng[0] = s
    return packed


@hot
def _lay_out(lst, nf, w, n, total):
    """The dice as the generic path leaves them: the last roll's dice (the list) fresh, free
    unless herons; the others kept or reserved herons, not fresh. All dice by animal in
    w[COUNTS]."""
    for i in range(n):
        w[U(STATUS + i)] = KEPT + (RESERVED - KEPT) * (w[U(FACE + i)] == HERON)
        w[U(FRESH + i)] = 0
    for j in range(nf):
        i = _die(lst, j)
        w[U(FRESH + i)] = 1
        w[U(STATUS + i)] = FREE + (RESERVED - FREE) * (w[U(FACE + i)] == HERON)
    for a in range(7):
        w[U(COUNTS + a)] = _lane(total, a)


#: _counted_power: the power was used and the dice rerolled; the loop goes on.
_GO_ON = -2


@hot
def _slot_animal(slots, slot):
    """expert.slot_animal from the slots of :func:`state_column` (slot 6: the heron)."""
    if slot == 6:
        return HERON
    for a in range(6):
        if (slots >> (4 * a)) & 15 == slot:
            return a
    return -1


@hot
def _counted_value(seat, w, R, sp, ts, t, g, r, held, free, fl, n):
    """expert_values.state_value of the dice counted (held, free, ``fl`` as :func:`held_column`), for
    a guide that is not a ready Lion."""
    total = held + free
    if _lane(total, HERON) >= R[P_ANXIETY]:
        return float(consolation_anxiety(R))
    if r > 0:
        col, _ = held_column(sp, ts, t, g, r, held, free, n, fl)
        if col >= 0:
            return sp[U(ts), U(col + 1)]
    counts_into(w, total)
    adv = counted_advance(seat, w, R)
    return float(adv if adv > 0 else consolation_no_set(R))


@hot
def _without(held, free, fh, a, fresh):
    """The counted dice (held, free, fresh held) less one die of animal ``a``: a free die if
    ``fresh`` and not a heron, else a held one (a heron counted fresh when ``fresh``)."""
    one = _ONE << np.uint64(8 * a)
    if a == HERON:
        return held - one, free, fh - (1 if fresh else 0)
    if fresh:
        return held, free - one, fh
    return held - one, free, fh


@hot
def _with_face(held, free, fh, f, fresh):
    """The counted dice plus one die showing ``f``: a heron is held (reserved), fresh when
    ``fresh``; another face is free when ``fresh`` (a die of this roll), else held."""
    one = _ONE << np.uint64(8 * f)
    if f == HERON:
        return held + one, free, fh + (1 if fresh else 0)
    if fresh:
        return held, free + one, fh
    return held + one, free, fh


@hot_inline
def _nth(j, x0, x1, x2, x3, x4, x5):
    """The ``j``-th of six values held in registers (no array in a decision)."""
    if j == 0:
        return x0
    if j == 1:
        return x1
    if j == 2:
        return x2
    if j == 3:
        return x3
    if j == 4:
        return x4
    return x5


@hot_inline
def _drawn_value(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, fresh, n, k, j):
    """:func:`_counted_value` of the dice with the Eagle's ``j``-th drawn face (0.0 from ``k``)."""
    if j >= k:
        return 0.0
    h2, f2, fh2 = _with_face(h0, f0, fh0, w[U(EAGLE_FACES + j)], fresh)
    return _counted_value(seat, w, R, sp, ts, t, g, r, h2, f2, 1 if fh2 > 0 else 0, n)


@hot
def _human_eagle_counted(seat, w, R, rng, sp, ts, t, g, r, h0, f0, fh0, fresh, n, v0, k):
    """:func:`heron_sim.strategies.human.human_eagle_pick` on the dice counted: the faces drawn
    (w[EAGLE_FACES]) valued as :func:`_counted_value` values them, the same sums in the same
    order and the same draw (bit-identical: tests/test_human.py). Each face is valued, and its
    exponential taken, once (the generic pick values them three times and takes two of them
    twice: the same floats, so the same sums); ``k`` (the rules' ``eagle_draws``) is 6 at most."""
    if k > 6:
        raise ValueError("eagle_draws above 6")
    temp = sp[U(seat), TEMP]
    x0 = _drawn_value(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, fresh, n, k, 0)
    x1 = _drawn_value(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, fresh, n, k, 1)
    x2 = _drawn_value(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, fresh, n, k, 2)
    x3 = _drawn_value(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, fresh, n, k, 3)
    x4 = _drawn_value(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, fresh, n, k, 4)
    x5 = _drawn_value(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, fresh, n, k, 5)
    top = v0
    for j in range(k):
        top = max(top, _nth(j, x0, x1, x2, x3, x4, x5))
    e = math.exp((v0 - top) / temp)
    e0 = math.exp((x0 - top) / temp) if k > 0 else 0.0
    e1 = math.exp((x1 - top) / temp) if k > 1 else 0.0
    e2 = math.exp((x2 - top) / temp) if k > 2 else 0.0
    e3 = math.exp((x3 - top) / temp) if k > 3 else 0.0
    e4 = math.exp((x4 - top) / temp) if k > 4 else 0.0
    e5 = math.exp((x5 - top) / temp) if k > 5 else 0.0
    total = e
    for j in range(k):
        total += _nth(j, e0, e1, e2, e3, e4, e5)
    u = uniform(rng) * total
    acc = e
    if u < acc:
        return 0
    for j in range(k - 1):
        acc += _nth(j, e0, e1, e2, e3, e4, e5)
        if u < acc:
            return j + 1
    return k


@hot
def _face_counted(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, b, fresh, n, mask):
    """:func:`_counted_value` of the dice counted (h0, f0, fh0) plus a die showing ``b``
    (:func:`_with_face`), 0.0 where ``b`` is not on the die's faces (``mask``), as
    expert_values._values_by_animal gives them."""
    if mask & (1 << b) == 0:
        return 0.0
    h2, f2, fh2 = _with_face(h0, f0, fh0, b, fresh)
    return _counted_value(seat, w, R, sp, ts, t, g, r, h2, f2, 1 if fh2 > 0 else 0, n)


@hot
def _class_value(seat, w, R, sp, ts, t, g, r, guide, code, slots, held, free, fh, n, base):
    """(state, the value :func:`heron_sim.strategies.expert_scan.power_scan_counted` gives the stored
    use ``code`` on the dice counted): the first die of its kind valued as the scan values it
    (expert_scan.use_value_counted), its faces by :func:`_counted_value`, the same sums in the
    same order (the Eagle's ``base``: the dice's value as they are). State 1, or 0 where that
    die is not among the dice or the use is not legal there (the scan does not value it), or -1
    for Patience under ``heron_patience_doubling`` (each face then has its tables)."""
    cls = code % 64
    arg = code // 64
    fr = cls % 2
    st = (cls // 2) % 3
    a = _slot_animal(slots, cls // 6)
    if a < 0:
        return 0, 0.0
    if a == HERON:
        fresh = fr == 1
        if st != RESERVED or (fh if fresh else _lane(held, HERON) - fh) <= 0:
            return 0, 0.0
    else:
        fresh = st == FREE
        if st == RESERVED or fresh != (fr == 1) or _lane(free if fresh else held, a) == 0:
            return 0, 0.0
    h0, f0, fh0 = _without(held, free, fh, a, fresh)
    if guide == CERF:
        b = _slot_animal(slots, arg)
        if a == HERON or b < 0 or b == HERON or b == a or _lane(held + free, b) <= 0:
            return 0, 0.0
        h2, f2, fh2 = _with_face(h0, f0, fh0, b, fresh)
        return 1, _counted_value(seat, w, R, sp, ts, t, g, r, h2, f2, 1 if fh2 > 0 else 0, n)
    if guide == HERON:
        f = _slot_animal(slots, arg)
        cost = R[X_PATIENCE_COST]
        shown = False
        for k in range(R[R_NFACES]):
            shown = shown or R[U(R_FACES + k)] == f
        if R[X_PATIENCE_DOUBLING] != 0:
            return -1, 0.0
        if a == HERON or not fresh or f < 0 or not shown or r < cost:
            return 0, 0.0
        return 1, _counted_value(seat, w, R, sp, ts, t, g, r - cost, h0 + (_ONE << np.uint64(8 * f)), f0, 1, n)
    if guide == AIGLE and a == HERON:
        return 0, 0.0
    mask = 0
    for k in range(R[R_NFACES]):
        mask |= 1 << R[U(R_FACES + k)]
    rolled = guide == LOUP  # the Wolf's die is rerolled: fresh, free unless a heron
    nw = rolled or fresh
    vals = (_face_counted(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, 0, nw, n, mask),
            _face_counted(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, 1, nw, n, mask),
            _face_counted(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, 2, nw, n, mask),
            _face_counted(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, 3, nw, n, mask),
            _face_counted(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, 4, nw, n, mask),
            _face_counted(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, 5, nw, n, mask),
            _face_counted(seat, w, R, sp, ts, t, g, r, h0, f0, fh0, HERON, nw, n, mask))
    if rolled:
        return 1, wolf_of_values(R, 0, vals)
    return 1, eagle_of_values(R, 0, vals, base)


@hot
def _arg_rank(R, guide, code, slots):
    """Where the scan meets the uses of one die: the Deer's animal, Patience's face index."""
    if guide != CERF and guide != HERON:
        return 0
    f = _slot_animal(slots, code // 64)
    if guide == CERF:
        return f
    for k in range(R[R_NFACES]):
        if R[U(R_FACES + k)] == f:
            return k
    return 0


@hot
def _dice_order(w, R, n, m):
    """Which die shows what after the ``m`` rolls of a counted turn, as roll_phase_dice places
    them: each roll's draws again from its stream position (w[FACE + k], noted by
    roll_phase_counts before roll k; every die alike), its faces given to the free dice in die
    order, then the dice its keep set aside (w[STATUS + k], packed by animal) taken first in die
    order, its herons reserved. Returns (faces, statuses, fresh): 4 bits a die, 2 bits a die, and
    a bit a die of the last roll."""
    faces = np.uint64(0)
    status = np.uint64(0)
    fresh = np.uint64(0)
    lst = np.uint64(0xFEDCBA9876543210)
    nf = n
    nfaces = np.uint64(R[R_NFACES])
    reject = np.uint64(R[R_REJECT])
    for k in range(m):
        s = np.uint64(w[U(FACE + k)])
        bits = np.uint64(0)
        chunks = 0
        for j in range(nf):
            i = np.uint64(_die(lst, j))
            idx, s, bits, chunks = draw_index(nfaces, reject, s, bits, chunks)
            f = np.uint64(R[U(R_FACES + idx)])
            faces = (faces & ~(_NIBBLE << (np.uint64(4) * i))) | (f << (np.uint64(4) * i))
            st = np.uint64(RESERVED if f == HERON else FREE)
            status = (status & ~(np.uint64(3) << (np.uint64(2) * i))) | (st << (np.uint64(2) * i))
        if k == m - 1:
            for j in range(nf):
                fresh |= _ONE << np.uint64(_die(lst, j))
            break
        want = np.uint64(w[U(STATUS + k)])
        nxt = np.uint64(0)
        kk = 0
        for j in range(nf):
            i = _die(lst, j)
            f = (faces >> np.uint64(4 * i)) & _NIBBLE
            if f == HERON:
                continue
            lane = np.uint64(8) * f
            if (want >> lane) & _BYTE != 0:
                want -= _ONE << lane
                status = (status & ~(np.uint64(3) << np.uint64(2 * i))) | (np.uint64(KEPT) << np.uint64(2 * i))
            else:
                nxt |= np.uint64(i) << np.uint64(4 * kk)
                kk += 1
        lst = nxt
        nf = kk
    return faces, status, fresh


@hot
def _first_die(faces, status, fresh, n, code, slots):
    """The first die (in die order) of the kind of die of the stored use ``code``, n if none."""
    cls = code % 64
    a = np.uint64(_slot_animal(slots, cls // 6))
    st = np.uint64((cls // 2) % 3)
    fr = np.uint64(cls % 2)
    for i in range(n):
        if ((faces >> np.uint64(4 * i)) & _NIBBLE) == a and ((status >> np.uint64(2 * i)) & np.uint64(3)) == st \
                and ((fresh >> np.uint64(i)) & _ONE) == fr:
            return i
    return n


@hot
def _near_counted(seat, w, R, sp, ts, t, g, r, guide, codef, kind, slots, kept, roll, n, col):
    """heron_sim.strategies.expert.near_scan on the dice counted: the use the scan chooses (its
    stored code) and its value, from the uses the stored decision ``codef`` names near its best
    one, valued on the counts (:func:`_class_value`); where two kinds of dice share the highest
    value, the first die in die order wins, as in the scan: the order of the dice is found again
    from the turn's draws (:func:`_dice_order`). (-2, 0.0) where the counted dice cannot value a
    use (the caller lays the dice out)."""
    near = stored_near(codef)
    if near == 0:
        return -2, 0.0
    heron_lane = _BYTE << _S48
    held = kept + (roll & heron_lane)
    free = roll & ~heron_lane
    fh = _lane(roll, HERON)
    base = 0.0
    if guide == AIGLE:  # the dice's value as they are: the entry at ``col`` (the caller's look-up)
        base = sp[U(ts), U(col + 1)] if r > 0 else _counted_value(seat, w, R, sp, ts, t, g, r, held, free, 1 if fh > 0 else 0, n)
    args = guide == CERF or guide == HERON
    best = -1e300
    kinds = 0  # the kinds of dice with a use of the best value so far
    ranks = np.uint64(0)  # by kind, 4 bits: the first argument of that value (_arg_rank)
    for k in range(NEAR_KINDS):
        if (near >> k) & 1 == 0:
            continue
        cls = kind_class(k)
        for s in range(7 if args else 1):
            if args and (near >> (NEAR_KINDS + s)) & 1 == 0:
                continue
            c = cls + 64 * s
            state, v = _class_value(seat, w, R, sp, ts, t, g, r, guide, c, slots, held, free, fh, n, base)
            if state < 0:
                return -2, 0.0
            if state == 0:
                continue
            rk = np.uint64(_arg_rank(R, guide, c, slots))
            at = np.uint64(4 * k)
            if v > best:
                best = v
                kinds = 1 << k
                ranks = rk << at
            elif v == best:
                if (kinds >> k) & 1 == 0:
                    kinds |= 1 << k
                    ranks |= rk << at
                elif rk < (ranks >> at) & _NIBBLE:
                    ranks = (ranks & ~(_NIBBLE << at)) | (rk << at)
    if kinds == 0:
        return -2, 0.0
    win = -1
    if kinds & (kinds - 1) == 0:  # one kind of dice
        for k in range(NEAR_KINDS):
            if (kinds >> k) & 1:
                win = k
    else:
        m = w[ROLL]
        if m > MAX_DICE:
            return -2, 0.0
        faces, status, fresh = _dice_order(w, R, n, m)
        top = 1 << 30
        for k in range(NEAR_KINDS):
            if (kinds >> k) & 1:
                key = _first_die(faces, status, fresh, n, kind_class(k), slots) * 64 \
                    + np.int64((ranks >> np.uint64(4 * k)) & _NIBBLE)
                if key < top:
                    top = key
                    win = k
    rk = np.int64((ranks >> np.uint64(4 * win)) & _NIBBLE)
    arg = 0
    if guide == CERF:
        arg = (slots >> (4 * rk)) & 15
    elif guide == HERON:
        f = R[U(R_FACES + rk)]
        arg = 6 if f == HERON else (slots >> (4 * f)) & 15
    return kind_class(win) + 64 * arg, best


@hot
def _counted_power(seat, w, R, rng, sp, ts, t, guide, code, slots, kept, roll, n, race, tilt, human, col, gd):
    """The stored power use ``code`` (expert.decode_power, apply_power and eagle_pick) on the
    dice counted, then the decision that follows it (expert_keep or racer_keep) and the
    reroll: returns (_GO_ON, the dice set aside, the dice rolled, their number), or a roll
    phase's code, or ``CONTINUE`` where the generic path would not find a die, refuse the use
    or not answer from the tables. Every die alike: the Wolf's and the Eagle's faces are drawn
    with roll_die on die 0's faces, the draws of apply_power.

    The dice are held (``held``: kept, and every reserved heron in lane 6), free, and fresh
    held (``fh``: this roll's herons before the power); after a power one look-up may see a
    fresh held die that is not a heron of this roll (Patience's die), or none where there was
    one (the Wolf's heron), which :func:`held_column`'s ``fl`` says. ``col`` and ``gd``: the
    caller's look-up of these dice (their column) and its doubling guide."""
    heron_lane = _BYTE << _S48
    held = kept + (roll & heron_lane)
    free = roll & ~heron_lane
    fh = _lane(roll, HERON)
    cls = code % 64
    arg = code // 64
    fr = cls % 2
    st = (cls // 2) % 3
    a = _slot_animal(slots, cls // 6)
    # the first die of that face, status and freshness (expert.decode_power)
    fresh = False
    if a == HERON:
        if st != RESERVED:
            return CONTINUE, kept, 0, roll
        fresh = fh > 0 if fr == 1 else _lane(kept, HERON) == 0  # else any reserved heron
        if _lane(held, HERON) == 0:
            return CONTINUE, kept, 0, roll
    elif a < 0 or (st == FREE) != (fr == 1) or st == RESERVED:
        return CONTINUE, kept, 0, roll
    else:
        fresh = st == FREE
        if _lane(free if fresh else kept, a) == 0:
            return CONTINUE, kept, 0, roll
    one = _ONE << np.uint64(8 * a)
    g = guide if guide < 6 else 0  # no Patience yet: the doubling guide is the guide
    if guide == LOUP:  # apply_power: rerolled, a fresh die (a heron reserved)
        f = roll_die(0, w, R, rng)
        held, free, fh = _without(held, free, fh, a, fresh)
        held, free, fh = _with_face(held, free, fh, f, True)
    elif guide == AIGLE:
        if a == HERON:
            return CONTINUE, kept, 0, roll
        r = w[ROLLS_LEFT]
        # the dice's value as they are: the entry at ``col``, the caller's look-up of these dice
        # (with its doubling guide ``gd``) where that is this one's
        if r > 0 and gd == g:
            v0 = sp[U(ts), U(col + 1)]
        else:
            v0 = _counted_value(seat, w, R, sp, ts, t, g, r, held, free, 1 if fh > 0 else 0, n)
        best = v0
        h0, f0, fh0 = _without(held, free, fh, a, fresh)
        k_draws = R[X_EAGLE_DRAWS]
        soft = human and sp[U(seat), TEMP] > 0.0  # human.human_eagle_pick: a softmax over the faces' values
        pick = 0
        for k in range(k_draws):
            f = roll_die(0, w, R, rng)
            w[U(EAGLE_FACES + k)] = f
            if not soft:
                h2, f2, fh2 = _with_face(h0, f0, fh0, f, fresh)  # its status kept, a heron reserved
                v = _counted_value(seat, w, R, sp, ts, t, g, r, h2, f2, 1 if fh2 > 0 else 0, n)
                if v > best + 1e-12:  # expert.eagle_pick
                    best = v
                    pick = k + 1
        if soft:
            pick = _human_eagle_counted(seat, w, R, rng, sp, ts, t, g, r, h0, f0, fh0, fresh, n, v0, k_draws)
        if pick > 0:
            held, free, fh = _with_face(h0, f0, fh0, w[U(EAGLE_FACES + pick - 1)], fresh)
    elif guide == CERF:
        b = _slot_animal(slots, arg)
        if a == HERON or b < 0 or b == HERON or _lane(held + free, b) - (1 if b == a else 0) <= 0:
            return CONTINUE, kept, 0, roll  # apply_power refuses it
        change = (_ONE << np.uint64(8 * b)) - one
        if fresh:
            free += change
        else:
            held += change
    else:  # the Héron's Patience: a free die set to a face of its own, held, fresh
        f = _slot_animal(slots, arg)
        cost = R[X_PATIENCE_COST]
        shown = False
        for k in range(R[R_NFACES]):
            shown = shown or R[U(R_FACES + k)] == f
        if a == HERON or not fresh or f < 0 or not shown or w[ROLLS_LEFT] < cost:
            return CONTINUE, kept, 0, roll
        w[ROLLS_LEFT] -= cost
        free -= one
        held += _ONE << np.uint64(8 * f)
        fh += 1
        if f != HERON:
            w[PATIENCE] = f
    w[U(READY + seat)] = 0
    row = w[ROW]
    w[U(row + C_POWERS + guide)] += 1
    # the decision after the power (roll_phase's loop: Anxiety, then D_KEEP)
    total = held + free
    if _lane(total, HERON) >= R[P_ANXIETY]:
        w[U(row + C_ANXIETIES)] += 1
        w[U(row + C_SEAT_ANX + seat)] += 1
        return OUT_ANXIETY, kept, 0, roll
    r = w[ROLLS_LEFT]
    if r <= 0:
        counts_into(w, total)
        return OUT_SCORED, kept, 0, roll
    t = table_of(seat, w, R)  # Patience may have set the Héron an animal to double
    col, slots = held_column(sp, ts, t, doubling_guide(guide, w, R), r, held, free, n, 1 if fh > 0 else 0)
    if col < 0:
        return CONTINUE, kept, 0, roll
    if race:
        counts_into(w, total)
        action = _stop_rule(seat, w, R, sp, ts, col, tilt, held, free, 1 if fh > 0 else 0, slots)
    elif human:  # the human's softmax after its power (the generic path's human_keep)
        counts_into(w, total)
        action = human_action(seat, w, R, rng, sp, ts, col)
    else:
        action = int(sp[U(ts), U(col)])
    if action < 0:
        counts_into(w, total)
        return OUT_SCORED, kept, 0, roll
    taken = np.uint64(0)
    newly = fh
    nf = 0
    for b in range(6):
        slot = (slots >> (4 * b)) & 15
        x = (action >> (ACTION_BITS * slot)) & 15
        c = _lane(free, b)
        x = x if x < c else c
        taken += np.uint64(x) << np.uint64(8 * b)
        newly += x
        nf += c - x
    if nf == 0 or newly == 0:
        return CONTINUE, kept, 0, roll  # the generic loop says why (illegal reroll)
    roll = roll_counts(nf, R, rng)
    w[ROLLS_LEFT] -= 1
    w[ROLL] += 1
    return _GO_ON, held + taken, nf, roll


@hot
def roll_phase_dice(seat, w, R, rng, sp, race, human):
    """heron_sim.loop.turn.roll_phase for an ``expert`` seat, up to the first decision it
    cannot answer alone, placing every die. Returns ``outcome + 4 * value`` (the roll phase's
    pair), or ``CONTINUE`` with the dice laid out for the generic loop (w[ROLL], w[ROLLS_LEFT]
    set); a human seat also ``KEEP_NEXT`` or ``USED - action`` (its power decided at that
    decision point, the dice laid out)."""
    n = w[NDICE]
    row = w[ROW]
    rolls = R[P_ROLLS] + w[U(BONUS + seat)]  # the Wolf square's bonus roll is used up now
    w[U(BONUS + seat)] = 0
    lst = np.uint64(0xFEDCBA9876543210)  # dice 0..n-1 (entries past n are never read)
    nf = n
    roll = roll_list(lst, nf, w, R, rng)
    w[ROLL] = 1
    w[ROLLS_LEFT] = rolls - 1
    herons = _lane(roll, HERON)
    if pond_opens(R, herons):
        total = herons
        kept = np.uint64(0)
        while total < n:
            kept += roll & (_BYTE << _S48)  # the herons stay reserved
            k = 0
            nxt = np.uint64(0)
            for j in range(nf):
                i = _die(lst, j)
                pos = np.uint64(4 * k)
                nxt = (nxt & ~(_NIBBLE << pos)) | (np.uint64(i) << pos)
                k += np.int64(w[U(FACE + i)] != HERON)
            lst = nxt
            nf = k
            roll = roll_list(lst, nf, w, R, rng)
            new = _lane(roll, HERON)
            total += new
            if new == 0:
                break
        _lay_out(lst, nf, w, n, kept + roll)
        return OUT_POND + 4 * total
    guide = w[U(GUIDE + seat)]
    kept = np.uint64(0)  # the dice set aside (kept, reserved herons), packed like a roll
    if not has_tables(seat, sp):
        _lay_out(lst, nf, w, n, roll)
        return CONTINUE
    ts = table_seat(seat, sp)
    tilt = race_tilt(seat, w) if race else 1.0  # the pawns do not move in a roll phase
    stored = sp[U(ts), ROW_POWERS] != 0
    anxiety = R[P_ANXIETY]
    roll_time = guide == LOUP or guide == AIGLE or guide == CERF or guide == HERON
    t = table_of(seat, w, R)  # the guide's state does not change before the roll phase ends
    while True:
        total = kept + roll
        if _lane(total, HERON) >= anxiety:
            w[U(row + C_ANXIETIES)] += 1
            w[U(row + C_SEAT_ANX + seat)] += 1
            if guide == LION and w[U(READY + seat)] != 0 and power_enabled(R, LION):
                rescue = human_lion(seat, R, rng, sp, final_advance(seat, w, R)) if human else lion_worth_it(seat, w, R)
                if rescue == 1:
                    w[U(READY + seat)] = 0
                    w[U(row + C_POWERS + LION)] += 1
                    w[U(row + C_LION_RESCUES)] += 1
                    return OUT_RESCUED
            return OUT_ANXIETY
        r = w[ROLLS_LEFT]
        if roll_time and w[U(READY + seat)] != 0 and power_enabled(R, guide) and human:
            if sp[U(seat), TEMP] <= 0.0:  # temp 0: expert.best_power's, on the generic loop
                _lay_out(lst, nf, w, n, total)
                return CONTINUE
            col, slots = held_column(sp, ts, t, guide, r, kept, roll, n, _fresh(roll))
            decided, u = power_counted(seat, w, R, rng, sp, ts, col, guide, r, stored, total)
            if not decided:  # the dice laid out, the generic path's answer (its draws made)
                _lay_out(lst, nf, w, n, total)
                action = power_after_draw(seat, w, R, sp, u)
                return USED - action if action >= 0 else KEEP_NEXT
            if r <= 0:
                counts_into(w, total)
                return OUT_SCORED
            if col < 0:
                _lay_out(lst, nf, w, n, total)
                return KEEP_NEXT
        elif roll_time and w[U(READY + seat)] != 0 and power_enabled(R, guide):
            # expert.best_power: the stored decision of these dice; "no use" goes on below
            # with the same column (the memo of expert.keep_column), anything else is the
            # generic path's
            col = -1
            slots = 0
            if stored:
                col, slots = held_column(sp, ts, t, guide, r, kept, roll, n, _fresh(roll))
            if col < 0 or int(sp[U(ts), U(col + power_column(guide))]) != -1:
                _lay_out(lst, nf, w, n, total)
                return CONTINUE
            if r <= 0:
                counts_into(w, total)
                return OUT_SCORED
        else:
            if r <= 0:
                counts_into(w, total)
                return OUT_SCORED
            col, slots = held_column(sp, ts, t, guide, r, kept, roll, n, _fresh(roll))
            if col < 0:  # dice the tables do not hold: expert plays greedy there
                _lay_out(lst, nf, w, n, total)
                return CONTINUE
        if race:  # the racer's stop rule (heron_sim.strategies.racer), on the dice counted
            counts_into(w, total)
            action = _stop_rule(seat, w, R, sp, ts, col, tilt, kept, roll, _fresh(roll), slots)
        elif human:  # the human's softmax (heron_sim.strategies.human), on the dice counted
            counts_into(w, total)
            action = human_action(seat, w, R, rng, sp, ts, col)
        else:
            action = int(sp[U(ts), U(col)])
        if action < 0:
            counts_into(w, total)
            return OUT_SCORED
        # expert.apply_keep_action: the first free dice (in die order) of each slot's count
        want = np.uint64(0)
        for a in range(6):
            slot = (slots >> (4 * a)) & 15
            want += np.uint64((action >> (ACTION_BITS * slot)) & 15) << np.uint64(8 * a)
        taken = np.uint64(0)
        newly = _lane(roll, HERON)  # this roll's herons are newly held
        k = 0
        nxt = np.uint64(0)
        for j in range(nf):  # without data-dependent branches (they mispredict)
            i = _die(lst, j)
            f = w[U(FACE + i)]
            lane = np.uint64(8 * f)
            take = np.uint64(((want >> lane) & _BYTE) != 0)  # never a heron: its lane is 0
            want -= take << lane
            taken += take << lane
            newly += np.int64(take)
            pos = np.uint64(4 * k)  # written at k, kept there if the die stays free
            nxt = (nxt & ~(_NIBBLE << pos)) | (np.uint64(i) << pos)
            k += np.int64((take == 0) & (f != HERON))
        if k == 0 or newly == 0:
            _lay_out(lst, nf, w, n, total)
            raise ValueError("illegal reroll: needs a roll left, a free die and a newly kept die")
        new_herons = _lane(roll, HERON)
        kept += taken + (np.uint64(new_herons) << _S48)
        lst = nxt
        nf = k
        roll = roll_list(lst, nf, w, R, rng)
        w[ROLLS_LEFT] -= 1
        w[ROLL] += 1


@hot
def roll_phase_counts(seat, w, R, rng, sp, race, human):
    """:func:`roll_phase_dice` for unscripted dice all alike, counting the dice without placing
    them (which die shows what does not matter then, and nothing reads the faces after an
    expert's roll phase: its score reads w[COUNTS]), the stored power uses included. Returns
    ``CONTINUE`` where the dice must be placed, at a hand-over to the generic loop
    (:func:`expert_roll_phase` then restores the stream, the
    Wolf square's bonus roll, the guide's state, its power count and Patience's animal, and
    plays the turn again with :func:`roll_phase_dice`; w[ROLL] and w[ROLLS_LEFT] are set
    again there)."""
    n = w[NDICE]
    row = w[ROW]
    rolls = R[P_ROLLS] + w[U(BONUS + seat)]  # the Wolf square's bonus roll is used up now
    w[U(BONUS + seat)] = 0
    nf = n
    first = rng[0]  # where the first roll draws (_dice_order)
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
    kept = np.uint64(0)  # the dice set aside (kept, reserved herons), packed like a roll
    if not has_tables(seat, sp):
        return CONTINUE
    ts = table_seat(seat, sp)
    tilt = race_tilt(seat, w) if race else 1.0  # the pawns do not move in a roll phase
    stored = sp[U(ts), ROW_POWERS] != 0
    anxiety = R[P_ANXIETY]
    roll_time = guide == LOUP or guide == AIGLE or guide == CERF or guide == HERON
    t = table_of(seat, w, R)  # the guide's state changes only by a power (below)
    gd = guide  # the doubling guide (Patience may set the Héron one)
    # a human with a ready roll-time power notes where each roll draws and what each keep sets
    # aside (w[FACE + k], w[STATUS + k]: nothing reads the dice's places in a counted turn), so
    # that a tie between two kinds of dice finds the order of the dice again (_dice_order)
    track = human and roll_time and w[U(READY + seat)] != 0 and power_enabled(R, guide)
    if track:
        w[FACE] = np.int64(first)
    while True:
        total = kept + roll
        if _lane(total, HERON) >= anxiety:
            w[U(row + C_ANXIETIES)] += 1
            w[U(row + C_SEAT_ANX + seat)] += 1
            if guide == LION and w[U(READY + seat)] != 0 and power_enabled(R, LION):
                counts_into(w, total)  # expert.lion_worth_it on the dice counted (its score reads them)
                adv = counted_advance(seat, w, R)
                rescue = human_lion(seat, R, rng, sp, adv) if human else (1 if adv > consolation_anxiety(R) else 0)
                if rescue == 1:
                    w[U(READY + seat)] = 0
                    w[U(row + C_POWERS + LION)] += 1
                    w[U(row + C_LION_RESCUES)] += 1
                    return OUT_RESCUED
            return OUT_ANXIETY
        r = w[ROLLS_LEFT]
        if roll_time and w[U(READY + seat)] != 0 and power_enabled(R, guide) and human:
            if sp[U(seat), TEMP] <= 0.0:  # temp 0: expert.best_power's, on the generic loop
                return CONTINUE
            col, slots = turn_column(sp, ts, t, gd, r, kept, roll, n)
            decided, u = power_counted(seat, w, R, rng, sp, ts, col, guide, r, stored, total)
            if not decided:
                # the power is used (human.power_after_draw): on the draw's lower half with a
                # stored use, that use (expert.decode_power); else the scan's, which is the stored
                # best use where that is the only use of its value (expert.stored_code, whatever
                # the order of the dice), else the best of the uses the tables name near it
                # (expert.near_scan, _near_counted). The tables valued the uses with one fresh
                # heron at most: with more, the Wolf's reroll of a fresh heron is worth another
                # value (the other uses, and the other guides' uses, which never take a heron,
                # are worth the same), so a Wolf's turn with two fresh herons is laid out. Such
                # a use is played on the counts as the expert's is; dice the tables do not hold
                # or uses the counts cannot value need the dice laid out: roll_phase_dice
                # answers there
                codef = sp[U(ts), U(col + power_column(guide))] if col >= 0 and stored else -2.0
                code, unique = stored_use(codef)
                valued = guide != LOUP or _lane(roll, HERON) <= 1  # the tables' values hold
                if codef >= 0.0 and u < 0.5:
                    pass  # the stored use itself (power_after_draw decodes it)
                elif code >= 0 and not unique and valued:
                    # a tie within UNIQUE_GAP: the scan's answer from the uses the tables name
                    # (expert.near_scan), where one kind of die has their highest value
                    code, v = _near_counted(seat, w, R, sp, ts, t, gd, r, guide, codef, code, slots, kept, roll, n, col)
                    if code == -2:
                        return CONTINUE
                    if r > 0:
                        base = sp[U(ts), U(col + 1)]  # as power_counted
                    else:
                        counts_into(w, total)
                        adv = counted_advance(seat, w, R)
                        base = float(adv if adv > 0 else consolation_no_set(R))
                    if not under(u, v - base - POWER_MARGIN, sp[U(seat), TEMP]):
                        code = -1  # not used after all: the keep decision below
                elif code < 0 or not (unique and valued):
                    return CONTINUE
                if code >= 0:
                    res, kept, nf, roll = _counted_power(seat, w, R, rng, sp, ts, t, guide, code, slots,
                                                         kept, roll, n, race, tilt, True, col, gd)
                    if res != _GO_ON:
                        return res
                    t = table_of(seat, w, R)
                    gd = doubling_guide(guide, w, R)
                    continue
            if r <= 0:
                counts_into(w, total)
                return OUT_SCORED
            if col < 0:
                return CONTINUE
        elif roll_time and w[U(READY + seat)] != 0 and power_enabled(R, guide):
            col = -1
            slots = 0
            if stored:
                col, slots = turn_column(sp, ts, t, gd, r, kept, roll, n)
            if col < 0:
                return CONTINUE
            code = int(sp[U(ts), U(col + power_column(guide))])
            if code != -1:  # the stored use, played on the counts
                if code < 0:
                    return CONTINUE
                res, kept, nf, roll = _counted_power(seat, w, R, rng, sp, ts, t, guide, code, slots,
                                                     kept, roll, n, race, tilt, False, col, gd)
                if res != _GO_ON:
                    return res
                t = table_of(seat, w, R)
                gd = doubling_guide(guide, w, R)
                continue
            if r <= 0:
                counts_into(w, total)
                return OUT_SCORED
        else:
            if r <= 0:
                counts_into(w, total)
                return OUT_SCORED
            col, slots = turn_column(sp, ts, t, gd, r, kept, roll, n)
            if col < 0:
                return CONTINUE
        if race:  # the racer's stop rule (heron_sim.strategies.racer), on the dice counted
            counts_into(w, total)
            action = _stop_rule(seat, w, R, sp, ts, col, tilt, kept, roll, _fresh(roll), slots)
        elif human:  # the human's softmax (heron_sim.strategies.human), on the dice counted
            counts_into(w, total)
            action = human_action(seat, w, R, rng, sp, ts, col)
        else:
            action = int(sp[U(ts), U(col)])
        if action < 0:
            counts_into(w, total)
            return OUT_SCORED
        # expert.apply_keep_action by counts: each slot's count, as far as this roll shows it
        taken = np.uint64(0)
        newly = _lane(roll, HERON)  # this roll's herons are newly held
        for a in range(6):
            slot = (slots >> (4 * a)) & 15
            x = (action >> (ACTION_BITS * slot)) & 15
            c = _lane(roll, a)
            x = x if x < c else c
            taken += np.uint64(x) << np.uint64(8 * a)
            newly += x
        nf -= newly
        if nf == 0 or newly == 0:
            return CONTINUE  # the generic loop says why (illegal reroll)
        if track and w[ROLL] < MAX_DICE:
            w[U(STATUS + w[ROLL] - 1)] = np.int64(taken)
            w[U(FACE + w[ROLL])] = np.int64(rng[0])
        kept += taken + (roll & (_BYTE << _S48))
        roll = roll_counts(nf, R, rng)
        w[ROLLS_LEFT] -= 1
        w[ROLL] += 1


@hot_inline
def _stop_rule(seat, w, R, sp, ts, col, tilt, held, free, fresh, slots):
    """The keep/stop rule of a racing seat: the champion's chance of winning
    (heron_sim.strategies.champion: the held and free dice by animal and their slots are its
    keeps'), else the racer's race value (heron_sim.strategies.racer)."""
    if w[U(SID + seat)] == CHAMPION:
        note_counts(w, held, free, fresh, slots)
        return champion_action(seat, w, R, sp, ts, col)
    return race_action_tilted(seat, w, R, sp, ts, col, tilt)


@hot_inline
def expert_roll_phase(seat, w, R, rng, sp):
    """heron_sim.loop.turn.roll_phase for an ``expert`` seat, up to the first decision it
    cannot answer alone. Returns ``outcome + 4 * value`` (the roll phase's pair), or
    ``CONTINUE`` with the dice laid out for the generic loop (w[ROLL], w[ROLLS_LEFT] set).
    Unscripted dice all alike are counted, not placed (:func:`roll_phase_counts`); where the
    dice must be placed after all, the turn is played again from its first draw, placing them
    (the same draws, the same decisions)."""
    race = w[U(SID + seat)] == RACER or w[U(SID + seat)] == CHAMPION  # a stop rule of its own
    human = w[U(SID + seat)] == HUMAN and not human_zero(sp, seat)  # at 0: the expert's turn
    if R[R_UNIFORM] != 0 and w[RPTR] >= w[RSCRIPT_LEN]:
        start = rng[0]
        half = rng[1]  # a power's roll_die draws from the buffered half-word
        has_half = rng[2]
        bonus = w[U(BONUS + seat)]
        ready = w[U(READY + seat)]
        used = w[U(w[ROW] + C_POWERS + w[U(GUIDE + seat)])]
        # each kind of seat its own compiled turn (the flags as constants: numba specialises on
        # them and drops the other kinds' code, which frees registers in the decision loop)
        if human:
            code = roll_phase_counts(seat, w, R, rng, sp, False, True)
        elif race:
            code = roll_phase_counts(seat, w, R, rng, sp, True, False)
        else:
            code = roll_phase_counts(seat, w, R, rng, sp, False, False)
        if code != CONTINUE:
            return code
        rng[0] = start
        rng[1] = half
        rng[2] = has_half
        w[U(BONUS + seat)] = bonus
        w[U(READY + seat)] = ready
        w[U(w[ROW] + C_POWERS + w[U(GUIDE + seat)])] = used
        w[PATIENCE] = -1  # as roll_phase set it
    return roll_phase_dice(seat, w, R, rng, sp, race, human)
