"""Ctrl-C then the same command: a real `heron-sim tune` process interrupted by SIGINT resumes
without losing or repeating a finished trial."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.cli

SPEC = """
name = "resume"
seed = 5
[search]
trials = 40
games = 3000
population = 6
[racing]
rungs = [1000]
keep = 2
report = 2
[[param]]
key = "bull_bonus"
int = [0, 4]
[[param]]
key = "heron_doubling_herons"
int = [0, 3]
[[param]]
key = "snake_advance"
int = [0, 3]
[[objective]]
metric = "guide_spread"
direction = "minimize"
[[objective]]
metric = "length"
target = "base"
relative = true
"""


def _trials(run_dir: Path):
    import optuna
    from heron_sim.lab.study import journal_storage

    journal = run_dir / "study.journal"
    if not journal.exists():
        return []
    try:
        st = optuna.load_study(study_name="tune-resume", storage=journal_storage(str(journal)))
    except KeyError:
        return []
    return st.get_trials(deepcopy=False)


def test_sigint_then_same_command_resumes(tmp_path):
    spec = tmp_path / "tune-resume.toml"
    spec.write_text(SPEC, encoding="utf-8")
    run_dir, out = tmp_path / "run", tmp_path / "out"
    cmd = [sys.executable, "-m", "heron_sim", "tune", str(spec), "--run-dir", str(run_dir), "--out", str(out)]
    env = {**os.environ, "HERON_SIM_PROGRESS": "0", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        done = [t for t in _trials(run_dir) if t.state.name == "COMPLETE"]
        if len(done) >= 3 or proc.poll() is not None:
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the study finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "run the same command to resume" in err
    before = {t.number: (t.params, t.values) for t in _trials(run_dir) if t.state.name == "COMPLETE"
              and "duplicate_of" not in t.user_attrs}
    assert 3 <= len(before) < 40
    assert not (out / "front.md").exists()
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    trials = _trials(run_dir)
    complete = {t.number: (t.params, t.values) for t in trials if t.state.name == "COMPLETE"
                and "duplicate_of" not in t.user_attrs}
    assert len(complete) == 40                                    # exactly the trials asked for
    assert all(complete[k] == v for k, v in before.items())       # none lost, none replayed
    failed = [t for t in trials if t.state.name == "FAIL"]
    assert len(failed) <= 1                                       # at most the one cut short ...
    for t in failed:                                              # ... and it was run again
        assert any(c[0] == t.params for n, c in complete.items() if n > t.number)
    assert f"{len(before)} trials already finished" in res.stderr
    assert (out / "front.md").is_file() and list((out / "variants").glob("*.toml"))
