"""The summary's sums over played games, added thread by thread as the kernels return their rows
(heron_sim.loop.columns.count_rows: wins, guides, counters, powers by strategy; and the finished
games by rounds). One writer for ``simulate --json`` (heron_sim.simulation.simulate_counts) and a
Dask worker's batch (heron_sim.runner.batches): no pandas, so a worker imports none."""

from __future__ import annotations

import threading

import numpy as np

from .engine import layout as L


def zero_counts(players: int, strategies: int) -> list[np.ndarray]:
    """Zeroed sums for heron_sim.loop.columns.count_rows, in its order."""
    z = lambda *shape: np.zeros(shape, dtype=np.int64)  # noqa: E731
    return [z(players), z(7), z(7), z(6), z(7), z(7), z(strategies, 7), z(strategies, 7)]


class RowCounts:
    """The sums of the games of ``seating`` (one strategy name a seat), ``add`` called by
    play_games's ``after`` on the thread that played games a:b."""

    def __init__(self, players: int, seating) -> None:
        self.players = players
        self.names = tuple(sorted(set(seating)))
        self.of_seat = np.array([self.names.index(x) for x in seating], dtype=np.int64)
        self.total = zero_counts(players, len(self.names))
        self.rounds = np.zeros(0, dtype=np.int64)  # finished games by rounds, as long as the longest
        self._lock = threading.Lock()

    def add(self, a: int, b: int, rows: np.ndarray) -> None:
        from .loop.columns import count_rows

        part = zero_counts(self.players, len(self.names))
        count_rows(rows, self.players, self.of_seat, *part)
        h = np.bincount(rows[rows[:, L.C_FINISHED] != 0, L.C_ROUNDS]).astype(np.int64)
        with self._lock:
            for t, x in zip(self.total, part):
                t += x
            if h.size > self.rounds.size:
                self.rounds = np.concatenate([self.rounds, np.zeros(h.size - self.rounds.size, np.int64)])
            self.rounds[: h.size] += h
