"""The per-game frame read from the kernel's rows (heron_sim.simulation.results_frame).

The frame's int64 columns are read in one pass over the rows (heron_sim.loop.columns), by
``simulate``'s threads after each slice of games; every column must still be its row's value,
in the same order and dtype, whatever the threads, the batches or a stop.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd
import pytest

from heron_sim import Rules
from heron_sim.animals import NAMES as ANIMALS
from heron_sim.engine import layout as L
from heron_sim.loop.batch import play_batch, play_games
from heron_sim.loop.columns import gather_columns
from heron_sim.simulation import _prepare, _threads, _with_luck_row, results_frame, simulate

pytestmark = pytest.mark.exact

#: the first columns of a four-player frame, in order (saved frames are read by name and order)
FIRST = ["seed", "game", "mode", "players", "strategies", "rules", "guide_0", "strategy_0", "guide_1",
         "strategy_1", "guide_2", "strategy_2", "guide_3", "strategy_3", "winner", "winner_guide",
         "winner_strategy", "rounds", "finished", "ponds", "pushback", "anxieties", "lion_rescues",
         "played_turns", "skipped_turns", "lead_changes", "mid_leader", "mid_last", "pond_lead_losses",
         "pos_0", "pos_1", "pos_2", "pos_3", "advance_0"]


def _rows(rules, strategies, n, seed=3, first=5, luck=False):
    seating, sids, sp, R = _prepare(rules, n, seed, strategies, 4096)
    sp, width = _with_luck_row(rules, sp, luck)
    out = np.zeros((n, width), dtype=np.int64)
    with _threads(1):
        play_batch(np.uint64(seed), first, R, sids, sp, out)
    return seating, out


@pytest.mark.parametrize("mode,players,strategies", [
    ("8d8", 4, "greedy,prudent,expert,racer"), ("10d6", 7, "greedy"), ("7d8", 2, "random,greedy")])
def test_every_column_is_its_rows_value(mode, players, strategies):
    rules = Rules.build(mode=mode, players=players)
    seating, out = _rows(rules, strategies, 700)
    df = results_frame(out, rules, 3, seating, 5)
    P = players
    assert (df["seed"] == 3).all() and (df["game"].to_numpy() == np.arange(5, 705)).all()
    assert (df["players"] == P).all() and (df["mode"] == mode).all() and (df["rules"] == rules.digest()).all()
    assert (df["strategies"] == ",".join(seating)).all()
    single = {"winner": L.C_WINNER, "rounds": L.C_ROUNDS, "ponds": L.C_PONDS, "pushback": L.C_PUSHBACK,
              "anxieties": L.C_ANXIETIES, "lion_rescues": L.C_LION_RESCUES, "played_turns": L.C_PLAYED,
              "skipped_turns": L.C_SKIPPED, "lead_changes": L.C_LEAD_CHANGES, "mid_leader": L.C_MID_LEADER,
              "mid_last": L.C_MID_LAST, "pond_lead_losses": L.C_POND_LEAD_LOSSES}
    for name, off in single.items():
        np.testing.assert_array_equal(df[name].to_numpy(), out[:, off], err_msg=name)
    by_seat = {"pos": L.C_POS, "advance": L.C_ADVANCE, "turns": L.C_TURNS, "anxiety": L.C_SEAT_ANX,
               "doubled": L.C_SEAT_DOUBLED, "pond_rolls": L.C_SEAT_PONDS, "pond_hits": L.C_SEAT_POND_HITS,
               "pond_back": L.C_SEAT_POND_BACK}
    for s in range(P):
        for name, off in by_seat.items():
            np.testing.assert_array_equal(df[f"{name}_{s}"].to_numpy(), out[:, off + s], err_msg=f"{name}_{s}")
        assert list(df[f"guide_{s}"].astype(str)) == [ANIMALS[g] for g in out[:, L.C_GUIDE + s]]
        assert (df[f"strategy_{s}"] == seating[s]).all()
    for a, name in enumerate(ANIMALS):
        np.testing.assert_array_equal(df[f"power_{name}"].to_numpy(), out[:, L.C_POWERS + a])
    for size in range(rules.n_dice + 1):
        np.testing.assert_array_equal(df[f"combo_{size}"].to_numpy(), out[:, L.C_COMBOS + size])
    squares = [c for c in df.columns if c.startswith("square_")]
    assert len(squares) == len(rules.squares) > 0
    for c in squares:
        np.testing.assert_array_equal(df[c].to_numpy(), out[:, L.C_SQUARES + int(c.split("_")[1])])
    w = out[:, L.C_WINNER]
    assert (df["finished"].to_numpy() == (out[:, L.C_FINISHED] != 0)).all()
    for g in range(0, 700, 37):
        want = ANIMALS[out[g, L.C_GUIDE + w[g]]] if w[g] >= 0 else None
        assert (df["winner_guide"].iloc[g] if w[g] >= 0 else None) == want
        assert df["winner_strategy"].iloc[g] == (seating[w[g]] if w[g] >= 0 else "")
    assert (w >= 0).any()


def test_the_columns_keep_their_order_and_dtypes():
    rules = Rules.build(mode="8d8")
    seating, out = _rows(rules, "greedy", 50)
    df = results_frame(out, rules, 3, seating, 5)
    assert list(df.columns[: len(FIRST)]) == FIRST
    assert df.columns.is_unique
    kinds = {c: str(t) for c, t in df.dtypes.items()}
    assert {kinds[c] for c in ("guide_0", "winner_guide")} == {"category"}
    assert kinds["finished"] == "bool"
    assert {kinds[c] for c in ("mode", "strategies", "rules", "strategy_0", "winner_strategy")} == {
        str(pd.Series(["x"]).dtype)}  # pandas' strings
    ints = [c for c in df.columns if c not in ("mode", "strategies", "rules", "winner_guide", "winner_strategy",
                                               "finished") and not c.startswith(("guide_", "strategy_"))]
    assert {kinds[c] for c in ints} == {"int64"}
    empty = results_frame(out[:0], rules, 3, seating, 5)
    assert list(empty.columns) == list(df.columns)


def test_the_frame_is_writable_and_independent_of_the_rows():
    """The int64 block is the frame's own (read from the rows, not a view of them)."""
    rules = Rules.build(mode="8d8")
    seating, out = _rows(rules, "greedy", 30)
    df = results_frame(out, rules, 3, seating, 5)
    before = df["rounds"].copy()
    out[:, L.C_ROUNDS] = -7
    pd.testing.assert_series_equal(df["rounds"], before)
    df.loc[0, "rounds"] = 1000
    df["extra"] = 1
    assert df.loc[0, "rounds"] == 1000 and df["pos_0"].iloc[0] == out[0, L.C_POS]


