"""Luck and skill (issue 28 item 4): the experiment kind ``skill`` and the lab's ``skill_gap``.

The kind's figures are recomputed here from the game frames alone (plain pandas counts of the
winners' strategies), its ratings against the tournament's Bradley–Terry fit, its bootstrap
interval against the binomial standard error on synthetic games whose truth is known; the lab's
metric is checked against the same count on the same games, its constraint is evaluated only on
the skill table, and with two players of the same skill the gap is 50 % within 4 sigma.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from heron_sim.analysis import skill as S
from heron_sim.errors import HeronSimError
from heron_sim.runner import RunData, load_experiment, run_experiments
from heron_sim.runner.kinds import analyse, plan_jobs

SMALL = """
kind = "skill"
name = "sk"
seed = 11
games = 150
rungs = ["random", "novice", "expert"]
player_counts = [2, 4]

[[variant]]
label = "4 rolls"
set = { rolls = 4 }
"""


def _write(tmp_path, body, name="sk.toml"):
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    return p


# ---------------------------------------------------------------- seatings and statistics
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_mirrored_seatings_give_each_rung_every_seat_and_half_the_seats(players):
    seats = S.mirrored_seatings("a", "b", players)
    assert len(seats) == (2 if players % 2 == 0 else 2 * players)
    assert len({tuple(s) for s in seats}) == len(seats)
    arr = np.array(seats)
    for s in range(players):  # every seat held by each rung equally often
        assert (arr[:, s] == "a").sum() == (arr[:, s] == "b").sum()
    assert S.mirrored_seatings("x", "y", 2) == [["x", "y"], ["y", "x"]]
    assert S.mirrored_seatings("x", "y", 4) == [["x", "y", "x", "y"], ["y", "x", "y", "x"]]


def test_bradley_terry_over_replicates_is_the_tournaments_fit():
    from heron_sim.tournament import bradley_terry

    rng = np.random.default_rng(3)
    mats = rng.integers(0, 400, size=(6, 5, 5))
    for m in mats:
        np.fill_diagonal(m, 0)
    many = S.bradley_terry_many(mats)
    for m, r in zip(mats, many):
        assert r == pytest.approx(bradley_terry(m), abs=1e-6)
    # a stronger side gets the higher rating
    w = np.array([[0, 700, 800], [300, 0, 600], [200, 400, 0]])
    r = S.bradley_terry_many(w)
    assert r[0] > r[1] > r[2] and abs(r.sum()) < 1e-9


def test_the_bootstrap_interval_of_a_share_has_the_binomial_width_and_covers_the_truth():
    """Synthetic mirrored games, truth p = 0.7 for the strong side, independent games: the share's
    estimate lies within 4 sigma of p and the bootstrap half-width is 1.96 sigma within 15 %; a
    negative control (a truth 6 sigma away) lies outside the interval."""
    p, n = 0.7, 5000
    rng = np.random.default_rng(20261203)
    strong = rng.binomial(2, p, size=n)      # two seatings a game index
    weak = 2 - strong
    X = np.stack([weak, strong], axis=1)
    reps = S.replicate_sums(X, B=1000, seed=1)
    est = strong.sum() / (2 * n)
    lo, hi = S.percentile(S.share(reps[:, 1], reps[:, 0] + reps[:, 1]))
    sigma = math.sqrt(p * (1 - p) / (2 * n))
    assert abs(est - p) < 4 * sigma
    assert lo < p < hi
    assert (hi - lo) / 2 == pytest.approx(1.96 * sigma, rel=0.15)
    assert not lo < p - 6 * sigma < hi  # negative control


# ---------------------------------------------------------------- the kind
def test_the_skill_kind_runs_small_and_its_figures_are_the_game_frames_counts(tmp_path):
    exp = load_experiment(_write(tmp_path, SMALL))
    jobs = plan_jobs(exp)
    # 3 meetings x 2 seatings at 2 and at 4 players, and the variant's 2 seatings; all the same games
    assert len(jobs) == 3 * 2 * 2 + 2 and {j.n for j in jobs} == {150} and {j.seed for j in jobs} == {11}
    run_experiments([exp], tmp_path / "run")
    (e, data), = RunData(tmp_path / "run").experiments()
    assert e.variant[0].label == "4 rolls" and e.variant[0].overrides == {"rolls": 4}  # the manifest reads back
    sec = analyse(e, data)
    facts = {f.id: f for f in sec.facts}

    def count(keys, strong, weak):
        frames = [data.frame(k) for k in keys]
        # the seatings play the same games: the same guides dealt to the same seats
        assert (frames[0]["guide_0"].astype(str).to_numpy() == frames[1]["guide_0"].astype(str).to_numpy()).all()
        ws = pd.concat([f["winner_strategy"] for f in frames]).astype(str)
        return int((ws == strong).sum()), int((ws == weak).sum())

    for P in (2, 4):
        for (i, j, a, b) in ((0, 1, "random", "novice"), (0, 2, "random", "expert"), (1, 2, "novice", "expert")):
            kb, ka = count([f"p{P}_{i}_{j}_s0", f"p{P}_{i}_{j}_s1"], b, a)
            f = facts[f"skill.pair.{P}.{b}.{a}"]
            assert f.estimate == pytest.approx(kb / (ka + kb)) and f.n == ka + kb
            assert f.low <= f.estimate <= f.high
    gap = facts["skill.gap"]
    assert gap.estimate == facts["skill.pair.2.expert.novice"].estimate and 0.5 < gap.estimate < 1
    vs, vw = count(["variant0_s0", "variant0_s1"], "expert", "novice")
    bs, bw = count(["p2_1_2_s0", "p2_1_2_s1"], "expert", "novice")
    change = facts["skill.variant.0"]
    assert change.estimate == pytest.approx(vs / (vs + vw) - bs / (bs + bw))
    assert change.low <= change.estimate <= change.high
    # the ratings: one per rung and player count, the random baseline last
    r2 = {k.split(".")[-1]: facts[f"skill.rating.2.{k.split('.')[-1]}"].estimate for k in facts if k.startswith("skill.rating.2.")}
    assert set(r2) == {"random", "novice", "expert"} and min(r2, key=r2.get) == "random"
    assert sum(r2.values()) == pytest.approx(0, abs=1e-6)
    # the executive page's row, in a designer's words
    from heron_sim.runner.kinds.skill import SkillKind

    (row,) = SkillKind().summary_rows(facts)
    assert row.answer.startswith("The expert beats the novice ") and "at 2 players" in row.answer
    assert "4 rolls: " in row.action and row.fact_id == "skill.gap"
    assert [f.name for f in sec.figures] == ["ratings"]
    # one seating of a meeting (novice, expert, novice, expert) measures the rungs, not the seats:
    # the report's pooled first-player figure leaves it out
    from heron_sim.runner.kinds import across

    assert not any(f.id.startswith("balance.seat") for f in across(RunData(tmp_path / "run")).facts)


@pytest.mark.parametrize("line,fragment", [
    ("players = 3", "remove players"),
    ('modes = ["8d8", "7d8"]', "plays one mode"),
    ("player_counts = [3, 4]", "must include 2"),
    ('rungs = ["expert"]', "two or more distinct"),
    ('rungs = ["novice", "expret"]', "'expret' is not a strategy"),
    ('rungs = "all"', "a list of strategies, weakest first"),
    ('rungs = ["expert", "random"]', "not the random baseline"),
])
def test_bad_skill_options_are_one_line(tmp_path, line, fragment):
    body = SMALL.replace('rungs = ["random", "novice", "expert"]\nplayer_counts = [2, 4]\n', "") \
        .replace('kind = "skill"\n', f'kind = "skill"\n{line}\n')
    with pytest.raises(HeronSimError, match=fragment):
        load_experiment(_write(tmp_path, body))


def test_a_variant_with_a_bad_rules_key_is_one_line_naming_it(tmp_path):
    exp = load_experiment(_write(tmp_path, SMALL.replace("set = { rolls = 4 }", "set = { rollz = 4 }")))
    with pytest.raises(HeronSimError, match=r"sk.toml: variant\[0\] \(4 rolls\): rollz: unknown rules key"):
        plan_jobs(exp)


def test_two_variants_with_one_label_are_refused(tmp_path):
    body = SMALL + '\n[[variant]]\nlabel = "4 rolls"\nset = { rolls = 2 }\n'
    with pytest.raises(HeronSimError, match="label '4 rolls' is given twice"):
        load_experiment(_write(tmp_path, body))


def test_the_shipped_skill_file_loads_and_is_in_the_reports_plan_after_the_strategies():
    from pathlib import Path

    from heron_sim.cli.plan import plan_files

    root = Path(__file__).resolve().parents[1] / "experiments"
    exp = load_experiment(root / "skill.toml")
    assert exp.kind == "skill" and exp.player_counts == (2, 4) and exp.rungs[-1] == "expert"
    names = [p.name for p in plan_files(root)]
    assert names.index("skill.toml") == names.index("strategies.toml") + 1


@pytest.mark.slow
def test_the_ratings_order_the_rungs_as_the_ladder_does(tmp_path):
    """2,000 games a seating (4,000 a meeting), 2 and 4 players: the Bradley–Terry ratings order
    random < novice < casual < regular < expert at both counts."""
    body = ('kind = "skill"\nname = "ladder"\nseed = 2028\ngames = 2000\nfigures = []\n')
    exp = load_experiment(_write(tmp_path, body))
    run_experiments([exp], tmp_path / "run")
    (e, data), = RunData(tmp_path / "run").experiments()
    sec = analyse(e, data)
    for P in (2, 4):
        r = {f.id.split(".")[-1]: f.estimate for f in sec.facts if f.id.startswith(f"skill.rating.{P}.")}
        assert sorted(r, key=r.get) == ["random", "novice", "casual", "regular", "expert"]


# ---------------------------------------------------------------- the lab's metric
LAB = {
    "name": "sg", "seed": 5, "players": 4, "seating": "greedy",
    "search": {"trials": 2, "games": 100}, "racing": {"rungs": [100], "keep": 1, "report": 1},
    "param": [{"key": "rolls", "int": [3, 4]}],
    "objective": [{"metric": "length", "direction": "minimize"}],
    "constraint": [{"metric": "skill_gap", "min": 0.6}],
}


def test_a_skill_gap_constraint_adds_the_skill_table_and_is_evaluated_there_only():
    from heron_sim.lab import parse_spec
    from heron_sim.lab.metrics import IX, K, value
    from heron_sim.lab.objectives import constraint_values, losses, scenarios_of
    from heron_sim.runner.panel import SKILL_SCENARIO

    spec = parse_spec(dict(LAB), "tune-sg.toml")
    assert spec.panel[-1] == SKILL_SCENARIO and len(spec.panel) == 2
    assert spec.scenario_bases[-1].players == 2 and spec.scenario_bases[-1].mode == spec.base.mode
    assert scenarios_of(spec, "skill_gap") == [1] and scenarios_of(spec, "length") == [0]
    assert spec.constraints[0].describe() == "skill_gap >= 0.6"
    Sums = np.zeros((2, K))
    Sums[:, IX["games"]] = Sums[:, IX["finished"]] = 100
    Sums[0, IX["rounds_finished"]], Sums[1, IX["rounds_finished"]] = 2500, 99_999  # the skill table's length is not read
    Sums[1, IX["skill_strong_win"]], Sums[1, IX["skill_weak_win"]] = 70, 30
    assert value("skill_gap", Sums[1], 2) == pytest.approx(0.7)
    cv = constraint_values(spec, Sums, Sums, None)
    assert cv[0] == pytest.approx(0.6 - 0.7)          # holds (<= 0)
    assert losses(spec, Sums, Sums, None) == [pytest.approx(25.0)]
    Sums[1, IX["skill_strong_win"]], Sums[1, IX["skill_weak_win"]] = 55, 45
    assert constraint_values(spec, Sums, Sums, None)[0] == pytest.approx(0.05)  # violated
    hi = parse_spec({**LAB, "constraint": [{"metric": "skill_gap", "max": 0.5}]}, "tune-sg.toml")
    assert constraint_values(hi, Sums, Sums, None)[0] == pytest.approx(0.05)
    # an objective on the gap alone: the skill table is added too, the length is not read there
    obj = parse_spec({**LAB, "constraint": [], "objective": [{"metric": "skill_gap", "at_least": 0.75}]}, "tune-sg.toml")
    assert losses(obj, Sums, Sums, None) == [pytest.approx(0.20)]
    # no skill metric: no skill table
    assert len(parse_spec({**LAB, "constraint": []}, "tune-sg.toml").panel) == 1
    with pytest.raises(HeronSimError, match="'skill-2' is the skill gap's own table"):
        parse_spec({k: v for k, v in LAB.items() if k not in ("players", "seating")}
                   | {"scenario": [{"name": "skill-2", "players": 2, "seating": "greedy"}]}, "tune-sg.toml")


def test_the_lab_plays_the_skill_table_and_counts_the_experts_wins(tmp_path):
    """The evaluator's skill_gap on its skill table is the expert's share of the decided games
    counted from the same batches' game frames."""
    from heron_sim.lab import parse_spec
    from heron_sim.lab.evaluate import Evaluator
    from heron_sim.lab.metrics import value
    from heron_sim.runner.executor import LocalExecutor, play_frame

    spec = parse_spec(dict(LAB), "tune-sg.toml")
    ev = Evaluator(spec, LocalExecutor())
    (Sm,) = ev.sums([tuple(spec.scenario_bases)], 0, 400)
    gap = float(value("skill_gap", Sm[1], 2))
    frames = [play_frame(b) for b in ev._batches(spec.scenario_bases[1], 1, 0, 400)]
    ws = pd.concat([f["winner_strategy"] for f in frames]).astype(str)
    assert gap == pytest.approx((ws == "expert").sum() / ws.isin(["expert", "novice"]).sum())
    assert 0.6 < gap < 0.95
    assert {tuple(f["strategies"].iloc[0].split(",")) for f in frames} == {("expert", "novice"), ("novice", "expert")}


