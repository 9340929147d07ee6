"""Stops (issue 31): a second Ctrl-C keeps what was already written, every stop acts within
seconds, and the last silent corners (a disabled power given by index, a result file of another
mode, a degenerate study, a lost Dask scheduler, ``requested``, job names).

Real signals go to real processes (``python -m heron_sim``); the timing bounds are generous
(a loaded two-core machine), and the random-timing storms are marked slow, each with a fast
version kept in the default tier.
"""

from __future__ import annotations

import json
import random
import re
import signal
import time
from pathlib import Path

import pandas as pd
import pytest

from heron_sim.io import read_frame, read_meta
from tests.helpers import spawn

pytestmark = pytest.mark.cli

ROOT = Path(__file__).resolve().parents[1]


def _no_parts(folder: Path) -> None:
    left = [p.name for p in Path(folder).rglob("*.part")]
    assert not left, f"temporary files left behind: {left}"


def _wait_for(proc, check, timeout=180.0) -> bool:
    t0 = time.time()
    while time.time() - t0 < timeout and proc.poll() is None:
        if check():
            return True
        time.sleep(0.02)
    return False


# ---------------------------------------------------------------- a second Ctrl-C keeps what was written
def _double_sigint(tmp_path: Path, ext: str, seed: int) -> None:
    """``simulate --out`` signalled twice at random times of a long run: exit 130, and either
    a readable file labelled ``interrupted`` whose ``played`` is its rows (the first games, in
    order) — the line says exactly that — or, stopped before any batch was written, the old file
    untouched; never a ``.part`` left behind."""
    rnd = random.Random(seed)
    path = tmp_path / f"games{ext}"
    path.write_bytes(b"old results")
    games = 5_000_000
    proc = spawn(["simulate", "--games", games, "--seed", 3, "--threads", 1, "--out", path])
    assert _wait_for(proc, lambda: list(tmp_path.glob(f".{path.name}.*.part"))), proc.communicate()
    time.sleep(rnd.uniform(0.0, 2.0))
    proc.send_signal(signal.SIGINT)
    time.sleep(rnd.uniform(0.0, 0.3))
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    t0 = time.time()
    _, err = proc.communicate(timeout=120)
    assert time.time() - t0 < 30, "the second Ctrl-C did not act at once"
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    last = [ln for ln in err.splitlines() if ln.strip()][-1]
    _no_parts(tmp_path)
    if path.read_bytes()[:11] == b"old results":  # stopped before the first batch was written
        assert "nothing was written" in last, last
        return
    meta, df = read_meta(path), read_frame(path)
    assert meta["interrupted"] is True and meta["requested"] == games
    assert meta["played"] == meta["rows"] == len(df) > 0
    assert df["game"].tolist() == list(range(len(df)))  # the first games, none twice, none lost
    assert f"{len(df):,} of {games:,} games" in last and str(path) in last, last
    if ext == ".csv":
        assert json.loads((tmp_path / "games.csv.meta.json").read_text())["played"] == len(df)


@pytest.mark.parametrize("ext", [".parquet", ".csv"])
def test_second_sigint_keeps_the_written_batches(tmp_path, ext):
    _double_sigint(tmp_path, ext, seed=0 if ext == ".parquet" else 1)


@pytest.mark.slow
@pytest.mark.parametrize("ext", [".parquet", ".csv"])
@pytest.mark.parametrize("seed", range(2, 10))
def test_second_sigint_at_random_times(tmp_path, ext, seed):
    _double_sigint(tmp_path, ext, seed)
