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

from heron_sim import interrupt
from heron_sim.errors import HeronSimError, OutputError
from tests.helpers import cli, shipped_games, wait_working
from tests.helpers import spawn as _spawn

pytestmark = [pytest.mark.cli, pytest.mark.exact]

ROOT = Path(__file__).resolve().parents[1]

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
[ladder]
max_keys = 0
[[param]]
key = "{key}"
int = [{lo}, {hi}]
[[objective]]
metric = "guide_spread"
direction = "minimize"
"""


#: Two more parameters: a space of 160 rule sets, for studies that must outlast a signal.
WIDE = ('[[param]]\nkey = "heron_doubling_herons"\nint = [0, 3]\n'
        '[[param]]\nkey = "snake_advance"\nint = [0, 3]\n')


def tiny_spec(tmp_path, trials=3, key="bull_bonus", lo=0, hi=9, extra="") -> Path:
    path = tmp_path / "tune-tiny.toml"
    path.write_text(TINY.format(trials=trials, key=key, lo=lo, hi=hi) + extra, encoding="utf-8")
    return path


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
    from heron_sim.lab.study import journal_storage

    st = optuna.load_study(study_name="tune-tiny",
                           storage=journal_storage(str(run_dir / "study.journal")))
    # Distinct trials: a trial that rebuilt a rule set already played is marked and not counted.
    return {t.number: (t.params, t.values) for t in st.get_trials(deepcopy=False) if t.state.name == "COMPLETE"
            and "duplicate_of" not in t.user_attrs}


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


def _finish(proc, timeout):
    """``proc.communicate`` that never leaves a process behind: killed if it overruns."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise


def test_sigterm_stops_a_real_tune_process(tmp_path):
    """SIGTERM during the search of a real `tune`: exit 130, finished trials kept (it used to be
    ignored outside the search, and inside it only SIGINT was handled)."""
    spec = tiny_spec(tmp_path, trials=10_000, extra=WIDE)
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
    _, err = _finish(proc, 60)
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


