"""Deterministic tests of the guides' one-shot powers (scripted dice and decisions)."""

import pytest

from tests.scripting import NONE, STOP, keep, play_script, power, rules, set_of
from heron_sim.engine import layout as L

pytestmark = pytest.mark.exact

FOUR_CERFS = ["cerf"] * 4 + ["loup", "taureau", "serpent", "lion"]


def play(guide, dice, decisions, r=None, **kw):
    others = [g for g in ("lion", "taureau", "serpent", "aigle") if g != guide][:3]
    return play_script(r or rules(), dice=dice, decisions=decisions, guides=[guide] + others, **kw)


def used(res, animal):
    return int(res.raw_row[L.C_POWERS + animal])


def test_wolf_rerolls_any_die_even_a_reserved_heron():
    dice = ["heron", "heron", "cerf", "cerf", "cerf", "cerf", "loup", "taureau"] + ["cerf"]
    res = play("loup", dice, [power(0), STOP])
    assert res.positions[0] == 5 and res.ready[0] == 0 and used(res, L.LOUP) == 1
    assert res.status[0] == L.FREE  # handled as a freshly rolled die: a free cerf


def test_wolf_new_heron_is_reserved_and_can_cause_anxiety():
    dice = ["heron", "heron", "cerf", "cerf", "cerf", "cerf", "loup", "taureau"] + ["heron"]
    res = play("loup", dice, [power(7)])
    assert res.positions[0] == 0 and res.row["anxieties"] == 1


def test_wolf_rerolled_kept_die_becomes_free_and_counts_as_newly_kept():
    dice = (set_of("cerf", 3)                       # roll 1: keep the 3 cerfs
            + ["loup", "loup", "loup", "aigle", "lion"]  # roll 2: nothing new to keep...
            + ["cerf"]                              # ...the Wolf rerolls kept die 0: a cerf
            + ["cerf"] * 4 + ["loup"])              # roll 3
    res = play("loup", dice, [NONE, keep(0, 1, 2), power(0), keep(0), STOP, NONE])
    assert res.dice_left == 0 and res.decisions_left == 0
    assert res.positions[0] == 9  # a 7-set of cerfs


def test_eagle_sets_a_die_to_a_drawn_face():
    res = play("aigle", FOUR_CERFS + ["heron", "cerf"], [power(4), 2, STOP])
    assert res.positions[0] == 5 and res.ready[0] == 0 and used(res, L.AIGLE) == 1
    res = play("aigle", FOUR_CERFS + ["heron", "cerf"], [power(4), 0, STOP])
    assert res.positions[0] == 2 and res.ready[0] == 0  # kept the original face: power spent


def test_eagle_heron_is_reserved_and_can_cause_anxiety():
    dice = ["heron", "heron", "cerf", "cerf", "cerf", "loup", "taureau", "serpent"] + ["heron", "cerf"]
    res = play("aigle", dice, [power(5), 1])
    assert res.row["anxieties"] == 1 and res.positions[0] == 0


def test_eagle_cannot_pick_a_reserved_heron():
    dice = ["heron", "cerf", "cerf", "cerf", "loup", "taureau", "serpent", "lion"]
    with pytest.raises(ValueError):
        play("aigle", dice + ["cerf", "cerf"], [power(0), 1])


def test_deer_turns_a_die_into_an_animal_showing_elsewhere():
    res = play("cerf", FOUR_CERFS, [power(4, L.CERF), STOP])
    assert res.positions[0] == 10 and res.ready[0] == 0  # 5 cerfs, doubled by the Cerf guide
    with pytest.raises(ValueError):
        play("cerf", FOUR_CERFS, [power(4, L.AIGLE)])     # no eagle showing on another die
    with pytest.raises(ValueError):
        play("cerf", ["heron"] + FOUR_CERFS[:7], [power(0, L.CERF)])  # not a heron die


def test_heron_patience_spends_a_roll_and_keeps_the_die():
    res = play("heron", FOUR_CERFS, [power(4, L.CERF), STOP])
    assert res.positions[0] == 5 and res.ready[0] == 0 and res.status[4] == L.KEPT
    with pytest.raises(ValueError):  # rolls = 2: the one remaining roll was given up
        play("heron", FOUR_CERFS, [power(4, L.CERF), keep(5)], rules(rolls=2))
    with pytest.raises(ValueError):  # no remaining roll to give up
        play("heron", FOUR_CERFS, [power(4, L.CERF)], rules(rolls=1))


def test_heron_patience_heron_face_can_cause_anxiety():
    dice = ["heron", "heron", "cerf", "cerf", "cerf", "loup", "taureau", "serpent"]
    res = play("heron", dice, [power(5, L.HERON)])
    assert res.row["anxieties"] == 1 and res.positions[0] == 0


def test_heron_patience_uses_the_faces_of_a_d6():
    r = rules(mode="10d6")
    dice = ["cerf"] * 4 + ["loup", "taureau", "serpent", "lion", "aigle", "loup"]
    res = play("heron", dice, [power(0, 0), STOP], r)  # die 0 of 10d6: face 0 is taureau
    assert res.faces[0] == L.TAUREAU


def test_powers_off_asks_for_no_power():
    res = play("loup", FOUR_CERFS, [STOP], rules(powers=False))
    assert res.positions[0] == 2 and res.decisions_left == 0 and res.ready[0] == 1


def test_disabled_powers_switch_off_one_guide_only():
    r = rules(disabled_powers=["lion"])
    res = play("lion", ["heron"] * 3 + ["cerf"] * 5, [], r)
    assert res.positions[0] == 0 and res.ready[0] == 1 and res.decisions_left == 0
    assert r.power_enabled(L.TAUREAU) and not r.power_enabled(L.LION)
    res = play("taureau", set_of("cerf", 3), [STOP], rules(disabled_powers=["taureau"]))
    assert res.positions[0] == 1 and res.ready[0] == 1  # no Bull: +1 only
    res = play("taureau", set_of("cerf", 3), [STOP, 1], rules(disabled_powers=["lion"]))
    assert res.positions[0] == 3  # the Bull still works


def test_disabled_snake_does_not_cancel_a_pond():
    dice = ["heron"] * 4 + ["loup"] * 4 + ["loup"] * 4
    res = play_script(rules(disabled_powers=["serpent"]), dice=dice, positions=[0, 30, 30, 30],
                      strategies=["greedy"] * 4, guides=["aigle", "serpent", "taureau", "cerf"])
    assert res.positions[1:] == [26, 26, 26] and res.ready[1] == 1
