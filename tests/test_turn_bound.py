"""The exact upper bound on the optimal turn with dice that differ (heron_sim.exact.turn_bound).

Checked three ways: with identical dice it equals the expert's programme (nothing is relaxed);
on small mixed dice it is at least the true optimum, computed here by a brute force over every
ordered outcome of every die and every keep mask; and on 10 D6 it is above what the expert
really scores (slow).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product

import pytest

from heron_sim.animals import AIGLE, HERON, LOUP
from heron_sim.exact import turn_upper_bound
from heron_sim.rules import Rules
from heron_sim.strategies.expert_dp import optimal_turn_value


def brute_force_mixed(rules: Rules, guide: int) -> float:
    """Optimal expected advance of a fresh turn, powers off, any dice: memoised on the ordered
    state (each die's face and whether it is held)."""
    dice = rules.dice
    adv = rules.combo_advance
    anx, pond = rules.anxiety_threshold, rules.pond_threshold

    def score(showing):
        counts = [showing.count(a) for a in range(6)]
        s = max(counts)
        animal = guide if guide < 6 and s > 0 and counts[guide] == s else counts.index(s)
        return adv[s] * (2 if rules.guide_power_doubling and animal == guide and s > 0 else 1)

    def weight(idx):
        w = 1
        for i in idx:
            w *= len(dice[i])
        return w

    @lru_cache(maxsize=None)
    def after_roll(state, fresh_held, r):
        showing = [f for f, _ in state]
        if showing.count(HERON) >= anx:
            return 0.0
        best = float(score(showing))
        if r == 0:
            return best
        free = [i for i, (_, held) in enumerate(state) if not held]
        for mask in range(1 << len(free)):
            now = [free[b] for b in range(len(free)) if mask >> b & 1]
            if len(now) == len(free) or (not now and not fresh_held):
                continue
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


@pytest.mark.parametrize("mode", ["7d8", "8d8"])
@pytest.mark.parametrize("guide", [LOUP, HERON])
def test_bound_is_the_optimum_with_identical_dice(mode, guide):
    rules = Rules.build(mode=mode)
    bound = turn_upper_bound(rules, guide)
    assert bound.exact and bound.types == 1
    assert bound.value == pytest.approx(optimal_turn_value(rules, guide, powers=False), abs=1e-12)


MIXED = [
    # three-faced dice of three kinds and one four-faced die
    [["loup", "taureau", "heron"], ["loup", "serpent", "heron"], ["taureau", "serpent", "heron"],
     ["loup", "taureau", "serpent", "heron"]],
    # the first four historic D6
    [["taureau", "serpent", "lion", "aigle", "cerf", "heron"],
     ["loup", "serpent", "lion", "aigle", "cerf", "heron"],
     ["loup", "taureau", "lion", "aigle", "cerf", "heron"],
     ["loup", "taureau", "serpent", "aigle", "cerf", "heron"]],
]


@pytest.mark.parametrize("faces", MIXED)
@pytest.mark.parametrize("guide", [LOUP, AIGLE])
def test_bound_is_above_the_true_optimum_on_mixed_dice(faces, guide):
    rules = Rules.build(mode="10d6", overrides={"dice": {"faces": faces}})
    bound = turn_upper_bound(rules, guide)
    truth = brute_force_mixed(rules, guide)
    assert not bound.exact
    assert bound.value >= truth - 1e-12
    # and it is a bound, not a constant: it moves with the dice and stays within 50 %
    assert bound.value <= 1.5 * truth


def test_brute_force_matches_the_programme_on_identical_dice():
    """The brute force above is itself checked where the optimum is known exactly."""
    rules = Rules.build(mode="7d8", overrides={"dice": {"count": 3}})
    assert brute_force_mixed(rules, LOUP) == pytest.approx(
        optimal_turn_value(rules, LOUP, powers=False), abs=1e-12)


@pytest.mark.slow
def test_10d6_expert_scores_below_the_bound():
    from tests.test_expert import _mean_se, _turns_json

    bound = turn_upper_bound(Rules.build(mode="10d6"), LOUP).value
    mean, se = _mean_se(_turns_json("10d6", 400_000, seed=3))
    assert mean <= bound + 5 * se
