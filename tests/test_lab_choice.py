"""The lab chooses among fixes as a designer does (issue 30 item 3): do the rulings already meet
the goals; then the fewest rules among the variants that meet every goal with 95 % confidence;
then the smallest side effects; then the estimate. Relative goals ("0.8 * base")."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab import finding_text, parse_spec
from heron_sim.lab.study import designer_order, goal_decision, holm_over_family, side_effects

SPEC = """
name = "choice"
seed = 7
seating = "greedy"
[search]
trials = 2
games = 300
[racing]
rungs = [300]
[[param]]
key = "bull_bonus"
int = [0, 6]
[[objective]]
metric = "guide_spread"
direction = "minimize"
goal = 0.01
"""


def spec(text=SPEC):
    return parse_spec(tomllib.loads(text), "tune-choice.toml")


def entry(id, n_changed, loss, low, high, goal=0.01, feasible=True, moved=(), better=True):
    """A re-evaluated variant as study.evidence writes it (one objective, one table)."""
    effects = [{"metric": "length", "label": "length", "base": 20.0, "variant": 20.0 + d, "reference": None,
                "diff": d, "low": d - 0.1, "high": d + 0.1, "significant": "differs" if d else "no"}
               for d in moved]
    return {"id": id, "n_changed": n_changed, "changes": f"{n_changed} changes", "feasible": feasible,
            "scenarios": ["table"], "games": 1000, "effects": effects, "effects_by_scenario": {"table": effects},
            "constraints": [],
            "objectives": [{"metric": "guide_spread", "objective": "guide_spread: minimize", "goal": goal,
                            "loss": loss, "_rank_loss": loss, "loss_low": low, "loss_high": high,
                            "base_loss": 0.05, "diff": loss - 0.05, "low": -0.03, "high": -0.01,
                            "verdict": "better" if better else "no clear difference",
                            "goal_met": loss <= goal, "goal_met_95": high <= goal, "scenarios": []}]}


def test_fewest_rules_first_among_those_that_meet_every_goal():
    # t60 has the best estimate, but L1 and L2 also meet the goal with 95 % confidence.
    out = [entry("t60", 6, 0.002, 0.001, 0.004), entry("L2", 2, 0.004, 0.002, 0.008),
           entry("L1", 1, 0.006, 0.003, 0.009), entry("t9", 1, 0.009, 0.004, 0.012)]
    designer_order(spec(), out)
    assert [e["id"] for e in out] == ["L1", "L2", "t60", "t9"]  # t9 misses the goal at 95 %


def test_side_effects_break_a_tie_in_rules():
    out = [entry("a", 1, 0.004, 0.002, 0.008, moved=(2.0, 1.0)), entry("b", 1, 0.006, 0.003, 0.009, moved=(0.5,)),
           entry("c", 1, 0.007, 0.003, 0.009, moved=(0.0,))]
    assert side_effects(out[0], spec()) == (2, pytest.approx(30.0))
    designer_order(spec(), out)
    assert [e["id"] for e in out] == ["c", "b", "a"]
    assert out[0]["side_effects"]["figures_moved"] == 0


def test_no_variant_meets_the_goal_then_noise_never_promotes_the_larger_change():
    # The tune-guides case: t60 (6 rules) 1.61 [1.56, 2.01] and L28 (2 rules) 1.66 [1.46, 1.90]:
    # the best estimate lies inside L28's interval, so the 2-rule change is named first.
    out = [entry("t60", 6, 0.0161, 0.0156, 0.0201), entry("L28", 2, 0.0166, 0.0146, 0.0190),
           entry("L9", 1, 0.0286, 0.0263, 0.0310)]
    designer_order(spec(), out)
    assert [e["id"] for e in out] == ["L28", "t60", "L9"]
    assert out[0]["near_best"] == 1 and out[2]["near_best"] == 0


def test_an_infeasible_variant_never_ranks_before_a_feasible_one():
    out = [entry("x", 1, 0.002, 0.001, 0.004, feasible=False), entry("y", 3, 0.03, 0.02, 0.04)]
    designer_order(spec(), out)
    assert [e["id"] for e in out] == ["y", "x"]


def test_the_finding_first_asks_whether_the_rulings_already_meet_the_goal():
    s = spec()
    fin = [entry("L1", 1, 0.004, 0.002, 0.008)]
    designer_order(s, fin)
    base_ok = {"objectives": [{"metric": "guide_spread", "loss": 0.006, "loss_low": 0.004, "loss_high": 0.008,
                               "goal": 0.01, "goal_met": True, "goal_met_95": True}],
               "constraints_hold": True, "meets": True, "games": 1000}
    text = finding_text(s, fin, base_ok)
    assert text.startswith("No change needed: the rulings already meet every goal")
    base_no = {**base_ok, "meets": False,
               "objectives": [{**base_ok["objectives"][0], "loss_high": 0.02, "goal_met_95": False}]}
    text = finding_text(s, fin, base_no)
    assert text.startswith("The rulings do not meet every goal (not with 95 % confidence on guide_spread")
    assert "Smallest change that meets every goal with 95 % confidence" in text and "`L1`" in text


@pytest.mark.parametrize("side,text,scale,target", [("target", "0.8 * base", 0.8, "base"),
                                                      ("at_most", "1.05*base", 1.05, "base"),
                                                      ("at_least", "0.9 * base", 0.9, "base")])
def test_relative_goals(side, text, scale, target):
    s = spec(SPEC.replace('direction = "minimize"\ngoal = 0.01', f'{side} = "{text}"\nrelative = true\ngoal = 0.02')
             .replace('metric = "guide_spread"', 'metric = "length"'))
    o = s.objectives[0]
    assert (o.scale, o.target) == (scale, target) and f"{scale:g} × base" in o.describe()
    # A factor changes what a resumed study must share with the stored one; none leaves it as it was.
    plain = spec(SPEC.replace('direction = "minimize"\ngoal = 0.01', f'{side} = "base"\nrelative = true\ngoal = 0.02')
                 .replace('metric = "guide_spread"', 'metric = "length"'))
    assert s.fingerprint() != plain.fingerprint()


def test_relative_goal_scales_the_target_value():
    import numpy as np

    from heron_sim.lab.objectives import target_value

    s = spec(SPEC.replace('direction = "minimize"\ngoal = 0.01', 'target = "0.8 * base"\nrelative = true')
             .replace('metric = "guide_spread"', 'metric = "length"'))
    o = s.objectives[0]
    from heron_sim.lab import objectives

    orig = objectives.value
    try:
        objectives.value = lambda metric, S, players: np.float64(S)
        assert target_value(o, 30.0, None, 4) == pytest.approx(24.0)
    finally:
        objectives.value = orig


@pytest.mark.parametrize("bad", ['"0.8 * bse"', '"0 * base"', '"base * 0.8"'])
def test_a_bad_relative_goal_is_one_error_line(bad):
    with pytest.raises(HeronSimError) as err:
        spec(SPEC.replace('direction = "minimize"\ngoal = 0.01', f"at_most = {bad}")
             .replace('metric = "guide_spread"', 'metric = "length"'))
    assert "\n" not in str(err.value) and "at_most" in str(err.value)


@pytest.mark.parametrize("lv,lo,hi,decision,need", [
    (0.004, 0.002, 0.008, "passes", 1000),
    (0.020, 0.015, 0.025, "fails (decisive)", 1000),
    # meets on the estimate, the interval reaches past the goal: (0.006 / 0.002)^2 = 9 x the games
    (0.008, 0.002, 0.014, "undecided (underpowered)", 9000),
    # misses on the estimate, the interval reaches back: (0.006 / 0.003)^2 = 4 x the games
    (0.013, 0.007, 0.020, "likely fails (not decisive)", 4000),
])
def test_a_goal_test_says_whether_it_was_decisive_and_the_games_it_would_need(lv, lo, hi, decision, need):
    d = goal_decision(lv, lo, hi, 0.01, "minimize", 1000)
    assert d["decision"] == decision and d["games_needed"] == need
    assert (d["p"] < 0.025) == (hi <= 0.01)


def test_maximise_goals_read_the_other_way():
    # loss = -value: a skill gap of at least 0.7 is met when the loss is at most -0.7
    assert goal_decision(-0.75, -0.77, -0.73, 0.7, "maximize", 500)["decision"] == "passes"
    assert goal_decision(-0.65, -0.67, -0.63, 0.7, "maximize", 500)["decision"] == "fails (decisive)"


def test_a_goal_shown_met_by_every_replicate_is_not_refused_by_holm():
    """A one-sided goal (at least the floor) whose loss, clipped at 0, is 0 in every bootstrap
    replicate: the interval [0, 0] passes, and its p is the bootstrap's (1 / 1001), not the 0.5
    the normal approximation reads off a nil half-width (the comebacks study of 2026-12-08 was
    "met with 95 % confidence, but not after Holm's correction" for that reason alone)."""
    from heron_sim.lab.study import past_goal

    reps = np.zeros(1000)
    past = past_goal(reps, 0.0, "at_least")
    assert past == [0, 1000]
    d = goal_decision(0.0, 0.0, 0.0, 0.0, "at_least", 160000, past)
    assert d["decision"] == "passes" and d["p"] == pytest.approx(1 / 1001)
    assert goal_decision(0.0, 0.0, 0.0, 0.0, "at_least", 160000)["p"] == 0.5  # without the replicates: as before
    out = [entry("a", 1, 0.0, 0.0, 0.0), entry("b", 1, 0.004, 0.002, 0.008)]
    out[0]["objectives"][0]["p_goal"] = d["p"]
    out[1]["objectives"][0]["p_goal"] = goal_decision(0.004, 0.002, 0.008, 0.01, "minimize", 1000)["p"]
    holm_over_family(out)
    assert out[0]["objectives"][0]["goal_met_holm"] is True
    # replicates past the goal count against it: 30 of 1000 past it gives p = 31 / 1001
    reps[:30] = 0.02
    assert goal_decision(0.0, 0.0, 0.0, 0.0, "at_least", 1000, past_goal(reps, 0.0, "at_least"))["p"] == \
        pytest.approx(31 / 1001)


def test_holm_over_the_finalists_goal_tests():
    out = [entry("a", 1, 0.004, 0.002, 0.008), entry("b", 1, 0.0085, 0.007, 0.0099)]
    for e in out:
        o = e["objectives"][0]
        o["p_goal"] = goal_decision(o["loss"], o["loss_low"], o["loss_high"], 0.01, "minimize", 1000)["p"]
    assert holm_over_family(out) == 2
    # Holm orders the p-values: the smallest is tested at 0.05 / 2, the next at 0.05.
    assert out[0]["objectives"][0]["goal_met_holm"] is True
    for pa, pb, expect in ((0.01, 0.04, [True, True]), (0.03, 0.04, [False, False]), (0.001, 0.3, [True, False])):
        out[0]["objectives"][0]["p_goal"], out[1]["objectives"][0]["p_goal"] = pa, pb
        holm_over_family(out)
        assert [e["objectives"][0]["goal_met_holm"] for e in out] == expect


def _seat_rows(base, variant, half=0.004):
    return [{"metric": f"seat_{s}_win_rate", "label": f"win rate seat {s + 1}", "base": b, "variant": v,
             "reference": None, "diff": v - b, "low": v - b - half, "high": v - b + half,
             "significant": "differs" if abs(v - b) > half else "no clear difference"}
            for s, (b, v) in enumerate(zip(base, variant))]


def test_a_fix_that_moves_the_unfairness_to_another_seat_is_flagged():
    from heron_sim.lab.study import moved_unfairness

    # t9 at 5 players: seat 1's edge goes, the last seat goes from -0.60 to -1.64 points from fair.
    base = [0.215, 0.200, 0.197, 0.194, 0.194]
    fixed = [0.2005, 0.2010, 0.2020, 0.2001, 0.1836]
    e = {"effects_by_scenario": {"rungs-5": _seat_rows(base, fixed)}}
    moved = moved_unfairness(e, margin=0.01)
    assert [(x["table"], x["what"]) for x in moved] == [("rungs-5", "seat 5")]
    assert moved[0]["variant"] - moved[0]["fair"] == pytest.approx(-0.0164)
    # Inside the margin, or not farther than under the base, or not shown to move: no flag.
    assert moved_unfairness(e, margin=0.02) == []
    assert moved_unfairness({"effects_by_scenario": {"t": _seat_rows(base, base)}}, margin=0.01) == []
    assert moved_unfairness({"effects_by_scenario": {"t": _seat_rows(base, fixed, half=0.02)}}, margin=0.01) == []


def test_the_finding_names_where_the_unfairness_went():
    s = spec()
    fin = [entry("t9", 2, 0.004, 0.002, 0.008)]
    fin[0]["moves_unfairness"] = [{"table": "rungs-5", "what": "seat 5", "fair": 0.2, "base": 0.194,
                                   "variant": 0.1836, "diff": -0.0104, "low": -0.0158, "high": -0.0049}]
    designer_order(s, fin)
    text = finding_text(s, fin)
    assert "It moves the unfairness elsewhere: seat 5 at rungs-5 -0.6 → -1.6 points from fair" in text


# ---- goals read from the designer's targets (experiments/targets.toml): `at_most = "targets"`
TARGETS_FILE = """
[length_minutes]
value = { 2 = [10, 20], 4 = [30, 48], 7 = [45, 70] }
[seconds_per_turn]
value = 30
[share_margin]
value = 0.02
[dead_streak_ceiling]
value = 0.3
"""


def _targets_spec(metric, side, factor=""):
    return spec(SPEC.replace('direction = "minimize"\ngoal = 0.01', f'{side} = "{factor}targets"')
                .replace('metric = "guide_spread"', f'metric = "{metric}"'))


def test_a_goal_read_from_the_designers_targets_at_each_table(tmp_path, monkeypatch):
    from heron_sim.analysis.targets import lab_target
    from heron_sim.lab.objectives import target_value

    f = tmp_path / "targets.toml"
    f.write_text(TARGETS_FILE, encoding="utf-8")
    monkeypatch.setenv("HERON_SIM_TARGETS", str(f))
    # 48 minutes at 4 players, 30 s a turn: 48 × 60 / (30 × 4) = 24 rounds at most, 15 at least.
    assert lab_target("length", "at_most", 4) == pytest.approx(24.0)
    assert lab_target("length", "at_least", 4) == pytest.approx(15.0)
    assert lab_target("length", "target", 7) == pytest.approx((45 + 70) / 2 * 60 / (30 * 7))
    assert lab_target("first_player_advantage", "at_least", 4) == pytest.approx(-0.02)
    assert lab_target("stuck_3_share", "at_most", 3) == pytest.approx(0.3)
    # the comeback floor is a share of the fair 1 / players (the file leaves it at its default 0.5)
    assert lab_target("comeback", "at_least", 4) == pytest.approx(0.5 / 4)
    assert lab_target("comeback", "at_least", 2) == pytest.approx(0.5 / 2)
    with pytest.raises(HeronSimError, match="comeback at_most"):
        lab_target("comeback", "at_most", 4)
    o = _targets_spec("length", "at_most").objectives[0]
    assert (o.target, o.direction) == ("targets", "at_most") and "targets.toml" in o.describe()
    assert target_value(o, None, None, 2) == pytest.approx(20 * 60 / (30 * 2))
    assert target_value(_targets_spec("length", "at_most", "0.5 * ").objectives[0], None, None, 4) == pytest.approx(12.0)
    # A table the designer gave no length for is one error line, not a silent default.
    with pytest.raises(HeronSimError, match="no length_minutes for 3 players"):
        target_value(o, None, None, 3)


def test_a_study_that_reads_the_targets_is_refused_on_resume_when_they_change(tmp_path, monkeypatch):
    f = tmp_path / "targets.toml"
    f.write_text(TARGETS_FILE, encoding="utf-8")
    monkeypatch.setenv("HERON_SIM_TARGETS", str(f))
    before = _targets_spec("guide_spread", "at_most").fingerprint()
    plain = spec().fingerprint()
    f.write_text(TARGETS_FILE.replace("value = 0.02", "value = 0.015"), encoding="utf-8")
    from heron_sim.analysis import targets as T

    T._load.cache_clear()
    assert _targets_spec("guide_spread", "at_most").fingerprint() != before
    assert spec().fingerprint() == plain  # a study that reads no target keeps its fingerprint


@pytest.mark.parametrize("metric,side", [("lead_changes", "at_most"), ("guide_spread", "at_least")])
def test_a_goal_the_targets_do_not_give_is_one_error_line(metric, side):
    with pytest.raises(HeronSimError) as err:
        _targets_spec(metric, side)
    msg = str(err.value)
    assert "\n" not in msg and "targets give no such goal" in msg and "allowed: length" in msg


@pytest.mark.parametrize("objective, goal, fr, en", [
    ("length: no more than the designer's target (relative excess minimised) (goal <= 0)", 0.0,
     "pas plus que sa cible", "no more than its target"),
    ("length: no more than base (relative excess minimised)", 0.05,
     "pas plus que sa cible + 5 %", "no more than its target + 5 %"),
    ("comeback: no less than the designer's target (excess minimised)", 0.01,
     "pas moins que sa cible − 1 pt", "no less than its target − 1 pt"),
    ("guide_spread: distance to 0 (goal <= 0.01)", 0.01, "1 pt", "1 pt"),
])
def test_a_sheets_goal_says_which_side_a_one_sided_goal_holds(objective, goal, fr, en):
    """A one-sided goal reads "no more than its target", never "± 0 %" (a two-sided band of zero)."""
    from heron_sim.lab.sheets import _goal

    metric = "length" if objective.startswith("length") else ("comeback" if objective.startswith("comeback")
                                                               else "guide_spread")
    o = {"goal": goal, "objective": objective, "metric": metric}
    assert _goal(o, "fr") == fr and _goal(o, "en") == en


def test_a_headline_row_the_study_did_not_measure_is_left_out():
    """Dead-turn streaks are measured only in a study that names them: their row is left out of
    the effects tables, never shown as "n/a [n/a, n/a]"."""
    from heron_sim.lab.outputs import measured

    assert measured({"base": 0.3, "variant": 0.31, "diff": 0.01})
    assert not measured({"base": float("nan"), "variant": float("nan")})
    assert not measured({"base": None, "variant": 0.2})


def test_the_search_is_seeded_from_the_ladder_with_per_count_and_per_guide_levers():
    """A key the base does not set (``seats.3.start_squares``, ``guide.heron.rolls``) has a value
    that is no change: the base's optuna values exist, so the ladder seeds the search."""
    from heron_sim.lab.ladder import base_params

    text = SPEC.replace('[[param]]\nkey = "bull_bonus"\nint = [0, 6]', '''[[param]]
key = "seats.3.start_squares"
labels = ["0-1-1", "none"]
choices = [[0, 1, 1], []]
[[param]]
key = "guide.heron.rolls"
int = [2, 4]
[[param]]
key = "guide.heron.anxiety_threshold"
int = [4, 5]''')
    assert base_params(spec(text)) is None  # 3, the rulings' threshold, is outside [4, 5]
    text = text.replace("int = [4, 5]", "int = [3, 5]")
    assert base_params(spec(text)) == {"seats.3.start_squares": "none", "guide.heron.rolls": 3,
                                       "guide.heron.anxiety_threshold": 3}
