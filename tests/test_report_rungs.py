"""Issue 28 item 5: the report's balance figures per rung of the skill ladder (the guides kind's
``rungs`` option, heron_sim.runner.kinds.rungs)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from heron_sim.analysis import metrics as M
from heron_sim.analysis.intervals import wilson
from heron_sim.errors import HeronSimError
from heron_sim.runner.config import load_experiment
from heron_sim.runner.run import RunData, run_experiments
from heron_sim.sections import Fact


def write(tmp_path, text, name="g.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_each_rung_plays_alone_at_every_seat_on_the_plans_seed_and_rules(tmp_path):
    from heron_sim.runner.kinds import plan_jobs

    body = 'kind = "guides"\nmodes = ["8d8"]\ngames = 300\nseating = "ai"\nseed = 9\n'
    exp = load_experiment(write(tmp_path, body + 'rungs = ["novice", "expert"]\nrung_games = 120'))
    jobs = {j.key: j for j in plan_jobs(exp)}
    on = jobs["games_8d8_on"]
    for r in ("novice", "expert"):
        j = jobs[f"games_8d8_rung_{r}"]
        assert j.seatings == [[r] * 4] and j.seed == on.seed and j.rules == on.rules and j.n == 120
        assert j.labels == {"mode": "8d8", "rung": r}
    # --games shrinks the rung batches like every other
    assert {j.key: j for j in plan_jobs(exp, games_override=50)}["games_8d8_rung_novice"].n == 50
    # rung_games 0: as many as games; no rungs: no batch
    exp = load_experiment(write(tmp_path, body + 'rungs = ["casual"]'))
    assert {j.key: j for j in plan_jobs(exp)}["games_8d8_rung_casual"].n == 300
    assert not any("_rung_" in j.key for j in plan_jobs(load_experiment(write(tmp_path, body))))


@pytest.mark.parametrize("value,message", [
    ('["novice", "nobody"]', "nobody"),
    ('["expert", "expert"]', "'expert' is given twice"),
    ('["novice,expert"]', "one strategy name per entry"),
    ('"novice"', "a list of strategy names"),
    ('[3]', "a list of strategy names"),
])
def test_bad_rungs_are_one_line(tmp_path, value, message):
    with pytest.raises(HeronSimError, match=message) as err:
        load_experiment(write(tmp_path, f'kind = "guides"\nrungs = {value}'))
    assert "\n" not in str(err.value) and "rungs" in str(err.value)


def test_balance_per_rung_on_a_tiny_run(tmp_path):
    """Each rung's figures are those of its own batch; the plan's own figures do not move; the
    pooled first player leaves the rung batches out; the executive page gets the row."""
    from heron_sim.runner.kinds import analyse
    from heron_sim.runner.kinds.across import job_label, pooled_first_player
    from heron_sim.runner.kinds.rungs import rungs_row
    from heron_sim.sections import Section

    body = 'kind = "guides"\nmodes = ["8d8"]\ngames = 80\nseed = 3\nseating = "greedy"\n'
    gr = load_experiment(write(tmp_path, 'name = "gr"\n' + body + 'rungs = ["novice", "expert"]\n', "gr.toml"))
    g = load_experiment(write(tmp_path, 'name = "g"\n' + body, "g.toml"))
    run_experiments([gr, g], tmp_path / "run")
    run = RunData(tmp_path / "run")
    out = {e.name: (analyse(e, d), d) for e, d in run.experiments()}
    (sr, dr), (s, _) = out["gr"], out["g"]
    fr, f = {x.id: x for x in sr.facts}, {x.id: x for x in s.facts}
    for k, v in f.items():  # the plan's figures do not move
        assert fr[k].estimate == pytest.approx(v.estimate, nan_ok=True), k
    assert not any(k.startswith("rungs.") for k in f)
    for r in ("novice", "expert"):
        df = dr.frame(f"games_8d8_rung_{r}")
        assert set(df["strategies"]) == {",".join([r] * 4)}
        fin = df[df["finished"].to_numpy(bool)]
        k = int((fin["winner"] == 0).sum())
        est, lo, hi = wilson(k, len(fin))
        got = fr[f"rungs.{r}.seat1.8d8"]
        assert (got.estimate, got.low, got.high, got.n) == pytest.approx((est, lo, hi, len(fin)))
        gt = M.guide_table(df)
        d = gt[gt["dealt"] > 0]
        # the guide spread: the largest gap between a guide's win rate when dealt and the fair share (the lab's)
        P = int(df["players"].iloc[0])
        assert fr[f"rungs.{r}.spread.8d8"].estimate == pytest.approx(float((d["wins"] / d["dealt"] - 1 / P).abs().max()))
        assert fr[f"rungs.{r}.when_dealt.8d8.heron"].estimate == pytest.approx(
            gt.set_index("guide").at["heron", "win_rate_when_dealt"])
        assert f"rungs.{r}.last_wins.8d8" in fr and f"rungs.{r}.balance.8d8" in fr
        assert job_label(dr.jobs[f"games_8d8_rung_{r}"]) == f"8 D8, {r} at every seat"
    tab = next(t for t in sr.tables if "balance per rung" in t.caption)
    assert list(tab.frame.index) == ["novice", "expert"]
    assert any("first player minus fair" in c for c in tab.frame.columns)
    assert any(t.caption.startswith("8 D8: win rate by starting guide when dealt, per rung") for t in sr.tables)
    assert any(x.startswith("Balance per rung on 8 D8") for x in sr.findings)
    # the pooled first player: one batch per seed, never a rung's
    sec = Section(key="x", title="x")
    pooled_first_player(run, sec)
    batches = next(t for t in sec.tables).data["batch"]
    assert not any("at every seat" in b for b in batches)
    row = rungs_row(fr)
    assert row is not None and row.key == "rungs" and "novice:" in row.answer and "expert:" in row.answer
    assert row.fact_id in fr


def _fact(id, est, lo, hi, n=10_000, p=1e-9, fair=0.25, unit="share"):
    return Fact(id, id, est, lo, hi, n, unit, p=p, note=f"fair {fair:.4f}; test")


def test_the_row_and_the_verdict_read_each_rung_against_its_margin():
    from heron_sim.runner.kinds.rungs import rung_problems, rungs_row

    facts = {}
    for r, s1, sp in (("novice", (0.30, 0.29, 0.31), (0.08, 0.07, 0.09)), ("expert", (0.2505, 0.246, 0.255), (0.02, 0.015, 0.03))):
        facts[f"rungs.{r}.seat1.8d8"] = _fact(f"rungs.{r}.seat1.8d8", *s1)
        facts[f"rungs.{r}.spread.8d8"] = _fact(f"rungs.{r}.spread.8d8", *sp, unit="share difference")
        facts[f"rungs.{r}.spread_floor.8d8"] = _fact(f"rungs.{r}.spread_floor.8d8", 0.01, math.nan, 0.02, unit="share difference")
    facts["rungs.novice.when_dealt.8d8.heron"] = _fact("rungs.novice.when_dealt.8d8.heron", 0.18, 0.17, 0.19, p=1e-6)
    facts["rungs.expert.when_dealt.8d8.heron"] = _fact("rungs.expert.when_dealt.8d8.heron", 0.16, 0.15, 0.17, p=1e-6)
    facts["rungs.expert.when_dealt.8d8.loup"] = _fact("rungs.expert.when_dealt.8d8.loup", 0.252, 0.245, 0.259, p=0.5)
    row = rungs_row(facts)
    assert "inside ±1 point for expert" in row.action and "beyond it for novice" in row.action
    assert "least balanced for the novice players and most for the expert players." in row.answer
    assert row.fact_id == "rungs.novice.spread.8d8" and "beyond what 95 % of fair games read" in row.sure
    probs = {p.what: p for p in rung_problems(facts)}
    assert set(probs) == {"For novice players the first player wins more than a fair 25\u00a0%",
                          "At every rung of the skill ladder (novice, expert) the Héron guide is weak (Holm over the 7 guides)"}
    heron = probs["At every rung of the skill ladder (novice, expert) the Héron guide is weak (Holm over the 7 guides)"]
    assert heron.figure.startswith("expert: ") and heron.size == pytest.approx(8.0) and heron.anchor == "q-rungs"
    assert rungs_row({}) is None and rung_problems({}) == []
    assert np.isfinite(probs["For novice players the first player wins more than a fair 25\u00a0%"].size)
