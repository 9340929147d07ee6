"""The lab's decisions read in a fixed order (issue 62, item 1): one Holm for the package, the
ladder's order (``score_key``) and the human's choice probability, each checked on hand-made
cases that a one-line change of the code would fail."""

from __future__ import annotations

import math

import numpy as np
import pytest

from heron_sim.analysis.stats import holm, holm_reject
from heron_sim.lab.ladder import Entry, combine, score_key

pytestmark = pytest.mark.exact


# ---------------------------------------------------------------- Holm
@pytest.mark.parametrize("p, rejected", [
    ([0.01, 0.04, 0.03], [True, False, False]),     # 0.01 <= 0.05/3; 0.03 > 0.05/2: stop there
    ([0.01, 0.02, 0.04], [True, True, True]),       # 0.01 <= 0.0167, 0.02 <= 0.025, 0.04 <= 0.05
    ([0.04, 0.001, 0.012], [True, True, True]),     # any order: the same decisions
    ([0.2, 0.001, 0.03], [False, True, False]),     # 0.03 > 0.05/2 stops the steps after it
    ([0.05], [True]),                               # a family of one: alpha itself
    ([], []),
    ([0.01, 0.03, 0.03], [True, False, False]),     # a tie past the stop: 0.03 > 0.05/2, so the
                                                    # second 0.03 (<= 0.05/1) is never reached
    ([0.02, 0.001, 0.02], [True, True, True]),      # a tie within: 0.02 <= 0.05/2 and <= 0.05/1
    ([0.02, 0.02, 0.02], [False, False, False]),    # a tie at the first step: 0.02 > 0.05/3
])
def test_holm_step_down_by_hand(p, rejected):
    assert holm_reject(p, 0.05).tolist() == rejected
    assert (holm(p) <= 0.05).tolist() == rejected


def test_holm_adjusted_p_values_by_hand():
    # sorted 0.01, 0.03, 0.03: 3 x 0.01 = 0.03; 2 x 0.03 = 0.06; max(0.06, 1 x 0.03) = 0.06
    assert holm([0.03, 0.01, 0.03]).tolist() == pytest.approx([0.06, 0.03, 0.06], abs=1e-15)
    # sorted 0.001, 0.2, 0.5: 0.003; 0.4; max(0.4, 0.5) = 0.5; capped at 1 where the product passes it
    assert holm([0.5, 0.001, 0.2]).tolist() == pytest.approx([0.5, 0.003, 0.4], abs=1e-15)
    assert holm([0.6, 0.7]).tolist() == [1.0, 1.0]


def test_holm_agrees_with_statsmodels(monkeypatch):
    import gc

    from statsmodels.stats.multitest import multipletests

    # statsmodels' Holm branch calls gc.collect() at every call: a full collection of this test
    # worker's heap, a quarter of a second each, a minute for these 250 calls (nothing to collect)
    monkeypatch.setattr(gc, "collect", lambda *args, **kwargs: 0)

    rng = np.random.default_rng(4)
    for m in (1, 2, 5, 12, 40):
        for _ in range(50):
            p = rng.uniform(0, 0.2, m) ** 2
            p[rng.integers(0, m)] = p[0]  # ties
            ref, adj = multipletests(p, alpha=0.05, method="holm")[:2]
            assert holm_reject(p, 0.05).tolist() == ref.tolist()
            assert np.allclose(holm(p), adj)


def test_the_lighter_games_lab_uses_the_one_holm():
    from heron_sim.lab.light import holm_over_family

    fin = [{"objectives": [{"goal": 1.0, "p_goal": 0.01, "goal_met_95": True}, {"goal": None, "p_goal": 0.0}]},
           {"objectives": [{"goal": 1.0, "p_goal": 0.03, "goal_met_95": True},
                           {"goal": 2.0, "p_goal": 0.02, "goal_met_95": True}]}]
    holm_over_family(fin)
    # three goal tests: 0.01 <= 0.05/3, 0.02 <= 0.05/2, 0.03 <= 0.05/1
    assert [o.get("goal_met_holm") for e in fin for o in e["objectives"]] == [True, None, True, True]
    assert {e["holm_family"] for e in fin} == {3}
    fin[1]["objectives"][1]["p_goal"] = 0.026  # now above 0.05/2: it and every larger p fail
    holm_over_family(fin)
    assert [o.get("goal_met_holm") for e in fin for o in e["objectives"]] == [True, None, False, False]


# ---------------------------------------------------------------- the ladder's order
def _entry(name, feasible, score, n, key="a", value=1):
    e = Entry(name, {key: value}, n_changed=n, score=score)
    e.constraints = [0.0] if feasible else [1.0]
    return e


