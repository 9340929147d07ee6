"""``expert``: the exactly optimal single-turn player (tables from heron_sim.strategies.expert_dp).

Keep/stop: looks up the current dice in the tables (held in the parameter row of the seat, or of
the seat ``ROW_TSEAT`` names: one copy is shared by every table seat), by a perfect index (the
rank of the canonical state, computed from counting tables stored in the row), and plays the action of the dynamic programme, which maximises the turn's expected advance
(Guide Power doubling, the Bull's +2 and the Lion's rescue included). With identical D8 dice
this is exact; with the 10 D6 it is optimal for a symmetrised die (docs/strategies.md).

Roll-time powers (Wolf, Eagle, Deer, Heron's Patience), a documented heuristic: at each
decision point it evaluates every legal use with the same tables (one-step look-ahead: the
optimal value of the dice after the power, in expectation over the Wolf's and Eagle's draws)
and uses the power when it gains at least ``POWER_MARGIN`` squares of expected advance, the
value it gives to keeping the power for a later turn.

Other choices: Lion rescue when the rescued dice score more than consolation_anxiety (0); Bull
always; Snake when the move back plus snake_advance is >= 3 (a move back >= 2 with the rulings'
advance of 1); never swaps guides (regenerates on an 8+ set); 🔄 +1 for itself; Aigle square swaps with
the furthest opponent ahead; Cerf square regenerates an exhausted guide.
"""

from __future__ import annotations

import numpy as np

from ..engine.jit import U, hot
from ..engine.rulebook import (
    consolation_anxiety,
)
from ..engine.layout import (
    AIGLE, CERF, COUNTS, D_EAGLE_PICK, D_KEEP, D_SNAKE, NOMINAL, D_LION, D_POWER, EAGLE_DIE, EAGLE_FACES, FACE, FREE,
    FRESH, GUIDE, HERON, KEEP, LOUP, MAX_FACES, MEMO, NDICE, POWER_ARG,
    KEPT, R_FACES, R_NFACES, RESERVED, ROLL, ROLLS_LEFT, STATUS, X_EAGLE_DRAWS, X_PATIENCE_COST,
)
from ..rules.rules import P_SNAKE_ADVANCE
from .expert_dp import (
    ACTION_BITS, E_DEER, E_EAGLE, E_PATIENCE, E_WOLF, POWER_MARGIN, ROW_POWERS,
)
from .common import shown_elsewhere
from .greedy import greedy_decide, greedy_keep

from .expert_scan import power_scan_counted, use_value_counted
from .expert_values import (  # noqa: F401 - also read from here by the players and the luck measure
    anxiety_value, _column, _consider, counted_advance, deer_use_value, eagle_of_values,
    eagle_use_value, _face_seen_earlier, final_advance, final_value, has_tables, lookup, max_of_draws,
    patience_use_value, power_scan, power_scan_runner, _rank, _rank_step, _same_as_earlier,
    slot0_animal, state_value, table_of, table_seat, UNIQUE_GAP, use_value, _value_with_face,
    _values_by_animal, wolf_of_values, wolf_use_value,
)

KEEP_GREEDY, KEEP_STOP = -1, -2  # keep_column: the tables do not decide

NAME = "expert"
DESCRIPTION = "Optimal single turn: maximises the turn's expected advance (exact DP tables)."
SID = 3  # the kernel's id of this strategy (unique; heron_sim.strategies.dispatch)
DECIDE = "expert_decide"  # its decision function, called by the generated dispatcher
ORDER = 2  # where it is listed (help, "all", "ai")
TABLES = True
FUSED_TURN = "expert_turn.expert_roll_phase"  # its turn from the tables (heron_sim.loop.turn)
FUSED_SCORE = "greedy_turn.greedy_score"  # it scores as greedy does (no swap, regenerate, Bull)


@hot
def memo_stamp(seat, w):
    """Names a decision point of a seat (1 + seat + 8 * (roll + 64 * rolls left))."""
    return 1 + seat + 8 * (w[ROLL] + 64 * w[ROLLS_LEFT])


