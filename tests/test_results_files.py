"""Result files carry what reproduces them (issue 19, item 7): package and format versions, the
git commit and the full rules table; a reader refuses a format newer than it knows. And one
meaning per key: the seat win rates over finished games everywhere, the unfinished counted apart."""

import pandas as pd
import pytest

from heron_sim import Rules, read_frame, read_meta, simulate_to_file
from heron_sim.errors import HeronSimError
from heron_sim.io import FORMAT_VERSION, FrameWriter

pytestmark = pytest.mark.exact


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


def test_seat_and_guide_win_rates_have_one_definition_the_reports():
    """``win_rate_by_seat`` is wins / finished games in simulate --json (summarize), in the
    report's seat table and in the lighter games' summaries; unfinished games are counted
    apart (``unfinished``), never a loss of every seat. The same for the guides."""
    from heron_sim import simulate, summarize
    from heron_sim.analysis.metrics import guide_table, seat_table

    df = simulate(Rules.build(players=2), 40, 3)
    df.loc[:9, "finished"] = False  # ten games unfinished: a win for nobody
    df.loc[:9, "winner"] = -1
    s = summarize(df)
    wins = [int((df["winner"] == k).sum()) for k in range(2)]
    assert (s["games"], s["finished"], s["unfinished"]) == (40, 30, 10)
    assert s["win_rate_by_seat"] == pytest.approx([w / 30 for w in wins])
    assert sum(s["win_rate_by_seat"]) == pytest.approx(1.0)
    st = seat_table(df)
    assert s["win_rate_by_seat"] == pytest.approx(list(st["win_rate"]))
    assert sum(s["win_rate_by_seat_ci"], []) == pytest.approx([x for ab in zip(st["low"], st["high"]) for x in ab])
    assert s["win_rate_by_seat_p_holm"] == pytest.approx(list(st["p_holm"]))
    assert "win_rate_by_seat_finished" not in s  # one key, one meaning
    gt = guide_table(df).set_index("guide")
    assert s["win_rate_by_guide"] == pytest.approx(
        {g: r.win_rate_when_dealt for g, r in gt.iterrows() if r.dealt}), (s["win_rate_by_guide"], gt)

    from heron_sim.games import get
    from heron_sim.games.base import light_summary

    game = get("fire-mountain")
    lf = game.simulate(game.load_rules(None, {}), games=40, players=3, seed=4, strategies=["greedy"] * 3)
    lf.loc[:9, "finished"] = False
    lf.loc[:9, "winner"] = -1
    ls = light_summary(lf)
    assert (ls["finished"], ls["unfinished"]) == (int(lf["finished"].sum()), 40 - int(lf["finished"].sum()))
    assert ls["unfinished"] >= 10 and sum(ls["win_rate_by_seat"]) == pytest.approx(1.0)
    assert set(s) >= {"games", "finished", "unfinished", "win_rate_by_seat", "win_rate_by_seat_ci",
                      "win_rate_by_seat_p_holm"} <= set(ls)


def test_strategies_is_one_name_per_seat_in_every_game_and_file(tmp_path):
    """The ``strategies`` column (and the files' metadata key) is one name per seat, in seat
    order, in Héron's frames and the four lighter games' (it was the sorted unique names there)."""
    from heron_sim import simulate
    from heron_sim.games import available
    from heron_sim.simulation import simulate_game

    df = simulate(Rules.build(players=3), 6, 1, "random,greedy,random")
    assert set(df["strategies"]) == {"random,greedy,random"}
    assert [df[f"strategy_{s}"].iloc[0] for s in range(3)] == ["random", "greedy", "random"]
    games = available()
    assert len(games) == 4
    for name, game in games.items():
        a, b = game.strategies[1], game.strategies[0]  # two different names, the second first
        seats = [a, b, a][: game.max_players] if game.max_players >= 3 else [a, b]
        seats += [b] * (max(game.min_players, len(seats)) - len(seats))
        path = tmp_path / f"{name}.parquet"
        run = simulate_game(name, 4, len(seats), 2, ",".join(seats), None, path)
        assert set(run.frame["strategies"]) == {",".join(seats)}, name
        assert set(run.frame["seats"]) == {",".join(seats)}, name
        meta = read_meta(path)
        assert meta["strategies"] == ",".join(seats) and meta["format_version"] == FORMAT_VERSION == 2, name
        assert meta["git_commit"] and meta["players"] == len(seats), name
    path = tmp_path / "heron.parquet"
    simulate_to_file(Rules.build(players=2), 5, 1, "random", path)
    assert read_meta(path)["strategies"] == "random,random"  # one name given, one per seat written


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
