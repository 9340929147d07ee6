"""Where a result comes from: the package version and the git commit of the sources (a leaf
module: the writers of every result file and of the run folders label what they write)."""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def package_version() -> str:
    """The installed heron-sim's version (``unknown`` in a bare checkout)."""
    try:
        from importlib.metadata import version

        return version("heron-sim")
    except Exception:  # noqa: BLE001 - metadata missing in a bare checkout
        from . import __version__

        return __version__


@lru_cache(maxsize=1)
def git_commit() -> str:
    """The short commit of the sources' git checkout, ``+dirty`` with uncommitted changes, or
    ``unknown`` outside a checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             timeout=5, cwd=here)
        if out.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "."],
                               capture_output=True, text=True, timeout=5, cwd=here)
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
