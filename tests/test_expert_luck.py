"""Luck from the expert's tables (heron_sim.strategies.expert_luck, issue 32 item 1).

Each roll's luck (value after − exact expectation before) has mean zero whatever the keep
policy: tested for three policies and three dice (8 D8, 7 D8: the table of pre-roll values;
the ten historic D6: the expectation over the physical free dice), with tolerances from the
standard error (4.5 σ), and two negative controls the same test catches.
"""

from functools import lru_cache

import numpy as np
import pytest

from heron_sim.rules import Rules
from heron_sim.strategies.expert_luck import POLICIES, luck_tables, simulate_turn_luck

pytestmark = pytest.mark.statistical

Z = 4.5  # σ of the zero-mean checks
#: Turns of the fast suite (the table's pre-roll values: ~3 µs a turn; the physical dice'
#: expectation, 10 D6: ~0.4 ms a turn)
FAST = {"8d8": 100_000, "7d8": 100_000, "10d6": 4_000}


@lru_cache(maxsize=None)
def _tables(mode):
    return luck_tables(Rules.build(mode=mode))


def _z(x):
    return x.mean() / (x.std(ddof=1) / np.sqrt(x.size))


@pytest.mark.parametrize("mode", ["8d8", "7d8", "10d6"])
@pytest.mark.parametrize("policy", list(POLICIES))
def test_luck_has_mean_zero(mode, policy):
    luck, _ = simulate_turn_luck(_tables(mode), FAST[mode], seed=11, policy=policy)
    assert abs(_z(luck)) < Z, (mode, policy, luck.mean())


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["8d8", "7d8", "10d6"])
@pytest.mark.parametrize("policy", list(POLICIES))
def test_luck_has_mean_zero_over_a_million_turns(mode, policy):
    luck, _ = simulate_turn_luck(_tables(mode), 1_000_000, seed=12, policy=policy)
    assert abs(_z(luck)) < Z, (mode, policy, luck.mean())


def test_a_biased_value_is_caught():
    """Negative control 1: +0.1 square on every value after a roll (a biased value function)."""
    luck, _ = simulate_turn_luck(_tables("8d8"), FAST["8d8"], seed=11, policy="greedy", bias=0.1)
    assert _z(luck) > Z


def test_the_expert_symmetrised_pre_roll_values_are_caught():
    """Negative control 2: with the historic D6, the pre-roll values of the expert's programme
    (a symmetrised die) are not the expectation of the true dice: the same test catches them."""
    luck, _ = simulate_turn_luck(_tables("10d6"), 20_000, seed=11, policy="expert", pre_values="table")
    assert abs(_z(luck)) > Z


def test_the_table_is_the_expectation_over_the_physical_dice():
    """With identical symmetric dice the pre-roll table and the convolution over the physical
    free dice give the same luck, turn by turn (same seed: same dice, same keeps)."""
    T = _tables("8d8")
    a, adv_a = simulate_turn_luck(T, 3_000, seed=5, policy="random", pre_values="table")
    b, adv_b = simulate_turn_luck(T, 3_000, seed=5, policy="random", pre_values="true")
    assert np.array_equal(adv_a, adv_b)
    assert np.allclose(a, b, atol=1e-9)


@pytest.mark.exact
def test_the_expert_luck_is_its_advance_minus_the_turn_value():
    """Under the expert's own keeps the sum telescopes: luck = the turn's advance − the value of
    a fresh turn (the programme's optimum)."""
    T = _tables("8d8")
    luck, adv = simulate_turn_luck(T, 20_000, seed=3, policy="expert")
    assert np.allclose(luck, adv - T.first[T.rolls - 1], atol=1e-9)


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="allowed"):
        simulate_turn_luck(_tables("8d8"), 10, seed=1, policy="lucky")
    with pytest.raises(ValueError, match="allowed"):
        simulate_turn_luck(_tables("8d8"), 10, seed=1, pre_values="guess")
