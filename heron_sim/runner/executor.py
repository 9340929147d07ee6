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

#: Games per batch (the unit of work sent to a worker and retried on failure).
DEFAULT_BATCH_GAMES = 5000


@dataclass(frozen=True)
class Batch:
    """Games ``first_game .. first_game + games - 1`` of one rules set and seating."""

    rules: Any                 # heron_sim.rules.Rules (picklable, immutable)
    seating: tuple[str, ...]   # strategy of each seat
    seed: int
    first_game: int
    games: int
    threads: int | None = None  # numba threads inside the worker (None: its default)
    #: the lab's streak metrics (heron_sim.lab.metrics.STREAK_METRICS): every game whose number is
    #: a multiple of this is also replayed turn by turn (0: none; the games' results are the same)
    streak_every: int = 0
    #: each seat's luck too (heron_sim.simulation.simulate's ``luck``: the same games, the luck's
    #: columns added; none with dice that differ)
    luck: bool = False


def split_games(rules, seatings: Sequence[Sequence[str]], seed: int, games: int, *,
                first_game: int = 0, batch_games: int = DEFAULT_BATCH_GAMES,
                threads: int | None = None, luck: bool = False) -> list[Batch]:
    """Batches covering games ``first_game .. first_game + games - 1`` exactly once.

    With several seatings (a rotation), seating ``r`` plays the ``r``-th contiguous share of the
    games, as :func:`heron_sim.runner.run.play_job` does; each share is cut into batches of at
    most ``batch_games`` games. The split changes only where games run, never their results.
    """
    if games < 0:
        raise HeronSimError(f"--games: {games}; allowed: >= 0")
    if batch_games < 1:
        raise HeronSimError(f"batch size: {batch_games}; allowed: >= 1")
    seatings = [tuple(s) for s in seatings] or [("greedy",) * rules.players]
    bounds = np.linspace(0, games, len(seatings) + 1).astype(int)
    out = []
    for r, seating in enumerate(seatings):
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        for start in range(lo, hi, batch_games):
            n = min(batch_games, hi - start)
            out.append(Batch(rules, seating, int(seed), first_game + start, n, threads, luck=luck))
    return out


def _set_threads(threads: int | None) -> int | None:
    """Set numba's thread count for this batch; returns the previous count (None: unchanged)."""
    if threads is None:
        return None
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    return old


#: The seats' arrays of the last few (seating, rules) played in this process: a study plays each
#: table of a candidate in several batches, and the array holds the expert's tables (megabytes
#: to copy a batch). The kernel only reads it.
_SEATS_KEPT = 4
_seats_memo: OrderedDict = OrderedDict()
_seats_lock = threading.Lock()


def _seats(seating, rules):
    """heron_sim.strategies.seat_arrays of a batch, or the same arrays kept from an earlier batch
    of the same seating and rules (:data:`_seats_memo`)."""
    from ..strategies import seat_arrays

    key = (tuple(seating), rules.digest())
    with _seats_lock:
        hit = _seats_memo.get(key)
        if hit is not None:
            _seats_memo.move_to_end(key)
            return hit
    arrays = seat_arrays(seating, rules)
    with _seats_lock:
        _seats_memo[key] = arrays
        while len(_seats_memo) > _SEATS_KEPT:
            _seats_memo.popitem(last=False)
    return arrays


def play_rows(batch: Batch) -> np.ndarray:
    """Play one batch and return the engine's raw output rows (int64[games, columns])."""
    from ..engine import layout as L
    from ..loop.batch import play_batch
    from ..loop.kernels import shared_kernel
    from ..engine.pack import pack_rules
    from ..strategies import parse_seating

    rules = batch.rules
    seating = parse_seating(list(batch.seating), rules.players)
    sids, sp = _seats(seating, rules)
    width = L.n_columns(rules.finish)
    if batch.luck:
        from ..simulation import _with_luck_row

        sp, width = _with_luck_row(rules, sp, True)
    out = np.zeros((batch.games, width), dtype=np.int64)
    old = _set_threads(batch.threads)
    try:
        if batch.games:
            with shared_kernel():  # one kernel for every seating of a run (same results)
                play_batch(np.uint64(batch.seed), batch.first_game, pack_rules(rules), sids, sp, out)
    finally:
        if old is not None:
            _set_threads(old)
    return out


