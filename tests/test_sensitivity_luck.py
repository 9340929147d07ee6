"""The report's remedies luck-adjusted (issue 32 item 3): with ``luck = true`` the sensitivity
kind's first-player and weakest-guide win rates are read luck-adjusted where narrower, the plain
interval kept in the fact's note."""

from __future__ import annotations

import pytest

from heron_sim.analysis import metrics as M
from heron_sim.rules import Rules
from heron_sim.runner.kinds.sensitivity import SensitivityExperiment, _luck_note, luck_adjusted_rates
from heron_sim.simulation import simulate

pytestmark = pytest.mark.statistical


def _plain(df):
    seat = M.seat_table(df).iloc[0]
    gt = M.guide_table(df)
    weak = gt[gt["dealt"] > 0].sort_values("win_rate_when_dealt").iloc[0]
    return {"seat1_low": seat["low"], "seat1_high": seat["high"], "weakest": weak["guide"],
            "weakest_low": weak["when_dealt_low"], "weakest_high": weak["when_dealt_high"]}, seat, weak


def test_the_first_player_and_the_weakest_guide_luck_adjusted_where_narrower():
    df = simulate(Rules(), 4000, seed=17, strategies="greedy", luck=True)
    plain, seat, weak = _plain(df)
    out = luck_adjusted_rates(df, plain)
    assert out["seat1_estimate"] == "luck-adjusted" and out["weakest_estimate"] == "luck-adjusted"
    assert out["seat1_high"] - out["seat1_low"] < plain["seat1_high"] - plain["seat1_low"]
    assert out["weakest_high"] - out["weakest_low"] < plain["weakest_high"] - plain["weakest_low"]
    # the same figure: the two estimates within 4.5 standard errors of their difference, about
    # sqrt(plain variance - adjusted variance)
    for key, p in (("seat1", seat["win_rate"]), ("weakest_rate", weak["win_rate_when_dealt"])):
        lo, hi = (("seat1_low", "seat1_high") if key == "seat1" else ("weakest_low", "weakest_high"))
        se_a = (out[hi] - out[lo]) / 3.92
        se_p = (plain[hi] - plain[lo]) / 3.92
        assert abs(out[key] - p) < 4.5 * max(se_p ** 2 - se_a ** 2, 1e-12) ** 0.5, key
    assert "luck-adjusted (plain 95 % CI [" in _luck_note(out, "seat1")


def test_without_the_luck_the_plain_figures_stay():
    df = simulate(Rules(), 500, seed=17, strategies="greedy")
    plain, _, _ = _plain(df)
    assert luck_adjusted_rates(df, plain) == {}
    assert _luck_note({}, "seat1") == ""


def test_the_option_plays_the_remedies_with_their_luck():
    from heron_sim.runner.kinds.sensitivity import SensitivityKind

    exp = SensitivityExperiment(name="s", kind="sensitivity", seating="greedy", luck=True)
    jobs = SensitivityKind().jobs(exp, lambda n: 10)
    lucky = {j.key for j in jobs if j.labels.get("luck")}
    assert "base" in lucky and "single_use" in lucky and "anxiety4" in lucky
    assert not any(j.labels.get("luck") for j in jobs if j.labels.get("part") in ("players", "d6"))
    plain = SensitivityKind().jobs(SensitivityExperiment(name="s", kind="sensitivity", seating="greedy"), lambda n: 10)
    assert not any(j.labels.get("luck") for j in plain)
