"""The expert's tables read: look-ups, the value of the dice, the powers' look-ahead values.

What every table player (``expert``, ``racer``, ``human``) and the luck measure read from the
tables (heron_sim.strategies.expert_dp) on the dice laid out in the workspace: which tables a
seat plays (:func:`table_of`, :func:`table_seat`), the state's entry (:func:`lookup`: the rank
of the canonical state by a sorting network and the counting tables stored in the row), the
value of the dice with ``r`` rolls left (:func:`state_value`, an Anxiety and a stop included),
and the one-step look-ahead value of each use of a roll-time power (Wolf, Eagle, Deer, Héron's
Patience) and the scan over them (:func:`power_scan_runner`, the reference: the tables' stored
power decisions are its answers, heron_sim.strategies.expert_powers; the players scan with
heron_sim.strategies.expert_scan, the same answer on the dice counted). The decisions made from
them are the strategies' (heron_sim.strategies.expert, racer, human).
"""

from __future__ import annotations

from ..engine.jit import U, hot, hot_inline
from ..engine.rulebook import (
    bull_applies, bull_bonus, consolation_anxiety, consolation_no_set, guide_power_doubles, power_enabled, set_advance,
)
from ..engine.layout import (
    AIGLE, CERF, COUNTS, FACE, FREE,
    FRESH, GUIDE, HERON, KEEP, KEPT, LION, LOUP, MAX_FACES, NDICE, PATIENCE, POWER_ARG,
    R_FACES, R_NFACES, READY, RESERVED, ROLLS_LEFT, STATUS, TAUREAU, X_EAGLE_DRAWS, X_PATIENCE_COST, X_PATIENCE_DOUBLING,
)
from ..engine.dice import best_set, count_animals, doubling_guide
from ..rules.rules import P_ANXIETY
from .common import shown_elsewhere
from .expert_column import sort6_desc
from .expert_dp import (
    ENTRY, MAGIC, ROW_ANX, ROW_B,
    ROW_DIR, ROW_G, ROW_MAGIC, ROW_RMAX, ROW_STRIDE, ROW_TSEAT,
    T_BULL_EXHAUSTED, T_BULL_READY, T_LION_READY, T_NODOUBLE, T_PLAIN,
)


@hot
def has_tables(seat, sp):
    return sp.shape[1] > ROW_DIR and sp[U(seat), ROW_MAGIC] == MAGIC


@hot
def table_of(seat, w, R):
    g = w[U(GUIDE + seat)]
    if g == TAUREAU and power_enabled(R, TAUREAU):
        return T_BULL_READY if w[U(READY + seat)] != 0 else T_BULL_EXHAUSTED
    if g == LION and w[U(READY + seat)] != 0 and power_enabled(R, LION):
        return T_LION_READY
    if g == HERON:
        # a Héron that set an animal with Patience (heron_patience_doubling) doubles that
        # animal for the rest of the turn: the plain table, that animal in slot 0
        return T_PLAIN if doubling_guide(g, w, R) < HERON else T_NODOUBLE
    return T_PLAIN


@hot
def slot0_animal(seat, w, R):
    """The animal of slot 0 of the tables (the guide's; 0 for a Héron guide, whose table does
    not double, unless Patience set it an animal to double)."""
    g = doubling_guide(w[U(GUIDE + seat)], w, R)
    return g if g < 6 else 0


@hot
def table_seat(seat, sp):
    """The seat whose parameter row holds the tables this seat uses."""
    t = sp[U(seat), ROW_TSEAT]
    return seat if t < 0 else int(t)


@hot
def _rank_step(w, sp, ts, go, D, stride, key, slot, rank, rem):
    """Slot ``slot`` holds the animal of sort key ``key``: note its slot, add its rank term (the
    merged counts G[6 - slot, digit, rem], expert_dp.ROW_G)."""
    a = 7 - (key & 7)
    digit = key >> 3
    w[U(KEEP + 6 + a)] = slot
    rank += int(sp[U(ts), U(go + ((6 - slot) * D + digit) * stride + rem)])
    return rank, rem - w[U(COUNTS + a)]


