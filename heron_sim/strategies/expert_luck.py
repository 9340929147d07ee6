"""Luck: what the dice gave a player, measured on the expert's tables (issue 32 item 1).

For one chance event (a roll of the free dice), the player's *luck* is the expert's value of the
state the roll produced minus the expert's value before the roll, the latter being the exact
expectation, over the roll's outcomes under the true dice law, of the former. Summed over a
turn's rolls (the first roll and every reroll), it has mean zero *whatever the player decides*
(each term has conditional mean zero given everything before the roll), so it can serve as a
control variate (heron_sim.analysis.luck_adjust).

Values are those of heron_sim.strategies.expert_dp (squares of the turn's expected advance; a
Pond counts 0 for its roller, an Anxiety its rescue or its consolation): ``Q[r](K, C, fl)`` after
a roll, and before a roll

- with identical symmetric dice (8 D8, 7 D8, 10 D8: the expert's dice law is exact), the table
  ``V[r](T, h)`` of :func:`luck_tables`: the expectation of ``Q[r]`` over the roll of the
  ``n - |T| - h`` free dice, computed from the stored after-roll values exactly as the
  programme computes it (one small table per rules: 116 kept vectors for 8 D8);
- with dice that differ (the ten historic D6), the expectation over the *physical* free dice:
  their count law is convolved die by die at each roll (:func:`_free_law`). The expert's own
  pre-roll values use a symmetrised die there; they are not the expectation of the true dice and
  would bias the luck (the negative control of tests/test_expert_luck.py).

Here (:func:`simulate_turn_luck`): the first roll and every reroll of a turn's dice (keep/stop
decisions only: the expert's table ``plain``, guide = animal 0, roll-time powers off). The
engine's games (:func:`luck_row`, heron_sim.strategies.luck_turn) also count the Wolf's reroll
and the Eagle's draws, on the seat's own table; under rules by guide, on the tables of the rules
the seat's turn is played under (a luck row per set of a turn's rules: heron_sim.simulation).
Not counted yet: the Étang's rolls (the Pond's push-back on the others): see docs/luck.md.

:func:`simulate_turn_luck` plays single turns with a chosen keep policy and the true dice and
returns each turn's luck: the zero-mean tests run it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..animals import N_ANIMALS
from .expert_dp import (
    ACTION_BITS, T_PLAIN, _anxiety, _first_roll, _score, _outcomes, _params, _post_code, _post_states, _pre_code,
    _pre_states, _run_dp, _table_flags, dice_model, table_rolls,
)

#: Keep policies of :func:`simulate_turn_luck` (the luck must have mean zero under each).
POLICY_EXPERT, POLICY_GREEDY, POLICY_RANDOM = range(3)
POLICIES = {"expert": POLICY_EXPERT, "greedy": POLICY_GREEDY, "random": POLICY_RANDOM}


@dataclass
class LuckTables:
    """The expert's after-roll values of one table and the luck's pre-roll values.

    Q[r, state, fl]: value after a roll leaving r rolls; A: the expert's action there.
    V[r, pre, h]: value before a roll whose post-roll state has r rolls left, kept vector ``pre``
    (canonical, expert_dp._pre_states) and h reserved herons (exact dice only; else the
    symmetrised law's, kept for the negative control). first[r]: value before the first roll when
    it leaves r rolls (a Pond counts 0).
    """

    n: int
    anx: int
    pond: int
    rolls: int
    rmax: int
    exact: bool
    post_codes: np.ndarray
    Q: np.ndarray
    A: np.ndarray
    V: np.ndarray
    pre_index: np.ndarray
    first: np.ndarray
    adv: np.ndarray
    eff: np.ndarray
    dbl: bool
    bull: int
    lion: bool
    par: np.ndarray
    law: np.ndarray      # [n, 7] each physical die's probability of each animal (heron last)
    faces: np.ndarray    # [n, max faces] animal on each face (to roll the true dice)
    nfaces: np.ndarray   # [n]
    succ: np.ndarray     # [outcomes of n - 1 dice, 7]: index of (outcome + one animal)
    off: np.ndarray      # outcome offsets by number of dice (expert_dp._outcomes)
    cnt: np.ndarray      # outcome counts [*, 7]


@njit(cache=True, nogil=True)
def _pre_values(n, anx, rmax, Q, pre_T, post_codes, out_off, out_cnt, out_probs, adv, eff, dbl, bull,
                lion, B, par):
    """V[r, p, h] = the expectation over the roll of the free dice of the value after it (Q[r] of
    the new state, or the Anxiety's value), r = 0..rmax - 1: expert_dp._run_dp's V, from the
    stored Q (the same sums in the same order)."""
    npre = pre_T.shape[0]
    V = np.zeros((max(rmax, 1), npre, anx))
    tot = np.zeros(6, dtype=np.int64)
    Cn = np.zeros(6, dtype=np.int64)
    for r in range(rmax):
        for p in range(npre):
            tsum = 0
            for j in range(6):
                tsum += pre_T[p, j]
            for h in range(anx):
                f = n - tsum - h
                if f < 1:
                    continue
                acc = 0.0
                for o in range(out_off[f], out_off[f + 1]):
                    h2 = h + out_cnt[o, 6]
                    if h2 >= anx:
                        for j in range(6):
                            tot[j] = pre_T[p, j] + out_cnt[o, j]
                        acc += out_probs[o] * _anxiety(tot, h2, adv, eff, dbl, bull, lion, par)
                        continue
                    for j in range(6):
                        Cn[j] = out_cnt[o, j]
                    k = np.searchsorted(post_codes, _post_code(pre_T[p], Cn, B))
                    acc += out_probs[o] * Q[r, k, 1 if out_cnt[o, 6] > 0 else 0]
                V[r, p, h] = acc
    return V


@njit(cache=True, nogil=True)
def _roll_laws(n, anx, rmax, Q, A, post_K, pre_T, pre_index, post_codes, out_off, out_cnt, out_probs, adv, eff,
               dbl, bull, lion, B, par, amax):
    """D[r, p, h, a]: the law of the squares the turn scores, under the expert's programme, from
    just before a roll whose post-roll state has ``r`` rolls left, the kept vector ``p`` and ``h``
    reserved herons (a < ``amax``): each outcome of the free dice leads to an Anxiety (its value),
    to a stop (the dice's score: Q there) or to the programme's keep (``A``), whose next roll's law
    is D[r - 1] of the kept vector. :func:`_pre_values`' recursion on laws instead of values, so
    sum_a a·D[r, p, h, a] = V[r, p, h] (the values are whole squares)."""
    npre = pre_T.shape[0]
    D = np.zeros((max(rmax, 1), npre, anx, amax))
    tot = np.zeros(6, dtype=np.int64)
    Cn = np.zeros(6, dtype=np.int64)
    T = np.zeros(6, dtype=np.int64)
    for r in range(rmax):
        for p in range(npre):
            tsum = 0
            for j in range(6):
                tsum += pre_T[p, j]
            for h in range(anx):
                f = n - tsum - h
                if f < 1:
                    continue
                for o in range(out_off[f], out_off[f + 1]):
                    pr = out_probs[o]
                    h2 = h + out_cnt[o, 6]
                    if h2 >= anx:
                        for j in range(6):
                            tot[j] = pre_T[p, j] + out_cnt[o, j]
                        v = _anxiety(tot, h2, adv, eff, dbl, bull, lion, par)
                        D[r, p, h, min(max(int(round(v)), 0), amax - 1)] += pr
                        continue
                    for j in range(6):
                        Cn[j] = out_cnt[o, j]
                    k = np.searchsorted(post_codes, _post_code(pre_T[p], Cn, B))
                    fl = 1 if out_cnt[o, 6] > 0 else 0
                    act = A[r, k, fl]
                    if act < 0 or r == 0:
                        D[r, p, h, min(max(int(round(Q[r, k, fl])), 0), amax - 1)] += pr
                        continue
                    for j in range(6):
                        T[j] = post_K[k, j] + ((act >> (ACTION_BITS * j)) & 15)
                    q = pre_index[_pre_code(T, B)]
                    for a in range(amax):
                        D[r, p, h, a] += pr * D[r - 1, q, h2, a]
    return D


@njit(cache=True, nogil=True)
def _first_roll_law(n, pond, anx, r, out_off, out_cnt, out_probs, post_codes, Q, A, post_K, pre_index, D, lion,
                    adv, eff, dbl, bull, B, par, amax):
    """The law of the turn's score under the expert's programme before the first roll leaving
    ``r`` rolls (a Pond scores 0): :func:`_roll_laws` for the first roll, as
    expert_dp._first_roll is for its value (the same outcomes; its mean is first[r])."""
    law = np.zeros(amax)
    K = np.zeros(6, dtype=np.int64)
    Cn = np.zeros(6, dtype=np.int64)
    T = np.zeros(6, dtype=np.int64)
    for o in range(out_off[n], out_off[n + 1]):
        pr = out_probs[o]
        h = out_cnt[o, 6]
        if h >= pond:
            law[0] += pr
            continue
        for j in range(6):
            Cn[j] = out_cnt[o, j]
        if h >= anx:
            law[min(max(int(round(_anxiety(Cn, h, adv, eff, dbl, bull, lion, par))), 0), amax - 1)] += pr
            continue
        k = np.searchsorted(post_codes, _post_code(K, Cn, B))
        fl = 1 if h > 0 else 0
        act = A[r, k, fl]
        if act < 0 or r == 0:
            law[min(max(int(round(Q[r, k, fl])), 0), amax - 1)] += pr
            continue
        for j in range(6):
            T[j] = post_K[k, j] + ((act >> (ACTION_BITS * j)) & 15)
        q = pre_index[_pre_code(T, B)]
        for a in range(amax):
            law[a] += pr * D[r - 1, q, h, a]
    return law


def _successors(n: int, off: np.ndarray, cnt: np.ndarray) -> np.ndarray:
    """succ[o, a]: the index of outcome o (of f dice) plus one die showing animal a (of f + 1)."""
    index = {}
    for i in range(cnt.shape[0]):
        index[tuple(cnt[i])] = i
    succ = np.full((max(off[n], 1), N_ANIMALS), -1, dtype=np.int64)
    for i in range(off[n]):
        for a in range(N_ANIMALS):
            c = list(cnt[i])
            c[a] += 1
            succ[i, a] = index[tuple(c)]
    return succ


def luck_tables(rules, table: int = T_PLAIN) -> LuckTables:
    """The expert's programme for ``table`` of ``rules`` (seconds: the DP of 8 D8 runs in 0.3 s)
    and the luck's pre-roll values."""
    model = dice_model(rules)
    n, anx, pond = model.n, min(rules.anxiety_threshold, model.n + 1), rules.pond_threshold
    rmax = table_rolls(rules)
    B = n + 1
    offs, cnt, probs = _outcomes(n, model.p_heron)
    post_K, post_C, post_codes = _post_states(n, anx)
    pre_T, pre_index = _pre_states(n)
    adv = np.array(rules.combo_advance, dtype=np.int64)
    eff = np.array(rules.combo_effect, dtype=np.int64)
    dbl, bull, lion = _table_flags(table, rules.guide_power_doubling)
    par = _params(rules, table)
    Q, A, _QR, _AR = _run_dp(n, anx, rmax, post_K, post_C, post_codes, pre_T, pre_index, offs, cnt, probs,
                             adv, eff, dbl, bull, lion, B, par)
    V = _pre_values(n, anx, rmax, Q, pre_T, post_codes, offs, cnt, probs, adv, eff, dbl, bull, lion, B, par)
    law = np.zeros((n, N_ANIMALS))
    width = max(len(d) for d in rules.dice)
    faces = np.zeros((n, width), dtype=np.int64)
    nfaces = np.zeros(n, dtype=np.int64)
    for i, die in enumerate(rules.dice):
        for k, a in enumerate(die):
            faces[i, k] = a
            law[i, a] += 1.0 / len(die)
        nfaces[i] = len(die)
    # the first roll's value under the true law (identical symmetric dice: the programme's own)
    first = np.zeros(rmax + 1)
    _, true_cnt, true_p = _true_outcomes(law)
    true_off = np.zeros(n + 2, dtype=np.int64)  # expert_dp's offsets by dice rolled: all n dice
    true_off[n + 1] = true_cnt.shape[0]
    for r in range(rmax + 1):
        first[r] = _first_roll(n, pond, anx, r, true_off, true_cnt, true_p, post_codes, Q, lion, adv, eff, dbl,
                               bull, B, par)
        if model.exact:  # the programme's sum: the same number (checked by the tests)
            first[r] = _first_roll(n, pond, anx, r, offs, cnt, probs, post_codes, Q, lion, adv, eff, dbl,
                                   bull, B, par)
    return LuckTables(n, anx, pond, rules.rolls, rmax, model.exact, post_codes, Q, A, V, pre_index, first,
                      adv, eff, dbl, bull, lion, par, law, faces, nfaces, _successors(n, offs, cnt), offs, cnt)


def _true_outcomes(law: np.ndarray):
    """The count law of every die rolled at once (the first roll), dice that differ included."""
    n = law.shape[0]
    dist = {(0,) * N_ANIMALS: 1.0}
    for i in range(n):
        new: dict = {}
        for c, p in dist.items():
            for a in range(N_ANIMALS):
                if law[i, a] > 0:
                    c2 = list(c)
                    c2[a] += 1
                    c2 = tuple(c2)
                    new[c2] = new.get(c2, 0.0) + p * law[i, a]
        dist = new
    keys = sorted(dist)
    return (np.array([0, len(keys)]), np.array(keys, dtype=np.int64).reshape(-1, N_ANIMALS),
            np.array([dist[k] for k in keys]))


@njit(cache=True)
def _after(K, Cn, h, r, fl, anx, post_codes, Q, adv, eff, dbl, bull, lion, B, par, tot):
    """The expert's value after a roll: kept K, this roll's non-heron dice Cn (animal order,
    animal 0 = the guide's), h herons in all, r rolls left."""
    if h >= anx:
        for j in range(6):
            tot[j] = K[j] + Cn[j]
        return _anxiety(tot, h, adv, eff, dbl, bull, lion, par)
    k = np.searchsorted(post_codes, _post_code(K, Cn, B))
    return Q[r, k, fl]


@njit(cache=True)
def _free_law(free, law, off, succ, dist):
    """The count law of the free dice (``free``: their indices): dist[o] over the outcomes of
    len(free) dice (expert_dp._outcomes order), convolved die by die."""
    dist[0] = 1.0
    m = 0
    for i in range(free.shape[0]):
        d = free[i]
        lo, hi = off[m + 1], off[m + 2]
        for o in range(lo, hi):
            dist[o] = 0.0
        for o in range(off[m], off[m + 1]):
            p = dist[o]
            if p == 0.0:
                continue
            for a in range(7):
                if law[d, a] > 0.0:
                    dist[succ[o, a]] += p * law[d, a]
        m += 1
    return m


@njit(cache=True)
def _before_true(K, h, r, free, anx, law, off, cnt, succ, dist, post_codes, Q, adv, eff, dbl, bull, lion, B,
                 par, tot, Cn):
    """The exact expectation of the value after the roll of the physical dice ``free``."""
    m = _free_law(free, law, off, succ, dist)
    acc = 0.0
    for o in range(off[m], off[m + 1]):
        p = dist[o]
        if p == 0.0:
            continue
        for j in range(6):
            Cn[j] = cnt[o, j]
        h2 = h + cnt[o, 6]
        acc += p * _after(K, Cn, h2, r, 1 if cnt[o, 6] > 0 else 0, anx, post_codes, Q, adv, eff, dbl, bull,
                          lion, B, par, tot)
    return acc


@njit(cache=True)
def _turns(n_turns, seed, policy, use_table, bias, n, anx, pond, rolls, B, post_codes, Q, A, V, pre_index,
           first, adv, eff, dbl, bull, lion, par, law, faces, nfaces, off, cnt, succ):
    np.random.seed(seed)
    luck = np.zeros(n_turns)
    advance = np.zeros(n_turns)
    face = np.zeros(n, dtype=np.int64)   # animal shown by each physical die
    state = np.zeros(n, dtype=np.int64)  # 0 free, 1 kept, 2 reserved heron
    K = np.zeros(6, dtype=np.int64)
    C = np.zeros(6, dtype=np.int64)
    S = np.zeros(6, dtype=np.int64)
    T = np.zeros(6, dtype=np.int64)
    tot = np.zeros(6, dtype=np.int64)
    Cn = np.zeros(6, dtype=np.int64)
    dist = np.zeros(cnt.shape[0])
    digits = np.zeros(5, dtype=np.int64)
    for t in range(n_turns):
        r = rolls - 1
        for i in range(n):
            state[i] = 0
        for j in range(6):
            K[j] = 0
            C[j] = 0
        h = 0
        for i in range(n):
            face[i] = faces[i, np.random.randint(nfaces[i])]
            if face[i] == 6:
                h += 1
                state[i] = 2
            else:
                C[face[i]] += 1
        lk = -first[r]
        if h >= pond:
            luck[t] = lk + 0.0 + bias
            continue  # a Pond: 0 for its roller
        fl = 1 if h > 0 else 0
        after = _after(K, C, h, r, fl, anx, post_codes, Q, adv, eff, dbl, bull, lion, B, par, tot)
        lk += after + bias
        if h >= anx:
            luck[t] = lk
            advance[t] = after
            continue
        while True:
            # the keep decision: S[j] fresh dice of animal j kept (then reroll), or stop
            csum = 0
            for j in range(6):
                csum += C[j]
                S[j] = 0
            go = False
            if r >= 1 and csum >= 1:
                if policy == POLICY_EXPERT:
                    k = np.searchsorted(post_codes, _post_code(K, C, B))
                    a = A[r, k, fl]
                    if a >= 0:
                        go = True
                        for j in range(5):
                            digits[j] = -(K[j + 1] * B + C[j + 1])
                        order = np.argsort(digits, kind="mergesort")
                        S[0] = a & 15
                        for s in range(5):
                            S[order[s] + 1] = (a >> (ACTION_BITS * (s + 1))) & 15
                elif policy == POLICY_GREEDY:
                    best = 0
                    for j in range(1, 6):
                        if K[j] + C[j] > K[best] + C[best]:
                            best = j
                    if K[best] + C[best] < 4:
                        S[best] = C[best]
                        go = S[best] < csum and S[best] + fl >= 1
                else:
                    if np.random.random() < 0.7:
                        ssum = 0
                        for j in range(6):
                            S[j] = np.random.randint(C[j] + 1)
                            ssum += S[j]
                        go = ssum < csum and ssum + fl >= 1
            if not go:
                for j in range(6):
                    tot[j] = K[j] + C[j]
                for i in range(n):
                    if state[i] == 0:
                        state[i] = 1
                advance[t] = _score(tot, h, adv, eff, dbl, bull, True, par)
                break
            # keep S: mark physical dice kept, the others free
            for j in range(6):
                T[j] = K[j] + S[j]
            for j in range(6):
                Cn[j] = S[j]  # to take
            nfree = 0
            for i in range(n):
                if state[i] == 0:
                    a2 = face[i]
                    if Cn[a2] > 0:
                        Cn[a2] -= 1
                        state[i] = 1
                    else:
                        nfree += 1
            free = np.empty(nfree, dtype=np.int64)
            q = 0
            for i in range(n):
                if state[i] == 0:
                    free[q] = i
                    q += 1
            r -= 1
            if use_table:
                before = V[r, pre_index[_pre_code(T, B)], h]
            else:
                before = _before_true(T, h, r, free, anx, law, off, cnt, succ, dist, post_codes, Q, adv, eff,
                                      dbl, bull, lion, B, par, tot, Cn)
            for j in range(6):
                K[j] = T[j]
                C[j] = 0
            new_h = 0
            for q in range(nfree):
                i = free[q]
                face[i] = faces[i, np.random.randint(nfaces[i])]
                if face[i] == 6:
                    new_h += 1
                    state[i] = 2
                else:
                    C[face[i]] += 1
            h += new_h
            fl = 1 if new_h > 0 else 0
            after = _after(K, C, h, r, fl, anx, post_codes, Q, adv, eff, dbl, bull, lion, B, par, tot)
            lk += after + bias - before
            if h >= anx:
                advance[t] = after
                break
        luck[t] = lk
    return luck, advance


def simulate_turn_luck(tables: LuckTables, n_turns: int, seed: int, policy: str = "expert",
                       pre_values: str = "auto", bias: float = 0.0):
    """Play ``n_turns`` single turns (guide = animal 0 ready, no powers) with the keep
    ``policy`` (expert: the tables' actions; greedy: the largest set while under 4 dice; random:
    random legal keeps) and the true dice; return (luck by turn, advance by turn).

    pre_values: ``table`` (the V table: exact for identical symmetric dice), ``true`` (the
    expectation over the physical free dice, any dice), ``auto`` (the table where it is exact).
    ``bias`` is added to every after-roll value (a negative control: its luck is not centred).
    """
    if policy not in POLICIES:
        raise ValueError(f"policy {policy!r}; allowed: {', '.join(POLICIES)}")
    if pre_values not in ("auto", "table", "true"):
        raise ValueError(f"pre_values {pre_values!r}; allowed: auto, table, true")
    use_table = pre_values == "table" or (pre_values == "auto" and tables.exact)
    T = tables
    return _turns(int(n_turns), int(seed), POLICIES[policy], use_table, float(bias), T.n, T.anx, T.pond,
                  T.rolls, T.n + 1, T.post_codes, T.Q, T.A, T.V, T.pre_index, T.first, T.adv, T.eff, T.dbl,
                  T.bull, T.lion, T.par, T.law, T.faces, T.nfaces, T.off, T.cnt, T.succ)


__all__ = ["LuckTables", "POLICIES", "at_offset", "luck_row", "luck_tables", "luck_unmeasured", "powers_only",
           "simulate_turn_luck"]


# ------------------------------------------------------------------ the engine's luck row
# The game loop (heron_sim.loop.turn, with luck on) reads one extra parameter row: the expert's
# row of the game's rules (its after-roll values Q, every table) followed, at offset ``lo``, by
# the luck's block (LK_* below; offsets from the row's start):
LK_B, LK_RMAX, LK_ANX, LK_PI, LK_V, LK_FIRST, LK_NPRE, LK_POWERS_ONLY, LK_POWER_BIAS, LK_POND, LK_LAND, \
    LK_AMAX, LK_FLAND = range(13)
LK_HEAD = 13
#: the squares a turn's value can reach, and more (the last roll's law: LK_LAND)
AMAX = 40
#   law[h] at LK_POND (h <= n dice): P(a first roll opens the Pond with h herons in all, its extra
#   rolls included; heron_sim.exact.dice_laws.pond_pushback_unconditional): the expected push-back
#   of a first roll is its sum times the squares h herons push back, read from the turn's rules
#   (luck_turn.pond_luck: the Étang's push-back is the others' luck; the push-back's keys are not
#   in this row's key, and a guide's push-back may differ from the base's)
#   LK_POWERS_ONLY, LK_POWER_BIAS: 0 in the engine's row. For the tests (:func:`powers_only`):
#   count only the powers' draws (not the rolls), and add a bias to each draw's value after
#   pre_index[code] (float; -1 none) at LK_PI: the dense index of a canonical kept vector
#   V[t, r, p, h] at LK_V (t < 5, r < rmax, p < npre, h < anx): the value before a reroll
#   first[t, r] at LK_FIRST (r <= rmax): the value before the first roll
#   land[t, r, p, h, a] at LK_LAND (r < rmax, a < LK_AMAX): P(the turn scores a squares under the
#   expert's programme) from just before a roll leaving r rolls, the kept vector p and h reserved
#   herons (:func:`_roll_laws`): luck_turn.land_luck's law of where the pawn would land
#   first_land[t, r, a] at LK_FLAND (r <= rmax): the same before the first roll leaving r rolls


_LUCK_ROWS: dict = {}


def pond_law(rules) -> np.ndarray:
    """law[h], h = 0 .. the dice: P(a first roll opens the Étang with h herons in all)."""
    from ..exact.dice_laws import pond_pushback_unconditional

    law = np.zeros(rules.n_dice + 1)
    for h, p in pond_pushback_unconditional(rules).items():
        law[h] = p
    return law


def expected_pushback(rules) -> float:
    """The squares a first roll pushes each unprotected opponent back, in expectation: the
    Étang's law times Rules.pond_pushback(h), summed (what luck_turn.pond_luck sums)."""
    return float(sum(p * rules.pond_pushback(h) for h, p in enumerate(pond_law(rules)) if p))


def powers_only(made: tuple[np.ndarray, int], bias: float = 0.0) -> tuple[np.ndarray, int]:
    """A luck row (:func:`luck_row`'s answer) that counts only the powers' draws (the Wolf's
    reroll, the Eagle's draws: heron_sim.strategies.luck_turn.power_luck; not the rolls nor the
    Étang's push-back), each with ``bias``
    added to its value after (a negative control): the tests of those terms alone."""
    row, lo = made
    row = row.copy()
    row[lo + LK_POWERS_ONLY] = 1.0
    row[lo + LK_POWER_BIAS] = float(bias)
    return row, lo


def luck_unmeasured(rules) -> str | None:
    """Why the engine's games of ``rules`` get no luck columns (one phrase), or None where they
    do: the luck needs the expert's tables of identical symmetric dice (rules by guide included:
    a guide sets only a turn's rules, never the dice)."""
    try:
        model = dice_model(rules)
    except Exception:
        return f"{rules.n_dice} dice, more than the expert's tables hold"
    if not model.exact:
        return "dice that differ (e.g. the ten historic D6: the expert's tables use a symmetrised die)"
    return None


def at_offset(made: tuple[np.ndarray, int], lo: int) -> np.ndarray:
    """A luck row (:func:`luck_row`'s answer) with its luck block moved to offset ``lo`` (>= its
    own; zeros between), its pointers (LK_PI, LK_V, LK_FIRST: indices in the row) moved with it:
    the luck rows of a game's sets of rules (rules by guide) share one offset, which the loop
    reads once (layout.LUCK_OFF)."""
    row, lo0 = made
    if lo < lo0:
        raise ValueError(f"offset {lo} before the luck block's {lo0}")
    out = np.zeros(row.size + lo - lo0)
    out[:lo0] = row[:lo0]
    out[lo:] = row[lo0:]
    for k in (LK_PI, LK_V, LK_FIRST, LK_POND, LK_LAND, LK_FLAND):
        out[lo + k] += lo - lo0
    return out


def luck_row(rules) -> tuple[np.ndarray, int] | None:
    """The engine's luck row for ``rules`` and the offset of its luck block, or None where the
    luck is not measured yet (dice that differ, more dice than the expert's). With rules by guide
    the row of each set of a turn's rules is asked for (``Rules.turn_rows``: rules without rules
    by guide, heron_sim.simulation._with_luck_row); ``rules`` with rules by guide themselves have
    none (which guide's?). Built in seconds (the expert's keep/stop tables without the powers'
    columns), kept in memory for the process (a copy is returned)."""
    import json

    from .expert_dp import _key

    if getattr(rules, "guides", ()):
        return None
    key = json.dumps(_key(rules), sort_keys=True, default=str)
    if key not in _LUCK_ROWS:
        _LUCK_ROWS[key] = _build_luck_row(rules)
    made = _LUCK_ROWS[key]
    return None if made is None else (made[0].copy(), made[1])


def _build_luck_row(rules):
    from .expert_build import build_tables
    from .expert_dp import N_TABLES

    if luck_unmeasured(rules) is not None:
        return None
    model = dice_model(rules)
    n, anx, pond = model.n, min(rules.anxiety_threshold, model.n + 1), rules.pond_threshold
    rmax = table_rolls(rules)
    B = n + 1
    offs, cnt, probs = _outcomes(n, model.p_heron)
    post_K, post_C, post_codes = _post_states(n, anx)
    pre_T, pre_index = _pre_states(n)
    adv = np.array(rules.combo_advance, dtype=np.int64)
    eff = np.array(rules.combo_effect, dtype=np.int64)
    npre = pre_T.shape[0]
    V = np.zeros((N_TABLES, max(rmax, 1), npre, anx))
    first = np.zeros((N_TABLES, rmax + 1))
    land = np.zeros((N_TABLES, max(rmax, 1), npre, anx, AMAX))
    first_land = np.zeros((N_TABLES, rmax + 1, AMAX))
    for t in range(N_TABLES):
        dbl, bull, lion = _table_flags(t, rules.guide_power_doubling)
        par = _params(rules, t)
        Q, A, _QR, _AR = _run_dp(n, anx, rmax, post_K, post_C, post_codes, pre_T, pre_index, offs, cnt, probs,
                                 adv, eff, dbl, bull, lion, B, par)
        V[t] = _pre_values(n, anx, rmax, Q, pre_T, post_codes, offs, cnt, probs, adv, eff, dbl, bull, lion, B, par)
        if rmax >= 1:
            land[t] = _roll_laws(n, anx, rmax, Q, A, post_K, pre_T, pre_index, post_codes, offs, cnt, probs, adv,
                                 eff, dbl, bull, lion, B, par, AMAX)
        for r in range(rmax + 1):
            first[t, r] = _first_roll(n, pond, anx, r, offs, cnt, probs, post_codes, Q, lion, adv, eff, dbl, bull,
                                      B, par)
            first_land[t, r] = _first_roll_law(n, pond, anx, r, offs, cnt, probs, post_codes, Q, A, post_K,
                                               pre_index, land[t], lion, adv, eff, dbl, bull, B, par, AMAX)
    row = build_tables(rules, powers=False).row
    lo = row.size
    head = np.zeros(LK_HEAD)
    head[LK_B], head[LK_RMAX], head[LK_ANX], head[LK_NPRE] = B, rmax, anx, npre
    head[LK_PI] = lo + LK_HEAD
    head[LK_V] = head[LK_PI] + pre_index.size
    head[LK_FIRST] = head[LK_V] + V.size
    head[LK_POND] = head[LK_FIRST] + first.size
    law = pond_law(rules)
    head[LK_LAND] = head[LK_POND] + law.size
    head[LK_AMAX] = AMAX
    head[LK_FLAND] = head[LK_LAND] + land.size
    out = np.concatenate([row, head, pre_index.astype(np.float64), V.ravel(), first.ravel(), law, land.ravel(),
                          first_land.ravel()])
    from .expert_dp import ROW_TSEAT
    out[ROW_TSEAT] = -1
    return out, lo