@pytest.mark.parametrize("luck", [False, True])
def test_simulate_reads_the_columns_on_its_threads_as_the_rows_give_them(luck):
    rules = Rules.build(mode="8d8", players=5)
    strategies = "greedy,expert,regular,casual,novice"
    seating, out = _rows(rules, strategies, 1500, seed=9, first=2, luck=luck)
    want = results_frame(out, rules, 9, seating, 2)
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    for batch in (300, 1500):
        got = simulate(rules, 1500, seed=9, strategies=strategies, first_game=2, threads=threads,
                       batch_size=batch, luck=luck)
        pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_a_stopped_simulate_keeps_the_columns_of_the_games_played(monkeypatch):
    import heron_sim.simulation as sim

    rules = Rules.build(mode="8d8")
    seating, out = _rows(rules, "greedy,prudent,greedy,prudent", 4000, seed=4, first=0)
    checks = iter([False] * 3 + [True] * 100)
    monkeypatch.setattr(sim, "stop_requested", lambda: next(checks))
    df = simulate(rules, 4000, seed=4, strategies="greedy,prudent,greedy,prudent", threads=min(2, numba.config.NUMBA_NUM_THREADS),
                  batch_size=1000)
    assert df.attrs["interrupted"] and 0 < len(df) < 4000
    pd.testing.assert_frame_equal(df, results_frame(out[: len(df)], rules, 4, seating, 0), check_exact=True)


def test_after_runs_once_on_every_played_range():
    rules = Rules.build(mode="8d8")
    _, sids, sp, R = _prepare(rules, 5000, 5, "greedy", 1000)
    out = np.zeros((5000, L.n_columns(rules.finish)), dtype=np.int64)
    seen = []
    with _threads(min(2, numba.config.NUMBA_NUM_THREADS)):
        checks = iter([False] * 2 + [True] * 100)
        done, stopped = play_games(np.uint64(5), 0, R, sids, sp, out, 1000, None, lambda: next(checks),
                                   lambda a, b, rows: seen.append((a, b, bool(rows[:, L.C_ROUNDS].all()))))
    assert stopped
    ranges = sorted(seen)
    assert all(full for *_, full in ranges)  # each range ran after its games were played
    covered = [g for a, b, _ in ranges for g in range(a, b)]
    assert len(covered) == len(set(covered)) and set(range(done)) <= set(covered)


