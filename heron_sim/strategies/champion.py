"""``champion``: the player that plays to win the game, not the turn (issue 57 item 2).

At every keep/stop decision the champion compares its **chance of winning the game** after each
option, from the worth of positions (heron_sim.analysis.worth: each seat's law of the number of
its own turns still needed to reach the finish, measured on self-play games of the same rules and
players):

- stopping now: the chance of winning from where the pawn lands with the dice showing;
- rerolling with the expert's best keep: the same chance averaged over the law of the turn's
  final advance under the expert's programme from there (heron_sim.strategies.expert_luck
  ._roll_laws, exact: the dice's law and every later decision of the programme).

With the seats to play before its next turn at their squares, Guides and powers, the chance of
winning from square ``q`` is ``sum_t h_q(t) * prod_j S_j(t)`` (``h_q``: the law of the seat's turns
to finish from ``q``; ``S_j(t)``: the chance that seat ``j`` needs more than ``t`` turns). So the
risk it takes follows the race as the games play it: behind, a reroll's upside is worth more than
its Angoisse; ahead, less; near the finish, only the chance to arrive counts. The chains of its
own turns are those of the player it improves on (``racer``: the worth is built with the
champion's seats played by the racer, one step of policy improvement); where a landing square has
an effect, the pawn is moved by the racer's rough worth of that square before its chance is read
(the square's own worth in chances is left for issue 57 item 3). Every other decision (keeps,
powers, the Lion, the squares' choices) is the expert's; its turn is the expert's fused turn with
this stop rule (heron_sim.strategies.expert_turn).

The tables (built per rules, players and seating, heron_sim.champion_tables) sit in the seat's own
parameter row after the expert's tables, at the offset in column 0 (``CH_*`` below).
"""

from __future__ import annotations

import numpy as np

from ..engine.jit import U, hot
from ..engine.layout import (
    D_KEEP, FACE, FREE, FRESH, GUIDE, HERON, KEEP, KEPT, NDICE, PLAYERS, PMEMO, PMEMO_LEN, POS, PROT, READY, R_BOARD,
    STATUS,
)
from ..engine.rulebook import consolation_no_set
from ..rules.board import NEUTRAL
from ..rules.rules import P_EXACT, P_FINISH
from ..engine.dice import count_animals
from .expert import KEEP_STOP, apply_keep_action, counted_advance, expert_decide, keep_column, table_seat
from .common import param_column
from .expert_dp import ACTION_BITS, ENTRY
from .greedy import greedy_keep
from .racer import race_action, square_worth

#: The column of its row that says where its block starts (heron_sim.strategies.SEAT_BLOCK_COLUMN:
#: the last parameter column; ``steps`` is the first).
SEAT_BLOCK_COLUMN = 3

NAME = "champion"
DESCRIPTION = "Plays to win the game: each keep/stop by its chance of winning, from the worth of positions."
#: steps of improvement (1 on the racer's chains, k on those of the (k - 1)-step champion); keeps: 1
#: chooses among every legal keep of the dice by its chance of winning, 0 rerolls with the expert's
#: keep (the best for the turn's expected advance; the first version, faster)
PARAMS = {"steps": 1, "keeps": 1}
BOUNDS = {"steps": (1, 3), "keeps": (0, 1)}
SID = 7  # the kernel's id of this strategy (unique; heron_sim.strategies.dispatch)
DECIDE = "champion_decide"  # its decision function, called by the generated dispatcher
ORDER = 3  # where it is listed (help, "all", "ai")
TABLES = True
SEAT_BLOCK = True  # its row carries a block of its own after the tables (heron_sim.champion_tables)
IN_SETS = False  # seated by name: its tables need the worth of positions (a build of seconds)
FUSED_TURN = "expert_turn.expert_roll_phase"  # the expert's fused turn, its own stop rule
FUSED_SCORE = "greedy_turn.greedy_score"  # it scores as greedy does (no swap, regenerate, Bull)
WORKSPACE_WORDS = "champion.scratch_words"  # its scratch at the end of the workspace (the last declared)

