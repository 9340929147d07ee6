"""Each seat's luck, measured by the game loop (heron_sim.loop.turn.roll_phase, luck on).

Called at every roll of a turn's dice (the first roll and the rerolls), and after each draw of
the Wolf's and the Eagle's powers (:func:`power_luck`), when the workspace names a luck row (``w[LUCK_ROW] > 0``: heron_sim.strategies.expert_luck.luck_row): adds to
``w[LUCK + seat]`` the expert's value after the roll minus its value before (the exact
expectation of the former, heron_sim.strategies.expert_luck), in fixed point (2**-LUCK_SHIFT
squares). The tables read are those of the seat's guide and state (expert_values.table_of), whoever
plays the seat: luck depends on the dice and the state, not on the strategy. Under rules by guide
``sp`` and ``R`` are the turn's (heron_sim.loop.game.turn_rules): its block's luck row holds the
tables of the rules the turn is played under. At each first roll the Étang's push-back adds to
every opponent the roller could push back its expected push-back minus the one rolled
(:func:`pond_luck`).
"""

from __future__ import annotations

from ..engine.jit import U, hot
from ..engine.layout import (
    AIGLE, EAGLE_FACES, FACE, FINL, FREE, FRESH, HERON, KEEP, COUNTS, LAND, LAND_SLOTS, LOUP, LUCK, LUCK_OFF, LUCK_POST,
    LUCK_PRE,
    LUCK_ROW, LUCK_SHIFT, MAX_FACES, NDICE, PLAYERS, POS, PROT, R_BOARD, R_FACES, R_NFACES, RESERVED, ROLLS_LEFT,
    STATUS, X_EAGLE_DRAWS,
)
from ..rules.rules import P_EXACT, P_FINISH
from .expert import _column, _rank, anxiety_value, max_of_draws, slot0_animal, table_of
from .expert_column import sort6_desc
from .expert_dp import ACTION_BITS
from .expert_luck import (
    LK_AMAX, LK_ANX, LK_B, LK_FIRST, LK_FLAND, LK_LAND, LK_NPRE, LK_PI, LK_POND, LK_POWER_BIAS, LK_POWERS_ONLY,
    LK_RMAX, LK_V,
)
from ..engine.rulebook import pond_pushback

_SCALE = float(1 << LUCK_SHIFT)


@hot
def luck_add(seat, w, x):
    w[U(LUCK + seat)] += int(round(x * _SCALE))


@hot
def value_after(seat, w, R, sp, r, pond):
    """The expert's value of the dice showing, just rolled, with ``r`` rolls left: 0 after a
    Pond, the Anxiety's value (a ready Lion's rescue or the consolation), else Q[r] of the
    state from the tables. Returns -1e300 where the tables hold no entry (then no luck is
    counted for this roll)."""
    w[LUCK_POST] = -1
    if pond:
        return 0.0
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    n = w[NDICE]
    B = int(sp[U(lr), U(lo + LK_B)])
    rmax = int(sp[U(lr), U(lo + LK_RMAX)])
    anx = int(sp[U(lr), U(lo + LK_ANX)])
    for a in range(7):
        w[U(KEEP + a)] = 0
        w[U(COUNTS + a)] = 0
    fl = 0
    for i in range(n):
        f = w[U(FACE + i)]
        held = int(w[U(STATUS + i)] != FREE)
        fl |= held & int(w[U(FRESH + i)] != 0)
        w[U(KEEP + f)] += 1 + held * (B - 1)
        w[U(COUNTS + f)] += 1
    h = w[U(COUNTS + HERON)]
    if h >= anx:
        return float(anxiety_value(seat, w, R))
    if r < 0 or r > rmax:
        return -1e300
    col = _column(seat, w, R, sp, lr, r, h, fl, _rank(seat, w, R, sp, lr, n - h), rmax, anx)
    if col < 0:
        return -1e300
    w[LUCK_POST] = col  # the programme's action there: land_luck (the slots stay in w[KEEP + 6 + a])
    return sp[U(lr), U(col + 1)]