def test_gather_columns_is_the_rows_columns():
    rows = np.arange(5 * 9, dtype=np.int64).reshape(5, 9)
    np.testing.assert_array_equal(gather_columns(rows, [8, 0, 3]), rows[:, [8, 0, 3]].T)
    assert gather_columns(rows[:0], [1, 2]).shape == (2, 0)


@pytest.mark.parametrize("threads", [1, 2])
def test_rows_not_kept_pass_through_each_threads_buffer_to_after(threads):
    """play_games given a shape keeps no rows: each chunk's rows reach ``after``, the same rows."""
    rules = Rules.build(mode="8d8")
    _, sids, sp, R = _prepare(rules, 3000, 5, "greedy,expert,greedy,novice", 1000)
    width = L.n_columns(rules.finish)
    ref = np.zeros((3000, width), dtype=np.int64)
    with _threads(1):
        play_batch(np.uint64(5), 7, R, sids, sp, ref)
    got = np.full((3000, width), -1, dtype=np.int64)
    seen = []

    def after(a, b, rows):
        seen.append((a, b))
        got[a:b] = rows

    with _threads(min(threads, numba.config.NUMBA_NUM_THREADS)):
        assert play_games(np.uint64(5), 7, R, sids, sp, (3000, width), 1000, None, None, after) == (3000, False)
    np.testing.assert_array_equal(got, ref)
    assert sorted(seen)[0][0] == 0 and all(b - a <= 512 for a, b in seen)
    with pytest.raises(ValueError, match="after"):
        play_games(np.uint64(5), 7, R, sids, sp, (3000, width), 1000)


@pytest.mark.parametrize("mode,players,strategies,overrides,threads", [
    ("8d8", 4, "greedy", {}, 2),
    ("8d8", 3, "greedy,prudent,expert", {}, 1),
    ("10d6", 5, "greedy,novice,expert,racer,casual", {"guide.heron.rolls": 4}, 2),
])
def test_the_summary_run_is_the_batches_summary_columns(mode, players, strategies, overrides, threads):
    """simulate_to_file without a file (simulate --json) plays every game in one kernel call and
    builds the summary's frame once: the same frame, column by column, as the batches'
    summary_columns joined (the summary a user reads is the same figures)."""
    from heron_sim.analysis import summarize
    from heron_sim.simulation import simulate_batches, simulate_to_file, summary_columns

    rules = Rules.build(mode=mode, players=players, overrides=overrides)
    threads = min(threads, numba.config.NUMBA_NUM_THREADS)
    ref = pd.concat([summary_columns(b) for b in simulate_batches(rules, 5000, 5, strategies, threads=threads)],
                    ignore_index=True)
    run = simulate_to_file(rules, 5000, 5, strategies, threads=threads)
    assert (run.played, run.requested) == (5000, 5000)
    pd.testing.assert_frame_equal(run.frame, ref, check_exact=True)
    assert repr(summarize(run.frame)) == repr(summarize(ref))


def test_a_stopped_summary_run_keeps_the_games_played(monkeypatch):
    import heron_sim.simulation as sim
    from heron_sim.simulation import simulate_batches, simulate_to_file, summary_columns

    rules = Rules.build(mode="8d8", players=2)
    checks = iter([False] * 3 + [True] * 100)
    monkeypatch.setattr(sim, "stop_requested", lambda: next(checks))
    run = simulate_to_file(rules, 40_000, 4, "greedy,prudent", threads=min(2, numba.config.NUMBA_NUM_THREADS))
    assert run.interrupted and 0 < run.played < 40_000 and len(run.frame) == run.played
    monkeypatch.undo()
    ref = pd.concat([summary_columns(b) for b in simulate_batches(rules, run.played, 4, "greedy,prudent")],
                    ignore_index=True)
    pd.testing.assert_frame_equal(run.frame, ref, check_exact=True)


