"""Performance figures of heron-sim (``make bench``). Not a test: prints medians, targets, and
the ratio to a baseline version measured in the same run.

    python benchmarks/bench.py [--repeats 5] [--games 50000] [--baseline REF] [--quick] [--report]
    python benchmarks/bench.py --ladder [--repeats 5] [--games 50000]   # the ladder's figures only
    python benchmarks/bench.py --edit [--repeats 5]   # the explorer's edit to its first figures only
    python benchmarks/bench.py --luck   # the luck-adjusted estimates' variance ratios only

Measures, on this machine (in-process figures: medians of ``--repeats`` runs, warm kernels):
- four-player 8d8 greedy games per second with 1 and 2 threads (target >= 55,000 and, issue 32,
  200,000);
- single turns per second of the ``turns`` kernel, 2 threads (target >= 20 M);
- four-player 8d8 expert games per second, 1 thread, and greedy / expert (target <= 2x);
- four-player 8d8 prudent and racer games per second, 1 thread, and the AI mix (greedy,
  prudent, expert, racer) with 1 and 2 threads (target >= 120,000 on 2 threads, issue 32);
- the ladder's mixed table (novice, casual, regular, expert) with 1 and 2 threads (target >=
  70,000 on 2 threads, issue 28; 100,000, issue 32) and four novices, 1 thread; and, because the machine is shared
  and noisy, their CPU time per game against the AI mix's, measured in alternation in the same
  process (the median of the rounds' ratios: a figure the load moves much less);
- where an expert seat's time goes (benchmarks/roll_phase.py, this version only): nanoseconds
  per roll phase, greedy's and the expert's fused ones with each roll-time power ready (and the
  share of those turns still handed to the generic loop), and the power uses per game of four
  experts;
- the same figures for the baseline version ``--baseline`` (default: the commit named in
  benchmarks/baseline.txt, the engine before the speed work), checked out in a temporary git
  worktree and run in its own process with the same machine, repeats and games: the ratio
  current / baseline is printed beside each figure (the baseline is skipped if git or the
  commit is missing, or with ``--baseline none``; on a machine where the baseline never ran,
  its first run compiles all of its kernels, several minutes);
- the wall time of ``heron-sim simulate --games 10000`` with a warm and with an empty cache
  (a fresh ``HERON_SIM_CACHE``; target < 30 s), Python start-up and compilation included;
- the first-run wall time of ``heron-sim game NAME simulate --games 10000`` for each lighter
  game with an empty cache (target < 30 s), and its warm time;
- ``heron-sim explore`` after a change: the seconds until 20,000 games of the AI mix per side
  (base and variant, bootstrap updates included) are in, and until the first estimate, warm
  kernels (target <= 1 s): the base's games of the change before are read back, as on the page;
  also with a new base (both sides played, 40,000 games); and through the real server, the
  designer's edit to the first figures (issue 33 item 3, target <= 1 s), for values whose expert
  tables are ready and for values never played on the machine (their tables built); and the
  board view after a change (issue 60 item 3; benchmarks/explore_board.py: the change to its first
  view on screen, target <= 10 s on 2 cores, and to the refined view);
  ``--explore`` prints only these figures, ``--edit`` only the edit's;
- the luck-adjusted estimates (issue 32): for the AI mix's, the ladder's and a 6-player ladder table's (issue 59 item 1), the variance
  ratio (plain ÷ adjusted) of each seat's and each guide's win rate with bootstrap intervals, and
  the games a table needs for a ±0.5-point interval on a guide's win rate, plain and adjusted,
  and the CPU time of a game with the luck against without (the same games: where CPU time is
  the limit, the luck pays only below the variance ratio, docs/luck.md);
  and the variance ratio of the paired difference variant − rulings (``heron_patience_doubling``,
  the same seeds) of each guide's win rate and of the guide spread; and for each table of the lab's
  default panel the median guide ratio, and the share of its games a default-panel study needs
  for the same intervals (``--luck`` prints only these);
- then benchmarks/bench_tune.py: the lab's default-panel study (target <= 15 min on 2 cores) and,
  not with ``--quick``, its last rung again luck-adjusted (``--luck``: its extra time, the variance
  ratios of the finalists' figures of the wins, the goal tests plain and adjusted; about 23 min);
- the Dask CPU ratio (issue 61 item 4; benchmarks/dask_cpu.py, ``--dask`` prints only it): the
  CPU of every process (client, scheduler, workers; start, kernels and close included) of 4 M
  greedy games' summary sums and of 1 M games' run frame on a local 1- and 2-worker cluster
  against the same games in one process (target <= 1.2x at 2 workers), with the games/s while
  playing, each task's seconds (target >= 1 s), the fixed costs and the marginal ratio beyond
  them; skipped with one line when dask.distributed is not installed;
- with ``--report``: the wall time of ``heron-sim report`` (the whole test plan, simulation,
  analysis and rendering) with an empty cache, as ``make report`` runs it on a fresh clone
  (target < 5 min).

Figures on a shared or busy machine are noisy: the bench prints the load average it started at.
"""

from __future__ import annotations

import argparse
import json
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