@hot
def _rank(seat, w, R, sp, ts, s):
    """Rank of the canonical state whose digit (kept * B + free) and size by animal are in
    w[KEEP + a] and w[COUNTS + a] (a < 6), with s non-heron dice, among the states of that
    size; notes each animal's slot in w[KEEP + 6 + a] (the guide's animal: slot 0)."""
    g0 = slot0_animal(seat, w, R)
    go = int(sp[U(ts), ROW_G])
    D = int(sp[U(ts), ROW_B]) ** 2
    stride = int(sp[U(ts), ROW_STRIDE])
    rank = int(sp[U(ts), U(go + (6 * D + w[U(KEEP + g0)]) * stride + s)])
    rem = s - w[U(COUNTS + g0)]
    # The other animals by decreasing digit, ties by increasing index: sort keys
    # digit * 8 + 7 - a (the guide's key -1 sorts last) by a sorting network (no branches).
    k0 = -1 if g0 == 0 else w[U(KEEP + 0)] * 8 + 7
    k1 = -1 if g0 == 1 else w[U(KEEP + 1)] * 8 + 6
    k2 = -1 if g0 == 2 else w[U(KEEP + 2)] * 8 + 5
    k3 = -1 if g0 == 3 else w[U(KEEP + 3)] * 8 + 4
    k4 = -1 if g0 == 4 else w[U(KEEP + 4)] * 8 + 3
    k5 = -1 if g0 == 5 else w[U(KEEP + 5)] * 8 + 2
    k0, k1, k2, k3, k4, k5 = sort6_desc(k0, k1, k2, k3, k4, k5)
    w[U(KEEP + 6 + g0)] = 0
    rank, rem = _rank_step(w, sp, ts, go, D, stride, k0, 1, rank, rem)
    rank, rem = _rank_step(w, sp, ts, go, D, stride, k1, 2, rank, rem)
    rank, rem = _rank_step(w, sp, ts, go, D, stride, k2, 3, rank, rem)
    rank, rem = _rank_step(w, sp, ts, go, D, stride, k3, 4, rank, rem)
    rank, rem = _rank_step(w, sp, ts, go, D, stride, k4, 5, rank, rem)
    return rank


@hot
def _column(seat, w, R, sp, ts, r, h, fl, rank, rmax, anx):
    """Column of the entry of the state of this rank in block (table, r, h, fl); -1 if none."""
    t = table_of(seat, w, R)
    d = ((t * (rmax + 1) + r) * anx + h) * 2 + fl
    if rank >= int(sp[U(ts), U(ROW_DIR + 2 * d + 1)]):
        return -1
    return int(sp[U(ts), U(ROW_DIR + 2 * d)]) + ENTRY * rank


@hot
def lookup(seat, w, R, sp, r):
    """Find the current dice in the tables for ``r`` rolls left.

    Returns col: the column, in the row of ``table_seat(seat, sp)``, of the state's entry
    (action at col, value at col + 1, best reroll action/value at col + 2 / col + 3, the stored
    roll-time power decisions at col + E_WOLF .. col + E_PATIENCE), or -1.
    Leaves the slot of animal a in w[KEEP + 6 + a] (scratch; w[COUNTS] is scratch too).
    """
    ts = table_seat(seat, sp)
    n = w[NDICE]
    B = int(sp[U(ts), ROW_B])
    rmax = int(sp[U(ts), ROW_RMAX])
    anx = int(sp[U(ts), ROW_ANX])
    for a in range(7):
        w[U(KEEP + a)] = 0     # digit k * B + c of animal a (w[KEEP + 6]: scratch, herons)
        w[U(COUNTS + a)] = 0   # its size k + c (w[COUNTS + 6]: the herons)
    fl = 0
    for i in range(n):  # without data-dependent branches (they mispredict)
        f = w[U(FACE + i)]
        held = int(w[U(STATUS + i)] != FREE)
        fl |= held & int(w[U(FRESH + i)] != 0)
        w[U(KEEP + f)] += 1 + held * (B - 1)
        w[U(COUNTS + f)] += 1
    h = w[U(COUNTS + HERON)]
    if h >= anx or r < 0 or r > rmax:
        return -1
    return _column(seat, w, R, sp, ts, r, h, fl, _rank(seat, w, R, sp, ts, n - h), rmax, anx)


