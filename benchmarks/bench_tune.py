"""The lab's benchmark: a default-panel study (8 tables of people) of 120 candidates at 20,000 games a
table, ladder and racing included (target: within 15 minutes on 2 cores). Run by ``make
bench`` (benchmarks/bench.py).

    python benchmarks/bench_tune.py [--trials 120] [--games 20000] [--quick] [--luck]

The study is experiments/tune-guides.toml's search space and panel with its own trial and game counts,
in a temporary run folder (nothing is kept). Prints the search time, the racing time, games
played and games per second.

``--luck`` (issue 32 item 3): then the same study again in the same run folder with ``[racing] luck
= true`` (the search, the ladder and the first rung re-used; the last rung played again with the
players' luck), and prints its extra time and, over the finalists' evidence at every table, the
variance ratio (plain ÷ luck-adjusted) of the figures of the wins and of each goal's loss, and the
games a table each goal test needs to be decided, plain and adjusted.
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
    ap.add_argument("--luck", action="store_true", help="then the last rung again, luck-adjusted (about +6 min)")
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
            marks.setdefault("search", time.perf_counter())  # the first study's (--luck runs a second)
        print(f"  {msg}" if len(msg) < 200 else f"  {msg[:197]}...", flush=True)

    try:
        t0 = time.perf_counter()
        res = tune(spec, run_dir=tmp / "run", out=tmp / "out", log=log, progress=False)
        total = time.perf_counter() - t0
        if args.luck:
            t1 = time.perf_counter()
            lucky = tune(spec, run_dir=tmp / "run", out=tmp / "out-luck", log=log, progress=False, luck=True)
            luck_s = time.perf_counter() - t1
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
    if args.luck:
        print_luck(res, lucky, luck_s)


def print_luck(plain: dict, lucky: dict, seconds: float) -> None:
    """The luck-adjusted last rung against the plain one: its time, the variance ratios of the
    evidence's figures of the wins (every finalist, every table) and each goal test's games."""
    import numpy as np

    ratios, used = {}, 0
    for e in lucky["finalists"]:
        for rows in e["effects_by_scenario"].values():
            for x in rows:
                r = x.get("luck_variance_ratio")
                if x.get("estimate") == "luck-adjusted":
                    used += 1
                if r is not None and r != 1.0:
                    kind = ("guide" if x["metric"].startswith("guide_") and x["metric"] != "guide_spread"
                            else "seat" if x["metric"].startswith("seat_") and x["metric"] != "seat_balance"
                            else x["metric"])
                    ratios.setdefault(kind, []).append(r)
    print(f"\nluck-adjusted last rung ({lucky['last_games']:,} games a rules set and table): "
          f"{seconds:.1f} s more (the search, ladder and first rung re-used)")
    print(f"  figures of the wins luck-adjusted: {used} (the narrower of the two at each table)")
    for kind, r in sorted(ratios.items()):
        q = np.quantile(r, [0, 0.5, 1])
        print(f"  variance ratio, paired difference of {kind:<24} median {q[1]:.2f} (min {q[0]:.2f}, max {q[2]:.2f}; "
              f"{len(r)} figures)")
    print("  goal tests (finalist, goal): loss [95 %] plain -> adjusted; decision; games a table to decide it")
    by_id = {e["id"]: e for e in plain["finalists"]}
    for e in lucky["finalists"]:
        p = by_id.get(e["id"])
        for o, q in zip(e["objectives"], (p or {}).get("objectives", [])):
            if o.get("goal") is None:
                continue
            print(f"    {e['id']:>6} {o['metric']}: [{q['loss_low']:.4f}, {q['loss_high']:.4f}] -> "
                  f"[{o['loss_low']:.4f}, {o['loss_high']:.4f}] ({o['estimate']}, ratio "
                  f"{o.get('luck_variance_ratio') or float('nan'):.2f}); {q.get('decision')} -> {o.get('decision')}; "
                  f"{q.get('games_needed')} -> {o.get('games_needed')}")


if __name__ == "__main__":
    main()
