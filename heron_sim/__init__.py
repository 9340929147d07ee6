"""heron-sim: a Monte Carlo balance simulator for the Héron dice race and other board games."""

from . import _deps

_deps.check_numba()  # one clear line if numba lacks a private hook the kernel cache patches

from . import _numba_cache  # noqa: E402,F401  (must configure numba's cache before any kernel)

__version__ = "0.1.0"