@hot
def final_advance(seat, w, R):
    """Advance the dice showing would score now (heron_sim.loop.turn.score_dice: doubling, the
    Héron's variants and a ready Bull included; no consolation)."""
    count_animals(w)
    return counted_advance(seat, w, R)


@hot_inline
def counted_advance(seat, w, R):
    """:func:`final_advance` of the dice counted by animal in w[COUNTS] (the fused turns count
    the dice as they roll them, heron_sim.strategies.expert_turn)."""
    g = w[U(GUIDE + seat)]
    dg = doubling_guide(g, w, R)
    size, animal = best_set(w, dg)
    adv = set_advance(R, size, guide_power_doubles(g, dg, size, animal, w, R))
    if bull_applies(R, size, g, w[U(READY + seat)]):
        adv += bull_bonus(R)
    return adv


@hot
def final_value(seat, w, R):
    """What stopping now moves the pawn: :func:`final_advance`, or the consolation of a turn
    worth 0 (consolation_no_set)."""
    adv = final_advance(seat, w, R)
    return adv if adv > 0 else consolation_no_set(R)


@hot
def anxiety_value(seat, w, R):
    """What an Anxiety on the dice showing moves the pawn: the Lion's rescue where the expert
    uses it (:func:`lion_worth_it`: the rescued dice score more than consolation_anxiety),
    else consolation_anxiety."""
    g = w[U(GUIDE + seat)]
    if g == LION and w[U(READY + seat)] != 0 and power_enabled(R, LION):
        adv = final_advance(seat, w, R)
        if adv > consolation_anxiety(R):
            return adv
    return consolation_anxiety(R)


@hot
def state_value(seat, w, R, sp, r):
    """Optimal expected advance from the dice showing with ``r`` rolls left (0 after an
    Anxiety, unless a ready Lion rescues it)."""
    h = 0
    for i in range(w[NDICE]):
        if w[U(FACE + i)] == HERON:
            h += 1
    if h >= R[P_ANXIETY]:
        return float(anxiety_value(seat, w, R))
    if r <= 0:
        return float(final_value(seat, w, R))
    col = lookup(seat, w, R, sp, r)
    if col < 0:
        return float(final_value(seat, w, R))
    return sp[U(table_seat(seat, sp)), U(col + 1)]


@hot
def _value_with_face(seat, w, R, sp, r, die, face, status):
    """state_value with die ``die`` set to ``face`` / ``status`` (restored afterwards)."""
    f0 = w[U(FACE + die)]
    s0 = w[U(STATUS + die)]
    w[U(FACE + die)] = face
    w[U(STATUS + die)] = status
    v = state_value(seat, w, R, sp, r)
    w[U(FACE + die)] = f0
    w[U(STATUS + die)] = s0
    return v


@hot
def _prep_without(w, sp, ts, die):
    """Digits (w[KEEP + a]) and sizes (w[COUNTS + a]) by animal of every die but ``die``;
    returns the herons and the fresh-held flag of those dice (for :func:`_face_value`)."""
    B = int(sp[U(ts), ROW_B])
    for a in range(6):
        w[U(KEEP + a)] = 0
        w[U(COUNTS + a)] = 0
    h = 0
    fl = 0
    for i in range(w[NDICE]):
        if i == die:
            continue
        f = w[U(FACE + i)]
        st = w[U(STATUS + i)]
        if st != FREE and w[U(FRESH + i)] != 0:
            fl = 1
        if f == HERON:
            h += 1
        else:
            w[U(KEEP + f)] += 1 if st == FREE else B
            w[U(COUNTS + f)] += 1
    return h, fl


