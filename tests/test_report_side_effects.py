"""An advised change lists its side effects at every table (issue 58 item 5): the length, dead
turns, Angoisse, comebacks, each guide and each seat, each with the span of its differences
where the study shows one (95 %) and at how many tables, the rest named as unchanged."""

from __future__ import annotations

from heron_sim.report.studies import side_effects_words


def _e(metric, diff, differs, base=0.3):
    return {"metric": metric, "diff": diff, "base": base, "significant": "differs" if differs else "no clear difference"}


def _finalist():
    return {"effects_by_scenario": {
        "regular-2": [_e("length", 0.3, True, base=30.0), _e("dead_turn_rate", 0.0004, True),
                      _e("anxiety_rate", 0.01, False), _e("comeback", 0.03, True),
                      _e("guide_heron_win_rate", 0.012, True), _e("guide_loup_win_rate", -0.002, False),
                      _e("seat_0_win_rate", -0.004, True), _e("seat_1_win_rate", 0.004, False)],
        "regular-4": [_e("length", 0.6, True, base=20.0), _e("dead_turn_rate", 0.001, False),
                      _e("anxiety_rate", 0.0, False), _e("comeback", 0.044, True),
                      _e("guide_heron_win_rate", 0.019, True), _e("guide_loup_win_rate", 0.001, False),
                      _e("seat_0_win_rate", 0.001, False), _e("seat_3_win_rate", 0.003, True)],
    }}


def test_each_side_effect_with_its_span_and_its_tables():
    text = side_effects_words(_finalist())
    intro = "What else it changes against the rulings, at its 2 tables (a difference shown with 95 % confidence). "
    assert text.startswith(intro) and text.endswith(".")
    assert text[len(intro):-1].split("; ") == [
        "Length +1.0 to +3.0 % (2 of 2 tables)",            # 0.3 / 30 and 0.6 / 20: relative
        "dead turns +0.04 points (1 of 2 tables)",           # real but tiny: two decimals, never "+0.0"
        "Angoisse unchanged",                                # shown at no table
        "comebacks +3.0 to +4.4 points (2 of 2 tables)",
        "the Loup guide unchanged",
        "the Héron guide +1.2 to +1.9 points (2 of 2 tables)",
        "seat 1 -0.4 points (1 of 2 tables)",                # seat_0 is the first seat
        "seat 2 unchanged",
        "seat 4 +0.3 points (1 of 2 tables)"]


def test_a_difference_the_study_did_not_show_is_not_listed_as_an_effect():
    """Negative control: the same differences, none shown at 95 %, list every figure as unchanged."""
    f = _finalist()
    for es in f["effects_by_scenario"].values():
        for e in es:
            e["significant"] = "no clear difference"
    items = side_effects_words(f).split("). ", 1)[1].rstrip(".").split("; ")
    assert items and all(i.endswith(" unchanged") for i in items), items
    assert side_effects_words({}) == ""
