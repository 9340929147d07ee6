"""The lighter games' lab reads its orders as written (issue 62, item 1): the racing key (and the
search's score, the same key), the designer's order of the finalists and the goal test, each on
hand-made entries whose expected answer is written by hand, so that a one-line change of
heron_sim/lab/light.py (a comparison flipped, a key dropped) fails here."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from heron_sim.lab.light import Candidate, Study, _decision, designer_order

pytestmark = pytest.mark.exact


# ---------------------------------------------------------------- the racing key
#: The base's losses on the search games: the race divides each loss by |base loss| (b < 0 here,
#: so a key that forgot the absolute value would divide by ~0).
BASE_LOSSES = {"a": 2.0, "b": -4.0}

#: id -> (losses on the rung, feasible, rules changed). Normalised sums by hand (a / 2 + b / 4):
#: c1 1/2 + 2/4 = 1.0; c2 0 (but infeasible); c3 1.0 (c1's, with fewer rules); c4 2.4/2 = 1.2
#: (its raw sum 2.4 is below c1's 3.0: a key that forgot to normalise puts it first).
RUNG = {"c1": ({"a": 1.0, "b": 2.0}, True, 2), "c2": ({"a": 0.0, "b": 0.0}, False, 1),
        "c3": ({"a": 1.0, "b": 2.0}, True, 1), "c4": ({"a": 2.4, "b": 0.0}, True, 1)}


def _cands():
    return [Candidate(cid, "search", {}, {}, rules=cid, n_changed=n) for cid, (_, _, n) in RUNG.items()]


class _Games:
    """Plays nothing: a rule set's games are its name (the candidates' rules are their ids)."""

    def __init__(self):
        self.played = []

    def play(self, rules, first, n):
        self.played.append((rules, first, n))
        return rules


def _race(keep, picks=()):
    study = object.__new__(Study)
    study.spec, study.ev, study.log, study.base = SimpleNamespace(rungs=(10, 20), keep=keep), _Games(), lambda s: None, "base"
    study.judge = lambda games, base: {"losses": RUNG[games][0], "feasible": RUNG[games][1]}
    cands = _cands()
    alive, base_g, games, n = study.race(cands, {"losses": BASE_LOSSES}, [c for c in cands if c.id in picks])
    return [c.id for c in alive], study.ev.played, n


def test_the_race_keeps_feasible_first_then_the_normalised_sum_then_fewest_rules():
    # by hand: c3 (1.0, 1 rule), c1 (1.0, 2 rules), c4 (1.2), then c2 (infeasible)
    assert _race(keep=4)[0] == ["c3", "c1", "c4", "c2"]
    ids, played, n = _race(keep=3)
    assert ids == ["c3", "c1", "c4"] and n == 20
    # the first rung plays the base and every candidate, the last the base and the three kept
    assert [p[0] for p in played] == ["base", "c1", "c2", "c3", "c4", "base", "c3", "c1", "c4"]
    assert {p[1:] for p in played[:5]} == {(1_000_000_000, 10)} and {p[1:] for p in played[5:]} == {(2_000_000_000, 20)}


def test_the_ladders_picks_run_to_the_last_rung_whatever_their_place():
    assert _race(keep=2, picks=("c2",))[0] == ["c3", "c1", "c2"]
    assert _race(keep=2, picks=("c3", "c4"))[0] == ["c3", "c1", "c4"]  # a pick kept is not named twice


def test_the_search_score_is_the_same_key():
    study = object.__new__(Study)
    cands = _cands()
    for c in cands:
        c.search = {"losses": RUNG[c.id][0], "feasible": RUNG[c.id][1]}
    assert [study.score(c, BASE_LOSSES) for c in cands] == [
        (False, pytest.approx(1.0), 2), (True, 0.0, 1), (False, pytest.approx(1.0), 1), (False, pytest.approx(1.2), 1)]
    assert [c.id for c in sorted(cands, key=lambda c: study.score(c, BASE_LOSSES))] == ["c3", "c1", "c4", "c2"]


# ---------------------------------------------------------------- the designer's order
SPEC2 = SimpleNamespace(objectives=(object(), object()))  # designer_order reads how many objectives


def _fin(id, losses, lows, *, meets=False, feasible=True, goals=0, n=1, effects=()):
    return {"id": id, "meets": meets, "feasible": feasible, "goals_met_95": goals, "n_changed": n,
            "side_effects": [{"size": s} for s in effects],
            "objectives": [{"loss": v, "loss_low": lo} for v, lo in zip(losses, lows)]}


def test_the_designers_order_among_the_variants_that_meet_every_goal():
    fin = [_fin("A", (0.10, 0.10), (0, 0), meets=True, n=2),                      # no side effect, 2 rules
           _fin("B", (0.20, 0.20), (0, 0), meets=True, effects=(3.0,)),           # 1 effect, size 3
           _fin("C", (0.30, 0.30), (0, 0), meets=True, effects=(1.0, 1.0)),       # 2 effects, size 2 in all
           _fin("K", (0.15, 0.50), (0, 0), meets=True, effects=(1.0,)),           # as D, ranks 1 + 4
           _fin("D", (0.40, 0.04), (0, 0), meets=True, effects=(1.0,))]           # 1 effect, size 1, ranks 4 + 0
    # by hand: 1 rule before 2 (A last); then fewest effects (C after B, though smaller in all);
    # then their size (D before B); then the sum of the estimates' ranks over the objectives
    # (D 4 before K 5, though K is better on the first)
    out = designer_order(SPEC2, fin)
    assert [e["id"] for e in out] == ["D", "K", "B", "C", "A"]
    assert [e["rank"] for e in out] == [1, 2, 3, 4, 5]


def test_the_designers_order_among_the_others():
    # the best loss per objective is E's (0.10, 0.10); "alike": loss_low <= that best
    fin = [_fin("E", (0.10, 0.10), (0.00, 0.00), feasible=False, goals=2),  # infeasible: last
           _fin("J", (0.20, 0.20), (0.15, 0.05), n=3),                   # alike 1, 3 rules
           _fin("H", (0.60, 0.32), (0.20, 0.05)),                        # alike 1, ranks 4 + 2 = 6
           _fin("I", (0.30, 0.35), (0.05, 0.30)),                        # alike 1, ranks 2 + 3 = 5
           _fin("G", (0.50, 0.50), (0.05, 0.10)),                        # alike 2 (0.10 <= 0.10 counts)
           _fin("F", (0.90, 0.90), (0.80, 0.80), goals=1)]               # one goal met at 95 %: first
    assert [e["id"] for e in designer_order(SPEC2, fin)] == ["F", "G", "I", "H", "J", "E"]


def test_a_variant_that_meets_every_goal_comes_before_any_other():
    fin = [_fin("best", (0.1, 0.1), (0.0, 0.0), goals=1), _fin("meets", (0.9, 0.9), (0.8, 0.8), meets=True, n=3,
                                                                   effects=(5.0, 5.0))]
    assert [e["id"] for e in designer_order(SPEC2, fin)] == ["meets", "best"]
    assert designer_order(SPEC2, []) == []


# ---------------------------------------------------------------- the goal test
@pytest.mark.parametrize("est, lo, hi, decision, met, met95, need", [
    (0.5, 0.2, 0.9, "passes", True, True, None),
    (0.5, 0.2, 1.0, "passes", True, True, None),                        # the bound on the goal passes
    (1.5, 1.2, 1.9, "fails (decisive)", False, False, None),
    (1.5, 1.0, 1.9, "likely fails (not decisive)", False, False, 100),  # lo on the goal: not decisive; (0.5 / 0.5)^2
    (1.25, 0.875, 2.0, "likely fails (not decisive)", False, False, 225),  # n (0.375 / 0.25)^2: the lower half-width
    (0.5, 0.25, 1.5, "undecided (underpowered)", True, False, 400),        # n (1.0 / 0.5)^2: the upper half-width
    (1.0, 0.5, 1.5, "undecided (underpowered)", True, False, None),     # the estimate on the goal: no count
])
def test_the_goal_test_by_hand(est, lo, hi, decision, met, met95, need):
    d = _decision(est, lo, hi, 1.0, 100)
    assert (d["decision"], d["goal_met"], d["goal_met_95"], d["games_needed"]) == (decision, met, met95, need)
