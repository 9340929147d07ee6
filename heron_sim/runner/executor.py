"""Where batches of games run: in this process (the default) or on a Dask distributed cluster.

    from heron_sim.runner.executor import get_executor, split_games, play_rows
    with get_executor("tcp://10.0.0.5:8786") as ex:      # or None: this process
        rows = ex.map(play_rows, split_games(rules, [["greedy"] * 4], seed=1, games=20_000))

A batch is plain data (:class:`Batch`: rules, seating, seed, first game index, games) and the
function that plays it is a module-level function, so both travel to a worker by pickling.
Game ``i`` draws only from the stream ``(seed, i)`` (heron_sim.engine), so a batch's rows do
not depend on where or with how many threads it ran: the same seeds give bit-identical results
in this process and on any cluster. ``map`` returns one result per batch, in the order given;
each batch's result is stored once by its position, so a batch that a dead worker had started
and that the scheduler ran again elsewhere is neither lost nor counted twice. Every array result
travels with a CRC-32 computed on the worker and checked on arrival: in our tests a worker
killed mid-run occasionally made another batch's result arrive damaged (bytes shifted); such a
batch is run again (``DaskExecutor.damaged`` counts them).

The embedded cluster (``local-cluster``) and every address this module opens listen on
127.0.0.1 only, with the dashboard off.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..errors import HeronSimError, RunFailure
from ..row_counts import zero_counts

from .batches import (  # noqa: F401 - re-exported: the executor's users import them from here
    Batch, split_games, _set_threads, _seats, play_rows, play_frame, count_batch, DEFAULT_BATCH_GAMES, _SEATS_KEPT, _seats_memo, _seats_lock,
)


def count_games(rules, games: int, seed: int = 1, strategies="greedy", executor=None, *,
                batch_games: int = DEFAULT_BATCH_GAMES, progress: Callable[[int], None] | None = None):
    """heron_sim.simulation.simulate_counts through an executor: the same games (0 .. games - 1
    of ``seed``), the same :class:`~heron_sim.simulation.CountedRun` (tests/test_executor.py),
    each task of a Dask cluster adding up its batches' counts on its worker and sending back one
    sum (:meth:`DaskExecutor.total`). A stop keeps the sums of the games before the first batch
    not finished, as simulate_counts does."""
    from ..analysis.summary import SummaryCounts
    from ..interrupt import Stopped
    from ..simulation import _prepare

    seating = _prepare(rules, games, seed, strategies, batch_games)[0]
    executor = executor or LocalExecutor()
    batches = split_games(rules, [seating], seed, games, batch_games=batch_games)
    tick = (lambda b: progress(b.games)) if progress is not None else None
    try:
        total, done = executor.total(count_batch, batches, tick), len(batches)
    except Stopped as err:
        total, done = getattr(err, "total", None), getattr(err, "items_done", 0)
    played = sum(b.games for b in batches[:done])
    names = tuple(sorted(set(seating)))
    if total is None:
        total = (*zero_counts(rules.players, len(names)), np.zeros(0, np.int64))
    wins, gd, gw, sums, pdealt, puses, bd, bu, rounds = total
    counts = SummaryCounts(
        players=rules.players, games=int(played), finished=int(rounds.sum()), rounds=np.trim_zeros(rounds, "b"),
        wins=wins, guide_dealt=gd, guide_won=gw, played=int(sums[0]), ponds=int(sums[1]), anxieties=int(sums[2]),
        lion_rescues=int(sums[3]), lead_changes=int(sums[4]), advance=int(sums[5]), power_dealt=pdealt,
        power_uses=puses, strategies=names if played else (), by_dealt=bd if played else bd[:0],
        by_uses=bu if played else bu[:0])
    from ..simulation import CountedRun

    return CountedRun(counts, int(games), int(played))


# ---------------------------------------------------------------- executors
#: The strategy sets (frozensets of a seating's names) a batch has already played in this
#: process: their kernel is loaded, so their batches may start side by side at once (a study's
#: candidates seat the same sets again and again; each first batch alone left a core idle
#: during its Python work).
_played_sets: set = set()


class LocalExecutor:
    """Batches run in this process, as many at once as numba has threads (each on one thread:
    a study's batches are short, and a batch's own Python work, its seats' arrays and its
    sums, would otherwise leave a core idle); results in the order given, bit-identical to one
    batch after the other. The first batch of each strategy set runs alone first (it loads
    the kernel, whose first import is not thread-safe), once a process (:data:`_played_sets`).
    Items that are not Héron batches, or batches that ask for a number of threads, run one
    after the other (numba then spreads each over the cores)."""

    kind = "local"
    width = 1  # trials the lab asks at once (batches run side by side inside one map)

    def map(self, fn: Callable, items: Iterable, progress: Callable[[Any], None] | None = None) -> list:
        """``fn`` of each item, in order. A stop request (Ctrl-C, SIGTERM) is read between
        items: :class:`~heron_sim.interrupt.Stopped` is raised with ``results`` (the finished
        results, None for the others)."""
        import numba

        items = list(items)
        out: list = [None] * len(items)
        side_by_side = min(numba.get_num_threads(), len(items))
        if side_by_side <= 1 or not all(isinstance(b, Batch) and b.threads is None for b in items):
            for k, item in enumerate(items):
                _stop_if_requested(out)
                out[k] = fn(item)
                if progress is not None:
                    progress(item)
            return out
        first: dict = {}
        for k, b in enumerate(items):
            if frozenset(b.seating) not in _played_sets:
                first.setdefault(frozenset(b.seating), k)
        for k in sorted(first.values()):  # loads each kernel here, in this thread
            _stop_if_requested(out)
            out[k] = fn(items[k])
            _played_sets.add(frozenset(items[k].seating))
            if progress is not None:
                progress(items[k])
        started = set(first.values())
        # the longest batches first (games x seats, about their time): the last ones to end are
        # short, so a core idles less while the other finishes a candidate (results by position)
        rest = sorted((k for k in range(len(items)) if k not in started),
                      key=lambda k: (-items[k].games * len(items[k].seating), k))
        return _side_by_side(fn, items, rest, out, progress, side_by_side)

    def total(self, fn: Callable, items: Iterable, progress: Callable[[Any], None] | None = None):
        """The element-wise sum of ``fn`` of each item (integer counts: exact in any order;
        heron_sim.runner.tasks.add). A stop raises :class:`~heron_sim.interrupt.Stopped` with
        ``total`` (the sum over the items before the first one not finished) and ``items_done``
        (their number)."""
        from ..interrupt import Stopped

        items = list(items)
        try:
            return _sum_prefix(self.map(fn, items, progress), len(items))[0]
        except Stopped as err:
            err.total, err.items_done = _sum_prefix(getattr(err, "results", None) or [], len(items))
            raise

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "this process"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _sum_prefix(results: list, n: int) -> tuple:
    """(the sum of ``results`` up to the first missing one, how many that is)."""
    from .tasks import add

    total, k = None, 0
    for r in list(results)[:n]:
        if r is None:
            break
        total, k = add(total, r), k + 1
    return total, k


#: Dask's own periodic work in the embedded cluster's workers, made rarer: its statistical
#: profiler (a look at every thread's stack every 10 ms), the event loop's tick (20 ms), the
#: memory and system monitors (0.1 and 0.5 s) took about 8 % of a worker's CPU beside the games
#: (benchmarks/dask_cpu.py). An existing cluster's workers take the same settings from their
#: environment (docs/tuning.md): DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False ...
QUIET_WORKERS = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "500ms",
                 "distributed.admin.system-monitor.interval": "5s",
                 "distributed.worker.memory.monitor-interval": "1s"}


def _quiet_cluster(LocalCluster, n: int):
    """An embedded cluster whose worker processes ignore SIGINT: a terminal's Ctrl-C reaches
    the whole process group, and it is this process that stops the run (and closes the
    workers); workers that died of it would print tracebacks and leave the run hanging."""
    import logging
    import multiprocessing
    import signal
    import threading

    if getattr(multiprocessing.current_process(), "_inheriting", False):
        # a worker being started re-runs the __main__ script that asked for the cluster (a script
        # without `if __name__ == "__main__":`): say so in one line instead of starting a cluster
        # of its own (Python's bootstrapping error, a page of tracebacks); the parent says it too
        raise SystemExit("heron-sim: a worker process of local-cluster ran the script that starts the "
                         "cluster again; start it under `if __name__ == \"__main__\":`")
    main = threading.current_thread() is threading.main_thread()
    old = signal.getsignal(signal.SIGINT) if main else None
    if main:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the spawned workers
    try:
        # dashboard_address=None alone still serves the scheduler's HTTP routes on port 8787:
        # no dashboard, and the remaining routes (health, metrics) on a free loopback port.
        # silence_logs: Dask's own log lines (a worker's heartbeat traceback on a loaded machine,
        # its shutdown) are not ours to print; what goes wrong is said in one line by the executor.
        # HERON_SIM_WORKER_THREADS: numba's threads in each worker's tasks, the cores shared out
        # (heron_sim.runner.tasks): n one-thread workers, not n workers of all the cores each
        threads = max(1, (os.cpu_count() or 1) // n)
        import dask

        with dask.config.set(QUIET_WORKERS):  # the nannies hand this configuration to their workers
            return LocalCluster(host="127.0.0.1", n_workers=n, threads_per_worker=1, processes=True,
                                dashboard_address=None, silence_logs=logging.CRITICAL,
                                env={"HERON_SIM_WORKER_THREADS": str(threads)},
                                scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})
    finally:
        if main:
            signal.signal(signal.SIGINT, old)


_local_pools: dict = {}


def _one_thread() -> None:
    import numba

    numba.set_num_threads(1)  # thread-local: each pool thread plays its batch alone


def _side_by_side(fn, items, todo, out, progress, width):
    """Run ``fn`` on ``items[k]`` for k in ``todo``, ``width`` at a time, filling ``out[k]``;
    a stop request waits for the running ones and raises with what finished; an error is
    raised once the running ones are done."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    from ..interrupt import stop_requested

    if width not in _local_pools:
        _local_pools[width] = ThreadPoolExecutor(max_workers=width, initializer=_one_thread,
                                                 thread_name_prefix="heron-sim-batch")
    pool = _local_pools[width]
    queue = list(todo)
    running: dict = {}
    error = None
    try:
        while queue or running:
            while queue and len(running) < width and error is None:
                if stop_requested():
                    queue.clear()
                    break
                k = queue.pop(0)
                running[pool.submit(fn, items[k])] = k
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in finished:
                k = running.pop(f)
                try:
                    out[k] = f.result()
                except BaseException as err:  # noqa: BLE001 - raised below, after the others
                    error = error or err
                    queue.clear()
                    continue
                if progress is not None:
                    progress(items[k])
    except BaseException:
        wait(running)  # a KeyboardInterrupt here: let the running batches end, then go on up
        raise
    if error is not None:
        raise error
    if any(out[k] is None for k in todo):  # stopped before every batch had run
        _stop_if_requested(out)
    return out


