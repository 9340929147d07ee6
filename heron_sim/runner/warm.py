"""Compile a plan's kernels ahead, several at once, before its first job.

A fresh machine compiles, once, every kernel a plan uses: the Héron engine for greedy alone,
the engine shared by every other seating (heron_sim.engine.kernels) and each lighter game's
engine. One after the other, that is two minutes on two cores; numba compiles in one thread,
so each compilation here gets its own process (a tiny version of one of the plan's jobs, so
that exactly the run's code is compiled), up to one per core, and the plan's process then
loads them from the disk cache. Nothing is simulated that counts: the warm-up's games are
thrown away.

Skipped when every kernel is already compiled, when fewer than two are missing (nothing to
overlap), when the cache folder cannot be written (nothing would be kept), or when the jobs go
to a Dask cluster (its workers compile for themselves). A warm-up that fails or is interrupted
only costs time: the plan compiles whatever is missing itself.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor, wait

from .. import _numba_cache as cache

#: Rough first-compile seconds of each group on two cores (for the ordering and the message).
_SECONDS = {"greedy": 18, "shared": 50, "game": 20}


def _group(job) -> tuple[str, str] | None:
    """Which kernel group a job compiles: ("heron", "greedy" | "shared") or ("game", name)."""
    from ..engine.kernels import SHARED, kernel_key, shared_kernel
    from ..strategies import REGISTRY

    if job.kind == "light":
        return ("game", str(job.labels["game"]))
    with shared_kernel():
        if job.kind == "turns":
            names = [[job.strategy]]
        elif job.kind == "games":
            names = job.seatings
        else:
            return None
        try:
            keys = {kernel_key([REGISTRY[s].sid for s in seating]) for seating in names}
        except (KeyError, ValueError):
            return None
    if len(keys) != 1:
        return None
    return ("heron", "shared" if keys.pop() == SHARED else "greedy")


def _small(job):
    """The job cut down to a few games (every seating still played once) or turns."""
    if job.kind == "turns":
        return dataclasses.replace(job, n=64)
    return dataclasses.replace(job, n=max(len(job.seatings), 2))


def _cold(group: tuple[str, str]) -> bool:
    """Whether a group still has to be compiled on this machine."""
    kind, name = group
    if kind == "heron":
        folder = cache.component_folder("engine") / "kernels" / ("shared" if name == "shared" else "s0")
        return not all((folder / f"{entry}.compiled").exists() for entry in ("play_batch", "play_turns"))
    folder = cache.component_folder(f"game-{name.replace('-', '_')}")  # the game's package
    return not (folder.is_dir() and any(folder.rglob("*.nbi")))


def warm_groups(jobs) -> dict[tuple[str, str], list]:
    """The cold kernel groups of ``jobs``, each with the small jobs that compile it."""
    groups: dict[tuple[str, str], list] = {}
    seen: dict[tuple[str, str], set] = {}
    for job in jobs:
        group = _group(job)
        if group is None or not _cold(group):
            continue
        kinds = seen.setdefault(group, set())
        if job.kind not in kinds:  # one games job and one turns job per group are enough
            kinds.add(job.kind)
            groups.setdefault(group, []).append(_small(job))
    return groups


def _worker_init() -> None:
    """Workers leave Ctrl-C to the plan's process, which stops them (no traceback from them)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool) -> None:
    """End the workers now (a compilation cut short writes nothing: cache files are renamed
    into place whole)."""
    if pool is None:
        return
    for proc in list(getattr(pool, "_processes", {}).values()):
        proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _compile(jobs) -> float:
    """In a worker process: play the small jobs (their results are thrown away)."""
    from .play import play_job

    os.environ["HERON_SIM_COMPILE_NOTE"] = "0"
    t0 = time.perf_counter()
    for job in jobs:
        play_job(job)
    return time.perf_counter() - t0


def compile_ahead(jobs, log=None, workers: int | None = None) -> int:
    """Compile the cold kernels of ``jobs`` in parallel worker processes (see the module's
    doc). Returns the number of groups compiled ahead (0 when skipped)."""
    from ..interrupt import stop_requested
    from .executor import current

    if current() is not None or not cache.writable():
        return 0
    groups = warm_groups(jobs)
    workers = workers or min(os.cpu_count() or 1, len(groups))
    if len(groups) < 2 or workers < 2:
        return 0
    order = sorted(groups, key=lambda g: -_SECONDS.get(g[1] if g[0] == "heron" else "game", 20))
    label = {"greedy": "the engine for greedy", "shared": "the engine for mixed strategies"}
    names = ", ".join(label[n] if k == "heron" else n for k, n in order)
    if log is not None:
        log(f"compiling {len(order)} kernels ahead in {workers} processes, once per machine: {names}")
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    pool = None
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
        pending = {pool.submit(_compile, groups[g]) for g in order}
        futures = list(pending)
        while pending:
            _, pending = wait(pending, timeout=0.25)
            if stop_requested():  # Ctrl-C / SIGTERM: the plan stops before its first job
                _stop(pool)
                return 0
        failed = sum(f.exception() is not None for f in futures)
    except KeyboardInterrupt:  # outside the command line (no handler): stop the workers too
        _stop(pool)
        raise
    except (OSError, RuntimeError):
        _stop(pool)
        return 0
    pool.shutdown()
    if log is not None:
        note = f" ({failed} left to the plan)" if failed else ""
        log(f"kernels compiled in {time.perf_counter() - t0:.0f} s{note}")
    return len(order) - failed


__all__ = ["compile_ahead", "warm_groups"]
