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
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..errors import HeronSimError

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


def split_games(rules, seatings: Sequence[Sequence[str]], seed: int, games: int, *,
                first_game: int = 0, batch_games: int = DEFAULT_BATCH_GAMES,
                threads: int | None = None) -> list[Batch]:
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
            out.append(Batch(rules, seating, int(seed), first_game + start, n, threads))
    return out


def _set_threads(threads: int | None) -> int | None:
    """Set numba's thread count for this batch; returns the previous count (None: unchanged)."""
    if threads is None:
        return None
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    return old


def play_rows(batch: Batch) -> np.ndarray:
    """Play one batch and return the engine's raw output rows (int64[games, columns])."""
    from ..engine import layout as L
    from ..engine.batch import play_batch
    from ..engine.kernels import shared_kernel
    from ..engine.pack import pack_rules
    from ..strategies import parse_seating, seat_arrays

    rules = batch.rules
    seating = parse_seating(list(batch.seating), rules.players)
    sids, sp = seat_arrays(seating, rules)
    out = np.zeros((batch.games, L.n_columns(rules.finish)), dtype=np.int64)
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
class LocalExecutor:
    """Batches run one after the other in this process (numba spreads each over the cores)."""

    kind = "local"
    width = 1  # batches that run at the same time

    def map(self, fn: Callable, items: Iterable, progress: Callable[[Any], None] | None = None) -> list:
        out = []
        for item in items:
            out.append(fn(item))
            if progress is not None:
                progress(item)
        return out

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "this process"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _run_on_worker(fn, item):
    """Run ``fn(item)`` on a worker; an array result travels with its CRC-32, checked on arrival."""
    import zlib

    res = fn(item)
    crc = zlib.crc32(np.ascontiguousarray(res).view(np.uint8)) if isinstance(res, np.ndarray) else None
    return res, crc


def _check(res_crc):
    import zlib

    res, crc = res_crc
    if crc is not None and zlib.crc32(np.ascontiguousarray(res).view(np.uint8)) != crc:
        return None  # damaged on the way: the caller runs the batch again
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
        self.damaged = 0  # batch results whose CRC did not match on arrival (run again)
        if address is None:
            n = workers or max(1, min(os.cpu_count() or 1, 4))
            self.cluster = LocalCluster(host="127.0.0.1", n_workers=n, threads_per_worker=1,
                                        processes=True, dashboard_address=None)
            self.client = Client(self.cluster, timeout=f"{timeout}s")
        else:
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
        from distributed import as_completed

        items = list(items)
        if not items:
            return []
        futures = self.client.map(_run_on_worker, [fn] * len(items), items, pure=False,
                                  retries=self.retries)
        where = {f.key: i for i, f in enumerate(futures)}
        out: list = [None] * len(items)
        done = [False] * len(items)
        try:
            ac = as_completed(futures, with_results=True)
            for fut, res in ac:
                i = where[fut.key]
                if done[i]:  # never counted twice (as_completed yields each future once)
                    continue
                res = _check(res)
                if res is None:
                    self.damaged += 1
                    if self.damaged > 10:
                        raise HeronSimError("executor: batch results keep arriving damaged (CRC mismatch)")
                    again = self.client.submit(_run_on_worker, fn, items[i], pure=False, retries=self.retries)
                    where[again.key] = i
                    futures.append(again)
                    ac.add(again)
                    continue
                out[i], done[i] = res, True
                if progress is not None:
                    progress(items[i])
        except KeyboardInterrupt:
            self.client.cancel(futures)
            raise
        if not all(done):  # pragma: no cover - as_completed yields every future
            raise HeronSimError(f"executor: {done.count(False)} batches did not come back")
        return out

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()

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

    batches = split_games(job.rules, job.seatings, job.seed, job.n, batch_games=batch_games)
    parts = [f for f in executor.map(play_frame, batches) if len(f)]
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    for col in [c for c in df.columns if c.startswith("strategy_")] + ["strategies", "winner_strategy"]:
        if col in df:
            df[col] = df[col].astype(str)
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