@hot
def _fast_value(seat, w, R, sp, ts, r, die, face, status, h0, fl0):
    """state_value with die ``die`` showing ``face`` / ``status`` (its freshness as is), from
    :func:`_prep_without`'s scratch (left as found); -1.0 where the table does not answer
    (Anxiety, no roll left, ...): the caller then takes the general path."""
    anx = int(sp[U(ts), ROW_ANX])
    rmax = int(sp[U(ts), ROW_RMAX])
    h = h0 + (1 if face == HERON else 0)
    if h >= anx or r <= 0 or r > rmax:
        return -1.0
    fl = fl0
    if status != FREE and w[U(FRESH + die)] != 0:
        fl = 1
    B = int(sp[U(ts), ROW_B])
    step = 1 if status == FREE else B
    if face != HERON:
        w[U(KEEP + face)] += step
        w[U(COUNTS + face)] += 1
    rank = _rank(seat, w, R, sp, ts, w[NDICE] - h)
    if face != HERON:
        w[U(KEEP + face)] -= step
        w[U(COUNTS + face)] -= 1
    col = _column(seat, w, R, sp, ts, r, h, fl, rank, rmax, anx)
    return -1.0 if col < 0 else sp[U(ts), U(col + 1)]


@hot
def _face_value(seat, w, R, sp, ts, r, die, face, status, h0, fl0):
    """_value_with_face, by the fast path when it answers (the scratch of
    :func:`_prep_without` for ``die`` must be in place; it is restored after the general
    path)."""
    v = _fast_value(seat, w, R, sp, ts, r, die, face, status, h0, fl0)
    if v >= 0.0:
        return v
    v = _value_with_face(seat, w, R, sp, r, die, face, status)
    _prep_without(w, sp, ts, die)
    return v


@hot
def _values_by_animal(seat, w, R, sp, r, die, status):
    """_value_with_face for each animal on the faces of die ``die`` (a heron face reserved,
    any other with ``status``), as a 7-tuple by animal (0.0 for animals not on the die): each
    distinct face is evaluated once (an Eagle's pair of draws reuses them)."""
    nf = R[U(R_NFACES + die)]
    mask = 0
    for k in range(nf):
        mask |= 1 << R[U(R_FACES + MAX_FACES * die + k)]
    ts = table_seat(seat, sp)
    h0, fl0 = _prep_without(w, sp, ts, die)
    v0 = v1 = v2 = v3 = v4 = v5 = v6 = 0.0
    if mask & 1:
        v0 = _face_value(seat, w, R, sp, ts, r, die, 0, status, h0, fl0)
    if mask & 2:
        v1 = _face_value(seat, w, R, sp, ts, r, die, 1, status, h0, fl0)
    if mask & 4:
        v2 = _face_value(seat, w, R, sp, ts, r, die, 2, status, h0, fl0)
    if mask & 8:
        v3 = _face_value(seat, w, R, sp, ts, r, die, 3, status, h0, fl0)
    if mask & 16:
        v4 = _face_value(seat, w, R, sp, ts, r, die, 4, status, h0, fl0)
    if mask & 32:
        v5 = _face_value(seat, w, R, sp, ts, r, die, 5, status, h0, fl0)
    if mask & 64:
        v6 = _face_value(seat, w, R, sp, ts, r, die, HERON, RESERVED, h0, fl0)
    return (v0, v1, v2, v3, v4, v5, v6)


@hot
def _same_as_earlier(w, R, i):
    """Die i is interchangeable with an earlier die (same face law, face, status and
    freshness): evaluating a power on it again would give the same value."""
    for j in range(i):
        if (w[U(FACE + j)] == w[U(FACE + i)] and w[U(STATUS + j)] == w[U(STATUS + i)]
                and w[U(FRESH + j)] == w[U(FRESH + i)] and R[U(R_NFACES + j)] == R[U(R_NFACES + i)]):
            same = True
            for k in range(R[U(R_NFACES + i)]):
                if R[U(R_FACES + MAX_FACES * i + k)] != R[U(R_FACES + MAX_FACES * j + k)]:
                    same = False
                    break
            if same:
                return True
    return False


@hot
def deer_use_value(seat, w, R, sp, r, i, b):
    """Look-ahead value of the Deer turning die i into animal b."""
    ts = table_seat(seat, sp)
    h0, fl0 = _prep_without(w, sp, ts, i)
    return _face_value(seat, w, R, sp, ts, r, i, b, w[U(STATUS + i)], h0, fl0)


