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

Every array index of the engine's functions (numba's mangled names of heron_sim.engine, .loop,
.strategies, .rules and the generated kernels, :data:`_ENGINE_NAMES`) is compiled without
numba's wrap-around of a negative index (:func:`_engine_index`, installed in numba's array
lowering when this module is imported, before anything is compiled): the engine never indexes
from the end, which tests/test_engine_indices.py checks with numba's bounds checking on.
"""

from __future__ import annotations

import re

import numpy as np
from numba import njit
from numba.core import types
from numba.np import arrayobj

#: The compiled functions whose array indices are never negative: the Héron engine's modules
#: (numba's mangled names: heron_sim.engine, .loop, .strategies, .rules and the kernels and
#: dispatchers generated per strategy set, heron_sim.loop.kernels). The lighter games and any
#: user code keep numba's wrap-around.
_ENGINE_NAMES = re.compile(r"(?:^|\.)_ZN9heron_sim(?:6engine|4loop|10strategies|5rules|\d+_kernels_|\d+_dispatch_)")

_numba_fix_integer_index = getattr(arrayobj, "fix_integer_index", None)


def _engine_index(context, builder, idxty, idx, size):
    """numba's ``fix_integer_index`` without the wrap-around of a negative index in the engine's
    functions. Numba reads ``a[i]`` with a signed ``i`` as ``a[i + len(a)]`` where ``i < 0``: a
    compare and a select on every load and store's address, which LLVM keeps wherever it cannot
    prove ``i >= 0`` (nearly every index of the engine is a sum of fields read from the
    workspace). The engine never indexes from the end: its games are the same bit for bit
    (tests/test_golden_games.py), and ``tests/test_engine_indices.py`` plays every strategy and
    variant with numba's bounds checking on, which raises at any negative index. 5–6 % of the
    ladder's time (docs/strategies.md)."""
    if idxty.signed and _ENGINE_NAMES.search(builder.function.name):
        return context.cast(builder, idx, idxty, types.intp)
    return _numba_fix_integer_index(context, builder, idxty, idx, size)


def engine_indices_installed() -> bool:
    """Whether the engine's functions are compiled without the wrap-around (numba's internal
    ``fix_integer_index`` found and replaced; else numba's own indexing, correct and slower)."""
    return arrayobj.fix_integer_index is _engine_index


if _numba_fix_integer_index is not None and _numba_fix_integer_index.__code__.co_varnames[:5] == (
        "context", "builder", "idxty", "idx", "size"):
    arrayobj.fix_integer_index = _engine_index

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
