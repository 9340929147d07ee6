"""The kernels' output rows as columns, in one pass over the rows (for heron_sim.simulation.results_frame).

A game's output row holds about 160 int64 values (heron_sim.engine.layout); a frame wants
columns. Read a column at a time (numpy's strided copy, which pandas makes of views of the rows)
every value costs a cache line of its own: 50,000 games' 80 columns took 15 ms that way, against
a few ms here, where each row is read once and its values are written to as many columns.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.layout import (
    C_ADVANCE, C_ANXIETIES, C_FINISHED, C_GUIDE, C_LEAD_CHANGES, C_LION_RESCUES, C_PLAYED, C_PONDS, C_POWERS,
    C_ROUNDS, C_WINNER,
)


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


@njit(cache=True, nogil=True)
def count_rows(rows, players, strategy_of_seat, wins, guide_dealt, guide_won, sums,
               power_dealt, power_uses, by_dealt, by_uses):
    """Add the games of ``rows`` to the sums a run's summary reads
    (heron_sim.analysis.summary.SummaryCounts, whose fields these arrays are; its histogram of
    rounds is counted apart, numpy's bincount sizing it): ``sums`` holds the played turns, Ponds,
    Anxieties, Lion's rescues, lead changes and the seats' advance; ``strategy_of_seat[s]``: the
    index of seat ``s``'s strategy in ``by_*``. Integers only: the threads' sums add up to the
    same in any order."""
    for g in range(rows.shape[0]):
        finished = rows[g, C_FINISHED] != 0
        winner = rows[g, C_WINNER]
        if finished and winner >= 0:
            wins[winner] += 1
        sums[0] += rows[g, C_PLAYED]
        sums[1] += rows[g, C_PONDS]
        sums[2] += rows[g, C_ANXIETIES]
        sums[3] += rows[g, C_LION_RESCUES]
        sums[4] += rows[g, C_LEAD_CHANGES]
        for s in range(players):
            sums[5] += rows[g, C_ADVANCE + s]
            a = rows[g, C_GUIDE + s]
            if a < 0:
                continue
            uses = rows[g, C_POWERS + a]
            power_dealt[a] += 1
            power_uses[a] += uses
            by_dealt[strategy_of_seat[s], a] += 1
            by_uses[strategy_of_seat[s], a] += uses
            if finished:
                guide_dealt[a] += 1
                if winner == s:
                    guide_won[a] += 1
