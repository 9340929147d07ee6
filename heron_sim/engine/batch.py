"""Batches of games and of single turns: the Python entry points of the compiled engine.

``play_batch``, ``play_turns`` and ``play_scripted`` take the same arguments as the kernels of
heron_sim.engine.loops; each call picks the kernels compiled for the strategies seated
(heron_sim.engine.kernels: greedy's own, or the kernel shared by every other seating; built
on first use, then loaded from the disk cache), so a run with greedy players never compiles,
nor dispatches through, the other strategies' code. The kernels take the address of the
strategies' ``decide`` as their last argument (heron_sim.engine.kernels.decide_address).

Games (and turns) are split into slices played at once by ``numba.get_num_threads()`` threads
(the kernels release the GIL). Every game ``g`` starts its own random stream from
``(seed, first_game + g)`` and resets its state, so a game's result does not depend on the
thread that plays it nor on the batch split.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from .kernels import decide_address, kernel, run_kernel
from .layout import PLAYERS, SID

SLICE = 512  # games (or turns / 16) per slice at least: a slice allocates one workspace

_pools: dict[int, ThreadPoolExecutor] = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    if threads not in _pools:
        _pools[threads] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="heron-sim")
    return _pools[threads]


def _split(sids, entry, first, out, minimum, args_of):
    """Run kernel ``entry`` over slices of ``out``'s rows, on the configured threads."""
    n = out.shape[0]
    threads = numba.get_num_threads()
    if threads <= 1 or n < 2 * minimum:
        return run_kernel(sids, entry, *args_of(first, out))
    run_kernel(sids, entry, *args_of(first, out[:0]))  # compile (and say so) once, up front
    fn = kernel(sids, entry)
    address = decide_address(sids)
    size = max(minimum, -(-n // (4 * threads)))
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


def play_turns(seed, first_turn, R, guide, sid, sp_row, out):
    """Single turns from a fresh turn state (guide ready, no board): turn t uses the stream
    (seed, first_turn + t). out[t] = (outcome, value, last roll)."""
    _split([sid], "play_turns", first_turn, out, 16 * SLICE,
           lambda first, rows: (seed, first, R, guide, sid, sp_row, rows))


def play_scripted(first_seat, max_slots, w, R, rng, sp):
    """Play from a prepared workspace (positions, guides, scripts set by the caller)."""
    sids = np.asarray(w[SID : SID + int(w[PLAYERS])], dtype=np.int64)
    return run_kernel(sids, "play_scripted", first_seat, max_slots, w, R, rng, sp)
