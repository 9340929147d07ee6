"""Goals about one guide, one seat, one player count (issue 58 item 3): ``guide_<name>_win_rate``
and ``seat_<k>_win_rate`` objectives, ``players = N``, the fair share as a target, a relative
goal reported against the base's figure and the target both, "no worse than today" with the
designer's margin, and the per-guide and per-count levers raced like any other."""

from __future__ import annotations

import json

import numpy as np
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab import parse_spec, tune
from heron_sim.lab.metrics import IX, K
from heron_sim.lab.objectives import describe_distance, per_scenario, tables_of
from heron_sim.lab.spec import Objective
from heron_sim.lab.study import goal_decision

HEAD = """
seed = 5
[[scenario]]
name = "two"
players = 2
seating = "greedy"
[[scenario]]
name = "four"
players = 4
seating = "greedy"
[[param]]
key = "bull_bonus"
int = [1, 3]
"""


def spec_of(objective: str, head: str = HEAD):
    import tomllib

    return parse_spec(tomllib.loads(head + "[[objective]]\n" + objective), "tune-goals.toml")


@pytest.mark.parametrize("text,metric", [
    ('metric = "guide_serpent_win_rate"\ntarget = "fair"', "guide_serpent_win_rate"),
    ('metric = "guide_snake_win_rate"\ntarget = "fair"', "guide_serpent_win_rate"),   # the English name
    ('metric = "guide_Héron_win_rate"\nat_most = 0.3', "guide_heron_win_rate"),
    ('metric = "seat_1_win_rate"\ntarget = "fair"', "seat_1_win_rate"),
    ('metric = "seat_3_win_rate"\ntarget = "fair"\nplayers = 4', "seat_3_win_rate"),
])
def test_one_guide_or_one_seat_is_an_objective(text, metric):
    assert spec_of(text).objectives[0].metric == metric


@pytest.mark.parametrize("text,words", [
    ('metric = "guide_dragon_win_rate"\ntarget = "fair"', "no guide 'dragon'; allowed: guide_<name>_win_rate with name one of loup, taureau, serpent"),
    ('metric = "seat_3_win_rate"\ntarget = "fair"', "seat 4 does not play at 2 players"),
    ('metric = "seat_9_win_rate"\ntarget = "fair"', "allowed: seat_<k>_win_rate with k from 0"),
    ('metric = "guide_serpent_win_rate"\ntarget = "fair"\nplayers = 3', "players: 3; allowed: a player count of the panel's tables (2, 4)"),
    ('metric = "length"\ntarget = "fair"', "\"fair\" (the fair share, 1 / players) is the target of a win rate"),
    ('metric = "length"\nat_most = "base"\ngoal = "targets"', "the designer's targets give no margin for length"),
    ('metric = "dead_turn_rate"\nat_most = "base"\ngoal = "targets"', "no margin for dead_turn_rate"),
    ('metric = "lenght"\ndirection = "minimize"', "guide_<name>_win_rate (name: loup"),
])
def test_a_bad_goal_is_one_line_naming_what_is_allowed(text, words):
    with pytest.raises(HeronSimError) as err:
        spec_of(text)
    msg = str(err.value)
    assert words in msg and "\n" not in msg, msg


def _sums(games: int, dealt: int, won: int) -> np.ndarray:
    S = np.zeros(K)
    S[IX["games"]] = S[IX["finished"]] = games
    S[IX["dealt_serpent"]], S[IX["won_serpent"]] = dealt, won
    return S


def test_a_goal_at_one_count_reads_only_its_tables_and_the_fair_share_is_theirs():
    spec = spec_of('metric = "guide_serpent_win_rate"\ntarget = "fair"\nplayers = 4\ngoal = 0.01')
    o = spec.objectives[0]
    assert tables_of(spec, o) == [1]          # the 4-player table only
    S = np.stack([_sums(1000, 500, 400), _sums(1000, 500, 150)])  # 80 % at 2 players, 30 % at 4
    (loss,) = per_scenario(spec, o, S, S, None)
    assert loss == pytest.approx(0.30 - 0.25)   # against 1 / 4, the 2-player table not read
    every = spec_of('metric = "guide_serpent_win_rate"\ntarget = "fair"').objectives[0]
    assert [float(x) for x in per_scenario(spec, every, S, S, None)] == pytest.approx([0.80 - 0.5, 0.05])


def test_a_relative_goal_is_reported_against_the_base_figure_and_the_target():
    o = Objective("length", "at_most", "base", False, 0.0, 0.85)
    text = describe_distance(o, 24.591, 25.081, 24.591 - 25.081)
    assert "against the target 25.081 rounds (0.85 × 29.507 rounds for the base rules)" in text, text
    plain = describe_distance(Objective("length", "at_most", "base", False, 0.0), 24.591, 25.081, -0.49)
    assert "against 25.081 rounds for the base rules" in plain


