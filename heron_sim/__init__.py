"""heron-sim: a Monte Carlo balance simulator for the Héron dice race and other board games."""

from . import _numba_cache  # noqa: F401  (must configure numba's cache before any kernel)

__version__ = "0.1.0"
