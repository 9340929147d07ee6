"""All seven powers in play (issue 17 item 2): each one-shot power is used by at least two of the
standard strategies, counted by the engine (power_* columns) in games where every seat plays
the same strategy (so every use is that strategy's)."""

import pytest

from heron_sim.animals import NAMES
from heron_sim.loop.kernels import shared_kernel
from heron_sim.rules import Rules
from heron_sim.simulation import simulate

pytestmark = pytest.mark.statistical

STANDARD = ("greedy", "prudent", "expert", "racer")
ROLL_TIME = ("loup", "aigle", "cerf", "heron")


@pytest.fixture(scope="module")
def uses():
    """Uses of each power per game, by strategy (150 four-player 8d8 games each; every power is
    used about once a game or more by a strategy that uses it, so 0 in 150 games means never)."""
    out = {}
    with shared_kernel():  # one compiled kernel for all four (as the test plan's runner does)
        for s in STANDARD:
            df = simulate(Rules.build(), 150, seed=23, strategies=",".join([s] * 4), threads=1)
            out[s] = {a: float(df[f"power_{a}"].mean()) for a in NAMES}
    return out


def test_every_power_is_used_by_two_standard_strategies(uses):
    for animal in NAMES:
        users = [s for s in STANDARD if uses[s][animal] > 0]
        assert len(users) >= 2, f"{animal}: used only by {users}"


def test_greedy_is_the_rulings_reference(uses):
    # negative control: the counter does tell a strategy that never uses a power (rulings §7)
    assert all(uses["greedy"][a] == 0 for a in ROLL_TIME)
    assert all(uses["greedy"][a] > 0 for a in ("taureau", "serpent", "lion"))


def test_the_expert_and_racer_use_all_seven(uses):
    for s in ("expert", "racer"):
        assert all(uses[s][a] > 0.2 for a in NAMES), uses[s]


def test_disabled_powers_are_never_used(uses):
    df = None
    with shared_kernel():
        df = simulate(Rules.build(overrides={"disabled_powers": ["heron", "lion"]}), 60, seed=2,
                      strategies="expert,racer,prudent,expert", threads=1)
    assert (df["power_heron"] == 0).all() and (df["power_lion"] == 0).all()
    assert df["power_cerf"].sum() > 0


ALL_REMEDIES = {
    "pond_pushback_per_heron": 2, "pond_pushback_flat": 1, "pond_pushback_max": 7,
    "consolation_anxiety": 1, "consolation_no_set": 1, "bull_min_set": 2, "bull_bonus": 3,
    "eagle_draws": 3, "patience_cost": 0, "heron_patience_doubling": True,
    "heron_doubling_herons": 2, "snake_advance": 2, "start_squares": [0, 0, 1, 2],
    "first_turn_extra_rolls": [0, 1, 2, 2],
}


@pytest.mark.parametrize("mode", ["8d8", "10d6"])
def test_every_strategy_plays_legally_under_every_remedy(mode):
    """Games with every remedy key changed at once: no strategy makes an illegal choice (the
    engine would raise), every game ends, and the roll-time powers are still used."""
    rules = Rules.build(mode=mode, overrides=ALL_REMEDIES)
    with shared_kernel():
        df = simulate(rules, 150, seed=3, strategies="expert,racer,prudent,random", threads=1)
    assert df["finished"].all()
    assert df["power_heron"].sum() > 0 and df["power_aigle"].sum() > 0 and df["power_taureau"].sum() > 0
