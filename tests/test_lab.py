"""The rule-variant lab: tune files, the search space, metrics, paired intervals, a small study."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.lab import load_spec, parse_spec, tune
from heron_sim.lab.metrics import IX, K, Bootstrap, dead_turns, matrix_from_rows, value
from heron_sim.lab.space import apply, build_rules, parse_param
from heron_sim.rules import Rules
from tests.scripting import NONE, STOP, YES, play_script, rules, set_of

pytestmark = [pytest.mark.exact, pytest.mark.statistical]

SMALL = """
name = "small"
seed = 7
seating = "greedy"
[search]
trials = 6
games = 300
population = 4
[racing]
rungs = [300, 600]
keep = 2
report = 3
[[param]]
key = "bull_bonus"
int = [0, 6]
[[param]]
key = "heron_doubling_herons"
choices = [0, 1, 2]
[[objective]]
metric = "guide_spread"
direction = "minimize"
goal = 0.01
[[objective]]
metric = "length"
target = "base"
relative = true
[[constraint]]
metric = "completion"
min = 0.99
"""


def write(tmp_path, text, name="tune-small.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ---------------------------------------------------------------- tune files
def test_spec_parses_and_fills_defaults(tmp_path):
    spec = load_spec(write(tmp_path, SMALL))
    assert spec.name == "small" and spec.players == 4 and spec.base == Rules.build()
    assert [p.key for p in spec.params] == ["bull_bonus", "heron_doubling_herons"]
    assert spec.objectives[1].direction == "target" and spec.objectives[1].target == "base"
    assert spec.rungs == (300, 600) and spec.sampler == "nsga2"


@pytest.mark.parametrize("patch,message", [
    ({"bogus": 1}, "bogus: unknown field"),
    ({"mode": "9d9"}, "mode: '9d9'"),
    ({"search": {"sampler": "grid"}}, "search.sampler"),
    ({"search": {"games": 0}}, "search.games"),
    ({"racing": {"rungs": []}}, "racing.rungs"),
    ({"param": [{"key": "rolls", "int": [0, 3]}]}, "param[0] (rolls = 0)"),
    ({"param": [{"key": "rolls", "int": [3, 2]}]}, "low <= high"),
    ({"param": [{"key": "rolls"}]}, "exactly one of"),
    ({"param": [{"key": "combinations.advance[40]", "int": [0, 3]}]}, "index out of range"),
    ({"param": [{"key": "board.square.70", "choices": ["heron"]}]}, "out of range"),
    ({"param": [{"key": "nope", "int": [0, 3]}]}, "nope: unknown rules key"),
    ({"objective": [{"metric": "fun"}]}, "objective[0].metric"),
    ({"objective": [{"metric": "length", "target": "reference"}]}, "needs a [reference]"),
    ({"constraint": [{"metric": "length"}]}, "give min, max or within"),
])
def test_bad_specs_give_one_line_errors(patch, message):
    import tomllib

    data = tomllib.loads(SMALL)
    data.update(patch)
    with pytest.raises(HeronSimError) as err:
        parse_spec(data, "tune-small.toml")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(HeronSimError, match="no such tune file"):
        load_spec(tmp_path / "nope.toml")
    with pytest.raises(HeronSimError, match="not valid TOML"):
        load_spec(write(tmp_path, "name = "))


# ---------------------------------------------------------------- the search space
def test_apply_list_entries_squares_and_positions():
    base = Rules.build()
    t = base.to_table()
    apply(t, "combinations.advance[4]", 3)
    apply(t, "board.square.60", "neutral")
    apply(t, "board.position.8", 30)       # the Loup square moves to 30 (30 was neutral)
    apply(t, "board.position.12", 15)      # 🔄 and Taureau swap places
    r = Rules.from_table(t)
    assert r.combo_advance[4] == 3 and r.combo_advance[5] == 5
    sq = dict(r.squares)
    from heron_sim.rules.board import effect_code

    assert 60 not in sq and 8 not in sq and sq[30] == effect_code("loup", "x")
    assert sq[15] == effect_code("echange", "x") and sq[12] == effect_code("taureau", "x")


def test_choices_carry_any_toml_value():
    p = parse_param({"key": "dice.faces", "choices": [[["loup"] * 6] * 3, [["cerf"] * 6] * 3],
                     "labels": ["loups", "cerfs"]}, "param[0]")
    r = build_rules(Rules.build(), [p], {p.name: "cerfs"})
    assert r.n_dice == 3 and set(r.dice[0]) == {5}


# ---------------------------------------------------------------- metrics
def _row(res, r):
    return res.raw_row[None, :]


@pytest.mark.parametrize("dice,decisions,guides,dead", [
    (set_of("cerf", 2), [STOP], None, 1),                                     # a set worth 0
    (set_of("cerf", 3), [STOP], None, 0),                                     # moves 1
    (["heron"] * 3 + ["cerf"] * 5, [], ["aigle", "loup", "serpent", "taureau"], 1),  # Anxiety
    (["heron"] * 3 + ["lion"] * 4 + ["cerf"], [YES], None, 0),                # Lion rescue, moves
    (["heron"] * 4 + ["loup"] * 4 + ["loup"] * 4, [], None, 0),               # Pond: not dead (it pushes back)
])
def test_dead_turns_from_scripted_games(dice, decisions, guides, dead):
    r = rules()
    kw = {"guides": guides or ["lion", "loup", "serpent", "taureau"]}
    if len(dice) == 12:  # the Pond: everybody greedy
        kw["strategies"] = ["greedy"] * 4
    res = play_script(r, dice=dice, decisions=decisions, **kw)
    assert int(dead_turns(res.raw_row[None, :], r)[0]) == dead


def test_metrics_agree_with_the_analysis_module():
    from heron_sim.analysis.metrics import guide_table, length_table
    from heron_sim.runner.executor import Batch, play_rows
    from heron_sim.simulation import results_frame

    r = Rules.build()
    rows = play_rows(Batch(r, ("greedy",) * 4, 3, 0, 400))
    X = matrix_from_rows(rows, r)
    S = X.sum(axis=0)
    df = results_frame(rows, r, 3, ["greedy"] * 4)
    gt = guide_table(df).set_index("guide")
    for g in gt.index:
        assert value(f"guide_{g}_win_rate", S, 4) == pytest.approx(gt.loc[g, "win_rate_when_dealt"])
    spread = max(abs(gt["win_rate_when_dealt"] - 0.25))
    assert value("guide_spread", S, 4) == pytest.approx(spread)
    assert value("length", S, 4) == pytest.approx(length_table(df)["mean"])
    assert value("lead_changes", S, 4) == pytest.approx(df["lead_changes"].mean())
    assert value("first_player_advantage", S, 4) == pytest.approx((df["winner"] == 0).mean() - 0.25)
    assert 0 < value("dead_turn_rate", S, 4) < 1
    # comebacks: the report's one figure (the player last at mid-game wins, drama's definition)
    from heron_sim.analysis.metrics import drama

    assert value("comeback", S, 4) == pytest.approx(drama(df)["last_wins"])
    assert S[IX["mid_last_games"]] == drama(df)["last_games"] > 0


def test_paired_bootstrap_pairs_by_game():
    rng = np.random.default_rng(1)
    n = 20_000
    a = np.zeros((n, K), np.int32)
    a[:, IX["games"]] = 1
    a[:, IX["finished"]] = 1
    a[:, IX["rounds_finished"]] = rng.integers(10, 30, n)
    b = a.copy()
    b[:, IX["rounds_finished"]] += (rng.random(n) < 0.5)   # +0.5 round on average, per game
    boot = Bootstrap([a, b], B=400, seed=2)
    same = boot.contrast(0, 0, lambda S: value("length", S, 4))
    assert same["diff"] == 0 and same["low"] == 0 and same["high"] == 0
    d = boot.contrast(1, 0, lambda S: value("length", S, 4))
    se = 0.5 / math.sqrt(n)  # sd of the per-game difference (a fair coin) / sqrt(n)
    assert abs(d["diff"] - 0.5) < 5 * se
    assert d["low"] < d["diff"] < d["high"] and d["low"] > 0.45
    # The paired interval is far narrower than the spread of lengths would give unpaired.
    assert d["high"] - d["low"] < 0.2 * (2 * 1.96 * a[:, IX["rounds_finished"]].std() / math.sqrt(n))


def test_the_bootstrap_weights_are_numpys_poisson_draws():
    """PoissonOnes gives rng.poisson(1.0, shape)'s numbers call after call (blocks of the stream
    crossed mid-count included), so the racing's intervals are those of the weights drawn by numpy."""
    from heron_sim.lab import poisson_weights
    from heron_sim.lab.poisson_weights import PoissonOnes

    for seed in (0, 2, 104_729 * 3 + 5):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        fast = PoissonOnes(b)
        for shape in [(400, 3000), (400, 3000), (7, 5), (1, 1), (400, 2999)]:
            assert np.array_equal(a.poisson(1.0, size=shape).astype(np.float32), fast.take(shape)), (seed, shape)
    small = poisson_weights.BLOCK
    try:  # tiny blocks: most counts cross a block's end
        poisson_weights.BLOCK = 3
        a, b = np.random.default_rng(9), np.random.default_rng(9)
        fast = PoissonOnes(b)
        for shape in [(50, 40), (3, 3)]:
            assert np.array_equal(a.poisson(1.0, size=shape).astype(np.float32), fast.take(shape))
    finally:
        poisson_weights.BLOCK = small
    # and the bootstrap's replicate sums are W @ X with those weights, chunk by chunk
    rng = np.random.default_rng(4)
    x = rng.integers(0, 3, size=(2500, K)).astype(np.int16)
    boot = Bootstrap([x], B=50, seed=11, chunk=1000)
    g = np.random.default_rng(11)
    want = np.zeros((50, K))
    for lo in range(0, 2500, 1000):
        W = g.poisson(1.0, size=(50, min(2500, lo + 1000) - lo)).astype(np.float32)
        want += W @ x[lo:lo + 1000].astype(np.float32)
    assert np.array_equal(boot.reps[0], want)


