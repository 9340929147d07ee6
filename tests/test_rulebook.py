"""The rules of a set's score are one compiled function each (heron_sim.engine.rulebook): the
generic turn, the greedy fused turn and the expert's and prudent's valuations call them; the
expert's programme (expert_dp, over its packed parameters) must agree with them on every input
(issue 29 item 2)."""

import itertools

import numpy as np
import pytest

from heron_sim.engine.layout import LOUP, TAUREAU
from heron_sim.engine.pack import pack_rules
from heron_sim.engine.rulebook import (
    bull_applies, bull_bonus, consolation_anxiety, consolation_no_set, power_enabled, set_advance,
)
from heron_sim.rules import Rules
from heron_sim.strategies import expert_dp

pytestmark = pytest.mark.exact

RULE_SETS = [
    {},
    {"bull_bonus": 4, "bull_min_set": 5, "consolation_no_set": 1, "consolation_anxiety": 2},
    {"combinations.advance": [0, 0, 1, 2, 4, 6, 8, 9, 10], "bull_min_set": 1},
    {"disabled_powers": ["taureau"]},
    {"powers": False},
]


@pytest.mark.parametrize("overrides", RULE_SETS)
def test_the_programmes_score_is_the_rulebooks(overrides):
    rules = Rules.build(overrides=overrides)
    R = pack_rules(rules)
    adv = np.array(rules.combo_advance, dtype=np.int64)
    eff = np.array(rules.combo_effect, dtype=np.int64)
    par = expert_dp._params(rules, expert_dp.T_BULL_READY)
    n = rules.n_dice
    for tot in itertools.product(range(n + 1), repeat=3):  # three animals are enough for the set
        if sum(tot) > n:
            continue
        t = np.array([*tot, 0, 0, 0], dtype=np.int64)
        s = int(t.max())
        for dbl in (False, True):
            for bull in (0, 1):
                want = set_advance(R, s, dbl and s > 0 and t[0] == s)
                if bull and bull_applies(R, s, TAUREAU, 1):
                    want += bull_bonus(R)
                got = expert_dp._raw_score(t, 0, adv, eff, dbl, bull if rules.power_enabled(TAUREAU) else 0, True, par)
                assert got == want, (overrides, tot, dbl, bull)
        assert expert_dp._score(t, 0, adv, eff, False, 0, True, par) == (
            set_advance(R, s, False) or consolation_no_set(R))
    assert par[expert_dp.PAR_CONS_ANX] == consolation_anxiety(R)


def test_the_bull_needs_a_ready_enabled_taureau_and_a_large_enough_set():
    R = pack_rules(Rules.build(overrides={"bull_min_set": 4}))
    assert bull_applies(R, 4, TAUREAU, 1) and not bull_applies(R, 3, TAUREAU, 1)
    assert not bull_applies(R, 5, TAUREAU, 0) and not bull_applies(R, 5, LOUP, 1)
    off = pack_rules(Rules.build(overrides={"disabled_powers": ["taureau"]}))
    assert not bull_applies(off, 8, TAUREAU, 1) and not power_enabled(off, TAUREAU) and power_enabled(off, LOUP)
    assert set_advance(R, 5, True) == 2 * set_advance(R, 5, False) == 10


@pytest.mark.parametrize("overrides", [{}, {"pond_pushback_per_heron": 0, "pond_pushback_flat": 4},
                                       {"pond_pushback_max": 5}, {"pond_pushback_per_heron": 2, "pond_pushback_flat": 1}])
def test_the_pushback_rule_is_its_python_mirror(overrides):
    """The Étang's push-back is one compiled rule (rulebook.pond_pushback, read by the game loop);
    the rules' Python mirror (Rules.pond_pushback, read by the exact laws and the booklet) gives the
    same squares for every heron count."""
    from heron_sim.engine.rulebook import pond_pushback

    rules = Rules.build(overrides=overrides)
    R = pack_rules(rules)
    assert [pond_pushback(R, h) for h in range(0, 17)] == [rules.pond_pushback(h) for h in range(0, 17)]