#: The block's head (offsets from the block's start, in column 0 of the seat's row): the laws'
#: width, the chains' horizon, where the column pointers, the laws and the chains start (absolute
#: columns of the row), the states of one strategy's chains, the finish, where each chain's span
#: starts (2 floats a chain: the first turn and the one after the last it may finish at), each
#: seat's chains.
CH_AMAX, CH_T, CH_PTR, CH_LAW, CH_HIT, CH_STATES, CH_FINISH, CH_SPAN = range(8)
CH_KIND = 8  # 7 floats: the strategy (chains) of each seat
#: where the index of the kept vectors starts (absolute column: :func:`_pre_state`), the kept
#: vectors a table holds (npre) and the herons' states (anx) of the laws [table, rolls left,
#: kept vector, herons, advance]
CH_PRE, CH_NPRE, CH_ANX = 15, 16, 17
#: where each law's span starts (absolute column: 2 floats a law, the first advance of mass and
#: the one after the last: a law holds about 4 advances of its 40 to 64)
CH_LSPAN = 18
#: where the chains' survival starts (absolute column, one float a chain and turn:
#: ``max(0, 1 - (the chain summed up to that turn))``, summed in turn order as
#: :func:`_others_behind` once summed it, so that it reads the same numbers)
CH_SURV = 19
#: where the laws' compact index starts (absolute column, one float a law: the column of its
#: span's first advance ``lo``, then ``hi``, then its chances at lo .. hi - 1): a law is read from
#: one or two cache lines of a small array rather than from a row of A_MAX floats of a large one
CH_CLAW = 20
CH_HEAD = 22
#: The longest chains a block may hold (heron_sim.champion_tables.HORIZON) and the widest law.
T_MAX = 128
A_MAX = 64
#: The champion's scratch at the end of the workspace (the last words declared,
#: heron_sim.strategies.dispatch): the state its figures are for (the seat, then each seat's
#: square, power, Guide and protection), the horizon used, G[t] of :func:`_others_behind` and the chance of
#: winning from each advance of the turn (-1 not yet computed), in units of 2**-G_BITS.
S_STATE = 0
S_T = S_STATE + 1 + 4 * 7
S_G = S_T + 1
S_U = S_G + T_MAX
#: the dice of the decision by slot of the tables (:func:`note_dice`, :func:`note_counts`): the
#: free dice (6), the kept (6), the keep tried (6), a sorting scratch (5), 1 if a fresh heron is held
S_FREE = S_U + A_MAX
S_KEPT = S_FREE + 6
S_TRY = S_KEPT + 6
S_SORT = S_TRY + 6
S_FL = S_SORT + 5
#: the kept vectors already valued at this decision (the stamp of the decision that valued each:
#: keeps of animals the tables treat alike share one law, valued once), and the last stamp
S_STAMP = S_FL + 1
#: for each slot of 1..5, the next slot above it alike (as many kept and free dice), -1 if none:
#: :func:`best_keep` tries only the keeps whose alike slots hold non-increasing counts
S_NXT = S_STAMP + 1
S_SEEN = S_NXT + 6
PRE_MAX = 2048  # the most kept vectors of a table (1,705 for 16 dice, the most a rules file may hold)
S_WORDS = S_SEEN + PRE_MAX
G_BITS = 52
ONE = 1 << G_BITS
KEEPS = param_column(PARAMS, "keeps")  # its column of the seat's row


@hot
def scratch_words(R, players):
    """The champion's scratch words at the end of the workspace (w[PMEMO] + w[PMEMO_LEN] - these)."""
    return S_WORDS


