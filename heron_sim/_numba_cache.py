"""Point numba's on-disk cache at a folder keyed by a hash of the compiled sources.

Numba's own cache is keyed on each function's file only: a change in a helper that lives in
another module can leave a stale compiled kernel behind. Keying the whole cache folder on a hash
of every source file that feeds the kernels makes a stale cache impossible, and keeps the cache
out of site-packages (which may be read-only). Must run before any ``@njit(cache=True)`` is
decorated, so ``heron_sim/__init__.py`` imports this module first.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


#: The sources that the Héron engine's kernels are compiled from (the lighter games' kernels
#: keep numba's per-file cache; keeping them out of this hash keeps the engine's cache warm).
_KERNEL_SOURCES = ("engine", "strategies", "rules", "animals.py", "errors.py")


def _sources_hash() -> str:
    digest = hashlib.sha256()
    paths = []
    for name in _KERNEL_SOURCES:
        target = _PACKAGE / name
        paths.extend(target.rglob("*.py") if target.is_dir() else [target])
    for path in sorted(paths):
        digest.update(str(path.relative_to(_PACKAGE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def configure() -> Path:
    """Set numba's cache folder (honours an explicit ``NUMBA_CACHE_DIR``) and return it."""
    import numba

    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = Path(os.environ.get("HERON_SIM_CACHE", Path.home() / ".cache" / "heron-sim"))
    folder = base / "numba" / _sources_hash()
    numba.config.CACHE_DIR = str(folder)
    return folder


CACHE_DIR = configure()
