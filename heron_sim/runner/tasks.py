"""What one Dask task does on a worker (heron_sim.runner.executor.DaskExecutor): several batches
in a row, their results packed or added up there, timed, checksummed.

A task carries about a second or two of a worker's time (issue 61: a task of 5,000 greedy games,
50 ms, cost more to schedule, ship and collect than to play), so the executor sends a *group*
of consecutive batches, sized by the measured seconds a game of each strategy set; each batch's
result is the one it gives alone (the same games, the same rows), so the grouping changes where
and when games run, never what they give.

- :func:`run_group` plays the group's batches one after the other and returns, with their
  CRC-32 and their times, either every batch's result (an ``int64`` 2-D array of rows packed
  by :func:`pack`: its constant columns as one value, the others in the narrowest integer type
  that holds them, exactly restored by :func:`unpack`; a 5,000-game Héron batch travels in
  about a tenth of its 163 x 8 bytes a game), or (``reduce``) their element-wise sum
  (:func:`add`: integer counts, exact in any order), one small result a task.
- The first batch of each strategy set in a process runs alone, under a lock (it loads the
  set's kernel, whose first import is not thread-safe: a worker of several threads would load
  it several times at once); the kernels stay loaded for the worker's life
  (:func:`warm` loads greedy's at the worker's start, heron_sim.runner.dask_worker).
- ``HERON_SIM_WORKER_THREADS`` in a worker's environment sets numba's threads for its tasks
  (the embedded cluster sets it to the cores over the workers: two one-thread workers on two
  cores, not two workers of two threads each fighting for them).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import zlib
from dataclasses import dataclass

import numpy as np

from ..errors import HeronSimError


# ---------------------------------------------------------------- packing rows for the wire
@dataclass(frozen=True)
class Packed:
    """An ``int64`` 2-D array, lossless and smaller: columns ``const_cols`` hold ``const_vals``
    in every row, columns ``var_cols`` are ``block`` (the narrowest integer type that holds
    them all)."""

    shape: tuple
    const_cols: np.ndarray
    const_vals: np.ndarray
    var_cols: np.ndarray
    block: np.ndarray

    def arrays(self) -> list[np.ndarray]:
        return [np.asarray(self.shape, dtype=np.int64), self.const_cols, self.const_vals, self.var_cols, self.block]


def pack(res):
    """``res`` with every 2-D ``int64`` array of at least 64 rows replaced by its :class:`Packed`
    form (tuples and lists packed element by element); anything else as it is."""
    if isinstance(res, np.ndarray):
        if res.ndim != 2 or res.dtype != np.int64 or res.shape[0] < 64 or res.shape[1] == 0:
            return res
        lo, hi = res.min(axis=0), res.max(axis=0)
        const = lo == hi
        var = np.flatnonzero(~const)
        kind = np.int64
        if var.size:
            a, b = int(lo[var].min()), int(hi[var].max())
            for t in (np.int8, np.int16, np.int32):
                if np.iinfo(t).min <= a and b <= np.iinfo(t).max:
                    kind = t
                    break
        return Packed(tuple(int(x) for x in res.shape), np.flatnonzero(const), lo[const].copy(), var,
                      np.ascontiguousarray(res[:, var]).astype(kind, copy=False))
    if isinstance(res, tuple):
        return tuple(pack(x) for x in res)
    if isinstance(res, list):
        return [pack(x) for x in res]
    return res


def unpack(res):
    """The exact inverse of :func:`pack` (an ``int64`` C-contiguous array again)."""
    if isinstance(res, Packed):
        out = np.empty(res.shape, dtype=np.int64)
        if res.const_cols.size:
            out[:, res.const_cols] = res.const_vals
        if res.var_cols.size:
            out[:, res.var_cols] = res.block
        return out
    if isinstance(res, tuple):
        return tuple(unpack(x) for x in res)
    if isinstance(res, list):
        return [unpack(x) for x in res]
    return res


def arrays_of(res) -> list[np.ndarray]:
    """Every array that ``res`` is made of (an array, a :class:`Packed`, tuples and lists of
    them), for its checksum; anything else is refused: only arrays travel."""
    if isinstance(res, np.ndarray):
        return [res]
    if isinstance(res, Packed):
        return res.arrays()
    if isinstance(res, (tuple, list)):
        out = []
        for x in res:
            out.extend(arrays_of(x))
        return out
    raise HeronSimError(f"executor: a batch returned {type(res).__name__}; only arrays travel "
                        "(checksummed) between the cluster and this process")


def crc_of(res) -> int:
    crc = 0
    for x in arrays_of(res):
        crc = zlib.crc32(np.ascontiguousarray(x).view(np.uint8), crc)
    return crc


# ---------------------------------------------------------------- adding counts
def add(a, b):
    """The element-wise sum of two results of the same kind (integer arrays, or tuples/lists of
    them; a 1-D array shorter than the other, a histogram, is padded with zeros): exact in any
    order. None is the empty sum."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        if not (np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer)):
            raise HeronSimError("executor: only integer counts are added up (exact in any order)")
        if a.shape != b.shape:
            if a.ndim != 1 or b.ndim != 1:
                raise HeronSimError(f"executor: counts of shapes {a.shape} and {b.shape} do not add up")
            out = np.zeros(max(a.size, b.size), dtype=np.int64)
            out[: a.size] += a
            out[: b.size] += b
            return out
        return a.astype(np.int64) + b
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        return type(a)(add(x, y) for x, y in zip(a, b))
    raise HeronSimError(f"executor: cannot add up {type(a).__name__} and {type(b).__name__}")


