"""The executive page's sentences follow the numbers: synthetic facts whose reading differs
from the report's own run must change the sentence (each test fails on the old templates)."""

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from heron_sim.report.executive import build_rows
from heron_sim.report.section import Fact
from heron_sim.runner.kinds.anxiety import situation_risk
from heron_sim.runner.kinds.pond import fit_reading
from heron_sim.runner.kinds.strategies import tournament_vs_ai

pytestmark = pytest.mark.exact


def _f(fid, est, lo=math.nan, hi=math.nan, n=1000, unit="share", note="", p=math.nan):
    return Fact(fid, fid, est, lo, hi, n, unit, "games", p, note)


def _row(facts, question):
    rows = {r.question: r for r in build_rows({f.id: f for f in facts}, {})}
    return rows[question]


ANX = [_f("anxiety.per_turn.8d8.greedy", 0.32, 0.31, 0.33),
       _f("anxiety.cost.8d8", 0.49, 0.48, 0.50, unit="squares per turn")]


def test_real_brake_only_when_the_threshold_changes_length_beyond_the_margin():
    # a significant cost but a 4-Héron threshold that changes length by -1 % [-2, 0]: no "real brake"
    small = _row(ANX + [_f("sensitivity.anxiety4.length_rel", -0.01, -0.02, -0.001, unit="relative change")],
                 "Angoisse du Héron: the risk from the third Héron")
    assert "real brake" not in small.action and "hardly" in small.action
    big = _row(ANX + [_f("sensitivity.anxiety4.length_rel", -0.14, -0.15, -0.13, unit="relative change")],
               "Angoisse du Héron: the risk from the third Héron")
    assert big.action.startswith("The third Héron is a real brake") and "-14" in big.action
    unsure = _row(ANX + [_f("sensitivity.anxiety4.length_rel", -0.04, -0.09, 0.01, unit="relative change")],
                  "Angoisse du Héron: the risk from the third Héron")
    assert "real brake" not in unsure.action and "uncertain" in unsure.action


def test_first_player_action_is_measured_or_says_not_settled():
    # no fixed advice ("give the last player a first-turn bonus"): a real edge gets the played
    # remedies, an unsettled one says so, a negligible one says nothing to fix
    relevant = _row([_f("balance.seat1.pooled.8d8", 0.28, 0.27, 0.29, p=1e-9)], "First-player advantage")
    assert "first-turn bonus" not in relevant.action and "No remedy was played" in relevant.action
    unsure = _row([_f("balance.seat1.pooled.8d8", 0.26, 0.235, 0.285, p=0.4)], "First-player advantage")
    assert unsure.action.startswith("Not settled")
    nil = _row([_f("balance.seat1.pooled.8d8", 0.25, 0.245, 0.255, p=0.9)], "First-player advantage")
    assert nil.action.startswith("Nothing to fix")


def test_guide_action_only_when_a_guide_is_flagged_beyond_the_margin():
    names = ["loup", "taureau", "serpent", "lion", "aigle", "cerf", "heron"]
    even = [_f(f"guides.when_dealt.8d8.{g}", 0.25 + d, 0.25 + d - 0.006, 0.25 + d + 0.006, note="fair 0.2500", p=0.5)
            for g, d in zip(names, [0.001, 0.002, 0.0, -0.001, 0.003, 0.0, -0.004])]
    row = _row(even, "Guide balance")
    assert "no change is advised" in row.action and "Strengthen" not in row.action
    weak = even[:-1] + [_f("guides.when_dealt.8d8.heron", 0.20, 0.19, 0.21, note="flag weak; fair 0.2500", p=1e-6)]
    row = _row(weak, "Guide balance")
    assert "Héron (weak)" in row.answer and "No remedy was played" in row.action


def test_decisiveness_does_not_read_a_non_significant_lead_as_hardly_counting():
    row = _row([_f("modes.mid_leader_wins.8d8", 0.26, 0.23, 0.29, note="fair 0.2500")], "Decisiveness")
    assert "hardly counts" not in row.answer and "do not show" in row.answer
    three = _row([_f("modes.mid_leader_wins.8d8", 0.45, 0.44, 0.46, note="fair 0.3333")], "Decisiveness")
    assert "against 33" in three.answer and "the lead counts" in three.answer


