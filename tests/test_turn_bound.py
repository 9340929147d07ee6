"""The exact upper bound on the optimal turn with dice that differ (heron_sim.exact.turn_bound).

Checked three ways: with identical dice it equals the expert's programme (nothing is relaxed);
on small mixed dice it is at least the true optimum, computed by a brute force over every
ordered outcome of every die and every keep mask (tests/brute_force.py); and on 10 D6 it is above what the expert
really scores (slow).
"""

from __future__ import annotations

import pytest

from heron_sim.animals import AIGLE, HERON, LOUP
from heron_sim.exact import turn_upper_bound
from heron_sim.rules import Rules
from heron_sim.strategies.expert_build import optimal_turn_value

from .brute_force import brute_force_turn

pytestmark = [pytest.mark.exact, pytest.mark.statistical]


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
    truth = brute_force_turn(rules, guide)
    assert not bound.exact
    assert bound.value >= truth - 1e-12
    # and it is a bound, not a constant: it moves with the dice and stays within 50 %
    assert bound.value <= 1.5 * truth


def test_brute_force_matches_the_programme_on_identical_dice():
    """The brute force is itself checked where the optimum is known exactly."""
    rules = Rules.build(mode="7d8", overrides={"dice": {"count": 3}})
    assert brute_force_turn(rules, LOUP) == pytest.approx(
        optimal_turn_value(rules, LOUP, powers=False), abs=1e-12)


@pytest.mark.slow
def test_10d6_expert_scores_below_the_bound():
    from tests.test_expert import _mean_se, _turns_json

    bound = turn_upper_bound(Rules.build(mode="10d6"), LOUP).value
    mean, se = _mean_se(_turns_json("10d6", 400_000, seed=3))
    assert mean <= bound + 5 * se