# ---------------------------------------------------------------- one task on a worker
#: The strategy sets whose kernel this process has loaded (a first batch of each runs alone).
loaded_sets: set = set()
_load_lock = threading.Lock()


def _worker_threads() -> int | None:
    v = os.environ.get("HERON_SIM_WORKER_THREADS", "")
    return int(v) if v.isdigit() and int(v) > 0 else None


def _set_key(item):
    seating = getattr(item, "seating", None)
    return frozenset(seating) if seating is not None else None


def run_one(fn, item) -> tuple:
    """``fn(item)`` and (seconds, whether it loaded its set's kernel). The first item of a
    strategy set in this process runs under a lock (the kernel's first load)."""
    key = _set_key(item)
    if key is not None and key not in loaded_sets:
        with _load_lock:
            t = time.perf_counter()
            res = fn(item)
            loaded_sets.add(key)
            return res, time.perf_counter() - t, True
    t = time.perf_counter()
    res = fn(item)
    return res, time.perf_counter() - t, False


_identity: list = []


def identity() -> str:
    """What the results computed in this process depend on: heron-sim's version and a hash of
    every Python source of the package (the engine's, which decide the games, and the code that
    turns a batch's rows into counts or the lab's columns). Two processes of the same identity
    give the same results from the same seeds. About 50 ms, once a process."""
    if not _identity:
        import hashlib
        from pathlib import Path

        from ..provenance import package_version

        root = Path(__file__).resolve().parents[1]
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
        _identity.append(f"heron-sim {package_version()}, sources {digest.hexdigest()[:16]}")
    return _identity[0]


def _check_identity(expect: str | None) -> None:
    """Refuse to play on a worker whose heron-sim is not the client's (its games would differ
    from the same seeds: the promise of bit-identical results wherever games run)."""
    if expect is None or expect == identity():
        return
    where = ""  # the worker's address where there is one (not on a Dask worker: none to name)
    with contextlib.suppress(ImportError, ValueError):  # get_worker: ValueError outside a worker
        from distributed import get_worker

        where = f" {get_worker().address}"
    raise HeronSimError(f"--scheduler: the worker{where} runs {identity()}, this process {expect}: "
                        "its games would differ; install the same heron-sim on every worker and restart them")


def run_group(fn, items, reduce: bool = False, expect: str | None = None) -> tuple:
    """Run ``fn`` on each of ``items`` in order on this worker. Returns ``(payload, crc,
    times)``: ``payload`` every result packed (:func:`pack`), or with ``reduce`` their sum
    (:func:`add`); ``crc`` its CRC-32; ``times`` each item's seconds on this worker, negative
    for an item that loaded its kernel (its time says nothing of the next ones'). ``expect``:
    the client's :func:`identity`; a worker of another one refuses the task (HeronSimError)."""
    _check_identity(expect)
    threads = _worker_threads()
    if threads is not None:
        import numba

        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))  # this task thread only
    out = None if reduce else []
    times = []
    for item in items:
        res, sec, loaded = run_one(fn, item)
        times.append(-sec if loaded else sec)
        if reduce:
            arrays_of(res)  # only arrays (a frame is refused here, in one line)
            out = add(out, res)
        else:
            out.append(pack(res))
    return out, crc_of(out), times


def warm() -> float:
    """Load greedy's kernel in this process (a worker's start: heron_sim.runner.dask_worker),
    and compute its :func:`identity` (every task checks it); returns the seconds it took."""
    from ..rules import Rules
    from .batches import Batch, play_rows

    t = time.perf_counter()
    identity()
    run_one(play_rows, Batch(Rules.build(), ("greedy",) * 4, 1, 0, 1))
    return time.perf_counter() - t