@hot
def pond_luck(seat, w, R, sp, herons):
    """The Étang Paisible's push-back as the others' luck, at each first roll of seat ``seat``
    (``herons``: the Pond's herons, 0 when the roll opened none): every opponent that is not
    protected (it would be pushed back) gets the expected push-back of a first roll
    (expert_luck.LK_POND) minus the squares this roll pushes it back (rulebook.pond_pushback).
    Mean zero given the state before the roll, whoever rolls: the Pond's law does not depend on
    the player. The squares are the push-back's, as announced (a pawn near the start moves back
    less: not counted), of the turn's rules ``R`` (a guide's own push-back included). The
    roller's own luck is its turn's (a Pond is worth 0 to its turn)."""
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    if sp[U(lr), U(lo + LK_POWERS_ONLY)] != 0:
        return
    law = int(sp[U(lr), U(lo + LK_POND)])
    expected = 0.0
    for h in range(w[NDICE] + 1):
        expected += sp[U(lr), U(law + h)] * float(pond_pushback(R, h))
    x = expected - (float(pond_pushback(R, herons)) if herons > 0 else 0.0)
    for o in range(w[PLAYERS]):
        if o != seat and w[U(PROT + o)] == 0:
            luck_add(o, w, x)


@hot
def value_first(seat, w, R, sp, r):
    """The expert's value before the first roll leaving ``r`` rolls (-1e300: none)."""
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    w[LUCK_PRE] = -1
    rmax = int(sp[U(lr), U(lo + LK_RMAX)])
    if r < 0 or r > rmax or sp[U(lr), U(lo + LK_POWERS_ONLY)] != 0:
        return -1e300
    t = table_of(seat, w, R)
    # where the law of the turn's score before the first roll starts (land_luck)
    w[LUCK_PRE] = int(sp[U(lr), U(lo + LK_FLAND)]) + (t * (rmax + 1) + r) * int(sp[U(lr), U(lo + LK_AMAX)])
    return sp[U(lr), U(int(sp[U(lr), U(lo + LK_FIRST)]) + t * (rmax + 1) + r)]


@hot
def _held_counts(w):
    """The dice set aside (not FREE), by animal, in w[COUNTS] (herons excluded); returns the
    reserved herons."""
    for a in range(7):
        w[U(COUNTS + a)] = 0
    h = 0
    for i in range(w[NDICE]):
        if w[U(STATUS + i)] == FREE:
            continue
        f = w[U(FACE + i)]
        if f == HERON:
            h += 1
        else:
            w[U(COUNTS + f)] += 1
    return h


@hot
def _kept_index(seat, w, R, sp, B):
    """The dense index (expert_luck.LK_PI) of the kept vector whose counts by animal stand in
    w[COUNTS] (herons excluded): the guide's animal first, the others' counts in decreasing order
    (expert_column.sort6_desc in registers, the guide's lane at -1 so it sorts last), as digits
    base ``B``; -1 where none. Leaves w[KEEP + 0..5] at -1 (the scratch as the insertion sort of
    earlier versions left it)."""
    lr = w[LUCK_ROW] - 1
    g0 = slot0_animal(seat, w, R)
    k0 = -1 if g0 == 0 else w[U(COUNTS + 0)]
    k1 = -1 if g0 == 1 else w[U(COUNTS + 1)]
    k2 = -1 if g0 == 2 else w[U(COUNTS + 2)]
    k3 = -1 if g0 == 3 else w[U(COUNTS + 3)]
    k4 = -1 if g0 == 4 else w[U(COUNTS + 4)]
    k5 = -1 if g0 == 5 else w[U(COUNTS + 5)]
    k0, k1, k2, k3, k4, k5 = sort6_desc(k0, k1, k2, k3, k4, k5)
    for a in range(6):
        w[U(KEEP + a)] = -1
    code = w[U(COUNTS + g0)] + B * (k0 + B * (k1 + B * (k2 + B * (k3 + B * k4))))
    return int(sp[U(lr), U(int(sp[U(lr), U(w[LUCK_OFF] + LK_PI)]) + code)])


@hot
def value_before(seat, w, R, sp, r):
    """The expert's value before a reroll of the free dice whose post-roll state has ``r``
    rolls left: the kept dice (status KEPT) and reserved herons as they stand (-1e300: none)."""
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    w[LUCK_PRE] = -1
    B = int(sp[U(lr), U(lo + LK_B)])
    rmax = int(sp[U(lr), U(lo + LK_RMAX)])
    anx = int(sp[U(lr), U(lo + LK_ANX)])
    npre = int(sp[U(lr), U(lo + LK_NPRE)])
    if r < 0 or r >= rmax or sp[U(lr), U(lo + LK_POWERS_ONLY)] != 0:
        return -1e300
    h = _held_counts(w)
    if h >= anx:
        return -1e300
    p = _kept_index(seat, w, R, sp, B)
    if p < 0:
        return -1e300
    t = table_of(seat, w, R)
    # where the law of the turn's score before this roll starts (land_luck)
    w[LUCK_PRE] = int(sp[U(lr), U(lo + LK_LAND)]) + (((t * rmax + r) * npre + p) * anx + h) * int(sp[U(lr), U(lo + LK_AMAX)])
    return sp[U(lr), U(int(sp[U(lr), U(lo + LK_V)]) + ((t * rmax + r) * npre + p) * anx + h)]