@hot
def patience_use_value(seat, w, R, sp, r, i, k):
    """Look-ahead value of Heron's Patience setting free die i to its face k (patience_cost
    rolls less; under heron_patience_doubling the face's animal doubles for the rest of the
    turn)."""
    ts = table_seat(seat, sp)
    f = R[U(R_FACES + MAX_FACES * i + k)]
    doubles = R[X_PATIENCE_DOUBLING] != 0 and f != HERON
    if doubles:
        w[PATIENCE] = f
    h0, fl0 = _prep_without(w, sp, ts, i)
    v = _face_value(seat, w, R, sp, ts, r - R[X_PATIENCE_COST], i, f, RESERVED if f == HERON else KEPT, h0, fl0)
    if doubles:
        w[PATIENCE] = -1
    return v


@hot
def wolf_use_value(seat, w, R, sp, r, i):
    """Look-ahead value of the Wolf rerolling die i (expectation over its new face)."""
    fr = w[U(FRESH + i)]
    w[U(FRESH + i)] = 1
    vals = _values_by_animal(seat, w, R, sp, r, i, FREE)
    w[U(FRESH + i)] = fr
    return wolf_of_values(R, i, vals)


@hot
def wolf_of_values(R, i, vals):
    """The Wolf's look-ahead on die i from the value of each animal its new face may show
    (``vals``, by animal): the mean over its faces, summed in face order."""
    nf = R[U(R_NFACES + i)]
    acc = 0.0
    for k in range(nf):
        acc += vals[R[U(R_FACES + MAX_FACES * i + k)]]
    return acc / nf


@hot
def max_of_draws(R, i, vals, base, d):
    """E[max(base, d draws of die i)], ``vals`` the value of each animal: the faces ranked by
    (value, index) without sorting (no allocation in a decision); the j-th smallest is the
    largest of the draws with probability (j/nf)^d - ((j-1)/nf)^d."""
    nf = R[U(R_NFACES + i)]
    acc = 0.0
    for j in range(nf):
        uj = max(base, vals[R[U(R_FACES + MAX_FACES * i + j)]])
        below = 0
        for k in range(nf):
            uk = max(base, vals[R[U(R_FACES + MAX_FACES * i + k)]])
            below += 1 if (uk < uj or (uk == uj and k < j)) else 0
        acc += uj * (((below + 1) / nf) ** d - (below / nf) ** d)
    return acc


@hot
def eagle_use_value(seat, w, R, sp, r, i, base):
    """Look-ahead value of the Eagle on die i: E[max(original, draw 1, draw 2)] over ordered
    pairs of draws (the diagonal once, each unordered pair twice); for eagle_draws = d other
    than 2, E[max(original, d draws)] from the faces' values in increasing order (the j-th
    smallest is the largest draw with probability (j/nf)^d - ((j-1)/nf)^d)."""
    return eagle_of_values(R, i, _values_by_animal(seat, w, R, sp, r, i, w[U(STATUS + i)]), base)


@hot
def eagle_of_values(R, i, vals, base):
    """The Eagle's look-ahead on die i (:func:`eagle_use_value`) from the value of each animal
    a drawn face may show (``vals``, by animal) and the dice's value as they are (``base``)."""
    nf = R[U(R_NFACES + i)]
    d = R[X_EAGLE_DRAWS]
    if d != 2:
        return max_of_draws(R, i, vals, base, d)
    acc = 0.0
    for k1 in range(nf):
        v1 = vals[R[U(R_FACES + MAX_FACES * i + k1)]]
        acc += max(base, v1)
        for k2 in range(k1 + 1, nf):
            v2 = vals[R[U(R_FACES + MAX_FACES * i + k2)]]
            acc += 2.0 * max(base, max(v1, v2))
    return acc / (nf * nf)


@hot
def _face_seen_earlier(R, i, k):
    """Face k of die i shows an animal of an earlier face of that die."""
    f = R[U(R_FACES + MAX_FACES * i + k)]
    for j in range(k):
        if R[U(R_FACES + MAX_FACES * i + j)] == f:
            return True
    return False


