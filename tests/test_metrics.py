"""Metrics and statistics on synthetic data with known answers."""

import math

import numpy as np
import pandas as pd
import pytest

from heron_sim.analysis import metrics as M
from heron_sim.analysis.stats import (binom_test, bootstrap_interval, chi2_sf, eta_squared, format_p, holm,
                                      paired_difference, quantile_interval, t_interval, t_quantile,
                                      two_proportions)
from heron_sim.animals import NAMES

pytestmark = pytest.mark.exact


def frame(winners, guides=None, players=4, **cols):
    """A minimal per-game frame with the columns the metrics read."""
    n = len(winners)
    guides = guides if guides is not None else [list(range(players))] * n
    d = {"game": np.arange(n), "players": players, "winner": np.array(winners),
         "finished": np.array([w >= 0 for w in winners]), "rounds": cols.pop("rounds", np.full(n, 10)),
         "played_turns": np.full(n, 40), "ponds": np.zeros(n, int), "anxieties": np.zeros(n, int),
         "pushback": np.zeros(n, int), "lion_rescues": np.zeros(n, int), "lead_changes": np.zeros(n, int),
         "mid_leader": np.full(n, -1), "mid_last": np.full(n, -1)}
    for s in range(players):
        d[f"guide_{s}"] = pd.Categorical.from_codes([g[s] for g in guides], categories=list(NAMES))
        d[f"strategy_{s}"] = "greedy"
        for c in ("advance", "turns", "anxiety", "doubled"):
            d[f"{c}_{s}"] = np.full(n, 10)
    d.update(cols)
    return pd.DataFrame(d)


def test_holm_known_values():
    adj = holm([0.01, 0.04, 0.03, 0.005])
    assert np.allclose(adj, [0.03, 0.06, 0.06, 0.02])


def test_binom_test_known_values():
    assert binom_test(5, 10, 0.5) == pytest.approx(1.0)
    assert binom_test(0, 10, 0.5) == pytest.approx(2 / 1024)
    assert binom_test(10, 10, 0.5) == pytest.approx(2 / 1024)


def test_chi2_and_t_quantiles():
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-6)
    assert chi2_sf(5.991464547107979, 2) == pytest.approx(0.05, abs=1e-6)
    assert chi2_sf(18.307038053275146, 10) == pytest.approx(0.05, abs=1e-6)
    assert t_quantile(10) == pytest.approx(2.228139, abs=2e-3)
    assert t_quantile(10**6) == pytest.approx(1.959964, abs=1e-4)


def test_intervals():
    m, lo, hi = t_interval([1, 2, 3, 4, 5])
    assert m == 3 and lo == pytest.approx(3 - 2.776 * math.sqrt(2.5 / 5), abs=0.03)
    x = np.random.default_rng(1).normal(10, 2, 4000)
    m, lo, hi = bootstrap_interval(x, n_boot=300)
    assert lo < 10 < hi and hi - lo == pytest.approx(2 * 1.96 * 2 / math.sqrt(4000), rel=0.2)
    q, qlo, qhi = quantile_interval(np.arange(1001), 0.5)
    assert q == 500 and qlo < 500 < qhi


def test_paired_and_two_proportions():
    a = np.arange(100.0)
    d = paired_difference(a, a + 1)
    assert d["diff"] == 1 and d["low"] == pytest.approx(1) and d["p"] == 0.0 and d["n"] == 100
    d = paired_difference(a, a)
    assert d["diff"] == 0 and d["p"] == 1.0
    t = two_proportions(50, 100, 50, 100)
    assert t["diff"] == 0 and t["low"] < 0 < t["high"] and t["p"] == pytest.approx(1.0)


def _old_paired(a, b):
    """The paired interval as heron-sim wrote it by hand before scipy's ttest_rel (issue 29)."""
    from scipy import stats as st

    ok = ~(np.isnan(a) | np.isnan(b))
    d = b[ok] - a[ok]
    n, m, sd = d.size, d.mean(), d.std(ddof=1)
    h = st.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    return m, m - h, m + h, 2 * st.t.sf(abs(m) / (sd / math.sqrt(n)), n - 1)


def _old_two_proportions(k1, n1, k2, n2):
    """Newcombe's interval and the pooled z-test as written by hand before statsmodels."""
    from heron_sim.analysis.intervals import wilson
    from heron_sim.analysis.stats import normal_sf

    p1, l1, u1 = wilson(k1, n1)
    p2, l2, u2 = wilson(k2, n2)
    d = p2 - p1
    low = d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    high = d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    pool = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
    return d, low, high, 2 * normal_sf(abs(d) / se)


