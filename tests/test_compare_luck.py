"""A comparison of two rule sets with each seat's luck (kind ``compare``, ``luck = true``): the
win rates' paired differences plain and luck-adjusted, the narrower used; the same frames
whether the batches run locally or through an executor."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from heron_sim.rules import Rules
from heron_sim.simulation import simulate

SEATS = "greedy,prudent,expert,racer"
N = 4000


@pytest.fixture(scope="module")
def frames():
    a = Rules.build(mode="8d8")
    b = Rules.build(mode="8d8", overrides={"single_use_squares": True})
    return (simulate(a, N, seed=6, strategies=SEATS, luck=True),
            simulate(b, N, seed=6, strategies=SEATS, luck=True),
            simulate(a, N, seed=6, strategies=SEATS), simulate(b, N, seed=6, strategies=SEATS))


def test_the_executors_batches_carry_the_luck():
    """play_games_job (the path of --scheduler) gives the frame simulate gives, luck columns
    included, and the games are those without luck."""
    from heron_sim.runner.executor import LocalExecutor, play_games_job
    from heron_sim.runner.jobs import Job

    r = Rules.build(mode="8d8")
    job = Job("x", "games", r, 1500, 3, [SEATS.split(",")], labels={"luck": True})
    df = play_games_job(job, LocalExecutor(), batch_games=400)
    ref = simulate(r, 1500, seed=3, strategies=SEATS, luck=True)
    assert [c for c in df.columns if c.startswith("luck_seat")] and list(df.columns) == list(ref.columns)
    pd.testing.assert_frame_equal(df.reset_index(drop=True), ref.reset_index(drop=True), check_dtype=False)
    plain = simulate(r, 1500, seed=3, strategies=SEATS)
    assert np.array_equal(plain["winner"].to_numpy(), df["winner"].to_numpy())


def test_luck_adjusted_differences_agree_with_the_plain_ones_and_are_narrower(frames):
    from heron_sim.runner.kinds.compare import luck_differences

    a, b, _, _ = frames
    t = luck_differences(a, b)
    assert len(t) == 4 + 7 + 1
    for _, r in t.iterrows():
        se_p = (r["plain_high"] - r["plain_low"]) / (2 * 1.959964)
        se_a = (r["adjusted_high"] - r["adjusted_low"]) / (2 * 1.959964)
        # both estimate the same difference: within 4.5 standard errors of the plain one
        assert abs(r["adjusted"] - r["plain"]) < 4.5 * se_p, r["metric"]
        assert r["used"] == ("adjusted" if se_a < se_p else "plain")
    seats = t[t["metric"].str.startswith("seat")]
    assert (seats["variance_ratio"] > 1.3).all()  # about 2 measured (docs/luck.md)


def test_without_the_luck_the_plain_difference_is_used(frames):
    from heron_sim.runner.kinds.compare import luck_differences

    _, _, a, b = frames
    t = luck_differences(a, b)
    assert (t["used"] == "plain").all() and t["adjusted"].isna().all() and t["variance_ratio"].isna().all()
    with_luck = luck_differences(frames[0], frames[1])
    assert np.allclose(t["plain"], with_luck["plain"])  # the same games, the same plain figures


def test_the_compare_kind_shows_the_table_only_with_luck(tmp_path):
    from heron_sim.report import build_sections
    from heron_sim.runner import RunData, run_experiments
    from heron_sim.runner.run import prepare_run

    for luck in (True, False):
        f = tmp_path / f"v{luck}.toml"
        f.write_text('name = "v"\nkind = "compare"\nseed = 6\ngames = 600\nmodes = ["8d8"]\nplayers = 4\n'
                     f'seating = "ai"\nluck = {str(luck).lower()}\n[a]\nlabel = "default"\n'
                     '[b]\nlabel = "single-use"\nset = { single_use_squares = true }\n')
        exps, manifest = prepare_run([f], tmp_path / f"run{luck}", None, False)
        m = run_experiments(exps, tmp_path / f"run{luck}", log=lambda s: None, games=None, resume=manifest)
        assert m["status"] == "complete"
        secs = build_sections(RunData(tmp_path / f"run{luck}"))
        titles = [t.caption for s in secs for t in s.tables]
        has = any("plain and luck-adjusted" in t for t in titles)
        assert has == luck
        if luck:
            t = next(t for s in secs for t in s.tables if "plain and luck-adjusted" in t.caption)
            assert set(t.data["used"]) <= {"plain", "adjusted"} and math.isfinite(t.data["variance_ratio"].iloc[0])
