"""Same seed, same results: whatever the threads, batches or starting game."""

import numba
import pandas as pd
import pytest

from heron_sim.rules import Rules
from heron_sim.simulation import simulate, simulate_turns

pytestmark = pytest.mark.exact


def test_identical_frames_for_1_and_2_threads_and_any_batch_size():
    r = Rules.build(mode="8d8")
    a = simulate(r, 3000, seed=7, threads=1, batch_size=4096)
    b = simulate(r, 3000, seed=7, threads=min(2, numba.config.NUMBA_NUM_THREADS), batch_size=500)
    c = simulate(r, 3000, seed=7, threads=1, batch_size=37)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)


def test_a_game_depends_only_on_seed_and_index():
    r = Rules.build(mode="10d6", overrides={"players": 3})
    whole = simulate(r, 600, seed=9, strategies="greedy,random,greedy")
    part = simulate(r, 200, seed=9, strategies="greedy,random,greedy", first_game=300)
    pd.testing.assert_frame_equal(whole.iloc[300:500].reset_index(drop=True), part)


def test_different_seeds_differ():
    r = Rules.build()
    assert not simulate(r, 200, seed=1).equals(simulate(r, 200, seed=2))


def test_turns_identical_across_threads():
    r = Rules.build(mode="10d8")
    a = simulate_turns(r, 50_000, 5, threads=1)
    b = simulate_turns(r, 50_000, 5, threads=min(2, numba.config.NUMBA_NUM_THREADS))
    assert (a == b).all()


def test_pipelined_batches_play_the_same_games_report_each_batch_and_stop_on_a_slice():
    """simulate's batches on several threads start while the last slices of the one before
    finish (heron_sim.loop.batch.play_games): the same rows as one call, progress once per
    batch in order, and a stop keeps exactly the slices started before it."""
    import numpy as np

    from heron_sim.engine import layout as L
    from heron_sim.loop.batch import _slices, play_batch, play_games
    from heron_sim.simulation import _prepare, _threads

    r = Rules.build(mode="8d8")
    _, sids, sp, R = _prepare(r, 6000, 5, "greedy,prudent,greedy,greedy", 1500)
    seed, n = np.uint64(5), 6000
    ref = np.zeros((n, L.n_columns(r.finish)), dtype=np.int64)
    with _threads(1):
        play_batch(seed, 10, R, sids, sp, ref)
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    with _threads(threads):
        out, calls = np.zeros_like(ref), []
        assert play_games(seed, 10, R, sids, sp, out, 1500, calls.append) == (n, False)
        np.testing.assert_array_equal(out, ref)
        assert calls == [1500] * 4
        checks = iter([False] * 3 + [True] * 100)
        out, calls = np.zeros_like(ref), []
        done, interrupted = play_games(seed, 10, R, sids, sp, out, 1500, calls.append, lambda: next(checks))
    started = 3 * 1500 if threads == 1 else list(_slices(n, 1500, threads))[2][1]  # batches or slices
    assert interrupted and done == started and sum(calls) == done
    np.testing.assert_array_equal(out[:done], ref[:done])
    assert not out[done:].any()