@hot
def _kept_law(seat, w, R, sp, r):
    """Where the law of the turn's score starts after the roll just made (``r`` rolls left), if the
    programme keeps and rerolls there (its action at the column :func:`value_after` noted); -1
    where it stops (the score is the value after the roll) or nothing was noted."""
    col = w[LUCK_POST]
    if col < 0 or r < 1:
        return -1
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    action = int(sp[U(lr), U(col)])
    if action < 0:
        return -1
    B = int(sp[U(lr), U(lo + LK_B)])
    rmax = int(sp[U(lr), U(lo + LK_RMAX)])
    anx = int(sp[U(lr), U(lo + LK_ANX)])
    npre = int(sp[U(lr), U(lo + LK_NPRE)])
    # the dice set aside, from value_after's digits (kept * B + free, B above any count), and
    # the free dice the programme keeps, by slot (expert.apply_keep_action); after a roll every
    # heron is reserved: value_after counted all of them
    h = w[U(COUNTS + HERON)]
    w[U(COUNTS + HERON)] = 0
    for a in range(6):
        w[U(COUNTS + a)] = w[U(KEEP + a)] // B + ((action >> (ACTION_BITS * w[U(KEEP + 6 + a)])) & 15)
    p = _kept_index(seat, w, R, sp, B)
    if p < 0:
        return -1
    t = table_of(seat, w, R)
    return int(sp[U(lr), U(lo + LK_LAND)]) + (((t * rmax + r - 1) * npre + p) * anx + h) * int(sp[U(lr), U(lo + LK_AMAX)])


@hot
def land_luck(seat, w, R, sp, after, r):
    """The luck of where a reroll's dice would land the pawn, by special square: for each of the
    board's first LAND_SLOTS special squares ``q`` within reach, the chance that the turn scores
    ``q`` minus the seat's square under the expert's programme after the roll (1 or 0 where the
    programme stops there or no roll is left: the score is ``after``, the value just rolled; else
    the law of its next roll, :func:`_kept_law`), minus that chance before the roll (the law
    :func:`value_before` pointed at, expert_luck.LK_LAND), added to ``w[LAND + seat * LAND_SLOTS
    + k]`` (``k``: the square's rank among the special ones). Mean zero given the state before
    the roll, whoever plays: the law before is the exact expectation of the law after. Where the
    pawn really lands after the player's own choices, a power or a Lion's rescue may differ; that
    part is not counted (no bias, less measured). Then the same for the finish (``w[FINL +
    seat]``): the chance that the turn reaches it."""
    before = w[LUCK_PRE]
    if before < 0:
        return
    w[LUCK_PRE] = -1
    lr = w[LUCK_ROW] - 1
    amax = int(sp[U(lr), U(w[LUCK_OFF] + LK_AMAX)])
    law = _kept_law(seat, w, R, sp, r)
    a = int(round(after))
    pos = w[U(POS + seat)]
    k = 0
    for q in range(1, R[P_FINISH]):
        if R[U(R_BOARD + q)] == 0:
            continue
        if k >= LAND_SLOTS:
            break
        d = q - pos
        if d >= amax:  # this square and every later one out of the turn's reach
            break
        if d >= 1:
            if law >= 0:
                x = sp[U(lr), U(law + d)] - sp[U(lr), U(before + d)]
            else:
                x = (1.0 if a == d else 0.0) - sp[U(lr), U(before + d)]
            w[U(LAND + seat * LAND_SLOTS + k)] += int(round(x * _SCALE))
        k += 1
    # the finish (issue 59 item 1): the chance that the turn reaches it (exactly, with the exact
    # finish), after the roll minus before, added to w[FINL + seat]. Mean zero like the squares'
    # (the law before is the exact expectation of the law after); a win is reaching the finish,
    # so this is the race's threshold, in chances, that a luck in squares cannot see
    d0 = max(R[P_FINISH] - pos, 1)
    if d0 < amax:
        d1 = d0 + 1 if R[P_EXACT] != 0 else amax
        x = 0.0
        for d in range(d0, d1):
            if law >= 0:
                x += sp[U(lr), U(law + d)] - sp[U(lr), U(before + d)]
            else:
                x += (1.0 if a == d else 0.0) - sp[U(lr), U(before + d)]
        w[U(FINL + seat)] += int(round(x * _SCALE))


