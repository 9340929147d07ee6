"""The decorator of the engine's compiled functions.

``hot`` compiles a function with numba, caches it on disk, and turns off numba's reference
counting (NRT) inside it. Measured here: passing three arrays to a small compiled helper costs
~45 ns a call with reference counting (atomic increments and decrements that numba's pruning
leaves in place across calls) and ~1 ns without it — a 35× difference on the dice-rolling
path. Functions decorated with ``hot`` therefore must not allocate arrays; only the batch
kernels (heron_sim.loop.loops), which allocate each worker's workspace, use plain ``njit``.
"""

from __future__ import annotations

from numba import njit


def hot(fn):
    """``njit(cache=True)`` without reference counting: for non-allocating helpers."""
    return njit(cache=True, _nrt=False)(fn)


def hot_inline(fn):
    """``hot``, and inlined into every compiled caller (numba's ``inline="always"``): for the
    thin dispatch layers of the turn's hot path. A call between compiled functions passes each
    array as seven words on the stack (about 30 pushes for the turn's four arrays), which the
    game's few-instruction layers (a strategy switch, a rules-row choice) paid at every turn."""
    return njit(cache=True, _nrt=False, inline="always")(fn)
