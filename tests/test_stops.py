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


def test_keepers_say_what_each_file_holds(tmp_path):
    """What the second signal's line says, in every state of a streamed file: batches written
    but the file still open (closed, labelled and renamed now), a file already closed by the
    first stop (said, not dropped: the line used to claim nothing was written), nothing written
    (the old file kept, no .part)."""
    from heron_sim import interrupt
    from heron_sim.io import FrameWriter

    df = pd.DataFrame({"game": range(3)})
    try:
        with interrupt.handle_signals():
            done = tmp_path / "done.parquet"
            with FrameWriter(done, {"requested": 100}, keep_on_stop=True) as w:
                w.write(df)
                w.meta.update(played=3, interrupted=True)
            open_ = tmp_path / "open.csv"
            w2 = FrameWriter(open_, {"requested": 100}, keep_on_stop=True).__enter__()
            w2.write(df)
            w2.write(df)
            empty = tmp_path / "empty.parquet"
            empty.write_bytes(b"old")
            w3 = FrameWriter(empty, {"requested": 100}, keep_on_stop=True).__enter__()
            line = interrupt._second_line()
            w2.__exit__(None, None, None)
            w3.__exit__(None, None, None)  # already settled: nothing changes
    finally:
        interrupt.reset()
    assert f"kept the 3 of 100 games in {done} (labelled interrupted)" in line, line
    assert f"kept the 6 of 100 games already written, in {open_}" in line, line
    assert f"nothing was written to {empty}" in line, line
    assert read_meta(open_)["played"] == len(read_frame(open_)) == 6 and read_meta(open_)["interrupted"]
    assert empty.read_bytes() == b"old"
    _no_parts(tmp_path)


def test_library_keyboard_interrupt_keeps_the_written_batches(tmp_path, monkeypatch):
    """From Python (no handlers): a KeyboardInterrupt between two batches of
    :func:`simulate_to_file` keeps the batches written, labelled (they used to be discarded)."""
    import heron_sim.simulation as sim
    from heron_sim.rules import Rules

    real = sim.play_games

    def play(seed, first, R, sids, sp, out, batch, progress, stop, after):
        def cut(a, b, rows):
            if a >= 40:
                raise KeyboardInterrupt  # Ctrl-C while the third batch is played
            after(a, b, rows)

        return real(seed, first, R, sids, sp, out, 20, progress, stop, cut)

    monkeypatch.setattr(sim, "play_games", play)  # simulate --out's one call of the kernels
    for ext in (".parquet", ".csv"):
        path = tmp_path / f"g{ext}"
        with pytest.raises(KeyboardInterrupt):
            sim.simulate_to_file(Rules.build(players=2), 100, 5, "greedy", path)
        df, meta = read_frame(path), read_meta(path)
        assert len(df) == meta["played"] == meta["rows"] == 40
        assert meta["interrupted"] is True and meta["requested"] == 100
        assert df["game"].tolist() == list(range(40))
    _no_parts(tmp_path)


# ---------------------------------------------------------------- every stop acts within seconds
def test_lighter_game_chunks_follow_the_speed(monkeypatch):
    """The chunks of a lighter game are sized from the speed measured (about CHUNK_SECONDS
    each): a slow game no longer plays a 20,000-game chunk before it reads the stop flag, and
    the chunks still join into the games one call gives (game i from stream (seed, i))."""
    from heron_sim import interrupt
    from heron_sim.games import base

    sizes = []

    class Slow:  # 2 ms a game: a 20,000-game chunk would take 40 s
        def simulate(self, rules, games, players, seed, strategies, progress, first_game):
            sizes.append(games)
            time.sleep(0.002 * games)
            return pd.DataFrame({"game": range(first_game, first_game + games)})

    monkeypatch.setattr(base, "CHUNK_SECONDS", 0.2)
    frames = []
    for df in base.simulate_chunks(Slow(), None, 1500, 2, 1, ["greedy"] * 2):
        frames.append(df)
    assert pd.concat(frames)["game"].tolist() == list(range(1500))
    assert max(sizes) <= 2 * 0.2 / 0.002, sizes  # ~100 games a chunk (load can only shrink them)
    interrupt.reset()
    t0 = time.perf_counter()
    for _ in base.simulate_chunks(Slow(), None, 10**7, 2, 1, ["greedy"] * 2):
        if time.perf_counter() - t0 > 1.0:
            interrupt.request_stop("SIGINT")
    try:
        assert time.perf_counter() - t0 < 3.0  # the stop acted at the next chunk
    finally:
        interrupt.reset()