def test_score_key_feasible_first_then_score_then_fewest_rules():
    a = _entry("A", True, 5.0, 2)
    b = _entry("B", False, 1.0, 1)   # the best score, but infeasible: last
    c = _entry("C", True, 5.0, 1)    # A's score with fewer rules: before A
    d = _entry("D", True, 3.0, 3)    # the best feasible score, whatever its rules
    assert [e.id for e in sorted([a, b, c, d], key=score_key)] == ["D", "C", "A", "B"]


class _Spec:
    ladder_top = 2


def test_combine_takes_each_parameters_best_value_then_the_best_parameters():
    singles = [_entry("L1", True, 4.0, 1, "x", 1), _entry("L2", True, 2.0, 1, "x", 2),
               _entry("L3", True, 3.0, 1, "y", 7), _entry("L4", False, 0.5, 1, "z", 9),
               _entry("L5", True, 6.0, 1, "w", 0)]
    pairs = combine(_Spec(), singles, 2, start=5)
    # x's best is 2 (score 2), y's 7 (3); z is infeasible and w scores worst: the top two are x, y
    assert [(e.id, e.values) for e in pairs] == [("L6", {"x": 2, "y": 7})]


# ---------------------------------------------------------------- the human's choice
@pytest.mark.parametrize("d, temp", [(0.0, 1.0), (1.0, 1.0), (-2.0, 0.5), (3.0, 1.5), (-0.3, 0.8),
                                     (800.0, 1.0), (-800.0, 1.0)])
def test_chance_is_the_logistic_of_the_gain_over_the_temperature(d, temp):
    from heron_sim.strategies.human import chance, under

    want = 1.0 / (1.0 + math.exp(-d / temp)) if abs(d / temp) < 700 else float(d > 0)
    assert chance(d, temp) == pytest.approx(want, rel=1e-15, abs=1e-300)
    for u in (0.0, 0.25, 0.4999, 0.5, 0.73, 0.9999):
        assert under(u, d, temp) == (u < want), (u, d, temp)


def _stream(seed):
    from heron_sim.engine.rng import new_state, stream_start

    state = new_state()
    stream_start(np.uint64(seed), np.uint64(0), state)
    return state


@pytest.mark.parametrize("temp, caution, forget", [(0.8, 0.3, 0.25), (1.5, -2.0, 0.0), (0.3, 1.5, 0.5),
                                                   (0.0, 0.5, 0.0)])
def test_the_humans_keep_or_stop_and_lions_rescue_follow_the_formula_draw_by_draw(temp, caution, forget):
    """human_action (keep/stop) rerolls with probability 1 / (1 + exp(-d / temp)), d = the best
    reroll's value - caution - the stop's value; human_lion first forgets with chance ``forget``
    (one draw, none when forget = 0), then rescues with probability 1 / (1 + exp(-d / temp)),
    d = the rescued dice's score - the Anxiety's consolation (heron_sim.strategies.human's
    docstring); temp = 0 takes the better option and draws nothing. A second stream with the
    same seed replays the game's draws here, decision by decision, with the formula written out."""
    from heron_sim.engine.pack import pack_rules
    from heron_sim.engine.rng import uniform
    from heron_sim.rules import Rules
    from heron_sim.strategies.human import CAUTION, FORGET, TEMP, human_action, human_lion

    def p(d):
        return 1.0 / (1.0 + math.exp(-d / temp))

    def draw_below(q):
        return uniform(mirror) < q

    R = pack_rules(Rules().replace(consolation_anxiety=2))
    sp = np.zeros((2, 8))
    sp[0, TEMP], sp[0, CAUTION], sp[0, FORGET] = temp, caution, forget
    w = np.zeros(8, dtype=np.int64)
    game, mirror = _stream(62), _stream(62)
    rerolls = rescues = 0
    for i in range(400):
        stop, best = (i % 9) * 0.5, 1.0 + (i % 5) * 0.75
        sp[1, 3:7] = (-1.0, stop, 17.0, best)  # the table's row: stop is best, its value, the reroll, its value
        d = best - caution - stop
        want = (d > 0) if temp == 0 else draw_below(p(d))
        got = human_action(0, w, R, game, sp, 1, 3)
        assert got == (17 if want else -1), (i, d)
        rerolls += want
        adv = i % 6
        if forget > 0 and draw_below(forget):
            want = 0
        else:
            want = int(adv - 2 > 0) if temp == 0 else int(draw_below(p(adv - 2.0)))
        assert human_lion(0, R, game, sp, adv) == want, (i, adv)
        rescues += want
        assert game.tolist() == mirror.tolist(), i  # the same draws taken, no more
    assert 0 < rerolls < 400 and 0 < rescues < 400