@hot
def _same_state(seat, w, at):
    """Whether the scratch's figures are for this seat and this state of the seats (squares,
    powers, Guides, protections: all the chances read; within a roll phase they do not change
    unless a power is used); else notes the state and forgets the chances. The figures are a
    function of that state alone: remembered or computed, the same numbers."""
    same = w[U(at + S_STATE)] == seat + 1
    k = at + S_STATE + 1
    for j in range(w[PLAYERS]):
        r = 1 if w[U(READY + j)] != 0 else 0
        if (w[U(k)] != w[U(POS + j)] or w[U(k + 1)] != r or w[U(k + 2)] != w[U(GUIDE + j)]
                or w[U(k + 3)] != w[U(PROT + j)]):
            same = False
            w[U(k)] = w[U(POS + j)]
            w[U(k + 1)] = r
            w[U(k + 2)] = w[U(GUIDE + j)]
            w[U(k + 3)] = w[U(PROT + j)]
        k += 4
    if not same:
        w[U(at + S_STATE)] = seat + 1
        for a in range(A_MAX):
            w[U(at + S_U + a)] = -1
    return same


@hot
def _others_behind(seat, w, sp, base, T, at):
    """w[at + S_G + t] = G[t] * 2**G_BITS, t < T: the chance that no other seat has finished when
    the seat plays the t-th of its turns from its next one, the product over the others j of P(seat
    j needs more than t of its own turns) (the chains' survival, CH_SURV), up to the first
    turn by which some other seat has finished for sure (its chain's span ends: its tail below
    heron_sim.champion_tables.TAIL was dropped), noted in w[at + S_T]: past it G is 0."""
    F = int(sp[U(seat), U(base + CH_FINISH)])
    hit = int(sp[U(seat), U(base + CH_HIT)])
    nst = int(sp[U(seat), U(base + CH_STATES)])
    spans = int(sp[U(seat), U(base + CH_SPAN)])
    g = at + S_G
    end = T
    for j in range(w[PLAYERS]):
        if j != seat:
            kind = int(sp[U(seat), U(base + CH_KIND + j)])
            state = (w[U(GUIDE + j)] * 2 + (1 if w[U(READY + j)] != 0 else 0)) * F + min(w[U(POS + j)], F - 1)
            end = min(end, max(1, int(sp[U(seat), U(spans + 2 * (kind * nst + state) + 1)])))
    for t in range(end):
        w[U(g + t)] = ONE
    surv = int(sp[U(seat), U(base + CH_SURV)])
    for j in range(w[PLAYERS]):
        if j == seat:
            continue
        kind = int(sp[U(seat), U(base + CH_KIND + j)])
        chain = kind * nst + (w[U(GUIDE + j)] * 2 + (1 if w[U(READY + j)] != 0 else 0)) * F + min(w[U(POS + j)], F - 1)
        off = surv + chain * T
        for t in range(int(sp[U(seat), U(spans + 2 * chain)]), end):  # before its span the chain is 0
            w[U(g + t)] = np.int64(w[U(g + t)] * sp[U(seat), U(off + t)])
    w[U(at + S_T)] = end


@hot
def _chain_of(seat, w, R, sp, base, q, squares):
    """The chain of the seat's turns to finish once its turn ends on square ``q`` (the special
    square's effect, by the racer's rough worth of it, where ``squares``); -1 where it finishes
    (its chance of winning is 1)."""
    F = R[P_FINISH]
    if q >= F:
        if R[P_EXACT] == 0 or q == F:
            return -1
        q = F - (q - F)
    if squares and R[U(R_BOARD + q)] != NEUTRAL:
        q = q + int(round(square_worth(seat, w, R, q)))
        if q >= F:
            return -1
        q = max(q, 0)
    nst = int(sp[U(seat), U(base + CH_STATES)])
    kind = int(sp[U(seat), U(base + CH_KIND + seat)])
    state = (w[U(GUIDE + seat)] * 2 + (1 if w[U(READY + seat)] != 0 else 0)) * F + q
    return kind * nst + state


