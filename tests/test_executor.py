"""The executor: local and Dask distributed give bit-identical results; a killed worker's batch
is run again, no game lost or counted twice (a real LocalCluster on 127.0.0.1, two processes)."""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from heron_sim.errors import HeronSimError
from heron_sim.rules import Rules
from heron_sim.runner.executor import Batch, LocalExecutor, get_executor, play_rows, split_games

pytestmark = pytest.mark.exact


def test_split_covers_every_game_once_with_rotations():
    r = Rules.build()
    seatings = [["greedy", "random"] * 2, ["random", "greedy"] * 2]
    bs = split_games(r, seatings, seed=3, games=10_007, batch_games=1000, first_game=50)
    idx = np.concatenate([np.arange(b.first_game, b.first_game + b.games) for b in bs])
    assert np.array_equal(idx, np.arange(50, 10_057))
    assert {b.seating for b in bs} == {tuple(s) for s in seatings}
    assert all(b.games <= 1000 for b in bs)


def test_batch_split_does_not_change_results():
    r = Rules.build()
    whole = play_rows(Batch(r, ("greedy",) * 4, 5, 0, 600))
    parts = LocalExecutor().map(play_rows, split_games(r, [["greedy"] * 4], 5, 600, batch_games=97))
    assert np.array_equal(np.concatenate(parts), whole)


@pytest.mark.parametrize("bad", ["tcp://nohost", "tcp://:80", "udp://x:1", "local-cluster:0", "local-cluster:x"])
def test_bad_scheduler_addresses(bad):
    with pytest.raises(HeronSimError, match="--scheduler"):
        get_executor(bad)


def test_unreachable_scheduler_is_one_error_line():
    with pytest.raises(HeronSimError, match="cannot reach"):
        get_executor("tcp://127.0.0.1:9", timeout=2)  # nothing listens on the discard port


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(host="127.0.0.1", n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


def test_cluster_listens_on_loopback_only(cluster):
    assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
    with get_executor(cluster.scheduler_address) as ex:
        workers = ex.client.scheduler_info()["workers"]
        assert len(workers) == 2 and all(a.startswith("tcp://127.0.0.1:") for a in workers)


def test_local_and_cluster_are_bit_identical(cluster):
    r = Rules.build(mode="10d6")
    batches = split_games(r, [["greedy"] * 4], seed=11, games=3000, batch_games=700)
    local = np.concatenate(LocalExecutor().map(play_rows, batches))
    with get_executor(cluster.scheduler_address) as ex:
        remote = np.concatenate(ex.map(play_rows, batches))
    assert np.array_equal(local, remote)


def test_killed_worker_batch_is_retried_nothing_lost_or_doubled(cluster):
    from distributed import Client

    r = Rules.build()
    # Four long batches (single-threaded, a few seconds each) so that a kill lands mid-batch.
    batches = split_games(r, [["greedy"] * 4], seed=21, games=4 * 25_000, batch_games=25_000, threads=1)
    import dataclasses

    expected = np.concatenate(LocalExecutor().map(play_rows, [dataclasses.replace(b, threads=None) for b in batches]))
    with get_executor(cluster.scheduler_address) as ex, Client(cluster.scheduler_address) as watch:
        import threading

        box = {}

        def run():
            box["out"] = ex.map(play_rows, batches)

        th = threading.Thread(target=run)
        th.start()
        killed = None
        deadline = time.monotonic() + 60
        while killed is None and time.monotonic() < deadline:
            busy = {w: ts for w, ts in watch.processing().items() if ts}
            if busy:
                addr = sorted(busy)[0]
                time.sleep(0.5)  # well inside the batch
                if watch.processing().get(addr):
                    pid = watch.run(os.getpid, workers=[addr])[addr]
                    os.kill(pid, signal.SIGKILL)
                    killed = addr
            time.sleep(0.05)
        th.join(timeout=240)
        assert killed is not None, "no batch was seen running"
        assert not th.is_alive()
    print("damaged transfers caught by CRC:", ex.damaged)
    got = np.concatenate(box["out"])
    assert got.shape == expected.shape            # no game lost or counted twice
    bad = np.where((got != expected).any(axis=1))[0]
    assert bad.size == 0, (f"rows {bad[:5]}..{bad[-5:]} ({bad.size}) differ, batches {sorted(set(bad // 25_000))}, "
                           f"columns {np.where((got != expected).any(axis=0))[0][:10]}, killed {killed}, damaged {ex.damaged}")
    idx = np.concatenate([np.arange(b.first_game, b.first_game + b.games) for b in batches])
    assert np.unique(idx).size == idx.size == got.shape[0]


def test_games_job_through_the_executor_equals_play_job():
    from heron_sim.runner.executor import play_games_job
    from heron_sim.runner.run import Job, play_job

    job = Job(key="k", kind="games", rules=Rules.build(), n=1500, seed=4,
              seatings=[["greedy", "random", "greedy", "random"], ["random", "greedy", "random", "greedy"]])
    a = play_job(job)
    b = play_games_job(job, LocalExecutor(), batch_games=400)
    import pandas as pd

    pd.testing.assert_frame_equal(a, b)


def test_run_plan_compare_jobs_on_a_cluster_equal_local(cluster):
    """`run/plan/compare --scheduler`: play_job sends games jobs to the executor; same frame."""
    import pandas as pd

    from heron_sim.runner import executor as E
    from heron_sim.runner.run import Job, play_job

    job = Job(key="k", kind="games", rules=Rules.build(mode="7d8"), n=1200, seed=9,
              seatings=[["greedy"] * 4])
    local = play_job(job)
    E.use_scheduler(cluster.scheduler_address)
    try:
        assert E.current() is not None and E.current().kind == "dask"
        remote = play_job(job)
    finally:
        E.current().close()
        E._CURRENT = None
    pd.testing.assert_frame_equal(local, remote)
