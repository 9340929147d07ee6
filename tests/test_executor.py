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
    """A port where nothing listens is said at once (after a few seconds' grace for a scheduler
    that is starting), not after Dask's whole connect timeout; a host that does not resolve too."""
    from heron_sim.runner import dask_probe

    t = time.monotonic()
    with pytest.raises(HeronSimError, match="nothing listens at tcp://127.0.0.1:9 .connection refused"):
        get_executor("tcp://127.0.0.1:9", timeout=20)  # nothing listens on the discard port
    assert time.monotonic() - t < dask_probe.REFUSED_GRACE + 3
    with pytest.raises(HeronSimError, match="unknown host 'no-such-host.invalid'"):
        get_executor("tcp://no-such-host.invalid:8786", timeout=20)


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


# ---------------------------------------------------------------- issue 61 item 4: a cluster that pays for itself
def test_packed_rows_are_restored_exactly_and_travel_smaller():
    from heron_sim.runner.tasks import Packed, arrays_of, pack, unpack

    rows = play_rows(Batch(Rules.build(), ("greedy",) * 4, 5, 0, 2000))
    p = pack(rows)
    assert isinstance(p, Packed)
    back = unpack(p)
    assert back.dtype == np.int64 and back.flags.c_contiguous and np.array_equal(back, rows)
    assert sum(a.nbytes for a in arrays_of(p)) * 5 < rows.nbytes  # a fifth or less on the wire
    rng = np.random.default_rng(1)
    for lo, hi in ((-1, 2), (-200, 200), (-(2**20), 2**20), (-(2**40), 2**40)):
        x = rng.integers(lo, hi, size=(100, 9), dtype=np.int64)
        x[:, 3] = 7  # a constant column
        for y in (x, (x, x[:, :2].astype(np.float32)), [x]):
            assert all(np.array_equal(a, b) and a.dtype == b.dtype
                       for a, b in zip(arrays_of(unpack(pack(y))), arrays_of(y)))
    small = np.arange(12, dtype=np.int64).reshape(3, 4)
    assert pack(small) is small  # too few rows to bother


def test_counts_add_up_exactly_and_only_integers():
    from heron_sim.runner.tasks import add

    a = (np.array([1, 2, 3]), np.array([[1, 1]]))
    b = (np.array([5]), np.array([[2, 3]]))
    s = add(add(None, a), b)
    assert np.array_equal(s[0], [6, 2, 3]) and np.array_equal(s[1], [[3, 4]])
    with pytest.raises(HeronSimError, match="integer"):
        add(np.ones(2), np.ones(2))


def _fields_equal(a, b):
    import dataclasses

    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert np.array_equal(np.asarray(x), np.asarray(y)), (f.name, x, y)


@pytest.mark.parametrize("seats", ["greedy", "greedy,prudent,expert,racer"])
def test_count_games_equals_simulate_counts(seats):
    from heron_sim.analysis.summary import summarize
    from heron_sim.runner.executor import count_games
    from heron_sim.simulation import simulate_counts

    r = Rules.build(mode="10d6")
    a = simulate_counts(r, 3_001, 8, seats)
    b = count_games(r, 3_001, 8, seats, LocalExecutor(), batch_games=333)
    assert b.played == a.played == 3_001
    _fields_equal(a.counts, b.counts)
    assert summarize(a.counts) == summarize(b.counts)


def test_count_games_stopped_keeps_the_games_before_the_first_missing_batch(monkeypatch):
    from heron_sim import interrupt
    from heron_sim.runner.executor import count_games
    from heron_sim.simulation import simulate_counts
    from tests.test_reliability import _StopAfter

    r = Rules.build()
    monkeypatch.setattr(interrupt, "_stop", _StopAfter(3))
    b = count_games(r, 2_000, 4, "greedy", LocalExecutor(), batch_games=300)
    monkeypatch.setattr(interrupt, "_stop", _StopAfter(10**9))
    assert 0 < b.played < 2_000 and b.played % 300 == 0
    _fields_equal(simulate_counts(r, b.played, 4, "greedy").counts, b.counts)


