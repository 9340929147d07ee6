"""The lab's benchmark: a default-panel study (8 tables of people) of 120 candidates at 20,000 games a
table, ladder and racing included (target: within 15 minutes on 2 cores). Run by ``make
bench`` (benchmarks/bench.py).

    python benchmarks/bench_tune.py [--trials 120] [--games 20000] [--quick]

The study is experiments/tune-guides.toml's search space and panel with its own trial and game counts,
in a temporary run folder (nothing is kept). Prints the search time, the racing time, games
played and games per second.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=120)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--quick", action="store_true", help="20 trials x 2,000 games (a smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.trials, args.games = 20, 2000
    from heron_sim.lab import load_spec, tune

    spec = load_spec(ROOT / "experiments" / "tune-guides.toml")
    spec = spec.with_overrides(trials=args.trials, games=args.games)
    tmp = Path(tempfile.mkdtemp(prefix="heron-bench-tune-"))
    marks = {}

    def log(msg: str) -> None:
        if msg.startswith("search done"):
            marks["search"] = time.perf_counter()
        print(f"  {msg}" if len(msg) < 200 else f"  {msg[:197]}...", flush=True)

    try:
        t0 = time.perf_counter()
        res = tune(spec, run_dir=tmp / "run", out=tmp / "out", log=log, progress=False)
        total = time.perf_counter() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    search = marks.get("search", t0) - t0
    print(f"\nlab study: {args.trials} candidates x {args.games:,} games x {len(spec.panel)} tables, "
          f"racing rungs {list(spec.rungs)}, "
          f"{os.cpu_count()} cores")
    print(f"  search (trials, base)        {search:8.1f} s")
    print(f"  racing (front re-evaluation) {total - search:8.1f} s")
    print(f"  total                        {total:8.1f} s  ({total / 60:.1f} min; target <= 15 min on 2 cores)")
    print(f"  games played                 {res['games_played']:>10,}  ({res['games_played'] / total:,.0f} games/s)")


if __name__ == "__main__":
    main()
