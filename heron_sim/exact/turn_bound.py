"""An exact upper bound on the optimal single turn when the dice differ (10 D6).

The expert's dynamic programme (heron_sim.strategies.expert_dp) is exact for identical dice:
then a state needs only the animal counts. With dice that differ, which dice are still free
matters (a die without an Aigle face cannot roll one), and an exact programme would have to
follow, after each roll, which *type* of die shows which face: for 10 D6 over 10^9
outcome-and-keep pairs per roll, out of reach here.

This module computes the optimum of a *relaxed* turn instead. Its states are exact: the kept
animals K, the reserved herons h and the free dice by type F (the 10 D6 have 6 types); each
roll of F is enumerated exactly (multinomial law per type, convolved) but only by its totals
(herons, count of each animal). The relaxation: when the player keeps dice after a roll, it
may choose which of the rolled dice stay free (F' inside F, of the right size) among every
choice consistent with what it holds, i.e. the dice not in F' can show the kept animals and
the reserved herons (a matching of dice to faces, Hall's condition over the 127 sets of
faces). The real turn always makes one of these choices, so

    optimal real turn  <=  relaxed optimum  (this module's value),

an exact bound (exact sums over enumerated outcomes, no sampling). With identical dice there
is nothing to choose and the value is the optimum itself (tested against the expert's
programme); on small mixed dice it is tested against a brute force over every ordered outcome.

What is optimised: the expected advance of one fresh turn, powers off (every keep/stop
decision; Guide Power doubling kept; a Pond or an Anxiety scores 0), as the expert's programme
with powers off.

Programme (W[r]: before a roll that leaves r rolls; M[r] its best consistent free subset):

- Q[r](K, c, h | F) = max(score(K + c), max over legal keeps k <= c of M[r - 1](K + k, h; F)),
  a keep being legal when it leaves a free die and holds a die of this roll (a kept die or a
  heron of this roll, rulings §2.3); Q[0] = score;
- W[r](K, h, F) = expectation over the roll of F of Q[r] (0 when the herons reach the
  threshold); M[r](K, h; F) = max of W[r](K, h, F') over F' inside F consistent with (K, h);
- the turn = expectation over the first roll of all the dice of Q[rolls - 1] (0 on a Pond).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np
from numba import njit

from ..animals import N_ANIMALS, animal_index
from ..errors import HeronSimError
from ..rules import Rules

KINDS = N_ANIMALS  # 6 animals + the heron


@dataclass(frozen=True)
class TurnBound:
    """value: the relaxed optimum (an upper bound on the real one); exact: the dice are all
    alike, so the bound is the optimum itself; seconds: compute time."""

    value: float
    exact: bool
    types: int
    seconds: float


def _die_types(rules: Rules):
    """Distinct face laws (over the 7 kinds) and how many dice have each."""
    laws: dict[tuple[float, ...], int] = {}
    for die in rules.dice:
        law = tuple(die.count(k) / len(die) for k in range(KINDS))
        laws[law] = laws.get(law, 0) + 1
    law_arr = np.array(list(laws.keys()), dtype=np.float64)
    return law_arr, np.array(list(laws.values()), dtype=np.int64)


def _compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _outcomes(n_max: int):
    """Every 7-vector of counts with total f, for f = 0..n_max: offsets, vectors, and the index
    of (vector + one die of kind k) among the vectors of total f + 1."""
    offs = [0]
    vecs: list[tuple[int, ...]] = []
    for f in range(n_max + 1):
        vecs.extend(sorted(_compositions(f, KINDS)))
        offs.append(len(vecs))
    index = {v: i for i, v in enumerate(vecs)}
    nxt = np.full((len(vecs), KINDS), -1, dtype=np.int64)
    for i, v in enumerate(vecs):
        if sum(v) < n_max:
            for k in range(KINDS):
                u = list(v)
                u[k] += 1
                nxt[i, k] = index[tuple(u)]
    return np.array(offs, dtype=np.int64), np.array(vecs, dtype=np.int64), nxt


def _free_sets(law, m, offs, nxt):
    """Every free set F (count of free dice per type, F <= m) and the law of its roll over the
    outcome vectors of |F| dice (offset into one flat array)."""
    T = len(m)
    sets = list(product(*[range(int(x) + 1) for x in m]))
    sets.sort(key=lambda f: (sum(f), f))
    law_of: dict[tuple[int, ...], np.ndarray] = {tuple([0] * T): np.array([1.0])}
    for f in sets:
        if sum(f) == 0:
            continue
        t = max(i for i in range(T) if f[i] > 0)  # F = F' + one die of type t
        prev = list(f)
        prev[t] -= 1
        p_prev = law_of[tuple(prev)]
        n = sum(f)
        p = np.zeros(offs[n + 1] - offs[n])
        rows = np.arange(offs[n - 1], offs[n])
        for k in range(KINDS):
            if law[t, k] > 0.0:
                np.add.at(p, nxt[rows, k] - offs[n], p_prev * law[t, k])
        law_of[tuple(f)] = p
    F = np.array(sets, dtype=np.int64).reshape(len(sets), T)
    sizes = F.sum(axis=1)
    poff = np.zeros(len(sets) + 1, dtype=np.int64)
    for i, f in enumerate(sets):
        poff[i + 1] = poff[i] + law_of[f].size
    probs = np.concatenate([law_of[f] for f in sets])
    return F, sizes, poff, probs


@njit(cache=True)
def _score(T, adv, guide, dbl):
    s = 0
    for a in range(6):
        if T[a] > s:
            s = T[a]
    a = adv[s]
    if dbl and s > 0 and guide < 6 and T[guide] == s:
        a *= 2
    return float(a)


@njit(cache=True)
def _code(v, base):
    c = 0
    for a in range(5, -1, -1):
        c = c * base + v[a]
    return c


@njit(cache=True)
def _consistent(K, h, F, m, showmask):
    """Can the dice not in F show the kept animals K and the h reserved herons?"""
    T = m.shape[0]
    for S in range(1, 128):
        demand = 0
        for k in range(6):
            if (S >> k) & 1:
                demand += K[k]
        if (S >> 6) & 1:
            demand += h
        if demand == 0:
            continue
        supply = 0
        for t in range(T):
            if showmask[t] & S:
                supply += m[t] - F[t]
        if supply < demand:
            return False
    return True


@njit(cache=True)
def _feasible_table(N, pre_K, pre_h, Fsets, Fsize, m, showmask):
    """feasible[p, f]: the dice not in free set f can show pre-state p's kept animals and
    herons (only where the sizes match, else False)."""
    npre = pre_K.shape[0]
    nF = Fsets.shape[0]
    out = np.zeros((npre, nF), dtype=np.bool_)
    for p in range(npre):
        n = N - pre_h[p]
        for a in range(6):
            n -= pre_K[p, a]
        for f in range(nF):
            if Fsize[f] == n:
                out[p, f] = _consistent(pre_K[p], pre_h[p], Fsets[f], m, showmask)
    return out


@njit(cache=True)
def _best_free_subset(W, feasible, sub_off, sub_list, Fsize, pre_n):
    """M[p, f] = max of W[p, f'] over the free sets f' inside f with |f'| = n(p) that are
    consistent with p (-1 where there is none)."""
    npre, nF = W.shape
    M = np.full((npre, nF), -1.0)
    for p in range(npre):
        n = pre_n[p]
        for f in range(nF):
            if Fsize[f] < n:
                continue
            best = -1.0
            for j in range(sub_off[f], sub_off[f + 1]):
                g = sub_list[j]
                if Fsize[g] == n and feasible[p, g] and W[p, g] > best:
                    best = W[p, g]
            M[p, f] = best
    return M


@njit(cache=True)
def _level(N, anx, r, adv, guide, dbl, offs, vecs, Fsize, poff, probs, pre_K, pre_h, pre_n,
           pre_index, base, feasible, Mprev):
    """W[p, f] for every consistent pre-state p and free set f: the expected value of rolling
    f when the roll leaves r rolls (keeps then choose among the free subsets, via Mprev)."""
    npre = pre_K.shape[0]
    nF = Fsize.shape[0]
    W = np.full((npre, nF), -1.0)
    tot = np.zeros(6, dtype=np.int64)
    Kk = np.zeros(6, dtype=np.int64)
    k = np.zeros(6, dtype=np.int64)
    for p in range(npre):
        K = pre_K[p]
        h = pre_h[p]
        n = pre_n[p]
        o0 = offs[n]
        for f in range(nF):
            if not feasible[p, f]:
                continue
            acc = 0.0
            for j in range(offs[n + 1] - o0):
                pr = probs[poff[f] + j]
                if pr == 0.0:
                    continue
                v = vecs[o0 + j]
                h2 = h + v[6]
                if h2 >= anx:
                    continue
                acc += pr * _q_value(K, v, h2, r, anx, adv, guide, dbl, Mprev, f, pre_index,
                                     base, tot, Kk, k)
            W[p, f] = acc
    return W


@njit(cache=True)
def _first_roll(N, anx, pond, rolls, adv, guide, dbl, offs, vecs, poff, probs, pre_index, base,
                Mprev, full):
    tot = np.zeros(6, dtype=np.int64)
    Kk = np.zeros(6, dtype=np.int64)
    k = np.zeros(6, dtype=np.int64)
    zero = np.zeros(6, dtype=np.int64)
    acc = 0.0
    o0 = offs[N]
    for j in range(offs[N + 1] - o0):
        v = vecs[o0 + j]
        pr = probs[poff[full] + j]
        if pr == 0.0 or v[6] >= pond or v[6] >= anx:
            continue
        acc += pr * _q_value(zero, v, v[6], rolls - 1, anx, adv, guide, dbl, Mprev, full,
                             pre_index, base, tot, Kk, k)
    return acc


@njit(cache=True)
def _q_value(K, v, h2, r, anx, adv, guide, dbl, Mprev, f, pre_index, base, tot, Kk, k):
    """Q[r](K, c = v[:6], h2) after a roll of free set f: the best of stopping and every legal
    keep, each keep worth the best consistent choice of the dice left free inside f
    (Mprev[., f]); v[6] herons rolled now make keeping nothing new legal."""
    csum = 0
    for a in range(6):
        tot[a] = K[a] + v[a]
        csum += v[a]
    best = _score(tot, adv, guide, dbl)
    if r < 1 or csum < 1:
        return best
    for a in range(6):
        k[a] = 0
    while True:
        ksum = 0
        for a in range(6):
            ksum += k[a]
        if ksum < csum and (ksum >= 1 or v[6] >= 1):
            for a in range(6):
                Kk[a] = K[a] + k[a]
            val = Mprev[pre_index[_code(Kk, base) * anx + h2], f]
            if val > best:
                best = val
        a = 0
        while a < 6:
            if k[a] < v[a]:
                k[a] += 1
                break
            k[a] = 0
            a += 1
        if a == 6:
            break
    return best


def turn_upper_bound(rules: Rules, guide: int | str) -> TurnBound:
    """Exact upper bound on the optimal expected advance of one fresh turn with powers off
    (Guide Power doubling kept), for any dice; the optimum itself when the dice are alike."""
    import time

    t0 = time.perf_counter()
    g = animal_index(guide, "guide") if isinstance(guide, str) else int(guide)
    N = rules.n_dice
    if N > 12:
        raise HeronSimError(f"turn bound: {N} dice; allowed: at most 12")
    anx = min(rules.anxiety_threshold, N + 1)
    if anx > 8:
        raise HeronSimError("turn bound: an anxiety threshold above 8 is not supported")
    law, m = _die_types(rules)
    showmask = np.array([sum(1 << k for k in range(KINDS) if law[t, k] > 0) for t in range(len(m))],
                        dtype=np.int64)
    offs, vecs, nxt = _outcomes(N)
    Fsets, Fsize, poff, probs = _free_sets(law, m, offs, nxt)
    base = N + 1
    pre = [(K, h) for s in range(N) for K in _compositions(s, 6)
           for h in range(anx) if s + h <= N - 1]
    pre_K = np.array([K for K, _ in pre], dtype=np.int64).reshape(-1, 6)
    pre_h = np.array([h for _, h in pre], dtype=np.int64)
    codes = np.zeros(len(pre), dtype=np.int64)
    for a in range(5, -1, -1):
        codes = codes * base + pre_K[:, a]
    pre_index = np.full(base**6 * anx, -1, dtype=np.int32)
    pre_index[codes * anx + pre_h] = np.arange(len(pre))
    adv = np.array(rules.combo_advance, dtype=np.int64)
    pre_n = N - pre_h - pre_K.sum(axis=1)
    index = {tuple(f): i for i, f in enumerate(Fsets.tolist())}
    sub_off = [0]
    sub_list: list[int] = []
    for f in Fsets.tolist():
        sub_list.extend(index[g] for g in product(*[range(x + 1) for x in f]))
        sub_off.append(len(sub_list))
    sub_off_a = np.array(sub_off, dtype=np.int64)
    sub_list_a = np.array(sub_list, dtype=np.int64)
    feasible = _feasible_table(N, pre_K, pre_h, Fsets, Fsize, m, showmask)
    dbl = bool(rules.guide_power_doubling)
    M = np.full((len(pre), len(Fsets)), -1.0)
    for r in range(rules.rolls - 1):  # W[r]: a roll that leaves r rolls
        W = _level(N, anx, r, adv, g, dbl, offs, vecs, Fsize, poff, probs, pre_K, pre_h, pre_n,
                   pre_index, base, feasible, M)
        M = _best_free_subset(W, feasible, sub_off_a, sub_list_a, Fsize, pre_n)
    value = _first_roll(N, anx, rules.pond_threshold, rules.rolls, adv, g, dbl, offs, vecs, poff,
                        probs, pre_index, base, M, len(Fsets) - 1)
    return TurnBound(float(value), len(m) == 1, len(m), time.perf_counter() - t0)
