"""Is the expert's decision waiting on its look-up's chain of loads, or working?

One thread plays chains of decisions over 4,096 states of 8d8 drawn from the expert's tables:
each decision looks its state up (``held_column``, the fused turns' look-up), reads the entry's
value, draws a uniform and branches on it, and the branch picks the next state. ``one`` runs one
such chain; ``two`` runs two independent chains side by side in the same loop (what an engine
playing two games on one thread would do). If the look-up waited on its chain, two chains would
take less time a decision than one. docs/strategies.md ("Is a decision waiting, or working?")
gives the figures.

    python benchmarks/lookup_chains.py [--reps 4000000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from heron_sim.rules import Rules
from heron_sim.strategies.expert_build import expert_tables
from heron_sim.strategies.expert_column import held_column

_MUL = np.uint64(0x9E3779B97F4A7C15)
_ONE = np.uint64(1)
_S11 = np.uint64(11)


def states(row: np.ndarray, n: int = 8, count: int = 4096, seed: int = 1) -> np.ndarray:
    """``count`` states the tables hold: (kept, roll, rolls left, guide, fresh), packed as the
    fused turns pack the dice (8 bits an animal, the herons in lane 6)."""
    sp = row[None, :]
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        h = int(rng.integers(0, 3))
        k = int(rng.integers(0, n - h + 1))
        kept = np.bincount(rng.integers(0, 6, k), minlength=6)
        roll = np.bincount(rng.integers(0, 7, n - h - k), minlength=7)
        hk = int(rng.integers(0, h + 1))
        kp = sum(int(kept[a]) << (8 * a) for a in range(6)) + ((h - hk) << 48)
        rp = sum(int(roll[a]) << (8 * a) for a in range(6)) + ((int(roll[6]) + hk) << 48)
        if (kp >> 48) + (rp >> 48) >= 3:
            continue
        r, g = int(rng.integers(1, 3)), int(rng.integers(0, 6))
        fl = 1 if (rp >> 48) & 255 else 0
        if held_column(sp, 0, 0, g, r, np.uint64(kp), np.uint64(rp), n, fl)[0] >= 0:
            out.append((kp, rp, r, g, fl))
    return np.array(out, dtype=np.uint64)


@njit(cache=False)
def _decide(sp, A, j, s, entry):
    """One decision from state j: (next state, stream, a count)."""
    m = A.shape[0]
    col, slots = held_column(sp, 0, 0, np.int64(A[j, 3]), np.int64(A[j, 2]), A[j, 0], A[j, 1], 8,
                             np.int64(A[j, 4]))
    v = sp[0, col + 1] if entry else np.float64(col & 31)
    s = s * _MUL + _ONE
    u = np.float64(s >> _S11) * (1.0 / 9007199254740992.0)
    if u * 20.0 < v:
        return (j + 1 + (col & 3)) & (m - 1), s, 1
    return (j + 5 + (slots & 7)) & (m - 1), s, slots & 1


@njit(cache=False)
def one(sp, A, reps, entry):
    acc, j, s = 0, 0, np.uint64(1)
    for _ in range(reps):
        j, s, x = _decide(sp, A, j, s, entry)
        acc += x
    return acc


@njit(cache=False)
def two(sp, A, reps, entry):
    acc, j, s, j2, s2 = 0, 0, np.uint64(1), A.shape[0] // 2, np.uint64(7)
    for _ in range(reps // 2):
        j, s, x = _decide(sp, A, j, s, entry)
        j2, s2, x2 = _decide(sp, A, j2, s2, entry)
        acc += x + x2
    return acc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=4_000_000, help="decisions a run")
    ap.add_argument("--rounds", type=int, default=3, help="runs of each kind")
    args = ap.parse_args()
    row = expert_tables(Rules.build(mode="8d8")).row
    sp = row[None, :].copy()
    A = states(row)
    for entry in (True, False):
        one(sp, A, 1000, entry)
        two(sp, A, 1000, entry)
    for _ in range(args.rounds):
        for entry in (True, False):
            for name, fn in (("one chain", one), ("two chains", two)):
                t = time.perf_counter()
                fn(sp, A, args.reps, entry)
                t = time.perf_counter() - t
                what = "with the entry's load" if entry else "without the entry's load"
                print(f"{name:10s} {what:26s} {1e9 * t / args.reps:6.1f} ns a decision")


if __name__ == "__main__":
    main()
