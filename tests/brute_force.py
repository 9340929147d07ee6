"""The optimal single turn by brute force: every *ordered* outcome of every die and every keep
mask over die indices, memoised on the full ordered state (no multisets, no symmetry, no die
types). Shared by the checks of the expert's programme (tests/test_expert.py) and of the 10 D6
upper bound (tests/test_turn_bound.py); independent of both. Small dice counts only."""

from __future__ import annotations

from functools import lru_cache
from itertools import product

from heron_sim.animals import HERON
from heron_sim.rules import Rules


def brute_force_turn(rules: Rules, guide: int, bull: bool = False, lion: bool = False) -> float:
    """Optimal expected advance of a fresh turn over every keep/stop decision, any dice (each
    die's faces equiprobable): Guide Power doubling (and a Héron guide's heron_doubling_*
    keys); ``bull``: +bull_bonus on sets of bull_min_set+ (a ready Bull); ``lion``: an Anxiety
    is rescued and scored where the rescue scores (a ready Lion); consolation_no_set for a
    stop worth 0, consolation_anxiety for an Anxiety not rescued; no other power."""
    dice = rules.dice
    adv = rules.combo_advance
    anx, pond = rules.anxiety_threshold, rules.pond_threshold

    def raw(showing):
        counts = [showing.count(a) for a in range(6)]
        s = max(counts)
        animal = guide if guide < 6 and s > 0 and counts[guide] == s else counts.index(s)
        a = adv[s]
        k = rules.heron_doubling_herons
        if rules.guide_power_doubling and (
                (animal == guide and s > 0)
                or (guide == HERON and k > 0 and showing.count(HERON) >= k and s >= rules.heron_doubling_min_set)):
            a *= 2
        if bull and s >= rules.bull_min_set:
            a += rules.bull_bonus
        return a

    def score(showing):
        a = raw(showing)
        return a if a > 0 else rules.consolation_no_set

    def anxiety(showing):
        a = raw(showing) if lion else 0
        return max(a, rules.consolation_anxiety)

    def weight(indices):
        w = 1
        for i in indices:
            w *= len(dice[i])
        return w

    @lru_cache(maxsize=None)
    def after_roll(state, fresh_held, r):
        # state: (face, held) per die; held = kept or reserved heron.
        showing = [f for f, _ in state]
        if showing.count(HERON) >= anx:
            return float(anxiety(showing))
        best = float(score(showing))
        if r == 0:
            return best
        free = [i for i, (_, held) in enumerate(state) if not held]
        for mask in range(1 << len(free)):
            now = [free[b] for b in range(len(free)) if mask >> b & 1]
            if len(now) == len(free) or (not now and not fresh_held):
                continue
            # free dice are about to be rerolled: their faces are forgotten (None)
            nxt = tuple((f, True) if held or i in now else (None, False)
                        for i, (f, held) in enumerate(state))
            best = max(best, before_roll(nxt, r - 1))
        return best

    @lru_cache(maxsize=None)
    def before_roll(state, r):
        free = [i for i, (_, held) in enumerate(state) if not held]
        total = 0.0
        for outcome in product(*[dice[i] for i in free]):
            new = list(state)
            for i, f in zip(free, outcome):
                new[i] = (f, f == HERON)
            total += after_roll(tuple(new), HERON in outcome, r)
        return total / weight(free)

    total = 0.0
    for outcome in product(*dice):
        h = outcome.count(HERON)
        if h < pond:
            total += after_roll(tuple((f, f == HERON) for f in outcome), h > 0, rules.rolls - 1)
    return total / weight(range(len(dice)))