@hot
def keep_column(seat, w, R, sp):
    """The table column of the dice for a D_KEEP decision: the one this decision point's
    D_POWER found (when it answered "no power" from the tables, nothing has changed since),
    else a fresh look-up; clears that note either way. Negative when the tables do not decide:
    KEEP_GREEDY (no tables, or dice they do not hold), KEEP_STOP (no roll left; w[KEEP]
    cleared)."""
    if not has_tables(seat, sp):
        return KEEP_GREEDY
    r = w[ROLLS_LEFT]
    stamp = w[MEMO]
    w[MEMO] = 0
    if r <= 0:
        for i in range(w[NDICE]):
            w[U(KEEP + i)] = 0
        return KEEP_STOP
    if stamp == memo_stamp(seat, w):
        return w[U(MEMO + 1)]
    col = lookup(seat, w, R, sp, r)
    return col if col >= 0 else KEEP_GREEDY


@hot
def apply_keep_action(seat, w, sp, action):
    """Write w[KEEP] from a table action (slot counts; slots from :func:`lookup`'s scratch)."""
    n = w[NDICE]
    if action < 0:
        for i in range(n):
            w[U(KEEP + i)] = 0
        return 0
    for a in range(6):
        w[U(COUNTS + a)] = (action >> (ACTION_BITS * w[U(KEEP + 6 + a)])) & 15
    w[U(COUNTS + HERON)] = 0
    for i in range(n):  # without data-dependent branches
        f = w[U(FACE + i)]
        take = int(w[U(STATUS + i)] == FREE) & int(w[U(COUNTS + f)] > 0)
        w[U(KEEP + i)] = take
        w[U(COUNTS + f)] -= take
    return 1


@hot
def expert_keep(seat, w, R, sp):
    col = keep_column(seat, w, R, sp)
    if col == KEEP_STOP:
        return 0
    if col < 0:
        return greedy_keep(seat, w)
    return apply_keep_action(seat, w, sp, int(sp[U(table_seat(seat, sp)), U(col)]))


#: stored_code's ``near``: the kinds of dice (NEAR_KINDS bits: slot 0 kept, slot 0 free, ... slot 5
#: free, then the heron old, then fresh) and the argument slots (7 bits above them: the Deer's
#: animal, Patience's face) of the uses within UNIQUE_GAP of the best one: every such use is of
#: one of these kinds with one of these arguments (the product may hold more uses).
NEAR_KINDS = 14