@hot
def _consider(v, a, best, action, runner):
    """One use of value ``v`` (action ``a``) in the scan: the new best (the one it displaces, if
    a use, becomes the runner-up), else perhaps the runner-up: (best, action, runner)."""
    if v > best:
        if action >= 0 and best > runner:
            runner = best
        return v, a, runner
    return best, action, (v if v > runner else runner)


@hot
def power_scan(seat, w, R, sp, best):
    """Every legal use of the seat's roll-time power, valued on the tables (one-step
    look-ahead): returns (value, action) of the best use worth more than ``best`` (the first
    die in index order among equals), else (best, -1)."""
    v, action, _ = power_scan_runner(seat, w, R, sp, best)
    return v, action


@hot
def power_scan_runner(seat, w, R, sp, best):
    """:func:`power_scan`, and the value of the best of the other uses (``runner``: -1e300 where
    there is none): each kind of die (and each new animal or face) is one use, so a runner-up
    within a hair of the best says the best is not the only use of its value (a tie, which the
    order of the dice breaks; heron_sim.strategies.expert_powers stores whether it is)."""
    runner = -1e300
    n = w[NDICE]
    r = w[ROLLS_LEFT]
    g = w[U(GUIDE + seat)]
    action = -1
    if g == CERF:
        for i in range(n):
            f = w[U(FACE + i)]
            if f == HERON or _same_as_earlier(w, R, i):
                continue
            for b in range(6):
                if b != f and shown_elsewhere(w, i, b):
                    v = deer_use_value(seat, w, R, sp, r, i, b)
                    best, action, runner = _consider(v, i + POWER_ARG * b, best, action, runner)
    elif g == HERON:
        cost = R[X_PATIENCE_COST]
        if r >= cost:
            for i in range(n):
                if w[U(STATUS + i)] != FREE or _same_as_earlier(w, R, i):
                    continue
                if R[X_PATIENCE_DOUBLING] != 0:  # each face with its own doubling
                    for k in range(R[U(R_NFACES + i)]):
                        if _face_seen_earlier(R, i, k):
                            continue  # the same animal again: the same use (never chosen over the first)
                        v = patience_use_value(seat, w, R, sp, r, i, k)
                        best, action, runner = _consider(v, i + POWER_ARG * k, best, action, runner)
                    continue
                vals = _values_by_animal(seat, w, R, sp, r - cost, i, KEPT)
                for k in range(R[U(R_NFACES + i)]):
                    if _face_seen_earlier(R, i, k):
                        continue  # the same animal again: the same use (never chosen over the first)
                    v = vals[R[U(R_FACES + MAX_FACES * i + k)]]
                    best, action, runner = _consider(v, i + POWER_ARG * k, best, action, runner)
    elif g == LOUP:
        for i in range(n):
            if _same_as_earlier(w, R, i):
                continue
            v = wolf_use_value(seat, w, R, sp, r, i)
            best, action, runner = _consider(v, i, best, action, runner)
    elif g == AIGLE:
        base = state_value(seat, w, R, sp, r)
        for i in range(n):
            if w[U(STATUS + i)] == RESERVED or _same_as_earlier(w, R, i):
                continue
            v = eagle_use_value(seat, w, R, sp, r, i, base)
            best, action, runner = _consider(v, i, best, action, runner)
    return best, action, runner


@hot
def use_value(seat, w, R, sp, action):
    """Look-ahead value of one power use (a D_POWER action of the seat's guide)."""
    r = w[ROLLS_LEFT]
    g = w[U(GUIDE + seat)]
    i = action % POWER_ARG
    arg = action // POWER_ARG
    if g == CERF:
        return deer_use_value(seat, w, R, sp, r, i, arg)
    if g == HERON:
        return patience_use_value(seat, w, R, sp, r, i, arg)
    if g == LOUP:
        return wolf_use_value(seat, w, R, sp, r, i)
    return eagle_use_value(seat, w, R, sp, r, i, state_value(seat, w, R, sp, r))


#: How far the best use's value must lie above every other use's for the stored use to be the
#: scan's on any order of the dice (the look-ahead of a Wolf or an Eagle sums the same values in an
#: order that may differ in the last bit): then the counted dice can play it (expert_turn).
UNIQUE_GAP = 1e-9
