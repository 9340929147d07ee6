"""Issue 18: the lab, the cluster and the precision runs keep the promises the rest keeps.

Each test reproduces one reported failure (it fails on the code before the fix). The real
processes (signals, a read-only mount, a real local Dask cluster, a killed scheduler) run in a
fast form here; the longer ones are marked slow. Subprocesses use ``sys.executable -m heron_sim``
and the greedy kernel only (already compiled by the rest of the suite).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from heron_sim import interrupt
from heron_sim.cli import app
from heron_sim.errors import HeronSimError, OutputError

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()

TINY = """
name = "tiny"
seed = 3
[search]
trials = {trials}
games = 200
population = 2
batch_games = 100
[racing]
rungs = [100]
keep = 2
report = 2
max_candidates = 2
[[param]]
key = "{key}"
int = [{lo}, {hi}]
[[objective]]
metric = "guide_spread"
direction = "minimize"
"""


def tiny_spec(tmp_path, trials=3, key="bull_bonus", lo=0, hi=4, extra="") -> Path:
    path = tmp_path / "tune-tiny.toml"
    path.write_text(TINY.format(trials=trials, key=key, lo=lo, hi=hi) + extra, encoding="utf-8")
    return path


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line_error(res, code=2):
    assert res.exit_code == code, (res.exit_code, res.output)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], res.stderr
    assert "Traceback" not in res.output
    return errors[0]


@pytest.fixture(autouse=True)
def _clear_stop():
    interrupt.reset()
    yield
    interrupt.reset()


def _tune(spec, tmp_path, **kw):
    from heron_sim.lab import tune

    logs = []
    kw.setdefault("run_dir", tmp_path / "run")
    kw.setdefault("out", tmp_path / "out")
    res = tune(spec, log=logs.append, progress=False, **kw)
    return res, logs


def _trials(run_dir: Path):
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend

    st = optuna.load_study(study_name="tune-tiny",
                           storage=JournalStorage(JournalFileBackend(str(run_dir / "study.journal"))))
    return {t.number: (t.params, t.values) for t in st.get_trials(deepcopy=False) if t.state.name == "COMPLETE"}


# ---------------------------------------------------------------- 1. one stop mechanism in tune
@pytest.mark.parametrize("phase", ["base", "racing"])
def test_tune_stops_in_every_phase(tmp_path, monkeypatch, phase):
    """A stop request during the base evaluation or racing ends the study (it used to run on)."""
    from heron_sim.lab import TuneInterrupted
    from heron_sim.lab import evaluate as ev

    owner, name = (ev, "batch_sums") if phase == "base" else (ev.Evaluator, "replicates")
    real = getattr(owner, name)

    def stop_then_play(*a, **k):
        interrupt.request_stop("SIGTERM")  # as the handler does on the first signal
        return real(*a, **k)

    monkeypatch.setattr(owner, name, stop_then_play)
    with pytest.raises(TuneInterrupted, match="run the same command to resume") as err:
        _tune(tiny_spec(tmp_path), tmp_path)
    assert ("base evaluation" in str(err.value)) == (phase == "base")
    assert ("racing" in str(err.value)) == (phase == "racing")
    assert not (tmp_path / "out").exists()
    interrupt.reset()
    monkeypatch.setattr(owner, name, real)
    res, _ = _tune(tiny_spec(tmp_path), tmp_path)  # the same call resumes and finishes
    assert res["trials"] == 3 and (tmp_path / "out" / "front.md").is_file()


def _spawn(args, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT), HERON_SIM_PROGRESS="0")
    return subprocess.Popen([sys.executable, "-m", "heron_sim", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_sigterm_stops_a_real_tune_process(tmp_path):
    """SIGTERM during the search of a real `tune`: exit 130, finished trials kept (it used to be
    ignored outside the search, and inside it only SIGINT was handled)."""
    spec = tiny_spec(tmp_path, trials=10_000)
    run_dir = tmp_path / "run"
    proc = _spawn(["tune", spec, "--run-dir", run_dir, "--out", tmp_path / "out"])
    t0 = time.monotonic()
    while time.monotonic() - t0 < 120 and proc.poll() is None:
        journal = run_dir / "study.journal"
        if journal.exists() and journal.read_bytes().count(b'"values"') >= 2:
            break
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "run the same command to resume" in err and "Traceback" not in err
    assert len(_trials(run_dir)) >= 1
    assert not (run_dir / ".lock").exists()


# ---------------------------------------------------------------- 2. studies that survive accidents
def test_torn_journal_line_is_repaired_and_trials_kept(tmp_path):
    spec = tiny_spec(tmp_path, trials=3)
    _tune(spec, tmp_path)
    journal = tmp_path / "run" / "study.journal"
    before = _trials(tmp_path / "run")
    with open(journal, "ab") as fh:
        fh.write(b'{"op_code": 5, "worker_id": "x", "trial_id": 3, "par')  # a kill mid-append
    res, logs = _tune(tiny_spec(tmp_path, trials=4), tmp_path)
    assert sum("torn last record" in line for line in logs) == 1
    res, logs = _tune(tiny_spec(tmp_path, trials=5), tmp_path)  # and the journal stays sound
    after = _trials(tmp_path / "run")
    assert len(after) == 5 and all(after[k] == v for k, v in before.items())


def test_a_damaged_record_in_the_middle_is_one_line(tmp_path):
    from heron_sim.lab.rundir import repair_journal

    j = tmp_path / "study.journal"
    j.write_bytes(b'{"a": 1}\n{"b": \n{"c": 3}\n')
    with pytest.raises(HeronSimError, match="line 2 .*--fresh"):
        repair_journal(j)
    j.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c"')
    assert repair_journal(j) == 4 and j.read_bytes() == b'{"a": 1}\n{"b": 2}\n'


def test_a_second_process_on_the_study_is_refused_and_a_stale_lock_taken_over(tmp_path):
    from heron_sim.runlock import RunLock

    spec = tiny_spec(tmp_path)
    run_dir = tmp_path / "run"
    with RunLock(run_dir):  # another owner (a separate open file: flock refuses it)
        with pytest.raises(HeronSimError, match=f"in use by process {os.getpid()}"):
            _tune(spec, tmp_path)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (run_dir / ".lock").write_text(f"{dead.pid} {socket.gethostname()} 2026-01-01T00:00:00\n")
    res, logs = _tune(spec, tmp_path)
    assert sum(f"stale lock of process {dead.pid}" in line for line in logs) == 1
    assert res["trials"] == 3 and not (run_dir / ".lock").exists()


@pytest.mark.parametrize("damage", ["truncate_boot", "empty_sums", "flip_boot"])
def test_damaged_cache_files_are_recomputed_with_one_line(tmp_path, damage):
    spec = tiny_spec(tmp_path)
    first, _ = _tune(spec, tmp_path)
    evals = tmp_path / "run" / "evals"
    boot = sorted(evals.glob("boot-*"))[0]
    sums = sorted(evals.glob("sums-base-*"))[0]
    if damage == "truncate_boot":
        boot.write_bytes(boot.read_bytes()[:100])
    elif damage == "empty_sums":
        sums.write_bytes(b"")
    else:
        raw = bytearray(boot.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        boot.write_bytes(bytes(raw))
    again, logs = _tune(spec, tmp_path)
    assert sum("damaged cached evaluation" in line for line in logs) == 1, logs
    assert again["finalists"][0]["objectives"] == first["finalists"][0]["objectives"]
    third, logs = _tune(spec, tmp_path)  # repaired for good
    assert not any("damaged cached" in line for line in logs), logs


def test_fresh_is_really_fresh(tmp_path):
    spec = tiny_spec(tmp_path)
    _tune(spec, tmp_path)
    evals = tmp_path / "run" / "evals"
    boot = sorted(evals.glob("boot-*"))[0]
    boot.write_bytes(b"garbage")
    marker = evals / "sums-base-old.arrays"
    marker.write_bytes(b"x")
    res, logs = _tune(spec, tmp_path, fresh=True)
    assert not marker.exists() and not any("damaged cached" in line for line in logs)
    assert res["trials"] == 3 and "(0 trials already finished)" in logs[0]


def test_out_and_run_dir_are_checked_before_the_first_game(tmp_path, monkeypatch):
    from heron_sim.lab import evaluate as ev

    def no_games(batch):
        raise AssertionError("a game was played before the outputs were checked")

    monkeypatch.setattr(ev, "batch_sums", no_games)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    spec = tiny_spec(tmp_path)
    for kw, field in (({"out": blocker / "out"}, "--out"), ({"run_dir": blocker / "run"}, "--run-dir"),
                      ({"out": blocker}, "--out")):
        with pytest.raises(HeronSimError, match=field):
            _tune(spec, tmp_path, **kw)
    assert not (tmp_path / "run").exists()
    # and from the command line: one line, before any folder is made
    line = one_line_error(cli("tune", spec, "--run-dir", tmp_path / "r2", "--out", blocker / "o"))
    assert "--out" in line and not (tmp_path / "r2").exists()
    line = one_line_error(cli("tune", spec, "--run-dir", tmp_path / "r3", "--scheduler", "bogus"))
    assert "--scheduler" in line and not (tmp_path / "r3").exists()


def test_results_folder_is_written_whole_never_mixed(tmp_path, monkeypatch):
    """A write that fails midway (a full disk) leaves the old results folder exactly as it was
    (it used to hold the new front beside the old summary), one line, no temporary files."""
    import errno

    from heron_sim.lab import outputs

    spec = tiny_spec(tmp_path)
    _tune(spec, tmp_path)
    out = tmp_path / "out"
    old = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    real = outputs.write_text

    def full_disk(path, text):
        if Path(path).name == "summary.json":
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, text)

    monkeypatch.setattr(outputs, "write_text", full_disk)
    with pytest.raises(OutputError, match="No space left"):
        _tune(tiny_spec(tmp_path, trials=4), tmp_path)
    now = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert now == old
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert not list(out.rglob("*.tmp*"))
    monkeypatch.setattr(outputs, "write_text", real)
    res, _ = _tune(tiny_spec(tmp_path, trials=4), tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["trials"] == 4
    assert {Path(f).name for f in summary_files(summary)} == {p.name for p in (out / "variants").glob("*.toml")}


def summary_files(summary):
    return [e["rules_file"] for e in summary["finalists"] if e.get("rules_file")]


def test_infeasible_space_is_reported_not_a_traceback(tmp_path):
    """max_rounds in [1, 3]: no game ends; the study says so (it used to end in an IndexError)."""
    extra = '[[constraint]]\nmetric = "length"\nwithin = 0.1\n'
    res, logs = _tune(tiny_spec(tmp_path, key="max_rounds", lo=1, hi=3, extra=extra), tmp_path)
    assert "Degenerate space" in res["finding"] and any("Degenerate space" in line for line in logs)
    assert "Degenerate space" in json.loads((tmp_path / "out" / "summary.json").read_text())["finding"]


@pytest.mark.parametrize("extra, args, what", [
    ('[[constraint]]\nmetric = "length"\nmin = 40\nmax = 20\n', (), "min 40 > max 20"),
    ('[[param]]\nname = "again"\nkey = "bull_bonus"\nint = [0, 2]\n', (), "searched twice"),
    ("", ("--trials", 10**9), "--trials"),
])
def test_bad_tune_specs_are_one_line(tmp_path, extra, args, what):
    spec = tiny_spec(tmp_path, extra=extra)
    line = one_line_error(cli("tune", spec, "--run-dir", tmp_path / "run", "--out", tmp_path / "out", *args))
    assert what in line and not (tmp_path / "run").exists()


def test_decreasing_rungs_are_one_line(tmp_path):
    spec = tiny_spec(tmp_path)
    spec.write_text(spec.read_text().replace("rungs = [100]", "rungs = [300, 100]"))
    line = one_line_error(cli("tune", spec, "--run-dir", tmp_path / "run"))
    assert "racing.rungs" in line and "never decrease" in line


def test_eof_error_is_not_an_interruption(tmp_path, monkeypatch):
    """An EOFError (an empty cache file read by numpy) used to exit 130 'interrupted'."""
    import heron_sim.lab as lab

    def eof(*a, **k):
        raise EOFError("No data left in file")

    monkeypatch.setattr(lab, "tune", eof)
    res = cli("tune", tiny_spec(tmp_path))
    assert res.exit_code == 1 and "interrupted" not in res.stderr
    assert res.stderr.strip().startswith("error:") and "EOFError" in res.stderr