def _signal_after_start(args, delay, sig=signal.SIGINT):
    """Start ``heron-sim ARGS``, wait ``delay`` seconds, send ``sig``: (seconds to exit, rc, stderr)."""
    proc = spawn(args)
    time.sleep(delay)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(sig)
    t0 = time.time()
    try:
        _, err = proc.communicate(timeout=120)
    except Exception:
        proc.kill()
        proc.communicate()
        raise
    return time.time() - t0, proc.returncode, err


def test_ctrl_c_acts_within_seconds_in_a_slow_lighter_game():
    """`game simulate fire-mountain` (the slowest lighter game): Ctrl-C acts within seconds,
    keeps and labels the games played (it used to finish a 20,000-game chunk first: 51 s for
    rampage on a loaded machine)."""
    secs, rc, err = _signal_after_start(["game", "simulate", "fire-mountain", "--games", 2_000_000], 8)
    assert rc == 130 and "Traceback" not in err, err
    assert re.search(r"kept the [\d,]+ of 2,000,000 games", err), err
    assert secs < 10, f"{secs:.1f} s from SIGINT to exit"


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["simulate", "--games", 5_000_000],
    ["turns", "--turns", 300_000_000],
    ["modes", "--games", 2_000_000],
    ["tournament", "--strategies", "greedy,random,prudent", "--games", 2_000_000],
    ["game", "simulate", "rampage", "--games", 2_000_000],
    ["game", "simulate", "akeruption", "--games", 2_000_000],
    ["game", "simulate", "mekong-dragons", "--games", 2_000_000],
], ids=lambda a: "-".join(map(str, a[:3])))
def test_ctrl_c_acts_within_seconds_in_every_command(args):
    secs, rc, err = _signal_after_start(args, 8)
    assert rc == 130 and "Traceback" not in err, err
    assert secs < 10, f"{secs:.1f} s from SIGINT to exit"


def test_a_stop_while_tune_writes_its_results_exits_130(tmp_path, monkeypatch):
    """A SIGTERM acknowledged while `tune` writes its results: exit 130 with the interrupted
    line, the old results left as they were (it used to exit 0, unlabelled)."""
    import heron_sim.lab as lab
    from heron_sim import interrupt
    from tests.helpers import cli
    from tests.test_reliability import tiny_spec

    real = lab.write_outputs

    def write_then_stop(*a, **k):
        paths = real(*a, **k)
        interrupt.request_stop("SIGTERM")  # as the handler does, while the files are written
        return paths

    monkeypatch.setattr(lab, "write_outputs", write_then_stop)
    out = tmp_path / "out"
    try:
        res = cli("tune", tiny_spec(tmp_path), "--run-dir", tmp_path / "run", "--out", out)
    finally:
        interrupt.reset()
    assert res.exit_code == 130, res.output
    last = [ln for ln in res.stderr.splitlines() if ln.strip()][-1]
    assert "interrupted while writing the results" in last and "resume" in last, last
    assert not out.exists()
    monkeypatch.setattr(lab, "write_outputs", real)
    res = cli("tune", tiny_spec(tmp_path), "--run-dir", tmp_path / "run", "--out", out)
    assert res.exit_code == 0 and (out / "front.md").is_file(), res.output


