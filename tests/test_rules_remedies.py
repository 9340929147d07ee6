"""The remedy keys of issue 17 (docs/rules.md): scripted dice and decisions that fail under the
rulings' reading, and small whole games where the key acts at the start of a game."""

import numpy as np
import pytest

from heron_sim.errors import RulesError
from heron_sim.engine import layout as L
from heron_sim.rules import Rules
from heron_sim.simulation import simulate
from tests.scripting import NONE, STOP, keep, play_script, power, rules, set_of

pytestmark = pytest.mark.exact

POND = ["heron"] * 4 + ["loup", "taureau", "lion", "aigle"] + ["loup", "taureau", "lion", "aigle"]
NO_SNAKE = ["aigle", "loup", "taureau", "cerf"]
FOUR_CERFS = ["cerf"] * 4 + ["loup", "taureau", "serpent", "lion"]


def pond(r, positions=(0, 30, 30, 30), guides=NO_SNAKE):
    return play_script(r, dice=POND, positions=list(positions), strategies=["greedy"] * 4, guides=guides)


# ------------------------------------------------------------------ the Étang's push-back
@pytest.mark.parametrize("overrides,back", [
    ({}, 4),                                                          # the rulings: H squares
    ({"pond_pushback_per_heron": 2}, 8),
    ({"pond_pushback_per_heron": 0, "pond_pushback_flat": 3}, 3),
    ({"pond_pushback_per_heron": 2, "pond_pushback_flat": 1}, 9),
    ({"pond_pushback_per_heron": 2, "pond_pushback_flat": 1, "pond_pushback_max": 6}, 6),
    ({"pond_pushback_max": 3}, 3),
])
def test_pond_pushback_keys(overrides, back):
    r = rules(**overrides)
    res = pond(r)
    assert res.dice_left == 0 and res.row["ponds"] == 1
    assert res.positions == [0] + [30 - back] * 3
    assert res.row["pushback"] == back == r.pond_pushback(4)


def test_pond_pushback_of_zero_hits_nobody_and_the_snake_keeps_its_power():
    res = pond(rules(pond_pushback_per_heron=0), guides=["aigle", "serpent", "taureau", "cerf"])
    assert res.positions == [0, 30, 30, 30] and res.ready[1] == 1 and sum(res.raw_row[L.C_SEAT_POND_HITS:L.C_SEAT_POND_HITS + 4]) == 0


def test_snake_compares_the_variant_pushback():
    # snake_max_cancel = 5: the rulings' 4-square push-back is cancelled, a 8-square one is not
    guides = ["aigle", "serpent", "taureau", "cerf"]
    res = pond(rules(snake_max_cancel=5), guides=guides)
    assert res.positions[1] == 31
    res = pond(rules(snake_max_cancel=5, pond_pushback_per_heron=2), guides=guides)
    assert res.positions[1] == 22 and res.ready[1] == 1


# ------------------------------------------------------------------ seat compensation
NO_BOARD = {"board.squares": {}, "pond_threshold": 99}  # no square, no Pond: a pawn ends at its
                                                        # start plus its advance


def test_start_squares_place_the_pawns():
    r = Rules.build(overrides={"start_squares": [0, 0, 3, 7], "max_rounds": 1, **NO_BOARD})
    df = simulate(r, 400, seed=4, threads=1)
    for seat, start in enumerate([0, 0, 3, 7]):
        assert (df[f"pos_{seat}"] == start + df[f"advance_{seat}"]).all()
    assert (df["pos_3"] >= 7).all()
    base = simulate(Rules.build(overrides={"max_rounds": 1, **NO_BOARD}), 400, seed=4, threads=1)
    assert (base["pos_3"] == base["advance_3"]).all() and (base["pos_3"] < 7).any()


def test_start_squares_a_seat_near_the_finish_wins_its_first_turn():
    r = Rules.build(overrides={"start_squares": [0, 0, 0, 62]})
    df = simulate(r, 300, seed=5, threads=1)
    first = (df["rounds"] == 1) & (df["winner"] == 3)
    assert first.mean() > 0.5
    assert not ((simulate(Rules.build(), 300, seed=5, threads=1)["rounds"] == 1).any())


def test_start_squares_list_shorter_or_longer_than_the_table():
    r = Rules.build(overrides={"start_squares": [0, 2], "players": 3})
    assert r.seat_values("start_squares") == (0, 2, 0)
    r = Rules.build(overrides={"start_squares": [0, 1, 2, 3, 4], "players": 2})
    assert r.seat_values("start_squares") == (0, 1)


def _mean_se(x):
    x = np.asarray(x, dtype=float)
    return x.mean(), x.std() / np.sqrt(x.size)


