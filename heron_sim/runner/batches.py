"""What a batch of games is and how one is played, where ever it runs (this process or a Dask
worker): plain data (:class:`Batch`) and module-level functions, so both travel by pickling.
The executors (heron_sim.runner.executor) send them; a worker's task (heron_sim.runner.tasks)
plays them. Game ``i`` draws only from the stream ``(seed, i)``: a batch's rows do not depend
on where or with how many threads it ran."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .. import champion_tables  # noqa: F401  (registers the champion's tables' builder: a worker seats it too)
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
    #: the lab's streak metrics (heron_sim.lab.metrics.STREAK_METRICS): every game whose number is
    #: a multiple of this is also replayed turn by turn (0: none; the games' results are the same)
    streak_every: int = 0
    #: each seat's luck too (heron_sim.simulation.simulate's ``luck``: the same games, the luck's
    #: columns added; none with dice that differ)
    luck: bool = False


def split_games(rules, seatings: Sequence[Sequence[str]], seed: int, games: int, *,
                first_game: int = 0, batch_games: int = DEFAULT_BATCH_GAMES,
                threads: int | None = None, luck: bool = False) -> list[Batch]:
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
            out.append(Batch(rules, seating, int(seed), first_game + start, n, threads, luck=luck))
    return out


def _set_threads(threads: int | None) -> int | None:
    """Set numba's thread count for this batch; returns the previous count (None: unchanged)."""
    if threads is None:
        return None
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    return old


#: The seats' arrays of the last few (seating, rules) played in this process: a study plays each
#: table of a candidate in several batches, and the array holds the expert's tables (megabytes
#: to copy a batch). The kernel only reads it.
_SEATS_KEPT = 4
_seats_memo: OrderedDict = OrderedDict()
_seats_lock = threading.Lock()


def _seats(seating, rules):
    """heron_sim.strategies.seat_arrays of a batch, or the same arrays kept from an earlier batch
    of the same seating and rules (:data:`_seats_memo`)."""
    from ..strategies import seat_arrays

    key = (tuple(seating), rules.digest())
    with _seats_lock:
        hit = _seats_memo.get(key)
        if hit is not None:
            _seats_memo.move_to_end(key)
            return hit
    arrays = seat_arrays(seating, rules)
    with _seats_lock:
        _seats_memo[key] = arrays
        while len(_seats_memo) > _SEATS_KEPT:
            _seats_memo.popitem(last=False)
    return arrays


def play_rows(batch: Batch) -> np.ndarray:
    """Play one batch and return the engine's raw output rows (int64[games, columns])."""
    from ..engine import layout as L
    from ..loop.batch import play_batch
    from ..loop.kernels import shared_kernel
    from ..engine.pack import pack_rules
    from ..strategies import parse_seating

    rules = batch.rules
    seating = parse_seating(list(batch.seating), rules.players)
    sids, sp = _seats(seating, rules)
    width = L.n_columns(rules.finish)
    if batch.luck:
        from ..simulation import _with_luck_row

        sp, width = _with_luck_row(rules, sp, True)
    out = np.zeros((batch.games, width), dtype=np.int64)
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


def count_batch(batch: Batch) -> tuple:
    """Play one batch and return only the sums a run's summary reads, as integer arrays that add
    up (heron_sim.simulation.simulate_counts's, in its order, then the finished games by rounds):
    a few hundred bytes a batch, whatever its games. The games are played as simulate_counts
    plays them (heron_sim.loop.batch.play_games without kept rows: each thread plays a few
    hundred games at a time into a buffer of its own that stays in the core's cache, and counts
    them there), not into a rows array of 1.3 kB a game (6.5 MB a 5,000-game batch, its page
    faults and its trip to memory: about 4 % of a worker's time). The same games, the same sums."""
    from ..engine import layout as L
    from ..engine.pack import pack_rules
    from ..loop.batch import play_games
    from ..loop.kernels import shared_kernel
    from ..row_counts import RowCounts
    from ..strategies import parse_seating

    rules = batch.rules
    P = rules.players
    counts = RowCounts(P, batch.seating)

    if batch.games:
        sids, sp = _seats(parse_seating(list(batch.seating), P), rules)
        old = _set_threads(batch.threads)
        try:
            with shared_kernel():  # one kernel for every seating of a run (same results)
                played, _ = play_games(np.uint64(batch.seed), batch.first_game, pack_rules(rules), sids, sp,
                                       (batch.games, L.n_columns(rules.finish)), batch.games, after=counts.add)
        finally:
            if old is not None:
                _set_threads(old)
        if played != batch.games:  # a KeyboardInterrupt in a thread of this process
            raise KeyboardInterrupt
    return (*counts.total, counts.rounds)