def worker(games: int, repeats: int) -> dict:
    """In-process figures of the package on sys.path (run in a subprocess per version)."""
    import numba

    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate, simulate_turns

    rules = Rules.build(mode="8d8")
    threads = sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)})
    simulate(rules, 600, seed=1)  # load or compile the kernels
    simulate(rules, 200, seed=1, strategies="expert")
    simulate_turns(rules, 1000, 1)
    res = {}

    def med(fn):
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    for th in threads:
        res[f"greedy_{th}"] = games / med(lambda: simulate(rules, games, seed=1, threads=th))
    n_turns = 4_000_000
    res["turns_2"] = n_turns / med(lambda: simulate_turns(rules, n_turns, 1, threads=threads[-1]))
    eg = games // 4
    res["expert_1"] = eg / med(lambda: simulate(rules, eg, seed=1, strategies="expert", threads=1))
    res["greedy_expert_ratio"] = res["greedy_1"] / res["expert_1"]
    try:  # the AI mix, one seat each (a version without prudent or racer has no figure)
        mix = ["greedy", "prudent", "expert", "racer"]
        simulate(rules, 400, seed=1, strategies=mix)
        for th in threads:
            res[f"mix_{th}"] = games / med(lambda: simulate(rules, games, seed=1, strategies=mix, threads=th))
        for name in ("prudent", "racer"):
            simulate(rules, 200, seed=1, strategies=name)
            res[f"{name}_1"] = eg / med(lambda: simulate(rules, eg, seed=1, strategies=name, threads=1))
    except Exception as err:  # noqa: BLE001 - an older version's API: those rows are left out, and said so
        print(f"(no prudent / racer / AI-mix figures for this version: {type(err).__name__}: {err})", file=sys.stderr)
    try:  # the ladder (issue 28; a version without the human rungs has no figure)
        res.update(ladder_figures(rules, games, repeats, threads))
    except Exception as err:  # noqa: BLE001 - an older version: those rows are left out, and said so
        print(f"(no ladder figures for this version: {type(err).__name__}: {err})", file=sys.stderr)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return res


LADDER = ["novice", "casual", "regular", "expert"]
AI_MIX = ["greedy", "prudent", "expert", "racer"]


