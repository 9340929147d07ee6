"""The simulation against exact values computed by enumeration (heron_sim.exact).

Tolerances are 5 standard errors of the simulated frequency under the exact probability.
A negative control checks that the same test rejects a slightly wrong law.
"""

import math

import numpy as np
import pytest

from heron_sim.engine import layout as L
from heron_sim.exact import greedy_turn, p_first_roll_anxiety, p_pond, pond_pushback
from heron_sim.rules import MODES, Rules
from heron_sim.simulation import simulate_turns

pytestmark = [pytest.mark.exact, pytest.mark.statistical]

FAST_TURNS = 200_000
SLOW_TURNS = 4_000_000


def within(k, n, p, sigmas=5.0):
    """True if k successes in n trials are within `sigmas` standard errors of rate p."""
    se = math.sqrt(max(p * (1 - p), 1e-12) / n)
    return abs(k / n - p) <= sigmas * se + 1e-12


def check_turn_law(mode, turns, seed, guide="loup", powers=False):
    r = Rules.build(mode=mode, overrides={"powers": powers})
    law = greedy_turn(r, {"loup": 0, "taureau": 1, "lion": 3}[guide])
    out = simulate_turns(r, turns, seed, "greedy", guide)
    outcome, value, roll = out[:, 0], out[:, 1], out[:, 2]
    pond = outcome == L.OUT_POND
    anxiety = (outcome == L.OUT_ANXIETY) | (outcome == L.OUT_RESCUED)
    scored = outcome == L.OUT_SCORED
    assert within(pond.sum(), turns, law.p_pond), (mode, "pond")
    assert within(anxiety.sum(), turns, law.p_anxiety), (mode, "anxiety")
    first_anx = (anxiety & (roll == 1)).sum()
    assert within(first_anx, turns, p_first_roll_anxiety(r)), (mode, "first-roll anxiety")
    for adv, p in law.advance.items():
        assert within((scored & (value == adv)).sum(), turns, p), (mode, "advance", adv)
    assert set(np.unique(value[scored])) <= set(law.advance)
    total = value[scored | (outcome == L.OUT_RESCUED)].sum()
    sd = math.sqrt(np.var(np.where(scored | (outcome == L.OUT_RESCUED), value, 0)) / turns)
    assert abs(total / turns - law.expected_advance) <= 5 * sd, (mode, "mean advance")
    push = pond_pushback(r)
    n_pond = int(pond.sum())
    for h, p in push.items():
        assert within((value[pond] == h).sum(), n_pond, p), (mode, "push-back", h)


@pytest.mark.parametrize("mode", MODES)
def test_pond_probability_is_exact(mode):
    r = Rules.build(mode=mode)
    out = simulate_turns(r, FAST_TURNS, 11, "greedy", "loup")
    assert within((out[:, 0] == L.OUT_POND).sum(), FAST_TURNS, p_pond(r))


def test_seed_figure_pond_on_8d8_is_1_80_percent():
    assert round(100 * p_pond(Rules.build(mode="8d8")), 2) == 1.80


@pytest.mark.parametrize("mode", MODES)
def test_greedy_turn_law_matches_exact(mode):
    check_turn_law(mode, FAST_TURNS, 21)


@pytest.mark.parametrize("guide", ["taureau", "lion"])
def test_greedy_turn_law_with_bull_and_lion_powers(guide):
    check_turn_law("8d8", FAST_TURNS, 31, guide=guide, powers=True)


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_greedy_turn_law_matches_exact_large(mode):
    check_turn_law(mode, SLOW_TURNS, 41)


def test_negative_control_rejects_a_wrong_pond_law():
    # The same 5-sigma test must reject P(Pond) computed with 8-sided herons (1/8, not 1/7).
    r = Rules.build(mode="8d8")
    out = simulate_turns(r, FAST_TURNS, 11, "greedy", "loup")
    wrong = sum(math.comb(8, k) * (1 / 8) ** k * (7 / 8) ** (8 - k) for k in range(4, 9))
    assert not within((out[:, 0] == L.OUT_POND).sum(), FAST_TURNS, wrong)