def test_first_turn_extra_rolls():
    """rolls = 1: a seat with 2 extra rolls on its first turn advances far more in round 1."""
    over = {"rolls": 1, "max_rounds": 1, **NO_BOARD}
    df = simulate(Rules.build(overrides={**over, "first_turn_extra_rolls": [0, 2]}), 4000, seed=6, threads=1)
    m0, s0 = _mean_se(df["advance_0"])
    m1, s1 = _mean_se(df["advance_1"])
    assert m1 - m0 > 5 * np.hypot(s0, s1)
    base = simulate(Rules.build(overrides=over), 4000, seed=6, threads=1)  # negative control
    b0, t0 = _mean_se(base["advance_0"])
    b1, t1 = _mean_se(base["advance_1"])
    assert abs(b1 - b0) < 5 * np.hypot(t0, t1)


def test_first_turn_extra_rolls_scripted():
    # rolls = 1 and one extra roll: the seat may reroll once (the Wolf square's bonus slot)
    r = rules(rolls=1, first_turn_extra_rolls=[1])
    dice = set_of("cerf", 3) + ["cerf"] * 5
    guides = ["lion", "loup", "serpent", "taureau"]
    res = play_script(r, dice=dice, decisions=[keep(0, 1, 2), STOP], guides=guides,
                      bonus=r.seat_values("first_turn_extra_rolls"))
    assert res.positions[0] == 10 and res.bonus[0] == 0 and res.dice_left == 0
    with pytest.raises(ValueError):  # without it, no roll is left to reroll
        play_script(rules(rolls=1), dice=dice, decisions=[keep(0, 1, 2), STOP], guides=guides)


# ------------------------------------------------------------------ consolations
def test_consolation_after_an_anxiety():
    dice = ["heron"] * 3 + ["cerf"] * 5
    guides = ["loup", "lion", "serpent", "taureau"]
    res = play_script(rules(consolation_anxiety=2), dice=dice, positions=[10, 0, 0, 0], guides=guides)
    assert res.row["anxieties"] == 1 and res.positions[0] == 12
    res = play_script(rules(), dice=dice, positions=[10, 0, 0, 0], guides=guides)
    assert res.positions[0] == 10


def test_consolation_for_a_turn_with_no_set_of_three_triggers_no_square():
    dice = ["loup", "loup", "taureau", "taureau", "serpent", "serpent", "lion", "aigle"]
    res = play_script(rules(rolls=1, consolation_no_set=1), dice=dice, positions=[7, 0, 0, 0],
                      strategies=["greedy"] * 4)
    assert res.positions[0] == 8 and res.bonus[0] == 0  # the Wolf square (8) did not trigger
    res = play_script(rules(rolls=1), dice=dice, positions=[7, 0, 0, 0], strategies=["greedy"] * 4)
    assert res.positions[0] == 7
    # a set that scores gets no consolation, an Anxiety not the no-set one
    res = play_script(rules(rolls=1, consolation_no_set=1), dice=set_of("cerf", 3), strategies=["greedy"] * 4)
    assert res.positions[0] == 1
    res = play_script(rules(consolation_no_set=1), dice=["heron"] * 3 + ["cerf"] * 5,
                      guides=["loup", "lion", "serpent", "taureau"], strategies=["greedy"] * 4)
    assert res.positions[0] == 0


# ------------------------------------------------------------------ the powers' numbers
@pytest.mark.parametrize("strategies", [None, ["greedy"] * 4])  # scripted (generic) and greedy (fused)
def test_bull_min_set(strategies):
    dice = ["loup", "loup", "taureau", "taureau", "serpent", "serpent", "lion", "aigle"]
    decisions = [STOP, 1] if strategies is None else []
    guides = ["taureau", "loup", "serpent", "lion"]
    res = play_script(rules(rolls=1, bull_min_set=2, bull_bonus=3), dice=dice, decisions=decisions,
                      guides=guides, strategies=strategies)
    assert res.positions[0] == 3 and res.ready[0] == 0
    res = play_script(rules(rolls=1, bull_bonus=3), dice=dice, decisions=decisions[:1],
                      guides=guides, strategies=strategies)
    assert res.positions[0] == 0 and res.ready[0] == 1
    res = play_script(rules(rolls=1, bull_min_set=4), dice=set_of("cerf", 3), decisions=decisions[:1],
                      guides=guides, strategies=strategies)
    assert res.positions[0] == 1 and res.ready[0] == 1


def test_eagle_draws():
    dice = FOUR_CERFS + ["heron", "loup", "cerf"]
    guides = ["aigle", "lion", "taureau", "serpent"]
    res = play_script(rules(eagle_draws=3), dice=dice, decisions=[power(4), 3, STOP], guides=guides)
    assert res.positions[0] == 5 and res.dice_left == 0 and int(res.raw_row[L.C_POWERS + L.AIGLE]) == 1
    with pytest.raises(ValueError):  # the rulings draw two faces: there is no third to pick
        play_script(rules(), dice=dice, decisions=[power(4), 3, STOP], guides=guides)
    res = play_script(rules(eagle_draws=1), dice=dice, decisions=[power(4), 0, STOP], guides=guides)
    assert res.dice_left == 2 and res.positions[0] == 2