# ---------------------------------------------------------------- 4. a run folder has one owner
def test_two_runs_into_one_new_run_dir(tmp_path):
    """The second `run` into a folder in use is refused with one line (both used to exit 0)."""
    run_dir = tmp_path / "run"
    first = _spawn(["run", ROOT / "experiments/modes.toml", "--games", "200000", "--run-dir", run_dir])
    t0 = time.monotonic()
    while not (run_dir / ".lock").exists() and time.monotonic() - t0 < 60 and first.poll() is None:
        time.sleep(0.05)
    assert first.poll() is None, first.communicate()
    second = subprocess.run([sys.executable, "-m", "heron_sim", "run", ROOT / "experiments/modes.toml",
                             "--games", "20", "--run-dir", run_dir], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    first.send_signal(signal.SIGINT)
    _, err1 = _finish(first, 120)
    lines = [ln for ln in second.stderr.splitlines() if ln.strip()]
    assert second.returncode == 2 and len(lines) == 1, second.stderr
    assert lines[0].startswith("error: --run-dir:") and (f"process {first.pid}" in lines[0]
                                                         or "already" in lines[0]), lines
    assert first.returncode == 130, err1
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["status"] == "interrupted" and m["games_override"] == 200000  # the first run's own


def test_two_runs_that_both_found_the_folder_empty(tmp_path):
    """The race of two `run` into one new --run-dir, serialized: B checks the folder (empty),
    A runs into it, then B starts playing. B used to overwrite A's manifest and exit 0."""
    from heron_sim.runner import load_experiment, run_experiments
    from heron_sim.runner.run import check_run_dir

    run_dir = tmp_path / "run"
    exps = [load_experiment(ROOT / "experiments/modes.toml")]
    assert check_run_dir(run_dir) is None                       # B: a new, empty folder
    assert cli("run", ROOT / "experiments/modes.toml", "--games", "20", "--run-dir", run_dir).exit_code == 0
    a = (run_dir / "manifest.json").read_bytes()
    with pytest.raises(HeronSimError, match="run folder already"):
        run_experiments(exps, run_dir, games=30)
    assert (run_dir / "manifest.json").read_bytes() == a       # A's run stands


def test_run_lock_refuses_a_live_owner_and_takes_over_a_dead_one(tmp_path):
    from heron_sim.runlock import RunLock

    run_dir = tmp_path / "run"
    with RunLock(run_dir):
        line = one_line_error(cli("run", ROOT / "experiments/modes.toml", "--games", "20", "--run-dir", run_dir))
        assert f"in use by process {os.getpid()}" in line
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (run_dir / ".lock").write_text(f"{dead.pid} {socket.gethostname()} 2026-01-01T00:00:00\n")
    res = cli("run", ROOT / "experiments/modes.toml", "--games", "20", "--run-dir", run_dir)
    assert res.exit_code == 0, res.output
    assert f"stale lock of process {dead.pid}" in res.stderr and not (run_dir / ".lock").exists()


def test_lost_scheduler_during_run_is_one_line_and_resumable(tmp_path, monkeypatch):
    import heron_sim.runner.run as run_mod
    from heron_sim.runner.executor import ClusterLost

    real, calls = run_mod.play_job, []

    def play(job, progress=None):
        calls.append(job.key)
        if len(calls) == 3:
            raise ClusterLost("--scheduler: lost the Dask scheduler tcp://127.0.0.1:1 (CommClosedError); "
                              "1 of 2 batches had come back")
        return real(job, progress)

    monkeypatch.setattr(run_mod, "play_job", play)
    run_dir = tmp_path / "run"
    # a lost scheduler is no bad input: exit 1 (issue 31; it used to exit 2)
    line = one_line_error(cli("run", ROOT / "experiments/modes.toml", "--games", "30", "--run-dir", run_dir), code=1)
    assert "lost the Dask scheduler" in line and "--resume" in line and "2 finished jobs" in line
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["status"] == "interrupted" and m["jobs_done"] == 2
    monkeypatch.setattr(run_mod, "play_job", real)
    res = cli("run", "--resume", "--run-dir", run_dir)
    assert res.exit_code == 0, res.output
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "complete"


# ---------------------------------------------------------------- 5. precision runs
def test_precision_with_games_zero_is_refused():
    line = one_line_error(cli("simulate", "--precision", "0.02", "--games", "0"))
    assert "--games" in line and "--precision" in line
    from heron_sim.lab.precision import simulate_to_precision
    from heron_sim.rules import Rules

    with pytest.raises(HeronSimError, match="--games"):
        simulate_to_precision(Rules.build(), 0.02, block=0)


class _StopAfter:
    """Stands in for the stop flag: set after ``n`` looks (a signal during the n-th batch)."""

    def __init__(self, n):
        self.n = n

    def is_set(self):
        self.n -= 1
        return self.n < 0

    def set(self):
        self.n = -1

    def clear(self):
        pass


def test_interrupted_precision_run_is_labelled_and_exits_130(monkeypatch, tmp_path):
    monkeypatch.setattr(interrupt, "_stop", _StopAfter(3))
    out = tmp_path / "g.parquet"
    res = cli("simulate", "--precision", "0.001", "--games", "2000", "--json", "--out", out)
    assert res.exit_code == 130, res.output
    doc = json.loads(res.stdout)
    assert doc["interrupted"] is True and doc["stopped"].startswith("interrupted")
    assert "game cap" not in res.stderr and "interrupted before the precision was reached" in res.stderr
    from heron_sim.io import read_meta

    assert read_meta(out)["interrupted"] is True and read_meta(out)["played"] == doc["played"] > 0
    monkeypatch.setattr(interrupt, "_stop", _StopAfter(2))
    res = cli("simulate", "--precision", "0.001", "--games", "2000")
    assert res.exit_code == 130 and "interrupted" in res.stdout.splitlines()[-1]  # the table says so


def test_precision_reached_and_game_cap_are_told_apart():
    from heron_sim.lab.precision import simulate_to_precision, stop_reason
    from heron_sim.rules import Rules

    r = Rules.build()
    assert stop_reason(simulate_to_precision(r, 0.2, block=500)) == "precision reached"
    capped = simulate_to_precision(r, 0.001, block=500, max_games=1000)
    assert stop_reason(capped) == "not reached: game cap of 1,000 games" and len(capped) == 1000


def test_sigterm_precision_real_process(tmp_path):
    proc = _spawn(["simulate", "--precision", "0.0001", "--games", "4000", "--json"])
    wait_working(proc, 4.0)
    proc.send_signal(signal.SIGTERM)
    out, err = _finish(proc, 120)
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["interrupted"] is True and "game cap" not in err and "Traceback" not in err


# ---------------------------------------------------------------- 6. read-only kernel cache
def test_generated_kernel_in_an_unwritable_cache_compiles_in_memory(monkeypatch):
    """The mechanism (fast): a kernel module generated into the cache folder is compiled in
    memory when the folder cannot be written (it used to stat its missing source file)."""
    from heron_sim import _numba_cache as cache
    from heron_sim.loop.kernels import _exec_module

    monkeypatch.setitem(cache._state, "writable", False)
    src = "from numba import njit\n\n@njit(cache=True)\ndef plus_one(x):\n    return x + 1\n"
    import uuid

    path = cache.folder() / "kernels" / f"zz-test-{uuid.uuid4().hex[:8]}" / "_decide.py"
    assert not path.parent.exists()
    mod = _exec_module("heron_sim._kernels_test_zz._decide", src, str(path))
    try:
        assert mod.plus_one(41) == 42
        assert not path.parent.exists()
    finally:
        sys.modules.pop("heron_sim._kernels_test_zz._decide", None)


@pytest.fixture
def read_only_mount(tmpfs):
    return tmpfs("64k", name="ro", read_only=True)


@pytest.mark.slow
def test_read_only_cache_every_command_runs_and_says_so_once(read_only_mount):
    """HERON_SIM_CACHE on a read-only mount with no kernels yet (a container): the command
    compiles in memory, says so once, and gives the same results."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), HERON_SIM_CACHE=str(read_only_mount / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    args = [sys.executable, "-m", "heron_sim", "simulate", "--games", "200", "--seed", "4", "--json"]
    res = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stderr
    said = [ln for ln in res.stderr.splitlines() if "cache folder" in ln]
    assert len(said) == 1 and "Traceback" not in res.stderr, res.stderr
    normal = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                            timeout=600)
    assert json.loads(res.stdout) == json.loads(normal.stdout)


# ---------------------------------------------------------------- 7. lighter games' rules files
def test_rampage_flat_adjacency_is_one_line(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text("adjacency = [1, 2, 3, 4, 0]\n")
    line = one_line_error(cli("game", "rampage", "simulate", "--games", "10", "--rules", f))
    assert "adjacency" in line and "list of lists of integers" in line


# ---------------------------------------------------------------- 3. Dask, honest and interruptible
def test_a_port_that_does_not_speak_dask_is_refused_within_the_timeout():
    """A web server (a dashboard port) used to hang the client forever, ignoring a signal."""
    import http.server

    from heron_sim.runner.executor import get_executor

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        t0 = time.monotonic()
        with pytest.raises(HeronSimError, match="--scheduler: .* Dask scheduler"):
            get_executor(f"tcp://127.0.0.1:{srv.server_address[1]}", timeout=2)
        assert time.monotonic() - t0 < 8
    finally:
        srv.shutdown()


def _slow_rows(i):
    """A batch for the cluster tests: a second of work, then an array (checksummed on the way)."""
    time.sleep(1.0)
    return np.full(3, i, dtype=np.int64)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_killed_scheduler_is_one_line_with_the_finished_batches(tmp_path):
    """A scheduler killed mid-map: ClusterLost (one line) carrying the batches that came back
    (it used to be `TypeError: cannot unpack non-iterable FutureCancelledError`)."""
    pytest.importorskip("distributed")
    from heron_sim.runner.executor import ClusterLost, get_executor

    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                              "--port", str(port), "--no-dashboard"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        addr = f"tcp://127.0.0.1:{port}"
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nthreads", "1",
                                   "--nworkers", "1", "--host", "127.0.0.1", "--no-dashboard", "--no-nanny"],
                                  env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        ex = None
        while time.monotonic() - t0 < 60:
            try:
                ex = get_executor(addr, timeout=2)
                if ex.client.scheduler_info()["workers"]:
                    break
            except HeronSimError:
                pass
            time.sleep(0.3)
        assert ex is not None and ex.client.scheduler_info()["workers"], "no cluster came up"
        box = {}
        got = []

        def run():
            try:
                ex.map(_slow_rows, list(range(30)), progress=got.append)
            except BaseException as err:  # noqa: BLE001 - what the test inspects
                box["err"] = err

        th = threading.Thread(target=run)
        th.start()
        while len(got) < 2 and th.is_alive():
            time.sleep(0.05)
        sched.kill()
        th.join(timeout=60)
        assert not th.is_alive(), "the executor hung after the scheduler died"
        err = box.get("err")
        assert isinstance(err, ClusterLost), repr(err)
        assert "\n" not in str(err) and "lost the Dask scheduler" in str(err)
        kept = [r for r in err.results if r is not None]
        assert len(kept) >= 2 and all(r[0] == i for i, r in enumerate(err.results) if r is not None)
        ex.close()
    finally:
        for p in (worker, sched):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()


def test_terminal_ctrl_c_with_a_local_cluster(tmp_path):
    """Ctrl-C at a terminal reaches the whole process group (workers too): `run` stops, exit
    130, manifest interrupted, resumable (it used to hang forever, manifest in_progress)."""
    pytest.importorskip("distributed")
    run_dir = tmp_path / "run"
    proc = _spawn(["run", ROOT / "experiments/modes.toml", "--games", "400000", "--run-dir", run_dir,
                   "--scheduler", "local-cluster:1"], start_new_session=True)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 120 and proc.poll() is None:
        if (run_dir / "manifest.json").exists():
            break
        time.sleep(0.1)
    time.sleep(3.0)  # batches are running on the worker
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "--resume" in err
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["status"] == "interrupted" and m["interrupted"] is True


# ---------------------------------------------------------------- 7. a fuzzer of rules files
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v) if v == v and abs(v) != float("inf") else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


_scalars = (st.integers(-10**20, 10**20) | st.integers(-3, 40) | st.floats(allow_nan=True, allow_infinity=True)
            | st.booleans() | st.text(max_size=6))
_hostile = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=6)
                        | st.dictionaries(st.text(min_size=1, max_size=5), inner, max_size=3), max_leaves=12)


def _defaults(game: str) -> dict:
    from heron_sim.tomlfile import package_toml

    if game == "heron":
        return package_toml("heron_sim.rules", "data/defaults.toml")
    return package_toml(shipped_games()[game], "data/defaults.toml")


def _mutated(draw_data, defaults: dict) -> dict:
    """Up to three keys of the defaults (or a nested key, or an unknown one) given hostile
    values, or a near-miss: a list flattened, a number off its range, a wrong type."""
    keys = sorted(defaults)
    out = {}
    for _ in range(draw_data.draw(st.integers(1, 3))):
        key = draw_data.draw(st.sampled_from(keys + ["no_such_key"]))
        default = defaults.get(key)
        if isinstance(default, dict) and default and draw_data.draw(st.booleans()):
            sub = draw_data.draw(st.sampled_from(sorted(default)))
            out[key] = {sub: draw_data.draw(_hostile)}
            continue
        near = []
        if isinstance(default, list):
            flat = [x for row in default for x in (row if isinstance(row, list) else [row])]
            near += [flat, default[:1], default + default, [], [default]]
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            near += [default * 1000 + 1, -default - 1, 0, float(default) + 0.5, str(default)]
        value = draw_data.draw(st.sampled_from(near) | _hostile) if near else draw_data.draw(_hostile)
        out[key] = value
    return out


def _load(game: str, path: Path):
    if game == "heron":
        from heron_sim.rules import Rules

        return Rules.build(rules_file=path)
    from heron_sim import games

    return games.get(game).load_rules(str(path), None)


@pytest.mark.parametrize("game", ["heron", *shipped_games()])  # every game the package declares
@settings(max_examples=int(os.environ.get("HS_FUZZ", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_rules_files_give_rules_or_one_line(tmp_path, game, data):
    """Every rules file of every game gives rules or one error line naming what is wrong;
    never a traceback (Rampage's flat adjacency used to be a TypeError)."""
    layer = _mutated(data, _defaults(game))
    f = tmp_path / f"{game}.toml"
    f.write_text("\n".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in layer.items()) + "\n",
                 encoding="utf-8")
    try:
        _load(game, f)
    except HeronSimError as err:
        assert "\n" not in str(err) and str(err)


# ---------------------------------------------------------------- 8. the minor list
def test_simulate_table_says_interrupted(monkeypatch):
    monkeypatch.setattr(interrupt, "_stop", _StopAfter(2))
    res = cli("simulate", "--games", "100000")
    assert res.exit_code == 130
    row = [ln for ln in res.stdout.splitlines() if "interrupted" in ln]
    assert len(row) == 1 and "of 100,000 games" in row[0]


@pytest.mark.parametrize("args", [("game", "rampage", "simulate", "--games", "5000000"),
                                  ("simulate", "--games", "5000000")])
def test_a_second_ctrl_c_says_so_once_without_a_traceback(args):
    proc = _spawn(list(args))
    wait_working(proc, 3.0)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = _finish(proc, 60)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert proc.returncode == 130, err
    assert "Traceback" not in err and lines and lines[-1].startswith("interrupted"), err
    assert sum(ln.startswith("interrupted") for ln in lines) == 1, err


def test_a_part_file_left_by_a_killed_writer_is_removed_by_the_next_write(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = tmp_path / "g.csv"
    left = tmp_path / f".g.csv.{dead.pid}.x1y2.part"  # what a SIGKILL mid-write leaves
    left.write_bytes(b"half a file")
    mine = tmp_path / f".g.csv.{os.getpid()}.live.part"  # a writer still running keeps its file
    mine.write_bytes(b"in progress")
    assert cli("simulate", "--games", "50", "--out", out).exit_code == 0
    assert not left.exists() and mine.exists() and out.is_file()


def test_rules_from_dev_zero_is_bounded():
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    line = one_line_error(cli("rules", "--rules", "/dev/zero"))
    assert "/dev/zero" in line and "MiB" in line


def test_a_bad_rules_set_of_an_experiment_names_the_file(tmp_path):
    f = tmp_path / "bad-set.toml"
    f.write_text('name = "badset"\nkind = "modes"\ngames = 10\n[rules]\nset = { rolls = 99 }\n')
    line = one_line_error(cli("run", f, "--games", "10", "--run-dir", tmp_path / "run"))
    assert str(f) in line and "rolls" in line


# ---------------------------------------------------------------- more: transfers, lost scheduler in tune, disks
def test_every_cluster_transfer_is_checksummed():
    from heron_sim.rules import Rules
    from heron_sim.runner.executor import Batch, _check, _crc, _run_on_worker, play_frame, play_rows

    a, b = np.arange(6, dtype=np.int64), np.ones((2, 3), dtype=np.int16)
    assert _check((a, _crc(a))) is a
    assert _check(((a, b), _crc((a, b)))) == (a, b)
    damaged = a.copy()
    damaged[3] ^= 1
    assert _check((damaged, _crc(a))) is None and _check("garbage") is None
    batch = Batch(Rules.build(), ("greedy",) * 4, 1, 0, 5)
    res, crc = _run_on_worker(play_rows, batch)
    assert crc == _crc(res)
    with pytest.raises(HeronSimError, match="only arrays travel"):
        _run_on_worker(play_frame, batch)  # frames are built on the client, never shipped


def test_lost_scheduler_during_tune_is_one_line(tmp_path, monkeypatch):
    from heron_sim.lab import evaluate as ev
    from heron_sim.runner.executor import ClusterLost

    real, calls = ev.Evaluator.sums, []

    def sums(self, *a, **k):
        calls.append(1)
        if len(calls) == 3:  # the base and one trial done, then the scheduler goes
            raise ClusterLost("--scheduler: lost the Dask scheduler tcp://127.0.0.1:1; 0 of 1 batches had come back")
        return real(self, *a, **k)

    monkeypatch.setattr(ev.Evaluator, "sums", sums)
    spec = tiny_spec(tmp_path)
    line = one_line_error(cli("tune", spec, "--run-dir", tmp_path / "run", "--out", tmp_path / "out"), code=1)
    assert "lost the Dask scheduler" in line and "1 finished trials" in line and "resume" in line
    monkeypatch.setattr(ev.Evaluator, "sums", real)
    res, _ = _tune(spec, tmp_path)
    assert res["trials"] == 3


@pytest.fixture
def small_tmpfs(tmpfs):
    return tmpfs("48k")


def test_tune_on_a_full_then_read_only_disk(tmp_path, small_tmpfs):
    """A full disk: one line, nothing left half-written (it used to leave .tmp<pid> files and a
    traceback); a read-only --out: one line before the first game."""
    spec = tiny_spec(tmp_path)
    out = small_tmpfs / "out"
    line = one_line_error(cli("tune", spec, "--run-dir", tmp_path / "run", "--out", out), code=1)
    assert "No space left" in line
    assert list(small_tmpfs.iterdir()) == []  # no temporary folder, no partial results
    subprocess.run(["mount", "-o", "remount,ro", str(small_tmpfs)], check=True)
    line = one_line_error(cli("tune", spec, "--run-dir", tmp_path / "run2", "--out", out))
    assert "not writable" in line and not (tmp_path / "run2").exists()


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(4))
def test_random_signals_during_tune_then_resume(tmp_path, trial):
    """SIGINT/SIGTERM/SIGKILL at a random time of a real `tune`, then the same command: the
    study completes with every trial finished before the signal kept."""
    import random

    rnd = random.Random(300 + trial)
    sig = rnd.choice([signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
    spec = tiny_spec(tmp_path, trials=12, extra=WIDE)
    args = ["tune", spec, "--run-dir", tmp_path / "run", "--out", tmp_path / "out"]
    proc = _spawn(args)
    time.sleep(rnd.uniform(2.0, 8.0))
    proc.send_signal(sig)
    _, err = _finish(proc, 120)
    if proc.returncode not in (0, -signal.SIGKILL):
        assert proc.returncode == 130 and "Traceback" not in err, err
    before = _trials(tmp_path / "run") if (tmp_path / "run" / "study.journal").exists() else {}
    res = subprocess.run([sys.executable, "-m", "heron_sim", *map(str, args)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT), HERON_SIM_PROGRESS="0"), timeout=600)
    assert res.returncode == 0, res.stderr
    after = _trials(tmp_path / "run")
    assert len(after) == 12 and all(after[k] == v for k, v in before.items())


@pytest.mark.parametrize("game", ["heron", *shipped_games()])  # every game the package declares
def test_every_key_with_a_wrong_shape_is_one_line(tmp_path, game):
    """A sweep of near misses over every key of every game's defaults (the fuzzer samples;
    this covers each key once): a list of lists flattened, a scalar for a list, a list for a
    scalar, a table, a string. Rules or one line, never a traceback."""
    defaults = _defaults(game)
    f = tmp_path / "r.toml"
    for key, default in defaults.items():
        tries = ["x", {"k": 1}]
        if isinstance(default, list):
            flat = [x for row in default for x in (row if isinstance(row, list) else [row])]
            firsts = [row[0] if isinstance(row, list) and row else 0 for row in default]  # same length
            tries += [flat, firsts, 3, [[flat]]]
        elif not isinstance(default, dict):
            tries += [[default, default], [[1]]]
        for value in tries:
            f.write_text(f"{json.dumps(key)} = {_toml_value(value)}\n", encoding="utf-8")
            try:
                _load(game, f)
            except HeronSimError as err:
                assert "\n" not in str(err) and str(err)
