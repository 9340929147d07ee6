"""Deterministic tests of the turn rules (scripted dice and decisions)."""

import pytest

from tests.scripting import NONE, NO, STOP, YES, keep, play_script, power, rules, set_of
from heron_sim.engine import layout as L

pytestmark = pytest.mark.exact

GUIDES = ["lion", "loup", "serpent", "taureau"]  # seat 0 (scripted) holds the Lion


def play(dice, decisions=(), r=None, **kw):
    kw.setdefault("guides", GUIDES)
    return play_script(r or rules(), dice=dice, decisions=decisions, **kw)


def combos(res, size):
    return int(res.raw_row[L.C_COMBOS + size])


@pytest.mark.parametrize("size,advance", [(2, 0), (3, 1), (4, 2), (5, 5), (6, 7), (7, 9), (8, 10)])
def test_combination_table(size, advance):
    decisions = [STOP] + ([NONE] if size >= 7 else [])
    res = play(set_of("cerf", size), decisions)
    assert res.positions[0] == advance
    assert combos(res, size) == 1


def test_ten_dice_sets_are_capped_at_10():
    res = play(["cerf"] * 10, [STOP, NONE], rules(mode="10d8"))
    assert res.positions[0] == 10
    assert combos(res, 10) == 1


def test_guide_power_doubles_the_advance():
    assert play(set_of("lion", 4), [STOP]).positions[0] == 4
    assert play(set_of("lion", 5), [STOP]).positions[0] == 10


def test_doubling_variant_off():
    assert play(set_of("lion", 5), [STOP], rules(guide_power_doubling=False)).positions[0] == 5


def test_tie_goes_to_the_guide_animal_then_lowest_index():
    dice = ["lion", "lion", "lion", "cerf", "cerf", "cerf", "loup", "taureau"]
    assert play(dice, [STOP]).positions[0] == 2            # Lion guide: its set, doubled
    res = play(dice, [NONE, STOP], guides=["cerf", "loup", "serpent", "taureau"])
    assert res.positions[0] == 2                            # Cerf guide: its set, doubled
    res = play(dice, [NONE, STOP], guides=["heron", "loup", "serpent", "taureau"])
    assert res.positions[0] == 1                            # Heron guide: lowest index, no doubling


def test_herons_never_form_a_combination():
    dice = ["heron", "heron", "loup", "loup", "taureau", "serpent", "aigle", "cerf"]
    res = play(dice, [STOP])
    assert res.positions[0] == 0 and combos(res, 2) == 1


def test_greedy_keeps_the_largest_set_and_rerolls_while_allowed():
    dice = (["loup"] * 3 + ["taureau", "serpent", "lion", "aigle", "cerf"]  # keeps 3 loups
            + ["loup", "loup", "taureau", "serpent", "lion"]                 # keeps 2 more
            + ["lion", "aigle", "cerf"])                                     # third roll
    res = play(dice, strategies=["greedy"] * 4, guides=["aigle", "loup", "serpent", "taureau"])
    assert res.dice_left == 0
    assert res.positions[0] == 5


def test_greedy_stops_when_no_new_die_can_be_kept():
    dice = ["loup"] * 3 + ["taureau", "serpent", "lion", "aigle", "cerf"] + [
        "taureau", "serpent", "lion", "aigle", "cerf"]
    res = play(dice + ["loup"] * 5, strategies=["greedy"] * 4, guides=["aigle", "loup", "serpent", "taureau"])
    assert res.dice_left == 5  # no third roll: nothing new of the target to keep
    assert res.positions[0] == 1


def test_final_dice_are_all_dice_showing_kept_or_not():
    # Keep one cerf, reroll; the unkept dice of the last roll still count.
    dice = set_of("cerf", 3) + ["cerf"] * 4 + ["aigle", "loup", "taureau"]
    res = play(dice, [keep(0), STOP])
    assert res.status[1:5] == [L.FREE] * 4   # the four new cerfs were never kept
    assert res.positions[0] == 5             # 1 kept + 4 showing = a 5-set