def _stop_if_requested(results: list) -> None:
    """Raise :class:`~heron_sim.interrupt.Stopped` (with the finished ``results``) if a stop
    was requested."""
    from ..interrupt import Stopped, signal_name, stop_requested

    if stop_requested():
        err = Stopped(signal_name() or "stop")
        err.results = results
        raise err


class ClusterLost(RunFailure):
    """The Dask scheduler (or every worker) went away mid-run; ``results`` holds the batches
    that had come back (None for the others). Not bad input: exit code 1."""

    results: list = []


def _silence_dask() -> None:
    """Silence Dask's own log lines for the rest of the process: once the scheduler is lost,
    the client logs its failed reconnections (tracebacks) while it closes, after the one line
    that already says what happened."""
    import logging

    for name in list(logging.root.manager.loggerDict):
        if name.split(".", 1)[0] in ("distributed", "tornado"):
            logging.getLogger(name).disabled = True
    for name in ("distributed", "tornado"):
        logger = logging.getLogger(name)
        logger.disabled = True
        for handler in logger.handlers:  # records of loggers created later propagate here
            handler.setLevel(logging.CRITICAL + 1)


def _run_on_worker(fn, item):
    """Run ``fn(item)`` on a worker; an array result travels with its CRC-32, checked on arrival."""

    res = fn(item)
    return res, _crc(res)


