"""Result files carry what reproduces them (issue 19, item 7): package and format versions, the
git commit and the full rules table; a reader refuses a format newer than it knows. And one
meaning per key: the seat win rates over all games and over finished games, both named."""

import pandas as pd
import pytest

from heron_sim import Rules, read_frame, read_meta, simulate_to_file
from heron_sim.errors import HeronSimError
from heron_sim.io import FORMAT_VERSION, FrameWriter


@pytest.mark.parametrize("ext", [".parquet", ".csv"])
def test_a_result_file_holds_what_reproduces_it(tmp_path, ext):
    rules = Rules.build(mode="7d8", players=3, overrides={"rolls": 4})
    path = tmp_path / f"games{ext}"
    run = simulate_to_file(rules, 30, 8, "greedy,random,greedy", path)
    assert run.written and run.played == 30
    meta = read_meta(path)
    assert meta["format_version"] == FORMAT_VERSION and meta["package_version"]
    assert meta["git_commit"] and meta["seed"] == 8 and meta["strategies"] == "greedy,random,greedy"
    again = Rules.from_table(meta["rules_table"])
    assert again.digest() == meta["rules"] == rules.digest() and again.rolls == 4
    df = read_frame(path)
    assert len(df) == 30 and df.attrs["heron_sim"]["played"] == 30


def test_a_newer_format_is_refused_with_one_line(tmp_path):
    path = tmp_path / "future.parquet"
    with FrameWriter(path, {"format_version": FORMAT_VERSION + 1}) as w:
        w.write(pd.DataFrame({"x": [1, 2]}))
    with pytest.raises(HeronSimError) as err:
        read_meta(path)
    assert "\n" not in str(err.value) and "newer" in str(err.value)
    assert read_meta(path, check=False)["format_version"] == FORMAT_VERSION + 1
    with pytest.raises(HeronSimError):
        read_frame(path)


def test_seat_win_rates_name_their_denominator():
    from heron_sim import simulate, summarize

    df = simulate(Rules.build(players=2), 40, 3)
    df.loc[:9, "finished"] = False  # ten games unfinished: a win for nobody
    df.loc[:9, "winner"] = -1
    s = summarize(df)
    wins = [int((df["winner"] == k).sum()) for k in range(2)]
    assert s["win_rate_by_seat"] == pytest.approx([w / 40 for w in wins])
    assert s["win_rate_by_seat_finished"] == pytest.approx([w / 30 for w in wins])
    assert sum(s["win_rate_by_seat_finished"]) == pytest.approx(1.0)


def test_threads_of_one_call_do_not_leak_into_later_calls():
    import numba

    from heron_sim import simulate, simulate_turns

    before = numba.get_num_threads()
    simulate(Rules.build(players=2), 10, 1, threads=1)
    simulate_turns(Rules.build(), 100, 1, threads=1)
    assert numba.get_num_threads() == before


def test_holm_is_computed_without_statsmodels_and_agrees_with_it(monkeypatch):
    import numpy as np
    from statsmodels.stats import multitest

    from heron_sim.analysis import stats

    rng = np.random.default_rng(4)
    cases = [rng.uniform(0, 0.2, 12), np.array([0.01, 0.01, 0.04, 0.5, 1.0]), np.array([0.3])]
    expected = [multitest.multipletests(p, method="holm")[1] for p in cases]

    def fail(*a, **k):
        raise AssertionError("holm must not call statsmodels (it swaps gc.collect process-wide)")

    monkeypatch.setattr(multitest, "multipletests", fail)
    monkeypatch.setattr(stats, "multipletests", fail, raising=False)
    for p, want in zip(cases, expected):
        np.testing.assert_allclose(stats.holm(p), want, rtol=0, atol=1e-15)
    assert stats.holm([]).size == 0