@pytest.mark.parametrize("seed", range(6))
def test_scipy_and_statsmodels_intervals_give_the_old_figures(seed):
    """The paired interval (scipy's ttest_rel) and the difference of two rates (statsmodels'
    Newcombe interval and z-test) give the figures of the formulas they replace (issue 29
    item 7), NaN pairs dropped, small and large samples, rates near 0 and 1."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 3000))
    a = rng.normal(20, 5, n)
    b = a + rng.normal(rng.uniform(-1, 1), rng.uniform(0.1, 4), n)
    a[rng.random(n) < 0.05] = np.nan
    got = paired_difference(a, b)
    want = _old_paired(a, b)
    assert (got["diff"], got["low"], got["high"], got["p"]) == pytest.approx(want, rel=1e-9, abs=1e-12)
    for k1, n1, k2, n2 in [(int(rng.integers(0, 50)), 50, int(rng.integers(0, 80)), 80),
                           (int(rng.integers(0, 10_000)), 10_000, int(rng.integers(0, 9_000)), 9_000),
                           (0, 40, 1, 60), (40, 40, 59, 60), (3, 7, 7, 7)]:
        t = two_proportions(k1, n1, k2, n2)
        assert (t["diff"], t["low"], t["high"], t["p"]) == pytest.approx(_old_two_proportions(k1, n1, k2, n2),
                                                                          rel=1e-9, abs=1e-12)


def test_the_degenerate_cases_keep_their_figures():
    """No variance: a zero-width paired interval and p = 1 or 0; an empty side: NaN; rates of 0
    on both sides: p = 1 (scipy and statsmodels are undefined there: nothing silent, no warning)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = paired_difference(np.ones(5), np.ones(5) + 2)
        assert (d["diff"], d["low"], d["high"], d["p"]) == (2, 2, 2, 0.0)
        assert math.isnan(paired_difference([1.0], [2.0])["p"])
        t = two_proportions(0, 10, 0, 20)
        assert (t["diff"], t["p"]) == (0, 1.0) and t["low"] <= 0 <= t["high"]
        t = two_proportions(0, 0, 3, 10)
        assert math.isnan(t["diff"]) and math.isnan(t["low"]) and math.isnan(t["p"])


def test_eta_squared():
    assert eta_squared([0, 0, 1, 1], ["a", "a", "b", "b"]) == pytest.approx(1.0)
    assert eta_squared([0, 1, 0, 1], ["a", "a", "b", "b"]) == pytest.approx(0.0)


def test_ludii_metrics():
    lm = M.ludii_metrics(frame([0, 0, 1, 2, -1]))
    assert lm["Balance"] == pytest.approx(1 - 0.4)
    assert lm["AdvantageP1"] == pytest.approx(0.4)
    assert lm["Completion"] == pytest.approx(0.8)


def test_guide_table_flags_a_dominant_guide():
    # seat 0 always holds loup and always wins; heron is never dealt
    df = frame([0] * 200, guides=[[0, 1, 2, 3]] * 200)
    t = M.guide_table(df).set_index("guide")
    assert t.at["loup", "win_rate"] == 1.0 and t.at["loup", "win_rate_when_dealt"] == 1.0
    assert t.at["loup", "flag"] == "strong" and t.at["taureau", "flag"] == "weak"
    assert t.at["heron", "dealt"] == 0 and t.at["heron", "win_rate"] == 0.0


def test_drama_and_coverage():
    df = frame([0, 1, 2, 3], mid_leader=np.array([0, 0, -1, 3]), mid_last=np.array([1, 1, 2, -1]),
               lead_changes=np.array([1, 2, 3, 4]), square_8_loup=np.array([0, 1, 0, 1]),
               square_60_heron=np.zeros(4, int), power_lion=np.array([2, 0, 0, 0]))
    d = M.drama(df)
    assert d["lead_changes"] == 2.5
    assert d["leader_loses"] == pytest.approx(1 / 3) and d["leader_games"] == 3   # games 0,1,3: loses in game 1
    assert d["last_wins"] == pytest.approx(2 / 3) and d["last_games"] == 3        # games 0,1,2: wins in 1 and 2
    cov = M.rule_coverage(df).set_index("rule")
    assert cov.at["8 loup", "per_game"] == 0.5 and cov.at["8 loup", "games_with"] == 0.5
    assert bool(cov.at["60 heron", "never"]) and not bool(cov.at["lion", "never"])


def test_ratio_interval_and_doubling_share():
    r, lo, hi = M.ratio_interval([1, 2, 3], [2, 4, 6])
    assert r == 0.5 and lo == pytest.approx(0.5) and hi == pytest.approx(0.5)
    df = frame([0, 1])
    t = M.doubling_share(df).set_index("guide")
    assert t.at["all", "share"] == 1.0


def test_variance_explained_by_strategy():
    n = 400
    df = frame([0] * n)
    df["strategy_0"] = "expert"
    for s in range(1, 4):
        df[f"strategy_{s}"] = "random"
    ve = M.variance_explained(df, n_boot=20).set_index("factor")
    assert ve.at["strategy", "eta_squared"] == pytest.approx(1.0)
    assert ve.at["seat", "eta_squared"] == pytest.approx(1.0)
    assert ve.at["guide", "eta_squared"] == pytest.approx(1.0)  # guide k always at seat k


