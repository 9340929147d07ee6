"""Scripted-dice tests of the guide variant keys the lab searches (defaults = the rulings)."""

import pytest

from heron_sim.errors import RulesError
from tests.scripting import NONE, STOP, YES, play_script, rules, set_of

pytestmark = pytest.mark.exact

HERON_FIRST = ["heron", "loup", "serpent", "taureau"]
DICE = ["heron", "heron", "cerf", "cerf", "cerf", "cerf", "loup", "taureau"]  # 2 herons, a 4-set


def heron_turn(r):
    # Decisions: no Patience (D_POWER), then stop.
    return play_script(r, dice=DICE, decisions=[NONE, STOP], guides=HERON_FIRST)


def test_heron_guide_never_doubles_by_default():
    res = heron_turn(rules())
    assert res.positions[0] == 2 and res.row["seat_doubled"] == 0


@pytest.mark.parametrize("k,expected", [(1, 4), (2, 4), (3, 2)])
def test_heron_guide_doubles_with_enough_herons_showing(k, expected):
    res = heron_turn(rules(heron_doubling_herons=k))
    assert res.positions[0] == expected
    assert res.row["seat_doubled"] == expected - 2


def test_heron_doubling_variant_needs_guide_power_doubling():
    assert heron_turn(rules(heron_doubling_herons=1, guide_power_doubling=False)).positions[0] == 2


def test_heron_doubling_variant_only_helps_the_heron_guide():
    res = play_script(rules(heron_doubling_herons=1), dice=DICE, decisions=[STOP],
                      guides=["lion", "loup", "serpent", "taureau"])
    assert res.positions[0] == 2  # a Lion guide: a Cerf set, not doubled


@pytest.mark.parametrize("bonus,expected", [(2, 3), (0, 1), (5, 6)])
def test_bull_bonus(bonus, expected):
    res = play_script(rules(bull_bonus=bonus), dice=set_of("cerf", 3), decisions=[STOP, YES],
                      guides=["taureau", "loup", "serpent", "lion"])
    assert res.positions[0] == expected and res.ready[0] == 0


@pytest.mark.parametrize("adv,expected", [(1, 31), (0, 30), (3, 33)])
def test_snake_advance(adv, expected):
    dice = ["heron"] * 4 + ["loup"] * 4 + ["loup"] * 4  # a Pond of 4 herons
    res = play_script(rules(snake_advance=adv), dice=dice, positions=[0, 30, 30, 30],
                      strategies=["greedy"] * 4, guides=["aigle", "serpent", "taureau", "cerf"])
    assert res.positions[1:] == [expected, 26, 26] and res.ready[1] == 0


@pytest.mark.parametrize("key,value", [("bull_bonus", -1), ("snake_advance", 21),
                                       ("heron_doubling_herons", 17), ("bull_bonus", 1.5)])
def test_variant_keys_are_validated(key, value):
    with pytest.raises(RulesError, match=key):
        rules(**{key: value})


def test_variant_keys_round_trip_through_the_rules_table():
    from heron_sim.rules import Rules

    r = rules(heron_doubling_herons=2, bull_bonus=1, snake_advance=2)
    again = Rules.from_table(r.to_table())
    assert again == r and again.digest() == r.digest()
    assert rules().digest() != r.digest()


@pytest.mark.parametrize("min_set,expected", [(0, 4), (4, 4), (5, 2)])
def test_heron_doubling_min_set(min_set, expected):
    res = heron_turn(rules(heron_doubling_herons=2, heron_doubling_min_set=min_set))
    assert res.positions[0] == expected


@pytest.mark.parametrize("limit,snake_pos,cancelled", [(0, 31, True), (4, 31, True), (3, 26, False)])
def test_snake_max_cancel(limit, snake_pos, cancelled):
    dice = ["heron"] * 4 + ["loup"] * 4 + ["loup"] * 4  # a Pond of 4 herons: a move back of 4
    res = play_script(rules(snake_max_cancel=limit), dice=dice, positions=[0, 30, 30, 30],
                      strategies=["greedy"] * 4, guides=["aigle", "serpent", "taureau", "cerf"])
    assert res.positions[1] == snake_pos and res.ready[1] == (0 if cancelled else 1)


def test_greedy_seats_play_the_guide_variants_too():
    """The greedy fast path (strategies/greedy_turn.py) applies the same variant keys."""
    import numpy as np

    from heron_sim.simulation import simulate

    def heron_doubled(r):
        df = simulate(r, 400, seed=3, strategies="greedy")
        return sum(int(df.loc[df[f"guide_{s}"].astype(str) == "heron", f"doubled_{s}"].sum()) for s in range(4))

    # (a seat dealt the Héron may hold another guide later, after a 🌀 Rotation: not 0 under the rulings)
    assert heron_doubled(rules(heron_doubling_herons=1)) > 1.5 * heron_doubled(rules())
    base = simulate(rules(), 300, seed=4, strategies="greedy")
    no_bull = simulate(rules(bull_bonus=0), 300, seed=4, strategies="greedy")
    assert not np.array_equal(base["rounds"].to_numpy(), no_bull["rounds"].to_numpy())


def test_every_rule_scalar_survives_packing():
    """Each P_* scalar reaches the kernels unchanged: no derived slot of the rules vector (such as
    R_UNIFORM) may share its index (one did, and the Snake's cancel limit read the dice flag)."""
    import numpy as np

    from heron_sim.engine import layout as L
    from heron_sim.engine.pack import pack_rules

    from heron_sim.rules import Rules

    rules = Rules.build(overrides={"snake_max_cancel": 7, "snake_advance": 2, "bull_bonus": 3})
    k = rules.to_kernel()
    R = pack_rules(rules)
    assert k.params.size <= L.R_UNIFORM
    np.testing.assert_array_equal(R[: k.params.size], k.params)
    assert R[L.R_UNIFORM] == 1 and R[L.R_NDICE] == 8
