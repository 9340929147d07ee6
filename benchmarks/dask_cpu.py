"""The Dask CPU ratio (issue 61 item 4): the same games on a local Dask cluster and in one
process, every process's CPU counted (client, scheduler, nannies, workers: start, kernels'
load, games, close). ``make bench`` prints it (benchmarks/bench.py); alone:

    python benchmarks/dask_cpu.py [--games N] [--workers 1,2] [--table greedy|mix] [--work counts|rows|both]

Each run is a process of its own started from here: its CPU is this process's
``RUSAGE_CHILDREN`` before and after it (the workers are its children, waited for when the
cluster closes, so their CPU is counted in it). Two workloads: ``counts`` (the summary's sums,
what ``simulate --json`` keeps: locally heron_sim.simulation.simulate_counts on every core, on
the cluster heron_sim.runner.executor.count_games, the counts added up on the workers) and
``rows`` (a ``run`` job's per-game frame: locally heron_sim.runner.play.play_job, on the
cluster the same job through the executor, each batch's rows shipped back packed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLES = {"greedy": "greedy", "mix": "greedy,prudent,expert,racer"}


def child(where: str, work: str, games: int, table: str) -> dict:
    """One run in this process (started by :func:`measure`): ``where`` is ``local`` or
    ``local-cluster:N``."""
    t0 = time.perf_counter()
    from heron_sim.rules import Rules

    rules = Rules.build(mode="8d8")
    seats = TABLES[table].split(",")
    seats = seats * (4 // len(seats))  # one name a seat, as a run's jobs hold them
    info: dict = {}
    if where == "local":
        t1 = time.perf_counter()
        if work == "counts":
            from heron_sim.simulation import simulate_counts

            played = simulate_counts(rules, games, 3, seats).played
        else:
            from heron_sim.runner.jobs import Job
            from heron_sim.runner.play import play_job

            played = len(play_job(Job(key="k", kind="games", rules=rules, n=games, seed=3, seatings=[seats])))
        t2 = t3 = time.perf_counter()
    else:
        from heron_sim.runner.executor import count_games, get_executor, play_games_job

        ex = get_executor(where)
        try:
            ex.client.wait_for_workers(int(where.split(":")[1]), timeout=120)
            t1 = time.perf_counter()
            if work == "counts":
                played = count_games(rules, games, 3, seats, ex).played
            else:
                from heron_sim.runner.jobs import Job

                played = len(play_games_job(Job(key="k", kind="games", rules=rules, n=games, seed=3,
                                                seatings=[seats]), ex))
            t2 = time.perf_counter()
            secs = sorted(ex.task_seconds)
            info = {"tasks": len(secs), "task_median_s": secs[len(secs) // 2] if secs else 0.0,
                    "task_min_s": secs[0] if secs else 0.0, "task_max_s": secs[-1] if secs else 0.0}
        finally:
            ex.close()
        t3 = time.perf_counter()
    if played != games:
        raise SystemExit(f"played {played} of {games}")
    me = resource.getrusage(resource.RUSAGE_SELF)
    return {"start_s": t1 - t0, "games_s": t2 - t1, "close_s": t3 - t2, "self_cpu_s": me.ru_utime + me.ru_stime,
            **info}


def measure(where: str, work: str, games: int, table: str) -> dict:
    """One run in a process of its own: its wall phases and the CPU seconds of every process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", where, "--work", work,
                          "--games", str(games), "--table", table],
                         capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise RuntimeError(f"{where} {work}: {out.stderr.strip().splitlines()[-1:]}")
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    doc.update(wall_s=wall, cpu_s=(after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return doc


#: Games of each workload in ``make bench``: the counts as many as fixed costs (a worker's start,
#: about 2 CPU seconds) weigh little against; the rows fewer (their 1.3 kB a game are in memory).
GAMES = {"counts": 4_000_000, "rows": 1_000_000}
#: The few games whose run measures the fixed costs (start, kernels, close) alone.
FEW = 20_000


def figures(games: dict | None = None, workers=(1, 2), table: str = "greedy", works=("counts", "rows")) -> dict:
    """For each workload: the local run, then a cluster of each size in ``workers``; for the
    counts, also a run of :data:`FEW` games locally and on the largest cluster (the fixed
    costs, taken off both for the marginal ratio)."""
    games = {**GAMES, **(games or {})}
    fig: dict = {"games": games, "table": table, "cores": os.cpu_count()}
    for work in works:
        fig[work] = {"local": measure("local", work, games[work], table)}
        for n in workers:
            fig[work][f"cluster{n}"] = measure(f"local-cluster:{n}", work, games[work], table)
        if work == "counts":
            fig[work]["few_local"] = measure("local", work, FEW, table)
            fig[work]["few_cluster"] = measure(f"local-cluster:{max(workers)}", work, FEW, table)
    return fig


def rows_of(fig: dict) -> list[tuple[str, str, str]]:
    """(label, value, target) lines for ``make bench``."""
    out = []
    for work in ("counts", "rows"):
        if work not in fig:
            continue
        g = fig["games"][work]
        loc = fig[work]["local"]
        what = "the summary's sums (simulate --json)" if work == "counts" else "a run job's per-game frame"
        out.append((f"Dask: {g:,} {fig['table']} games, {what}; one process: CPU / wall; games/s",
                    f"{loc['cpu_s']:.1f} / {loc['wall_s']:.1f} s; {g / loc['games_s']:,.0f}", ""))
        for key, c in fig[work].items():
            if not key.startswith("cluster"):
                continue
            n = key[len("cluster"):]
            target = "<= 1.2x (issue 61)" if n == "2" else ""
            out.append((f"  {n}-worker local cluster: the Dask CPU ratio (CPU / wall)",
                        f"{c['cpu_s'] / loc['cpu_s']:.2f}x ({c['cpu_s']:.1f} / {c['wall_s']:.1f} s)", target))
            out.append((f"  {n}-worker local cluster: start, close; games/s while playing",
                        f"{c['start_s']:.1f}, {c['close_s']:.1f} s; {g / c['games_s']:,.0f}", ""))
            out.append((f"  {n}-worker local cluster: tasks; seconds a task (min / median / max)",
                        f"{c['tasks']}; {c['task_min_s']:.2f} / {c['task_median_s']:.2f} / {c['task_max_s']:.2f}",
                        ">= 1 s a task (issue 61)"))
        if "few_cluster" in fig[work]:
            fl, fc = fig[work]["few_local"], fig[work]["few_cluster"]
            big = fig[work][max((k for k in fig[work] if k.startswith("cluster")), key=lambda k: int(k[7:]))]
            out.append((f"  fixed CPU ({FEW:,} games): local / cluster; the marginal ratio beyond it",
                        f"{fl['cpu_s']:.1f} / {fc['cpu_s']:.1f} s; "
                        f"{(big['cpu_s'] - fc['cpu_s']) / max(1e-9, loc['cpu_s'] - fl['cpu_s']):.2f}x", ""))
    return out


def available() -> str | None:
    """None if dask.distributed can be imported, else the line that says why the section is skipped."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return "Dask CPU ratio: skipped (dask.distributed is not installed: pip install 'distributed')"
    return None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=None, help="games of each workload (default: 4 M counts, 1 M rows)")
    p.add_argument("--workers", default="1,2")
    p.add_argument("--table", choices=sorted(TABLES), default="greedy")
    p.add_argument("--work", choices=("counts", "rows", "both"), default="both")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.work, args.games or GAMES[args.work], args.table)))
        return
    why = available()
    if why:
        print(why)
        return
    works = ("counts", "rows") if args.work == "both" else (args.work,)
    print(f"load average at start {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    games = {w: args.games for w in works} if args.games else None
    fig = figures(games, tuple(int(x) for x in args.workers.split(",")), args.table, works)
    for label, value, target in rows_of(fig):
        print(f"{label:<72} {value:>34}  {target}")
    print(json.dumps(fig))


if __name__ == "__main__":
    main()