def test_reroll_needs_a_newly_kept_die():
    with pytest.raises(ValueError):
        play(set_of("cerf", 3), [keep()])


def test_a_heron_of_this_roll_counts_as_newly_kept():
    dice = ["heron", "loup", "taureau", "serpent", "lion", "aigle", "cerf", "loup"] + ["cerf"] * 5 + ["loup", "taureau"]
    res = play(dice, [keep(), STOP])
    assert res.positions[0] == 5


def test_reroll_must_leave_a_free_die():
    with pytest.raises(ValueError):
        play(set_of("cerf", 3), [keep(*range(8))])


def test_no_reroll_without_a_roll_left():
    with pytest.raises(ValueError):
        play(set_of("cerf", 3), [keep(0)], rules(rolls=1))
    res = play(set_of("cerf", 3) + ["cerf"] * 5, strategies=["greedy"] * 4, r=rules(rolls=1),
               guides=["aigle", "loup", "serpent", "taureau"])
    assert res.positions[0] == 1 and res.dice_left == 5


def test_kept_dice_stay_kept():
    dice = set_of("cerf", 3) + ["loup"] * 5 + ["loup"] * 5
    res = play(dice, [keep(0, 1, 2), keep(3, 4), STOP])
    assert res.faces[:3] == [5, 5, 5]
    assert res.status[:5] == [L.KEPT] * 5


def test_anxiety_on_the_first_roll_ends_the_turn():
    res = play(["heron"] * 3 + ["cerf"] * 5, [NO])
    assert res.positions[0] == 0 and res.row["anxieties"] == 1


def test_anxiety_is_checked_after_each_reroll():
    dice = ["heron", "heron"] + ["cerf", "cerf", "cerf", "loup", "taureau", "serpent"] + ["heron", "cerf", "cerf"]
    res = play(dice, [keep(2, 3, 4), NO])
    assert res.positions[0] == 0 and res.row["anxieties"] == 1


def test_four_herons_on_a_reroll_are_anxiety_not_pond():
    dice = set_of("cerf", 4) + ["heron"] * 4
    res = play(dice, [keep(0, 1, 2, 3), NO], positions=[0, 10, 10, 10])
    assert res.row["anxieties"] == 1 and res.row["ponds"] == 0 and res.positions == [0, 10, 10, 10]


def test_anxiety_threshold_variant():
    res = play(["heron"] * 3 + ["cerf"] * 5, [STOP], rules(anxiety_threshold=4))
    assert res.row["anxieties"] == 0 and res.positions[0] == 5


def test_lion_rescues_an_anxiety_on_the_non_heron_dice():
    res = play(["heron"] * 3 + ["cerf"] * 5, [YES])
    assert res.positions[0] == 5 and res.ready[0] == 0
    assert res.row["lion_rescues"] == 1 and res.row["anxieties"] == 1
    assert int(res.raw_row[L.C_POWERS + L.LION]) == 1


def test_lion_rescue_scores_normally_with_doubling():
    assert play(["heron"] * 3 + ["lion"] * 4 + ["cerf"], [YES]).positions[0] == 4


def test_lion_declined_or_exhausted_does_not_rescue():
    assert play(["heron"] * 3 + ["cerf"] * 5, [NO]).positions[0] == 0
    res = play(["heron"] * 3 + ["cerf"] * 5, [], ready=[0, 1, 1, 1])
    assert res.positions[0] == 0 and res.decisions_left == 0


def test_lion_rescue_switched_off_with_powers():
    res = play(["heron"] * 3 + ["cerf"] * 5, [], rules(powers=False))
    assert res.positions[0] == 0 and res.ready[0] == 1


def test_pond_pushes_opponents_back_by_all_herons():
    dice = ["heron"] * 4 + ["loup"] * 4 + ["heron", "loup", "loup", "loup"] + ["loup"] * 3
    res = play(dice, [], positions=[5, 10, 3, 20], protected=[0, 0, 0, 1], strategies=["greedy"] * 4,
               guides=["aigle", "loup", "taureau", "cerf"])
    assert res.dice_left == 0
    assert res.row["ponds"] == 1 and res.row["pushback"] == 5
    assert res.positions == [5, 5, 0, 20]  # active stays, floor at 0, protected immune