def play_frame(batch: Batch):
    """Play one batch and return its per-game frame (heron_sim.simulation.results_frame)."""
    from ..simulation import results_frame

    rows = play_rows(batch)
    return results_frame(rows, batch.rules, batch.seed, list(batch.seating), batch.first_game)


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

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "this process"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _quiet_cluster(LocalCluster, n: int):
    """An embedded cluster whose worker processes ignore SIGINT: a terminal's Ctrl-C reaches
    the whole process group, and it is this process that stops the run (and closes the
    workers); workers that died of it would print tracebacks and leave the run hanging."""
    import logging
    import signal
    import threading

    main = threading.current_thread() is threading.main_thread()
    old = signal.getsignal(signal.SIGINT) if main else None
    if main:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by the spawned workers
    try:
        # dashboard_address=None alone still serves the scheduler's HTTP routes on port 8787:
        # no dashboard, and the remaining routes (health, metrics) on a free loopback port.
        # silence_logs: Dask's own log lines (a worker's heartbeat traceback on a loaded machine,
        # its shutdown) are not ours to print; what goes wrong is said in one line by the executor.
        return LocalCluster(host="127.0.0.1", n_workers=n, threads_per_worker=1, processes=True,
                            dashboard_address=None, silence_logs=logging.CRITICAL,
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
    import zlib

    if isinstance(res, np.ndarray):
        return zlib.crc32(np.ascontiguousarray(res).view(np.uint8))
    if isinstance(res, (tuple, list)) and all(isinstance(x, np.ndarray) for x in res):
        crc = 0
        for x in res:
            crc = zlib.crc32(np.ascontiguousarray(x).view(np.uint8), crc)
        return crc
    raise HeronSimError(f"executor: a batch returned {type(res).__name__}; only arrays travel "
                        "(checksummed) between the cluster and this process")


def _check(res_crc):
    if not isinstance(res_crc, tuple) or len(res_crc) != 2:
        return None  # not what a worker sends: treat as damaged, run the batch again
    res, crc = res_crc
    try:
        if _crc(res) != crc:
            return None  # damaged on the way: the caller runs the batch again
    except HeronSimError:
        return None
    return res


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
            self.cluster = _quiet_cluster(LocalCluster, n)
            self.client = Client(self.cluster, timeout=f"{timeout}s")
        else:
            from .dask_probe import probe

            probe(address, timeout)  # a port that does not speak Dask is refused in `timeout` s
            try:
                self.client = Client(address, timeout=f"{timeout}s")
            except (OSError, TimeoutError, ValueError) as err:
                raise HeronSimError(f"--scheduler: cannot reach {address}: {err}") from None
        self.address = address or self.cluster.scheduler_address

    @property
    def width(self) -> int:
        try:
            return max(1, sum(w["nthreads"] for w in self.client.scheduler_info()["workers"].values()))
        except Exception:  # noqa: BLE001 - informative only
            return 1

    def map(self, fn: Callable, items: Iterable, progress: Callable[[Any], None] | None = None) -> list:
        """``fn`` of each item on the cluster, in the order given. The stop flag is read every
        ``poll`` seconds: a stop cancels the batches still running and raises
        :class:`~heron_sim.interrupt.Stopped`; a lost scheduler or cluster raises
        :class:`ClusterLost` (one line); both carry ``results`` (the batches that came back)."""
        from distributed import wait

        items = list(items)
        if not items:
            return []
        out: list = [None] * len(items)
        done = [False] * len(items)
        try:
            futures = self.client.map(_run_on_worker, [fn] * len(items), items, pure=False,
                                      retries=self.retries)
        except Exception as err:  # noqa: BLE001 - the client is closed or the scheduler gone
            raise self._lost(err, out) from None
        owner = {f.key: i for i, f in enumerate(futures)}
        pending = set(futures)
        try:
            while pending:
                _stop_if_requested(out)
                try:
                    finished, pending = wait(pending, timeout=self.poll, return_when="FIRST_COMPLETED")
                except TimeoutError:
                    continue
                except Exception as err:  # noqa: BLE001 - connection closed, scheduler gone
                    raise self._lost(err, out) from None
                for fut in finished:
                    i = owner[fut.key]
                    if done[i]:  # never counted twice
                        continue
                    if fut.status == "error":
                        exc = fut.exception()
                        if isinstance(exc, HeronSimError):
                            raise HeronSimError(str(exc)) from None
                        raise HeronSimError(f"executor: a batch failed on the cluster "
                                            f"({type(exc).__name__}: {exc})") from None
                    res = None
                    if fut.status != "finished":  # lost (or cancelled) with a worker or the scheduler
                        if self.client.status != "running":
                            raise self._lost(None, out)
                        self.refetched += 1  # a worker died holding it; the scheduler is there
                    else:
                        try:
                            res = _check(fut.result(timeout=self.timeout))
                            if res is None:
                                self.damaged += 1
                        except Exception as err:  # noqa: BLE001
                            if self.client.status != "running":
                                raise self._lost(err, out) from None
                            # finished, then its worker died before the result was fetched
                            # (Dask: "Couldn't gather keys"): the scheduler is there, run it again
                            self.refetched += 1
                    if res is None:
                        if self.damaged + self.refetched > 10:
                            raise HeronSimError("executor: batch results keep arriving damaged or lost "
                                                f"({self.damaged} CRC mismatches, {self.refetched} lost results)")
                        again = self.client.submit(_run_on_worker, fn, items[i], pure=False, retries=self.retries)
                        owner[again.key] = i
                        futures.append(again)
                        pending.add(again)
                        continue
                    out[i], done[i] = res, True
                    if progress is not None:
                        progress(items[i])
        except BaseException:
            self._cancel(futures)
            raise
        return out

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