def test_compare_frames_identical_runs_differ_by_zero():
    from heron_sim.runner.kinds import compare_frames

    rng = np.random.default_rng(0)
    df = frame(list(rng.integers(0, 4, 300)), rounds=rng.integers(10, 40, 300))
    t = compare_frames(df, df.copy(), "A", "B", n_boot=20).set_index("metric")
    assert (t["diff"].dropna().abs() < 1e-12).all() and t["diff"].notna().sum() > 10
    b = df.copy()
    b["rounds"] = b["rounds"] + 2
    t = compare_frames(df, b, "A", "B", n_boot=20).set_index("metric")
    assert t.at["rounds (finished games)", "diff"] == pytest.approx(2.0)


def test_compare_numbers_seats_from_1():
    """One vocabulary (issue 30 item 6): the paired comparison's metrics name seats from 1, as
    every other table of the report (seat 1 plays first); a negative control: no seat 0."""
    from heron_sim.analysis.metrics import game_metrics

    rng = np.random.default_rng(0)
    keys = set(game_metrics(frame(list(rng.integers(0, 4, 50)), rounds=rng.integers(10, 40, 50))))
    assert {"AdvantageP1 (seat 1 wins)", "seat 2 wins", "seat 3 wins", "seat 4 wins"} <= keys
    assert not any("seat 0" in k for k in keys) and "seat 5 wins" not in keys


def test_format_p():
    assert format_p(0.0001) == "p < 0.001" and format_p(0.034) == "p = 0.034" and format_p(float("nan")) == "p = n/a"


def test_chi2_merges_small_tail_bins():
    from heron_sim.runner.kinds import _chi2

    chi, dof = _chi2(np.array([50.0, 30, 15, 4, 1]), np.array([50.0, 30, 15, 4, 1]))
    assert chi == 0 and dof == 3  # the last two bins (expected 4 and 1) merge into one of 5
    chi, dof = _chi2(np.array([3.0, 1]), np.array([2.0, 2]))
    assert dof == 0


def test_power_ablation_known_answer():
    n = 100
    on = frame([0] * n, guides=[[0, 1, 2, 3]] * n, power_loup=np.ones(n, int), power_taureau=np.full(n, 2))
    off_loup = frame([0] * 60 + [1] * 40, guides=[[0, 1, 2, 3]] * n, power_loup=np.zeros(n, int),
                     power_taureau=np.full(n, 2))
    off_taureau = frame([0] * n, guides=[[0, 1, 2, 3]] * n, power_loup=np.ones(n, int), power_taureau=np.zeros(n, int))
    t = M.power_ablation(on, {"loup": off_loup, "taureau": off_taureau}).set_index("guide")
    # loup's holder (seat 0) wins all games with its power, 60 % without: worth +40 points
    assert t.at["loup", "on"] == 1.0 and t.at["loup", "off"] == pytest.approx(0.6)
    assert t.at["loup", "diff"] == pytest.approx(0.4) and t.at["loup", "low"] < 0.4 < t.at["loup", "high"]
    assert t.at["loup", "n"] == n and t.at["loup", "p_holm"] < 1e-6
    assert t.at["loup", "uses"] == 1.0 and t.at["loup", "uses_off"] == 0.0
    # taureau's holder (seat 1) never wins either way: worth exactly 0
    assert t.at["taureau", "diff"] == 0.0 and t.at["taureau", "p"] == 1.0 and t.at["taureau", "uses"] == 2.0
    # a guide that is never dealt has no paired games
    t = M.power_ablation(on, {"heron": on.copy()}).set_index("guide")
    assert t.at["heron", "n"] == 0 and math.isnan(t.at["heron", "diff"])


def test_power_ablation_refuses_unpaired_batches():
    on = frame([0] * 10, strategies=np.array(["a,b,a,b"] * 10))
    with pytest.raises(ValueError, match="same games"):
        M.power_ablation(on, {"loup": on.iloc[:8]})
    other = on.copy()
    other["strategies"] = "b,a,b,a"  # same indices, another seating
    with pytest.raises(ValueError, match="same games"):
        M.power_ablation(on, {"loup": other})


def test_pond_decides_known_answer():
    from heron_sim.analysis.intervals import wilson

    df = frame([0] * 5, ponds=np.array([0, 1, 2, 3, 4]), pond_lead_losses=np.array([0, 0, 1, 0, 2]))
    d = M.pond_decides(df)
    assert d["ponds"] == 10 and d["lead_losses"] == 3 and d["games_with_loss"] == 2 and d["games_with_pond"] == 4
    assert (d["per_pond"], d["per_pond_low"], d["per_pond_high"]) == pytest.approx(wilson(3, 10))
    assert (d["per_game"], d["per_game_low"], d["per_game_high"]) == pytest.approx(wilson(2, 5))
    assert d["per_game_with_pond"] == pytest.approx(0.5)
    assert d["per_game_mean"] == pytest.approx(0.6) and d["per_game_mean_low"] < 0.6 < d["per_game_mean_high"]
    none = M.pond_decides(frame([0, 1], pond_lead_losses=np.zeros(2, int)))
    assert none["ponds"] == 0 and math.isnan(none["per_pond"]) and none["per_game"] == 0.0
