"""Performance figures of heron-sim (``make bench``). Not a test: prints medians and ratios.

    python benchmarks/bench.py [--repeats 5] [--quick]

Measures, on this machine:
- four-player 8d8 greedy games per second with 1 and 2 threads (in-process, warm kernels);
- single turns per second of the ``turns`` kernel;
- four-player 8d8 games per second of ``expert`` players against ``greedy`` players (1 thread,
  interleaved, and their ratio: the target is at most 2x);
- the build time of the expert's 10d8 tables (kernels warm) and their load time from the
  disk cache;
- the wall time of ``heron-sim simulate --games 10000`` with a warm and with a cold numba cache
  (a fresh cache folder), Python start-up included;
- the wall time of ``heron-sim game NAME simulate --games 10000`` for each lighter game (warm).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "heron_sim"]


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), times


def wall(cmd, env=None):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    return time.perf_counter() - t


def expert_rows(rules, games, repeats):
    """expert vs greedy games/s (interleaved repeats, one thread), 10d8 table build and load."""
    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate
    from heron_sim.strategies import expert_dp

    simulate(rules, 200, seed=1, strategies="expert")  # tables and kernels ready
    times = {"greedy": [], "expert": []}
    for _ in range(repeats):
        for name in times:
            t = time.perf_counter()
            simulate(rules, games, seed=1, strategies=name, threads=1)
            times[name].append(time.perf_counter() - t)
    rate = {k: games / statistics.median(v) for k, v in times.items()}
    rows = [
        ("8d8 expert 4-player games/s, 1 thread", f"{rate['expert']:,.0f}"),
        ("8d8 greedy 4-player games/s, 1 thread (same runs)", f"{rate['greedy']:,.0f}"),
        ("greedy / expert games/s (target <= 2)", f"{rate['greedy'] / rate['expert']:.2f}x"),
    ]
    r10 = Rules.build(mode="10d8")
    expert_dp.build_tables(Rules.build(mode="7d8"))  # numba compiles the programme
    build = statistics.median(expert_dp.build_tables(r10).seconds for _ in range(min(repeats, 3)))
    rows.append(("expert tables 10d8: build (kernels warm)", f"{build:.1f} s"))
    cache = tempfile.mkdtemp(prefix="heron-tables-")
    old = os.environ.get("HERON_SIM_CACHE")
    try:
        os.environ["HERON_SIM_CACHE"] = cache
        expert_dp._tables_cached.cache_clear()
        expert_dp.expert_tables(r10)  # builds and saves
        loads = []
        for _ in range(repeats):
            expert_dp._tables_cached.cache_clear()
            loads.append(expert_dp.expert_tables(r10).seconds)
        rows.append(("expert tables 10d8: load from the disk cache", f"{statistics.median(loads) * 1e3:.0f} ms"))
    finally:
        if old is None:
            os.environ.pop("HERON_SIM_CACHE", None)
        else:
            os.environ["HERON_SIM_CACHE"] = old
        expert_dp._tables_cached.cache_clear()
        shutil.rmtree(cache, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--quick", action="store_true", help="skip the cold-cache run and the lighter games")
    args = parser.parse_args()

    import numba

    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate, simulate_turns

    rules = Rules.build(mode="8d8")
    simulate(rules, 200, seed=1)  # load or compile the kernels
    simulate_turns(rules, 1000, 1)
    print(f"heron-sim benchmark — {os.cpu_count()} cores, numba {numba.__version__}, "
          f"{args.repeats} repeats, medians\n")
    rows = []
    rates = {}
    for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}):
        med, _ = median_time(lambda: simulate(rules, args.games, seed=1, threads=threads), args.repeats)
        rates[threads] = args.games / med
        rows.append((f"8d8 greedy 4-player games/s, {threads} thread(s)", f"{rates[threads]:,.0f}"))
    if len(rates) == 2:
        rows.append(("speed-up 2 threads / 1 thread", f"{rates[2] / rates[1]:.2f}x"))
    n_turns = 2_000_000
    med, _ = median_time(lambda: simulate_turns(rules, n_turns, 1), args.repeats)
    rows.append(("single turns/s (turns kernel, all threads)", f"{n_turns / med:,.0f}"))
    rows.extend(expert_rows(rules, args.games // 2, args.repeats))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)

    warm = statistics.median(wall(CLI + ["simulate", "--games", "10000", "--json"]) for _ in range(args.repeats))
    rows.append(("`heron-sim simulate --games 10000` wall, warm cache", f"{warm:.2f} s"))
    if not args.quick:
        cold_dir = tempfile.mkdtemp(prefix="heron-cold-")
        try:
            env = dict(os.environ, NUMBA_CACHE_DIR=cold_dir)
            cold = wall(CLI + ["simulate", "--games", "10000", "--json"], env=env)
            rows.append(("`heron-sim simulate --games 10000` wall, cold cache", f"{cold:.1f} s"))
        finally:
            shutil.rmtree(cold_dir, ignore_errors=True)
        from heron_sim.games import available

        for name in available():
            wall(CLI + ["game", name, "simulate", "--games", "200"])  # warm its cache
            t = statistics.median(wall(CLI + ["game", name, "simulate", "--games", "10000"]) for _ in range(3))
            rows.append((f"`heron-sim game {name} simulate --games 10000` wall", f"{t:.2f} s"))
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value:>12}")
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_tune.py")] + (["--quick"] if args.quick else []), cwd=ROOT, check=True)  # the lab's 200-candidate study


if __name__ == "__main__":
    main()
