"""Compile a plan's kernels ahead, several at once, before its first job.

A fresh machine compiles, once, every kernel a plan uses: the Héron engine for greedy alone,
the engine shared by every other seating (heron_sim.loop.kernels) and each lighter game's
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
    from ..loop.kernels import SHARED, kernel_key, shared_kernel
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


#: Rough first-compile seconds of the kernels of a single strategy (for the order of the work).
_KERNEL_SECONDS = {"shared": 60, "greedy": 25, "game": 20, "single": 35, "turns": 12}


def _warm_task(kind: str, name: str) -> float:
    """In a worker process: compile one kernel by playing a few games (thrown away).
    ``kind``: "batch" (the games kernel of strategy ``name`` alone, or ``"shared"``), "turns"
    (the single-turn kernel of ``name``, or of the shared kernel's prudent) or "game" (a
    lighter game)."""
    from ..loop.kernels import shared_kernel
    from ..simulation import simulate, simulate_turns

    os.environ["HERON_SIM_COMPILE_NOTE"] = "0"
    t0 = time.perf_counter()
    if kind == "game":
        from ..games import get
        from .jobs import Job
        from .play import play_job

        game = get(name)
        best = "greedy" if "greedy" in game.strategies else game.strategies[0]
        play_job(Job(f"warm_{name}", "light", game.load_rules(None, {}), 4, 1, [[best] * game.min_players],
                     labels={"game": name, "title": game.title, "players": game.min_players}))
        return time.perf_counter() - t0
    from ..rules import Rules

    rules = Rules.build(mode="8d8", players=4)
    if name == "shared":
        with shared_kernel():
            if kind == "batch":
                simulate(rules, 4, 1, ["expert", "racer", "prudent", "random"])
            else:
                simulate_turns(rules, 64, 1, "prudent")
    elif kind == "batch":
        simulate(rules, 4, 1, [name] * 4)
    else:
        simulate_turns(rules, 64, 1, name)
    return time.perf_counter() - t0


def machine_tasks() -> list[tuple[str, str]]:
    """Every kernel a new machine compiles for the package's commands and tests, as
    ``(kind, name)`` tasks of :func:`_warm_task`, longest first: the Héron engine's games and
    single-turn kernels for each strategy alone and for the shared set (the expert's tables
    for 8d8 with it), and each lighter game. The scripted strategy (tests only) is left to its
    tests."""
    from ..games import available
    from ..strategies import REGISTRY

    by_sid: dict[int, str] = {}
    for name, info in REGISTRY.items():  # one per kernel: the rungs of a family share its kernel
        by_sid.setdefault(info.sid, name)
    names = [n for n in by_sid.values() if n != "scripted"]
    tasks = [("batch", "shared"), ("turns", "shared")]
    tasks += [("batch", n) for n in names] + [("turns", n) for n in names]
    tasks += [("game", g) for g in available()]

    def cost(task):
        kind, name = task
        if kind == "game":
            return _KERNEL_SECONDS["game"]
        if kind == "turns":
            return _KERNEL_SECONDS["turns"]
        return _KERNEL_SECONDS.get(name, _KERNEL_SECONDS["single"])

    from ..loop.kernels import SHARED, kernel_key

    def kernel_of(task):  # under HERON_SIM_SHARED_KERNEL=1 a single strategy is the shared kernel
        kind, name = task
        if kind == "game":
            return task
        return kind, (SHARED if name == "shared" else kernel_key([REGISTRY[name].sid]))

    seen, out = set(), []
    for task in sorted(tasks, key=lambda t: -cost(t)):
        if kernel_of(task) not in seen:
            seen.add(kernel_of(task))
            out.append(task)
    return out


def compile_machine(log=None, workers: int | None = None) -> int:
    """Compile every kernel of :func:`machine_tasks` that is still cold, in one process per
    core (the test suite's warm-up on a new machine, ``tests/conftest.py``). Returns the
    number of kernels compiled (0 when the cache is warm, not writable, or one core only).
    A task that fails only leaves its kernel to be compiled where it is used."""
    from ..loop.kernels import _marker, kernel_key
    from ..strategies import REGISTRY

    if not cache.writable():
        return 0

    def cold(task) -> bool:
        kind, name = task
        if kind == "game":
            return _cold(("game", name))
        entry = "play_batch" if kind == "batch" else "play_turns"
        key = ("shared",) if name == "shared" else kernel_key([REGISTRY[name].sid])
        return not _marker(key, entry).exists()

    tasks = [t for t in machine_tasks() if cold(t)]
    workers = workers or min(os.cpu_count() or 1, len(tasks))
    if len(tasks) < 2 or workers < 2:
        return 0
    if log is not None:
        log(f"compiling {len(tasks)} kernels ahead in {workers} processes, once per machine")
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    pool = None
    try:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init)
        futures = [pool.submit(_warm_task, *t) for t in tasks]
        wait(futures)
        failed = sum(f.exception() is not None for f in futures)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown()
    if log is not None:
        note = f" ({failed} left to where they are used)" if failed else ""
        log(f"kernels compiled in {time.perf_counter() - t0:.0f} s{note}")
    return len(tasks) - failed


__all__ = ["compile_ahead", "compile_machine", "machine_tasks", "warm_groups"]