def ladder_figures(rules, games: int, repeats: int, threads: list[int]) -> dict:
    """The ladder's mixed table (and four novices): games per second (wall, medians), and CPU
    time per game against the AI mix's in the same rounds (1 thread; the median of the rounds'
    ratios, each round timing the AI mix, the ladder and the novices one after the other)."""
    from heron_sim.simulation import simulate

    res = {}
    simulate(rules, 400, seed=1, strategies=LADDER)
    simulate(rules, 400, seed=1, strategies=["novice"] * 4)
    for th in threads:
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            simulate(rules, games, seed=1, strategies=LADDER, threads=th)
            times.append(time.perf_counter() - t)
        res[f"ladder_{th}"] = games / statistics.median(times)
    g = max(1, games // 4)
    rounds = {"ai": [], "ladder": [], "novice": []}
    for _ in range(repeats):
        for key, seats in (("ai", AI_MIX), ("ladder", LADDER), ("novice", ["novice"] * 4)):
            t = time.process_time()
            simulate(rules, g, seed=1, strategies=seats, threads=1)
            rounds[key].append(g / (time.process_time() - t))
    res["ladder_cpu_1"] = statistics.median(rounds["ladder"])
    res["novice_cpu_1"] = statistics.median(rounds["novice"])
    res["mix_cpu_1"] = statistics.median(rounds["ai"])
    res["ladder_mix_ratio"] = statistics.median(a / b for a, b in zip(rounds["ladder"], rounds["ai"]))
    res["novice_mix_ratio"] = statistics.median(a / b for a, b in zip(rounds["novice"], rounds["ai"]))
    return res


def ladder_rows(cur: dict, base: dict | None = None, ref: str = "") -> list[tuple]:
    """The ladder's rows of the table (label, value, ratio to the baseline, target)."""
    rows = []
    for th in (1, 2):
        if f"ladder_{th}" in cur:
            ratio = f"{cur[f'ladder_{th}'] / base[f'ladder_{th}']:.2f}x {ref[:10]}" if base and f"ladder_{th}" in base else ""
            rows.append((f"8d8 ladder (novice, casual, regular, expert) games/s, {th} thread{'s' if th > 1 else ''}",
                         f"{cur[f'ladder_{th}']:,.0f}", ratio,
                         ">= 70,000 (issue 28), >= 100,000 (issue 32)" if th == 2 else ""))
    if "ladder_mix_ratio" in cur:
        rows.append(("  ladder / AI mix, games per CPU second (1 thread, same rounds)",
                     f"{cur['ladder_mix_ratio']:.2f}x", f"({cur['ladder_cpu_1']:,.0f} / {cur['mix_cpu_1']:,.0f})",
                     "~0.58x (70,000 / the mix's ~120,000, 2026-12-06)"))
        rows.append(("  four novices / AI mix, games per CPU second (1 thread, same rounds)",
                     f"{cur['novice_mix_ratio']:.2f}x", f"({cur['novice_cpu_1']:,.0f} / {cur['mix_cpu_1']:,.0f})", ""))
    return rows


#: The rule variant of the luck's paired figures (issue 32 item 4: a paired guide-spread difference)
PAIRED_VARIANT = {"heron_patience_doubling": True}


def luck_figures(games: int = 20_000, boots: int = 100, seed: int = 1) -> dict:
    """Issue 32 item 4: how many games the luck-adjusted estimates save (heron_sim.analysis.
    luck_adjust). For the AI mix's and the ladder's 4-player 8 D8 tables, ``games`` games with each
    seat's luck: the variance ratio (plain ÷ adjusted) of each seat's and each guide's win rate,
    with a 95 % interval from ``boots`` bootstrap resamples of the games (the whole adjustment,
    cross-fitting included, redone on each), and the games a table needs for a ±0.5-point interval
    on a guide's win rate, plain and adjusted (the median guide's ratio). Then the same games
    under :data:`PAIRED_VARIANT` (the same seed: game ``i`` of each from one stream): the
    variance ratio of the paired difference variant − rulings of each guide's win rate and of
    the guide spread (luck_adjust.paired_guide_differences: each run's control of the holder), with
    bootstrap intervals (the games resampled in pairs)."""
    import numpy as np

    from heron_sim.analysis.luck_adjust import (
        adjusted_win_rates, paired_guide_differences, paired_variance_ratio, variance_ratio,
    )
    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate

    from heron_sim.runner.jobs import seatings

    out = {}
    # issue 59 item 1: the three tables of the ratio's goal (>= 3 with the finish luck): the AI mix,
    # the ladder and a 6-player table of the ladder's rungs (its paired figures not played: time)
    for name, seats in (("AI mix", AI_MIX), ("ladder", LADDER), ("rungs-6", seatings(LADDER, 6)[0])):
        rules = Rules.build(mode="8d8", players=len(seats))
        variant = Rules.build(mode="8d8", players=len(seats), overrides=PAIRED_VARIANT)
        simulate(rules, 200, seed=seed, strategies=seats, luck=True, threads=1)  # the luck row built
        cpu = {}
        for luck in (False, True):  # CPU seconds of the same games, without and with the luck
            t = time.process_time()
            df = simulate(rules, games, seed=seed, strategies=seats, luck=luck, threads=1)
            cpu[luck] = time.process_time() - t

        def ratios(frame):
            vr = variance_ratio(adjusted_win_rates(frame))
            return np.array(vr["seat"] + [vr["guide"][g] for g in sorted(vr["guide"])])

        point = ratios(df)
        rng = np.random.default_rng(seed)
        boot = np.array([ratios(df.iloc[rng.integers(0, len(df), len(df))].reset_index(drop=True))
                         for _ in range(boots)])
        lo, hi = np.nanpercentile(boot, [2.5, 97.5], axis=0)
        P = len(seats)
        guide_ratio = float(np.median(point[P:]))
        p_win, dealt = 0.25, P / 7  # a guide's win rate when dealt, and the share of games it is dealt in
        plain_games = 1.96 ** 2 * p_win * (1 - p_win) / 0.005 ** 2 / dealt
        out[name] = {"seat": list(zip(point[:P], lo[:P], hi[:P])), "guide": list(zip(point[P:], lo[P:], hi[P:])),
                     "guide_median": guide_ratio, "games_plain": plain_games, "games_adjusted": plain_games / guide_ratio,
                     "cpu_plain": cpu[False], "cpu_luck": cpu[True]}
        # why a table stays below 3x, measured (issue 59 item 1): the same games on a board without
        # its special squares, whose jumps the luck of the dice does not see (docs/luck.md)
        bare = Rules.build(mode="8d8", players=len(seats), overrides={"board": {"squares": {}}})
        nb = ratios(simulate(bare, games, seed=seed, strategies=seats, luck=True, threads=1))
        out[name]["no_squares"] = {"seat": list(nb[:P]), "guide_median": float(np.median(nb[P:]))}
        if len(seats) != 4:
            continue
        dv = simulate(variant, games, seed=seed, strategies=seats, luck=True, threads=1)

        def paired_ratios(base, var):
            vr = paired_variance_ratio(paired_guide_differences(base, var))
            return np.array([vr["spread"]] + [vr["guide"][g] for g in sorted(vr["guide"])])

        pair = paired_guide_differences(df, dv)
        point = paired_ratios(df, dv)
        boot = []
        for _ in range(boots):
            idx = rng.integers(0, len(df), len(df))
            boot.append(paired_ratios(df.iloc[idx].reset_index(drop=True), dv.iloc[idx].reset_index(drop=True)))
        lo, hi = np.nanpercentile(np.array(boot), [2.5, 97.5], axis=0)
        guides = sorted(pair["guide"])
        out[name]["paired"] = {
            "spread": (point[0], lo[0], hi[0]), "spread_fig": pair["spread"],
            "guide": {g: (point[1 + k], lo[1 + k], hi[1 + k]) for k, g in enumerate(guides)},
            "guide_fig": pair["guide"]}
    return out


def luck_panel_figures(games: int = 20_000, seed: int = 7) -> dict:
    """Issue 32 item 4: the games a default-panel study needs for the same precision, before and
    after the luck. Each table of the lab's default panel (heron_sim.runner.panel.DEFAULT_PANEL, its
    first seating), ``games`` 8 D8 games with luck: the median over the guides of the variance
    ratio of a guide's win rate, with every luck (weighted, landing) and with the plain lucks only
    (the others' columns dropped). A study playing the same games on every table needs mean(1 / ratio) of its
    games for the same intervals."""
    import numpy as np

    from heron_sim.analysis.luck_adjust import adjusted_win_rates, variance_ratio
    from heron_sim.runner.panel import DEFAULT_PANEL
    from heron_sim.rules import Rules
    from heron_sim.runner.run import seatings
    from heron_sim.simulation import simulate

    tables = {}
    for sc in DEFAULT_PANEL:
        seats = seatings(list(sc.strategies), sc.players)[0]
        df = simulate(Rules.build(mode="8d8", players=sc.players), games, seed=seed, strategies=seats, luck=True)
        plain = df.drop(columns=[c for c in df.columns if c.startswith("luck_seat") and "_" in c[len("luck_seat"):]])
        tables[sc.name] = tuple(float(np.median(list(variance_ratio(adjusted_win_rates(f))["guide"].values())))
                                for f in (df, plain))
    share = {k: float(np.mean([1 / t[k] for t in tables.values()])) for k in (0, 1)}
    return {"tables": tables, "share_weighted": share[0], "share_plain": share[1], "games": games}


def luck_panel_rows(fig: dict) -> list[tuple]:
    """The panel's luck rows (label, value, detail, target)."""
    per = ", ".join(f"{name} {w:.2f} ({p:.2f})" for name, (w, p) in fig["tables"].items())
    return [("luck: default panel, each table's median guide ratio, all lucks (plain lucks)", per, "", ""),
            ("luck: games a default-panel study needs for the same intervals",
             f"x{fig['share_weighted']:.2f} (x{fig['share_plain']:.2f} with the plain lucks, x1 without luck)", "",
             "<= x0.33 (issue 32: 3x fewer)")]


def luck_rows(fig: dict) -> list[tuple]:
    """The luck figures' rows (label, value, detail, target)."""
    rows = []
    for name, f in fig.items():
        seats = ", ".join(f"{r:.2f} [{lo:.2f}, {hi:.2f}]" for r, lo, hi in f["seat"])
        guides = [r for r, _, _ in f["guide"]]
        low = min(f["guide"])
        rows.append((f"luck: variance ratio plain/adjusted, {name}, seats 1-{len(f['seat'])}", seats, "",
                     ">= 3x (issue 59 item 1)"))
        rows.append((f"luck: variance ratio, {name}, the 7 guides (min [its interval], median, max)",
                     f"{low[0]:.2f} [{low[1]:.2f}, {low[2]:.2f}], {f['guide_median']:.2f}, {max(guides):.2f}", "",
                     ">= 3x (issue 59 item 1)"))
        if "no_squares" in f:  # the measured reason where a ratio stays below 3x
            nb = f["no_squares"]
            rows.append((f"luck: the same table on a board without its special squares, {name} (why below 3x)",
                         "seats " + ", ".join(f"{r:.2f}" for r in nb["seat"]) + f"; guides' median {nb['guide_median']:.2f}",
                         "", "the squares' jumps are luck the dice's value does not see (docs/luck.md)"))
        rows.append((f"luck: games a table for a guide's rate to ±0.5 point, {name}",
                     f"{f['games_plain']:,.0f} plain -> {f['games_adjusted']:,.0f} adjusted", "", ""))
        if "cpu_luck" in f:  # does it pay where CPU time is the limit (docs/luck.md)
            cost = f["cpu_luck"] / f["cpu_plain"]
            rows.append((f"luck: CPU a game with the luck / without, {name} (1 thread, the same games)",
                         f"{cost:.1f}x ({f['cpu_luck']:.2f} s / {f['cpu_plain']:.2f} s)", "",
                         f"pays where < {f['guide_median']:.2f}x (the guides' median ratio): "
                         f"{cost / f['guide_median']:.1f}x the CPU for the same interval"))
        if "paired" in f:
            p = f["paired"]
            r, lo, hi = p["spread"]
            sp = p["spread_fig"]
            variant = ", ".join(f"{k} = {v}" for k, v in PAIRED_VARIANT.items()).replace("True", "true")
            rows.append((f"luck: paired {variant} - rulings, {name}: guide spread difference",
                         f"{sp['plain']:+.4f} ± {1.96 * sp['plain_se']:.4f} plain, {sp['adjusted']:+.4f} ± "
                         f"{1.96 * sp['adjusted_se']:.4f} adjusted (through {'/'.join(sp['spread_guides'])}, margins "
                         f"{sp['spread_margin'][0]:.1f}/{sp['spread_margin'][1]:.1f} se)", "", ""))
            rows.append((f"luck: variance ratio, {name}, paired guide spread difference", f"{r:.2f} [{lo:.2f}, {hi:.2f}]",
                         "", ""))
            rows.append((f"luck: variance ratio, {name}, paired difference by guide",
                         ", ".join(f"{g} {r:.2f} [{lo:.2f}, {hi:.2f}]" for g, (r, lo, hi) in p["guide"].items()), "", ""))
            heron = p["guide_fig"].get("heron")
            if heron is not None:
                rows.append((f"luck: paired difference of the Héron's win rate, {name}",
                             f"{heron['plain']:+.4f} ± {1.96 * heron['plain_se']:.4f} plain, {heron['adjusted']:+.4f} ± "
                             f"{1.96 * heron['adjusted_se']:.4f} adjusted", "", ""))
    return rows


def explore_figures(repeats: int = 3, games: int = 20_000) -> dict:
    """``heron-sim explore`` after a change: seconds until ``games`` games of the AI mix per side
    (rulings and variant, the page's own job: chunks, columns, bootstrap updates) and until the
    first estimate, with warm kernels; each repeat is a new variant (the expert's tables are
    built for it, as after a change on the page). Also the engine alone on the same games."""
    from heron_sim.explore.form import parse_setup
    from heron_sim.explore.live import PLAYED, CompareJob
    from heron_sim.explore.stats import weights
    from heron_sim.runner.panel import AI_MIX
    from heron_sim.runner.executor import play_rows, split_games

    weights()

    def setup(bull):
        return parse_setup({"values": {"anxiety_threshold": 4, "bull_bonus": bull}, "games": games,
                            "seats": list(AI_MIX), "rotate": True})

    def play(s):
        job = CompareJob("bench", s)
        t = time.perf_counter()
        while not job.finished:
            job.step()
        return time.perf_counter() - t, job.first_update_s

    play(setup(20))  # load the kernels (and keep the base's games)
    runs = [play(setup(b)) for b in range(repeats)]
    total = statistics.median(r[0] for r in runs)
    both = []
    for b in range(repeats):  # a new base as well (mode, players or seating changed): both sides
        PLAYED.clear()
        both.append(play(setup(10 + b))[0])
    s = setup(19)
    t = time.perf_counter()
    for rules in (s.base, s.variant):
        for b in split_games(rules, s.seatings, 1, games):
            play_rows(b)
    engine = time.perf_counter() - t
    return {"explore_s": total, "explore_both_s": statistics.median(both),
            "explore_first_s": statistics.median(r[1] for r in runs),
            "explore_engine_s": engine, "explore_games": games, "load": os.getloadavg()[0],
            **explore_edit_figures(repeats), **explore_board_figures(repeats)}


def explore_board_figures(repeats: int = 3) -> dict:
    """The board view after a change, through the real server (benchmarks/explore_board.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import explore_board  # benchmarks/explore_board.py

    return explore_board.figures(repeats)


def explore_edit_figures(repeats: int = 5) -> dict:
    """The designer's edit to the first figures through the real server, twice: for values whose
    expert tables this process already holds (the variants ``explore_figures`` played: an edit
    back to a value tried before, or of a key the expert's turn does not depend on) and, in a
    fresh process whose tables folder is empty (the kernels still warm), for values never played
    on this machine: each edit then waits for the expert's tables of its new rules."""
    from heron_sim._numba_cache import numba_folder
    from heron_sim.explore.form import parse_setup
    from heron_sim.explore.live import CompareJob
    from heron_sim.runner.panel import AI_MIX

    for b in edit_values(repeats):  # the values "seen before": their tables built in this process
        CompareJob("bench", parse_setup({"values": {"anxiety_threshold": 4, "bull_bonus": b},
                                         "seats": list(AI_MIX), "rotate": True})).step()  # 512 games
    seen = explore_edit_to_first_figure(repeats)
    folder = tempfile.mkdtemp(prefix="heron-bench-tables-")
    try:
        env = dict(os.environ, HERON_SIM_CACHE=folder, NUMBA_CACHE_DIR=str(numba_folder()), PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--edit-worker", "--repeats", str(repeats)],
                             capture_output=True, text=True, env=env, cwd=ROOT, check=True)
        new = json.loads(out.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"explore_edit_s": seen, "explore_edit_new_s": new}


def edit_values(repeats: int) -> list[int]:
    """The ``bull_bonus`` of each measured edit (with ``anxiety_threshold = 4``): never the
    rulings' value, whose variant is the warm-up's own (its tables ready)."""
    from heron_sim.rules import Rules

    rulings = Rules.build(mode="8d8").bull_bonus
    return [b for b in range(100) if b != rulings][:repeats]


def explore_edit_to_first_figure(repeats: int = 5) -> float:
    """Through the real server (uvicorn on 127.0.0.1, the page's own requests): seconds from the
    designer's edit to the first figures of the new rules, i.e. the page's 150 ms pause before it
    asks, then ``POST /api/run`` and the event stream up to its first update with rows; the job
    of the edit before is still playing (100,000 games), as on the page. Warm kernels; each repeat
    is a new variant (``bull_bonus``, on which the expert's turn depends: its tables are built
    unless this process or the tables folder already has them). Median."""
    import json
    import threading

    import httpx
    import uvicorn

    from heron_sim.explore.app import create_app
    from heron_sim.explore.server import bind
    from heron_sim.runner.panel import AI_MIX

    sock = bind(0)
    app = create_app()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    debounce = 0.150  # the page waits this long after an edit before it asks (explore.js)

    def first_figure(values):
        doc = {"tab": "bench", "mode": "8d8", "players": 4, "seats": list(AI_MIX), "rotate": True, "seed": 1,
               "games": 100_000, "values": values}
        with httpx.Client(base_url=base, timeout=120) as client:
            t = time.perf_counter()
            job = client.post("/api/run", json=doc).json()["job"]
            event = None
            with client.stream("GET", f"/api/stream/{job}") as r:
                for line in r.iter_lines():
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: ") and event == "update" and json.loads(line[6:]).get("rows"):
                        return debounce + time.perf_counter() - t
        raise RuntimeError("the stream ended with no figure")

    try:
        while not getattr(server, "started", False):
            time.sleep(0.05)
        first_figure({"anxiety_threshold": 4})  # load the kernels, the base's games
        return statistics.median(first_figure({"anxiety_threshold": 4, "bull_bonus": b}) for b in edit_values(repeats))
    finally:
        app.state.stopping = True
        server.should_exit = True
        thread.join(10)
        app.state.engine.close()


def explore_rows(fig: dict) -> list[tuple]:
    g = fig["explore_games"]
    return [(f"`explore` after a change: {g:,} AI-mix games per side in", f"{fig['explore_s']:.2f} s", "", "<= 1 s"),
            (f"  ... after a new base too (mode, players or seats: {2 * g:,} games played)",
             f"{fig['explore_both_s']:.2f} s", "", ""),
            ("`explore` after a change: first estimate in", f"{fig['explore_first_s']:.2f} s", "", "~1 s"),
            ("`explore` through its server: the designer's edit to the first figures",
             f"{fig['explore_edit_s']:.2f} s", "", "<= 1 s"),
            ("  ... a value never played here (the expert's tables built)", f"{fig['explore_edit_new_s']:.2f} s", "", "<= 1 s"),
            (f"  the engine alone on the same {2 * g:,} games", f"{fig['explore_engine_s']:.2f} s", "", "")] + (
        __import__("explore_board").rows(fig) if "board_first_s" in fig else [])


def run_worker(tree: Path, games: int, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--worker",
                          "--games", str(games), "--repeats", str(repeats)],
                         capture_output=True, text=True, env=env, cwd=tree, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def wall(cmd, env=None):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    return time.perf_counter() - t


def peak_rss(cmd) -> tuple[float, int]:
    """(seconds, peak resident memory in bytes) of one run of ``cmd`` (os.wait4's own figures
    for that process, not the largest child's so far)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    return time.perf_counter() - t, usage.ru_maxrss * 1024


#: The tables of the command-line rates: the seats, the rate each must reach and the issue asking it
#: (the champion's: issue 57 item 2, four champions at a table; its first version, whose reroll is
#: the expert's keep, beside it with no target of its own).
CLI_TABLES = (("greedy", "greedy", 200_000, 61), ("the AI mix", "greedy,prudent,expert,racer", 115_000, 61),
              ("the ladder", "novice,casual,regular,expert", 85_000, 61), ("the champion", "champion", 30_000, 57),
              ("the champion's first version (keeps=0)", "champion:keeps=0", 0, 57))
#: The games of the two runs whose difference is timed: 220,000 and 20,000, a tenth of that for the
#: champion (a few thousand games a second: the same figure in a minute rather than ten).
CLI_GAMES = {"champion": (22_000, 2_000), "champion:keeps=0": (22_000, 2_000)}


def cli_figures(repeats: int = 3) -> dict:
    """The speed a user sees: ``heron-sim simulate --json`` timed from outside, the difference
    between 220,000 and 20,000 four-player games (CLI_GAMES: fewer for the champion; start-up and
    compiling cancel), median of
    ``repeats``; the peak memory of 1 M and 10 M greedy games; ``simulate --help``'s wall."""
    out = {}
    for label, seats, _, _ in CLI_TABLES:
        base = CLI + ["simulate", "--mode", "8d8", "--players", "4", "--strategy", seats, "--seed", "3", "--json"]
        many, few = CLI_GAMES.get(seats, (220_000, 20_000))
        wall(base + ["--games", str(few)])  # compiled, cached
        diffs = [wall(base + ["--games", str(many)]) - wall(base + ["--games", str(few)]) for _ in range(repeats)]
        out[label] = (many - few) / statistics.median(diffs)
    for games in (1_000_000, 10_000_000):
        out[f"rss_{games}"] = peak_rss(CLI + ["simulate", "--games", str(games), "--json", "--seed", "3"])
    out["help"] = statistics.median(wall(CLI + ["simulate", "--help"]) for _ in range(repeats))
    return out


def cli_rows(fig: dict) -> list[tuple]:
    rows = [(f"`simulate --json` from outside, {label}, 4 players, games/s", f"{fig[label]:,.0f}", "",
             f">= {target:,} (issue {issue})" if target else f"(issue {issue})") for label, _, target, issue in CLI_TABLES]
    for games in (1_000_000, 10_000_000):
        took, rss = fig[f"rss_{games}"]
        rows.append((f"`simulate --json --games {games:,}`: peak memory (wall)", f"{rss / 2**20:,.0f} MiB ({took:.0f} s)",
                     "", "< 400 MiB at 10 M (issue 61)" if games > 1_000_000 else ""))
    rows.append(("`simulate --help`", f"{fig['help']:.2f} s", "", "<= 1 s (issue 61)"))
    return rows


def dask_rows() -> list[tuple]:
    """The Dask CPU ratio (issue 61 item 4; benchmarks/dask_cpu.py): every process's CPU on a
    local 1- and 2-worker cluster against one process, the same games; one line saying why
    when dask.distributed is not installed."""
    import dask_cpu  # benchmarks/dask_cpu.py

    why = dask_cpu.available()
    if why:
        return [(why, "", "", "")]
    return [(label, value, "", target) for label, value, target in dask_cpu.rows_of(dask_cpu.figures())]


def worth_rows(games: int = 5000, traced: int = 1000) -> list[tuple]:
    """The worth of positions (docs/worth.md): its build at 4 players in an empty cache, and what
    ``simulate --trace`` adds (its replay of the traced games) against playing the same games."""
    import tempfile as _tf

    from heron_sim.analysis import worth as W
    from heron_sim.analysis.drama import trace_games
    from heron_sim.rules import Rules
    from heron_sim.simulation import simulate_counts

    rules = Rules.build("8d8", players=4)
    rows = []
    with _tf.TemporaryDirectory(prefix="heron-worth-") as folder:
        old = os.environ.get("HERON_SIM_CACHE")
        os.environ["HERON_SIM_CACHE"] = folder
        try:
            t = time.perf_counter()
            w = W.build(rules, ["expert"] * 4, games=games)
            build = time.perf_counter() - t
        finally:
            if old is None:
                os.environ.pop("HERON_SIM_CACHE", None)
            else:
                os.environ["HERON_SIM_CACHE"] = old
    simulate_counts(rules, traced, 3, "expert")  # kernels loaded
    t = time.perf_counter()
    simulate_counts(rules, traced, 3, "expert")
    plain = time.perf_counter() - t
    t = time.perf_counter()
    trace_games(rules, ["expert"] * 4, 3, traced, worth=w)
    trace = time.perf_counter() - t
    rows.append((f"worth of positions, 4 expert players, built from {games:,} games (empty cache)",
                 f"{build:.1f} s", "", "minutes on 2 cores (issue 57)"))
    rows.append((f"`simulate --trace`: {traced:,} games replayed and valued / played plain",
                 f"{trace:.2f} s / {plain:.3f} s", "", "a sample: off by default, games unchanged"))
    return rows


def cold_env(folder: str) -> dict:
    env = dict(os.environ, HERON_SIM_CACHE=folder, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)
    return env


def baseline_tree(ref: str):
    """A temporary worktree of ``ref`` (or None: no git, no such commit)."""
    if ref == "none":
        return None
    folder = Path(tempfile.mkdtemp(prefix="heron-bench-base-"))
    try:
        subprocess.run(["git", "worktree", "add", "--detach", str(folder), ref], cwd=ROOT,
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, default=50_000)
    parser.add_argument("--baseline", default=None, help="git commit to compare with ('none': skip)")
    parser.add_argument("--quick", action="store_true", help="skip the cold-cache runs and the lighter games")
    parser.add_argument("--report", action="store_true",
                        help="also time the whole plan's report with an empty cache (5 minutes or more)")
    parser.add_argument("--explore", action="store_true", help="only the figures of `heron-sim explore`")
    parser.add_argument("--ladder", action="store_true",
                        help="only the ladder's figures (and the AI mix's, measured in the same rounds)")
    parser.add_argument("--edit", action="store_true",
                        help="only the designer's edit to the first figures, through `heron-sim explore`'s server")
    parser.add_argument("--luck", action="store_true",
                        help="only the luck-adjusted estimates' variance ratios and the games they save (issue 32)")
    parser.add_argument("--cli", action="store_true", help="only the command line's figures (rates from outside, memory)")
    parser.add_argument("--worth", action="store_true", help="only the worth of positions' build and the trace's cost")
    parser.add_argument("--dask", action="store_true",
                        help="only the Dask CPU ratio: the same games on a local 1- and 2-worker cluster and in one process")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--edit-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.games, args.repeats)))
        return
    if args.edit_worker:
        print(json.dumps(explore_edit_to_first_figure(args.repeats)))
        return
    if args.edit:
        print(f"load average at start {os.getloadavg()[0]:.2f}; {args.repeats} edits, medians")
        fig = explore_edit_figures(args.repeats)
        print(f"{'`explore` through its server: the edit to the first figures, values seen before':<84} "
              f"{fig['explore_edit_s']:.2f} s  <= 1 s")
        print(f"{'  ... values never played here (the expert tables built)':<84} {fig['explore_edit_new_s']:.2f} s  <= 1 s")
        return
    if args.ladder:
        import numba

        from heron_sim.rules import Rules

        print(f"load average at start {os.getloadavg()[0]:.2f}; {args.repeats} repeats, medians")
        fig = ladder_figures(Rules.build(mode="8d8"), args.games, args.repeats,
                             sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)}))
        for label, value, ratio, target in ladder_rows(fig):
            print(f"{label:<72} {value:>10}  {ratio:<22} {target}")
        return
    if args.luck:
        print(f"load average at start {os.getloadavg()[0]:.2f}; 20,000 games a table (and as many of the variant), "
              "100 bootstrap resamples")
        for label, value, _, target in luck_rows(luck_figures()) + luck_panel_rows(luck_panel_figures()):
            print(f"{label:<72} {value:>40}  {target}")
        return
    if args.cli:
        print(f"load average at start {os.getloadavg()[0]:.2f}; {args.repeats} repeats, medians")
        for label, value, _, target in cli_rows(cli_figures(args.repeats)):
            print(f"{label:<72} {value:>24}  {target}")
        return
    if args.worth:
        print(f"load average at start {os.getloadavg()[0]:.2f}")
        for label, value, _, target in worth_rows():
            print(f"{label:<84} {value:>24}  {target}")
        return
    if args.dask:
        print(f"load average at start {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
        for label, value, _, target in dask_rows():
            print(f"{label:<84} {value:>34}  {target}")
        return
    if args.explore:
        print(f"load average at start {os.getloadavg()[0]:.2f}")
        for label, value, _, target in explore_rows(explore_figures(args.repeats)):
            print(f"{label:<62} {value:>8}  {target}")
        return

    import numba

    ref = args.baseline or (ROOT / "benchmarks" / "baseline.txt").read_text().split()[0]
    print(f"heron-sim benchmark — {os.cpu_count()} cores, numba {numba.__version__}, {args.repeats} "
          f"repeats, medians; load average at start {os.getloadavg()[0]:.2f}\n")
    cur = run_worker(ROOT, args.games, args.repeats)
    base, tree = None, baseline_tree(ref)
    if tree is not None:
        try:
            base = run_worker(tree, args.games, args.repeats)
        except subprocess.CalledProcessError as err:
            print(f"(baseline {ref}: failed: {err.stderr.strip().splitlines()[-1:]})")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
            shutil.rmtree(tree, ignore_errors=True)
    rows = []

    def row(label, key, fmt, target=""):
        value = cur[key]
        ratio = f"{value / base[key]:.2f}x {ref[:10]}" if base and key in base else ""
        rows.append((label, fmt.format(value), ratio, target))

    row("8d8 greedy 4-player games/s, 1 thread", "greedy_1", "{:,.0f}", ">= 55,000")
    if "greedy_2" in cur:
        row("8d8 greedy 4-player games/s, 2 threads", "greedy_2", "{:,.0f}", ">= 200,000 (issue 32)")
    row("single turns/s (turns kernel, 2 threads)", "turns_2", "{:,.0f}", ">= 20,000,000")
    row("8d8 expert 4-player games/s, 1 thread", "expert_1", "{:,.0f}")
    rows.append(("greedy / expert time per game", f"{cur['greedy_expert_ratio']:.2f}x",
                 f"(baseline {base['greedy_expert_ratio']:.2f}x)" if base else "", "<= 2x"))
    for name in ("prudent", "racer"):
        if f"{name}_1" in cur:
            row(f"8d8 {name} 4-player games/s, 1 thread", f"{name}_1", "{:,.0f}")
    if "mix_1" in cur:
        row("8d8 AI mix (greedy, prudent, expert, racer) games/s, 1 thread", "mix_1", "{:,.0f}")
    if "mix_2" in cur:
        row("8d8 AI mix games/s, 2 threads", "mix_2", "{:,.0f}", ">= 120,000 (issue 32)")

    rows += ladder_rows(cur, base, ref)

    from roll_phase import figures as roll_phase_figures  # benchmarks/roll_phase.py: where an expert's time goes

    rows += [(label, value, "", "") for label, value in roll_phase_figures()]
    rows += explore_rows(explore_figures(min(args.repeats, 3)))
    rows += luck_rows(luck_figures()) + luck_panel_rows(luck_panel_figures())
    rows += cli_rows(cli_figures(min(args.repeats, 3)))
    rows += dask_rows()
    rows += worth_rows()
    warm = statistics.median(wall(CLI + ["simulate", "--games", "10000", "--json"]) for _ in range(3))
    rows.append(("`heron-sim simulate --games 10000`, warm cache", f"{warm:.2f} s", "", ""))
    if not args.quick:
        folder = tempfile.mkdtemp(prefix="heron-cold-")
        try:
            cold = wall(CLI + ["simulate", "--games", "10000", "--json"], env=cold_env(folder))
            rows.append(("`heron-sim simulate --games 10000`, empty cache", f"{cold:.1f} s", "", "< 30 s"))
            from heron_sim.games import available

            for name in available():
                cmd = CLI + ["game", name, "simulate", "--games", "10000"]
                first = wall(cmd, env=cold_env(folder))
                again = wall(cmd, env=cold_env(folder))
                rows.append((f"`heron-sim game {name} simulate --games 10000`, empty cache / warm",
                             f"{first:.1f} / {again:.1f} s", "", "< 30 s"))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if args.report:
        folder = tempfile.mkdtemp(prefix="heron-report-")
        try:
            took = wall(CLI + ["report", "--out", f"{folder}/results", "--run-dir", f"{folder}/run"],
                        env=cold_env(f"{folder}/cache"))
            rows.append(("`heron-sim report` (the whole plan), empty cache", f"{took / 60:.1f} min", "",
                         "< 5 min"))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    width = max(len(r[0]) for r in rows)
    print(f"{'':<{width}}  {'now':>14}  {'vs baseline':<18}  target")
    for label, value, ratio, target in rows:
        print(f"{label:<{width}}  {value:>14}  {ratio:<18}  {target}")
    # the lab's default-panel study (120 candidates), then (not with --quick: about 23 min more) its last
    # rung again luck-adjusted (issue 32 item 3)
    quick = getattr(args, "quick", False)
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_tune.py")] + (["--quick"] if quick else ["--luck"]),
                   cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
