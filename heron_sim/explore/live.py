"""The games behind the page: one job per change, played chunk by chunk on one worker thread.

A :class:`CompareJob` plays the base rules and the variant on the same games (game ``i`` draws
from the stream ``(seed, i)`` under both rule sets), ``games`` per side, the seatings rotated as
``heron-sim compare`` rotates them: seating ``r`` plays the ``r``-th contiguous share of the
games. The shares are played side by side, a few games of each per chunk, so every update
stands on an equal number of games of every seating, and the last one stands on exactly the
games of the equivalent ``heron-sim compare --games N`` command. The first chunk is small (a first
estimate within a fraction of a second); later chunks are sized to take about a quarter of a
second, so that a new change never waits long for the old games to stop.

The games a job plays are kept (:data:`PLAYED`, a :class:`PlayedGames`): after a change of the
variant the base's games, the same rules, seating, seed and game numbers, are read back instead
of played again (the same numbers, bit for bit), so a change costs the variant's games only.

A :class:`PanelJob` plays the base and the variant over the lab's default panel of scenarios
(heron_sim.runner.panel.DEFAULT_PANEL) and ranks the scenarios.

The :class:`Engine` owns the jobs: one worker thread plays a chunk of one job at a time, going
round the running jobs (two tabs share the machine); a tab's new job cancels its old one; a job
nobody listens to any more (its tab was closed) is cancelled; :meth:`Engine.close` stops it all.
The engine's kernels spread each chunk over numba's threads (heron_sim.loop.batch).

Memory is bounded by design, whatever the number of tabs (every page load is a new tab id):

- at most :data:`MAX_RUNNING` jobs run at once; one more is refused (:class:`Busy`, a 503 answer
  with its message) until one ends (a tab's new change replaces its own job, never refused);
- a finished job (done, cancelled, failed) lets go of its games' sums and kernel arrays at once
  and keeps only its last figures (a few kilobytes, for the rule sheet's evidence);
- a tab is forgotten when its stream is closed before the end (the tab was closed), when it asks
  to stop (:meth:`Engine.forget_tab`), after :data:`IDLE_SECONDS` without a request or a
  listener, and, the least recently used first, beyond :data:`MAX_TABS` tabs;
- the kept games (:data:`PLAYED`) are at most :data:`KEPT_BYTES` in all tabs together, the
  least recently used first, and a run unused for :data:`IDLE_SECONDS` is dropped;
- the kernel arrays (the expert's tables, tens of megabytes a seating) are shared by the jobs
  and kept at most :data:`SEATED_BYTES` between chunks (:data:`ARRAYS`), dropped when no tab is
  left.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .stats import PairedSums, figures, game_columns, histogram_of_bins, length_bins, length_histogram

#: Games per side of the first chunk (the first estimate).
FIRST_CHUNK = 512
#: Games per side of the later chunks at least (fewer, larger batches for the engine).
MIN_CHUNK = 2048
#: Target seconds of one chunk (how long a new change may wait for the old games to stop).
CHUNK_SECONDS = 0.3
MAX_CHUNK = 50_000
#: Seconds between two published updates at least, and at most this share of the time spent
#: on updates (the bootstrap of every figure): more games, fewer updates on a slow machine.
UPDATE_SECONDS = 0.25
UPDATE_SHARE = 0.15
#: A job nobody has listened to for this long is cancelled (its tab is gone).
ORPHAN_SECONDS = 8.0
#: Games per side of each panel scenario.
PANEL_GAMES = 4000
#: Jobs running at once at most (all tabs together); one more is a busy answer.
MAX_RUNNING = 4
#: Tabs whose last job (its figures) is kept at most; beyond, the least recently used is forgotten.
MAX_TABS = 64
#: A tab without a request or a listener for this long is forgotten, and a run of kept games
#: unused for this long is dropped.
IDLE_SECONDS = 600.0
#: The kept games' bytes at most, all tabs together (the least recently used go first).
KEPT_BYTES = 100 * 2**20
#: The kernel arrays' bytes kept at most between chunks, all jobs together (an AI-mix table of
#: four holds about 40 MB a seating and rules: one change of the rules, both sides, is ~320 MB).
SEATED_BYTES = 512 * 2**20
#: What each figure of :meth:`Engine.status` counts (``GET /api/status`` shows it as ``about``;
#: a figure with a limit has it under the same name in ``limits``).
STATUS_ABOUT = {
    "kept_games": "games kept to be read back after a change, all tabs together",
    "kept_game_bytes": "bytes of the kept games; at most limits.kept_game_bytes",
    "kernel_bytes": "bytes of the kernel arrays (the seats' parameters, the expert's tables), each once; "
                    "at most limits.kernel_bytes kept between chunks, more while a chunk plays",
    "job_bytes": "bytes of the running jobs' sums (at most limits.running jobs run)",
    "kept_bytes": "every byte held for the tabs: kept_game_bytes + kernel_bytes + job_bytes "
                  "(no limit of its own)",
}


def _nbytes(arrays) -> int:
    """The bytes of some arrays (anything without ``nbytes`` counts nothing)."""
    return sum(getattr(a, "nbytes", 0) for a in arrays)


class Busy(Exception):
    """Too many jobs running: the request is refused (503) with this message, nothing started."""


class Job:
    """What every job shares: identity, state, the published snapshot and its version."""

    kind = "job"
    _ids = itertools.count(1)

    def __init__(self, tab: str):
        self.id = f"j{next(self._ids)}"
        self.tab = tab
        self.state = "running"      # running | done | cancelled | error
        self.error: str | None = None
        self.version = 0
        self.snapshot: dict = {}
        self.created = time.monotonic()
        self.started: float | None = None
        self.first_update_s: float | None = None
        self.listeners = 0
        self.last_seen = time.monotonic()
        self.lock = threading.Lock()

    @property
    def finished(self) -> bool:
        return self.state != "running"

    def cancel(self) -> None:
        if self.state == "running":
            self.state = "cancelled"
            self._publish({})

    def _publish(self, doc: dict) -> None:
        with self.lock:
            self.snapshot = {"job": self.id, "kind": self.kind, "state": self.state, "error": self.error,
                             **self.snapshot_extra(), **doc}
            self.version += 1

    def snapshot_extra(self) -> dict:
        return {}

    def step(self) -> None:  # pragma: no cover - every job defines it
        raise NotImplementedError

    def release(self) -> None:
        """Let go of what only a running job needs (called by the worker once it is finished)."""

    def arrays(self) -> list:
        """The arrays this job holds (its games' sums, the kernel arrays of the chunk playing)."""
        return self.sum_arrays() + self.kernel_arrays()

    def sum_arrays(self) -> list:
        """The sums of its games (a running job's)."""
        return []

    def kernel_arrays(self) -> list:
        """The kernel arrays the chunk playing pins (most of them kept by :data:`ARRAYS` too)."""
        return []


class KernelArrays:
    """The kernel's arrays of the (rules, seating) pairs played last, shared by every job (two
    tabs of the same rules share them): at most :data:`SEATED_BYTES` in all, the least recently
    used dropped first. Thread-safe."""

    def __init__(self):
        self._entries: dict = {}  # (rules, seating) -> (R, sids, sp), the least recently used first
        self._lock = threading.Lock()

    @staticmethod
    def _bytes(entry) -> int:
        return _nbytes(entry)

    def get(self, key):
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is not None:
                self._entries[key] = entry
            return entry

    def put(self, key, entry) -> None:
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = entry
            size = sum(self._bytes(e) for e in self._entries.values())
            while self._entries and size > SEATED_BYTES:
                size -= self._bytes(self._entries.pop(next(iter(self._entries))))

    def nbytes(self) -> int:
        with self._lock:
            return sum(self._bytes(e) for e in self._entries.values())

    def entries(self) -> list:
        with self._lock:
            return list(self._entries.values())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


#: The kernel arrays of every job of this process (see :class:`KernelArrays`).
ARRAYS = KernelArrays()


class Seated:
    """The kernel's arrays of each (rules, seating) a job plays: the seats' parameter rows hold
    the expert's tables (tens of megabytes a seating), too costly to rebuild every chunk, so they
    come from :data:`ARRAYS` (shared, capped); the ones a chunk uses are pinned here until
    :meth:`unpin` (the chunk is played). :meth:`play` fills the same rows as
    heron_sim.runner.executor.play_rows."""

    def __init__(self):
        self._cache: dict = {}

    def nbytes(self) -> int:
        return _nbytes(a for entry in list(self._cache.values()) for a in entry)

    def unpin(self) -> None:
        self._cache.clear()

    def arrays(self, rules, seating):
        from ..engine.pack import pack_rules
        from ..strategies import parse_seating, seat_arrays

        key = (rules, tuple(seating))
        if key not in self._cache:
            entry = ARRAYS.get(key)
            if entry is None:
                from ..engine import layout as L
                from ..loop.batch import play_batch
                from ..loop.kernels import shared_kernel

                sids, sp = seat_arrays(parse_seating(list(seating), rules.players), rules)
                R = pack_rules(rules)
                with shared_kernel():  # load the kernel here (its first import is not thread-safe)
                    play_batch(np.uint64(0), 0, R, sids, sp, np.zeros((0, L.n_columns(rules.finish)), dtype=np.int64))
                entry = (R, sids, sp)
                ARRAYS.put(key, entry)
            self._cache[key] = entry
        return self._cache[key]

    def play(self, rules, seating, seed, lo, n, store: PlayedGames | None = None):
        """Games ``lo .. lo + n - 1``: (per-game columns, length histogram); read from ``store``
        where it holds them all, else played (and kept there)."""
        from ..engine import layout as L
        from ..loop.batch import play_batch
        from ..loop.kernels import shared_kernel

        key = PlayedGames.key(rules, seating, seed)
        if store is not None:
            got = store.get(key, int(lo), int(n))
            if got is not None:
                return got
        R, sids, sp = self.arrays(rules, seating)
        rows = np.zeros((int(n), L.n_columns(rules.finish)), dtype=np.int64)
        if n:
            with shared_kernel():
                play_batch(np.uint64(seed), int(lo), R, sids, sp, rows)
        X = game_columns(rows, rules)
        if store is not None and n:
            store.put(key, int(lo), X, length_bins(rows))
        return X, length_histogram(rows)


class PlayedGames:
    """The per-game columns of games already played, kept for the next job: a designer changes
    the variant, not the base, so the base's games (the same rules, seating, seed and game
    numbers: the same results, bit for bit) are read back instead of played again. One
    contiguous run of games per (rules, seating, seed), at most ``max_games`` of it; the runs
    used last are kept, ``total_bytes`` at most in all (and ``total_games`` games, if given),
    the least recently used dropped first; :meth:`expire` drops the runs unused for a while.
    Thread-safe."""

    def __init__(self, max_games: int = 200_000, total_games: int | None = None,
                 total_bytes: int | None = None):
        self.max_games = max_games
        self.total_games = total_games
        self._total_bytes = total_bytes  # None: KEPT_BYTES, read when trimming
        # key -> [first game, X (int32[games, K2]), lengths (int16[games]), last used (monotonic)]
        self._runs: dict = {}
        self._lock = threading.Lock()

    @staticmethod
    def key(rules, seating, seed):
        return (rules, tuple(seating), int(seed))

    def get(self, key, lo: int, n: int):
        """(X, length histogram) of games ``lo .. lo + n - 1``, or None if not all are kept."""
        with self._lock:
            run = self._runs.get(key)
            if run is None or lo < run[0] or lo + n > run[0] + run[1].shape[0]:
                return None
            self._runs[key] = self._runs.pop(key)  # used last
            run[3] = time.monotonic()
            a = lo - run[0]
            X, lens = run[1][a : a + n], run[2][a : a + n]
        return X, histogram_of_bins(lens)

    def put(self, key, lo: int, X: np.ndarray, lens: np.ndarray) -> None:
        """Keep games ``lo ..`` when they start a run or extend the kept one."""
        with self._lock:
            run = self._runs.get(key)
            if run is not None and lo == run[0] + run[1].shape[0]:
                if run[1].shape[0] + X.shape[0] <= self.max_games:
                    run[1] = np.concatenate([run[1], X])
                    run[2] = np.concatenate([run[2], lens])
                run[3] = time.monotonic()
                self._runs[key] = self._runs.pop(key)
                self._trim()
                return
            if run is not None and run[0] <= lo < run[0] + run[1].shape[0]:
                return  # already kept
            self._runs.pop(key, None)
            self._runs[key] = [lo, X[: self.max_games].copy(), lens[: self.max_games].copy(), time.monotonic()]
            self._trim()

    @property
    def total_bytes(self) -> int:
        return KEPT_BYTES if self._total_bytes is None else self._total_bytes

    @staticmethod
    def _bytes(run) -> int:
        return run[1].nbytes + run[2].nbytes

    def _trim(self) -> None:
        games = sum(run[1].shape[0] for run in self._runs.values())
        size = sum(self._bytes(run) for run in self._runs.values())
        cap = self.total_bytes
        while self._runs and (size > cap or
                              (self.total_games is not None and games > self.total_games)):
            run = self._runs.pop(next(iter(self._runs)))  # the one used longest ago
            games -= run[1].shape[0]
            size -= self._bytes(run)

    def expire(self, idle_seconds: float) -> int:
        """Drop the runs unused for ``idle_seconds``; returns how many."""
        now = time.monotonic()
        with self._lock:
            old = [k for k, run in self._runs.items() if now - run[3] > idle_seconds]
            for k in old:
                del self._runs[k]
        return len(old)

    def games(self) -> int:
        with self._lock:
            return sum(run[1].shape[0] for run in self._runs.values())

    def nbytes(self) -> int:
        with self._lock:
            return sum(self._bytes(run) for run in self._runs.values())

    def clear(self) -> None:
        with self._lock:
            self._runs.clear()


#: The games every job of this process has played (the base of the next change among them).
PLAYED = PlayedGames()

_pool: ThreadPoolExecutor | None = None


def _single_thread() -> None:
    import numba

    numba.set_num_threads(1)  # thread-local: each pool thread plays its batch alone


def play_all(seated: Seated, seed: int, tasks: list, store: PlayedGames | None = None,
             played: list | None = None) -> list:
    """Play batches ``(side, rules, seating, first game, games)`` at once, one per core: the
    kernels release the GIL, and a chunk's batches (one per seating and side) are too small for
    the engine to split them over the cores itself. Batches ``store`` holds are read from it,
    the others played and kept there (their indices appended to ``played`` when given).
    Results in the order of ``tasks``."""
    global _pool
    import numba

    results: list = [None] * len(tasks)
    todo = []
    for k, t in enumerate(tasks):
        got = None if store is None else store.get(PlayedGames.key(t[1], t[2], seed), t[3], t[4])
        if got is None:
            seated.arrays(t[1], t[2])  # prepared here, once, not in the pool
            todo.append(k)
        else:
            results[k] = got
    if played is not None:
        played.extend(todo)
    if todo:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=numba.config.NUMBA_NUM_THREADS, initializer=_single_thread,
                                       thread_name_prefix="explore-play")
        played = _pool.map(lambda k: seated.play(tasks[k][1], tasks[k][2], seed, tasks[k][3], tasks[k][4], store),
                           todo)
        for k, r in zip(todo, played):
            results[k] = r
    return results


