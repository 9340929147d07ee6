"""Compiling a plan's kernels ahead (heron_sim.runner.warm): which kernels a plan needs, and a
real warm-up in worker processes that leaves them in the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from heron_sim.rules import Rules
from heron_sim.runner import warm
from heron_sim.runner.run import Job

pytestmark = pytest.mark.exact

ROOT = Path(__file__).resolve().parents[1]


def _jobs():
    r = Rules.build(mode="8d8")
    return [
        Job("a", "games", r, 1000, 1, [["greedy"] * 4]),
        Job("b", "games", r, 1000, 1, [["greedy", "expert", "greedy", "expert"]]),
        Job("c", "games", r, 1000, 1, [["racer"] * 4]),  # alone, but a plan shares the kernel
        Job("d", "turns", r, 10**6, 2, strategy="greedy"),
        Job("e", "turns", r, 10**6, 2, strategy="prudent"),
        Job("f", "games", r, 1000, 1, [["greedy"] * 4, ["greedy", "racer", "greedy", "racer"]]),
    ]


def test_a_plan_needs_the_greedy_kernel_and_the_shared_one():
    groups = [warm._group(j) for j in _jobs()]
    assert groups == [("heron", "greedy"), ("heron", "shared"), ("heron", "shared"),
                      ("heron", "greedy"), ("heron", "shared"), None]  # f mixes both: no group


def test_each_cold_group_is_warmed_by_one_small_job_of_each_kind(monkeypatch):
    monkeypatch.setattr(warm, "_cold", lambda group: True)
    groups = warm.warm_groups(_jobs())
    assert set(groups) == {("heron", "greedy"), ("heron", "shared")}
    shared = groups[("heron", "shared")]
    assert [(j.key, j.kind, j.n) for j in shared] == [("b", "games", 2), ("e", "turns", 64)]
    greedy = groups[("heron", "greedy")]
    assert [(j.key, j.kind, j.n) for j in greedy] == [("a", "games", 2), ("d", "turns", 64)]
    monkeypatch.setattr(warm, "_cold", lambda group: group[1] == "shared")
    assert set(warm.warm_groups(_jobs())) == {("heron", "shared")}


def test_nothing_to_overlap_nothing_started(monkeypatch):
    monkeypatch.setattr(warm, "_cold", lambda group: group[1] == "shared")  # one group only
    started = []
    monkeypatch.setattr(warm, "ProcessPoolExecutor", lambda *a, **k: started.append(1))
    assert warm.compile_ahead(_jobs(), workers=2) == 0
    monkeypatch.setattr(warm, "_cold", lambda group: False)
    assert warm.compile_ahead(_jobs(), workers=2) == 0
    assert not started


@pytest.mark.slow
def test_a_real_warm_up_leaves_the_kernels_in_the_cache(tmp_path):
    """Two lighter games compiled ahead in two worker processes of a fresh cache: both are then
    warm, and the log says so."""
    code = textwrap.dedent("""
        from heron_sim.runner import warm
        from heron_sim.runner.kinds import plan_jobs
        from heron_sim.runner.config import load_experiment
        exp = load_experiment("experiments/games.toml")
        jobs = [j for j in plan_jobs(exp) if j.labels.get("game") in ("akeruption", "rampage")]
        groups = sorted(warm.warm_groups(jobs))
        print(groups)
        lines = []
        n = warm.compile_ahead(jobs, log=lines.append, workers=2)
        print(n, [warm._cold(g) for g in groups])
        print(lines)
    """)
    env = dict(os.environ, HERON_SIM_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "[('game', 'akeruption'), ('game', 'rampage')]"
    assert lines[1] == "2 [False, False]"
    assert "compiling 2 kernels ahead in 2 processes" in lines[2]


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="the warm-up needs two cores")
def test_ctrl_c_during_the_warm_up_stops_the_workers_and_labels_the_run(tmp_path):
    """Ctrl-C while the kernels compile ahead: the workers end at once (no traceback from
    them), the run is kept as interrupted with nothing played, exit 130."""
    import signal
    import time

    env = dict(os.environ, HERON_SIM_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)
    cmd = [sys.executable, "-m", "heron_sim", "run", "experiments/modes.toml", "experiments/pond.toml",
           "--games", "200", "--run-dir", str(tmp_path / "run")]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stderr.readline()  # the warm-up's first line, before any game
    assert "kernels ahead in 2 processes" in line, line
    time.sleep(1.0)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert time.perf_counter() - t0 < 30  # not after the compilations
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert [l for l in err.splitlines() if l.startswith("interrupted")], err
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["interrupted"] is True and manifest["played"] == 0


def test_machine_tasks_cover_every_strategy_and_game_once():
    from heron_sim.games import available
    from heron_sim.strategies import REGISTRY

    from heron_sim.loop import kernels

    with kernels.own_kernel():
        tasks = warm.machine_tasks()
    assert len(tasks) == len(set(tasks))
    sids = {REGISTRY[n].sid for k, n in tasks if k == "batch" and n != "shared"}
    assert sids == {i.sid for n, i in REGISTRY.items() if n != "scripted"}  # every kernel, once
    names = {n for k, n in tasks if k == "batch"}
    assert {n for k, n in tasks if k == "turns"} == names
    assert {n for k, n in tasks if k == "game"} == set(available())
    assert tasks[0] == ("batch", "shared")  # the longest first
    with kernels.shared_kernel():  # single strategies in the shared kernel: greedy and shared only
        tasks = warm.machine_tasks()
    assert {n for k, n in tasks if k != "game"} == {"shared", "greedy"} and len(tasks) == 4 + len(available())


def test_compile_machine_does_nothing_on_a_warm_or_read_only_cache(monkeypatch):
    monkeypatch.setattr(warm.cache, "writable", lambda: False)
    assert warm.compile_machine() == 0
    monkeypatch.setattr(warm.cache, "writable", lambda: True)
    monkeypatch.setattr(warm, "machine_tasks", lambda: [("batch", "greedy")])  # one task: nothing to overlap
    assert warm.compile_machine(workers=2) == 0