@hot
def _face_after(seat, w, R, sp, r, die, face, status, fresh):
    """:func:`value_after` with die ``die`` showing ``face`` / ``status`` / ``fresh`` (the die
    restored afterwards)."""
    f0 = w[U(FACE + die)]
    s0 = w[U(STATUS + die)]
    r0 = w[U(FRESH + die)]
    w[U(FACE + die)] = face
    w[U(STATUS + die)] = status
    w[U(FRESH + die)] = fresh
    v = value_after(seat, w, R, sp, r, False)
    w[U(FACE + die)] = f0
    w[U(STATUS + die)] = s0
    w[U(FRESH + die)] = r0
    return v


@hot
def _animal_values(seat, w, R, sp, r, die, status, fresh):
    """:func:`_face_after` for each animal on the faces of die ``die`` (a heron face reserved,
    any other with ``status``), as a 7-tuple by animal (0.0 for animals not on the die); -1e300
    in the first slot where the tables miss one of them."""
    mask = 0
    for k in range(R[U(R_NFACES + die)]):
        mask |= 1 << R[U(R_FACES + MAX_FACES * die + k)]
    v0 = v1 = v2 = v3 = v4 = v5 = v6 = 0.0
    if mask & 1:
        v0 = _face_after(seat, w, R, sp, r, die, 0, status, fresh)
    if mask & 2:
        v1 = _face_after(seat, w, R, sp, r, die, 1, status, fresh)
    if mask & 4:
        v2 = _face_after(seat, w, R, sp, r, die, 2, status, fresh)
    if mask & 8:
        v3 = _face_after(seat, w, R, sp, r, die, 3, status, fresh)
    if mask & 16:
        v4 = _face_after(seat, w, R, sp, r, die, 4, status, fresh)
    if mask & 32:
        v5 = _face_after(seat, w, R, sp, r, die, 5, status, fresh)
    if mask & 64:
        v6 = _face_after(seat, w, R, sp, r, die, HERON, RESERVED, fresh)
    if min(v0, v1, v2, v3, v4, v5, v6) < -1e299:
        v0 = -1e300
    return (v0, v1, v2, v3, v4, v5, v6)


@hot
def power_luck(seat, w, R, sp, guide, die, face0, status0):
    """The luck of a roll-time power's draw, just applied (heron_sim.loop.powers.apply_power) to
    die ``die``, which showed ``face0`` with status ``status0`` before it.

    - Wolf: the die rerolled (fresh; a heron reserved). Value after: the expert's value of the
      dice now (:func:`value_after`, the rolls left as they are); before: its exact expectation
      over the die's faces (each face's value from the same tables).
    - Eagle: ``eagle_draws`` faces drawn from the die, then the player picks one of them or the
      original. The chance is the draws, the pick a decision after it: value after = the best
      pick's value, max(original, drawn faces) (a heron reserved, any other face with the die's
      status); before = the exact expectation of that maximum over the draws (independent
      uniform faces: the j-th smallest of the die's values is the draws' maximum with
      probability (j/nf)^d − ((j−1)/nf)^d).

    Not counted (nothing added) where the tables miss one of the outcomes (decided before the
    draw, so no bias). ``LK_POWER_BIAS`` (0 but in the tests' negative control) is added to the
    value after."""
    lr = w[LUCK_ROW] - 1
    lo = w[LUCK_OFF]
    r = w[ROLLS_LEFT]
    nf = R[U(R_NFACES + die)]
    if guide == LOUP:
        vals = _animal_values(seat, w, R, sp, r, die, FREE, 1)
        if vals[0] < -1e299:
            return
        acc = 0.0
        for k in range(nf):
            acc += vals[R[U(R_FACES + MAX_FACES * die + k)]]
        before = acc / nf
        after = vals[w[U(FACE + die)]]
    elif guide == AIGLE:
        fresh = w[U(FRESH + die)]
        base = _face_after(seat, w, R, sp, r, die, face0, status0, fresh)
        vals = _animal_values(seat, w, R, sp, r, die, status0, fresh)
        if vals[0] < -1e299 or base < -1e299:
            return
        d = R[X_EAGLE_DRAWS]
        before = max_of_draws(R, die, vals, base, d)
        after = base
        for k in range(d):
            after = max(after, vals[w[U(EAGLE_FACES + k)]])
    else:
        return
    luck_add(seat, w, after + sp[U(lr), U(lo + LK_POWER_BIAS)] - before)