# ---------------------------------------------------------------- no silent reading
@pytest.mark.parametrize("value", ["[1]", '["taureau", 2]', "[0]"])
def test_disabled_powers_by_index_is_one_error_line(value):
    from tests.helpers import cli

    res = cli("rules", "--set", f"disabled_powers={value}")
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: disabled_powers["), res.stderr
    assert "not a guide name" in lines[0] and "taureau" in lines[0]
    from heron_sim.rules import Rules

    assert Rules.build(overrides={"disabled_powers": ["taureau"]}).disabled_powers == (1,)


def test_report_refuses_a_result_file_of_another_job(tmp_path):
    """A run folder's result file swapped for another mode's (same number of rows): `report
    --from` refuses it with one line instead of rendering it under the wrong mode."""
    from tests.helpers import cli

    run_dir = tmp_path / "run"
    assert cli("run", ROOT / "experiments/modes.toml", "--games", "40", "--run-dir", run_dir).exit_code == 0
    folder = run_dir / "modes"
    (folder / "games_8d8.parquet").write_bytes((folder / "games_7d8.parquet").read_bytes())
    res = cli("report", "--from", run_dir, "--out", tmp_path / "rep")
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert lines[-1].startswith("error: --from:") and "games_7d8" in lines[-1] and "games_8d8" in lines[-1]
    assert sum(ln.startswith("error:") for ln in lines) == 1 and "Traceback" not in res.output


def test_report_refuses_a_file_of_another_mode_by_its_column(tmp_path):
    """A file without the new metadata (an older run folder) is still checked by its ``mode``
    column."""
    from heron_sim.runner.run import _check_file_labels
    from heron_sim.errors import HeronSimError

    df = pd.DataFrame({"mode": ["7d8"] * 3, "game": range(3)})
    path = tmp_path / "games_8d8.parquet"
    df.to_parquet(path)
    with pytest.raises(HeronSimError, match="mode 7d8.*games_8d8 \\(mode 8d8\\)"):
        _check_file_labels(path, df, {"key": "games_8d8", "mode": "8d8"})
    _check_file_labels(path, df, {"key": "games_7d8", "mode": "7d8"})


def test_degenerate_metrics_quote_no_figure_of_unfinished_games():
    """No game finished: every win-based figure (guide spread, seat and guide win rates, first
    player advantage, seat balance) is undefined, not 25 points from games nobody won."""
    import math

    import numpy as np

    from heron_sim.lab.metrics import IX, K, METRICS

    S = np.zeros(K)
    S[IX["games"]] = 100
    for g in ("loup", "taureau", "serpent", "lion"):
        S[IX[f"dealt_{g}"]] = 100
    for name in ("guide_spread", "first_player_advantage", "seat_balance", "seat_0_win_rate",
                 "guide_loup_win_rate", "length"):
        assert math.isnan(float(METRICS[name].fn(S, 4))), name
    S[IX["finished"]] = 1  # one game finished, won by seat 0 holding the Loup
    S[IX["rounds_finished"]] = 30
    S[IX["seat_win_0"]] = 1
    S[IX["won_loup"]] = 1
    assert float(METRICS["guide_spread"].fn(S, 4)) == pytest.approx(0.25)
    assert float(METRICS["seat_0_win_rate"].fn(S, 4)) == pytest.approx(0.01)


def test_degenerate_study_says_so_and_quotes_no_figure(tmp_path):
    """A study in which no game finishes (max_rounds in [1, 3]): the finding says "degenerate"
    and quotes no figure; the front writes n/a, not the search's stand-in 1e9."""
    from tests.helpers import cli
    from tests.test_reliability import tiny_spec

    spec = tiny_spec(tmp_path, key="max_rounds", lo=1, hi=3)
    out = tmp_path / "out"
    res = cli("tune", spec, "--run-dir", tmp_path / "run", "--out", out)
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    finding = summary["finding"]
    assert "egenerate" in finding and not re.search(r"\d+\.\d+ ?(pt|%)", finding), finding
    front = (out / "front.md").read_text()
    assert "100000000" not in front and "25.00" not in front.split("Base rules")[0], front


def test_lost_scheduler_is_exit_1_and_dask_silenced(capfd):
    """A lost Dask scheduler is no bad input: ClusterLost is a RunFailure (exit 1); once it is
    lost, Dask's own log lines (reconnection tracebacks) no longer follow our one line."""
    import logging

    from heron_sim.cli._app import ExitCode, boundary
    from heron_sim.errors import HeronSimError, RunFailure
    from heron_sim.runner.executor import ClusterLost, _silence_dask

    err = ClusterLost("--scheduler: lost the Dask scheduler tcp://127.0.0.1:1; 0 of 1 batches had come back")
    assert isinstance(err, RunFailure) and not isinstance(err, HeronSimError)

    def fail():
        raise err

    assert boundary(fail) == ExitCode.FAILURE == 1
    assert capfd.readouterr().err.count("error:") == 1
    pytest.importorskip("distributed")
    import distributed  # noqa: F401  (configures Dask's handlers)

    names = ["distributed", "distributed.client", "tornado"]
    saved = {n: logging.getLogger(n).disabled for n in names}
    levels = {h: h.level for h in logging.getLogger("distributed").handlers}
    try:
        _silence_dask()
        logging.getLogger("distributed.client").error("a reconnection traceback")
        logging.getLogger("distributed.client.later").error("a later one")
        assert "reconnection" not in capfd.readouterr().err
    finally:
        for n, v in saved.items():
            logging.getLogger(n).disabled = v
        for h, lv in levels.items():
            h.setLevel(lv)


def test_local_cluster_opens_no_dashboard():
    """`--scheduler local-cluster`: no dashboard, and nothing on Dask's port 8787 (with
    dashboard_address=None alone the scheduler still served HTTP on 127.0.0.1:8787)."""
    pytest.importorskip("distributed")
    from heron_sim.runner.executor import get_executor

    with get_executor("local-cluster:1") as ex:
        sched = ex.cluster.scheduler
        ports = [s.getsockname()[1] for s in sched.http_server._sockets.values()]
        assert 8787 not in ports and all(p > 0 for p in ports)
        hosts = {s.getsockname()[0] for s in sched.http_server._sockets.values()}
        assert hosts <= {"127.0.0.1"}, hosts


def test_json_requested_is_the_number_asked_after_an_interrupt(monkeypatch, tmp_path):
    """`simulate --precision --json`, interrupted: `requested` is the number asked (the game
    cap, as in the file's metadata), not the games played."""
    from heron_sim import interrupt
    from tests.helpers import cli
    from tests.test_reliability import _StopAfter

    monkeypatch.setattr(interrupt, "_stop", _StopAfter(3))
    out = tmp_path / "g.parquet"
    res = cli("simulate", "--precision", "0.001", "--games", "2000", "--json", "--out", out)
    assert res.exit_code == 130, res.output
    doc = json.loads(res.stdout)
    assert doc["requested"] == read_meta(out)["requested"] == 5_000_000
    assert doc["played"] == read_meta(out)["played"] < doc["requested"]


def test_compare_names_each_job_after_the_mode_it_plays(tmp_path):
    """`compare A B` with B's file in 10d6: B's job is b_10d6 (it used to be named b_8d8)."""
    from heron_sim.runner.compare_rules import compare_experiment
    from heron_sim.runner.kinds import plan_jobs

    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text('mode = "8d8"\n')
    b.write_text('mode = "10d6"\nrolls = 4\n')
    jobs = plan_jobs(compare_experiment(a, b, games=20, seating="greedy"))
    assert {j.key: j.rules.mode for j in jobs} == {"a_8d8": "8d8", "b_10d6": "10d6"}
    from tests.helpers import cli

    run_dir = tmp_path / "run"
    res = cli("compare", a, b, "--games", "30", "--strategy", "greedy", "--run-dir", run_dir)
    assert res.exit_code == 0, res.output
    m = json.loads((run_dir / "manifest.json").read_text())
    assert {j["key"]: j["mode"] for j in m["experiments"][0]["jobs"]} == {"a_8d8": "8d8", "b_10d6": "10d6"}


@pytest.mark.slow
def test_killed_scheduler_real_run_is_exit_1_and_one_line(tmp_path):
    """A real `run --scheduler tcp://...` whose scheduler is killed mid-run: exit 1 and one
    line of ours, no Dask traceback after it (it was exit 2, then Dask's reconnection log)."""
    pytest.importorskip("distributed")
    import os
    import socket
    import subprocess
    import sys

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    addr = f"tcp://127.0.0.1:{port}"
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                              "--port", str(port), "--no-dashboard"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nthreads", "1",
                               "--nworkers", "1", "--host", "127.0.0.1", "--no-dashboard", "--no-nanny"],
                              env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(8)
        run_dir = tmp_path / "run"
        proc = spawn(["run", ROOT / "experiments/modes.toml", "--games", 400_000, "--run-dir", run_dir,
                      "--scheduler", addr])
        assert _wait_for(proc, lambda: (run_dir / "manifest.json").exists(), 120), proc.communicate()
        time.sleep(5)
        sched.kill()
        _, err = proc.communicate(timeout=120)
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert proc.returncode == 1, err
        assert lines[-1].startswith("error: --scheduler: lost the Dask scheduler") and "--resume" in lines[-1]
        assert sum(ln.startswith("error:") for ln in lines) == 1 and "Traceback" not in err, err
    finally:
        for p in (worker, sched):
            if p.poll() is None:
                p.kill()
                p.wait()
