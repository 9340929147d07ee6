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