def test_skill_claim_leaves_the_random_baseline_out():
    pairs = pd.DataFrame([  # racer beats random every time but loses to expert
        {"strategy": "racer", "opponent": "expert", "wins": 400}, {"strategy": "expert", "opponent": "racer", "wins": 600},
        {"strategy": "racer", "opponent": "random", "wins": 1000}, {"strategy": "random", "opponent": "racer", "wins": 0},
        {"strategy": "expert", "opponent": "random", "wins": 900}, {"strategy": "random", "opponent": "expert", "wins": 100},
    ])
    vs = tournament_vs_ai(pairs)
    assert set(vs) == {"racer", "expert"}
    assert vs["racer"]["games"] == 1000 and math.isclose(vs["racer"]["rate"], 0.4)
    assert math.isclose(vs["expert"]["rate"], 0.6)
    facts = [_f("strategies.tournament.racer", 0.7, 0.68, 0.72), _f("strategies.tournament.expert", 0.75, 0.73, 0.77),
             _f("strategies.tournament.random", 0.05, 0.04, 0.06)]
    facts += [_f(f"strategies.tournament_ai.{k}", v["rate"], v["low"], v["high"], v["games"]) for k, v in vs.items()]
    row = _row(facts, "The AI strategies")
    assert row.answer.startswith("In a two-player round robin expert wins 60") and "against the other AI" in row.answer
    assert row.fact_id == "strategies.tournament_ai.expert"


def test_goodness_of_fit_never_says_agree():
    assert "differs" in fit_reading(0.001)
    assert "detects no difference" in fit_reading(0.4) and "agree" not in fit_reading(0.4)


def test_situation_risk_first_roll_leaves_the_pond_out():
    rules = SimpleNamespace(dice=[list(range(7))] * 8, anxiety_threshold=3, pond_threshold=4)
    data = SimpleNamespace(select=lambda mode: [{"key": "k"}], rules=lambda key: rules)
    t = situation_risk(data, ["8d8"]).set_index("herons reserved")
    assert math.isclose(t.at[0, "reroll 8"], 0.0755, abs_tol=5e-5)  # exactly 3 Hérons; 4+ open the Étang
    assert math.isclose(t.at[0, "reroll 7"], 1 - sum(math.comb(7, k) * (1 / 7) ** k * (6 / 7) ** (7 - k)
                                                     for k in range(3)), rel_tol=1e-9)
    assert math.isclose(t.at[2, "reroll 1"], 1 / 7, rel_tol=1e-9)


def test_compare_metrics_number_seats_from_one_and_name_guides():
    from heron_sim.runner.kinds.compare import metric_name

    assert metric_name("AdvantageP1 (seat 1 wins)") == "first player (seat 1) wins (AdvantageP1)"
    assert metric_name("seat 2 wins") == "seat 2 wins"  # seats from 1 at the source: the second player
    assert metric_name("guide heron wins") == "player dealt the Héron guide wins"


def test_seating_text_names_every_strategy_when_they_outnumber_the_seats():
    from heron_sim.runner.kinds.common import _seating_text

    five = ["greedy", "prudent", "expert", "racer", "random"]
    job = {"seatings": [[five[(i + k) % 5] for k in range(4)] for i in range(5)]}
    assert "random" in _seating_text(job) and "4 seats at a time" in _seating_text(job)
    four = {"seatings": [["greedy", "prudent", "expert", "racer"], ["prudent", "expert", "racer", "greedy"]]}
    assert _seating_text(four) == "greedy, prudent, expert, racer (rotated over 2 seatings)"


def test_minutes_flag_unfinished_games():
    facts = [_f(f"players.{p}.minutes", m, m - 1, m + 1, unit="minutes") for p, m in ((2, 38), (4, 70), (7, 120))]
    facts += [_f("players.2.unfinished", 0.0), _f("players.4.unfinished", 0.0), _f("players.7.unfinished", 0.03)]
    row = _row(facts, "Length at the table")
    assert "over finished games" in row.answer and "7 (3.0" in row.answer
    clean = _row(facts[:3] + [_f(f"players.{p}.unfinished", 0.0) for p in (2, 4, 7)], "Length at the table")
    assert "unfinished" not in clean.answer


def test_modes_are_weighed_on_every_headline_measure_not_length_alone():
    facts = [_f("modes.length.8d8", 26.3, 26.1, 26.4, unit="rounds"), _f("modes.minutes.8d8", 70, 69, 71, unit="minutes"),
             _f("modes.minutes.10d8", 40, 39, 41, unit="minutes"), _f("turns.dead.10d8", 0.486, 0.48, 0.49),
             _f("modes.pond_per_played_turn.10d8", 0.042, 0.041, 0.043),
             _f("modes.length_rel.10d8", -0.19, -0.2, -0.18, unit="relative change")]
    row = _row(facts, "The four dice modes: 8, 7 and 10 D8, 10 D6")
    assert "for a shorter game" not in row.action  # the old advice on length alone
    assert "10 D8: 40 min (within 30–45), dead greedy turns 49" in row.action and "Étang 4.20" in row.action