@hot
def _dot(seat, w, sp, base, T, at, chain):
    """sum_t h(t) * G[t] over the chain's span (up to w[at + S_T]) on four partial sums, lane
    ``(t - first) % 4`` for the whole blocks of four, lane 0 for the rest: a single sum waits for
    each addition before the next (the sum is the champion's hottest loop); the same order
    whatever the threads, so the same games."""
    if chain < 0:
        return 1.0
    off = int(sp[U(seat), U(base + CH_HIT)]) + chain * T
    span = int(sp[U(seat), U(base + CH_SPAN)]) + 2 * chain
    g = at + S_G
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    t = max(1, int(sp[U(seat), U(span)]))
    end = min(int(sp[U(seat), U(span + 1)]), w[U(at + S_T)])
    while t + 4 <= end:
        s0 += sp[U(seat), U(off + t)] * w[U(g + t)]
        s1 += sp[U(seat), U(off + t + 1)] * w[U(g + t + 1)]
        s2 += sp[U(seat), U(off + t + 2)] * w[U(g + t + 2)]
        s3 += sp[U(seat), U(off + t + 3)] * w[U(g + t + 3)]
        t += 4
    while t < end:
        s0 += sp[U(seat), U(off + t)] * w[U(g + t)]
        t += 1
    return ((s0 + s1) + (s2 + s3)) / ONE


@hot
def _dot2(seat, w, sp, base, T, at, ca, cb, a, b):
    """:func:`_dot` of the chains ``ca`` and ``cb`` (both >= 0) in one loop, each lane summed in
    the same order as :func:`_dot` sums it (eight independent sums: twice the additions in
    flight), stored at advances ``a`` and ``b`` of the scratch as :func:`_chance_after` stores."""
    hit = int(sp[U(seat), U(base + CH_HIT)])
    spans = int(sp[U(seat), U(base + CH_SPAN)])
    g = at + S_G
    cap = w[U(at + S_T)]
    oa = hit + ca * T
    ob = hit + cb * T
    ta = max(1, int(sp[U(seat), U(spans + 2 * ca)]))
    tb = max(1, int(sp[U(seat), U(spans + 2 * cb)]))
    ea = min(int(sp[U(seat), U(spans + 2 * ca + 1)]), cap)
    eb = min(int(sp[U(seat), U(spans + 2 * cb + 1)]), cap)
    na = (ea - ta) // 4 if ea - ta >= 4 else 0
    nb = (eb - tb) // 4 if eb - tb >= 4 else 0
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    b0 = 0.0
    b1 = 0.0
    b2 = 0.0
    b3 = 0.0
    for _k in range(min(na, nb)):
        a0 += sp[U(seat), U(oa + ta)] * w[U(g + ta)]
        b0 += sp[U(seat), U(ob + tb)] * w[U(g + tb)]
        a1 += sp[U(seat), U(oa + ta + 1)] * w[U(g + ta + 1)]
        b1 += sp[U(seat), U(ob + tb + 1)] * w[U(g + tb + 1)]
        a2 += sp[U(seat), U(oa + ta + 2)] * w[U(g + ta + 2)]
        b2 += sp[U(seat), U(ob + tb + 2)] * w[U(g + tb + 2)]
        a3 += sp[U(seat), U(oa + ta + 3)] * w[U(g + ta + 3)]
        b3 += sp[U(seat), U(ob + tb + 3)] * w[U(g + tb + 3)]
        ta += 4
        tb += 4
    while ta + 4 <= ea:
        a0 += sp[U(seat), U(oa + ta)] * w[U(g + ta)]
        a1 += sp[U(seat), U(oa + ta + 1)] * w[U(g + ta + 1)]
        a2 += sp[U(seat), U(oa + ta + 2)] * w[U(g + ta + 2)]
        a3 += sp[U(seat), U(oa + ta + 3)] * w[U(g + ta + 3)]
        ta += 4
    while ta < ea:
        a0 += sp[U(seat), U(oa + ta)] * w[U(g + ta)]
        ta += 1
    while tb + 4 <= eb:
        b0 += sp[U(seat), U(ob + tb)] * w[U(g + tb)]
        b1 += sp[U(seat), U(ob + tb + 1)] * w[U(g + tb + 1)]
        b2 += sp[U(seat), U(ob + tb + 2)] * w[U(g + tb + 2)]
        b3 += sp[U(seat), U(ob + tb + 3)] * w[U(g + tb + 3)]
        tb += 4
    while tb < eb:
        b0 += sp[U(seat), U(ob + tb)] * w[U(g + tb)]
        tb += 1
    w[U(at + S_U + a)] = np.int64((((a0 + a1) + (a2 + a3)) / ONE) * ONE)
    w[U(at + S_U + b)] = np.int64((((b0 + b1) + (b2 + b3)) / ONE) * ONE)