def test_patience_cost():
    guides = ["heron", "lion", "taureau", "serpent"]
    # free Patience (cost 0): usable on the last roll, and the rolls left are untouched
    res = play_script(rules(rolls=1, patience_cost=0), dice=FOUR_CERFS, decisions=[power(4, L.CERF), STOP],
                      guides=guides)
    assert res.positions[0] == 5 and res.ready[0] == 0
    with pytest.raises(ValueError):
        play_script(rules(rolls=1), dice=FOUR_CERFS, decisions=[power(4, L.CERF), STOP], guides=guides)
    # cost 2 with rolls = 3: after Patience no roll is left, a reroll is illegal
    with pytest.raises(ValueError):
        play_script(rules(patience_cost=2), dice=FOUR_CERFS + ["cerf"] * 3,
                    decisions=[power(4, L.CERF), keep(0, 1, 2, 3), STOP], guides=guides)
    res = play_script(rules(), dice=FOUR_CERFS + ["cerf"] * 3,
                      decisions=[power(4, L.CERF), keep(0, 1, 2, 3), STOP], guides=guides)
    assert res.positions[0] == 10 and res.dice_left == 0  # the rulings' one roll: a reroll left


def test_heron_patience_doubling():
    guides = ["heron", "lion", "taureau", "serpent"]
    res = play_script(rules(heron_patience_doubling=True), dice=FOUR_CERFS,
                      decisions=[power(4, L.CERF), STOP], guides=guides)
    assert res.positions[0] == 10 and int(res.raw_row[L.C_SEAT_DOUBLED]) == 5
    res = play_script(rules(), dice=FOUR_CERFS, decisions=[power(4, L.CERF), STOP], guides=guides)
    assert res.positions[0] == 5
    # the Patience animal wins a tie of the largest set: 3 loups and 3 lions, Patience on a lion
    dice = ["loup"] * 3 + ["lion"] * 2 + ["taureau", "serpent", "aigle"]
    res = play_script(rules(heron_patience_doubling=True), dice=dice, decisions=[power(5, L.LION), STOP],
                      guides=guides)
    assert res.positions[0] == 2  # a 3-set of lions, doubled
    # no doubling on the next turn: the Patience animal is the turn's only
    r = rules(players=2, rolls=1, patience_cost=0, heron_patience_doubling=True, **{"board.squares": {}})
    res = play_script(r, dice=FOUR_CERFS + set_of("loup", 3) + set_of("cerf", 4),
                      decisions=[power(4, L.CERF), STOP, STOP], guides=["heron", "lion"], slots=3)
    assert res.dice_left == 0 and res.decisions_left == 0
    assert res.positions == [12, 1]  # 10, then 2 (a 4-set of cerfs, not doubled)


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("key,value", [
    ("pond_pushback_per_heron", -1), ("pond_pushback_max", "3"), ("consolation_anxiety", 21),
    ("eagle_draws", 0), ("eagle_draws", 7), ("patience_cost", 4), ("bull_min_set", 0),
    ("heron_patience_doubling", 1), ("start_squares", [0, 63]), ("start_squares", [0] * 8),
    ("start_squares", 3), ("first_turn_extra_rolls", [0, 11]), ("first_turn_extra_rolls", [True]),
])
def test_bad_values_are_one_line_errors(key, value):
    with pytest.raises(RulesError) as err:
        Rules.build(overrides={key: value})
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(key) and "allowed" in msg


def test_defaults_are_the_rulings_and_keep_the_digest():
    r = Rules.build()
    assert r.pond_pushback(5) == 5 and r.seat_values("start_squares") == (0, 0, 0, 0)
    assert r.digest() == Rules.from_table(r.to_table()).digest()
    assert Rules.build(overrides={"start_squares": [0, 0, 1, 1]}).digest() != r.digest()
    assert Rules.build(overrides={"start_squares": []}).digest() == r.digest()


def test_finish_below_60_on_a_spelled_out_board():
    """A study's base rules spell the board out (to_table); a shorter finish still drops the
    default board's squares past it, as --set finish=54 does."""
    table = Rules.build().to_table()
    table["finish"] = 54
    r = Rules.from_table(table)
    assert r.squares == Rules.build(overrides={"finish": 54}).squares and max(s for s, _ in r.squares) < 54
    table["board"]["squares"]["58"] = "lion"  # not the default board: refused, as before
    with pytest.raises(RulesError):
        Rules.from_table(table)
