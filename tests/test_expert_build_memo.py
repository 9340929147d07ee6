"""The expert's tables built from the memo of each table's programme (a study's candidates share
most tables) and with the guides' power columns filled side by side are the tables built from
scratch, number for number."""

from __future__ import annotations

import numpy as np
import pytest

from heron_sim.rules import Rules
from heron_sim.strategies import expert_build

# each changes what some of the five tables read and not the others (the Bull's keys: the Bull's
# tables; the Héron's doubling: the Héron's table; Patience's cost, the Eagle's draws: no table,
# the power columns only; the rolls and the consolations: every table)
SEQUENCE = [
    {},
    {"bull_bonus": 3},
    {"bull_bonus": 3, "bull_min_set": 4},
    {"heron_doubling_herons": 1, "heron_doubling_min_set": 4},
    {"patience_cost": 0, "eagle_draws": 3},
    {"rolls": 4},
    {"consolation_anxiety": 1},
    {"bull_min_set": 5},
]


def _fresh(rules):
    expert_build._PROGRAMMES.clear()
    expert_build._structure.cache_clear()
    return expert_build.build_tables(rules)


@pytest.mark.parametrize("mode", ["7d8"])
def test_memo_builds_equal_fresh_builds(mode):
    expert_build._PROGRAMMES.clear()
    memo = [expert_build.build_tables(Rules.build(mode=mode, overrides=o)) for o in SEQUENCE]
    assert len(expert_build._PROGRAMMES) < 5 * len(SEQUENCE)  # the memo was used
    for over, got in zip(SEQUENCE, memo):
        want = _fresh(Rules.build(mode=mode, overrides=over))
        assert np.array_equal(got.row, want.row), over
        assert np.array_equal(got.value, want.value), over


def test_a_key_left_out_of_the_memo_would_be_caught():
    """The check above can fail: a table's programme reused for rules whose tables differ (a
    deliberately wrong memo hit) gives another row."""
    a = Rules.build(mode="7d8", overrides={"bull_bonus": 1})
    b = Rules.build(mode="7d8", overrides={"bull_bonus": 3})
    expert_build._PROGRAMMES.clear()
    expert_build.build_tables(a)
    # a's programmes filed under b's keys, as if the Bull's bonus were not read
    wrong = {k[:-1] + ((3 if k[-1][0] == 1 else k[-1][0],) + k[-1][1:],): v
             for k, v in expert_build._PROGRAMMES.items()}
    expert_build._PROGRAMMES.clear()
    expert_build._PROGRAMMES.update(wrong)
    stale = expert_build.build_tables(b)
    assert not np.array_equal(stale.row, _fresh(b).row)