def _crc(res) -> int:
    """CRC-32 of a result: an array, or a tuple/list of arrays (every transfer is checked;
    the batch functions sent to a cluster return arrays, frames are built on the client)."""
    from .tasks import crc_of

    return crc_of(res)


def _check(res_crc):
    """The payload of a worker's answer ``(payload, crc[, times])`` if its CRC-32 matches, else
    None (damaged on the way, or not what a worker sends: the caller runs it again)."""
    if not isinstance(res_crc, tuple) or len(res_crc) not in (2, 3):
        return None
    res, crc = res_crc[0], res_crc[1]
    try:
        if _crc(res) != crc:
            return None
    except HeronSimError:
        return None
    return res


#: The seconds of a worker's time a Dask task carries (issue 61): at least the first (a task's
#: fixed cost, tens of milliseconds to schedule, ship and collect, is then a few per cent), at
#: most the second (a stop, a lost worker's retry and the last task's wait stay short), aiming
#: at a quarter of each worker's share of the work in between.
TASK_SECONDS = (1.0, 2.0)
#: A game's seconds per seat before any task of its strategy set has been timed (four greedy
#: seats play about 100,000 games a second on one core; slower sets: their first tasks are
#: longer, then sized by their own times).
GUESS_SEAT_SECONDS = 2.5e-6


