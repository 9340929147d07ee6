"""The reliability of the worth of positions (docs/worth.md): predicted chances against observed
winners on held-out self-play games, decile by decile, for the rulings and two variants at 2, 4
and 7 players.

    .venv/bin/python experiments/worth_reliability.py [--out docs/figures] [--games 20000]

Writes ``worth-reliability.png`` and ``worth-reliability.json`` into ``--out`` and prints the
table of docs/worth.md. Each model is built from ``--games`` self-play games of the expert
(seed heron_sim.analysis.worth.BUILD_SEED) and checked on other games (seed 77: 10,000 games,
5,000 at 7 players). About 15 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from heron_sim.analysis import worth as W
from heron_sim.analysis.positions import trace_turn_starts
from heron_sim.io import atomic_path
from heron_sim.rules import Rules

RULE_SETS = {
    "rulings": ("8d8", {}),
    "exact finish (variant)": ("8d8", {"exact_finish": True}),
    "10 D8 (mode)": ("10d8", {}),
}
PLAYERS = (2, 4, 7)
STRATEGY = "expert"
HELD_OUT_SEED = 77


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("docs/figures"))
    ap.add_argument("--games", type=int, default=W.BUILD_GAMES)
    ap.add_argument("--held-out", type=int, default=10_000)
    args = ap.parse_args()
    rows = []
    for name, (mode, over) in RULE_SETS.items():
        for players in PLAYERS:
            r = Rules.build(mode, players=players, overrides=over)
            t0 = time.perf_counter()
            w = W.build(r, [STRATEGY] * players, games=args.games)
            built = time.perf_counter() - t0
            held = args.held_out // 2 if players == 7 else args.held_out
            tr = trace_turn_starts(r, [STRATEGY] * players, seed=HELD_OUT_SEED, games=held)
            rel = W.reliability(w, tr)
            rows.append({"rules": name, "players": players, "build_games": args.games,
                         "build_seconds": round(built, 1), "held_out_games": held,
                         "positions": rel.positions, "brier": rel.brier, "worst": rel.worst(),
                         "deciles": rel.rows()})
            print(f"{name:24s} {players} players: worst decile {100 * rel.worst():.2f} points "
                  f"(build {built:.0f} s, {rel.positions:,} seat-positions held out)", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    with atomic_path(args.out / "worth-reliability.json") as tmp:
        tmp.write_text(json.dumps(rows, indent=1) + "\n")
    _figure(rows, args.out / "worth-reliability.png")
    print()
    print("| rules | players | worst decile (points) | every decile: observed − predicted, points [95 %] |")
    print("|---|---|---|---|")
    for row in rows:
        cells = ", ".join(f"{100 * d['error']:+.1f}" for d in row["deciles"])
        print(f"| {row['rules']} | {row['players']} | {100 * row['worst']:.2f} | {cells} |")


def _figure(rows, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(RULE_SETS), figsize=(4.2 * len(RULE_SETS), 4.2), sharey=True)
    for ax, name in zip(np.atleast_1d(axes), RULE_SETS):
        ax.plot([0, 100], [0, 100], color="0.7", lw=1, zorder=0)
        for row in (r for r in rows if r["rules"] == name):
            d = row["deciles"]
            x = [100 * e["predicted"] for e in d]
            y = [100 * e["observed"] for e in d]
            lo = [100 * (e["predicted"] + e["error_low"]) for e in d]
            hi = [100 * (e["predicted"] + e["error_high"]) for e in d]
            ax.errorbar(x, y, yerr=[np.subtract(y, lo), np.subtract(hi, y)], marker="o", ms=3, lw=1,
                        capsize=2, label=f"{row['players']} players (worst {100 * row['worst']:.1f} pt)")
        ax.set_title(name)
        ax.set_xlabel("predicted chance of winning (%)")
        ax.legend(fontsize=8, loc="upper left")
        ax.set_xlim(0, 100)
        ax.set_ylim(0, 100)
    np.atleast_1d(axes)[0].set_ylabel("observed share of wins (%)")
    fig.suptitle("Worth of positions: predicted against observed, by decile (held-out games, 95 % intervals)", fontsize=10)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)


if __name__ == "__main__":
    main()
