"""Batches of games and of single turns: the Python entry points of the compiled engine.

``play_batch``, ``play_turns`` and ``play_scripted`` take the same arguments as the kernels of
heron_sim.loop.loops; each call picks the kernels compiled for the strategies seated
(heron_sim.loop.kernels: greedy's own, or the kernel shared by every other seating; built
on first use, then loaded from the disk cache), so a run with greedy players never compiles,
nor dispatches through, the other strategies' code. The kernels take the address of the
strategies' ``decide`` as their last argument (heron_sim.loop.kernels.decide_address).

Games (and turns) are split into slices played at once by ``numba.get_num_threads()`` threads
(the kernels release the GIL). Every game ``g`` starts its own random stream from
``(seed, first_game + g)`` and resets its state, so a game's result does not depend on the
thread that plays it nor on the batch split.
"""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Callable

import numba
import numpy as np

from .kernels import decide_address, kernel, run_kernel
from ..engine.layout import PLAYERS, SID

SLICE = 512  # games (or turns / 16) per slice at least: a slice allocates one workspace

_pools: dict[int, ThreadPoolExecutor] = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    if threads not in _pools:
        _pools[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="heron-sim")
    return _pools[threads]


def _slice_size(n, minimum, threads):
    """Rows of each slice of ``n``: four slices a thread, ``minimum`` rows at least."""
    return max(minimum, -(-n // (4 * threads)))


def _split(sids, entry, first, out, minimum, args_of):
    """Run kernel ``entry`` over slices of ``out``'s rows, on the configured threads."""
    n = out.shape[0]
    threads = numba.get_num_threads()
    if threads <= 1 or n < 2 * minimum:
        return run_kernel(sids, entry, *args_of(first, out))
    run_kernel(sids, entry, *args_of(first, out[:0]))  # compile (and say so) once, up front
    fn = kernel(sids, entry)
    address = decide_address(sids)
    size = _slice_size(n, minimum, threads)
    pool = _pool(threads)
    futures = [pool.submit(fn, *args_of(first + a, out[a : a + size]), address)
               for a in range(0, n, size)]
    for f in futures:
        f.result()


def play_batch(seed, first_game, R, sids, sp, out):
    """Play ``out.shape[0]`` games: game g uses the stream (seed, first_game + g) and fills
    row g of ``out`` (int64[games, n_columns(finish)])."""
    _split(sids, "play_batch", first_game, out, SLICE,
           lambda first, rows: (seed, first, R, sids, sp, rows))


def _slices(n, batch, threads):
    """(start, stop, batch index) of each slice, made as they are asked (a run of any length
    keeps none ahead): each batch of ``batch`` rows split as :func:`_split` splits it; the last
    batch in smaller slices (``SLICE // 4`` games at least), since a thread that has played its
    last slice waits for the others' to end (on average half a slice: about 0.5 % of a
    50,000-game run on 2 threads with 512-game slices)."""
    for b, lo in enumerate(range(0, n, batch)):
        hi = min(n, lo + batch)
        size = _slice_size(hi - lo, SLICE, threads)
        if hi == n and threads > 1:
            size = max(SLICE // 4, -(-(hi - lo) // (8 * threads)))
        for a in range(lo, hi, size):
            yield a, min(hi, a + size), b


class _Todo:
    """The slices not started yet, read from :func:`_slices` as they are needed: the few next
    ones are kept (``todo[0]`` is the next), so that memory does not grow with the games."""

    def __init__(self, slices):
        self._rest = iter(slices)
        self._next: deque = deque()
        self._fill()

    def _fill(self) -> None:
        while self._rest is not None and len(self._next) < 2:
            item = next(self._rest, None)
            if item is None:
                self._rest = None
            else:
                self._next.append(item)

    def __bool__(self) -> bool:
        return bool(self._next)

    def __getitem__(self, i):
        return self._next[i]

    def popleft(self):
        item = self._next.popleft()
        self._fill()
        return item

    def clear(self) -> None:
        self._next.clear()
        self._rest = None


def play_games(seed, first_game, R, sids, sp, out, batch: int,
               progress: Callable[[int], None] | None = None,
               stop: Callable[[], bool] | None = None,
               after: Callable[[int, int], None] | None = None) -> tuple[int, bool]:
    """:func:`play_batch` over ``out``'s rows in batches of ``batch`` games, reading ``stop()``
    before each batch (each slice, on several threads) and calling ``progress(n)`` when a
    batch's ``n`` games are in, in order.

    On several threads the slices of the next batch start while the last ones of this batch
    finish: no thread waits for the others at a batch's end (with 4,096-game batches of the AI
    mix on 2 threads, those waits cost a sixth of the run). Games are the same either way
    (game g draws from (seed, first_game + g)).

    ``after(a, b, rows)``, when given, runs once games ``a:b`` are played, with their rows, on
    the thread that played them, before they count as played. ``out`` may be the shape
    ``(games, width)`` instead of an array: then no rows are kept; each thread plays ``CHUNK``
    games at a time into its own buffer and hands each chunk's rows to ``after``
    (heron_sim.simulation.simulate reads the frame's columns there: a rows array of 1.3 KB a game
    costs its page faults, and the rows' trip to memory and back).

    Returns ``(played, interrupted)``: the games played are ``out[:played]`` (every slice before
    the first one not played; rows after it may be written and are not counted), interrupted
    when ``stop()`` said so or on KeyboardInterrupt (slices not started are dropped, those
    running end on their own)."""
    keep = isinstance(out, np.ndarray)
    n, width = out.shape if keep else out
    if not keep and after is None:
        raise ValueError("play_games: rows that are not kept need after(a, b, rows)")
    rows_out = out if keep else None
    threads = numba.get_num_threads()
    if threads <= 1 or n < 2 * SLICE:
        done = 0
        try:
            while done < n:
                if stop is not None and stop():
                    return done, True
                k = min(batch, n - done)
                _play_range(lambda a, rows: play_batch(seed, first_game + a, R, sids, sp, rows),
                            done, done + k, rows_out, width, after)
                done += k
                if progress is not None:
                    progress(k)
        except KeyboardInterrupt:
            return done, True
        return done, False
    run_kernel(sids, "play_batch", seed, first_game, R, sids, sp,
               np.zeros((0, width), dtype=np.int64))  # compile (and say so) once
    fn = kernel(sids, "play_batch")
    address = decide_address(sids)
    pool = _pool(threads)
    todo = _Todo(_slices(n, batch, threads))
    running: deque = deque()  # (future, start, stop, batch index), in row order
    done = 0  # rows played: every slice before the first one running or not started
    reported = 0
    interrupted = False

    def report(upto):
        nonlocal reported
        if progress is not None and upto > reported:
            progress(upto - reported)
        reported = upto

    try:
        while todo or running:
            while todo and not interrupted and len(running) < 2 * threads:
                if stop is not None and stop():
                    interrupted = True
                    break
                a, b, k = todo.popleft()
                call = partial(_call, fn, seed, first_game, R, sids, sp, address)
                running.append((pool.submit(_play_range, call, a, b, rows_out, width, after), a, b, k))
            if not running:
                break
            f, a, b, k = running[0]
            f.result()
            running.popleft()
            done = b
            if not todo or todo[0][2] != k:
                if not running or running[0][3] != k:
                    report(done)  # the batch's last slice
            if interrupted:
                todo.clear()
    except KeyboardInterrupt:
        interrupted = True
        for f, *_ in running:
            f.cancel()
        while running and running[0][0].done() and not running[0][0].cancelled() \
                and running[0][0].exception() is None:
            done = running.popleft()[2]
    except BaseException:
        for f, *_ in running:
            f.cancel()
        raise
    report(done)
    return done, interrupted


#: games a thread plays at a time into its own buffer when the rows are not kept (play_games):
#: 512 rows of 1.3 KB stay in a core's cache until ``after`` reads them
CHUNK = SLICE

_buffers = threading.local()


def _call(fn, seed, first_game, R, sids, sp, address, a, rows):
    """The kernel ``fn`` on ``rows`` for the games from ``first_game + a``."""
    fn(seed, first_game + a, R, sids, sp, rows, address)


def _play_range(call, a, b, out, width, after):
    """Games ``a:b`` (``call(a, rows)`` plays from game ``a`` into ``rows``): into ``out[a:b]``,
    then ``after(a, b, out[a:b])``; or, ``out`` None, ``CHUNK`` games at a time into this
    thread's buffer, each chunk's rows handed to ``after``."""
    if out is not None:
        call(a, out[a:b])
        if after is not None:
            after(a, b, out[a:b])
        return
    buf = getattr(_buffers, "rows", None)
    if buf is None or buf.shape[1] != width:
        buf = _buffers.rows = np.empty((CHUNK, width), dtype=np.int64)
    for c in range(a, b, CHUNK):
        d = min(b, c + CHUNK)
        call(c, buf[: d - c])
        after(c, d, buf[: d - c])


def play_turns(seed, first_turn, R, guide, sid, sp_row, out):
    """Single turns from a fresh turn state (guide ready, no board): turn t uses the stream
    (seed, first_turn + t). out[t] = (outcome, value, last roll)."""
    _split([sid], "play_turns", first_turn, out, 16 * SLICE,
           lambda first, rows: (seed, first, R, guide, sid, sp_row, rows))


def play_scripted(first_seat, max_slots, w, R, rng, sp):
    """Play from a prepared workspace (positions, guides, scripts set by the caller)."""
    sids = np.asarray(w[SID : SID + int(w[PLAYERS])], dtype=np.int64)
    return run_kernel(sids, "play_scripted", first_seat, max_slots, w, R, rng, sp)
