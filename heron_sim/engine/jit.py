"""The decorator of the engine's compiled functions.

``hot`` compiles a function with numba, caches it on disk, and turns off numba's reference
counting (NRT) inside it. Measured here: passing three arrays to a small compiled helper costs
~45 ns a call with reference counting (atomic increments and decrements that numba's pruning
leaves in place across calls) and ~1 ns without it — a 35× difference on the dice-rolling
path. Functions decorated with ``hot`` therefore must not allocate arrays; only the batch
kernels (heron_sim.loop.loops), which allocate each worker's workspace, use plain ``njit``.

Both use numba's ``error_model="numpy"``: no test of a divisor against zero before each division
by a variable (numba's default, Python's model, raises ZeroDivisionError there). No division of the
engine's has a zero divisor (a game that had one would have raised), so the games are the same bit
for bit (tests/test_golden_games.py); greedy and the AI mix play 1.5–2 % more games a second
(docs/strategies.md).

Every array index of the engine's hot paths that LLVM cannot prove non-negative is written
unsigned, ``a[U(i)]`` (:data:`U`): numba then compiles it without its wrap-around of a negative
index (``a[i + len(a)]`` where ``i < 0``: a compare and a select on the address of every load
and store, about 6 % of the ladder's time). The engine never indexes from the end, which
tests/test_engine_indices.py checks with numba's bounds checking on (an unsigned index is
bounds-checked as well: a negative one becomes a huge one, which raises).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: An unsigned array index: ``w[U(GUIDE + seat)]``. numba wraps a negative signed index around
#: (``a[i + len(a)]``), a compare and a select on each address that LLVM keeps wherever it cannot
#: prove ``i >= 0`` (nearly every index of the engine is a sum of fields read from the
#: workspace); an unsigned one is used as it is. Only for an index that is never negative, and
#: around the whole index (never inside the arithmetic: numba types int64 + uint64 as a float).
U = np.uint64


def hot(fn):
    """``njit(cache=True)`` without reference counting: for non-allocating helpers."""
    return njit(cache=True, _nrt=False, error_model="numpy")(fn)


def hot_inline(fn):
    """``hot``, and inlined into every compiled caller (numba's ``inline="always"``): for the
    thin dispatch layers of the turn's hot path. A call between compiled functions passes each
    array as seven words on the stack (about 30 pushes for the turn's four arrays), which the
    game's few-instruction layers (a strategy switch, a rules-row choice) paid at every turn."""
    return njit(cache=True, _nrt=False, inline="always", error_model="numpy")(fn)