def test_pond_stops_when_all_dice_are_reserved():
    dice = ["heron"] * 6 + ["loup", "loup"] + ["heron", "heron"] + ["loup"] * 4
    res = play(dice, [], positions=[0, 30, 30, 30], strategies=["greedy"] * 4,
               guides=["aigle", "loup", "taureau", "cerf"])
    assert res.row["pushback"] == 8 and res.dice_left == 4 and res.positions[1:] == [22] * 3


def test_snake_cancels_a_pond_and_advances_one():
    dice = ["heron"] * 4 + ["loup"] * 4 + ["loup"] * 4
    res = play(dice, [], positions=[0, 30, 30, 30], strategies=["greedy"] * 4,
               guides=["aigle", "serpent", "taureau", "cerf"])
    assert res.positions[1:] == [31, 26, 26] and res.ready[1] == 0
    res = play(dice, [], r=rules(powers=False), positions=[0, 30, 30, 30], strategies=["greedy"] * 4,
               guides=["aigle", "serpent", "taureau", "cerf"])
    assert res.positions[1:] == [26, 26, 26]


def test_pond_threshold_variant():
    res = play(["heron"] * 4 + ["cerf"] * 4, [NO], r=rules(pond_threshold=5), positions=[0, 30, 30, 30])
    assert res.row["ponds"] == 0 and res.row["anxieties"] == 1 and res.positions[1:] == [30, 30, 30]


def test_six_set_regenerates_own_guide():
    res = play(set_of("cerf", 6), [STOP], ready=[0, 1, 1, 1])
    assert res.positions[0] == 7 and res.ready[0] == 1


def test_seven_set_may_swap_guides_state_travels():
    res = play(set_of("cerf", 7), [STOP, 2], ready=[0, 1, 1, 1])
    assert res.positions[0] == 9
    assert res.guides[0] == 2 and res.ready[0] == 1     # took the Snake, ready
    assert res.guides[2] == 3 and res.ready[2] == 0     # gave the exhausted Lion
    res = play(set_of("cerf", 7), [STOP, NONE], ready=[0, 1, 1, 1])
    assert res.guides[0] == 3 and res.ready[0] == 0     # no swap, no regeneration


def test_protected_player_cannot_be_swapped():
    res = play(set_of("cerf", 7), [STOP, 2], protected=[0, 0, 1, 0])
    assert res.guides[0] == 3 and res.guides[2] == 2


def test_eight_set_regenerates_or_swaps():
    res = play(set_of("cerf", 8), [STOP, NONE], ready=[0, 1, 1, 1])
    assert res.positions[0] == 10 and res.ready[0] == 1 and res.guides[0] == 3
    res = play(set_of("cerf", 8), [STOP, 1], ready=[0, 1, 1, 1])
    assert res.guides[0] == 0 and res.guides[1] == 3


def test_greedy_never_swaps_guides():
    res = play(set_of("cerf", 8), strategies=["greedy"] * 4, ready=[0, 1, 1, 1],
               guides=["lion", "loup", "serpent", "taureau"])
    assert res.guides == [3, 0, 2, 1] and res.ready[0] == 1


def test_bull_adds_two_after_a_combination_not_doubled():
    g = ["taureau", "loup", "serpent", "lion"]
    res = play(set_of("cerf", 3), [STOP, YES], guides=g)
    assert res.positions[0] == 3 and res.ready[0] == 0
    res = play(set_of("taureau", 4), [STOP, YES], guides=g)
    assert res.positions[0] == 6  # 2 doubled to 4, + 2
    res = play(set_of("cerf", 2), [STOP], guides=g)
    assert res.positions[0] == 0 and res.ready[0] == 1 and res.decisions_left == 0