def test_no_worse_than_today_takes_the_designers_margin(tmp_path, monkeypatch):
    spec = spec_of('metric = "guide_spread"\nat_most = "base"')
    o = spec.objectives[0]
    assert (o.goal, o.goal_from) == (0.01, "share_margin")      # experiments/targets.toml: ±1 point
    assert "targets.toml share_margin" in o.describe()
    rel = spec_of('metric = "length"\nat_most = "base"\nrelative = true').objectives[0]
    assert (rel.goal, rel.goal_from) == (0.05, "length_margin")
    explicit = spec_of('metric = "guide_spread"\nat_most = "base"\ngoal = 0.002').objectives[0]
    assert (explicit.goal, explicit.goal_from) == (0.002, "")
    none = spec_of('metric = "dead_turn_rate"\nat_most = "base"').objectives[0]
    assert (none.goal, none.goal_from) == (0.0, "")                # no margin in the file: 0, said so
    t = tmp_path / "targets.toml"
    t.write_text("[share_margin]\nvalue = 0.03\nassumed = false\n", encoding="utf-8")
    monkeypatch.setenv("HERON_SIM_TARGETS", str(t))
    o3 = spec_of('metric = "first_player_advantage"\nat_most = "base"\ngoal = "targets"').objectives[0]
    assert o3.goal == 0.03
    # the margin read is part of what a resumed study must share
    assert spec_of('metric = "guide_spread"\nat_most = "base"').fingerprint() != spec.fingerprint()


def test_no_margin_is_not_called_underpowered():
    # "no worse than today" with goal 0, a variant as good as today: no game count settles it
    d = goal_decision(0.0, 0.0, 0.004, 0.0, "at_most", 10_000)
    assert d["decision"] == "undecided (no margin)" and d["games_needed"] is None
    # with a margin, the same interval passes
    assert goal_decision(0.0, 0.0, 0.004, 0.01, "at_most", 10_000)["decision"] == "passes"
    # a two-sided target at its goal stays underpowered
    assert goal_decision(0.002, 0.0, 0.006, 0.004, "target", 1000)["decision"] == "undecided (underpowered)"


LEVERS = 'name = "levers"\n' + HEAD.replace('[[param]]\nkey = "bull_bonus"\nint = [1, 3]\n', """
[search]
trials = 2
games = 300
sampler = "random"
[racing]
rungs = [300, 600]
keep = 3
report = 3
[ladder]
max_keys = 2
[[param]]
key = "guide.serpent.rolls"
int = [3, 4]
[[param]]
key = "seats.4.start_squares"
choices = [[], [0, 0, 1, 1]]
labels = ["none", "late-1"]
""") + """
[[objective]]
metric = "guide_serpent_win_rate"
target = "fair"
players = 4
goal = 0.01
[[objective]]
metric = "length"
at_most = "0.85 * base"
relative = true
"""


def test_per_guide_and_per_count_levers_race_to_the_last_rung(tmp_path):
    p = tmp_path / "tune-levers.toml"
    p.write_text(LEVERS, encoding="utf-8")
    out = tmp_path / "out"
    res = tune(p, run_dir=tmp_path / "run", out=out, progress=False)
    fin = res["finalists"]
    # the ladder's one-key levers (one rule each) reach the last rung
    ones = {e["changes"] for e in fin if e["n_changed"] == 1}
    assert ones & {"guide.serpent.rolls = 4", "seats.4.start_squares = [0, 0, 1, 1]"}, [e["changes"] for e in fin]
    for e in fin:
        g, length = e["objectives"]
        assert [x["scenario"] for x in g["scenarios"]] == ["four"] and g["players"] == 4
        assert all(x["target"] == pytest.approx(0.25) for x in g["scenarios"])
        assert [x["scenario"] for x in length["scenarios"]] == ["two", "four"]
        for x in length["scenarios"]:
            base = x["target"] / 0.85
            assert f"(0.85 × {base:.3f} rounds for the base rules)" in x["text"], x["text"]
        assert (length["scale"], length["of"]) == (0.85, "base")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["objectives"][0].startswith("guide_serpent_win_rate at 4 players")
    assert not res["base"]["meets"]  # 15 % shorter is no goal of the rulings: sheets are written
    fr = (out / f"sheet-{fin[0]['id']}.fr.md").read_text(encoding="utf-8")
    assert "taux de victoire du joueur qui a le Guide Serpent, à 4 joueurs" in fr
    assert "(0,85 × les règles actuelles)" in fr and "(part équitable)" in fr
    assert "guide_serpent" not in fr
