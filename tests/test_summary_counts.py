"""The summary from sums (issue 61, item 2): ``simulate --json`` keeps, in its threads, only the
sums the summary reads (heron_sim.analysis.summary.SummaryCounts), so memory does not grow with
the number of games; the figures are the frame's, exactly."""

from __future__ import annotations

import dataclasses
import json

import numba
import numpy as np
import pytest

from heron_sim.analysis.luck_adjust import plain_rate_se
from heron_sim.analysis.summary import SummaryCounts, _rate_se, counts_of_frame, summarize
from heron_sim.rules import Rules
from heron_sim.simulation import simulate, simulate_counts
from tests.helpers import cli

pytestmark = pytest.mark.exact


def _same_counts(a: SummaryCounts, b: SummaryCounts) -> None:
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.shape == y.shape and np.array_equal(x, y), (f.name, x, y)
        else:
            assert x == y, (f.name, x, y)


@pytest.mark.parametrize("mode,players,seats,overrides,threads", [
    ("8d8", 4, "greedy", {}, 2),
    ("8d8", 3, "greedy,expert,racer", {}, 1),
    ("10d6", 5, "novice,casual,greedy,expert,reckless", {"guide.heron.rolls": 4}, 2),
    ("8d8", 2, "random,greedy", {"max_rounds": 3}, 2),  # most games unfinished
    ("7d8", 6, "greedy,greedy,expert,expert,novice,novice", {}, 2),
])
def test_the_threads_sums_are_the_frames(mode, players, seats, overrides, threads):
    rules = Rules.build(mode=mode, players=players, overrides=overrides)
    threads = min(threads, numba.config.NUMBA_NUM_THREADS)
    df = simulate(rules, 4000, 4, seats, threads=threads)
    run = simulate_counts(rules, 4000, 4, seats, threads=threads)
    assert (run.played, run.requested) == (4000, 4000)
    _same_counts(counts_of_frame(df), run.counts)
    assert repr(summarize(df)) == repr(summarize(run.counts))


def test_a_stopped_run_keeps_the_sums_of_the_games_played(monkeypatch):
    import heron_sim.simulation as sim

    rules = Rules.build(mode="8d8", players=4)
    checks = iter([False] * 3 + [True] * 100)
    monkeypatch.setattr(sim, "stop_requested", lambda: next(checks))
    run = simulate_counts(rules, 40_000, 8, "greedy,prudent,greedy,prudent", threads=min(2, numba.config.NUMBA_NUM_THREADS))
    assert 0 < run.played < 40_000 and run.counts.games == run.played
    monkeypatch.undo()
    _same_counts(counts_of_frame(simulate(rules, run.played, 8, "greedy,prudent,greedy,prudent")), run.counts)


def test_no_game_is_the_empty_summary():
    rules = Rules.build(mode="8d8", players=4)
    assert repr(summarize(simulate_counts(rules, 0, 1, "greedy").counts)) == repr(summarize(simulate(rules, 0, 1, "greedy")))


def test_the_plain_standard_error_from_the_sums_is_the_games():
    """The delta method's standard error from the three kinds of game (won, counted and lost,
    not counted) is the one computed game by game, up to the rounding of the sums."""
    rng = np.random.default_rng(3)
    for n in (2, 3, 10, 1000, 50_000):
        d = (rng.random(n) < 0.9).astype(float)
        y = d * (rng.random(n) < 0.3)
        if d.sum():
            assert _rate_se(int(y.sum()), int(d.sum()), n) == pytest.approx(plain_rate_se(y, d), rel=1e-11, abs=1e-15)
    assert np.isnan(_rate_se(0, 0, 10)) and np.isnan(_rate_se(1, 1, 1))


@pytest.mark.cli
def test_simulate_json_is_the_summary_of_the_games(tmp_path):
    """The command line's --json (sums in the threads) and with --out (the frame written) print
    the same figures for the same games."""
    plain = cli("simulate", "--games", 3000, "--seed", 5, "--strategy", "greedy,expert,greedy", "--players", 3, "--json")
    written = cli("simulate", "--games", 3000, "--seed", 5, "--strategy", "greedy,expert,greedy", "--players", 3,
                  "--json", "--out", tmp_path / "g.parquet")
    assert plain.exit_code == written.exit_code == 0, plain.output + written.output
    assert json.loads(plain.stdout) == json.loads(written.stdout)


def test_the_slices_to_play_are_made_as_they_are_asked():
    """play_games reads its slices from a generator, a few ahead: a trillion games cost no
    memory up front (a list of every slice filled the memory at 10**13 games), and the slices
    are the same, in the same order."""
    import itertools
    import tracemalloc

    from heron_sim.loop.batch import _slices, _Todo

    small = list(_slices(50_000, 4096, 2))
    todo = _Todo(_slices(50_000, 4096, 2))
    got = []
    while todo:
        assert todo[0] == small[len(got)]
        got.append(todo.popleft())
    assert got == small
    tracemalloc.start()
    huge = _Todo(_slices(10**12, 4096, 2))
    first = [huge.popleft() for _ in range(3)]
    assert tracemalloc.get_traced_memory()[1] < 100_000
    tracemalloc.stop()
    assert first == list(itertools.islice(_slices(10**12, 4096, 2), 3))
    huge.clear()
    assert not huge