def test_with_players_of_equal_skill_the_gap_is_half_within_4_sigma():
    """Random against random, seated as the skill table is (the seats labelled expert and novice
    rotated): skill cannot matter, and the gap is 50 % within 4 sigma (the negative control is
    the test above: the real expert against the real novice is far above 50 %)."""
    from heron_sim.lab.metrics import IX, matrix_from_rows, value
    from heron_sim.rules import Rules
    from heron_sim.runner.executor import Batch, play_rows

    r = Rules.build(mode="8d8", players=2)
    n = 3000
    sums = 0
    for first, seating in ((0, ("expert", "novice")), (n, ("novice", "expert"))):
        rows = play_rows(Batch(r, ("random", "random"), 9, first, n))
        sums = sums + matrix_from_rows(rows, r, seating).sum(axis=0)
    decided = sums[IX["skill_strong_win"]] + sums[IX["skill_weak_win"]]
    assert decided > 0.9 * 2 * n
    gap = float(value("skill_gap", sums, 2))
    assert abs(gap - 0.5) < 4 * math.sqrt(0.25 / decided)


def test_a_study_with_a_skill_gap_constraint_reports_it_at_the_skill_table(tmp_path):
    """A small study end to end: the constraint is evaluated at the skill table (and only
    there), the objective at the panel's table only, and the skill table's effects show the gap."""
    from heron_sim.lab import tune

    p = tmp_path / "tune-sg.toml"
    p.write_text('name = "sg"\nseed = 5\nplayers = 4\nseating = "greedy"\n'
                 '[search]\ntrials = 2\ngames = 100\n[racing]\nrungs = [150]\nkeep = 1\nreport = 2\n'
                 '[[param]]\nkey = "rolls"\nint = [3, 4]\n'
                 '[[objective]]\nmetric = "length"\ndirection = "minimize"\n'
                 '[[constraint]]\nmetric = "skill_gap"\nmin = 0.55\n', encoding="utf-8")
    res = tune(p, run_dir=tmp_path / "run", out=tmp_path / "out", progress=False)
    assert res["finalists"]
    for e in res["finalists"]:
        assert [x["scenario"] for x in e["objectives"][0]["scenarios"]] == ["table"]
        c = e["constraints"][0]
        assert c["constraint"] == "skill_gap >= 0.55" and set(c["scenarios"]) == {"skill-2"}
        gap = {x["metric"]: x for x in e["effects_by_scenario"]["skill-2"]}["skill_gap"]
        assert c["holds"] == (gap["variant"] >= 0.55) and 0.5 < gap["variant"] < 1
        assert c["scenario"] == "skill-2" and c["estimate"] == gap["variant"] and c["low"] <= c["estimate"] <= c["high"]
        assert "skill_gap" not in {x["metric"] for x in e["effects_by_scenario"]["table"]}
    best = res["finalists"][0]["constraints"][0]
    assert f"skill_gap >= 0.55: {100 * best['estimate']:.2f} % [" in res["finding"]