@hot
def _chance_from(seat, w, R, sp, base, T, at, q, squares):
    """The seat's chance of winning once its turn ends on square ``q`` (the special square's
    effect, by the racer's rough worth of it, where ``squares``), the others to play first."""
    return _dot(seat, w, sp, base, T, at, _chain_of(seat, w, R, sp, base, q, squares))


@hot
def _chance_after(seat, w, R, sp, base, T, at, pos, a):
    """:func:`_chance_from` for the turn's advance ``a`` (a > 0 lands on a square), remembered in
    the scratch for the rest of the roll phase."""
    if a < A_MAX:
        got = w[U(at + S_U + a)]
        if got >= 0:
            return got / ONE
    v = _chance_from(seat, w, R, sp, base, T, at, pos + a, a > 0)
    if a < A_MAX:
        w[U(at + S_U + a)] = np.int64(v * ONE)
        return w[U(at + S_U + a)] / ONE  # the same number whether it was remembered or not
    return v


@hot
def _law_value(seat, w, R, sp, base, T, at, pos, c):
    """The chance of winning averaged over the law whose compact record starts at column ``c`` of
    the seat's row (CH_CLAW): the advances not yet remembered are first summed two at a time
    (:func:`_dot2`), then the law is summed in the order of its advances."""
    lo = int(sp[U(seat), U(c)])
    hi = int(sp[U(seat), U(c + 1)])
    col = c + 2 - lo  # the chance of advance a at column col + a
    pa = -1
    ca = -1
    for a in range(lo, hi):
        if a < A_MAX and sp[U(seat), U(col + a)] > 0.0 and w[U(at + S_U + a)] < 0:
            ch = _chain_of(seat, w, R, sp, base, pos + a, a > 0)
            if ch < 0:
                w[U(at + S_U + a)] = ONE  # np.int64(1.0 * ONE): it finishes
            elif pa < 0:
                pa = a
                ca = ch
            else:
                _dot2(seat, w, sp, base, T, at, ca, ch, pa, a)
                pa = -1
    if pa >= 0:
        w[U(at + S_U + pa)] = np.int64(_dot(seat, w, sp, base, T, at, ca) * ONE)
    go = 0.0
    for a in range(lo, hi):
        p = sp[U(seat), U(col + a)]
        if p > 0.0:
            go += p * _chance_after(seat, w, R, sp, base, T, at, pos, a)
    return go


@hot
def law_chance(seat, w, R, sp, base, T, at, pos, law, amax):
    """The chance of winning averaged over the law of the turn's final advance at column ``law``
    of the seat's row (over its span: the advances outside have no mass), read from its compact
    record (CH_CLAW)."""
    li = (law - int(sp[U(seat), U(base + CH_LAW)])) // amax
    return _law_value(seat, w, R, sp, base, T, at, pos, int(sp[U(seat), U(int(sp[U(seat), U(base + CH_CLAW)]) + li)]))


@hot
def note_dice(w, at):
    """The decision's dice by slot of the tables into the scratch (the generic path: the dice laid
    out, w[KEEP + 6 + a] the slot of animal a as the look-up left it): free and kept, herons apart,
    and whether a fresh heron is held (then keeping no die is a legal reroll)."""
    for j in range(6):
        w[U(at + S_FREE + j)] = 0
        w[U(at + S_KEPT + j)] = 0
    fl = 0
    for i in range(w[NDICE]):
        f = w[U(FACE + i)]
        st = w[U(STATUS + i)]
        if f == HERON:
            if w[U(FRESH + i)] != 0:
                fl = 1
        elif st == KEPT:
            w[U(at + S_KEPT + w[U(KEEP + 6 + f)])] += 1
        elif st == FREE:
            w[U(at + S_FREE + w[U(KEEP + 6 + f)])] += 1
    w[U(at + S_FL)] = fl