class CompareJob(Job):
    """The base and the variant of a :class:`~heron_sim.explore.form.Setup`, paired by game."""

    kind = "compare"

    def __init__(self, tab: str, setup):
        super().__init__(tab)
        self.setup = setup
        R = len(setup.seatings)
        bounds = np.linspace(0, setup.games, R + 1).astype(int)
        self.shares = [[int(bounds[r]), int(bounds[r]), int(bounds[r + 1])] for r in range(R)]  # lo, next, hi
        self.acc = PairedSums(2)
        self.seated = Seated()
        self.store = PLAYED  # the base's games of an earlier change are read back
        self.played = 0
        self.rate = None           # games per second per side, measured
        self.last_update = 0.0
        self.update_cost = 0.0
        self.elapsed = 0.0

    def snapshot_extra(self) -> dict:
        return {"target": self.setup.games, "played": self.played, "elapsed": round(self.elapsed, 3),
                "first_update_s": self.first_update_s}

    def release(self) -> None:
        self.acc = None
        self.seated = None

    def sum_arrays(self) -> list:
        acc = self.acc
        return [acc.blocks, acc.hist] if acc is not None else []

    def kernel_arrays(self) -> list:
        seated = self.seated
        return [a for entry in list(seated._cache.values()) for a in entry] if seated is not None else []

    def _chunk(self) -> int:
        if self.rate is None:
            return FIRST_CHUNK
        return int(min(MAX_CHUNK, max(MIN_CHUNK, self.rate * CHUNK_SECONDS)))

    def step(self) -> None:
        if self.started is None:
            self.started = time.monotonic()
        s = self.setup
        per_share = max(1, -(-self._chunk() // len(self.shares)))
        t0 = time.perf_counter()
        tasks = []
        for r, share in enumerate(self.shares):
            lo = share[1]
            m = min(per_share, share[2] - lo)
            if m <= 0:
                continue
            for side, rules in enumerate((s.base, s.variant) if s.changed else (s.base,)):
                tasks.append((side, rules, s.seatings[r], lo, m))
            share[1] = lo + m
        if self.state != "running":
            return
        fresh: list = []
        try:
            results = play_all(self.seated, s.seed, tasks, self.store, played=fresh)
        finally:
            self.seated.unpin()  # between chunks the arrays are held by ARRAYS only (capped)
        if self.state != "running":
            return  # cancelled while the chunk played: nothing more is published
        n = 0
        for (side, _, _, lo, m), (X, h) in zip(tasks, results):
            self.acc.add(side, lo, X, h)
            if not s.changed:
                self.acc.add(1, lo, X, h)
            if side == 0:
                n += m
        dt = time.perf_counter() - t0
        self.played += n
        # the rate counts the games played, not those read back (a chunk read back in a
        # millisecond would size the next one at MAX_CHUNK: seconds that the next edit would
        # wait for), as games per side with both sides played (the next chunk may find nothing kept)
        games_played = sum(tasks[k][4] for k in fresh)
        if games_played and dt > 0:
            r = games_played / dt / (2 if s.changed else 1)
            self.rate = r if self.rate is None else 0.5 * self.rate + 0.5 * r
        done = all(sh[1] >= sh[2] for sh in self.shares)
        now = time.monotonic()
        self.elapsed = now - self.started
        if done:
            self.state = "done"
        wait = max(UPDATE_SECONDS, self.update_cost / UPDATE_SHARE)
        if done or now - self.last_update >= wait or self.version == 0:
            self.last_update = now
            t1 = time.perf_counter()
            doc = figures(self.acc, s.players, changed=s.changed)
            self.update_cost = time.perf_counter() - t1
            if self.first_update_s is None:
                self.first_update_s = round(now - self.started, 3)
            self._publish(doc)


def _scenario_rules(setup, scenario):
    from ..rules import Rules

    mode = scenario.mode or setup.mode
    base = Rules.build(mode=mode, players=scenario.players)
    variant = Rules.build(mode=mode, players=scenario.players, overrides=setup.overrides)
    return base, variant


#: What the panel ranks scenarios by: (label, figure key, worst = "max" | "min" | "abs").
PANEL_RANKS = {
    "guide_spread": ("largest guide spread under the variant", "guide_spread", "max"),
    "first_player_advantage": ("largest first-player advantage (either way) under the variant",
                               "first_player_advantage", "abs"),
    "seat_balance": ("lowest seat balance under the variant", "seat_balance", "min"),
    "length": ("largest change of length", "length", "absrel"),
}
PANEL_FIGURES = ("length", "guide_spread", "first_player_advantage", "seat_balance", "dead_turn_rate")


class PanelJob(Job):
    """The variant against the base over every scenario of the lab's default panel."""

    kind = "panel"

    def __init__(self, tab: str, setup, rank: str = "guide_spread", games: int | None = None):
        from ..runner.panel import DEFAULT_PANEL

        super().__init__(tab)
        self.setup = setup
        self.rank = rank if rank in PANEL_RANKS else "guide_spread"
        self.games = games or PANEL_GAMES
        self.scenarios = list(DEFAULT_PANEL)
        self.results: list[dict] = []
        self.next = 0

    def snapshot_extra(self) -> dict:
        return {"target": len(self.scenarios), "played": len(self.results), "rank": self.rank,
                "rank_label": PANEL_RANKS[self.rank][0]}

    def step(self) -> None:
        if self.started is None:
            self.started = time.monotonic()
        sc = self.scenarios[self.next]
        base, variant = _scenario_rules(self.setup, sc)
        seat = sc.seatings()
        bounds = np.linspace(0, self.games, len(seat) + 1).astype(int)
        acc = PairedSums(2)
        seated = Seated()
        tasks = []
        for r, seating in enumerate(seat):
            lo, hi = int(bounds[r]), int(bounds[r + 1])
            for side, rules in enumerate((base, variant)):
                tasks.append((side, rules, seating, lo, hi - lo))
        if self.state != "running":
            return
        results = play_all(seated, self.setup.seed, tasks, PLAYED)
        if self.state != "running":
            return
        for (side, _, _, lo, _), (X, h) in zip(tasks, results):
            acc.add(side, lo, X, h)
        fig = figures(acc, sc.players, changed=base != variant)
        rows = {r["key"]: r for r in fig["rows"] if r["key"] in PANEL_FIGURES}
        self.results.append({"name": sc.name, "describe": sc.describe(), "players": sc.players,
                             "mode": sc.mode or self.setup.mode, "games": fig["games"], "rows": rows})
        self.next += 1
        if self.next >= len(self.scenarios):
            self.state = "done"
        self._publish({"scenarios": self.results, "worst": self.worst()})

    def worst(self) -> str | None:
        _, key, how = PANEL_RANKS[self.rank]

        def score(res):
            r = res["rows"][key]
            v = r["variant"]
            if v is None:
                return -math.inf
            if how == "max":
                return v
            if how == "min":
                return -v
            if how == "abs":
                return abs(v)
            return abs(r["relative"] or 0.0)

        return max(self.results, key=score)["name"] if self.results else None


def _return_memory() -> None:
    """Give the heap's free pages back to the system (glibc's ``malloc_trim``; nothing elsewhere):
    freed arrays below glibc's mmap threshold stay in the heap otherwise, and the server's
    resident memory would not fall back when its tabs are gone."""
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


class Engine:
    """The running jobs, the tabs' last jobs and the one worker thread that plays them."""

    def __init__(self, warm: bool = True):
        self.jobs: dict[str, Job] = {}     # job id -> the current job of a tab
        self.by_tab: dict[str, Job] = {}   # tab -> its current job, the least recently used first
        self.cond = threading.Condition()
        self.closing = False
        self._turn = 0
        self.warm = warm
        self.thread = threading.Thread(target=self._loop, name="explore-worker", daemon=True)
        self.thread.start()

    # ------------------------------------------------------------ jobs
    def submit(self, job: Job) -> Job:
        """Run ``job`` as its tab's current job (the tab's old one is cancelled); raises
        :class:`Busy` when :data:`MAX_RUNNING` jobs of other tabs run already."""
        with self.cond:
            self._housekeep()
            old = self.by_tab.get(job.tab)
            others = sum(1 for j in self.by_tab.values() if not j.finished and j is not old)
            if others >= MAX_RUNNING:
                what = "1 change is" if others == 1 else f"{others} changes are"
                raise Busy(f"busy: {what} being played already (other tabs; at most {MAX_RUNNING} "
                           "at once); try again when one of them is done")
            if old is not None:
                old.cancel()
                self._drop(job.tab)
            self.by_tab[job.tab] = job
            self.jobs[job.id] = job
            while len(self.by_tab) > MAX_TABS:  # the least recently used finished tab goes
                tab = next((t for t, j in self.by_tab.items() if j.finished), None)
                if tab is None:
                    break
                self._drop(tab)
            self.cond.notify_all()
        return job

    def get(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    def touch(self, job: Job) -> None:
        """The job's tab was just heard from (a stream opened): used last."""
        with self.cond:
            job.last_seen = time.monotonic()
            if self.by_tab.get(job.tab) is job:
                self.by_tab[job.tab] = self.by_tab.pop(job.tab)

    def cancel_tab(self, tab: str) -> bool:
        with self.cond:
            job = self.by_tab.get(tab)
            if job is not None and not job.finished:
                job.cancel()
                self.cond.notify_all()
                return True
        return False

    def forget_tab(self, tab: str, job: Job | None = None) -> None:
        """Cancel a tab's games and forget it (only if its current job is ``job``, when given)."""
        with self.cond:
            current = self.by_tab.get(tab)
            if current is None or (job is not None and current is not job):
                return
            current.cancel()
            self._drop(tab)
            self.cond.notify_all()

    def _drop(self, tab: str) -> None:
        job = self.by_tab.pop(tab, None)
        if job is not None:
            self.jobs.pop(job.id, None)

    def _housekeep(self) -> bool:
        """Forget the tabs idle for :data:`IDLE_SECONDS` and drop the kept games unused as long
        (under ``self.cond``); True when something was dropped."""
        now = time.monotonic()
        idle = [t for t, j in self.by_tab.items()
                if j.finished and j.listeners <= 0 and now - j.last_seen > IDLE_SECONDS]
        for tab in idle:
            self._drop(tab)
        return PLAYED.expire(IDLE_SECONDS) > 0 or bool(idle)

    def running(self) -> list[Job]:
        return [j for j in self.jobs.values() if not j.finished]

    def held_bytes(self) -> dict[str, int]:
        """The bytes held for the tabs, by what holds them (:data:`STATUS_ABOUT`): the kept games,
        the kernel arrays (each array once: a playing chunk pins some that :data:`ARRAYS` holds
        too) and the running jobs' sums."""
        jobs = list(self.jobs.values())
        kernel = {id(a): a for entry in ARRAYS.entries() for a in entry}
        for j in jobs:
            kernel.update((id(a), a) for a in j.kernel_arrays())
        return {"kept_game_bytes": PLAYED.nbytes(), "kernel_bytes": _nbytes(kernel.values()),
                "job_bytes": _nbytes(a for j in jobs for a in j.sum_arrays())}

    # ------------------------------------------------------------ the worker
    def _next(self) -> Job | None:
        now = time.monotonic()
        live = []
        for j in list(self.jobs.values()):
            if j.finished:
                continue
            if j.listeners == 0 and now - j.last_seen > ORPHAN_SECONDS:
                j.cancel()  # its tab is gone (or never listened)
                continue
            live.append(j)
        if not live:
            return None
        self._turn = (self._turn + 1) % len(live)
        return live[self._turn]

    def _release(self) -> None:
        """Let go of the arrays of every finished job (in the worker: no step is running)."""
        with self.cond:
            jobs = [j for j in self.jobs.values() if j.finished]
        for j in jobs:
            j.release()

    def _warm_up(self) -> None:
        """Load the kernels of the default table and draw the bootstrap weights before the
        page's first change (a few seconds once per server; cached kernels are not compiled)."""
        from ..rules import Rules
        from ..runner.run import seatings
        from .form import default_seats
        from .stats import weights

        weights()
        base = Rules.build()
        seated = Seated()
        for seating in seatings(default_seats(base.players), base.players)[:1]:  # the page's people
            seated.play(base, seating, 1, 0, 64)

    def _loop(self) -> None:
        if self.warm:
            try:
                self._warm_up()
            except Exception:  # noqa: BLE001 - a failed warm-up only costs time later
                pass
        housekept = time.monotonic()
        while True:
            self._release()
            with self.cond:
                while not self.closing:
                    if time.monotonic() - housekept >= 1.0:
                        dropped = self._housekeep()
                        if not self.by_tab and (dropped or ARRAYS.nbytes()):
                            ARRAYS.clear()
                            _return_memory()  # all idle: give the freed pages back to the system
                        housekept = time.monotonic()
                    job = self._next()
                    if job is not None:
                        break
                    self.cond.wait(timeout=1.0)
                if self.closing:
                    break
            try:
                job.step()
            except Exception as err:  # noqa: BLE001 - shown in the page, the server goes on
                job.error = f"{type(err).__name__}: {err}"
                job.state = "error"
                job._publish({"trace": traceback.format_exc(limit=3)})
            if job.finished:
                job.release()
        self._release()

    def close(self, timeout: float = 5.0) -> None:
        """Cancel every job and stop the worker (after its current chunk)."""
        with self.cond:
            self.closing = True
            for j in self.jobs.values():
                j.cancel()
            self.cond.notify_all()
        if self.thread.is_alive() and threading.current_thread() is not self.thread:
            self.thread.join(timeout)

    def status(self) -> dict[str, Any]:
        with self.cond:
            running = [{"job": j.id, "tab": j.tab, "kind": j.kind} for j in self.running()]
            tabs = len(self.by_tab)
        held = self.held_bytes()
        return {"running": running, "jobs": len(self.jobs), "tabs": tabs, "kept_games": PLAYED.games(),
                **held, "kept_bytes": sum(held.values()),
                "limits": {"running": MAX_RUNNING, "tabs": MAX_TABS, "idle_seconds": IDLE_SECONDS,
                           "kept_game_bytes": KEPT_BYTES, "kernel_bytes": SEATED_BYTES},
                "about": STATUS_ABOUT}
