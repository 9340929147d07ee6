"""A study's run folder survives accidents (issue 18).

- :func:`repair_journal`: a kill or a full disk during optuna's append can leave a torn last
  record in ``study.journal``; optuna skips it, then appends after it and every later start
  fails. On start the torn tail is cut off (one line says so); every finished trial is kept.
- :func:`open_run_dir`: the folder is locked (:class:`heron_sim.runlock.RunLock`: a second
  process on the same study is refused with one line), optuna's own lock file left by a killed
  process is removed, the journal repaired, and ``fresh`` removes the journal *and* the cached
  evaluations (``evals/``), so a fresh study is really fresh.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Callable

from ..errors import HeronSimError, OutputError
from ..runlock import RunLock

JOURNAL = "study.journal"


def repair_journal(path: Path, log: Callable[[str], None] = lambda s: None) -> int:
    """Cut a torn or unreadable last record off the journal at ``path``; returns the bytes cut.

    Only the tail can be cut (a record is appended whole or torn at the end); a damaged record
    followed by good ones is refused with one line (the journal is not ours to rewrite)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return 0
    except OSError as err:
        raise HeronSimError(f"{path}: cannot read: {err.strerror or err}") from None
    good = 0      # end of the last good record
    bad_at = None  # line number of the first bad record
    pos, number = 0, 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        end = len(data) if nl < 0 else nl + 1
        line = data[pos:end]
        number += 1
        ok = nl >= 0
        if ok and line.strip():
            try:
                json.loads(line)
            except ValueError:
                ok = False
        if ok:
            if bad_at is not None:
                raise HeronSimError(f"{path}: damaged record at line {bad_at} followed by good ones; "
                                    "it cannot be repaired: pass --fresh to start the study over")
            good = end
        elif bad_at is None:
            bad_at = number
        pos = end
    cut = len(data) - good
    if cut:
        try:
            with open(path, "rb+") as fh:
                fh.truncate(good)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as err:
            raise OutputError(f"{path}: cannot repair: {err.strerror or err}") from None
        log(f"{path}: dropped a torn last record ({cut} bytes, left by a process stopped while "
            "writing); every finished trial is kept")
    return cut


def study_folders(name: str, run_dir, out, source) -> tuple[Path, Path]:
    """A study's run folder and results folder (default ``runs/tune-<name>`` and
    ``results/tune-<name>``), both checked before the first game and before any folder is made;
    ``source``: the tune file read (None: none), which neither may hold."""
    from ..io import check_distinct, check_output

    run_dir = Path(run_dir) if run_dir else Path("runs") / f"tune-{name}"
    out = Path(out) if out else Path("results") / f"tune-{name}"
    check_output(run_dir, "--run-dir", folder=True)
    check_output(out, "--out", folder=True)
    # --out is replaced as a whole at the end: the study's journal or the tune file inside it would go
    check_distinct({"--run-dir": run_dir, "--out": out}, {"tune file": source}, whole=("--out",))
    return run_dir, out


def open_run_dir(run_dir: Path, fresh: bool = False, log: Callable[[str], None] = lambda s: None) -> RunLock:
    """Lock ``run_dir`` for this process and make its journal sound; returns the held lock
    (release it when the study ends)."""
    run_dir = Path(run_dir)
    lock = RunLock(run_dir, "--run-dir", log=log).acquire()
    try:
        journal = run_dir / JOURNAL
        # We own the folder now: an optuna lock left by a killed process is stale.
        for stale in (run_dir / f"{JOURNAL}.lock",):
            if stale.is_symlink() or stale.exists():
                try:
                    stale.unlink()
                except OSError:
                    pass
        if fresh:
            for p in (journal, run_dir / "sampler.pkl"):  # an older version's pickled sampler too
                if p.exists():
                    p.unlink()
            shutil.rmtree(run_dir / "evals", ignore_errors=True)
        else:
            repair_journal(journal, log)
    except BaseException:
        lock.release()
        raise
    return lock