@hot
def note_counts(w, held, free, fresh, slots):
    """:func:`note_dice` from the fused turn's counts (heron_sim.strategies.expert_turn): the held
    and the free dice by animal, packed 8 bits a lane, ``fresh`` 1 when a fresh heron is held,
    ``slots`` the 4-bit slot of each animal. Does nothing where the workspace has no scratch."""
    if w[PMEMO_LEN] < S_WORDS:
        return
    at = w[PMEMO] + w[PMEMO_LEN] - S_WORDS
    for j in range(6):
        w[U(at + S_FREE + j)] = 0
        w[U(at + S_KEPT + j)] = 0
    for a in range(6):
        slot = (slots >> (4 * a)) & 15
        w[U(at + S_FREE + slot)] += np.int64((free >> np.uint64(8 * a)) & np.uint64(255))
        w[U(at + S_KEPT + slot)] += np.int64((held >> np.uint64(8 * a)) & np.uint64(255))
    w[U(at + S_FL)] = fresh


@hot
def _pre_state(seat, w, sp, pre, at, n):
    """The index of the kept vector ``kept + tried`` of the scratch among the tables' kept
    vectors (expert_dp._pre_states; -1 if none): slot 0, then slots 1..5 in non-increasing
    order, ranked in mixed radix (the j-th largest of ``n`` dice is at most n // (j + 1)) in the
    index that starts at column ``pre`` of the seat's row."""
    for j in range(5):  # insertion sort, non-increasing, in the scratch (no allocation)
        v = w[U(at + S_KEPT + 1 + j)] + w[U(at + S_TRY + 1 + j)]
        k = j
        while k > 0 and w[U(at + S_SORT + k - 1)] < v:
            w[U(at + S_SORT + k)] = w[U(at + S_SORT + k - 1)]
            k -= 1
        w[U(at + S_SORT + k)] = v
    code = w[U(at + S_KEPT)] + w[U(at + S_TRY)]
    m = n + 1
    for j in range(5):
        code += w[U(at + S_SORT + j)] * m
        m *= n // (j + 1) + 1
    return int(sp[U(seat), U(pre + code)])


@hot
def keep_law(seat, w, sp, base, at, law, n):
    """The law of the turn's final advance after keeping the scratch's tried dice (S_TRY by slot,
    on top of the kept), at the tables, rolls left and herons of ``law`` (another keep's law of the
    same decision); -1 where the tables hold no such kept vector."""
    first, stride = _laws_of(seat, sp, base, law)
    q = _pre_state(seat, w, sp, int(sp[U(seat), U(base + CH_PRE)]), at, n)
    return first + q * stride if q >= 0 else -1