class _Tasks:
    """The executor's record of its tasks: each strategy set's measured seconds a game (what
    sizes the next tasks) and every task's seconds on its worker (``make bench`` prints them)."""

    def __init__(self):
        self.rate: dict = {}       # key -> [seconds, games] of timed batches (kernel loads left out)
        self.seconds: list = []    # each task's seconds on its worker
        self.items: list = []      # each task's number of items (batches)

    @staticmethod
    def key(fn, item):
        if not isinstance(item, Batch):
            return None
        return (getattr(fn, "__module__", ""), getattr(fn, "__qualname__", repr(fn)), frozenset(item.seating),
                item.rules.players, bool(item.luck), int(item.streak_every), item.threads)

    def cost(self, fn, item) -> float:
        """Estimated seconds of ``fn(item)`` on a worker."""
        k = self.key(fn, item)
        if k is None:
            return float("inf")  # not a batch: a task of its own
        sec, games = self.rate.get(k, (0.0, 0))
        per_game = sec / games if games else GUESS_SEAT_SECONDS * item.rules.players
        return item.games * per_game

    def record(self, fn, items, times) -> None:
        loads = 0.0
        for item, t in zip(items, times):
            k = self.key(fn, item)
            if t < 0:
                loads -= t
            elif k is not None and item.games:
                r = self.rate.setdefault(k, [0.0, 0])
                r[0] += t
                r[1] += item.games
        self.seconds.append(float(sum(abs(t) for t in times)))
        self.items.append(len(items))

    def group_end(self, fn, items, a: int, width: int) -> int:
        """The end of the task that starts at item ``a``: consecutive batches up to the task's
        seconds (:data:`TASK_SECONDS`), sized on the work left over ``width`` worker threads."""
        first = self.cost(fn, items[a])
        if first == float("inf"):
            return a + 1
        left = first + sum(min(self.cost(fn, x), 1e9) for x in items[a + 1:])
        lo, hi = TASK_SECONDS
        target = min(hi, max(lo, left / (4 * max(1, width))))
        b, cost = a + 1, first
        while b < len(items) and cost < target:
            c = self.cost(fn, items[b])
            if c == float("inf"):
                break
            cost, b = cost + c, b + 1
        return b


