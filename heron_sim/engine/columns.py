"""The kernels' output rows read as columns: the per-game frame's columns in one pass.

The batch kernels write one row per game (heron_sim.loop.loops.play_batch); a frame holds
columns. Reading a column of the rows touches one cache line per game, so reading the frame's
eighty-odd columns one by one read the whole output eighty times over: a fifth of a greedy
run's time on one thread. :func:`take_columns` reads the rows once, a block of games at a time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BLOCK = 64  # games a block: their rows (1.3 KB each) stay in the core's cache while read


@njit(cache=True, nogil=True)
def _take(out, idx, dst):
    n = out.shape[0]
    for g0 in range(0, n, BLOCK):
        g1 = min(n, g0 + BLOCK)
        for j in range(idx.shape[0]):
            c = idx[j]
            for g in range(g0, g1):
                dst[j, g] = out[g, c]


def take_columns(out: np.ndarray, columns) -> dict[int, np.ndarray]:
    """Column ``c`` of the 2-D array ``out`` for each ``c`` in ``columns``, each a contiguous
    array (rows of one new block)."""
    idx = np.array(sorted(set(int(c) for c in columns)), dtype=np.int64)
    dst = np.empty((idx.shape[0], out.shape[0]), dtype=out.dtype)
    if out.shape[0] and idx.shape[0]:
        _take(out, idx, dst)
    return {int(c): dst[j] for j, c in enumerate(idx)}