@hot
def near_kind(cls):
    """The kind of die (0 .. NEAR_KINDS - 1) of a use's class (expert_powers._canonical % 64)."""
    slot = cls // 6
    if slot == 6:
        return 12 + cls % 2
    return 2 * slot + (1 if (cls // 2) % 3 == FREE else 0)


@hot
def kind_class(k):
    """The class (a use's code with argument slot 0) of the kind of die ``k`` (:func:`near_kind`)."""
    if k >= 12:
        return (6 * 3 + RESERVED) * 2 + (k - 12)
    free = k % 2
    return ((k // 2) * 3 + (FREE if free else KEPT)) * 2 + free


@hot
def stored_code(kind, used, unique, near=0):
    """The float stored for a state's roll-time power decision (expert_powers): the use's code
    ``kind`` (expert_powers._canonical, -1: no legal use) when it is ``used`` (worth the margin),
    else -1; its fraction says, without changing what ``int()`` reads, which use is the best
    (``kind``, also where it is not worth the margin: -1 - (kind + 1) / 4096) and whether it is the
    only use of its value (+0.5 for a use, -0.5 more for "no use"); where it is not, ``near``
    (:func:`near_pack`: the other uses within UNIQUE_GAP of it) in its last bits (2**-43 a unit
    for a use, 2**-52 for "no use": every sum exact, under the bits above)."""
    if used and kind >= 0:
        return kind + (0.5 if unique else 0.0) + near * 2.0 ** -43
    return -1.0 - (kind + 1) / 4096.0 - (0.5 if unique and kind >= 0 else 0.0) - near * 2.0 ** -52


@hot
def stored_use(code):
    """The best use's kind (-1: none or not stored) and whether it is the only use of its value,
    from a stored float (:func:`stored_code`); -2 ("not stored") gives (-1, False)."""
    if code >= 0.0:
        kind = int(code)
        return kind, code - kind > 0.25
    if code <= -2.0:
        return -1, False
    f = -1.0 - code
    unique = f >= 0.5
    if unique:
        f -= 0.5
    return int(f * 4096.0) - 1, unique


@hot
def stored_near(code):
    """The ``near`` of a stored float (:func:`stored_code`; 0 where none was stored)."""
    if code >= 0.0:
        f = code - int(code)
        if f > 0.25:
            f -= 0.5
        return np.int64(f * 2.0 ** 43)
    if code <= -2.0:
        return np.int64(0)
    f = -1.0 - code
    if f >= 0.5:
        f -= 0.5
    t = f * 4096.0
    return np.int64((t - int(t)) * 2.0 ** 40)


@hot
def near_pack(codes, n):
    """``near`` (:data:`NEAR_KINDS`) of the uses ``codes[:n]`` (canonical codes)."""
    near = np.int64(0)
    for j in range(n):
        c = codes[j]
        if c >= 0:
            near |= (np.int64(1) << near_kind(c % 64)) | (np.int64(1) << (NEAR_KINDS + c // 64))
    return near


@hot
def power_column(g):
    """Column (after a state's entry) of guide g's stored power decision."""
    if g == LOUP:
        return E_WOLF
    if g == AIGLE:
        return E_EAGLE
    if g == CERF:
        return E_DEER
    return E_PATIENCE


@hot
def slot_animal(seat, w, slot):
    """The animal in slot ``slot`` of the dice :func:`lookup` has just ranked (6: the heron)."""
    if slot == 6:
        return HERON
    for a in range(6):
        if w[U(KEEP + 6 + a)] == slot:
            return a
    return -1


@hot
def _first_of_kind(w, a, st, fr):
    """The first die (in die order) showing ``a`` with status ``st`` and freshness ``fr``, -1 if none."""
    for i in range(w[NDICE]):
        if w[U(FACE + i)] == a and w[U(STATUS + i)] == st and w[U(FRESH + i)] == fr:
            return i
    return -1


@hot
def decode_power(seat, w, R, sp, code):
    """The D_POWER action of a stored canonical use (see expert_powers), on the dice showing
    (slots from the :func:`lookup` just made); -1 if no die fits (the caller scans)."""
    cls = code % 64
    arg = code // 64
    fr = cls % 2
    st = (cls // 2) % 3
    animal = slot_animal(seat, w, cls // 6)
    if animal < 0:
        return -1
    die = _first_of_kind(w, animal, st, fr)
    if die < 0 and animal == HERON:  # reserved herons that differ only by freshness
        for i in range(w[NDICE]):
            if w[U(FACE + i)] == HERON and w[U(STATUS + i)] == RESERVED:
                die = i
                break
    if die < 0:
        return -1
    g = w[U(GUIDE + seat)]
    if g == CERF:
        b = slot_animal(seat, w, arg)
        return -1 if b < 0 else die + POWER_ARG * b
    if g == HERON:
        f = slot_animal(seat, w, arg)
        for k in range(R[U(R_NFACES + die)]):
            if R[U(R_FACES + MAX_FACES * die + k)] == f:
                return die + POWER_ARG * k
        return -1
    return die


@hot
def near_scan(seat, w, R, sp, code):
    """:func:`power_scan`'s answer (value, action) on the dice laid out, from the uses the stored
    decision ``code`` (the float of the state's entry, after a :func:`lookup` of these dice) names
    near its best one (:func:`stored_near`: every other use is worth UNIQUE_GAP less on any order of
    the dice): only the legal uses of those kinds of dice with those arguments are valued, each on
    the first die of its kind as the scan values it (expert_scan.use_value_counted: the same floats),
    and the first in the scan's order (die, then argument) of the highest value is the scan's.
    (nan, -2) where it cannot answer so (nothing stored, a Wolf's dice with more than one fresh
    heron: the tables valued one at most, and only the Wolf's reroll of a heron is worth another
    value with more); the caller then scans."""
    kind, unique = stored_use(code)
    near = stored_near(code)
    if kind < 0 or (not unique and near == 0):
        return np.nan, -2
    if unique:
        near = (np.int64(1) << near_kind(kind % 64)) | (np.int64(1) << (NEAR_KINDS + kind // 64))
    g = w[U(GUIDE + seat)]
    fresh = 0
    for i in range(w[NDICE]):
        fresh += w[U(FACE + i)] == HERON and w[U(FRESH + i)] != 0
    if fresh > 1 and g == LOUP:
        return np.nan, -2
    args = g == CERF or g == HERON
    best = -1e300
    action = -1
    bi = 0
    barg = 0
    for k in range(NEAR_KINDS):
        if (near >> k) & 1 == 0:
            continue
        cls = kind_class(k)
        st = (cls // 2) % 3
        a = slot_animal(seat, w, cls // 6)
        i = _first_of_kind(w, a, st, cls % 2) if a >= 0 else -1
        if i < 0 or (g == AIGLE and st == RESERVED):
            continue
        for s in range(7 if args else 1):
            if args and (near >> (NEAR_KINDS + s)) & 1 == 0:
                continue
            arg = 0
            if g == CERF:  # expert_scan: another animal, shown by another die
                arg = slot_animal(seat, w, s)
                if a == HERON or arg < 0 or arg == HERON or arg == a or not shown_elsewhere(w, i, arg):
                    continue
            elif g == HERON:  # expert_scan: a free die, rolls enough, the face's first index
                f = slot_animal(seat, w, s)
                arg = -1
                for q in range(R[U(R_NFACES + i)]):
                    if arg < 0 and R[U(R_FACES + MAX_FACES * i + q)] == f:
                        arg = q
                if st != FREE or arg < 0 or w[ROLLS_LEFT] < R[X_PATIENCE_COST]:
                    continue
            v = use_value_counted(seat, w, R, sp, i + POWER_ARG * arg)
            if v > best or (v == best and (i < bi or (i == bi and arg < barg))):
                best = v
                action = i + POWER_ARG * arg
                bi = i
                barg = arg
    return best, action


@hot
def best_power(seat, w, R, sp, margin):
    """The roll-time power use that gains the most expected advance, if it gains more than
    ``margin``: a D_POWER action, else -1.

    With identical dice the tables hold, for each state and power, the decision of
    :func:`power_scan` at ``POWER_MARGIN`` (computed by the scan itself when the tables were
    built, heron_sim.strategies.expert_powers): "none", or the use in canonical form (which kind
    of die, which animal), decoded here on the dice showing. Among uses of exactly equal value
    the stored one may differ from the scan's (its first die in index order)."""
    w[MEMO] = 0
    if not has_tables(seat, sp):
        return -1
    ts = table_seat(seat, sp)
    r = w[ROLLS_LEFT]
    if sp[U(ts), ROW_POWERS] != 0 and margin == POWER_MARGIN:
        col = lookup(seat, w, R, sp, r)
        if col >= 0:
            code = int(sp[U(ts), U(col + power_column(w[U(GUIDE + seat)]))])
            if code == -1:
                # the D_KEEP that follows finds the same dice: note their column
                w[MEMO] = memo_stamp(seat, w)
                w[U(MEMO + 1)] = col
                return -1
            if code >= 0:
                action = decode_power(seat, w, R, sp, code)
                if action >= 0:
                    return action
    base = state_value(seat, w, R, sp, r)
    return power_scan_counted(seat, w, R, sp, base + margin)[1]  # power_scan's answer, faster


@hot
def eagle_pick(seat, w, R, sp):
    """The Eagle's face: the one (original, first or second draw) of highest value."""
    die = w[EAGLE_DIE]
    r = w[ROLLS_LEFT]
    st = w[U(STATUS + die)]
    best = state_value(seat, w, R, sp, r)
    pick = 0
    for k in range(R[X_EAGLE_DRAWS]):
        f = w[U(EAGLE_FACES + k)]
        v = _value_with_face(seat, w, R, sp, r, die, f, RESERVED if f == HERON else st)
        if v > best + 1e-12:
            best = v
            pick = k + 1
    return pick


@hot
def lion_worth_it(seat, w, R):
    """Rescue only when the rescued dice score, more than the Anxiety's consolation (otherwise
    keep the Lion for later)."""
    return 1 if final_advance(seat, w, R) > consolation_anxiety(R) else 0


@hot
def expert_decide(kind, seat, w, R, rng, sp):
    if kind == D_KEEP:
        return expert_keep(seat, w, R, sp)
    if kind == D_POWER:
        return best_power(seat, w, R, sp, POWER_MARGIN)
    if kind == D_EAGLE_PICK:
        return eagle_pick(seat, w, R, sp)
    if kind == D_LION:
        return lion_worth_it(seat, w, R)
    if kind == D_SNAKE:
        # cancel when the swing (the move back avoided + the Serpent's advance) is 3 or more:
        # greedy's "a move back of 2 or more" with the rulings' advance of 1
        return 1 if w[NOMINAL] + R[P_SNAKE_ADVANCE] >= 3 else 0
    # Bull and the squares: as greedy (Bull always, the Aigle square against the furthest
    # ahead, the Cerf square regenerates; no guide swap).
    return greedy_decide(kind, seat, w)