def test_bull_after_the_set_effect():
    # A 6-set regenerates first, then the Bull is used: the guide ends exhausted.
    res = play(set_of("cerf", 6), [STOP, YES], guides=["taureau", "loup", "serpent", "lion"], ready=[0, 1, 1, 1])
    assert res.positions[0] == 9 and res.ready[0] == 0


def test_wolf_square_bonus_gives_one_more_roll_once():
    with pytest.raises(ValueError):  # one roll only: no reroll
        play(set_of("cerf", 3), [keep(0)], rules(rolls=1))
    dice = set_of("cerf", 3) + ["cerf", "cerf", "loup", "taureau", "serpent"]
    res = play(dice, [keep(0, 1, 2), STOP], rules(rolls=1), bonus=[1, 0, 0, 0])
    assert res.positions[0] == 5 and res.bonus[0] == 0 and res.dice_left == 0


def test_skipped_turn_keeps_the_wolf_bonus_and_ends_protection():
    res = play([], [], skip=[1, 0, 0, 0], protected=[1, 0, 0, 0], bonus=[1, 0, 0, 0])
    assert res.skip[0] == 0 and res.protected[0] == 0 and res.bonus[0] == 1
    assert res.row["skipped"] == 1 and res.row["played"] == 0


def test_a_pond_turn_uses_up_the_wolf_bonus():
    res = play(["heron"] * 4 + ["loup"] * 4 + ["loup"] * 4, [], bonus=[1, 0, 0, 0])
    assert res.bonus[0] == 0 and res.row["ponds"] == 1


def test_pond_lead_losses_count_ponds_that_change_the_leader():
    dice = ["heron"] * 4 + ["loup"] * 4 + ["loup"] * 4          # a Pond of 4
    kw = dict(strategies=["greedy"] * 4, guides=["aigle", "loup", "taureau", "cerf"])
    res = play(dice, [], positions=[5, 12, 3, 10], **kw)
    assert res.positions == [5, 8, 0, 6] and res.row["pond_lead_losses"] == 0  # seat 1 still leads
    res = play(dice, [], positions=[10, 12, 3, 8], **kw)
    assert res.positions == [10, 8, 0, 4] and res.row["pond_lead_losses"] == 1  # seat 0 now leads


def _seat(res, block, players=4):
    return [int(res.raw_row[block + s]) for s in range(players)]


def test_pond_per_seat_counters_record_roller_hits_and_squares_lost():
    dice = ["heron"] * 4 + ["loup"] * 4 + ["heron", "loup", "loup", "loup"] + ["loup"] * 3  # a Pond of 5
    res = play(dice, [], positions=[5, 10, 3, 20], protected=[0, 0, 0, 1], strategies=["greedy"] * 4,
               guides=["aigle", "loup", "taureau", "cerf"])
    assert res.positions == [5, 5, 0, 20]
    assert _seat(res, L.C_SEAT_PONDS) == [1, 0, 0, 0]          # the roller
    assert _seat(res, L.C_SEAT_POND_HITS) == [0, 1, 1, 0]      # protected seat 3 is not hit
    assert _seat(res, L.C_SEAT_POND_BACK) == [0, 5, 3, 0]      # seat 2 floors at square 0: loses 3, not 5


def test_pond_per_seat_counters_with_a_snake_cancel():
    dice = ["heron"] * 4 + ["loup"] * 4 + ["loup"] * 4          # a Pond of 4
    res = play(dice, [], positions=[0, 30, 30, 30], strategies=["greedy"] * 4,
               guides=["aigle", "serpent", "taureau", "cerf"])
    assert res.positions[1:] == [31, 26, 26]
    assert _seat(res, L.C_SEAT_POND_HITS) == [0, 1, 1, 1]      # the Snake's seat was hit, and cancelled it
    assert _seat(res, L.C_SEAT_POND_BACK) == [0, 0, 4, 4]
    assert sum(_seat(res, L.C_SEAT_POND_BACK)) <= res.row["pushback"] * 3