@hot
def _laws_of(seat, sp, base, law):
    """(the law of the first kept vector, the step to the next) at the tables, rolls left and
    herons of ``law`` (laws are stored [table, rolls left, kept vector, herons, advance])."""
    amax = int(sp[U(seat), U(base + CH_AMAX)])
    law0 = int(sp[U(seat), U(base + CH_LAW)])
    npre = int(sp[U(seat), U(base + CH_NPRE)])
    anx = int(sp[U(seat), U(base + CH_ANX)])
    idx = (law - law0) // amax
    return law0 + ((idx // anx // npre) * npre * anx + idx % anx) * amax, anx * amax


@hot
def best_keep(seat, w, R, sp, base, T, at, pos, law, go, reroll):
    """(chance, action) of the best reroll: every legal keep of the scratch's dice (at least one
    die newly held, a fresh heron counting, and one left to roll) valued by its own law, the
    expert's ``reroll`` (chance ``go``, law ``law``) kept on ties; that one alone where the seat's
    ``keeps`` is 0.

    The keeps are tried in the order of an odometer on S_TRY (slot 0 turning fastest), but only
    those whose alike slots (1..5, as many dice kept and free: the tables hold them alike) hold
    non-increasing counts: of the keeps that differ by the order of such counts, that one comes
    first in the odometer's order, and the others have its kept vector (they could only tie).
    Keeps of different slots that still make one kept vector are valued once, at the first
    (S_SEEN); the first best found wins ties."""
    if sp[U(seat), KEEPS] == 0.0:
        return go, reroll
    amax = int(sp[U(seat), U(base + CH_AMAX)])
    law0 = int(sp[U(seat), U(base + CH_LAW)])
    npre = int(sp[U(seat), U(base + CH_NPRE)])
    anx = int(sp[U(seat), U(base + CH_ANX)])
    claw = int(sp[U(seat), U(base + CH_CLAW)])
    idx = (law - law0) // amax
    lfirst = (idx // anx // npre) * npre * anx + idx % anx  # the law index of kept vector 0
    n = w[NDICE]
    r0 = n + 1  # the mixed radix of _pre_state
    r1 = r0 * (n + 1)
    r2 = r1 * (n // 2 + 1)
    r3 = r2 * (n // 3 + 1)
    r4 = r3 * (n // 4 + 1)
    free = 0
    for j in range(6):
        w[U(at + S_TRY + j)] = 0
        free += w[U(at + S_FREE + j)]
        w[U(at + S_NXT + j)] = -1
    for j in range(1, 5):
        for k in range(j + 1, 6):
            if (w[U(at + S_FREE + j)] == w[U(at + S_FREE + k)]
                    and w[U(at + S_KEPT + j)] == w[U(at + S_KEPT + k)]):
                w[U(at + S_NXT + j)] = k
                break
    k0 = w[U(at + S_KEPT)]
    k1 = w[U(at + S_KEPT + 1)]
    k2 = w[U(at + S_KEPT + 2)]
    k3 = w[U(at + S_KEPT + 3)]
    k4 = w[U(at + S_KEPT + 4)]
    k5 = w[U(at + S_KEPT + 5)]
    fl = w[U(at + S_FL)]
    pre = int(sp[U(seat), U(base + CH_PRE)])
    best = go
    action = reroll
    stamp = w[U(at + S_STAMP)] + 1
    w[U(at + S_STAMP)] = stamp
    tried = 0
    while True:
        if tried < free and tried + fl >= 1:
            v1 = k1 + w[U(at + S_TRY + 1)]
            v2 = k2 + w[U(at + S_TRY + 2)]
            v3 = k3 + w[U(at + S_TRY + 3)]
            v4 = k4 + w[U(at + S_TRY + 4)]
            v5 = k5 + w[U(at + S_TRY + 5)]
            # slots 1..5 non-increasing (a sorting network of nine exchanges)
            if v1 < v2:
                v1, v2 = v2, v1
            if v4 < v5:
                v4, v5 = v5, v4
            if v3 < v5:
                v3, v5 = v5, v3
            if v3 < v4:
                v3, v4 = v4, v3
            if v1 < v4:
                v1, v4 = v4, v1
            if v1 < v3:
                v1, v3 = v3, v1
            if v2 < v5:
                v2, v5 = v5, v2
            if v2 < v4:
                v2, v4 = v4, v2
            if v2 < v3:
                v2, v3 = v3, v2
            code = k0 + w[U(at + S_TRY)] + v1 * r0 + v2 * r1 + v3 * r2 + v4 * r3 + v5 * r4
            q = int(sp[U(seat), U(pre + code)])
            if q >= 0 and w[U(at + S_SEEN + q)] != stamp:
                li = lfirst + q * anx
                if li != idx:
                    w[U(at + S_SEEN + q)] = stamp
                    v = _law_value(seat, w, R, sp, base, T, at, pos, int(sp[U(seat), U(claw + li)]))
                    if v > best + 1e-12:
                        best = v
                        action = 0
                        for k in range(6):
                            action += w[U(at + S_TRY + k)] << (ACTION_BITS * k)
        j = 0  # the next keep: the odometer's step
        while j < 6:
            if w[U(at + S_TRY + j)] < w[U(at + S_FREE + j)]:
                break
            j += 1
        if j == 6:
            break
        w[U(at + S_TRY + j)] += 1
        tried = w[U(at + S_TRY + j)]
        for i in range(j + 1, 6):
            tried += w[U(at + S_TRY + i)]
        i = j - 1
        while i >= 0:  # the slots below: their least counts (an alike slot above bounds them below)
            nx = w[U(at + S_NXT + i)]
            c = w[U(at + S_TRY + nx)] if nx >= 0 else 0
            w[U(at + S_TRY + i)] = c
            tried += c
            i -= 1
    return best, action


@hot
def champion_action(seat, w, R, sp, ts, col):
    """The champion's keep action at table column ``col`` of the row of seat ``ts``: its best
    reroll (:func:`best_keep`) where its chance of winning beats stopping now's, else -1 (stop);
    the racer's rule where its tables hold no law for the column. Reads the dice counted by animal
    in w[COUNTS] and by slot in its scratch (:func:`note_dice`, :func:`note_counts`)."""
    reroll = int(sp[U(ts), U(col + 2)])
    if reroll < 0:
        return -1
    base = int(sp[U(seat), SEAT_BLOCK_COLUMN])
    law = int(sp[U(seat), U(int(sp[U(seat), U(base + CH_PTR)]) + col // ENTRY)])
    if law < 0 or w[PMEMO_LEN] < S_WORDS:  # no law here, or a workspace without its scratch (never
        return race_action(seat, w, R, sp, ts, col)  # written outside it: heron_sim.strategies.memo_words)
    T = int(sp[U(seat), U(base + CH_T)])
    amax = int(sp[U(seat), U(base + CH_AMAX)])
    at = w[PMEMO] + w[PMEMO_LEN] - S_WORDS  # the champion's scratch (the last words declared)
    if not _same_state(seat, w, at):
        _others_behind(seat, w, sp, base, T, at)
    pos = w[U(POS + seat)]
    stop = stop_chance(seat, w, R, sp, base, T, at, pos)
    go = law_chance(seat, w, R, sp, base, T, at, pos, law, amax)
    go, reroll = best_keep(seat, w, R, sp, base, T, at, pos, law, go, reroll)
    return reroll if go > stop + 1e-12 else -1


@hot
def stop_chance(seat, w, R, sp, base, T, at, pos):
    """The chance of winning after stopping with the dice counted in w[COUNTS]."""
    s0 = counted_advance(seat, w, R)
    if s0 > 0:
        return _chance_after(seat, w, R, sp, base, T, at, pos, s0)
    c = consolation_no_set(R)  # consolation_no_set (0 with the rulings) moves the pawn but triggers no square
    return _chance_after(seat, w, R, sp, base, T, at, pos, 0) if c == 0 else \
        _chance_from(seat, w, R, sp, base, T, at, pos + c, False)


@hot
def champion_keep(seat, w, R, sp):
    col = keep_column(seat, w, R, sp)
    if col == KEEP_STOP:
        return 0
    if col < 0:
        return greedy_keep(seat, w)
    count_animals(w)  # what champion_action reads (apply_keep_action rewrites w[COUNTS] after)
    if w[PMEMO_LEN] >= S_WORDS:
        note_dice(w, w[PMEMO] + w[PMEMO_LEN] - S_WORDS)
    return apply_keep_action(seat, w, sp, champion_action(seat, w, R, sp, table_seat(seat, sp), col))


@hot
def champion_decide(kind, seat, w, R, rng, sp):
    if kind == D_KEEP:
        return champion_keep(seat, w, R, sp)
    return expert_decide(kind, seat, w, R, rng, sp)
