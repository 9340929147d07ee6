"""Helpers shared by several test modules (the shared fixtures are in conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def cli(*args):
    """``heron-sim ARGS`` through typer's CliRunner (arguments turned into strings)."""
    from heron_sim.cli import app

    return runner.invoke(app, [str(a) for a in args])


def spawn(args, **kw) -> subprocess.Popen:
    """``python -m heron_sim ARGS`` as a real process (text pipes, progress off)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), HERON_SIM_PROGRESS="0")
    return subprocess.Popen([sys.executable, "-m", "heron_sim", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def find_chromium() -> str | None:
    """Debian's Chromium (.ci/run installs it), or None."""
    return next((p for p in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
                 if p and Path(p).exists()), None)


def skip_or_fail(why: str):
    """Skip a browser test, or fail it where HERON_REQUIRE_BROWSER is set (CI)."""
    if os.environ.get("HERON_REQUIRE_BROWSER"):
        pytest.fail(why)
    pytest.skip(why)


def keep_screenshot(shot: Path) -> None:
    """Copy a screenshot to $HERON_SCREENSHOTS when set (for a person to look at)."""
    keep = os.environ.get("HERON_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