def test_tasks_are_sized_by_the_measured_seconds_a_game():
    from heron_sim.runner import executor as E

    r = Rules.build()
    t = E._Tasks()
    batches = split_games(r, [["greedy"] * 4], 1, 400_000, batch_games=5_000)
    guess = E.GUESS_SEAT_SECONDS * 4 * 5_000
    assert t.cost(play_rows, batches[0]) == pytest.approx(guess)
    t.record(play_rows, batches[:2], [-0.9, 0.05])  # the first loaded its kernel: not a measure
    assert t.rate[t.key(play_rows, batches[0])] == [0.05, 5_000]
    # 80 batches of 50 ms on 2 workers: 4 s of work, tasks of TASK_SECONDS[0] (1 s): 20 batches each
    end = t.group_end(play_rows, batches, 0, width=2)
    assert end == 20
    assert E.TASK_SECONDS[0] <= end * 0.05 < E.TASK_SECONDS[0] + 0.05
    # much more work: tasks grow to TASK_SECONDS[1], never beyond
    many = split_games(r, [["greedy"] * 4], 1, 40_000_000, batch_games=5_000)
    assert t.group_end(play_rows, many, 0, width=2) * 0.05 == pytest.approx(E.TASK_SECONDS[1])
    # another strategy set has a cost of its own; items that are not batches go one a task
    mix = split_games(r, [["greedy", "expert", "greedy", "expert"]], 1, 10_000, batch_games=5_000)
    assert t.cost(play_rows, mix[0]) == pytest.approx(guess)
    assert t.group_end(play_rows, [1, 2, 3], 0, width=2) == 1


def test_cluster_tasks_carry_many_batches_and_sum_counts(cluster):
    from heron_sim.analysis.summary import summarize
    from heron_sim.runner.executor import count_games
    from heron_sim.simulation import simulate_counts

    r = Rules.build(mode="7d8")
    batches = split_games(r, [["greedy"] * 4, ["random", "greedy", "greedy", "greedy"]], 2, 30_000, batch_games=500)
    local = LocalExecutor().map(play_rows, batches)
    with get_executor(cluster.scheduler_address) as ex:
        remote = ex.map(play_rows, batches)
        tasks = len(ex.task_seconds)
        counted = count_games(r, 20_000, 6, "greedy,random,greedy,random", ex, batch_games=700)
    assert all(a.dtype == b.dtype == np.int64 and np.array_equal(a, b) for a, b in zip(local, remote))
    assert tasks < len(batches) / 4, (tasks, len(batches))  # not one task a batch
    ref = simulate_counts(r, 20_000, 6, "greedy,random,greedy,random")
    _fields_equal(ref.counts, counted.counts)
    assert summarize(ref.counts) == summarize(counted.counts)


def test_embedded_cluster_workers_share_the_cores_and_load_greedy_once():
    pytest.importorskip("distributed")
    import dask

    with get_executor("local-cluster:1") as ex:
        ex.client.wait_for_workers(1, timeout=60)

        def look():
            import time as _t

            from heron_sim.runner import tasks

            for _ in range(200):  # the plugin loads greedy's kernel on a thread of its own
                if frozenset({"greedy"}) in tasks.loaded_sets:
                    break
                _t.sleep(0.05)
            return (os.environ.get("HERON_SIM_WORKER_THREADS"), dask.config.get("distributed.worker.profile.enabled"),
                    frozenset({"greedy"}) in tasks.loaded_sets)

        (threads, profiled, loaded), = ex.client.run(look).values()
    assert threads == str(os.cpu_count() or 1) and profiled is False and loaded


def test_cluster_counts_stopped_keep_a_prefix_of_the_games(cluster, monkeypatch):
    """A stop during a cluster's counts: the sum of the tasks finished in a row from the first
    game, the same sums as those games played locally (small tasks here, to stop among them)."""
    from heron_sim import interrupt
    from heron_sim.runner import executor as E
    from heron_sim.simulation import simulate_counts

    import threading

    monkeypatch.setattr(E, "TASK_SECONDS", (0.02, 0.05))
    stop = threading.Event()
    monkeypatch.setattr(interrupt, "_stop", stop)
    seen = []

    def progress(games):  # a stop once 40 of the 150 batches came back
        seen.append(games)
        if len(seen) == 40:
            stop.set()

    r = Rules.build()
    with get_executor(cluster.scheduler_address) as ex:
        from heron_sim.runner.tasks import warm

        ex.client.run(warm)  # a worker restarted by an earlier test: its first task would load
        ex.poll = 0.02       # the kernel while the other finishes 40 batches (the prefix then empty)
        b = E.count_games(r, 60_000, 12, "greedy", ex, batch_games=400, progress=progress)
        assert len(ex.task_seconds) >= 1
    stop.clear()
    assert 0 < b.played < 60_000 and b.played % 400 == 0, b.played
    _fields_equal(simulate_counts(r, b.played, 12, "greedy").counts, b.counts)