class DaskExecutor:
    """Batches submitted to a Dask distributed scheduler.

    ``address``: an existing scheduler (``tcp://HOST:PORT``); None starts an embedded
    ``LocalCluster`` on 127.0.0.1 (``workers`` processes of one thread, dashboard off), closed
    with the executor. A batch whose worker dies is run again by the scheduler (up to
    ``retries`` times more, plus Dask's own reschedule of tasks lost with a worker).
    """

    kind = "dask"

    def __init__(self, address: str | None = None, workers: int | None = None, retries: int = 3,
                 timeout: float = 20.0):
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - a dependency
            raise HeronSimError("--scheduler: dask.distributed is not installed") from None
        self.cluster = None
        self.retries = retries
        self.timeout = timeout
        self.poll = 0.25  # seconds between two looks at the stop flag
        self.damaged = 0  # batch results whose CRC did not match on arrival (run again)
        self.refetched = 0  # batch results lost with their worker after finishing (run again)
        if address is None:
            n = workers or max(1, min(os.cpu_count() or 1, 4))
            try:
                self.cluster = _quiet_cluster(LocalCluster, n)
            except Exception as err:  # noqa: BLE001 - a worker that died starting: one line
                raise HeronSimError(f"--scheduler local-cluster: its workers did not start ({type(err).__name__}: "
                                    f"{err}); a script that starts one must do so under "
                                    "`if __name__ == \"__main__\":` (each worker imports the script again)") from None
            self.client = Client(self.cluster, timeout=f"{timeout}s")
        else:
            from .dask_probe import probe

            probe(address, timeout)  # a port that does not speak Dask is refused in `timeout` s
            try:
                self.client = Client(address, timeout=f"{timeout}s")
            except (OSError, TimeoutError, ValueError) as err:
                raise HeronSimError(f"--scheduler: cannot reach {address}: {err}") from None
        self.address = address or self.cluster.scheduler_address
        self._tasks = _Tasks()
        from .tasks import identity

        self.identity = identity()  # every task checks that its worker plays the same games
        try:  # each worker loads the engine's greedy kernel once, when it starts
            from .dask_worker import WarmKernels

            self.client.register_plugin(WarmKernels(), name=WarmKernels.name)
        except Exception:  # noqa: BLE001 - an older scheduler: the first task loads it
            pass

    @property
    def task_seconds(self) -> list[float]:
        """Each task's seconds on its worker, in the order they came back."""
        return list(self._tasks.seconds)

    @property
    def width(self) -> int:
        try:
            return max(1, sum(w["nthreads"] for w in self.client.scheduler_info()["workers"].values()))
        except Exception:  # noqa: BLE001 - informative only
            return 1

    def map(self, fn: Callable, items: Iterable, progress: Callable[[Any], None] | None = None) -> list:
        """``fn`` of each item on the cluster, in the order given. Consecutive batches travel
        together, a task carrying about :data:`TASK_SECONDS` of a worker's time (sized by the
        seconds a game measured on the workers; heron_sim.runner.tasks); other items one a
        task. The stop flag is read every ``poll`` seconds: a stop cancels the tasks still
        running and raises :class:`~heron_sim.interrupt.Stopped`; a lost scheduler or cluster
        raises :class:`ClusterLost` (one line); both carry ``results`` (the items that came
        back, None for the others)."""
        return self._run(fn, list(items), progress, reduce=False)

    def total(self, fn: Callable, items: Iterable, progress: Callable[[Any], None] | None = None):
        """The element-wise sum of ``fn`` of each item (integer counts; heron_sim.runner.tasks.add),
        added up on the workers, each task sending back one sum. A stop raises
        :class:`~heron_sim.interrupt.Stopped` with ``total`` (the sum over the items before
        the first one not finished) and ``items_done``."""
        return self._run(fn, list(items), progress, reduce=True)

    def _run(self, fn, items: list, progress, reduce: bool):
        from distributed import wait

        from ..interrupt import Stopped, signal_name, stop_requested
        from .tasks import add, run_group, unpack

        n = len(items)
        if not n:
            return None if reduce else []
        out: list = [None] * n      # map: each item's result
        sums: dict = {}             # total: task start -> (end, its sum)
        width = self.width
        window = 2 * width          # tasks in flight: each worker runs one and has the next
        inflight: dict = {}         # future -> (start, end): a retry keeps its range
        cursor = 0

        def got() -> list:
            if not reduce:
                return out
            mark = [None] * n
            for a, (b, _) in sums.items():
                mark[a:b] = [True] * (b - a)
            return mark

        def submit(a: int, b: int):
            fut = self.client.submit(run_group, fn, items[a:b], reduce, self.identity, pure=False,
                                     retries=self.retries)
            inflight[fut] = (a, b)

        def stop():
            err = Stopped(signal_name() or "stop")
            err.results = out if not reduce else None
            if reduce:  # the sum of the tasks finished in a row from the first item
                total, k = None, 0
                while k in sums:
                    b, part = sums[k]
                    total, k = add(total, part), b
                err.total, err.items_done = total, k
            return err

        try:
            while cursor < n or inflight:
                if stop_requested():
                    raise stop()
                while cursor < n and len(inflight) < window:
                    end = self._tasks.group_end(fn, items, cursor, width)
                    try:
                        submit(cursor, end)
                    except Exception as err:  # noqa: BLE001 - the client is closed or the scheduler gone
                        raise self._lost(err, got()) from None
                    cursor = end
                try:
                    finished, _ = wait(list(inflight), timeout=self.poll, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    continue
                except Exception as err:  # noqa: BLE001 - connection closed, scheduler gone
                    raise self._lost(err, got()) from None
                for fut in finished:
                    a, b = inflight.pop(fut)
                    if fut.status == "error":
                        exc = fut.exception()
                        if isinstance(exc, HeronSimError):
                            raise HeronSimError(str(exc)) from None
                        if isinstance(exc, ModuleNotFoundError) and "heron_sim" in str(exc):
                            raise HeronSimError(f"--scheduler: the workers of {self.address} cannot import "
                                                "heron_sim: install heron-sim (this version) on every "
                                                "worker") from None
                        raise HeronSimError(f"executor: a batch failed on the cluster "
                                            f"({type(exc).__name__}: {exc})") from None
                    answer = res = None
                    if fut.status != "finished":  # lost (or cancelled) with a worker or the scheduler
                        if self.client.status != "running":
                            raise self._lost(None, got())
                        self.refetched += 1  # a worker died holding it; the scheduler is there
                    else:
                        try:
                            answer = fut.result(timeout=self.timeout)
                            res = _check(answer)
                            if res is None:
                                self.damaged += 1
                        except Exception as err:  # noqa: BLE001
                            if self.client.status != "running":
                                raise self._lost(err, got()) from None
                            # finished, then its worker died before the result was fetched
                            # (Dask: "Couldn't gather keys"): the scheduler is there, run it again
                            self.refetched += 1
                    if res is None:
                        if self.damaged + self.refetched > 10:
                            raise HeronSimError("executor: batch results keep arriving damaged or lost "
                                                f"({self.damaged} CRC mismatches, {self.refetched} lost results)")
                        submit(a, b)  # the same items again, stored once by their position
                        continue
                    self._tasks.record(fn, items[a:b], answer[2])
                    if reduce:
                        sums[a] = (b, res)
                    else:
                        if len(res) != b - a:
                            raise HeronSimError(f"executor: a task sent {len(res)} results for {b - a} batches")
                        out[a:b] = [unpack(r) for r in res]
                    if progress is not None:
                        for item in items[a:b]:
                            progress(item)
        except BaseException:
            self._cancel(list(inflight))
            raise
        if not reduce:
            return out
        total, k = None, 0
        while k < n:
            b, part = sums[k]
            total, k = add(total, part), b
        return total

    def _cancel(self, futures) -> None:
        try:
            self.client.cancel(futures, force=True)
        except Exception:  # noqa: BLE001 - the scheduler may be gone already
            pass

    def _lost(self, err, results) -> "ClusterLost":
        _silence_dask()  # our one line says it; Dask's reconnection tracebacks would follow it
        kept = sum(r is not None for r in results)
        why = f" ({type(err).__name__})" if err is not None else ""
        e = ClusterLost(f"--scheduler: lost the Dask scheduler {self.address}{why}; "
                        f"{kept} of {len(results)} batches had come back")
        e.results = results
        return e

    def close(self) -> None:
        import contextlib

        # A closing that fails (the scheduler is gone, the workers died with a terminal's
        # Ctrl-C) is no error of the run: give up after a few seconds, say nothing.
        with contextlib.suppress(Exception):
            self.client.close(timeout=5)
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close(timeout=5)

    def describe(self) -> str:
        return f"Dask scheduler {self.address}" + (" (embedded, 127.0.0.1)" if self.cluster else "")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def get_executor(scheduler: str | None = None, workers: int | None = None, timeout: float = 20.0):
    """``None``/``"local"``: this process. ``"local-cluster"`` (or ``"local-cluster:N"``): an
    embedded Dask cluster of N worker processes on 127.0.0.1. ``"tcp://HOST:PORT"`` (or
    ``tls://``): an existing Dask scheduler."""
    if scheduler is None or scheduler == "local":
        return LocalExecutor()
    if scheduler.startswith("local-cluster"):
        rest = scheduler[len("local-cluster"):]
        if rest:
            if not rest.startswith(":") or not rest[1:].isdigit() or int(rest[1:]) < 1:
                raise HeronSimError(f"--scheduler: {scheduler!r}; allowed: local, local-cluster[:N], tcp://HOST:PORT")
            workers = int(rest[1:])
        return DaskExecutor(None, workers=workers)
    if scheduler.startswith(("tcp://", "tls://")):
        hostport = scheduler.split("://", 1)[1]
        host, _, port = hostport.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise HeronSimError(f"--scheduler: {scheduler!r}; allowed: tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)")
        return DaskExecutor(scheduler, timeout=timeout)
    raise HeronSimError(f"--scheduler: {scheduler!r}; allowed: local, local-cluster[:N], tcp://HOST:PORT")


def play_games_job(job, executor, batch_games: int = DEFAULT_BATCH_GAMES):
    """The per-game frame of a ``games`` job of heron_sim.runner.run (games 0..n-1, seating r on
    the r-th contiguous share, as ``play_job`` plays it) with its batches run by ``executor``:
    the frame is identical to ``play_job``'s. The hook for ``run``/``plan``/``compare`` on a cluster:
    ``play_job`` may call this when given a non-local executor."""
    import pandas as pd

    from ..interrupt import Stopped
    from ..simulation import results_frame

    batches = split_games(job.rules, job.seatings, job.seed, job.n, batch_games=batch_games,
                          luck=bool(job.labels.get("luck", False)))
    try:
        rows = executor.map(play_rows, batches)  # arrays travel (checksummed), frames are built here
    except Stopped as err:
        # Ctrl-C / SIGTERM: keep the batches finished in a row from the first game; the job is
        # labelled interrupted and a resume plays it again.
        rows = []
        for r in getattr(err, "results", []):
            if r is None:
                break
            rows.append(r)
    parts = [results_frame(r, b.rules, b.seed, list(b.seating), b.first_game)
             for r, b in zip(rows, batches) if len(r)]
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    for col in [c for c in df.columns if c.startswith("strategy_")] + ["strategies", "winner_strategy"]:
        if col in df:
            df[col] = df[col].astype(str)
    played = sum(b.games for r, b in zip(rows, batches))
    df.attrs.update(requested=int(job.n), played=int(played), interrupted=played < job.n)
    return df


# ---------------------------------------------------------------- the executor of run/plan/compare
_CURRENT = None


def current():
    """The executor ``play_job`` sends ``games`` jobs to (None: play them in this process)."""
    return _CURRENT


def use_scheduler(scheduler: str | None) -> None:
    """``run``/``plan``/``compare --scheduler``: send the games jobs of this process to that
    executor (closed at exit). None or "local": this process, as before."""
    global _CURRENT
    import atexit

    if scheduler is None or scheduler == "local":
        return
    ex = get_executor(scheduler)
    _CURRENT = ex
    atexit.register(ex.close)
