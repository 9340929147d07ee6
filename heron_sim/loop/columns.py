"""The kernels' output rows as columns, in one pass over the rows (for heron_sim.simulation.results_frame).

A game's output row holds about 160 int64 values (heron_sim.engine.layout); a frame wants
columns. Read a column at a time (numpy's strided copy, which pandas makes of views of the rows)
every value costs a cache line of its own: 50,000 games' 80 columns took 15 ms that way, against
a few ms here, where each row is read once and its values are written to as many columns.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _gather(rows, offsets, out):
    for g in range(rows.shape[0]):
        for j in range(offsets.shape[0]):
            out[j, g] = rows[g, offsets[j]]


def gather_into(rows: np.ndarray, offsets: np.ndarray, out: np.ndarray, a: int) -> None:
    """``out[:, a:a + len(rows)] = rows[:, offsets].T`` (``offsets`` int64; the kernel releases
    the GIL: threads may fill disjoint ranges at once)."""
    if rows.shape[0]:
        _gather(rows, offsets, out[:, a : a + rows.shape[0]])


def gather_columns(rows: np.ndarray, offsets) -> np.ndarray:
    """``rows[:, offsets]`` transposed: int64[len(offsets), games], each column contiguous."""
    offsets = np.asarray(offsets, dtype=np.int64)
    out = np.empty((offsets.shape[0], rows.shape[0]), dtype=np.int64)
    if rows.shape[0]:
        _gather(np.ascontiguousarray(rows, dtype=np.int64), offsets, out)
    return out