# ---------------------------------------------------------------- a whole small study
def test_small_study_writes_front_variants_and_resumes(tmp_path):
    spec_path = write(tmp_path, SMALL)
    run_dir, out = tmp_path / "run", tmp_path / "out"
    res = tune(spec_path, run_dir=run_dir, out=out, trials=4, progress=False)
    for name in ("front.csv", "front.md", "effects.csv", "search.csv", "summary.json", "figures/front.png",
                 "figures/objectives_vs_params.png"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["trials"] == 4 and summary["finalists"]
    best = summary["finalists"][0]
    # The variant file rebuilds exactly the rules the evidence is about.
    r = Rules.build(rules_file=best["rules_file"])
    assert r.digest() == best["digest"]
    # Every headline metric has a paired interval that contains the difference.
    for e in best["effects"]:
        if e["low"] is not None:
            assert e["low"] <= e["diff"] + 1e-12 and e["diff"] <= e["high"] + 1e-12
    # Resume with more trials: the 4 finished trials are kept, only 2 more are played.
    import optuna
    from heron_sim.lab.study import journal_storage

    def complete():
        st = optuna.load_study(study_name="tune-small",
                               storage=journal_storage(str(run_dir / "study.journal")))
        return {t.number: t.values for t in st.trials if t.state.name == "COMPLETE"
                and "duplicate_of" not in t.user_attrs}

    before = complete()
    tune(spec_path, run_dir=run_dir, out=out, trials=6, progress=False)
    after = complete()
    assert len(after) == 6 and all(after[k] == v for k, v in before.items())


def test_resuming_a_study_of_another_spec_is_refused(tmp_path):
    spec_path = write(tmp_path, SMALL)
    tune(spec_path, run_dir=tmp_path / "run", out=tmp_path / "out", trials=2, progress=False)
    other = write(tmp_path, SMALL.replace("seed = 7", "seed = 8"))
    with pytest.raises(HeronSimError, match="different tune file"):
        tune(other, run_dir=tmp_path / "run", out=tmp_path / "out", trials=2, progress=False)


def test_tune_precision_plays_the_last_rung_until_the_win_rates_are_narrow(tmp_path):
    res = tune(write(tmp_path, SMALL), run_dir=tmp_path / "run", out=tmp_path / "out", trials=2,
               precision=0.03, progress=False)
    n = res["last_games"]
    assert n > 600 and n % 600 == 0
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["last_games"] == n
    assert res["finalists"] and all(e["rate_halfwidth"] <= 0.03 for e in res["finalists"])
