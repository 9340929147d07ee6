"""Fault injection: bad files, hostile TOML, full and read-only disks, interrupted and killed
runs, damaged run folders.

Every case ends in one of two ways: a one-line ``error:`` (exit 2 for bad input, 1 for a file
that cannot be written) or a result that is kept and labelled (``requested``, ``played``,
``interrupted``; exit 130 when interrupted); a file is never half-written.

The fast cases run in ``make test``; the random-time signal storms are marked slow.
"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heron_sim import interrupt
from heron_sim.errors import HeronSimError, OutputError, RulesError
from heron_sim.io import FrameWriter, atomic_path, dumps, read_meta
from heron_sim.rules import Rules
from tests.helpers import cli, one_line_error
from tests.helpers import spawn as _spawn

pytestmark = pytest.mark.cli

ROOT = Path(__file__).resolve().parents[1]


def no_temp_files(folder: Path):
    left = [p.name for p in Path(folder).rglob("*.part")]
    assert not left, f"temporary files left behind: {left}"


# ---------------------------------------------------------------- bad input: one line each
NOT_UTF8 = b"rolls = 4\n# caf\xe9 \xff\n"


@pytest.mark.parametrize("cmd", [
    lambda f: ("rules", "--rules", f),
    lambda f: ("game", "akeruption", "simulate", "--games", "10", "--rules", f),
    lambda f: ("run", f, "--games", "10"),
    lambda f: ("compare", f, f, "--games", "10"),
])
def test_non_utf8_files_are_one_line(tmp_path, cmd):
    f = tmp_path / "bad.toml"
    f.write_bytes(NOT_UTF8)
    line = one_line_error(cli(*cmd(f)))
    assert "UTF-8" in line and str(f) in line


@pytest.mark.parametrize("key", ["board.file", "dice.file"])
def test_non_utf8_or_folder_board_and_dice_files(tmp_path, key):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(NOT_UTF8)
    assert "UTF-8" in one_line_error(cli("rules", "--set", f"{key}='{bad}'"))
    assert "folder" in one_line_error(cli("rules", "--set", f"{key}='{tmp_path}'"))
    assert "not found" in one_line_error(cli("rules", "--set", f"{key}='{tmp_path / 'none.toml'}'"))


def test_combinations_must_be_a_table_everywhere(tmp_path):
    f = tmp_path / "r.toml"
    f.write_text("combinations = 5\n")
    for res in (cli("rules", "--rules", f), cli("rules", "--set", "combinations=5"),
                cli("compare", f, f, "--games", "10")):
        assert "combinations" in one_line_error(res)
    exp = tmp_path / "e.toml"
    exp.write_text('kind = "modes"\n[rules]\nset = { combinations = 5 }\n')
    assert "combinations" in one_line_error(cli("run", exp, "--games", "10"))
    with pytest.raises(RulesError, match="combinations"):
        Rules.build(overrides={"combinations": 5})
    with pytest.raises(RulesError, match="combinations"):
        Rules.from_table({"combinations": [1, 2]})


@pytest.mark.parametrize("args, field", [
    (("simulate", "--games", "abc"), "--games"),
    (("simulate", "--bogus"), "--bogus"),
    (("turns", "--turns", "1e3"), "--turns"),
    (("simulate", "--games", "10", "--strategy", "scripted"), "scripted"),
    (("tournament", "--strategies", "greedy,scripted", "--games", "10"), "scripted"),
    (("simulate", "--games", "10", "--strategy", "prudent:risk=0.1;risk=0.9"), "twice"),
    (("simulate", "--games", "10", "--seed", str(2**63)), "--seed"),
    (("turns", "--turns", "10", "--seed", str(2**64)), "--seed"),
    (("game", "akeruption", "simulate", "--games", "10", "--seed", str(2**63)), "--seed"),
    (("simulate", "--games", "10", "--out", "games.txt"), ".txt"),
    (("simulate", "--games", str(10**13)), "allowed: 0..1,000,000,000,000"),  # sums only: no memory limit
    (("modes", "--games", str(10**13)), "allowed: 0..1,000,000,000,000"),
    (("simulate", "--games", str(10**11), "--out", "g.parquet"), "GB"),  # the games' columns are kept
    (("rules", "--set", "combinations.advance=[0,0,0,1,2,5,7,9,10,10,10,10,10,10]"), "14 entries"),
    (("rules", "--set", "combinations.effect=[1,2]"), "combinations.effect"),
    (("rules", "--set", "dice.file=5"), "dice.file"),
    (("rules", "--set", "disabled_powers=[[1]]"), "disabled_powers"),
])
def test_bad_values_are_one_line(args, field):
    assert field in one_line_error(cli(*args))


def test_out_that_is_a_folder_or_read_only_is_refused_before_playing(tmp_path, monkeypatch):
    called = []
    import heron_sim.simulation as sim

    monkeypatch.setattr(sim, "play_games", lambda *a, **k: called.append(1))  # simulate's entry point
    folder = tmp_path / "games.parquet"
    folder.mkdir()
    assert "folder" in one_line_error(cli("simulate", "--games", "10", "--out", folder))
    import heron_sim.io

    monkeypatch.setattr(heron_sim.io, "_writable", lambda folder: False)
    line = one_line_error(cli("simulate", "--games", "10", "--out", tmp_path / "x.csv"))
    assert "not writable" in line
    assert "not writable" in one_line_error(cli("run", ROOT / "experiments/modes.toml", "--games", "10",
                                                "--run-dir", tmp_path / "run"))
    assert "not writable" in one_line_error(cli("report", "--from", tmp_path, "--out", tmp_path / "rep"))
    assert not called, "games were played before the output path was checked"


def test_json_never_holds_nan():
    res = cli("simulate", "--games", "0", "--json")
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["rounds_mean"] is None and doc["games"] == 0 and doc["played"] == 0
    assert "NaN" not in res.stdout
    assert dumps({"a": float("nan"), "b": [np.float64("inf")]}) == '{"a": null, "b": [null]}'


# ---------------------------------------------------------------- the Rules object
def test_rules_constructor_validates_codes():
    for bad in (dict(combo_effect=(9,) * 9), dict(dice=((9, 1),)), dict(squares=((5, 99),)),
                dict(squares=((70, 1),)), dict(disabled_powers=(8,)), dict(mode="9d9"),
                dict(rolls=True), dict(combo_advance=(-1,) * 9), dict(dice=5)):
        with pytest.raises(RulesError):
            Rules(**bad)


def test_rules_replace_rebuilds_what_depends_on_the_change():
    r = Rules().replace(mode="10d6")
    assert r.n_dice == 10 and r.dice == Rules.build(mode="10d6").dice and len(r.combo_advance) == 11
    assert Rules(mode="10d6").replace(mode="7d8").dice == Rules.build(mode="7d8").dice
    short = Rules().replace(finish=40)
    assert all(s < 40 for s, _ in short.squares) and short.squares
    custom = Rules.build(overrides={"dice.faces": [["loup", "heron"], ["cerf"]]})
    assert custom.mode == "2d1-2*"
    with pytest.raises(RulesError, match="dice="):
        custom.replace(mode="8d8")
    with pytest.raises(RulesError, match="not a field"):
        Rules().replace(colour="blue")


def test_dice_are_labelled_by_what_they_are(tmp_path):
    f = tmp_path / "dice.toml"
    f.write_text('dice = [["loup", "heron", "cerf"], ["loup"]]\n')
    assert Rules.build(mode="8d8", overrides={"dice.file": str(f)}).mode == "2d1-3*"
    assert Rules.build(mode="8d8", overrides={"dice.count": 5}).mode == "5d8"
    assert Rules.build(mode="10d6", overrides={"dice.count": 3}).mode == "3d6*"
    assert Rules(mode="8d8", dice=((0, 1, 2),)).mode == "1d3*"
    r = Rules.build(overrides={"dice.count": 3})
    assert Rules.from_table(r.to_table()) == r


# ---------------------------------------------------------------- hostile TOML (property-based)
_scalars = st.one_of(st.integers(-2**70, 2**70), st.booleans(), st.text(max_size=8),
                     st.floats(allow_nan=True), st.none())
_values = st.recursive(_scalars, lambda c: st.one_of(st.lists(c, max_size=20),
                                                     st.dictionaries(st.text(max_size=8), c, max_size=4)),
                       max_leaves=30)
_keys = st.sampled_from(["mode", "players", "rolls", "finish", "combinations", "combinations.advance",
                         "combinations.effect", "dice", "dice.count", "dice.faces", "dice.file", "board",
                         "board.squares", "board.file", "disabled_powers", "max_rounds", "powers", "x"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_keys, _values, max_size=4))
def test_hostile_overrides_give_a_rules_or_a_one_line_error(overrides):
    overrides = {k: v for k, v in overrides.items() if v is not None}
    try:
        Rules.build(overrides=overrides)
    except HeronSimError as err:
        assert "\n" not in str(err) and str(err)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_hostile_rules_files_give_a_rules_or_a_one_line_error(tmp_path, data):
    f = tmp_path / "hostile.toml"
    f.write_bytes(data)
    for build in (lambda: Rules.build(rules_file=f),
                  lambda: __import__("heron_sim.runner", fromlist=["x"]).load_experiment(f)):
        try:
            build()
        except HeronSimError as err:
            assert "\n" not in str(err) and str(err)


# ---------------------------------------------------------------- writes: atomic, full disk
def test_atomic_write_keeps_the_old_file_on_failure(tmp_path):
    path = tmp_path / "out.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_path(path) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert path.read_text() == "old\n"
    no_temp_files(tmp_path)


def _enospc_after(monkeypatch, n_ok: int):
    """Make FrameWriter.write fail with ENOSPC after ``n_ok`` batches (a full disk)."""
    real = FrameWriter.write
    count = {"n": 0}

    def write(self, df):
        count["n"] += 1
        if count["n"] > n_ok:
            raise OutputError(f"{self.path}: cannot write: {os.strerror(errno.ENOSPC)}")
        return real(self, df)

    monkeypatch.setattr(FrameWriter, "write", write)


@pytest.mark.parametrize("ext", [".csv", ".parquet"])
def test_full_disk_is_one_line_after_the_summary_and_the_old_file_survives(tmp_path, monkeypatch, ext):
    path = tmp_path / f"games{ext}"
    path.write_bytes(b"previous results")
    _enospc_after(monkeypatch, 1)
    import heron_sim.simulation as sim

    monkeypatch.setattr(sim, "STREAM_WINDOW", sim.DEFAULT_BATCH)  # 9,000 games: 3 writes
    res = cli("simulate", "--games", "9000", "--out", path, "--json")
    line = one_line_error(res, code=1)
    assert "No space left" in line
    assert json.loads(res.stdout)["games"] == 9000  # the summary was printed first, complete
    assert path.read_bytes() == b"previous results"
    no_temp_files(tmp_path)


@pytest.fixture
def small_tmpfs(tmpfs):
    """A 256 kB tmpfs (conftest's ``tmpfs``: skipped where it cannot be mounted)."""
    return tmpfs("256k", why=" (the ENOSPC test above monkeypatches the write)")


def test_really_full_tmpfs(small_tmpfs):
    path = small_tmpfs / "games.csv"
    res = cli("simulate", "--games", "20000", "--out", path)
    assert "No space left" in one_line_error(res, code=1)
    assert "win rate seat 1" in res.stdout
    assert not path.exists()
    no_temp_files(small_tmpfs)
    subprocess.run(["mount", "-o", "remount,ro", str(small_tmpfs)], check=True)
    assert "not writable" in one_line_error(cli("simulate", "--games", "10", "--out", small_tmpfs / "g.csv"))


def test_out_records_requested_played_interrupted(tmp_path):
    for ext in (".parquet", ".csv"):
        path = tmp_path / f"g{ext}"
        assert cli("simulate", "--games", "300", "--out", path).exit_code == 0
        meta = read_meta(path)
        assert (meta["requested"], meta["played"], meta["interrupted"], meta["rows"]) == (300, 300, False, 300)
        df = pd.read_parquet(path) if ext == ".parquet" else pd.read_csv(path)
        assert len(df) == 300 and df["game"].tolist() == list(range(300))


# ---------------------------------------------------------------- interruption (in process)
def test_stop_request_keeps_finished_batches_and_labels_them(tmp_path, monkeypatch):
    """A stop requested once batch 3 is in ends the run within the slices already started:
    every game before the first one not played kept, written, labelled."""
    import heron_sim.simulation as sim

    real = sim.play_games

    def play(seed, first, R, sids, sp, out, batch, progress, stop, after):  # simulate --out's one call
        seen = [0]

        def counted(k):
            progress(k)
            seen[0] += k
            if seen[0] >= 3 * sim.DEFAULT_BATCH:
                interrupt.request_stop("SIGINT")

        return real(seed, first, R, sids, sp, out, batch, counted, stop, after)

    monkeypatch.setattr(sim, "play_games", play)
    path = tmp_path / "g.parquet"
    try:
        res = cli("simulate", "--games", "100000", "--out", path, "--json")
    finally:
        interrupt.reset()
    assert res.exit_code == 130
    n = json.loads(res.stdout)["played"]
    assert 3 * sim.DEFAULT_BATCH <= n < 4 * sim.DEFAULT_BATCH
    assert "interrupted" in res.stderr and f"{n:,} of 100,000" in res.stderr
    doc = json.loads(res.stdout)
    assert (doc["games"], doc["played"], doc["requested"], doc["interrupted"]) == (n, n, 100000, True)
    df = pd.read_parquet(path)
    assert df["game"].tolist() == list(range(n))
    assert read_meta(path)["interrupted"] is True


def test_interrupted_run_is_refused_by_report_and_resumed_without_replay(tmp_path, monkeypatch):
    import heron_sim.runner.run as run_mod

    real, played = run_mod.play_job, []

    def play(job, progress=None):
        played.append(job.key)
        df = real(job, progress)
        if len(played) == 2:
            interrupt.request_stop("SIGTERM")
        return df

    monkeypatch.setattr(run_mod, "play_job", play)
    run_dir = tmp_path / "run"
    try:
        res = cli("run", ROOT / "experiments/modes.toml", "--games", "40", "--run-dir", run_dir)
    finally:
        interrupt.reset()
    assert res.exit_code == 130 and "--resume" in res.stderr
    m = json.loads((run_dir / "manifest.json").read_text())
    assert (m["status"], m["jobs_done"], m["jobs_total"], m["played"]) == ("interrupted", 2, 4, 80)
    line = one_line_error(cli("report", "--from", run_dir, "--out", tmp_path / "rep"))
    assert "partial run" in line and "--resume" in line
    assert "--resume" in one_line_error(cli("run", ROOT / "experiments/modes.toml", "--games", "40",
                                            "--run-dir", run_dir))
    first = played[:]
    res = cli("run", "--resume", "--run-dir", run_dir)
    assert res.exit_code == 0, res.output
    assert not set(played[len(first):]) & set(first), "finished jobs were replayed"
    m = json.loads((run_dir / "manifest.json").read_text())
    assert (m["status"], m["jobs_done"], m["played"], m["requested"]) == ("complete", 4, 160, 160)
    assert "complete" in one_line_error(cli("run", "--resume", "--run-dir", run_dir))
    no_temp_files(run_dir)


@pytest.mark.parametrize("damage", ["garbage", "not_utf8", "list", "no_jobs", "missing_parquet",
                                    "truncated_parquet"])
def test_damaged_run_folders_are_one_line(tmp_path, damage):
    run_dir = tmp_path / "run"
    assert cli("run", ROOT / "experiments/modes.toml", "--games", "20", "--run-dir", run_dir).exit_code == 0
    manifest = run_dir / "manifest.json"
    part = next((run_dir / "modes").glob("*.parquet"))
    if damage == "garbage":
        manifest.write_text("{not json")
    elif damage == "not_utf8":
        manifest.write_bytes(b"\xff\xfe{}")
    elif damage == "list":
        manifest.write_text("[1, 2]")
    elif damage == "no_jobs":
        manifest.write_text(json.dumps({"experiments": [{"experiment": {}}]}))
    elif damage == "missing_parquet":
        part.unlink()
    else:
        part.write_bytes(part.read_bytes()[:100])
    one_line_error(cli("report", "--from", run_dir, "--out", tmp_path / "rep"))


# ---------------------------------------------------------------- real signals (subprocess)
def _wait_for_start(proc, path: Path, timeout=120.0):
    """Wait until the run has started writing (its temporary file exists)."""
    t0 = time.time()
    while time.time() - t0 < timeout and proc.poll() is None:
        if list(path.parent.glob(f".{path.name}.*.part")):
            return True
        time.sleep(0.05)
    return False


def _check_signalled_simulate(tmp_path, sig, delay):
    path = tmp_path / "games.parquet"
    path.write_bytes(b"old results")
    games = 5_000_000
    proc = _spawn(["simulate", "--games", games, "--out", path, "--json"])
    assert _wait_for_start(proc, path), proc.communicate()
    time.sleep(delay)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
        assert path.read_bytes() == b"old results"  # the old file is untouched; nothing half-written
        return
    assert proc.returncode == 130, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines[-1].startswith("interrupted") and "Traceback" not in err
    doc = json.loads(out)
    if doc["played"] == 0:  # stopped before the first batch: nothing to keep, old file intact
        assert path.read_bytes() == b"old results"
        return
    meta = read_meta(path)
    df = pd.read_parquet(path)
    assert doc["played"] == meta["played"] == len(df) == doc["games"] and doc["interrupted"] and meta["interrupted"]
    assert len(df) < games and df["game"].tolist() == list(range(len(df)))
    no_temp_files(tmp_path)


def test_sigint_real_process_keeps_and_labels(tmp_path):
    _check_signalled_simulate(tmp_path, signal.SIGINT, 0.5)


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(6))
def test_random_signals_real_process(tmp_path, trial):
    rnd = random.Random(trial)
    sig = rnd.choice([signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
    _check_signalled_simulate(tmp_path, sig, rnd.uniform(0.0, 3.0))


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(4))
def test_random_signals_during_a_run_then_resume(tmp_path, trial):
    """SIGINT/SIGTERM/SIGKILL at a random time of ``run``, then ``run --resume``: the folder
    ends complete, with every job's file holding exactly its games."""
    rnd = random.Random(100 + trial)
    sig = rnd.choice([signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
    run_dir = tmp_path / "run"
    proc = _spawn(["run", ROOT / "experiments/modes.toml", "--games", "30000", "--run-dir", run_dir])
    t0 = time.time()
    while not (run_dir / "manifest.json").exists() and time.time() - t0 < 120:
        time.sleep(0.05)
    time.sleep(rnd.uniform(0.0, 6.0))
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)
    m = json.loads((run_dir / "manifest.json").read_text())
    if proc.returncode == 0:
        assert m["status"] == "complete"
    elif m["status"] != "complete":  # (a signal after the run's last write finds it complete)
        assert m["status"] in ("in_progress", "interrupted")
        if sig != signal.SIGKILL:
            assert proc.returncode == 130 and "--resume" in err and "Traceback" not in err
        res = _spawn(["run", "--resume", "--run-dir", run_dir])
        out, err = res.communicate(timeout=600)
        assert res.returncode == 0, err
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["status"] == "complete" and m["played"] == m["requested"] == 4 * 30000
    for j in m["experiments"][0]["jobs"]:
        assert len(pd.read_parquet(run_dir / "modes" / f"{j['key']}.parquet")) == 30000


class _StopAfter:
    """Stands in for the stop flag: set after ``n`` looks (a Ctrl-C during the n-th batch)."""

    def __init__(self, n):
        self.n = n

    def is_set(self):
        self.n -= 1
        return self.n < 0

    def set(self):
        self.n = -1

    def clear(self):
        pass


@pytest.mark.parametrize("args, what", [
    (("turns", "--turns", "3000000", "--json"), "turns"),
    (("modes", "--games", "20000", "--json"), "games"),
    (("tournament", "--strategies", "greedy,random,prudent", "--games", "3000", "--json"), "games"),
    (("game", "rampage", "simulate", "--games", "60000", "--json"), "games"),
])
def test_every_command_stops_at_a_batch_boundary_and_labels(monkeypatch, args, what):
    monkeypatch.setattr(interrupt, "_stop", _StopAfter(2))
    res = cli(*args)
    assert res.exit_code == 130, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted") and what in lines[0], res.stderr
    doc = json.loads(res.stdout)
    assert doc["interrupted"] is True and 0 < doc["played"] < doc["requested"]
    if args[0] in ("game", "turns"):  # the summary holds exactly the games (turns) played
        assert doc["games" if args[0] == "game" else "turns"] == doc["played"]