def test_simulate_json_on_a_cluster_prints_the_local_summary(tmp_path):
    """`simulate --json --scheduler local-cluster:1`: the workers add up the sums; the same
    JSON as in this process. With --out (rows wanted) it is one error line."""
    pytest.importorskip("distributed")
    import json

    from tests.helpers import cli, one_line_error

    args = ("simulate", "--games", "2500", "--strategy", "greedy,random,greedy,random", "--seed", "4", "--json")
    local = cli(*args)
    remote = cli(*args, "--scheduler", "local-cluster:1")
    assert local.exit_code == remote.exit_code == 0, remote.output
    assert json.loads(remote.stdout) == json.loads(local.stdout)
    line = one_line_error(cli(*args, "--scheduler", "local-cluster:1", "--out", tmp_path / "g.parquet"))
    assert "--scheduler" in line and "--out" in line and not (tmp_path / "g.parquet").exists()


@pytest.mark.parametrize("task_seconds, batch_games", [((1e-4, 2e-4), 97), ((1e4, 1e4), 5_000), ((0.05, 0.1), 1_313)])
def test_cluster_summary_is_the_local_one_whatever_the_task_sizes(cluster, monkeypatch, task_seconds, batch_games):
    """The same seed gives the same sums and the same summary in this process and on a 2-worker
    cluster, with tasks of one batch each, one task for every batch, or in between, and
    batches of any size: grouping changes where games run, never what they give."""
    from heron_sim.analysis.summary import summarize
    from heron_sim.runner import executor as E
    from heron_sim.simulation import simulate_counts

    r = Rules.build(mode="10d6")
    seats = "greedy,random,greedy,random"
    ref = simulate_counts(r, 9_001, 21, seats)
    monkeypatch.setattr(E, "TASK_SECONDS", task_seconds)
    with get_executor(cluster.scheduler_address) as ex:
        counted = E.count_games(r, 9_001, 21, seats, ex, batch_games=batch_games)
        tasks, items = len(ex.task_seconds), list(ex._tasks.items)
    batches = -(-9_001 // batch_games)
    assert sum(items) == batches  # every batch once, in some task
    if task_seconds[1] < 1e-3:
        assert tasks == batches  # one batch a task
    elif task_seconds[0] > 100:
        assert tasks == 1  # every batch in one task
    else:
        assert 1 < tasks < batches
    assert counted.played == 9_001
    _fields_equal(ref.counts, counted.counts)
    assert summarize(ref.counts) == summarize(counted.counts)


def test_every_task_carries_at_least_the_least_seconds_but_the_last():
    """The task-size rule on made-up costs: tasks cover the items once, in order; every task
    but the one that reaches the end carries at least TASK_SECONDS[0] of estimated work and at
    most TASK_SECONDS[1] plus one batch; a task never runs past an item that is not a batch."""
    from heron_sim.runner import executor as E

    r = Rules.build()
    rng = np.random.default_rng(5)
    for trial in range(30):
        t = E._Tasks()
        sizes = rng.integers(1, 9_000, size=int(rng.integers(1, 300)))
        items, first = [], 0
        for s in sizes:
            items.append(Batch(r, ("greedy",) * 4, 1, first, int(s)))
            first += int(s)
        if trial % 3 == 0:  # a foreign item somewhere: a task of its own
            items.insert(int(rng.integers(0, len(items) + 1)), "not a batch")
        per_game = float(rng.choice([1e-6, 1e-5, 1e-4]))
        t.rate[t.key(play_rows, items[0] if isinstance(items[0], Batch) else items[1])] = [per_game * 1e6, 1_000_000]
        width = int(rng.integers(1, 17))
        a, lo, hi = 0, *E.TASK_SECONDS
        while a < len(items):
            b = t.group_end(play_rows, items, a, width)
            assert a < b <= len(items)
            group = items[a:b]
            if any(not isinstance(x, Batch) for x in group):
                assert len(group) == 1
            else:
                cost = sum(x.games * per_game for x in group)
                if b < len(items) and isinstance(items[b], Batch):
                    assert cost >= lo * (1 - 1e-9), (trial, a, b, cost)
                assert cost - group[-1].games * per_game < hi, (trial, a, b, cost)
            a = b


def test_task_size_aims_at_a_quarter_of_each_workers_share_of_the_work_left():
    """Between TASK_SECONDS' bounds a task carries a quarter of the work left over the
    workers: 32 s left on 4 workers, tasks of 2 s; 12 s left on 2 workers, 1.5 s; 2 s left,
    the least (1 s): a stop, a lost worker's retry and the last task's wait stay short."""
    from heron_sim.runner import executor as E

    r = Rules.build()
    t = E._Tasks()
    items = [Batch(r, ("greedy",) * 4, 1, k * 1000, 1000) for k in range(3200)]
    t.rate[t.key(play_rows, items[0])] = [0.01, 1000]  # 10 ms a batch
    assert t.group_end(play_rows, items, 0, width=4) == 200  # 32 s / 16 = 2 s
    assert t.group_end(play_rows, items, 2000, width=2) == 2000 + 150  # 12 s / 8 = 1.5 s
    assert t.group_end(play_rows, items, 3000, width=2) == 3000 + 100  # 2 s / 8: the least, 1 s
    assert t.group_end(play_rows, items, 3150, width=2) == 3200  # 0.5 s left: the rest


@pytest.mark.parametrize("threads", [1, 2])
def test_a_batchs_counts_are_those_of_its_rows_on_any_threads(threads):
    """count_batch plays in cache-sized chunks (no rows array) on one thread or several: the
    same sums as counting the batch's rows."""
    from heron_sim.engine import layout as L
    from heron_sim.loop.columns import count_rows
    from heron_sim.row_counts import zero_counts
    from heron_sim.runner.batches import count_batch

    r = Rules.build(mode="10d6")
    b = Batch(r, ("greedy", "random", "greedy", "random"), 9, 1_234, 5_000, threads=threads)
    rows = play_rows(b)
    want = zero_counts(4, 2)
    count_rows(rows, 4, np.array([0, 1, 0, 1], dtype=np.int64), *want)
    want.append(np.bincount(rows[rows[:, L.C_FINISHED] != 0, L.C_ROUNDS]))
    got = count_batch(b)
    assert len(got) == len(want) and all(np.array_equal(x, y) for x, y in zip(got, want))


def test_a_worker_of_another_heron_sim_is_refused_in_one_line(cluster, monkeypatch):
    """A worker whose heron-sim is not this process's (another engine would play other games
    from the same seeds): its tasks refuse, and the run stops with one line naming both (not
    sums that differ)."""
    from heron_sim.runner import executor as E
    from heron_sim.runner import tasks

    here = tasks.identity()
    assert here.startswith("heron-sim ") and ", sources " in here
    monkeypatch.setattr(tasks, "identity", lambda: "heron-sim 0.0.1, sources 0123456789abcdef")
    with get_executor(cluster.scheduler_address) as ex:
        with pytest.raises(HeronSimError) as err:
            E.count_games(Rules.build(), 2_000, 1, "greedy", ex)
    line = str(err.value)
    assert "\n" not in line and "0123456789abcdef" in line and here in line and "tcp://127.0.0.1:" in line


def test_a_script_without_a_main_guard_is_told_in_one_line(tmp_path):
    """A script that starts local-cluster at its top level (no `if __name__ == "__main__":`):
    each worker re-runs it while starting; one line from the worker and one error from the
    executor say so, not Python's bootstrapping error and Dask's pages of tracebacks."""
    pytest.importorskip("distributed")
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "study.py"
    script.write_text("from heron_sim.runner.executor import get_executor\n"
                      "with get_executor('local-cluster:1') as ex:\n"
                      "    print('started')\n", encoding="utf-8")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(root)))
    assert out.returncode != 0 and "started" not in out.stdout
    # one traceback: the script's own, of the HeronSimError it did not catch
    assert out.stderr.count("Traceback") == 1 and "bootstrapping" not in out.stderr, out.stderr
    assert 'if __name__ == "__main__":' in out.stderr and "did not start" in out.stderr