def test_power_uses_by_strategy_read_from_codes_as_from_strings():
    """The per-strategy power uses from the columns' codes (categories or strings) are the
    figures of the row-by-row string comparison they replace."""
    from heron_sim.analysis.summary import power_uses_per_game_dealt

    rules = Rules.build(mode="8d8", players=4)
    df = simulate(rules, 2000, 3, "greedy,expert,greedy,racer")
    slow = {}
    strat = np.stack([df[f"strategy_{s}"].astype(str).to_numpy() for s in range(4)], axis=1)
    codes = np.stack([df[f"guide_{s}"].cat.codes.to_numpy() for s in range(4)], axis=1)
    for a, name in enumerate(ANIMALS):
        uses = df[f"power_{name}"].to_numpy()
        for st in sorted(set(strat.ravel())):
            mine = ((codes == a) & (strat == st)).any(axis=1)
            if mine.any():
                slow.setdefault(st, {})[name] = float(uses[mine].sum() / mine.sum())
    for frame in (df, df.astype({f"strategy_{s}": "category" for s in range(4)})):
        assert power_uses_per_game_dealt(frame)["power_uses_per_game_dealt_by_strategy"] == slow


@pytest.mark.parametrize("players,strategies,ext", [(2, "greedy", ".parquet"),
                                                    (7, "greedy,prudent,expert,racer,greedy,prudent,expert", ".parquet"),
                                                    (3, "greedy,prudent,expert", ".csv")])
def test_a_streamed_file_is_the_batches_frames(tmp_path, monkeypatch, players, strategies, ext):
    """simulate --out plays every game in one kernel call and writes windows of games on a
    thread of its own, Parquet tables built without a frame (issue 61 item 1): the file is the
    batches' frames written one by one (same rows, types, pandas metadata), the summary's
    columns those of the batches, and the sums (``counts``) summarize to the same figures."""
    import pyarrow.parquet as pq

    import heron_sim.simulation as sim
    from heron_sim.analysis import summarize
    from heron_sim.io import FrameWriter, read_frame
    from heron_sim.simulation import simulate_batches, simulate_to_file, summary_columns

    monkeypatch.setattr(sim, "STREAM_WINDOW", 2 * sim.DEFAULT_BATCH)  # 3 windows, the last one partial
    rules = Rules.build(mode="8d8", players=players)
    games = 5 * sim.DEFAULT_BATCH - 123
    run = simulate_to_file(rules, games, 6, strategies, tmp_path / f"a{ext}")
    with FrameWriter(tmp_path / f"b{ext}", {}) as w:
        batches = list(simulate_batches(rules, games, 6, strategies))
        for df in batches:
            w.write(df)
    a, b = read_frame(tmp_path / f"a{ext}"), read_frame(tmp_path / f"b{ext}")
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    if ext == ".parquet":
        assert pq.read_schema(tmp_path / f"a{ext}").equals(pq.read_schema(tmp_path / "b.parquet"), check_metadata=False)
        assert pq.read_schema(tmp_path / f"a{ext}").metadata[b"pandas"] == pq.read_schema(tmp_path / "b.parquet").metadata[b"pandas"]
    else:
        assert (tmp_path / f"a{ext}").read_bytes() == (tmp_path / f"b{ext}").read_bytes()
    ref = pd.concat([summary_columns(df) for df in batches], ignore_index=True)
    pd.testing.assert_frame_equal(run.frame, ref, check_exact=True)
    counted = simulate_to_file(rules, games, 6, strategies, tmp_path / f"c{ext}", counts=True)
    assert counted.played == games and repr(summarize(counted.frame)) == repr(summarize(ref))


def test_a_streamed_file_is_the_same_whatever_runs_ahead(tmp_path, monkeypatch):
    """simulate --out plays the next batch while the last one is written (simulation._ahead): the
    file holds the same games as batches played one after the other; an error while making a
    batch reaches the caller."""
    import heron_sim.simulation as sim
    from heron_sim.io import read_frame
    from heron_sim.simulation import simulate_to_file

    rules = Rules.build(mode="8d8", players=3)
    run = simulate_to_file(rules, 9000, 6, "greedy,prudent,expert", tmp_path / "a.parquet")
    monkeypatch.setattr(sim, "_ahead", lambda make, depth=1: make())
    simulate_to_file(rules, 9000, 6, "greedy,prudent,expert", tmp_path / "b.parquet")
    assert run.played == 9000
    pd.testing.assert_frame_equal(read_frame(tmp_path / "a.parquet"), read_frame(tmp_path / "b.parquet"))
    monkeypatch.undo()

    def broken():
        yield 1
        raise RuntimeError("made badly")

    got = []
    with pytest.raises(RuntimeError, match="made badly"):
        for x in sim._ahead(broken):
            got.append(x)
    assert got == [1]
